"""bpe_core's plugin for tiktoken, installed as `tiktoken_ext.bpe_core` (see
bpe_core/tiktoken_bridge/plugin.py): the zoo's byte-level BPE and a user's
tokenizers by name in `tiktoken.get_encoding`."""

from bpe_core.tiktoken_bridge.plugin import ENCODING_CONSTRUCTORS

__all__ = ["ENCODING_CONSTRUCTORS"]
