"""`tiktoken.model` when bpe_core stands in for tiktoken: which encoding each
OpenAI model uses, by tiktoken's two tables (`vocabularies.openai`), and
that encoding (`vocabularies.catalogue`)."""

from ..vocabularies.catalogue import encoding_for_model, encoding_name_for_model
from ..vocabularies.openai import MODEL_PREFIX_TO_ENCODING, MODEL_TO_ENCODING

__all__ = ["MODEL_PREFIX_TO_ENCODING", "MODEL_TO_ENCODING", "encoding_for_model", "encoding_name_for_model"]
