"""s8f-duck: freeze a GitHub issue dump into a leak-controlled, independently graded benchmark."""

__version__ = "0.1.0"
