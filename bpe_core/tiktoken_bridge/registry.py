"""`tiktoken.registry` when bpe_core stands in for tiktoken: an encoding by
its name, for every name the catalogue knows (OpenAI's and the zoo's), and
OpenAI's names as tiktoken lists them (`vocabularies.catalogue`)."""

from ..vocabularies.catalogue import get_encoding, list_encoding_names

__all__ = ["get_encoding", "list_encoding_names"]
