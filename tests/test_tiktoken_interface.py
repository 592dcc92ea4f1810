"""`import bpe_core as tiktoken`: tiktoken's public interface on every kind of
tokenizer here, answering as tiktoken answers. (tiktoken's own public suite
runs against this project too: tests/tiktoken_suite.)"""

import pickle
import pickletools
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

import pytest
import tiktoken
import tiktoken_ext.openai_public

import bpe_core
from bpe_core import Encoding, get_encoding, train
from bpe_core.algorithms.hf_trainers import train_unigram, train_wordpiece
from bpe_core.corpora.samples import catalog
from bpe_core.vocabularies.openai import tiktoken_encoding
from tests.texts import TRICKY_TEXTS

OPENAI = bpe_core.list_encoding_names()
# cl100k_base in the quick loop; the rest, whole vocabularies each, in the slow part.
OPENAI_PARAMS = [pytest.param(name, marks=[] if name == "cl100k_base" else pytest.mark.slow) for name in OPENAI]
MODELS = [
    "gpt2", "gpt-2", "davinci", "text-davinci-003", "text-davinci-edit-001", "code-davinci-002",
    "gpt-3.5-turbo", "gpt-3.5-turbo-0301", "gpt-4", "gpt-4-32k", "text-embedding-3-small",
    "gpt-4o", "gpt-4o-2024-05-13", "gpt-4.1", "gpt-5", "o1", "o3", "o4-mini", "gpt-oss-20b", "gpt-oss-120b",
]


def test_the_names_are_tiktokens():
    # OpenAI's, as tiktoken's own plugin lists them (where this package is installed, its plugin adds the zoo's)
    assert bpe_core.list_encoding_names() == list(tiktoken_ext.openai_public.ENCODING_CONSTRUCTORS)
    assert set(bpe_core.list_encoding_names()) < set(bpe_core.ENCODING_NAMES)  # the zoo's too


@pytest.mark.parametrize("model", MODELS)
def test_models_map_to_tiktokens_encodings(model):
    assert bpe_core.encoding_name_for_model(model) == tiktoken.encoding_name_for_model(model)
    assert bpe_core.encoding_for_model(model).name == tiktoken.encoding_name_for_model(model)


def test_an_unknown_model_is_a_key_error():
    with pytest.raises(KeyError, match="get_encoding"):
        bpe_core.encoding_name_for_model("a-model-nobody-made")


@pytest.mark.parametrize("name", OPENAI_PARAMS)
def test_every_method_answers_as_tiktoken(name):
    ours, theirs = get_encoding(name), tiktoken_encoding(name)
    assert (ours.name, ours.n_vocab, ours.max_token_value, ours.eot_token, ours.special_tokens_set) == (
        theirs.name, theirs.n_vocab, theirs.max_token_value, theirs.eot_token, theirs.special_tokens_set)
    texts = TRICKY_TEXTS
    assert ours.encode_batch(texts, allowed_special="all") == theirs.encode_batch(texts, allowed_special="all")
    assert ours.encode_ordinary_batch(texts) == theirs.encode_ordinary_batch(texts)
    batch = theirs.encode_batch(texts, disallowed_special=())
    assert ours.decode_batch(batch) == theirs.decode_batch(batch)
    assert ours.decode_bytes_batch(batch) == theirs.decode_bytes_batch(batch)
    for ids in batch:
        assert ours.decode_tokens_bytes(ids) == theirs.decode_tokens_bytes(ids)
        assert ours.decode_with_offsets(ids) == theirs.decode_with_offsets(ids)
    for text in ("hello fanta", "un", " 12", "नमस्", "ab\n\n", "<|endoftext|> the"):
        (our_stable, our_completions), (their_stable, their_completions) = (
            encoding.encode_with_unstable(text, allowed_special="all") for encoding in (ours, theirs))
        assert our_stable == their_stable  # the completions are a set, in no particular order:
        assert sorted(map(tuple, our_completions)) == sorted(map(tuple, their_completions))
    assert ours.token_byte_values() == theirs.token_byte_values()
    for special in theirs.special_tokens_set:
        assert ours.encode_single_token(special) == theirs.encode_single_token(special)


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_harmony"])
def test_special_token_errors_are_tiktokens(name):
    ours, theirs = get_encoding(name), tiktoken_encoding(name)
    for method, kwargs in [("encode", {}), ("encode", {"disallowed_special": {"<|endoftext|>"}}),
                           ("encode_with_unstable", {}), ("encode_batch", {})]:
        argument = "x <|endoftext|>" if method != "encode_batch" else ["fine", "x <|endoftext|>"]
        with pytest.raises(ValueError) as our_error:
            getattr(ours, method)(argument, **kwargs)
        with pytest.raises(ValueError) as their_error:
            getattr(theirs, method)(argument, **kwargs)
        assert str(our_error.value) == str(their_error.value)
    for missing in (theirs.n_vocab + 10, -1):
        with pytest.raises(KeyError):
            ours.decode_single_token_bytes(missing)
    with pytest.raises(KeyError):
        ours.encode_single_token("not one token at all")


