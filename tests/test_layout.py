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


# ------------------------------------------------------------------ the floors

# bpe_core's subpackages from the ground up: each imports only from its own
# floor and those below it (bpe_core/__init__.py says what each holds).
FLOORS = ["sandbox", "engine", "formats", "vocabularies", "tiktoken_bridge", "algorithms", "corpora", "analysis", "jobs",
          "drawing", "cli"]
PACKAGE = ROOT / "bpe_core"


def _imports_of(path) -> set[str]:
    """The bpe_core modules a file imports, anywhere in it (a function's own
    imports too), as dotted names, read from its syntax alone."""
    import ast

    module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
    package = module.rsplit(".", 1)[0] if path.name != "__init__.py" else module.removesuffix(".__init__")
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name.startswith("bpe_core")}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.startswith("bpe_core"):
                found.add(target)
                found |= {f"{target}.{alias.name}" for alias in node.names}  # `from package import module`
    modules = {".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
               for p in PACKAGE.rglob("*.py")}
    return {name for name in found if name in modules} - {module.removesuffix(".__init__")}


def _floor(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and parts[1] in FLOORS) else None


def test_only_the_public_api_stands_at_the_top_of_bpe_core():
    top = sorted(path.name for path in PACKAGE.glob("*.py"))
    assert top == ["__init__.py", "__main__.py"]
    folders = sorted(path.name for path in PACKAGE.iterdir() if path.is_dir() and path.name != "__pycache__")
    assert folders == sorted(FLOORS)
    for floor in FLOORS:  # each opens with a docstring that says what it holds
        import ast

        init = PACKAGE / floor / "__init__.py"
        assert ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))), init


def test_imports_run_only_downward_from_floor_to_floor():
    upward = []
    for path in PACKAGE.rglob("*.py"):
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        here = _floor(module)
        if here is None:  # bpe_core/__init__.py and __main__.py: the public API, above every floor
            continue
        for imported in _imports_of(path):
            there = _floor(imported)
            if there is None or FLOORS.index(there) > FLOORS.index(here):
                upward.append(f"{module} -> {imported}")
    assert upward == []


def test_no_modules_import_each_other_in_a_circle():
    graph = {}
    for path in PACKAGE.rglob("*.py"):
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        graph[module] = _imports_of(path)
    done, on_path, circles = set(), [], []

    def visit(module):
        if module in on_path:
            circles.append(on_path[on_path.index(module):] + [module])
            return
        if module in done:
            return
        on_path.append(module)
        for imported in sorted(graph.get(module, ())):
            visit(imported)
        on_path.pop()
        done.add(module)

    for module in sorted(graph):
        visit(module)
    assert circles == []
