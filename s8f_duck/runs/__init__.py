"""`s8f-duck run`: a candidate in the bubblewrap sandbox (sandbox.py, its seccomp filter in
seccomp.py) under its limits (limits.py), its allowed endpoints through the recording proxy
(proxy.py) and, inside the sandbox, the relay (relay.py, run without the package), then
graded and recorded in the runs database (runner.py, sql/runs).

May import: grading, reading, pipeline, safety.
"""
