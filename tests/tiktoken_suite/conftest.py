"""tiktoken's own suite checks the whole interface at once, with hypothesis
and full vocabularies: it belongs to the slow part of the run."""

from pathlib import Path

import pytest

HERE = Path(__file__).parent


def pytest_collection_modifyitems(items):
    for item in items:
        if HERE in Path(item.fspath).parents:
            item.add_marker(pytest.mark.slow)
