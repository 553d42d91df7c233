"""The grader: an answer bundle read once (`grade.Grader`), submissions graded fact by fact
by the diff queries of sql/grade. Used by freeze (the oracle grade), run and the service.

May import: reading, pipeline, safety.
"""
