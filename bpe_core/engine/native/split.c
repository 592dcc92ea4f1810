/* Pre-tokenization by hand; see split.h.

   A regex alternation is tried left to right at the current position, and
   the first alternative that matches gives the piece (not the longest one).
   Every preset is built from the same five kinds of alternative, in this
   order, each differing a little from preset to preset:

     contractions  'll 're 's ...        (GPT-2: lower case; cl100k: any case)
     words         a letter run          (GPT-2: after an optional space;
                                          cl100k: after an optional symbol;
                                          o200k: cased, e.g. "Hello", "HTTP")
     numbers       a digit run           (GPT-2: after an optional space, any
                                          length; cl100k, o200k: 1 to 3 digits)
     symbols       a run of what is no letter, digit or space, after an
                   optional space        (cl100k: then line breaks; o200k:
                                          then line breaks and slashes)
     whitespace    \s+(?!\S) and friends (see `whitespace_end`)

   so a preset is a table row of those choices (`rules`), and each kind is a
   small function that returns where its match ends, or 0 when it has none
   (a match is never empty). The functions follow the backtracking the
   regex engine does; where that is subtle (o200k's cased words, the
   lookahead of \s+(?!\S)) the comment spells it out. */

#include "split.h"

#include <string.h>

#include "unicode_classes.h"

static inline unsigned classes_of(uint32_t code_point) {
    if (code_point >= 0x110000) {
        return 0;
    }
    return unicode_class_bits[unicode_class_block[code_point / UNICODE_CLASSES_BLOCK]][code_point % UNICODE_CLASSES_BLOCK];
}

unsigned split_classes(uint32_t code_point) { return classes_of(code_point); }

const char *split_unicode_version(void) { return UNICODE_CLASSES_VERSION; }

/* ------------------------------------------------------------ characters */

typedef struct {
    uint32_t code_point;
    unsigned size;    /* bytes; 0 past the end of the text */
    unsigned classes; /* CLASS_* bits */
} character;

/* The character at byte `at`. A byte that starts no valid UTF-8 sequence
   (not from a Python string, which is always valid) counts as one
   character of no class, a symbol. */
static inline character char_at(const uint8_t *text, size_t length, size_t at) {
    character c = {0, 0, 0};
    if (at >= length) {
        return c;
    }
    uint8_t first = text[at];
    if (first < 0x80) {
        c.code_point = first;
        c.size = 1;
    } else {
        unsigned size = first >= 0xF0 ? 4 : first >= 0xE0 ? 3 : first >= 0xC0 ? 2 : 0;
        if (size == 0 || first > 0xF4 || at + size > length) {
            c.code_point = 0xFFFFFFFF;
            c.size = 1;
            return c;
        }
        uint32_t code_point = first & (0x7F >> size);
        for (unsigned i = 1; i < size; i++) {
            uint8_t next = text[at + i];
            if ((next & 0xC0) != 0x80) {
                c.code_point = 0xFFFFFFFF;
                c.size = 1;
                return c;
            }
            code_point = (code_point << 6) | (next & 0x3F);
        }
        c.code_point = code_point;
        c.size = size;
    }
    c.classes = classes_of(c.code_point);
    return c;
}

static inline int is_line_break(character c) { return c.code_point == '\r' || c.code_point == '\n'; }

/* [^\s\p{L}\p{N}]: a symbol (punctuation, marks, emoji, controls, ...). */
static inline int is_symbol(character c) {
    return c.size && !(c.classes & (CLASS_LETTER | CLASS_NUMBER | CLASS_SPACE));
}

/* [^\r\n\p{L}\p{N}]: what may stand before a word (cl100k, o200k). */
static inline int may_lead_word(character c) {
    return c.size && !(c.classes & (CLASS_LETTER | CLASS_NUMBER)) && !is_line_break(c);
}

/* Where the run of characters having any of `classes` from `at` ends. */
static inline size_t run_end(const uint8_t *text, size_t length, size_t at, unsigned classes) {
    while (at < length) {
        if (text[at] < 0x80) { /* ASCII: the common case, without decoding */
            if (!(unicode_class_bits[0][text[at]] & classes)) { /* ASCII is the first block */
                break;
            }
            at++;
            continue;
        }
        character c = char_at(text, length, at);
        if (!(c.classes & classes)) {
            break;
        }
        at += c.size;
    }
    return at;
}

/* ------------------------------------------------------------ the rules */

enum { CONTRACTIONS_NONE, CONTRACTIONS_LOWER_CASE, CONTRACTIONS_ANY_CASE };
enum { WORDS_AFTER_SPACE, WORDS_AFTER_SYMBOL, WORDS_CASED };
enum { WHITESPACE_GPT2, WHITESPACE_CL100K, WHITESPACE_O200K };

