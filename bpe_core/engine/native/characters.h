/* Characters of valid UTF-8 text, as the C splitters and counters read them,
 * and whether `regex` might class one otherwise than split.c does
 * (unsettled.h): text holding such a character is left to Python. One copy
 * for count.c and research.c, which are built into different extensions. */
#ifndef BPE_CHARACTERS_H
#define BPE_CHARACTERS_H

#include <stddef.h>
#include <stdint.h>

#include "unsettled.h"

/* The code point of the valid UTF-8 character at `at`. */
static inline uint32_t code_point_at(const unsigned char *text, size_t at) {
    unsigned char first = text[at];
    if (first < 0x80) return first;
    if (first < 0xE0) return (uint32_t)(first & 0x1F) << 6 | (text[at + 1] & 0x3F);
    if (first < 0xF0) return (uint32_t)(first & 0x0F) << 12 | (uint32_t)(text[at + 1] & 0x3F) << 6 | (text[at + 2] & 0x3F);
    return (uint32_t)(first & 0x07) << 18 | (uint32_t)(text[at + 1] & 0x3F) << 12 | (uint32_t)(text[at + 2] & 0x3F) << 6 |
           (text[at + 3] & 0x3F);
}

/* Whether split.c may class the code point otherwise than `regex` (unsettled.h). */
static inline int unsettled(uint32_t code_point) {
    const uint64_t *bits = unsettled_bits[unsettled_block[code_point / UNSETTLED_BLOCK]];
    unsigned within = code_point % UNSETTLED_BLOCK;
    return bits[within / 64] >> (within % 64) & 1;
}

/* Whether the valid UTF-8 text holds an unsettled code point. */
static inline int holds_unsettled(const unsigned char *text, size_t length) {
    for (size_t at = 0; at < length; at++) {
        if (text[at] >= 0xC0 && unsettled(code_point_at(text, at))) return 1; /* a character's first byte */
    }
    return 0;
}

#endif