def test_encoding_is_tiktokens_constructor():
    ranks = tiktoken_encoding("gpt2")._mergeable_ranks  # the reference's own ranks
    ours = Encoding("mine", pat_str=tiktoken_encoding("gpt2")._pat_str, mergeable_ranks=ranks,
                    special_tokens={"<|mine|>": 60_000})
    theirs = tiktoken.Encoding("mine", pat_str=tiktoken_encoding("gpt2")._pat_str, mergeable_ranks=ranks,
                               special_tokens={"<|mine|>": 60_000})
    text = "hello <|mine|> world"
    assert ours.encode(text, allowed_special="all") == theirs.encode(text, allowed_special="all")
    assert isinstance(get_encoding("gpt2"), Encoding) and isinstance(ours, bpe_core.EncodingBase)
    with pytest.raises(ValueError, match="explicit_n_vocab"):
        Encoding("mine", pat_str=ours.pattern, mergeable_ranks=ranks, special_tokens={}, explicit_n_vocab=50_257)


# ------------------------------------------------- every kind of tokenizer

SAMPLE = catalog()["english_prose"].load()[:20_000]


@pytest.fixture(scope="module")
def every_kind() -> dict:
    """One tokenizer of each kind: OpenAI's, a zoo model, trained here
    (preset split, custom split, characters), SentencePiece, Hugging Face's."""
    return {
        "o200k_base": get_encoding("o200k_base"),
        "llama3": get_encoding("llama3"),
        "trained": train(SAMPLE, vocab_size=400, pattern="cl100k", special_tokens=["<|end|>"]),
        "custom": train(SAMPLE, vocab_size=300, pattern=r"\w+|\s+|[^\w\s]+"),
        "chars": train(SAMPLE, vocab_size=300, pattern="gpt2", units="chars"),
        "mistral_v3": get_encoding("mistral_v3"),
        "wordpiece": train_wordpiece(SAMPLE.splitlines(), 500),
        "unigram": train_unigram(SAMPLE.splitlines(), 500),
    }


TEXTS = ["Hello, world!", "  indented\n\tcode()", "naïve café 👩‍💻", "Привет, мир", "", "x" * 300]


@pytest.mark.parametrize("kind", ["o200k_base", "llama3", "trained", "custom", "chars", "mistral_v3",
                                  "wordpiece", "unigram"])
