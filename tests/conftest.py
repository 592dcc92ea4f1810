"""Shared test set-up.

Hypothesis runs 40 examples per property by default, so the fast part of
the suite runs in about a minute; HYPOTHESIS_PROFILE=fuzz runs 10,000 per
property (see "Fuzzing" in docs/hardening.md).
"""

import gc
import json
import os
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# The test run keeps what it compiles, even where PYTHONDONTWRITEBYTECODE is
# set (as on CI's machines and this project's shared ones): else each pytest
# worker compiles the project's modules, and pytest rewrites the asserts of
# every test module, afresh on every run (about 6 s of CPU per worker, half
# of collecting the suite). The files go to __pycache__ folders, which git
# ignores; the processes the tests start still write none, but read these.
sys.dont_write_bytecode = False

settings.register_profile("default", max_examples=40, deadline=None)
settings.register_profile(
    "fuzz", max_examples=10_000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


FILE_SECONDS = ROOT / "tests" / "file_seconds.json"


def pytest_addoption(parser):
    parser.addoption("--record-file-seconds", action="store_true",
                     help=f"write how long each file's tests took, by kind, to {FILE_SECONDS.name} (the run order's measure)")


def test_kind(item) -> str:
    return "browser" if item.get_closest_marker("browser") else "slow" if item.get_closest_marker("slow") else "fast"


@pytest.hookimpl(trylast=True)  # after -m has deselected, and after tests/tiktoken_suite marks its tests slow
def pytest_collection_modifyitems(config, items):
    """The longest files first. Two workers take whole files in this order
    (pyproject.toml's addopts), so the long files start at once and the many
    short ones fill the end instead of one long file running alone. A file's
    length is measured, not guessed: the seconds its selected kinds of tests
    (browser, slow, fast) took in a recorded run (`--record-file-seconds`,
    tests/file_seconds.json); files not yet recorded go first, those with
    browser tests, then those with slow ones, then the rest."""
    recorded = json.loads(FILE_SECONDS.read_text()) if FILE_SECONDS.exists() else {}
    kinds = {}
    for item in items:
        kinds.setdefault(_file_key(item.path), set()).add(test_kind(item))
        item.user_properties.append(("kind", test_kind(item)))  # travels to the controller in each report

    def seconds(path) -> float:
        file = _file_key(path)
        if file not in recorded:
            return float("inf")
        return sum(recorded[file].get(kind, 0.0) for kind in kinds[file])

    def unrecorded_order(path) -> int:
        return min(("browser", "slow", "fast").index(kind) for kind in kinds[_file_key(path)])

    # stable: a file's tests keep their order
    items.sort(key=lambda item: (-seconds(item.path), unrecorded_order(item.path)))


def pytest_collection_finish(session):
    """What collecting imported (Streamlit, pandas, plotly, hypothesis:
    ~150,000 objects that live as long as the run) is left out of the
    garbage collector's full passes, which the tests set off by the
    hundred (over five of the longest files: 1.15 s of passes, then 0.47 s)."""
    gc.freeze()


def _file_key(path) -> str:
    return Path(path).relative_to(ROOT).as_posix()


_measured: dict[str, dict[str, float]] = {}


def pytest_runtest_logreport(report):
    """With --record-file-seconds: add each phase's time to its file and kind
    (in the controller under xdist, which hears every worker's reports)."""
    kind = dict(report.user_properties).get("kind")
    if kind is not None:
        file = report.nodeid.split("::")[0]
        _measured.setdefault(file, {}).setdefault(kind, 0.0)
        _measured[file][kind] += report.duration


def pytest_sessionfinish(session):
    if session.config.getoption("record_file_seconds") and not hasattr(session.config, "workerinput"):
        recorded = json.loads(FILE_SECONDS.read_text()) if FILE_SECONDS.exists() else {}
        for file, by_kind in _measured.items():
            recorded.setdefault(file, {}).update({kind: round(seconds, 2) for kind, seconds in by_kind.items()})
        FILE_SECONDS.write_text(json.dumps(dict(sorted(recorded.items())), indent=1) + "\n")


@pytest.fixture
def quick_regex_deadlines(monkeypatch):
    """Regex deadlines of milliseconds: a test of what happens when a pattern
    runs out of time need not wait the seconds a user is given."""
    from bpe_core.analysis import vocabulary_search
    from bpe_core.engine import patterns
    from bpe_core.sandbox import untrusted_regex

    monkeypatch.setattr(patterns, "CUSTOM_PATTERN_TIMEOUT_SECONDS", 0.05)
    monkeypatch.setattr(untrusted_regex, "PROBE_MATCH_SECONDS", 0.05)
    monkeypatch.setattr(vocabulary_search, "REGEX_SECONDS_PER_TOKEN", 0.01)
    monkeypatch.setattr(vocabulary_search, "REGEX_SECONDS_IN_ALL", 0.2)
    untrusted_regex._verdict.cache_clear()  # verdicts reached under these deadlines stay in this test
    yield
    untrusted_regex._verdict.cache_clear()


@pytest.fixture
def job_worker_gone():
    """For a test of one budgeted job: call it after the job, and it tells
    whether the worker process that ran the job is gone. (A fresh spare
    worker, started for the next job, is meant to be left.)"""
    import multiprocessing

    from bpe_core.jobs.budgeted_jobs import SPARE_WORKERS
    from bpe_core.sandbox.hosts import HOSTS

    def children() -> set[int]:
        return {child.pid for child in multiprocessing.active_children()}

    HOSTS.close()  # a visitor's tokenizer host left by an earlier test is not the job's worker
    SPARE_WORKERS.prepare()  # the worker that will take the job
    before = children()
    return lambda: bool(before) and not before & children()


# ------------------------------------------------------------ browser tests


@pytest.fixture
def sentencepiece_missing(monkeypatch):
    """As on a machine without `sentencepiece`: importing it fails, and
    Mistral v3 (which needs it) loads afresh, as in a new process (a new
    catalogue entry is a new key of the loaded tokenizers' cache)."""
    import dataclasses
    import functools

    from bpe_core.vocabularies.catalogue import CATALOGUE

    for module in [key for key in sys.modules if key == "sentencepiece" or key.startswith("sentencepiece.")]:
        monkeypatch.delitem(sys.modules, module)
    monkeypatch.setitem(sys.modules, "sentencepiece", None)
    real = CATALOGUE["mistral_v3"]
    monkeypatch.setitem(CATALOGUE, "mistral_v3", dataclasses.replace(real, load=functools.partial(real.load)))


@pytest.fixture(scope="session")
def server():
    """The app, served once for every browser test."""
    from tests.browser import StreamlitServer, require_chromium

    require_chromium()
    app = StreamlitServer()
    yield app
    app.stop()


@pytest.fixture(scope="session")
def chromium():
    """Headless Chromium, once per test process: Playwright's sync API runs
    one instance per process, so a test that starts a server of its own
    takes its browser from here too."""
    from playwright.sync_api import expect, sync_playwright

    from tests.browser import CHROMIUM, CHROMIUM_ARGS, WAIT_SECONDS, require_chromium

    require_chromium()
    expect.set_options(timeout=WAIT_SECONDS * 1000)  # a busy machine is slow, not wrong
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture(scope="session")
def browser(server, chromium):
    """Chromium, for tests of the shared server."""
    return chromium


@pytest.fixture
def page(browser):
    """A fresh browser session (a new Streamlit session too), recording
    dialogs and counting finished script runs (see tests.browser.run)."""
    from tests.browser import new_page

    page = new_page(browser)
    page.dialogs = []
    page.on("dialog", lambda dialog: (page.dialogs.append(dialog.message), dialog.dismiss()))
    yield page
    page.context.close()
