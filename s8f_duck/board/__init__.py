"""`s8f-duck leaderboard`: the runs of a runs database compared, with bootstrap intervals
and paired differences (leaderboard.py, sql/leaderboard), as a table, JSON or CSV (text.py)
and as an HTML page (page.py).

May import: pipeline, safety (never the grader or the readers: it reads only the runs
database, which holds no answers but the graded records' facts).
"""
