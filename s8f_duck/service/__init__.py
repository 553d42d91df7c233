"""The grading service: `s8f-duck serve` (server.py: the Starlette application, its store
in sql/service; connections.py holds its connections to time and number), the teams file and its tokens (teams.py), and `s8f-duck submit` (client.py).

May import: grading, reading, pipeline, safety.
"""
