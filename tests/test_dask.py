"""Counting on a Dask cluster (`train --dask`) gives exactly the counts, and
so the merges, of counting on this machine; and every way it can go wrong
is one `error:` line.

The cluster tests start real processes on loopback: a scheduler and two
workers (`dask scheduler`, `dask worker`), some in a virtual environment
that holds Dask alone, without this checkout (DASK_ONLY_PYTHON, made by
.ci/run), and a LocalCluster whose worker is killed mid-run. They wait on
the scheduler's state, never on a timer.
"""

import importlib.util
import io
import json
import os
import pty
import re
import select
import signal
import subprocess
import sys
import sysconfig
import time
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

if importlib.util.find_spec("distributed") is None:
    if os.environ.get("REQUIRE_DASK_TESTS"):
        raise ImportError("Dask is not installed; .ci/run installs requirements-dask.txt")
    pytest.skip("Dask is not installed (pip install -r requirements-dask.txt)", allow_module_level=True)

import fsspec  # noqa: E402

import bpe_core.corpora  # noqa: E402
from bpe_core.cli import main  # noqa: E402
from bpe_core.corpora import dask_counting, dask_shipping  # noqa: E402
from bpe_core.corpora.corpus_files import CorpusFileError, corpus_paths, count_files  # noqa: E402
from bpe_core.corpora.dask_counting import CorpusFile, count_block, dask_version_problem, safe_cut  # noqa: E402
from bpe_core.corpora.samples import catalog  # noqa: E402
from bpe_core.engine import corpus  # noqa: E402
from tests.browser import free_port  # noqa: E402
from tests.cli import run_cli  # noqa: E402
from tests.conftest import ROOT  # noqa: E402
from tests.test_corpus import AWKWARD_TEXT, PRESET_PATTERNS, SPECIALS, Terminal, whole  # noqa: E402

WAIT_SECONDS = 120  # for processes to start and the cluster to change state on a busy machine
# A Python with Dask alone installed, the versions of this one's, as a cluster's machines may have it.
DASK_ONLY_PYTHON = os.environ.get("DASK_ONLY_PYTHON")
SPECIAL = "<|endoftext|>"
CUSTOM_PATTERN = r"\w+|\s+|[^\w\s]+"  # a Dask worker, a daemon, cannot start a process to try it in


# ------------------------------------------------- blocks, without a cluster


def blocks_counted(data: bytes, pattern: str, special_tokens, block_bytes: int) -> dict[str, int]:
    """A file counted block by block, as the workers count it, here."""
    url = f"memory://blocks/{block_bytes}.txt"
    with fsspec.open(url, "wb") as stream:
        stream.write(data)
    file = CorpusFile(url, len(data))
    blocks = dask_counting.plan([file], pattern, block_bytes)
    signature = dask_counting.counting_signature()
    return corpus.merged_counts(count_block(block, pattern, special_tokens, signature) for block in blocks)


@given(text=AWKWARD_TEXT, pattern=st.sampled_from(PRESET_PATTERNS), block_bytes=st.integers(1, 40))
def test_any_text_counted_in_blocks_on_workers_counts_the_same(text, pattern, block_bytes):
    counted = blocks_counted(text.encode(), pattern, SPECIALS, block_bytes)
    assert list(counted.items()) == list(whole(text, pattern, SPECIALS).items())


def test_a_cut_depends_on_the_text_alone_not_on_how_much_was_read(monkeypatch):
    data = ("déjà vu, " * 3 + SPECIAL + "日本語。" + "7" * 9_000 + " end.").encode()
    stream = io.BytesIO(data)
    offsets = [*range(80), *range(80, len(data), 499)]
    cuts = [safe_cut(stream, offset, len(data), (SPECIAL,)) for offset in offsets]
    monkeypatch.setattr(dask_counting, "CUT_SEARCH_BYTES", 1)  # reading a byte more at a time
    assert [safe_cut(stream, offset, len(data), (SPECIAL,)) for offset in offsets] == cuts
    assert all(cut >= offset and (cut == len(data) or data[cut] & 0xC0 != 0x80) for offset, cut in zip(offsets, cuts))
    assert safe_cut(stream, 36, len(data), (SPECIAL,)) == data.index("。".encode())  # not after "endoftext" in the special
    assert safe_cut(stream, 56, len(data), (SPECIAL,)) == len(data) - 1  # after "end", past 9,000 digits


