"""The schema names of the documents: what the readers check a file against and what
the writers put in it (docs/format.md)."""

CORPUS_SCHEMA = "fak-microcontext-corpus/1"
REPORT_SCHEMA = "fak-microcontext-corpus-report/1"
ANSWERS_SCHEMA = "fak-microcontext-answers/1"
SUBMISSION_SCHEMA = "fak-microcontext-submission/1"
SEMANTIC_SCHEMA = "s8f-duck-semantic-answers/1"  # adjudicate gold's bundle, which grade --semantic reads
