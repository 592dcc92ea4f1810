"""The model zoo against its makers' own libraries: load time and encode time.

    python benchmarks/zoo_speed.py              # every model against its maker's library
    python benchmarks/zoo_speed.py --first-visit  # Gemma 3 and DeepSeek V3 against Llama 4, load and memory

For each model: how long `load_encoding(name)` takes in a fresh process
against the maker's own loader (llama-models' `Tokenizer`, mistral-common's
`Tekkenizer.from_file`, `sentencepiece`; for the models whose files ship
here, the makers' algorithms over those files as tests/test_zoo_more.py
builds them, and Hugging Face's `tokenizers` for Claude 1/2, Gemma 3 and
DeepSeek V3, which transformers runs them in), imports done before the clock
starts, and how long a first encode of the parallel corpus (30 languages,
100 KB) takes against the maker's encode.

`--first-visit` answers what a page's first visit pays for Gemma 3 and
DeepSeek V3 against Llama 4 as the zoo loads it: `load_encoding` and a
first short encode, and the peak memory of the process, in fresh processes
taking turns; Gemma 3 twice, with the compact form of its file kept from an
earlier load (as every load after a machine's first) and without (the first
load on a machine makes it; see `vocabularies.derived_files`). Our load of the tiktoken-style
models includes the maker's own loader (it reads the ranks, pattern and
special tokens) plus building this engine's tokenizer over them. Medians of
three fresh processes each; the ratio is ours over the maker's (below
1.00x, ours is faster).
"""

from __future__ import annotations

import sys
import tempfile

from measure import ROOT, ratio, run_in_turns, run_isolated

PARALLEL = ROOT / "sample_corpora" / "parallel"
TEXT = f"""
import glob
text = '\\n'.join(open(path, encoding='utf-8').read() for path in sorted(glob.glob({str(PARALLEL)!r} + '/*.txt')))
"""

# (untimed imports, timed load, encode call) for ours and for each maker's library
OURS = ("from bpe_core import load_encoding", "tok = load_encoding({name!r})", "tok.encode_ordinary(text)")
MAKERS = {
    "llama3": ("import llama_models.llama3.tokenizer as m", "maker = m.Tokenizer.get_instance()",
               "maker.encode(text, bos=False, eos=False)"),
    "llama4": ("import llama_models.llama4.tokenizer as m", "maker = m.Tokenizer.get_instance()",
               "maker.encode(text, bos=False, eos=False)"),
    "tekken": ("import importlib.resources\nfrom mistral_common.tokens.tokenizers.tekken import Tekkenizer",
               "maker = Tekkenizer.from_file(str(importlib.resources.files('mistral_common') / 'data' / "
               "'tekken_240911.json'))", "maker.encode(text, bos=False, eos=False)"),
    "mistral_v3": ("import importlib.resources, sentencepiece",
                   "maker = sentencepiece.SentencePieceProcessor(model_file=str(importlib.resources.files("
                   "'mistral_common') / 'data' / 'mistral_instruct_tokenizer_240323.model.v3'))", "maker.encode(text)"),
    "qwen": ("import unicodedata\nfrom tests.test_zoo_more import qwen_reference", "maker = qwen_reference()",
             "maker.encode(unicodedata.normalize('NFC', text), allowed_special='all', disallowed_special=())"),
    "whisper": ("from tests.test_zoo_more import whisper_reference", "maker = whisper_reference()",
                "maker.encode_ordinary(text)"),
    "claude_legacy": ("from tests.test_zoo_more import bundled_bytes\nimport tokenizers",
                      "maker = tokenizers.Tokenizer.from_str(bundled_bytes('claude_legacy').decode('utf-8'))",
                      "maker.encode(text).ids"),
    "gemma3": ("from tests.test_zoo_hf_files import unpacked\nimport tokenizers",
               "maker = tokenizers.Tokenizer.from_str(unpacked('gemma3', 0).decode('utf-8'))",
               "maker.encode(text, add_special_tokens=False).ids"),
    "deepseek_v3": ("from tests.test_zoo_hf_files import unpacked\nimport tokenizers",
                    "maker = tokenizers.Tokenizer.from_str(unpacked('deepseek_v3', 0).decode('utf-8'))",
                    "maker.encode(text, add_special_tokens=False).ids"),
}
FIRST_VISIT = {  # what a page's first visit loads: the tokenizer, and a first encode of a line
    "llama4": "llama4", "gemma3": "gemma3", "gemma3, first load on a machine": "gemma3", "deepseek_v3": "deepseek_v3",
}


