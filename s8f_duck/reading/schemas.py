"""The schema names of the documents: what the readers check a file against and what
the writers put in it (docs/format.md)."""

CORPUS_SCHEMA = "fak-microcontext-corpus/1"
REPORT_SCHEMA = "fak-microcontext-corpus-report/1"
ANSWERS_SCHEMA = "fak-microcontext-answers/1"
SUBMISSION_SCHEMA = "fak-microcontext-submission/1"
SEMANTIC_SCHEMA = "s8f-duck-semantic-answers/1"  # adjudicate gold's bundle, which grade --semantic reads

GRADE_SCHEMA = "fak-microcontext-grade/1"

KINDS = {
    CORPUS_SCHEMA: "a public corpus", REPORT_SCHEMA: "a report", ANSWERS_SCHEMA: "an answer bundle",
    SUBMISSION_SCHEMA: "a submission", SEMANTIC_SCHEMA: "a semantic answer bundle", GRADE_SCHEMA: "a grade",
}  # fmt: skip


def swapped_hint(found: object, expected: str) -> str:
    """What a file with another of these schemas is, for a message (empty for any other):
    two files given in each other's places are the commonest cause."""
    if not isinstance(found, str) or found not in KINDS or found == expected:
        return ""
    return f": this is {KINDS[found]}, not {KINDS[expected]} (did you swap the files?)"
