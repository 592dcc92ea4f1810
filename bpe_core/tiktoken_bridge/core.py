"""`tiktoken.core` when bpe_core stands in for tiktoken: its `Encoding`, the
constructor over ranks of one's own, in this engine (`engine.encoding`)."""

from ..engine.encoding import Encoding

__all__ = ["Encoding"]
