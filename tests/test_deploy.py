"""Serving a large room: two Streamlit processes behind HAProxy with
deploy/haproxy.cfg. Each process serves real sessions through the proxy:
a visitor's page runs there, and its upload (an HTTP request apart from the
websocket) reaches the same process, which is the one thing Streamlit needs
of a proxy."""

from __future__ import annotations

import http.cookiejar
import os
import shutil
import subprocess
import time
import urllib.error
import urllib.request
import uuid

import pytest
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from websockets.sync.client import connect

from tests.browser import StreamlitServer, free_port
from tests.conftest import ROOT

pytestmark = pytest.mark.slow

HAPROXY = shutil.which("haproxy") or "/usr/sbin/haproxy"
STICKY_COOKIE = "PLAYGROUND_SERVER"
SCRIPT_DONE = (ForwardMsg.ScriptFinishedStatus.FINISHED_SUCCESSFULLY,)


@pytest.fixture(scope="module")
def room():
    """Two app processes and the proxy in front of them: (proxy url, {server name: app})."""
    if not os.path.exists(HAPROXY):
        if os.environ.get("CI") or os.environ.get("REQUIRE_BROWSER_TESTS"):
            pytest.fail("HAProxy is not installed; .ci/run installs it with apt.")
        pytest.skip("HAProxy is not installed (apt install haproxy); .ci/run installs it.")
    apps = {"app1": StreamlitServer(), "app2": StreamlitServer()}
    port = free_port()
    environment = {**os.environ, "PROXY_ADDRESS": f"127.0.0.1:{port}",
                   "APP_1": f"127.0.0.1:{apps['app1'].port}", "APP_2": f"127.0.0.1:{apps['app2'].port}"}
    log = (ROOT / "artifacts" / f"haproxy-{port}.log").open("w")
    proxy = subprocess.Popen([HAPROXY, "-f", str(ROOT / "deploy" / "haproxy.cfg"), "-db"],
                             env=environment, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_both_are_up(url, proxy)
        yield url, apps
    finally:
        proxy.terminate()
        proxy.wait(timeout=10)
        for app in apps.values():
            app.stop()


def wait_until_both_are_up(url: str, proxy: subprocess.Popen, timeout: float = 60) -> None:
    """Until the proxy answers and has sent visitors to both processes
    (its health checks mark each up after it answers /_stcore/health)."""
    deadline = time.monotonic() + timeout
    seen: set[str] = set()
    while time.monotonic() < deadline and seen != {"app1", "app2"}:
        if proxy.poll() is not None:
            raise RuntimeError("haproxy exited; see artifacts/haproxy-*.log")
        try:
            seen.add(Visitor(url).open_page())
        except (OSError, urllib.error.HTTPError):
            time.sleep(0.2)
    assert seen == {"app1", "app2"}, f"the proxy sent visitors only to {seen}"


class Visitor:
    """One browser's worth of state: its cookies, its websocket session."""

    def __init__(self, url: str):
        self.url = url
        self.cookies = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.cookies))

    def cookie(self, name: str) -> str:
        return next(cookie.value for cookie in self.cookies if cookie.name == name)

    def cookie_header(self) -> str:
        return "; ".join(f"{cookie.name}={cookie.value}" for cookie in self.cookies)

    def open_page(self) -> str:
        """GET the page and the health check, as a browser does before it opens
        the websocket (the health check sets the XSRF cookie); returns the
        process the proxy pinned this visitor to."""
        with self.opener.open(self.url + "/inspect", timeout=30) as response:
            assert response.status == 200 and b"<html" in response.read().lower()
        with self.opener.open(self.url + "/_stcore/health", timeout=30) as response:
            assert response.read() == b"ok"
        return self.cookie(STICKY_COOKIE)

    def run_page(self, socket, page: str, query: str = "") -> tuple[str, list[str], int]:
        """Run a page over the websocket: (session id, markdown shown, exceptions shown)."""
        request = BackMsg()
        request.rerun_script.page_name = page
        request.rerun_script.query_string = query
        socket.send(request.SerializeToString())
        session_id, markdown, exceptions = "", [], 0
        while True:
            message = ForwardMsg()
            message.ParseFromString(socket.recv(timeout=120))
            kind = message.WhichOneof("type")
            if kind == "new_session":
                session_id = message.new_session.initialize.session_id
            elif kind == "delta":
                element = message.delta.new_element
                if element.WhichOneof("type") == "markdown":
                    markdown.append(element.markdown.body)
                exceptions += element.WhichOneof("type") == "exception"
            elif kind == "script_finished" and message.script_finished in SCRIPT_DONE:
                return session_id, markdown, exceptions

    def upload(self, base_url: str, session_id: str) -> int:
        """PUT a file as the file uploader does (multipart, XSRF header); the status code."""
        boundary = uuid.uuid4().hex
        body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"notes.txt\"\r\n"
                f"Content-Type: text/plain\r\n\r\nhello room\r\n--{boundary}--\r\n").encode()
        request = urllib.request.Request(
            f"{base_url}/_stcore/upload_file/{session_id}/{uuid.uuid4().hex}", data=body, method="PUT",
            headers={"Content-Type": f"multipart/form-data; boundary={boundary}",
                     "X-Xsrftoken": self.cookie("_streamlit_xsrf"), "Cookie": self.cookie_header()},
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status
        except urllib.error.HTTPError as error:
            return error.code


def test_each_process_serves_its_own_sessions_through_the_proxy(room):
    url, apps = room
    visitors = {}
    while len(visitors) < 2:  # new visitors are spread over the processes
        visitor = Visitor(url)
        visitors.setdefault(visitor.open_page(), visitor)
    for name, visitor in visitors.items():
        socket_url = url.replace("http", "ws", 1) + "/_stcore/stream"
        with connect(socket_url, additional_headers={"Cookie": visitor.cookie_header()}, max_size=None) as socket:
            session_id, markdown, exceptions = visitor.run_page(socket, "inspect", "text=hello%20room")
            assert session_id and exceptions == 0
            assert any("Every token is a coloured span" in text for text in markdown), markdown
            # The session's upload, an HTTP request of its own, reaches its process through the proxy ...
            assert visitor.upload(url, session_id) == 204
            # ... which is the process the cookie names, and only that one holds the session.
            other = next(app for other_name, app in apps.items() if other_name != name)
            assert visitor.upload(apps[name].url, session_id) == 204
            assert visitor.upload(other.url, session_id) == 400
