"""A visitor's model folder never holds the server: its tokenizer.json runs
in a host process (see `bpe_core.sandbox.hosts`), every encoding within a
deadline of that process's own processor time, while the server's other
threads (every other visitor's page) keep running."""

import json
import multiprocessing
import multiprocessing.process
import threading
import time

import pytest
import tokenizers

from bpe_core.engine.patterns import PatternError
from bpe_core.formats.hf_folder import folder_from_files, read_folder
from bpe_core.formats.reading import TokenizerFileError
from bpe_core.jobs.budgeted_encoding import encode_within_budget
from bpe_core.sandbox import hosts, untrusted_tokenizer
from bpe_core.vocabularies import model_folders
from bpe_core.vocabularies.model_folders import HuggingFaceTokenizer, tokenizer_from_folder
from tests.test_model_folders import small_folder
from tests.test_untrusted_regex import NoProcesses

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


class CountingParses:
    """`tokenizers.Tokenizer` in this process, counting the files parsed."""

    parsed = 0

    @classmethod
    def from_str(cls, document):
        cls.parsed += 1
        return REAL_TOKENIZER.from_str(document)


REAL_TOKENIZER = tokenizers.Tokenizer


def test_a_tokenizer_json_is_parsed_once_and_reads_special_tokens_both_ways(tmp_path, monkeypatch):
    """A visitor's file, loaded in place as in a visitor's job: tried on
    awkward text and kept, one parse of it for everything (a second
    instance for special tokens read as text would parse it again:
    Gemma 3's 1.9 s). Special-token text is read as text only when asked,
    as `encode_special_tokens` reads it."""
    document = (small_folder(tmp_path / "model") / "tokenizer.json").read_text()
    monkeypatch.setattr(tokenizers, "Tokenizer", CountingParses)
    monkeypatch.setattr(CountingParses, "parsed", 0)
    loaded = model_folders.LoadedTokenizer(document, tried=True)
    as_text = REAL_TOKENIZER.from_str(document)
    as_text.encode_special_tokens = True
    text = "<|user|>Héllo<s> wörld</s>"
    for _ in range(2):  # back and forth: each call reads them its own way
        assert loaded.encoding(text, specials_as_text=True)[0] == as_text.encode(text, add_special_tokens=False).ids
        assert loaded.encoding(text, specials_as_text=False)[0] == REAL_TOKENIZER.from_str(document).encode(
            text, add_special_tokens=False).ids
    assert CountingParses.parsed == 1


def test_an_upload_starts_one_process_its_host_which_tries_and_keeps_the_file(tmp_path, monkeypatch):
    """No throwaway process parses the file before its host parses it again:
    the host's making of it is the trial (Gemma 3's upload: one parse, not
    two). The host's limits are the trial's: see the tests of its time and
    memory below and above."""
    started = []
    real_start = multiprocessing.process.BaseProcess.start
    monkeypatch.setattr(multiprocessing.process.BaseProcess, "start",
                        lambda process: started.append(process.name) or real_start(process))
    tokenizer = tokenizer_from_folder(folder_from_files("once", slow_folder(tmp_path, pattern=r"\s+|[^\so]+|o")))
    assert isinstance(tokenizer._tokenizer, model_folders.HostedTokenizer)
    assert tokenizer.encode("Héllo wörld") == tokenizers.Tokenizer.from_str(tokenizer.tokenizer_json).encode(
        "Héllo wörld").ids
    assert started == ["host"]


def test_loading_a_visitors_file_stops_at_its_processor_time_in_one_line(tmp_path, monkeypatch):
    """Loading and trying a file has the processor time the probe had (here
    a twentieth of a second, against 100,000 more tokens: about 0.15 s to parse)."""
    document = json.loads(slow_folder(tmp_path, pattern=r"\s+")["tokenizer.json"])
    document["model"]["vocab"].update({f"unused{number}": 1_000 + number for number in range(100_000)})
    monkeypatch.setattr(model_folders, "LOADING_SECONDS", 0.05)
    with pytest.raises(TokenizerFileError, match="took more than 0.05 s of processor time") as raised:
        tokenizer_from_folder(folder_from_files("slow", {"tokenizer.json": json.dumps(document).encode()}))
    assert "\n" not in str(raised.value)


def test_a_refused_file_is_refused_at_once_when_brought_again_and_kept_by_its_fingerprint(tmp_path, monkeypatch):
    """The server keeps why it refused a visitor's tokenizer.json (bringing
    it again starts no process) without keeping the file: up to 50 MB each,
    for the server's lifetime."""
    monkeypatch.setattr(untrusted_tokenizer, "_REFUSALS", {})
    files = slow_folder(tmp_path, pattern="(a|aa)+$")  # Oniguruma gives up on the sample: a Rust panic
    with pytest.raises(TokenizerFileError, match="gave up encoding a short text") as first:
        tokenizer_from_folder(folder_from_files("slow", files))
    started = []
    monkeypatch.setattr(multiprocessing.process.BaseProcess, "start", lambda process: started.append(process))
    with pytest.raises(TokenizerFileError) as again:
        tokenizer_from_folder(folder_from_files("slow", files))
    assert str(again.value) == str(first.value) and started == []
    document = files["tokenizer.json"].decode()
    assert all(len(key) == 64 and document not in (key, why) for key, why in untrusted_tokenizer._REFUSALS.items())


def test_a_file_that_found_no_process_is_tried_again_not_refused_for_good(tmp_path, monkeypatch):
    monkeypatch.setattr(untrusted_tokenizer, "_REFUSALS", {})
    files = slow_folder(tmp_path, pattern=r"\s+|[^\sz]+|z")
    monkeypatch.setattr(hosts, "worker_context", lambda: NoProcesses)
    with pytest.raises(TokenizerFileError, match="found no process to run in"):
        tokenizer_from_folder(folder_from_files("model", files))
    monkeypatch.undo()
    assert tokenizer_from_folder(folder_from_files("model", files)).encode("z z") == [
        *tokenizers.Tokenizer.from_str(files["tokenizer.json"].decode()).encode("z z").ids]