def test_invalid_utf8_in_a_later_block_names_the_file_and_the_byte():
    data = ("word " * 100).encode() + b"\xfe" + b" more"
    url = "memory://invalid/f.txt"
    with fsspec.open(url, "wb") as stream:
        stream.write(data)
    file = CorpusFile(url, len(data))
    with pytest.raises(CorpusFileError, match=r"f\.txt is not UTF-8 text \(byte 0xfe at offset 500\)"):
        for block in dask_counting.plan([file], "cl100k", 64):
            count_block(block, "cl100k", (), dask_counting.counting_signature())


def test_machines_with_other_dask_versions_are_named():
    def machine(dask="2026.8.0", python="3.11.7"):
        return {"packages": {"python": python, "dask": dask, "distributed": dask}}

    assert dask_version_problem(machine(), machine(), {"tcp://w1": machine(python="3.11.9")}) is None
    problem = dask_version_problem(machine(), machine(), {"tcp://w1": machine(), "tcp://w2": machine(dask="2024.1.0")})
    assert problem.startswith("worker tcp://w2 has dask 2024.1.0, this machine dask 2026.8.0")


def test_what_the_cluster_is_sent_is_bpe_cores_modules_and_regex():
    """Counting needs no tiktoken (importing bpe_core does not load it), even while bpe_core stands in for it."""
    code = ("import json, io, zipfile, bpe_core\nbpe_core.stand_in_for_tiktoken()\n"
            "from bpe_core.corpora.dask_shipping import _archive\nname, archive = _archive()\n"
            "print(json.dumps([name, zipfile.ZipFile(io.BytesIO(archive)).namelist()]))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    name, files = json.loads(result.stdout)
    assert name == dask_shipping._archive()[0]  # named by its contents: the same package, the same name
    assert {file.split("/")[1] for file in files} == {"bpe_core", "regex"}
    code_files = sorted(file.removeprefix("code/") for file in files if file.startswith("code/"))
    assert code_files == sorted(str(path.relative_to(ROOT)) for path in (ROOT / "bpe_core").rglob("*.py"))
    compiled = [file for file in files if file.endswith(sysconfig.get_config_var("EXT_SUFFIX"))]
    assert sorted(file.split("/")[1] for file in compiled) == ["regex"]
    assert not [file for file in files if "__pycache__" in file or "/tests/" in file]


def test_without_dask_the_option_says_what_to_install(tmp_path, monkeypatch):
    (tmp_path / "a.txt").write_text("some text")
    monkeypatch.setitem(sys.modules, "distributed", None)  # as if not installed
    monkeypatch.delitem(sys.modules, "bpe_core.corpora.dask_counting")
    monkeypatch.delattr(bpe_core.corpora, "dask_counting")
    code, _, err = run_cli("train", tmp_path / "a.txt", "--merges", 3, "-o", tmp_path / "t.json", "--dask", "local:2")
    assert code == 1 and err.count("\n") == 1
    assert err.startswith("error: --dask needs Dask") and "pip install -r requirements-dask.txt" in err


# ------------------------------------------------------------- on a cluster


@pytest.fixture(scope="module")
def corpus_folder(tmp_path_factory):
    """Eight files of several scripts, with special tokens, about 1 MB."""
    folder = tmp_path_factory.mktemp("corpus")
    texts = [sample.load() for sample in catalog().values() if sample.kind == "text"]
    for index in range(8):
        text = texts[index % len(texts)][index * 1_000 : index * 1_000 + 150_000]
        (folder / f"part{index}.txt").write_text(text + SPECIAL + text[:500], encoding="utf-8")
    return folder


def start(*command, stderr=subprocess.DEVNULL, checkout: bool = True, python: str = sys.executable,
          path: Path | None = None, **options) -> subprocess.Popen:
    """`python -m COMMAND` with this checkout on its path (`checkout=False`:
    a machine where it is not, though `python` may have bpe_core installed;
    `path`: a folder of its own first on its path), by `python`."""
    environment = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}
    if checkout or path:
        environment["PYTHONPATH"] = str(path or ROOT)
    return subprocess.Popen([python, "-m", *map(str, command)], env=environment,
                            cwd=ROOT if checkout else "/", stdout=subprocess.DEVNULL, stderr=stderr, **options)


