"""Shared test set-up.

Hypothesis runs a small number of examples by default, so the whole suite
stays fast in CI; HYPOTHESIS_PROFILE=fuzz runs 10,000 per property (see the
README's "Fuzzing" section).
"""

import os
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

settings.register_profile("default", max_examples=150, deadline=None)
settings.register_profile(
    "fuzz", max_examples=10_000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


# ------------------------------------------------------------ browser tests


@pytest.fixture(scope="session")
def server():
    """The app, served once for every browser test."""
    from tests.browser import StreamlitServer, require_chromium

    require_chromium()
    app = StreamlitServer()
    yield app
    app.stop()


@pytest.fixture(scope="session")
def browser(server):
    from playwright.sync_api import sync_playwright

    from tests.browser import CHROMIUM, CHROMIUM_ARGS

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser):
    """A fresh browser session (a new Streamlit session too), recording dialogs."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.dialogs = []
    page.on("dialog", lambda dialog: (page.dialogs.append(dialog.message), dialog.dismiss()))
    yield page
    context.close()
