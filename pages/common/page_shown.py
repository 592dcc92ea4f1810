"""A fragment's report from a page the visitor has left is let go.

Train's step control tells the server the step once the presenter pauses,
and a live text box sends its text after a pause in typing or when it loses
focus: each is a rerun of the fragment around it, asked for by the browser
with the address (script hash) of the page it was drawn on. A visitor who
clicks another page just then, or whose browser is too busy to send the
report before the click, has the report reach the server after the request
for the next page. Streamlit then runs the report after the next page's run
as a run of the page left: that page's fragment is gone (the server logs
"Couldn't find fragment with id ..."), nothing is drawn, and the browser,
told a run of another page has started, clears the page it has just drawn.
The visitor is left on a blank page. (Were both requests still waiting,
Streamlit would merge them into one run of the page left instead.)

So the server's websocket (this ASGI middleware of app.py's `st.App`) notes
which page each tab shows: the page its last request for a whole run asked
for, or the page the server last started a whole run of (a deep link, a
page switched to by the app). A fragment's rerun from any other page is not
passed on; one from the page shown always is. What the report carried
(a step, a text) belongs to a page the visitor left, whose state the next
visit to it rebuilds from its link.
"""

from __future__ import annotations

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

STREAM = "/_stcore/stream"  # Streamlit's websocket, one a tab


class PageShown:
    """The page one tab shows, as far as the messages on its websocket tell
    (its script hash, or None while unknown), and whether a message from the
    tab is to be passed on."""

    def __init__(self) -> None:
        self.page: str | None = None

    def passes(self, payload: bytes) -> bool:
        """Whether a message from the browser goes on to Streamlit: anything
        but a fragment's rerun from a page other than the one shown."""
        message = BackMsg()
        try:
            message.ParseFromString(payload)
        except Exception:  # noqa: BLE001  not ours to judge: Streamlit answers a bad message itself
            return True
        if message.WhichOneof("type") != "rerun_script":
            return True
        asked = message.rerun_script
        if not asked.fragment_id:  # a whole run, of the page asked for (an empty hash: by name)
            self.page = asked.page_script_hash or None
            return True
        return self.page is None or not asked.page_script_hash or asked.page_script_hash == self.page

    def sent(self, payload: bytes) -> None:
        """Note the page a whole run shows: `st.navigation` tells the browser
        which page it runs (a run's start names app.py's script, not the page's)."""
        message = ForwardMsg()
        message.ParseFromString(payload)
        if message.WhichOneof("type") == "navigation":
            self.page = message.navigation.page_script_hash or None


class FragmentsOfThePageShown:
    """ASGI middleware: on each tab's websocket, a fragment's rerun from a
    page the tab no longer shows is not passed on (see the module's
    docstring). Every other message, and every other request, passes unchanged."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "websocket" or not scope["path"].endswith(STREAM):
            await self.app(scope, receive, send)
            return
        shown = PageShown()

        async def receive_passed():
            while True:
                message = await receive()
                payload = message.get("bytes") if message["type"] == "websocket.receive" else None
                if payload is None or shown.passes(payload):
                    return message

        async def send_noted(message):
            if message["type"] == "websocket.send" and message.get("bytes") is not None:
                shown.sent(message["bytes"])
            await send(message)

        await self.app(scope, receive_passed, send_noted)
