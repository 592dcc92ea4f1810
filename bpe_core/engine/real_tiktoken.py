"""tiktoken's own `Encoding`, under a name of this package's own.

The engine encodes in C (`c_encoder`), but tiktoken's `Encoding` still
computes `encode_with_unstable` (tiktoken's own algorithm, see `tokenizer`),
and it is what `formats.to_tiktoken` and `vocabularies.openai.tiktoken_encoding`
hand out. bpe_core can stand in for tiktoken (`bpe_core.stand_in_for_tiktoken()`,
or `sys.modules["tiktoken"] = bpe_core`), and from then on `import tiktoken`
gives bpe_core itself: asking for tiktoken's `Encoding` by that name would
build bpe_core's, without end. So the real one is taken here once, when
bpe_core is imported and before anything can stand in for it, and the
package builds every tiktoken `Encoding` from `TiktokenEncoding`.
"""

from tiktoken.core import Encoding as TiktokenEncoding

__all__ = ["TiktokenEncoding"]
