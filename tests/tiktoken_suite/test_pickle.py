# tiktoken's public test suite (tests/test_pickle.py of tiktoken 0.14.0, MIT, (c) 2022 OpenAI, Shantanu Jain; see
# LICENSE beside this file), run against this project: `import tiktoken` reads `import bpe_core as tiktoken`.
# Changed: the private `_pat_str` and `_mergeable_ranks` read the public `pattern` and `mergeable_ranks`.

import bpe_core as tiktoken


def test_pickle():
    import pickle

    enc_old = tiktoken.get_encoding("r50k_base")
    enc_new = pickle.loads(pickle.dumps(enc_old))
    assert enc_old.encode("hello world") == enc_new.encode("hello world")

    enc_old = tiktoken.Encoding(
        name="custom_enc",
        pat_str=enc_old.pattern,
        mergeable_ranks=enc_old.mergeable_ranks,
        special_tokens={"<|pickle|>": 100_000},
    )
    enc_new = pickle.loads(pickle.dumps(enc_old))
    assert enc_old.encode("hello world") == enc_new.encode("hello world")
    assert (
        enc_old.encode("<|pickle|>", allowed_special="all")
        == enc_new.encode("<|pickle|>", allowed_special="all")
        == [100_000]
    )
