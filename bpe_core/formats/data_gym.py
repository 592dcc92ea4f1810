"""GPT-2's vocabulary as OpenAI first released it: `vocab.bpe` and `encoder.json`.

Before rank files, GPT-2 shipped two files ("data gym" is the name tiktoken
gives their form). Both write a token's bytes as printable characters, one
per byte, the same stand-ins Hugging Face's byte-level BPE uses
(`hf_json.byte_to_unicode`: a space is "Ġ"):

- `vocab.bpe`: "#version: 0.2", then one merge per line, the two parts
  separated by a space, in rank order; the 256 single bytes come first,
  ranked in the order of their stand-ins (the printable bytes, then the rest);
- `encoder.json`: every token and its id, `<|endoftext|>` last.

The ranks they hold are r50k_base's, so reading them gives tiktoken's gpt2
ranks, and writing r50k_base this way gives GPT-2's files back, byte for
byte (`vocabularies.openai` holds both to the SHA-256 tiktoken pins).
"""

from __future__ import annotations

import json

from ..engine.tokenizer import Tokenizer
from .hf_json import byte_to_unicode

VERSION_LINE = "#version: 0.2"
END_OF_TEXT = "<|endoftext|>"


def single_bytes_in_rank_order() -> list[int]:
    """The 256 bytes as GPT-2 ranks them: those that stand for themselves
    (printable, not a space), then the others."""
    stands_for_itself = [byte for byte, char in byte_to_unicode().items() if char == chr(byte)]
    return stands_for_itself + [byte for byte in range(256) if byte not in stands_for_itself]


def ranks_from_data_gym(vocab_bpe: bytes, encoder_json: bytes, *, clobber_one_byte_tokens: bool = False
                        ) -> dict[bytes, int]:
    """The mergeable ranks the two files hold (what tiktoken's
    `data_gym_to_mergeable_bpe_ranks` reads from them); ValueError when the
    files disagree, since ranks must follow the order of the merges.
    `clobber_one_byte_tokens`: the single bytes take encoder.json's ids."""
    byte_of = {char: byte for byte, char in byte_to_unicode().items()}

    def token(text: str) -> bytes:
        return bytes(byte_of[char] for char in text)

    ranks = {bytes([byte]): rank for rank, byte in enumerate(single_bytes_in_rank_order())}
    for line in vocab_bpe.decode("utf-8").split("\n")[1:-1]:  # the version line first, an empty line last
        first, second = line.split()
        ranks[token(first) + token(second)] = len(ranks)
    specials = (END_OF_TEXT, "<|startoftext|>")  # in encoder.json, not among the ranks
    encoder = {token(text): rank for text, rank in json.loads(encoder_json).items() if text not in specials}
    if clobber_one_byte_tokens:
        ranks |= {single: rank for single, rank in encoder.items() if len(single) == 1}
    if ranks != encoder:
        raise ValueError("vocab.bpe and encoder.json disagree: the ranks of the merges are not the ids of the tokens")
    return ranks


def data_gym_files(tokenizer: Tokenizer) -> tuple[bytes, bytes]:
    """A byte-level tokenizer whose single bytes are ranked as GPT-2's are
    (r50k_base), as (vocab.bpe, encoder.json); each merge is the one its
    ranks recover (`Tokenizer.merge_parts`)."""
    as_text = {byte: char for byte, char in byte_to_unicode().items()}

    def text(token_id: int) -> str:
        return "".join(as_text[byte] for byte in tokenizer.vocab[token_id])

    ids = sorted(tokenizer.vocab)
    merges = [" ".join(map(text, tokenizer.merge_parts(token_id))) for token_id in ids[256:]]
    vocab_bpe = "\n".join([VERSION_LINE, *merges]) + "\n"
    encoder = {text(token_id): token_id for token_id in ids} | tokenizer.special_tokens
    return vocab_bpe.encode("utf-8"), json.dumps(encoder).encode("utf-8")
