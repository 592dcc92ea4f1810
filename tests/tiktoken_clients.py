"""What published libraries written for tiktoken answer, as JSON on standard output.

    python tiktoken_clients.py tiktoken|bpe_core < texts.json

Run by tests/test_tiktoken_clients.py in the virtual environment .ci/run
makes (this package's wheel, and langchain-text-splitters, tokencost,
semchunk and ttok from the package registry), without this checkout: with
the real tiktoken, or with bpe_core standing in for it, called before any
of the libraries is imported, as their users would call it. It imports
nothing of the tests, whose oracle is the real tiktoken's run.
"""

import functools
import json
import sys

if sys.argv[1] == "bpe_core":
    import bpe_core

    bpe_core.stand_in_for_tiktoken()

import semchunk  # noqa: E402  (after the stand-in: the libraries import tiktoken as they load)
import tokencost  # noqa: E402
from click.testing import CliRunner  # noqa: E402
from langchain_text_splitters import RecursiveCharacterTextSplitter, TokenTextSplitter  # noqa: E402
from ttok.cli import cli as ttok  # noqa: E402  (the command `ttok` runs)

texts = json.loads(sys.stdin.read())
conversation = [
    {"role": "system", "content": "You count tokens."},
    {"role": "user", "content": texts[0][:400], "name": "reader"},
    {"role": "assistant", "content": texts[-1][:200]},
]


def attempt(call, *args):
    """What `call(*args)` returns, or the error it raises, as text (a
    library's error on a text with special tokens is an answer too)."""
    try:
        return call(*args)
    except Exception as error:  # noqa: BLE001  (whatever it is, both runs must raise it alike)
        return f"{type(error).__name__}: {error}"


def ttok_says(*args: str, text: str = "") -> list:
    """The command line's exit status and output for `args`, `text` on its standard input."""
    result = CliRunner().invoke(ttok, list(args), input=text)
    return [result.exit_code, result.output]


def split_by_tokens(**settings) -> list:
    splitter = TokenTextSplitter(**settings)
    return [attempt(splitter.split_text, text) for text in texts]


def split_recursively(**settings) -> list:
    splitter = RecursiveCharacterTextSplitter.from_tiktoken_encoder(**settings)
    return [attempt(splitter.split_text, text) for text in texts]


def chunked(name: str, chunk_size: int) -> list:
    chunker = semchunk.chunkerify(name, chunk_size)
    return [attempt(functools.partial(chunker, offsets=True), text) for text in texts]


answers = {
    "tiktoken is": sys.modules["tiktoken"].__name__,
    "langchain TokenTextSplitter": {
        "cl100k_base, 64 tokens, overlap 8": split_by_tokens(encoding_name="cl100k_base", chunk_size=64, chunk_overlap=8),
        "gpt-4o, 40 tokens": split_by_tokens(model_name="gpt-4o", chunk_size=40, chunk_overlap=0),
        "gpt2, 50 tokens, specials allowed": split_by_tokens(encoding_name="gpt2", chunk_size=50, chunk_overlap=5,
                                                            allowed_special="all"),
    },
    "langchain RecursiveCharacterTextSplitter.from_tiktoken_encoder": {
        "o200k_base, 100 tokens, overlap 20": split_recursively(encoding_name="o200k_base", chunk_size=100,
                                                                chunk_overlap=20),
        "gpt-3.5-turbo, 60 tokens": split_recursively(model_name="gpt-3.5-turbo", chunk_size=60, chunk_overlap=0),
    },
    "tokencost count_string_tokens": {
        model: [attempt(tokencost.count_string_tokens, text, model) for text in texts]
        for model in ("gpt-4o", "gpt-4", "gpt-3.5-turbo", "text-embedding-3-small", "o3-mini", "davinci", "no-such-model")
    },
    "tokencost count_message_tokens": {
        model: tokencost.count_message_tokens(conversation, model) for model in ("gpt-4o", "gpt-4-0613", "gpt-3.5-turbo")
    },
    "semchunk chunkerify": {"cl100k_base, 48 tokens": chunked("cl100k_base", 48), "gpt-4o, 24 tokens": chunked("gpt-4o", 24)},
    "ttok": {
        "count": [ttok_says(text=text) for text in texts],
        "count of arguments, gpt-4": ttok_says("-m", "gpt-4", "one", "two", "three"),
        "--encode": [ttok_says("--encode", text=text) for text in texts],
        "--encode -m gpt2": [ttok_says("--encode", "-m", "gpt2", text=text) for text in texts],
        "-t 10": [ttok_says("-t", "10", text=text) for text in texts],
        "--tokens": [ttok_says("--tokens", text=text) for text in texts],
        "--decode": ttok_says("--decode", "13225 2375 17 9 100257 9906"),
        "--decode --tokens": ttok_says("--decode", "--tokens", "13225 2375 17 9 100257 9906"),
        "a special token": ttok_says(text="say <|endoftext|> here"),
        "--allow-special": ttok_says("--allow-special", "--encode", text="say <|endoftext|> here"),
        "an unknown model": ttok_says("-m", "no-such-model", "text"),
        "--list-models": ttok_says("--list-models"),
    },
}
print(json.dumps(answers, ensure_ascii=False))
