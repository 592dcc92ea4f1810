"""Running the command line from tests: in this process, as fast as a call.

`run_cli` gives `bpe_core.cli.main` the arguments, standard input and
output streams the shell would; one test in test_cli.py runs
`python -m bpe_core` for real, to prove the entry point itself.
"""

from __future__ import annotations

import io
import sys
from contextlib import redirect_stderr, redirect_stdout
from unittest import mock

from bpe_core.cli import main


def run_cli(*args, stdin: bytes = b"") -> tuple[int, str, str]:
    """`python -m bpe_core ARGS < stdin`: (exit status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with mock.patch.object(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin))), redirect_stdout(out), redirect_stderr(err):
        try:
            code = main([str(arg) for arg in args])
        except SystemExit as exit:  # argparse ends usage errors and --help this way
            code = exit.code
    return code, out.getvalue(), err.getvalue()
