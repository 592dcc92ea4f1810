"""The command line, `python -m bpe_core`: its commands (`main`), what they
read from the user (`inputs`), and the stage commands that save a talk's
views as files (`stage`).
"""

from .main import main

__all__ = ["main"]
