"""A visitor's model folder never holds the server: its tokenizer.json runs
in a host process (see `bpe_core.sandbox.hosts`), every encoding within a
deadline of that process's own processor time, while the server's other
threads (every other visitor's page) keep running."""

import json
import threading
import time

import pytest
import tokenizers

from bpe_core.engine.patterns import PatternError
from bpe_core.formats.hf_folder import folder_from_files, read_folder
from bpe_core.jobs.budgeted_encoding import encode_within_budget
from bpe_core.sandbox import hosts
from bpe_core.vocabularies import model_folders
from bpe_core.vocabularies.model_folders import HuggingFaceTokenizer, tokenizer_from_folder
from tests.test_model_folders import small_folder

SLOW_SPLIT = r"\s*x|\S"  # at each space, `\s*` runs to the end of the run looking for an "x": quadratic in the run


@pytest.fixture(autouse=True)
def no_hosts_left():
    """A visitor's tokenizer is held in a host process (`sandbox.hosts`):
    each test ends its own, so that no later test finds processes it did not start."""
    yield
    from bpe_core.sandbox import hosts

    hosts.HOSTS.close()


def slow_folder(tmp_path, pattern: str = SLOW_SPLIT) -> dict[str, bytes]:
    """A small folder whose pre-tokenizer is a Split on `pattern`: its probe
    passes (the sample's runs are short), a long run of spaces does not."""
    folder = small_folder(tmp_path / "model")
    document = json.loads((folder / "tokenizer.json").read_text())
    document["pre_tokenizer"] = {"type": "Split", "pattern": {"Regex": pattern}, "behavior": "Isolated",
                                 "invert": False}
    return {"tokenizer.json": json.dumps(document).encode(), "tokenizer_config.json": b"{}"}


class Ticker:
    """Another thread of the server, doing a little work every millisecond:
    `longest_stall()` is the longest it waited for the interpreter."""

    def __init__(self):
        self.ticks = [time.monotonic()]
        self._running = True
        self._thread = threading.Thread(target=self._tick, daemon=True)

    def _tick(self):
        while self._running:
            time.sleep(0.001)
            self.ticks.append(time.monotonic())

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._running = False
        self._thread.join()

    def longest_stall(self) -> float:
        return max(later - earlier for earlier, later in zip(self.ticks, self.ticks[1:]))


def test_a_slow_split_in_a_visitors_folder_stops_at_its_deadline_and_the_server_keeps_running(tmp_path, monkeypatch):
    """Unbounded, 30,000 spaces cost `tokenizers` about 3 s of processor
    time with the interpreter held; here the encoding stops at its second
    of the host's processor time, says so in one line, and another thread
    is never held for more than a small part of the wait."""
    monkeypatch.setattr(model_folders, "ENCODING_SECONDS", 1)
    tokenizer = tokenizer_from_folder(folder_from_files("slow", slow_folder(tmp_path)))
    assert tokenizer.encode("x y") == tokenizers.Tokenizer.from_str(tokenizer.tokenizer_json).encode("x y").ids
    started = time.monotonic()
    with Ticker() as ticker:
        try:
            outcome = encode_within_budget(tokenizer, " " * 30_000)
        except PatternError as error:
            outcome = error
    waited = time.monotonic() - started
    assert ticker.longest_stall() < waited / 4, (ticker.longest_stall(), waited)
    assert isinstance(outcome, PatternError), outcome
    assert "took more than 1 s of processor time" in str(outcome) and "\n" not in str(outcome)
    text = "Héllo wörld, 12345!"  # the next text: a fresh host, the same ids
    assert tokenizer.encode(text) == tokenizers.Tokenizer.from_str(tokenizer.tokenizer_json).encode(text).ids


def test_the_page_says_why_and_keeps_the_text(tmp_path, monkeypatch):
    from tests.apptest import messages, open_page

    monkeypatch.setattr(model_folders, "ENCODING_SECONDS", 0.25)
    tokenizer = tokenizer_from_folder(folder_from_files("slow", slow_folder(tmp_path)))
    text = "a" + " " * 20_000 + "b"  # about 1.4 s of processor time
    at = open_page("pages/inspect.py", loaded_tokenizers={"slow.zip": tokenizer}, shared_text=text)
    at.selectbox(key="inspect_tokenizer").set_value("loaded: slow.zip").run()
    errors = messages(at.error)
    assert any(error.startswith("slow cannot split this text") and "took more than 0.25 s of processor time" in error
               for error in errors), errors
    assert at.session_state["shared_text"] == text and not at.exception


