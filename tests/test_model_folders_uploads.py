"""What a visitor's model folder sends the server from the capped process
that reads it: its tokenizer_config.json only as far as the server reads it
(the special tokens a chat template sees by name), however large the file."""

import json
import pickle

import pytest

from bpe_core.formats.reading import TokenizerFileError
from bpe_core.jobs.budgeted_reading import folder_from_upload
from bpe_core.vocabularies.chat_templates import template_variables
from bpe_core.vocabularies.zoo import GEMMA3_CONFIG

TOKENIZER = b'{"model": {"type": "BPE", "vocab": {}, "merges": []}}'


def test_a_makers_config_arrives_as_the_names_its_template_sees():
    config = json.loads(GEMMA3_CONFIG.read())  # 1.2 MB: 6,415 added tokens, the chat template, ...
    folder = folder_from_upload("gemma", {"tokenizer.json": TOKENIZER, "tokenizer_config.json": GEMMA3_CONFIG.read()})
    assert template_variables(folder.config) == template_variables(config)
    assert {"boi_token", "bos_token", "eos_token"} <= set(template_variables(folder.config))
    assert folder.chat_template == config["chat_template"]
    assert len(pickle.dumps(folder.config)) < 1_000


def test_a_config_of_a_great_many_lists_is_not_rebuilt_in_the_server():
    bomb = b'{"a": [' + b",".join([b"[]"] * 300_000) + b'], "bos_token": "<s>"}'  # 0.9 MB (5 MB may hold 1.6 million)
    folder = folder_from_upload("bomb", {"tokenizer.json": TOKENIZER, "tokenizer_config.json": bomb})
    assert folder.config == {"bos_token": "<s>"}


def test_a_config_that_names_more_tokens_than_a_template_could_use_is_one_line():
    names = {f"token_{number}": f"<{number}>" for number in range(1_001)}
    config = json.dumps({"extra_special_tokens": names}).encode()
    with pytest.raises(TokenizerFileError, match="names 1,001 special tokens; a chat template here sees at most 1,000"):
        folder_from_upload("many", {"tokenizer.json": TOKENIZER, "tokenizer_config.json": config})
