"""tiktoken's Rust BPE, which the fast engine runs on, under a name of this package's own.

bpe_core can stand in for tiktoken (`bpe_core.stand_in_for_tiktoken()`, or
`sys.modules["tiktoken"] = bpe_core`), and from then on `import tiktoken`
gives bpe_core itself: an engine that asked for tiktoken's `Encoding` by
that name would be building itself, without end. So the real tiktoken's
`Encoding` is taken here once, when bpe_core is imported and before
anything can stand in for it, and every fast engine in the package
(`tokenizer`, `piece_bpe`) and every real tiktoken `Encoding` it hands out
(`formats.to_tiktoken`, `vocabularies.openai.tiktoken_encoding`) is built
from `TiktokenEncoding`.
"""

from tiktoken.core import Encoding as TiktokenEncoding

__all__ = ["TiktokenEncoding"]