def dask_only_python() -> str:
    """DASK_ONLY_PYTHON, which .ci/run makes; locally, the test is skipped without it."""
    if DASK_ONLY_PYTHON:
        return DASK_ONLY_PYTHON
    if os.environ.get("REQUIRE_DASK_TESTS"):
        pytest.fail("DASK_ONLY_PYTHON is not set: .ci/run makes a virtual environment with Dask alone")
    pytest.skip("DASK_ONLY_PYTHON is not set (a Python with Dask alone installed; .ci/run makes one)")


class Cluster:
    """A scheduler and its workers, each a process of its own, on loopback,
    with this checkout on their path or not, run by `python`."""

    def __init__(self, workers: int, preload: str | None = None, scheduler_checkout=True, workers_checkout=True,
                 python: str = sys.executable, path: Path | None = None):
        self.address = f"tcp://127.0.0.1:{free_port()}"
        self.processes = [start("distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port",
                                self.address.rsplit(":", 1)[1], "--no-dashboard", checkout=scheduler_checkout,
                                python=python, path=path)]
        extra = ["--preload", preload] if preload else []
        for index in range(workers):
            self.processes.append(start("distributed.cli.dask_worker", self.address, "--host", "127.0.0.1", "--nthreads",
                                        "1", "--no-dashboard", "--name", f"worker{index}", *extra,
                                        checkout=workers_checkout, python=python, path=path))
        import distributed  # here, not at the top: importing it costs every pytest worker 0.5 s at collection

        self.client = distributed.Client(self.address, timeout=WAIT_SECONDS)
        self.client.wait_for_workers(workers, timeout=WAIT_SECONDS)

    def stop(self) -> None:
        self.client.close()
        for process in reversed(self.processes):
            process.kill()
        for process in self.processes:
            process.wait(WAIT_SECONDS)


@pytest.fixture(scope="module")
def cluster():
    cluster = Cluster(workers=2)
    yield cluster
    cluster.stop()


@pytest.fixture
def small_blocks(monkeypatch):
    """Blocks of 20 kB: a corpus of a megabyte is some sixty tasks."""
    monkeypatch.setattr(dask_counting, "BLOCK_BYTES", 20_000)


@pytest.mark.slow
def test_training_on_the_cluster_learns_the_merges_of_training_here(cluster, corpus_folder, tmp_path, small_blocks):
    corpus = [corpus_folder, corpus_folder / "part3.txt"]  # a file twice: counted twice, in that place
    options = ["--vocab-size", 600, "--special", SPECIAL]
    code, _, err = run_cli("train", *corpus, *options, "-o", tmp_path / "here.json", "--save-counts", tmp_path / "here-counts.json")
    assert code == 0, err
    code, _, err = run_cli("train", *corpus, *options, "-o", tmp_path / "cluster.json",
                           "--save-counts", tmp_path / "cluster-counts.json", "--dask", cluster.address)
    assert code == 0, err
    here, there = (json.loads((tmp_path / f"{name}-counts.json").read_text()) for name in ["here", "cluster"])
    assert list(there.items()) == list(here.items())  # the same pieces, counts and first appearances
    assert json.loads((tmp_path / "cluster.json").read_text())["merges"] == json.loads((tmp_path / "here.json").read_text())["merges"]


@pytest.mark.slow
def test_urls_globs_and_counts_files_count_as_on_this_machine(cluster, corpus_folder, tmp_path, small_blocks):
    counts_file = tmp_path / "first.json"
    assert run_cli("train", corpus_folder / "part1.txt", "--merges", 0, "-o", os.devnull, "--save-counts", counts_file)[0] == 0
    specs = [str(counts_file), f"file://{corpus_folder}/part[4-7].txt"]
    with dask_counting.connect(cluster.address) as client:
        counted = dask_counting.count_on_cluster(client, specs, "o200k")
        by_custom_pattern = dask_counting.count_on_cluster(client, specs, CUSTOM_PATTERN)  # each file whole
    files = [counts_file, *corpus_paths([f"{corpus_folder}/part[4-7].txt"])]
    assert list(counted.items()) == list(count_files(files, "o200k").items())
    assert list(by_custom_pattern.items()) == list(count_files(files, CUSTOM_PATTERN).items())


