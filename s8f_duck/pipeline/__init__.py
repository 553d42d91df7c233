"""Running the SQL: the step lists and the DuckDB connections that run them (steps.py),
Go's sort emulated where top-ten ties need it (gosort.py), the scrub's literal prefilter
(literals.py), SHA-256 through hashlib for DuckDB (hashing.py), rows as CSV or aligned
tables (text_tables.py).

May import: safety.
"""
