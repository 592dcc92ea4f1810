"""The package as its users install it: a virtual environment that .ci/run
makes with this package's wheel and published libraries that use tiktoken
(PACKAGE_PYTHON names its Python, PACKAGE_WHEEL the wheel). Locally, tests
that need it are skipped without it; in CI (REQUIRE_PACKAGE_TESTS) they fail."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.conftest import ROOT

NETWORK_GUARD = ROOT / "tests" / "network_guard"  # refuses and records any connection beyond loopback


def required(variable: str) -> str:
    """An environment variable that .ci/run sets."""
    if os.environ.get(variable):
        return os.environ[variable]
    if os.environ.get("REQUIRE_PACKAGE_TESTS"):
        pytest.fail(f"{variable} is not set: .ci/run makes the virtual environment with the package's wheel")
    pytest.skip(f"{variable} is not set (.ci/run makes a virtual environment with the package's wheel)")


def run_installed(*command, folder: Path, stdin: str = "", **environment) -> str:
    """`PACKAGE_PYTHON COMMAND` in `folder` (outside the checkout), with no
    access to the network (a connection attempt fails it); its standard output."""
    log = folder / "network.log"
    env = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}
    env |= {"PYTHONPATH": str(NETWORK_GUARD), "BPE_NETWORK_LOG": str(log), "HF_HUB_OFFLINE": "1", **environment}
    result = subprocess.run([required("PACKAGE_PYTHON"), *map(str, command)], input=stdin, capture_output=True,
                            text=True, cwd=folder, env=env, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    assert not log.exists(), log.read_text()
    return result.stdout
