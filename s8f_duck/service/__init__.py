"""The grading service: `s8f-duck serve` (server.py: the Starlette application, its store
in sql/service), the teams file and its tokens (teams.py), and `s8f-duck submit` (client.py).

May import: grading, reading, pipeline, safety.
"""
