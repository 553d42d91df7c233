"""The corpus commands' work: `freeze` (a raw dump into the public corpus, the answer
bundle and the report), `verify` (the three re-derived and compared), `baseline` (the exact
SQL answers from the public corpus), `explore` and the `sql` prompt (a database for ad-hoc
SQL), and the artifacts' bytes (artifacts.py). Mirrors sql/raw, sql/public, sql/freeze and
sql/facts.

May import: grading, reading, pipeline, safety.
"""
