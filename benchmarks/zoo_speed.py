"""The model zoo against its makers' own libraries: load time and encode time.

    python benchmarks/zoo_speed.py

For each model: how long `load_encoding(name)` takes in a fresh process
(imports included) against the maker's own loader (llama-models'
`Tokenizer`, mistral-common's `Tekkenizer.from_file`, `sentencepiece`), and
how long a first encode of the parallel corpus (30 languages, 100 KB) takes
against the maker's encode. Medians of three fresh processes each; the
ratio is ours over the maker's (below 1.00x, ours is faster).
"""

from __future__ import annotations

from measure import ROOT, ratio, run_isolated

PARALLEL = ROOT / "sample_corpora" / "parallel"
TEXT = f"""
import glob
text = '\\n'.join(open(path, encoding='utf-8').read() for path in sorted(glob.glob({str(PARALLEL)!r} + '/*.txt')))
"""

OURS = "from bpe_core import load_encoding\ntok = load_encoding({name!r})"
MAKERS = {
    "llama3": ("import llama_models.llama3.tokenizer as m\nmaker = m.Tokenizer.get_instance()",
               "maker.encode(text, bos=False, eos=False)"),
    "llama4": ("import llama_models.llama4.tokenizer as m\nmaker = m.Tokenizer.get_instance()",
               "maker.encode(text, bos=False, eos=False)"),
    "tekken": ("import importlib.resources\nfrom mistral_common.tokens.tokenizers.tekken import Tekkenizer\n"
               "maker = Tekkenizer.from_file(str(importlib.resources.files('mistral_common') / 'data' / "
               "'tekken_240911.json'))", "maker.encode(text, bos=False, eos=False)"),
    "mistral_v3": ("import importlib.resources, sentencepiece\nmaker = sentencepiece.SentencePieceProcessor(model_file="
                   "str(importlib.resources.files('mistral_common') / 'data' / "
                   "'mistral_instruct_tokenizer_240323.model.v3'))", "maker.encode(text)"),
}


def main() -> None:
    print(f"{'model':<11} {'load: ours':>11} {'maker':>8} {'ratio':>7}   {'encode 100 KB: ours':>20} {'maker':>8} {'ratio':>7}")
    for name, (maker_load, maker_encode) in MAKERS.items():
        ours_load = run_isolated(setup="", job=OURS.format(name=name) + "\nresult = tok.n_vocab")["seconds"]
        maker_loaded = run_isolated(setup="", job=maker_load + "\nresult = 0")["seconds"]
        ours_encode = run_isolated(setup=OURS.format(name=name) + TEXT, job="result = len(tok.encode_ordinary(text))")
        maker_encoded = run_isolated(setup=maker_load + TEXT, job=f"result = len({maker_encode})")
        assert ours_encode["result"] == maker_encoded["result"], name  # the same tokens, or the timing means nothing
        print(f"{name:<11} {ours_load:10.2f}s {maker_loaded:7.2f}s {ratio(ours_load, maker_loaded):>7}   "
              f"{ours_encode['seconds']:19.3f}s {maker_encoded['seconds']:7.3f}s "
              f"{ratio(ours_encode['seconds'], maker_encoded['seconds']):>7}")


if __name__ == "__main__":
    main()
