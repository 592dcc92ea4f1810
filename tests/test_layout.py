"""The package's layering, as a user of the engine relies on it: the engine
and the command line load no drawing or app library, the public API is
importable from the top, and a tokenizer's fingerprint keys caches soundly."""

import json
import subprocess
import sys

import pytest

from bpe_core import load_encoding, train
from bpe_core.formats import tokenizer_from_json, tokenizer_to_json
from tests.conftest import ROOT

HEAVY = ("streamlit", "plotly", "pandas", "PIL", "dask", "distributed")  # Dask: only for train --dask

ENGINE_USE = """
import json, sys
from bpe_core import Tokenizer, load_encoding, load_tokenizer, save_tokenizer, tiktoken_encoding, train
from bpe_core.formats import tokenizer_from_file, to_tiktoken
tok = train("low lower lowest newer wider " * 50, vocab_size=300, pattern="cl100k")
tok.encode("lowest"); tok.encode_with_offsets("lowest", step=3)
load_encoding("gpt2").encode("hello"); to_tiktoken(tok).encode("lowest")
print(json.dumps(sorted(name for name in {heavy} if name in sys.modules)))
"""


def loaded_after(code: str) -> list[str]:
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_training_and_encoding_load_no_app_or_drawing_library():
    assert loaded_after(ENGINE_USE.format(heavy=HEAVY)) == []


def test_the_command_line_loads_no_app_or_drawing_library():
    code = (
        "import json, sys\nfrom bpe_core.cli import main\n"
        "main(['tax', '--encoding', 'gpt2', '--json'])\n"
        f"print(json.dumps(sorted(name for name in {HEAVY} if name in sys.modules)))"
    )
    assert loaded_after(code) == []


def test_fingerprints_tell_tokenizers_apart_and_survive_a_round_trip():
    corpus = "low lower lowest newer wider, the widest and the newest. " * 50
    tok = train(corpus, num_merges=20, pattern="cl100k")
    assert tok.stop_reason is None  # so one merge fewer is another tokenizer
    again = train(corpus, num_merges=20, pattern="cl100k")
    assert tok.fingerprint == again.fingerprint  # training is deterministic: same content, same key
    assert tokenizer_from_json(tokenizer_to_json(tok)).fingerprint == tok.fingerprint
    others = [
        train(corpus, num_merges=19, pattern="cl100k"),  # one merge fewer
        train(corpus, num_merges=20, pattern="gpt2"),  # another split
        train(corpus, num_merges=20, pattern="cl100k", special_tokens=["<|x|>"]),
        train(corpus + "x", num_merges=20, pattern="cl100k"),  # same merges, other corpus length
    ]
    assert len({tok.fingerprint, *(other.fingerprint for other in others)}) == 5


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_the_fingerprint_of_a_bundled_encoding_does_not_recover_its_merges(name):
    """Caches key on the fingerprint at every rerun; it must not cost the
    seconds that recovering 100,000 merges from ranks takes."""
    encoding = load_encoding(name)
    assert len(encoding.fingerprint) == 64
    assert encoding._merges is None