def test_a_folder_the_user_trusts_runs_in_place_and_a_visitors_in_a_host(tmp_path):
    folder = read_folder(small_folder(tmp_path / "model"))
    assert isinstance(tokenizer_from_folder(folder, probe=False)._tokenizer, model_folders.LoadedTokenizer)
    assert isinstance(tokenizer_from_folder(folder)._tokenizer, model_folders.HostedTokenizer)


def test_the_server_keeps_a_bounded_number_of_hosts(tmp_path, monkeypatch):
    """Each visitor's tokenizer has its host while it is among the most
    recently used; an evicted one starts again when it is next used."""
    monkeypatch.setattr(hosts, "HOSTS", hosts.Hosts(max_hosts=2))
    monkeypatch.setattr(model_folders, "HOSTS", hosts.HOSTS)
    made = []
    for number in range(3):
        files = slow_folder(tmp_path / str(number), pattern=rf"\s+|[^\s{number}]+|{number}")
        made.append(HuggingFaceTokenizer(name=str(number), tokenizer_json=files["tokenizer.json"].decode(),
                                         untrusted=True))
    assert len(hosts.HOSTS) == 2
    for tokenizer in made:
        reference = tokenizers.Tokenizer.from_str(tokenizer.tokenizer_json)
        assert tokenizer.encode("Héllo 0 1 2") == reference.encode("Héllo 0 1 2").ids
    assert len(hosts.HOSTS) == 2
    hosts.HOSTS.close()
    assert len(hosts.HOSTS) == 0


def test_a_host_that_needs_more_memory_than_its_cap_is_one_line(tmp_path, monkeypatch):
    monkeypatch.setattr(model_folders, "HOST_MEMORY_BYTES", 1_000_000)
    with pytest.raises(Exception, match="needed more than 1 MB of memory") as raised:
        tokenizer_from_folder(folder_from_files("big", slow_folder(tmp_path, pattern=r"\s+")))
    assert "\n" not in str(raised.value)


HOLD_A_BUSY_HOST = """
import sys, threading, time
sys.path.insert(0, sys.argv[1])
from bpe_core.sandbox.hosts import HOSTS
from bpe_core.vocabularies import model_folders

model_folders.ENCODING_SECONDS = 600
tokenizer = model_folders.HuggingFaceTokenizer(name="model", tokenizer_json=open(sys.argv[2], encoding="utf-8").read(),
                                               untrusted=True)
threading.Thread(target=tokenizer.encode, args=(" " * 200_000,), daemon=True).start()  # minutes of work
time.sleep(0.5)
print(*(host._process.pid for host in HOSTS._hosts.values()), flush=True)
time.sleep(600)
"""


def test_a_busy_host_ends_with_its_server_however_the_server_ends(tmp_path):
    """A server that is killed leaves no visitor's tokenizer running, even
    one in the middle of minutes of work: the host's lifeline ends it (see
    `worker_processes`)."""
    import signal
    import subprocess
    import sys

    from tests.conftest import ROOT

    document = slow_folder(tmp_path)["tokenizer.json"]
    (tmp_path / "tokenizer.json").write_bytes(document)
    server = subprocess.Popen([sys.executable, "-c", HOLD_A_BUSY_HOST, str(ROOT), str(tmp_path / "tokenizer.json")],
                              stdout=subprocess.PIPE, text=True)
    host = int(server.stdout.readline())
    assert _running(host)
    server.send_signal(signal.SIGKILL)
    server.wait()
    give_up = time.monotonic() + 60  # the host's end is waited for, not timed
    while _running(host) and time.monotonic() < give_up:
        time.sleep(0.05)
    assert not _running(host)


def _running(pid: int) -> bool:
    """Whether process `pid` runs (a zombie, ended but not yet reaped, does not)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):  # gone before, or while, its stat was read
        return False


def test_a_host_nobody_calls_ends_by_itself_and_starts_again_when_called(tmp_path, monkeypatch):
    """A tokenizer holds hundreds of MB in its host: one that a visitor no
    longer uses gives them back, and is loaded again if they return."""
    monkeypatch.setattr(hosts, "IDLE_SECONDS", 0.5)
    folder = read_folder(small_folder(tmp_path / "model"))
    tokenizer = HuggingFaceTokenizer(name="model", tokenizer_json=folder.tokenizer_json, untrusted=True)
    host = next(iter(hosts.HOSTS._hosts.values()))._process.pid
    give_up = time.monotonic() + 60  # its end is waited for, not timed
    while _running(host) and time.monotonic() < give_up:
        time.sleep(0.05)
    assert not _running(host)
    reference = tokenizers.Tokenizer.from_str(folder.tokenizer_json)
    assert tokenizer.encode("Héllo wörld") == reference.encode("Héllo wörld", add_special_tokens=False).ids
