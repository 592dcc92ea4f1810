"""Write unicode_classes.h: the character classes of the preset split patterns.

The presets ask of each character whether it is a letter (\\p{L}), a number
(\\p{N}), whitespace (\\s), a mark (\\p{M}), and, for o200k's words, whether
it may stand in an upper-case run ([\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]) or a
lower-case one ([\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]). The answers must be tiktoken's,
and tiktoken's regex engine carries Unicode 16.0's tables (regex-syntax
0.8.11, in tiktoken 0.14): a letter added in Unicode 17 is still "other"
there, and a run of newlines after it splits differently. So the general
categories come from `unicodedata2` pinned to 16.0.0 (pip install
unicodedata2==16.0.0), never from whatever Python's own `unicodedata` is,
and whitespace is Unicode's White_Space property (PropList.txt, unchanged
since 6.3). tests/test_native_encoding.py checks every code point against
tiktoken's own engine.

    python bpe_core/engine/native/make_unicode_classes.py > bpe_core/engine/native/unicode_classes.h
"""

import unicodedata2
from unicode_table_header import BLOCK, UNICODE_VERSION, require_unicode_version, two_stages, write_header

# PropList.txt, White_Space (Unicode 6.3 and later).
WHITE_SPACE = [*range(0x09, 0x0E), 0x20, 0x85, 0xA0, 0x1680, *range(0x2000, 0x200B), 0x2028, 0x2029, 0x202F, 0x205F, 0x3000]

# One bit per question, as split.h names them.
LETTER, NUMBER, SPACE, MARK, UPPER_RUN, LOWER_RUN = 1, 2, 4, 8, 16, 32


def classes_of(code_point: int) -> int:
    category = unicodedata2.category(chr(code_point))
    bits = 0
    if category[0] == "L":
        bits |= LETTER
    if category[0] == "N":
        bits |= NUMBER
    if category[0] == "M":
        bits |= MARK
    if category in ("Lu", "Lt", "Lm", "Lo") or category[0] == "M":
        bits |= UPPER_RUN
    if category in ("Ll", "Lm", "Lo") or category[0] == "M":
        bits |= LOWER_RUN
    if code_point in WHITE_SPACE:
        bits |= SPACE
    return bits


def main() -> None:
    require_unicode_version()
    blocks, block_numbers = two_stages(lambda code_points: bytes(map(classes_of, code_points)))
    write_header(
        script="make_unicode_classes.py",
        guard="BPE_UNICODE_CLASSES_H",
        defines={"UNICODE_CLASSES_VERSION": f'"{UNICODE_VERSION}"', "UNICODE_CLASSES_BLOCK": str(BLOCK)},
        block_array="unicode_class_block",
        block_numbers=block_numbers,
        table_comment="The classes of each code point of each distinct block.",
        table_declaration=f"static const uint8_t unicode_class_bits[{len(blocks)}][{BLOCK}]",
        table_rows=("{" + ",".join(map(str, values)) + "}" for values in blocks),
    )


if __name__ == "__main__":
    main()
