"""Every input into DuckDB, read exactly as the original Go tool reads it: the dump's form
told apart (input_forms.py, dump.py), gh arrays, public corpora and answer bundles loaded
(load.py), GitHub's REST objects (rest_dumps.py, rest_batches.py), Go's JSON decoding and
encoding (gojson.py), the strict-JSON check (strictness.py), the typed check of bundles and
submissions (typed_check.py), large arrays cut for every core (split.py), the documents'
schema names (schemas.py). Mirrors sql/raw, sql/public and sql/bundle.

May import: pipeline, safety.
"""
