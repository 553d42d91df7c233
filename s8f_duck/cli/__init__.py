"""The command line: `s8f-duck COMMAND`, one module per family of commands.

- app.py: the Typer application, the shared options, failures turned into exit statuses;
- corpus.py (freeze, verify, baseline, explore, sql), grading.py (grade), runs.py (run,
  runs), service.py (serve, team, submit), board.py (leaderboard): each command parses its
  arguments and calls one function of the folder of the same concern;
- main.py: the commands registered in the order `--help` lists them, and `main`, the entry
  point (`s8f-duck`, `python -m s8f_duck`).

May import: every other folder of the package (the top layer; nothing imports it). A
command imports its work inside its function, so a command pays only for what it runs.
"""
