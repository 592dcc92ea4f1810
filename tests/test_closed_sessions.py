"""A closed tab's session is shut down once its time to live has passed,
in the session manager of the Streamlit installed (whose store
pages/common/closed_sessions.py reaches into: a Streamlit that moves it
fails here, not silently on a server)."""

import time

from streamlit.runtime.memory_session_storage import MemorySessionStorage
from streamlit.runtime.session_manager import SessionInfo
from streamlit.runtime.websocket_session_manager import WebsocketSessionManager

from pages.common.closed_sessions import shut_down_expired_sessions


class ClosedTab:
    """What the store keeps of a session, as far as letting it go goes."""

    def __init__(self, session_id: str):
        self.id = session_id
        self.shut_down = 0

    def shutdown(self) -> None:
        self.shut_down += 1


def manager_keeping(ttl_seconds: float, *sessions: ClosedTab) -> WebsocketSessionManager:
    storage = MemorySessionStorage(ttl_seconds=ttl_seconds)
    for session in sessions:
        storage.save(SessionInfo(client=None, session=session, script_run_count=1))
    return WebsocketSessionManager(storage, uploaded_file_manager=None, script_cache=None, message_enqueued_callback=None)


def test_sessions_past_their_time_to_live_are_taken_out_of_the_store_and_shut_down_once():
    gone, also_gone = ClosedTab("a"), ClosedTab("b")
    manager = manager_keeping(0.05, gone, also_gone)
    time.sleep(0.1)
    assert shut_down_expired_sessions(manager) == 2
    assert (gone.shut_down, also_gone.shut_down) == (1, 1)
    assert manager._session_storage.list() == []
    assert shut_down_expired_sessions(manager) == 0  # nothing shut down twice
    assert gone.shut_down == 1


def test_a_session_within_its_time_to_live_stays_resumable():
    kept = ClosedTab("c")
    manager = manager_keeping(3600, kept)
    assert shut_down_expired_sessions(manager) == 0
    assert kept.shut_down == 0
    assert manager._session_storage.get("c").session is kept