def timed(imports: str, load: str, encode: str | None = None) -> dict:
    """A fresh process: `imports` untimed; then `load` timed, or, with
    `encode`, `load` untimed and a first encode of the corpus timed."""
    if encode is None:
        return run_isolated(setup=imports, job=load + "\nresult = 0")
    return run_isolated(setup=f"{imports}\n{load}\n{TEXT}", job=f"result = len({encode})")


def cell(run: dict) -> str:
    """One timing as the table shows it: seconds (CPU seconds)."""
    return f"{run['seconds']:.3f} ({run['cpu_seconds']:.3f})"


def main() -> None:
    print("Fresh processes, medians of three; imports untimed. Wall clock (CPU) seconds; "
          "ratio = ours / maker's, by CPU time (a shared machine's clock is noisy).")
    width = max(map(len, MAKERS))
    print(f"{'model':<{width}} {'load: ours':>15} {'maker':>15} {'ratio':>7}   {'encode: ours':>15} {'maker':>15} {'ratio':>7}")
    for name, maker in MAKERS.items():
        ours = [part.format(name=name) for part in OURS]
        ours_load, maker_load = timed(*ours[:2]), timed(*maker[:2])
        ours_encode, maker_encode = timed(*ours), timed(*maker)
        assert ours_encode["result"] == maker_encode["result"], name  # the same tokens, or the timing means nothing
        print(f"{name:<{width}} {cell(ours_load):>15} {cell(maker_load):>15} "
              f"{ratio(ours_load['cpu_seconds'], maker_load['cpu_seconds']):>7}   "
              f"{cell(ours_encode):>15} {cell(maker_encode):>15} "
              f"{ratio(ours_encode['cpu_seconds'], maker_encode['cpu_seconds']):>7}")


def first_visit() -> None:
    """Gemma 3 and DeepSeek V3 against Llama 4: load and first encode, and peak memory."""
    jobs = {}
    for label, name in FIRST_VISIT.items():
        setup = "from bpe_core import load_encoding\nimport llama_models.llama4.tokenizer, tiktoken, regex, tokenizers"
        if "first load" in label:  # an empty cache folder of its own: the compact form is made again each run
            setup = f"import os\nos.environ['BPE_CORE_CACHE'] = {tempfile.mkdtemp()!r} + '/' + str(os.getpid())\n" + setup
        jobs[label] = (setup, f"tok = load_encoding({name!r})\nresult = len(tok.encode('Hello, world! Привет, 世界'))")
    run_in_turns({label: job for label, job in jobs.items() if "first load" not in label}, repeats=1)  # forms kept
    runs = run_in_turns(jobs)
    peer = runs["llama4"]
    print("Fresh processes taking turns, medians of three; imports untimed. Load and a first encode: "
          "wall clock (CPU) seconds; ratio = this / Llama 4's, by CPU time; peak = the process's resident memory.")
    for label, run in runs.items():
        print(f"{label:<32} {run['seconds']:6.2f} s ({run['cpu_seconds']:5.2f}) "
              f"{ratio(run['cpu_seconds'], peer['cpu_seconds']):>7}   peak {run['peak_mb']:5.0f} MB")


if __name__ == "__main__":
    if "--first-visit" in sys.argv[1:]:
        first_visit()
    else:
        main()
