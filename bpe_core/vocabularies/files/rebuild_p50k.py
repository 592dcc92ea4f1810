"""Rebuild p50k_base.tiktoken.gz from npm's `js-tiktoken` package (MIT).

OpenAI publishes p50k_base.tiktoken (Codex and text-davinci-002/003; also
p50k_edit's ranks) at a URL tiktoken downloads from on first use. The same
ranks ship inside js-tiktoken as `dist/ranks/p50k_base.js`, in a compact
form: the file holds one JSON object whose "bpe_ranks" is lines of
"! <first rank> <base64 token> <base64 token> ...", each token ranked one
after the one before it. This script writes them back as the original
`.tiktoken` file ("<base64 token> <rank>" per line, in rank order) and
refuses to write anything whose SHA-256 differs from the hash tiktoken pins
for the original (`tiktoken_ext/openai_public.py`), so the bundled file is
byte for byte OpenAI's.

Development time only (the app never runs npm):

    python bpe_core/vocabularies/files/rebuild_p50k.py              # npm pack js-tiktoken@1.0.21 into a temporary folder
    python bpe_core/vocabularies/files/rebuild_p50k.py PACKAGE_DIR  # an unpacked js-tiktoken package
"""

from __future__ import annotations

import gzip
import hashlib
import json
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

PACKAGE = "js-tiktoken@1.0.21"
RANKS_IN_PACKAGE = "dist/ranks/p50k_base.js"
P50K_SHA256 = "94b5ca7dff4d00767bc256fdd1b27e5b17361d7b8a5f968547f9f23eb70d2069"
OUTPUT = Path(__file__).parent / "p50k_base.tiktoken.gz"


def tiktoken_file_from_js(module_text: str) -> bytes:
    """The `.tiktoken` file that js-tiktoken's ranks module was made from."""
    ranks = json.loads(module_text.removeprefix("export default ").rstrip().rstrip(";"))
    lines = []
    for group in ranks["bpe_ranks"].split("\n"):
        if not group:
            continue
        _, first_rank, *tokens = group.split(" ")
        lines += [f"{token} {int(first_rank) + index}" for index, token in enumerate(tokens)]
    return "".join(line + "\n" for line in lines).encode("ascii")


def unpacked_package(folder: Path) -> Path:
    """`npm pack` the package into `folder` and unpack it; its root folder."""
    subprocess.run(["npm", "pack", PACKAGE, "--silent"], cwd=folder, check=True, stdout=subprocess.DEVNULL)
    archive = next(folder.glob("js-tiktoken-*.tgz"))
    with tarfile.open(archive) as tar:
        tar.extractall(folder, filter="data")
    return folder / "package"


def main(argv: list[str]) -> int:
    with tempfile.TemporaryDirectory() as scratch:
        package = Path(argv[0]) if argv else unpacked_package(Path(scratch))
        contents = tiktoken_file_from_js((package / RANKS_IN_PACKAGE).read_text("utf-8"))
    digest = hashlib.sha256(contents).hexdigest()
    if digest != P50K_SHA256:
        print(f"error: the rebuilt file's SHA-256 is {digest}, not tiktoken's {P50K_SHA256}", file=sys.stderr)
        return 1
    OUTPUT.write_bytes(gzip.compress(contents, compresslevel=9, mtime=0))
    print(f"wrote {OUTPUT} ({len(contents):,} bytes before gzip, SHA-256 {digest})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
