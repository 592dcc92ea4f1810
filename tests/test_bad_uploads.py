"""Every bad upload, and every pattern that fails on one, is one message on
the page: never a traceback, and the visitor's tokenizer stays."""

from bpe_core.engine import patterns
from tests.apptest import messages, open_page


def test_a_corpus_the_server_cannot_split_in_time_is_a_message_not_a_traceback(monkeypatch):
    """The worker that trains has its own deadline; the server splits the
    corpus again for the training view, under the server's. Here the
    server's runs out at once: the view says so in one line."""
    at = open_page("pages/train.py")
    monkeypatch.setattr(patterns, "CUSTOM_PATTERN_TIMEOUT_SECONDS", 1e-9)  # in this process, the server; not the worker's
    at.selectbox(key="train_pattern").set_value("custom").run()
    assert not at.exception, [exception.value for exception in at.exception]
    assert at.session_state["trained"].tokenizer.pattern_name == "custom"  # trained, in its worker
    assert any("took longer than" in error for error in messages(at.error)), messages(at.error)


def test_a_training_view_the_server_cannot_split_in_time_is_a_message_not_a_traceback(monkeypatch):
    """The corpus's pieces were counted in time (and are kept for every
    session); a new tokenizer's view splits the shown text again, and that
    split runs out: one line, not a traceback."""
    at = open_page("pages/train.py")
    at.selectbox(key="train_pattern").set_value("custom").run()
    assert not at.error, messages(at.error)
    monkeypatch.setattr(patterns, "CUSTOM_PATTERN_TIMEOUT_SECONDS", 1e-9)
    at.number_input(key="train_vocab").set_value(at.number_input(key="train_vocab").value + 100).run()
    assert not at.exception, [exception.value for exception in at.exception]
    assert at.session_state["trained"].tokenizer.pattern_name == "custom"
    assert any("took longer than" in error for error in messages(at.error)), messages(at.error)
