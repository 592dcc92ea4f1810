"""bpe_core/vocabularies/files/rebuild_p50k.py, which writes the shipped
p50k_base.tiktoken.gz back from js-tiktoken's npm package, run offline: on
a package folder this test writes (no npm, no download).

js-tiktoken's `dist/ranks/p50k_base.js` holds "export default {...}" whose
"bpe_ranks" is lines of "! <first rank> <token> <token> ...": the ranks of
a line count up from its first one, and a new line starts where they skip.
"""

import base64
import gzip
import hashlib
import json

import pytest

from bpe_core.vocabularies.files import rebuild_p50k
from tests.tiktoken_oracle import SHIPPED, pinned_hashes

# A made-up rank table in js-tiktoken's form: two lines, ranks 0-2 and 7-8.
TOKENS = [b"a", b"b", b" \xe2\x80", b"ab", b"\x00\xff"]
RANKS = [0, 1, 2, 7, 8]


def b64(token: bytes) -> str:
    return base64.b64encode(token).decode("ascii")


def js_module(lines: list[str]) -> str:
    """js-tiktoken's ranks module around these "bpe_ranks" lines."""
    ranks = {"pat_str": "'s|'t", "special_tokens": {"<|endoftext|>": 50256}, "bpe_ranks": "\n".join(lines)}
    return "export default " + json.dumps(ranks) + ";\n"


def package_with(tmp_path, module_text: str):
    """An unpacked js-tiktoken package holding this ranks module."""
    ranks = tmp_path / "package" / rebuild_p50k.RANKS_IN_PACKAGE
    ranks.parent.mkdir(parents=True)
    ranks.write_text(module_text, encoding="utf-8")
    return tmp_path / "package"


FIXTURE = js_module([
    f"! 0 {b64(TOKENS[0])} {b64(TOKENS[1])} {b64(TOKENS[2])}",
    f"! 7 {b64(TOKENS[3])} {b64(TOKENS[4])}",
])
# What it was made from: tiktoken's file format, one "<base64 token> <rank>" a line, in rank order.
EXPECTED = "".join(f"{b64(token)} {rank}\n" for token, rank in zip(TOKENS, RANKS)).encode("ascii")


def test_the_compact_lines_become_one_token_and_rank_a_line():
    assert rebuild_p50k.tiktoken_file_from_js(FIXTURE) == EXPECTED
    assert rebuild_p50k.tiktoken_file_from_js(js_module([])) == b""


def test_a_package_whose_ranks_are_not_tiktokens_file_is_refused_and_nothing_written(tmp_path, monkeypatch, capsys):
    output = tmp_path / "p50k_base.tiktoken.gz"
    monkeypatch.setattr(rebuild_p50k, "OUTPUT", output)
    assert rebuild_p50k.main([str(package_with(tmp_path, FIXTURE))]) == 1
    assert not output.exists()
    assert f"not tiktoken's {rebuild_p50k.P50K_SHA256}" in capsys.readouterr().err


def test_the_file_written_is_the_one_whose_hash_it_checks(tmp_path, monkeypatch):
    output = tmp_path / "p50k_base.tiktoken.gz"
    monkeypatch.setattr(rebuild_p50k, "OUTPUT", output)
    monkeypatch.setattr(rebuild_p50k, "P50K_SHA256", hashlib.sha256(EXPECTED).hexdigest())
    assert rebuild_p50k.main([str(package_with(tmp_path, FIXTURE))]) == 0
    assert gzip.decompress(output.read_bytes()) == EXPECTED


@pytest.fixture(scope="module")
def shipped_p50k() -> bytes:
    return gzip.decompress((SHIPPED / "p50k_base.tiktoken.gz").read_bytes())


def compact(tiktoken_file: bytes) -> str:
    """A `.tiktoken` file in js-tiktoken's form, written here from the form's
    description above (not with the script's code)."""
    lines, next_rank = [], None
    for line in tiktoken_file.decode("ascii").splitlines():
        token, rank = line.split(" ")
        if int(rank) != next_rank:
            lines.append(f"! {rank}")
        lines[-1] += f" {token}"
        next_rank = int(rank) + 1
    return js_module(lines)


@pytest.mark.slow  # a second or two: tiktoken reads the ranks, gzip packs 800 KB at level 9
def test_the_shipped_file_comes_back_byte_for_byte_under_tiktokens_pin(tmp_path, monkeypatch, shipped_p50k):
    """The real table through the script's whole run, under the hash
    tiktoken pins for it: the rebuilt .gz is the shipped one, byte for byte."""
    assert pinned_hashes("p50k_base") == [rebuild_p50k.P50K_SHA256]
    output = tmp_path / "p50k_base.tiktoken.gz"
    monkeypatch.setattr(rebuild_p50k, "OUTPUT", output)
    assert rebuild_p50k.main([str(package_with(tmp_path, compact(shipped_p50k)))]) == 0
    assert output.read_bytes() == (SHIPPED / "p50k_base.tiktoken.gz").read_bytes()
