"""Rebuilding algorithms.json rebuilds algorithm_measures.json after it: the
measures are keyed by the tokenizers' fingerprints, so measures of the old
tokenizers would never be used (the page would measure on every first view)."""

import importlib.util
import subprocess
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parents[1] / "sample_corpora"


def test_building_the_algorithms_then_measures_them_in_a_fresh_process(monkeypatch):
    spec = importlib.util.spec_from_file_location("build_algorithms", SCRIPTS / "build_algorithms.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    done = []
    monkeypatch.setattr(script, "ALGORITHMS", ["bpe"])
    monkeypatch.setattr(script, "trained", lambda algorithm, text, settings: "tokenizer")
    monkeypatch.setattr(script, "language_tokens", lambda tokenizer: {})
    monkeypatch.setattr(script, "write_shipped", lambda tokenizers, counts: done.append("algorithms.json"))
    monkeypatch.setattr(subprocess, "run", lambda command, check: done.append([Path(part).name for part in command[1:]]))
    script.main()
    assert done == ["algorithms.json", ["build_algorithm_measures.py"]]