typedef struct {
    int contractions;       /* a piece of their own, before words */
    int contraction_suffix; /* o200k: a contraction ends the word before it (any case) */
    int words;
    unsigned digits;        /* most digits in a number; 0: any number */
    int number_after_space; /* GPT-2: " 123" */
    const char *after_symbols; /* what a symbol run takes along after it */
    int whitespace;
} rules;

static const rules RULES[SPLIT_PATTERNS] = {
    /* '(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s */
    [SPLIT_GPT2] = {CONTRACTIONS_LOWER_CASE, 0, WORDS_AFTER_SPACE, 0, 1, "", WHITESPACE_GPT2},
    /* '(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s */
    [SPLIT_CL100K] = {CONTRACTIONS_ANY_CASE, 0, WORDS_AFTER_SYMBOL, 3, 0, "\r\n", WHITESPACE_CL100K},
    /* (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+ */
    [SPLIT_LLAMA3] = {CONTRACTIONS_ANY_CASE, 0, WORDS_AFTER_SYMBOL, 3, 0, "\r\n", WHITESPACE_O200K},
    /* the same with \p{N} */
    [SPLIT_QWEN] = {CONTRACTIONS_ANY_CASE, 0, WORDS_AFTER_SYMBOL, 1, 0, "\r\n", WHITESPACE_O200K},
    /* [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
       |[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
       |\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+ */
    [SPLIT_O200K] = {CONTRACTIONS_NONE, 1, WORDS_CASED, 3, 0, "\r\n/", WHITESPACE_O200K},
    /* o200k's without the contractions, and \p{N} */
    [SPLIT_TEKKEN] = {CONTRACTIONS_NONE, 0, WORDS_CASED, 1, 0, "\r\n/", WHITESPACE_O200K},
};

/* One letter of a contraction, `lower` or (any case) its other cases: the
   regex engine folds case by Unicode's simple folding, under which "s" is
   also U+017F LATIN SMALL LETTER LONG S. Bytes matched, or 0. */
static size_t contraction_letter(const uint8_t *text, size_t length, size_t at, char lower, int any_case) {
    if (at >= length) {
        return 0;
    }
    if (text[at] == (uint8_t)lower || (any_case && text[at] == (uint8_t)(lower - 32))) {
        return 1;
    }
    if (any_case && lower == 's' && at + 1 < length && text[at] == 0xC5 && text[at + 1] == 0xBF) {
        return 2;
    }
    return 0;
}

/* '(?:[sdmt]|ll|ve|re): bytes matched at `at`, or 0. */
static size_t contraction_length(const uint8_t *text, size_t length, size_t at, int any_case) {
    if (at >= length || text[at] != '\'') {
        return 0;
    }
    static const char singles[] = "sdmt";
    for (const char *letter = singles; *letter; letter++) {
        size_t size = contraction_letter(text, length, at + 1, *letter, any_case);
        if (size) {
            return 1 + size;
        }
    }
    static const char *const pairs[] = {"ll", "ve", "re"};
    for (int i = 0; i < 3; i++) {
        size_t first = contraction_letter(text, length, at + 1, pairs[i][0], any_case);
        if (first) {
            size_t second = contraction_letter(text, length, at + 1 + first, pairs[i][1], any_case);
            return second ? 1 + first + second : 0;
        }
    }
    return 0;
}

/* [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+ from `at`.

   The engine takes the whole upper-case run (U*), then wants a lower-case
   run (W+). If the character after the upper-case run is lower case, that
   run is the rest of the match. If not, it gives back the upper-case run's
   characters from the end, one by one, until one is also lower case (Lm,
   Lo or a mark are both): the match ends right after it, since the
   character after it was upper case only. With none, there is no match. */
static size_t cased_word_end(const uint8_t *text, size_t length, size_t at) {
    size_t position = at, after_last_lower = 0;
    for (;;) {
        character c = char_at(text, length, position);
        if (!(c.classes & CLASS_UPPER_RUN)) {
            if (c.classes & CLASS_LOWER_RUN) {
                return run_end(text, length, position, CLASS_LOWER_RUN);
            }
            return after_last_lower;
        }
        position += c.size;
        if (c.classes & CLASS_LOWER_RUN) {
            after_last_lower = position;
        }
    }
}

/* [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]* from `at`. */
static size_t upper_word_end(const uint8_t *text, size_t length, size_t at) {
    size_t upper_end = run_end(text, length, at, CLASS_UPPER_RUN);
    return upper_end == at ? 0 : run_end(text, length, upper_end, CLASS_LOWER_RUN);
}

