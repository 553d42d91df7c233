"""s8f-duck: freeze a GitHub issue dump into a leak-controlled, independently graded benchmark."""


def __getattr__(name: str) -> str:
    if name == "__version__":  # the installed distribution's, as `s8f-duck --version` prints it
        from importlib.metadata import version

        return version("s8f-duck")
    raise AttributeError(name)
