"""`python -m s8f_duck`: the same command line as `s8f-duck`."""

from s8f_duck.cli.main import main

main()