static size_t word_end(const rules *r, const uint8_t *text, size_t length, size_t at) {
    character c = char_at(text, length, at);
    if (r->words == WORDS_CASED) {
        /* Each of o200k's two word alternatives, with its optional leading
           character, then without it. */
        size_t end = 0;
        int lead = may_lead_word(c);
        if (lead) {
            end = cased_word_end(text, length, at + c.size);
        }
        if (!end) {
            end = cased_word_end(text, length, at);
        }
        if (!end && lead) {
            end = upper_word_end(text, length, at + c.size);
        }
        if (!end) {
            end = upper_word_end(text, length, at);
        }
        if (end && r->contraction_suffix) {
            end += contraction_length(text, length, end, 1);
        }
        return end;
    }
    if (c.classes & CLASS_LETTER) {
        return run_end(text, length, at, CLASS_LETTER);
    }
    int lead = r->words == WORDS_AFTER_SPACE ? c.code_point == ' ' : may_lead_word(c);
    if (lead && (char_at(text, length, at + c.size).classes & CLASS_LETTER)) {
        return run_end(text, length, at + c.size, CLASS_LETTER);
    }
    return 0;
}

static size_t number_end(const rules *r, const uint8_t *text, size_t length, size_t at) {
    character c = char_at(text, length, at);
    if (r->number_after_space && c.code_point == ' ' && (char_at(text, length, at + 1).classes & CLASS_NUMBER)) {
        return run_end(text, length, at + 1, CLASS_NUMBER);
    }
    if (!(c.classes & CLASS_NUMBER)) {
        return 0;
    }
    if (!r->digits) {
        return run_end(text, length, at, CLASS_NUMBER);
    }
    size_t end = at;
    for (unsigned count = 0; count < r->digits && (c.classes & CLASS_NUMBER); count++) {
        end += c.size;
        c = char_at(text, length, end);
    }
    return end;
}

/* ` ?[^\s\p{L}\p{N}]+` and then any of `after_symbols`. */
static size_t symbols_end(const rules *r, const uint8_t *text, size_t length, size_t at) {
    character c = char_at(text, length, at);
    size_t start = at;
    if (c.code_point == ' ' && is_symbol(char_at(text, length, at + 1))) {
        start = at + 1;
    } else if (!is_symbol(c)) {
        return 0;
    }
    size_t end = start;
    for (character s = char_at(text, length, end); is_symbol(s); s = char_at(text, length, end)) {
        end += s.size;
    }
    while (end < length && text[end] && strchr(r->after_symbols, text[end])) {
        end++;
    }
    return end;
}

/* The whitespace alternatives, at a whitespace character. Let the run be
   the whitespace from `at` on.
   - \s++$ (GPT-2, cl100k): a run that ends the text is one piece.
   - \s*[\r\n] (cl100k) or \s*[\r\n]+ (o200k, Llama 3): a run with line breaks
     goes up to its last line break (the engine backtracks from the run's
     end to it; [\r\n]+ then takes it alone, as what follows is no break).
   - \s+(?!\S): a run that ends the text is one piece; otherwise the run but
     its last character (which the lookahead needs to see a space, not
     the word after it); if the run is one character, no match ...
   - \s or \s+: ... and that one character is the piece. */
static size_t whitespace_end(const rules *r, const uint8_t *text, size_t length, size_t at) {
    size_t end = at, last_start = at, after_last_break = 0, count = 0;
    for (character c = char_at(text, length, end); c.classes & CLASS_SPACE; c = char_at(text, length, end)) {
        last_start = end;
        end += c.size;
        count++;
        if (is_line_break(c)) {
            after_last_break = end;
        }
    }
    if (count == 0) {
        return 0;
    }
    int ends_text = end == length;
    if (ends_text && r->whitespace != WHITESPACE_O200K) {
        return end;
    }
    if (after_last_break && r->whitespace != WHITESPACE_GPT2) {
        return after_last_break;
    }
    if (ends_text) {
        return end;
    }
    return count >= 2 ? last_start : end;
}

size_t split_next(split_pattern pattern, const uint8_t *text, size_t length, size_t start) {
    if (pattern == SPLIT_WHOLE || start >= length) {
        return length;
    }
    const rules *r = &RULES[pattern];
    size_t end = 0;
    if (r->contractions != CONTRACTIONS_NONE) {
        size_t size = contraction_length(text, length, start, r->contractions == CONTRACTIONS_ANY_CASE);
        if (size) {
            return start + size;
        }
    }
    if ((end = word_end(r, text, length, start)) || (end = number_end(r, text, length, start)) ||
        (end = symbols_end(r, text, length, start)) || (end = whitespace_end(r, text, length, start))) {
        return end;
    }
    /* Unreachable: every character is a letter, number, symbol or space. */
    return start + char_at(text, length, start).size;
}
