"""`python -m s8f_duck`: the same command line as `s8f-duck`."""

from .cli import main

main()
