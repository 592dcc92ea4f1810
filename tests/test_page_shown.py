"""Which page a tab shows, from the messages on its websocket, and which of
its fragments' reports go on to Streamlit (pages/common/page_shown.py; in a
browser: tests/test_browser_navigation.py)."""

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from pages.common.page_shown import PageShown

TRAIN, INSPECT = "hash-of-train", "hash-of-inspect"


def whole_run(page: str) -> bytes:
    """A browser's request for a whole run of `page` (a link clicked, a widget changed)."""
    message = BackMsg()
    message.rerun_script.page_script_hash = page
    return message.SerializeToString()


def report(page: str, fragment: str = "fragment-1") -> bytes:
    """A browser's request to rerun a fragment drawn on `page` (a step told, a text sent)."""
    message = BackMsg()
    message.rerun_script.page_script_hash = page
    message.rerun_script.fragment_id = fragment
    return message.SerializeToString()


def run_started(page: str, *fragments: str) -> bytes:
    """The server telling the browser which page a whole run shows (st.navigation's
    message), or, with `fragments`, that a run of those fragments of `page` has started."""
    message = ForwardMsg()
    if fragments:
        message.new_session.page_script_hash = page
        message.metadata.run.fragment_ids.extend(fragments)
    else:
        message.navigation.page_script_hash = page
    return message.SerializeToString()


def test_a_report_from_the_page_left_is_let_go_once_another_page_is_asked_for():
    shown = PageShown()
    assert shown.passes(whole_run(INSPECT))
    assert shown.passes(report(INSPECT))
    assert shown.passes(whole_run(TRAIN))  # the visitor clicks Train ...
    assert not shown.passes(report(INSPECT))  # ... and Inspect's box sends its text after the click
    assert shown.passes(report(TRAIN))


def test_a_page_the_server_switches_to_is_the_page_shown():
    shown = PageShown()
    assert shown.passes(whole_run(TRAIN))
    shown.sent(run_started(TRAIN))
    shown.sent(run_started(INSPECT))  # st.switch_page, or a deep link's first run
    assert shown.passes(report(INSPECT))
    assert not shown.passes(report(TRAIN))


def test_a_fragment_run_does_not_change_the_page_shown():
    shown = PageShown()
    shown.sent(run_started(TRAIN))
    shown.sent(run_started(INSPECT, "fragment-1"))
    assert shown.passes(report(TRAIN))
    assert not shown.passes(report(INSPECT))


def test_while_the_page_is_unknown_every_report_passes():
    shown = PageShown()
    assert shown.passes(report(TRAIN))
    assert shown.passes(whole_run(""))  # a page asked for by its name: which one is not known yet
    assert shown.passes(report(INSPECT))
    assert shown.passes(report(""))


def test_other_messages_pass():
    shown = PageShown()
    assert shown.passes(whole_run(TRAIN))
    heartbeat = BackMsg()
    heartbeat.app_heartbeat = True
    assert shown.passes(heartbeat.SerializeToString())
    assert shown.passes(b"\xff\xff not a message")  # Streamlit answers a malformed message itself
