"""Write unsettled.h: the code points whose split classes may differ
between split.c and the `regex` module that Python training splits with.

split.c classes characters by Unicode 16.0 (unicode_classes.h: tiktoken's
tables, which encoding must match). Training in Python splits with the
`regex` module, whose tables follow the newest Unicode (17.0 in regex
2026.5): there, a letter added since 16.0 is a letter, and in split.c it
is a symbol. Counting for training must give Python's counts exactly, so a
text holding such a character is counted by `regex` instead (see
count.c). "Unsettled" are: every code point unassigned in Unicode 16.0
(later versions assign only those), and the few assigned ones whose
category a later version changed (CHANGED_SINCE, found by
tests/test_native_counting.py, which compares every other code point's
classes with the installed `regex`).

    pip install unicodedata2==16.0.0
    python bpe_core/engine/native/make_unsettled_table.py > bpe_core/engine/native/unsettled.h
"""

import unicodedata2
from unicode_table_header import BLOCK, require_unicode_version, two_stages, write_header

# Assigned in 16.0, another category in a later version, and it matters to a split.
CHANGED_SINCE = {
    0x0295: "LATIN LETTER PHARYNGEAL VOICED FRICATIVE: Ll in 16.0, Lo in 17.0 (o200k's cased words)",
}


def unsettled(code_point: int) -> bool:
    return unicodedata2.category(chr(code_point)) == "Cn" or code_point in CHANGED_SINCE


def main() -> None:
    require_unicode_version()

    def bits_of(code_points: range) -> tuple[int, int]:  # one bit per code point, in two 64-bit halves
        bits = sum(unsettled(code_point) << (code_point - code_points.start) for code_point in code_points)
        return bits & (2**64 - 1), bits >> 64

    blocks, block_numbers = two_stages(bits_of)
    write_header(
        script="make_unsettled_table.py",
        guard="BPE_UNSETTLED_H",
        defines={"UNSETTLED_BLOCK": str(BLOCK)},
        block_array="unsettled_block",
        block_numbers=block_numbers,
        table_comment="Each distinct block: one bit per code point, set where it is unsettled.",
        table_declaration=f"static const uint64_t unsettled_bits[{len(blocks)}][2]",
        table_rows=(f"{{0x{low:016x}ull, 0x{high:016x}ull}}" for low, high in blocks),
    )


if __name__ == "__main__":
    main()