@pytest.mark.slow
def test_the_cluster_draws_tasks_and_megabytes_on_a_terminal(cluster, corpus_folder, tmp_path, small_blocks):
    err = Terminal()
    with redirect_stderr(err), redirect_stdout(io.StringIO()):
        assert main(["train", str(corpus_folder), "--merges", "5", "-o", str(tmp_path / "t.json"), "--dask", cluster.address]) == 0
    size = sum(path.stat().st_size for path in corpus_folder.iterdir()) / 1e6
    blocks = sum(-(-path.stat().st_size // 20_000) for path in corpus_folder.iterdir())
    tasks = blocks + -(-blocks // 8) + 1  # blocks, the sums of eight, the sum of those
    assert f"counting [{'#' * 30}] {size:,.1f} / {size:,.1f} MB, {tasks} / {tasks} tasks" in err.getvalue()


@pytest.mark.slow
@pytest.mark.parametrize(
    "corpus, address, message",
    [
        (["missing.txt"], "CLUSTER", "error: cannot read missing.txt: no such file or folder"),
        (["file:///no/such/folder/*.txt"], "CLUSTER", "error: file:///no/such/folder/*.txt matches no file"),
        (["file:///no/such/file.txt"], "CLUSTER", "error: cannot read file:///no/such/file.txt: no such file or folder"),
        (["a.txt", "--algorithm", "unigram"], "CLUSTER", "error: --dask counts pieces for BPE; unigram trains on"),
        (["-"], "CLUSTER", "error: --dask counts files, not standard input"),
        (["a.txt"], "tcp://127.0.0.1:PORT", "error: cannot reach the Dask scheduler at tcp://127.0.0.1:"),
        (["a.txt"], "nowhere", "error: nowhere is not a Dask scheduler address"),
        (["a.txt"], "local:0", "error: local:0: give local:N with N worker processes from 1 to 256"),
    ],
    ids=["missing file", "glob in a missing folder", "missing URL", "not BPE", "standard input", "no scheduler there", "not an address", "no workers"],
)
def test_bad_paths_and_addresses_are_one_line(cluster, tmp_path, monkeypatch, corpus, address, message):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(dask_counting, "CONNECT_SECONDS", 2)
    (tmp_path / "a.txt").write_text("some text")
    address = address.replace("CLUSTER", cluster.address).replace("PORT", str(free_port()))
    code, _, err = run_cli("train", *corpus, "--merges", 3, "-o", "t.json", "--dask", address)
    assert code == 1 and err.count("\n") == 1 and err.startswith(message), err


STALE_BPE_CORE = "raise ImportError('a bpe_core of the cluster, not the one this machine sends')\n"


@pytest.mark.slow
def test_a_cluster_started_without_this_checkout_trains_the_merges_of_training_here(corpus_folder, tmp_path, small_blocks):
    """The scheduler and workers started as Dask's documentation starts them,
    by a Python with Dask alone, without this checkout: the command sends
    them the package and its regex. What the machines may have
    of their own does not count: here a bpe_core first on their path, one
    that cannot even be imported, as an older one would be installed."""
    python = dask_only_python()
    stale = tmp_path / "site"
    (stale / "bpe_core").mkdir(parents=True)
    (stale / "bpe_core" / "__init__.py").write_text(STALE_BPE_CORE)
    options = ["--vocab-size", 400, "--special", SPECIAL]
    code, _, err = run_cli("train", corpus_folder, *options, "-o", tmp_path / "here.json")
    assert code == 0, err
    cluster = Cluster(workers=2, scheduler_checkout=False, workers_checkout=False, python=python, path=stale)
    try:
        code, _, err = run_cli("train", corpus_folder, *options, "-o", tmp_path / "cluster.json", "--dask", cluster.address)
        assert code == 0 and err.startswith("learned 144 merges") and err.count("\n") == 1, err  # no warning of Dask's
        code, _, err = run_cli("train", corpus_folder, *options, "-o", tmp_path / "again.json", "--dask", cluster.address)
        assert code == 0, err  # connecting again, with the package already there
        where = cluster.client.run(lambda: __import__("bpe_core").__file__)
    finally:
        cluster.stop()
    merges = [json.loads((tmp_path / f"{name}.json").read_text())["merges"] for name in ["here", "cluster", "again"]]
    assert merges[1] == merges[0] and merges[2] == merges[0]
    # The copy sent, neither this checkout nor the machines' own.
    assert all(not path.startswith((str(ROOT), str(tmp_path))) for path in where.values()), where


OTHER_REGEX = "import regex\nregex.__version__ = '2000.1.1'  # as if it had other Unicode tables\n"
# A worker on another platform: the compiled regex sent to it is not for it.
OTHER_PLATFORM = ("import sysconfig\nsuffix_here = sysconfig.get_config_var\n"
                  "sysconfig.get_config_var = lambda name: '.other-platform.so' if name == 'EXT_SUFFIX' else suffix_here(name)\n")


@pytest.mark.slow
@pytest.mark.parametrize(
    "setup, message",
    [
        (dict(preload=OTHER_REGEX), r"error: worker tcp://127\.0\.0\.1:\d+ counts with regex 2000\.1\.1, counting code \w+, "
                                    r"this machine with regex [\d.]+, counting code \w+: restart the workers"),
        (dict(preload=OTHER_PLATFORM, python="Dask alone"),
         (r"error: a worker cannot load this package \(.*No module named 'regex'.*\): this machine sends "
          r"it with regex built for [\w.-]+ \(.+\); a machine of another platform needs its own: "
          r"pip install regex==[\d.]+$")),
    ],
    ids=["worker with another regex", "worker of another platform with Dask alone"],
)
def test_machines_that_would_count_differently_or_not_at_all_are_one_line(tmp_path, setup, message):
    (tmp_path / "preload.py").write_text(setup["preload"])
    python = dask_only_python() if setup.get("python") else sys.executable
    (tmp_path / "a.txt").write_text("some text")
    other = Cluster(workers=1, preload=str(tmp_path / "preload.py"), python=python)
    try:
        code, _, err = run_cli("train", tmp_path / "a.txt", "--merges", 3, "-o", tmp_path / "t.json", "--dask", other.address)
    finally:
        other.stop()
    assert code == 1 and err.count("\n") == 1 and re.match(message, err), err


@pytest.mark.slow
def test_a_cluster_that_loses_every_worker_ends_with_one_error(corpus_folder, monkeypatch):
    monkeypatch.setattr(dask_counting, "NO_WORKERS_SECONDS", 2)
    cluster = Cluster(workers=1)
    killed = []

    def kill_every_worker_once(*progress):  # the worker and its nanny, which would start another
        if not killed:
            killed.extend([*cluster.client.run(os.getpid).values(), cluster.processes[1].pid])
            for pid in killed:
                os.kill(pid, signal.SIGKILL)

    gone = r"^every worker of the cluster is gone \(none for 2 s while counting\); do they have the memory"
    try:
        with dask_counting.connect(cluster.address) as client, pytest.raises(dask_counting.ClusterError, match=gone):
            dask_counting.count_on_cluster(client, [str(corpus_folder)], "cl100k", progress=kill_every_worker_once,
                                           block_bytes=20_000)
    finally:
        cluster.stop()
    assert killed


def read_terminal(terminal: int, until, seconds: float = WAIT_SECONDS) -> str:
    """What a program drew on its terminal, read until `until(drawn)` or it closed it."""
    drawn, deadline = b"", time.monotonic() + seconds
    while not until(drawn.decode(errors="replace")):
        ready, _, _ = select.select([terminal], [], [], max(0.0, deadline - time.monotonic()))
        assert ready, f"waited {seconds} s for the terminal; it shows {drawn!r}"
        try:
            more = os.read(terminal, 4096)
        except OSError:  # the program ended and closed it
            more = b""
        if not more:
            break
        drawn += more
    return drawn.decode(errors="replace")


@pytest.mark.slow
@pytest.mark.parametrize("where", ["scheduler", "local"])
def test_ctrl_c_stops_the_command_and_the_clusters_work(cluster, corpus_folder, tmp_path, where):
    (tmp_path / "corpus").mkdir()
    big = tmp_path / "big.txt"
    big.write_bytes((corpus_folder / "part2.txt").read_bytes() * 600)  # some 16 MB: one block each (BLOCK_BYTES)
    for index in range(40):  # 640 MB: seconds of counting for two workers even in C, so Ctrl+C lands mid-run
        os.link(big, tmp_path / "corpus" / f"copy{index:02d}.txt")
    terminal, its_side = pty.openpty()  # progress is drawn on a terminal only
    address = cluster.address if where == "scheduler" else "local:1"  # its worker is in the terminal's group too
    command = start("bpe_core", "train", tmp_path / "corpus", "--merges", 5, "-o", tmp_path / "t.json",
                    "--dask", address, stderr=its_side, start_new_session=True)
    os.close(its_side)
    try:
        drawn = read_terminal(terminal, lambda drawn: " tasks" in drawn)  # a first block counted
        os.killpg(command.pid, signal.SIGINT)  # what Ctrl+C does: the terminal's foreground group
        drawn += read_terminal(terminal, lambda drawn: False)
        assert command.wait(WAIT_SECONDS) == 130  # as a shell reports a command that Ctrl+C stopped
    finally:
        command.kill()
        os.close(terminal)
    assert "error: interrupted: the cluster's work on this corpus was cancelled" in drawn
    assert "Traceback" not in drawn and "KeyboardInterrupt" not in drawn
    tasks_done, tasks = map(int, re.findall(r"(\d+) / (\d+) tasks", drawn)[-1])
    assert tasks == 46 and tasks_done < tasks  # it stopped mid-run (40 blocks, the sums of eight, their sum)
    assert not (tmp_path / "t.json").exists()
    if where == "scheduler":
        wait_until(lambda: not cluster.client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.tasks)),
                   "the scheduler still holds the command's tasks")
    wait_until(lambda: not group_alive(command.pid), "processes of the command (a local cluster's) outlived it")


def wait_until(condition, failure: str) -> None:
    deadline = time.monotonic() + WAIT_SECONDS
    while not condition():
        assert time.monotonic() < deadline, failure
        time.sleep(0.05)


def group_alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.slow
def test_a_worker_killed_mid_run_is_replaced_and_the_counts_are_exact(corpus_folder):
    """The worker killed holds blocks' counts that have finished and are not
    yet read here: those results are lost ("lost", then "pending" again)
    and the cluster counts them again, which is no error. Each step waits
    on the cluster's state (counts held, a result lost), never on a timer."""
    expected = count_files(corpus_paths([str(corpus_folder)]), "cl100k", (SPECIAL,))
    lost = []
    with dask_counting.connect("local:2") as client:
        pids = client.run(os.getpid)  # worker address -> its process

        def held_unread(tasks_done: int) -> dict[str, list]:
            """Worker address -> the finished results it holds, more than were read."""
            held: dict[str, list] = {}
            for key, addresses in client.who_has().items():
                for address in addresses:
                    held.setdefault(address, []).append(key)
            return {address: keys for address, keys in held.items() if len(keys) > tasks_done}

        def kill_a_worker_holding_unread_results(tasks_done, tasks, bytes_done, total_bytes):
            if lost:
                return
            deadline = time.monotonic() + WAIT_SECONDS
            while not (holding := held_unread(tasks_done)):  # until a worker holds results this loop has not read
                assert time.monotonic() < deadline and tasks_done < tasks, "no worker came to hold unread results"
                time.sleep(0.01)
            address, keys = next(iter(holding.items()))
            os.kill(pids[address], signal.SIGKILL)
            while not lost:  # until the client hears of it: the results it held are to be made again
                assert time.monotonic() < deadline, "the client never heard that the worker's results were lost"
                time.sleep(0.01)
                lost.extend(key for key in keys if client.futures[key].status in ("lost", "pending"))

        counted = dask_counting.count_on_cluster(client, [str(corpus_folder)], "cl100k", (SPECIAL,),
                                                 progress=kill_a_worker_holding_unread_results, block_bytes=20_000)
        assert lost and set(client.run(os.getpid).values()) != set(pids.values())  # the nanny started another
    assert list(counted.items()) == list(expected.items())


@pytest.mark.slow
def test_counting_dropped_by_a_restart_of_the_cluster_is_one_line(corpus_folder):
    with dask_counting.connect("local:1") as client:
        restarted = []

        def restart_once(*progress):
            if not restarted:
                restarted.append(client.restart())  # as an administrator might, mid-run

        with pytest.raises(dask_counting.ClusterError, match=r"^the cluster dropped the counting tasks \(was the scheduler restarted\?\)$"):
            dask_counting.count_on_cluster(client, [str(corpus_folder)], "cl100k", progress=restart_once, block_bytes=20_000)
