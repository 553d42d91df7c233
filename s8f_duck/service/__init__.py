"""The grading service: `s8f-duck serve` (server.py: the Starlette application and its
store, sql/service; connections.py: its connections held to time and number), the teams
file and its tokens (teams.py), and `s8f-duck submit` (client.py).

May import: grading, reading, pipeline, safety.
"""