def test_every_kind_has_the_whole_interface(every_kind, kind):
    tok = every_kind[kind]
    assert tok.encode_batch(TEXTS) == [tok.encode(text) for text in TEXTS]
    assert tok.encode_ordinary_batch(TEXTS) == [tok.encode_ordinary(text) for text in TEXTS]
    batch = [tok.encode(text) for text in TEXTS]
    assert tok.decode_batch(batch) == [tok.decode(ids) for ids in batch]
    assert tok.decode_bytes_batch(batch) == [tok.decode_bytes(ids) for ids in batch]
    for ids in batch:
        pieces = tok.decode_tokens_bytes(ids)
        assert pieces == [tok.token_bytes(token_id) for token_id in ids]
        text, offsets = tok.decode_with_offsets(ids)
        assert text == b"".join(pieces).decode("utf-8") and len(offsets) == len(ids)
        assert offsets == sorted(offsets) and all(0 <= offset <= len(text) for offset in offsets)
    for special, token_id in tok.special_tokens.items():
        assert tok.encode_single_token(special) == token_id
    some_ids = sorted(tok.vocab)[:: max(1, len(tok.vocab) // 200)]
    for token_id in some_ids:  # a token's bytes encode back to the first id with those bytes
        token = tok.decode_single_token_bytes(token_id)
        assert tok.decode_single_token_bytes(tok.encode_single_token(token)) == token
    assert tok.token_byte_values() == sorted({tok.token_bytes(token_id) for token_id in tok.vocab})
    assert tok.max_token_value == tok.n_vocab - 1
    with pytest.raises(KeyError):
        tok.decode_single_token_bytes(tok.n_vocab + 1)


def test_stable_tokens_are_for_byte_level_bpe_over_tiktokens_engine(every_kind):
    trained = every_kind["trained"]
    stable, completions = trained.encode_with_unstable("the quick bro")
    assert completions and all(trained.decode_bytes(stable + list(more)).startswith(b"the quick bro") for more in completions)
    for kind in ("custom", "mistral_v3", "wordpiece"):
        with pytest.raises(NotImplementedError, match="byte-level"):
            every_kind[kind].encode_with_unstable("the quick bro")


def test_end_of_text_by_each_makers_name(every_kind):
    assert every_kind["llama3"].eot_token == every_kind["llama3"].special_tokens["<|end_of_text|>"]
    assert every_kind["mistral_v3"].eot_token == every_kind["mistral_v3"].special_tokens["</s>"]
    with pytest.raises(ValueError, match="end-of-text"):
        _ = every_kind["custom"].eot_token


def test_an_encoding_loaded_by_name_pickles_as_its_name():
    for name in ("o200k_harmony", "llama3", "mistral_v3"):
        assert len(pickle.dumps(get_encoding(name))) < 200


def test_a_trained_tokenizer_pickles_whole_and_its_trace_compactly():
    """What training in a worker process sends back: everything the views
    use, its steps included; not ten thousand steps pickled one by one."""
    tokenizer = train(catalog()["english_prose"].load(), vocab_size=1_256, pattern="cl100k", special_tokens=("<s>",))
    pickled = pickle.dumps(tokenizer, protocol=pickle.HIGHEST_PROTOCOL)
    back = pickle.loads(pickled)
    assert back.trace == tokenizer.trace and all(type(step) is type(tokenizer.trace[0]) for step in back.trace)
    assert (back.merges, back.vocab, back.special_tokens) == (tokenizer.merges, tokenizer.vocab, tokenizer.special_tokens)
    assert back.fingerprint == tokenizer.fingerprint and back.stop_reason == tokenizer.stop_reason
    assert back.encode("Tokenizers don't see words <s>", allowed_special="all") == tokenizer.encode(
        "Tokenizers don't see words <s>", allowed_special="all")
    # Objects rebuilt by a call when unpickled: as many for 1,000 steps as for 10, not one per step.
    small = pickle.dumps(train(catalog()["english_prose"].load(), vocab_size=266, pattern="cl100k"))
    assert calls_to_rebuild(pickled) == calls_to_rebuild(small) < 10


def calls_to_rebuild(pickled: bytes) -> int:
    return sum(opcode.name in ("REDUCE", "NEWOBJ", "NEWOBJ_EX") for opcode, _, _ in pickletools.genops(pickled))


def _encode_each(tokenizer, texts: list[str]) -> list[list[int]]:
    return [tokenizer.encode(text, allowed_special="all") for text in texts]


@pytest.mark.slow
def test_every_kind_travels_to_a_spawned_process(every_kind):
    with ProcessPoolExecutor(1, mp_context=get_context("spawn")) as worker:
        for kind, tok in every_kind.items():
            assert worker.submit(_encode_each, tok, TEXTS).result() == _encode_each(tok, TEXTS), kind
