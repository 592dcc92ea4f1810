"""What a visitor's model folder costs the server: uploading it, and typing with it.

    python benchmarks/folder_upload.py [--model gemma3] [--keystrokes 50]

An ordinary upload: the makers' Gemma 3 folder (33 MB tokenizer.json, its
tokenizer_config.json), zipped, through the page's path (read in a capped
job, then loaded). Two ways in the same run:

- *in place*: loaded in the server's own process, untried and unbounded
  (`HuggingFaceTokenizer(untrusted=False)`), as a folder the user trusts;
- *hosted*: loaded and tried in a host process, every call bounded
  (`sandbox.hosts`), as the page loads a visitor's folder.

For each: the clock, the server process's own processor time, and the
longest time another thread of the server waited (every other visitor's
page waits that long); then a keystroke in Inspect: encoding a 300-character
text (the median of `--keystrokes`). Ratios are hosted / in place; say the
load (`uptime`) beside them.
"""

from __future__ import annotations

import argparse
import io
import statistics
import sys
import threading
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.measure import load_average
from bpe_core.jobs.budgeted_reading import folder_from_upload
from bpe_core.sandbox import hosts
from bpe_core.vocabularies import zoo
from bpe_core.vocabularies.model_folders import HuggingFaceTokenizer

FILES = {"gemma3": (zoo.GEMMA3_FILE, zoo.GEMMA3_CONFIG)}
TYPED = ("The quick brown fox jumps over the lazy dog; naïve café, 12,345 — 東京 ") * 4


class Stalls:
    """Another thread of the server, ticking every millisecond."""

    def __init__(self):
        self.longest, self._running = 0.0, True
        self._thread = threading.Thread(target=self._tick, daemon=True)

    def _tick(self):
        last = time.monotonic()
        while self._running:
            time.sleep(0.001)
            now = time.monotonic()
            self.longest, last = max(self.longest, now - last), now

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._running = False
        self._thread.join()


def zipped(model: str) -> bytes:
    tokenizer_file, config_file = FILES[model]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(f"{model}/tokenizer.json", tokenizer_file.read())
        archive.writestr(f"{model}/tokenizer_config.json", config_file.read())
    return buffer.getvalue()


def upload(data: bytes, untrusted: bool) -> tuple[HuggingFaceTokenizer, dict]:
    hosts.HOSTS.close()  # a first upload: no host holds the file yet
    clock, cpu = time.monotonic(), time.process_time()
    with Stalls() as stalls:
        folder = folder_from_upload("model.zip", data)
        tokenizer = HuggingFaceTokenizer(name=folder.name, tokenizer_json=folder.tokenizer_json, untrusted=untrusted)
    return tokenizer, {"clock": time.monotonic() - clock, "server cpu": time.process_time() - cpu,
                       "longest stall": stalls.longest}


def keystroke(tokenizer: HuggingFaceTokenizer, times: int) -> float:
    tokenizer.encode_with_offsets(TYPED)  # a host's first call
    spent = []
    for number in range(times):
        text = TYPED[: len(TYPED) - number % 7]
        started = time.perf_counter()
        tokenizer.encode_with_offsets(text)
        spent.append(time.perf_counter() - started)
    return statistics.median(spent)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=sorted(FILES), default="gemma3")
    parser.add_argument("--keystrokes", type=int, default=50)
    options = parser.parse_args()
    data = zipped(options.model)
    print(f"{options.model}: {len(data) / 1e6:.1f} MB zipped; load average {load_average()}")
    found = {}
    for way, untrusted in (("in place", False), ("hosted", True)):
        tokenizer, upload_cost = upload(data, untrusted)
        found[way] = {**upload_cost, "keystroke": keystroke(tokenizer, options.keystrokes)}
        del tokenizer
    for measure in found["in place"]:
        before, after = found["in place"][measure], found["hosted"][measure]
        print(f"{measure:>14}: in place {before * 1000:9.1f} ms   hosted {after * 1000:9.1f} ms   ({after / before:.2f}x)")
    print(f"load average at the end {load_average()}")
    hosts.HOSTS.close()


if __name__ == "__main__":
    main()
