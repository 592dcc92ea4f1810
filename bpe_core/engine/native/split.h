/* Pre-tokenization by hand: the preset split patterns as plain C.

   The presets (GPT-2's, cl100k's, o200k's, and the makers' variants of
   them) are fixed regular expressions. Read as a backtracking engine reads
   them, each alternative is a short rule about character classes ("a
   letter run, maybe after one symbol"), so a piece can be found by trying
   the rules in order, with no regex engine at all; see split.c.

   The text is UTF-8 (a Python string's, so valid); `split_next` returns
   where the piece starting at `start` ends. Pieces tile the text: the first
   starts at 0 and each next one where the last ended, until `length`. */

#ifndef BPE_SPLIT_H
#define BPE_SPLIT_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    SPLIT_GPT2,    /* GPT-2 and GPT-3 (r50k, p50k), Whisper */
    SPLIT_CL100K,  /* GPT-3.5 and GPT-4 */
    SPLIT_LLAMA3,  /* cl100k's words and numbers, o200k's whitespace */
    SPLIT_QWEN,    /* Llama 3's, one digit per piece */
    SPLIT_O200K,   /* GPT-4o, Llama 4 */
    SPLIT_TEKKEN,  /* o200k's without contractions, one digit per piece */
    SPLIT_WHOLE,   /* no pre-tokenization: the whole text is one piece */
    SPLIT_PATTERNS /* how many there are */
} split_pattern;

/* The end of the piece that starts at `start` (< length). */
size_t split_next(split_pattern pattern, const uint8_t *text, size_t length, size_t start);

/* The classes of a code point (bits below), as tiktoken's regex engine has
   them (Unicode 16.0; see unicode_classes.h). */
enum {
    CLASS_LETTER = 1,    /* \p{L} */
    CLASS_NUMBER = 2,    /* \p{N} */
    CLASS_SPACE = 4,     /* \s: White_Space */
    CLASS_MARK = 8,      /* \p{M} */
    CLASS_UPPER_RUN = 16, /* [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}] */
    CLASS_LOWER_RUN = 32  /* [\p{Ll}\p{Lm}\p{Lo}\p{M}] */
};
unsigned split_classes(uint32_t code_point);

/* The Unicode version those classes are from, e.g. "16.0.0". */
const char *split_unicode_version(void);

#endif
