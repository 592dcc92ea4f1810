"""Real-browser test support: the app served by `streamlit run` on loopback,
driven by Playwright in Debian's Chromium (/usr/bin/chromium; nothing is
downloaded). Screenshots go to artifacts/screenshots/ (gitignored, kept by CI).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCREENSHOTS = ROOT / "artifacts" / "screenshots"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"

# Flags from running Chromium headless on a closed network: no background
# requests (they would fail and slow every start), no sandbox as root.
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]


def require_chromium() -> None:
    """Skip when there is no browser, except in CI, where that is a failure."""
    if Path(CHROMIUM).exists():
        return
    if os.environ.get("REQUIRE_BROWSER_TESTS"):
        pytest.fail(f"Chromium not found at {CHROMIUM}; .ci/run installs it with apt.")
    pytest.skip("Chromium is not installed (apt install chromium); .ci/run installs it.")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class StreamlitServer:
    """`streamlit run app.py` on 127.0.0.1, stopped when the tests end."""

    def __init__(self, extra_env: dict[str, str] | None = None):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = (ROOT / "artifacts" / f"streamlit-{self.port}.log")
        self.log.parent.mkdir(parents=True, exist_ok=True)
        command = [
            sys.executable, "-m", "streamlit", "run", "app.py",
            "--server.address", "127.0.0.1", "--server.port", str(self.port),
            "--server.headless", "true", "--browser.gatherUsageStats", "false",
            "--server.fileWatcherType", "none",
        ]
        self.process = subprocess.Popen(
            command, cwd=ROOT, stdout=self.log.open("w"), stderr=subprocess.STDOUT,
            env={**os.environ, **(extra_env or {})},
        )
        self._wait_until_healthy()

    def _wait_until_healthy(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"streamlit exited early; see {self.log}")
            try:
                with urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=2) as response:
                    if response.read().strip() == b"ok":
                        return
            except OSError:
                time.sleep(0.3)
        raise RuntimeError(f"streamlit did not start within {timeout} s; see {self.log}")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()


def wait_for_app(page, timeout: float = 60) -> None:
    """Wait until Streamlit has finished running the script (the status
    widget that says "Running…" is gone for a moment)."""
    page.wait_for_selector('[data-testid="stApp"]', timeout=timeout * 1000)
    deadline = time.monotonic() + timeout
    quiet_since = None
    while time.monotonic() < deadline:
        running = page.locator('[data-testid="stStatusWidget"]').count() > 0
        skeleton = page.locator('[data-testid="stSkeleton"]').count() > 0
        if running or skeleton:
            quiet_since = None
        elif quiet_since is None:
            quiet_since = time.monotonic()
        elif time.monotonic() - quiet_since > 0.8:
            return
        page.wait_for_timeout(100)
    raise TimeoutError("the app kept running")


def screenshot(page, name: str) -> Path:
    """The whole page: Streamlit scrolls inside its main container, so the
    viewport is stretched to the content's height for the picture."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    viewport = page.viewport_size
    height = page.evaluate("document.querySelector('[data-testid=\"stMain\"]')?.scrollHeight ?? 0")
    page.set_viewport_size({"width": viewport["width"], "height": max(viewport["height"], min(height, 12_000))})
    page.wait_for_timeout(500)  # let charts re-lay out to the new size
    page.screenshot(path=str(path))
    page.set_viewport_size(viewport)
    return path


def assert_no_exception(page) -> None:
    exceptions = page.locator('[data-testid="stException"]')
    assert exceptions.count() == 0, exceptions.first.inner_text()
