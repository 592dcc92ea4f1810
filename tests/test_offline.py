"""Offline proof: the whole app works with the network disabled, and no
request (from the browser or the app's server) leaves loopback."""

import json
import shutil
import subprocess
import sys

import pytest

from pages.common.names import HOME, PAGES
from tests.browser import require_chromium
from tests.conftest import ROOT

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SESSION = [sys.executable, "-m", "tests.offline_session"]


def network_namespace_available() -> bool:
    """An unprivileged network namespace (only a loopback device), if allowed here."""
    if not (shutil.which("unshare") and shutil.which("ip")):
        return False
    probe = subprocess.run(["unshare", "-rn", "ip", "link", "set", "lo", "up"], capture_output=True)
    return probe.returncode == 0


def test_every_page_works_offline_and_nothing_leaves_loopback():
    require_chromium()
    isolated = network_namespace_available()
    command = (
        ["unshare", "-rn", "sh", "-c", 'ip link set lo up && exec "$@"', "offline", *SESSION] if isolated else SESSION
    )
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    report = json.loads(result.stdout.strip().splitlines()[-1])
    print("network namespace:", isolated, "| requests:", report["requests"])
    assert list(report["pages"]) == [page.url_path or "home" for page in PAGES]
    for info in PAGES:
        shown = report["pages"][info.url_path or "home"]
        assert shown["exceptions"] == 0, info.title
        assert shown["title"] == ("BPE playground" if info is HOME else info.title)
    assert report["outside"] == [], report["outside"]
    assert report["server_attempts"] == [], report["server_attempts"]
