"""The ground every command stands on: one-line failures and exit statuses (errors.py,
failures.py), path arguments checked (paths.py, arguments.py), outputs committed all at once
(commit.py, writers.py), private scratch directories (scratch.py), trees of any shape removed (trees.py), signals (interrupts.py),
the progress line that failures and signals clear (progress.py), the memory limit
(memory.py), untrusted data held safely in a self-contained page (pages.py), untrusted text
printed safely (printable.py), a database another process holds waited for (locks.py).

May import: nothing of the package (the bottom layer).
"""
