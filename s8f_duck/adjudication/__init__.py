"""Facts no rule can derive: a rubric of fields to judge (rubric.py), a packet of public
records to judge (packet.py), the labels people and models give them (labels.py; a model's
through an OpenAI-compatible endpoint: model.py, its prompt and answer check prompt.py, its
journal journal.py), and how far the adjudicators agree (agreement.py, sql/adjudication).
docs/adjudication.md.

May import: reading, pipeline, safety.
"""
