"""What a test needs of the machine that pip does not install: a font, a
second core, a network namespace. Without it a developer's run skips the
test and says why; CI, where .ci/run installs it and sets REQUIRE_*
variables, fails the test instead, with the same reason, so that nothing
is skipped there unnoticed."""

import os

import pytest

# Set together by .ci/run: a run with any of them is CI's.
CI_VARIABLES = ("REQUIRE_BROWSER_TESTS", "REQUIRE_DASK_TESTS", "REQUIRE_PACKAGE_TESTS", "REQUIRE_NATIVE")


def require(met: bool, reason: str, variable: str | None = None) -> None:
    """Go on when `met`; else fail if `variable` is set (with none named, any
    of CI's), and skip otherwise."""
    if met:
        return
    required_by = [variable] if variable else list(CI_VARIABLES)
    set_here = [name for name in required_by if os.environ.get(name)]
    if set_here:
        pytest.fail(f"{reason}, and {set_here[0]} is set: this run must not skip it")
    pytest.skip(reason)
