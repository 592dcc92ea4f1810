"""Offline proof: the whole app works with the network disabled, and no
request (from the browser or the app's server) leaves loopback."""

import json
import shutil
import subprocess
import sys

from tests.browser import require_chromium
from tests.conftest import ROOT

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
    assert len(report["pages"]) == 9
    for name, page in report["pages"].items():
        assert page["exceptions"] == 0, name
        assert page["title"], name
    assert report["outside"] == [], report["outside"]
    assert report["server_attempts"] == [], report["server_attempts"]
