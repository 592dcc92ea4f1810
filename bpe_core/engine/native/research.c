/* The research algorithms' training loops in C (the extension module
 * bpe_core.algorithms._native_research), step for step as
 * bpe_core/algorithms/superbpe.py, boundless.py and picky.py learn them,
 * which stay the readable versions: SuperBPE's second stage (its split and
 * its merges), BoundlessBPE whole (splitting, merges and supermerges), and
 * Picky BPE's merges with its removals.
 *
 * All run on learn.c's merge state (the deduplicated corpus as positions,
 * live pair counts, the lazy heap; learn.h says what it holds), one copy of
 * that algorithm for plain BPE and these. What the algorithms add to plain
 * BPE: a rule that may refuse the best pair (best_pair's `allowed`,
 * MergeState.best_pair with `allowed`), where a refused pair leaves the
 * heap and BoundlessBPE offers some again later (`reconsider`); and Picky
 * BPE's removal, the reverse of a merge (`split`, MergeState.split).
 *
 * The heap breaks ties between equally frequent pairs by their first
 * position, as Python's does; no two live pairs share one, so the pairs'
 * numbers here and their tuples there never decide anything. So the merges,
 * their order and counts come out the same as in Python
 * (tests/test_native_research.py holds the two equal). An input these loops
 * cannot handle exactly gives None, and Python trains instead.
 */
#include "learn.h"

#include <stdlib.h>
#include <string.h>

#include "bpe.h"
#include "split.h"
#include "characters.h"
#include "siphash.h"

/* ---- tokens as bytes, and tables of byte strings ---- */

/* What each token id stands for: its bytes, each token in a block of its own
 * (so that tables may keep pointers to them). */
typedef struct {
    uint8_t **bytes;
    int32_t *length;
    int64_t size, bytes_capacity, length_capacity;
} Vocabulary;

static int add_token(Vocabulary *vocabulary, const uint8_t *left, int32_t left_length, const uint8_t *right,
                     int32_t right_length) {
    uint8_t *joined = malloc((size_t)left_length + (size_t)right_length + 1);
    if (joined == NULL ||
        grow((void **)&vocabulary->bytes, &vocabulary->bytes_capacity, vocabulary->size + 1, sizeof(uint8_t *)) ||
        grow((void **)&vocabulary->length, &vocabulary->length_capacity, vocabulary->size + 1, sizeof(int32_t))) {
        free(joined);
        return -1;
    }
    memcpy(joined, left, (size_t)left_length);
    if (right_length > 0) memcpy(joined + left_length, right, (size_t)right_length);
    vocabulary->bytes[vocabulary->size] = joined;
    vocabulary->length[vocabulary->size++] = left_length + right_length;
    return 0;
}

static void free_vocabulary(Vocabulary *vocabulary) {
    for (int64_t id = 0; id < vocabulary->size; id++) free(vocabulary->bytes[id]);
    free(vocabulary->bytes);
    free(vocabulary->length);
}

/* A set of byte strings (kept elsewhere, unchanged while the table lives),
 * each with a number: open addressing, at most half full. */
typedef struct {
    const uint8_t *bytes;
    int64_t length; /* -1 where the slot is free */
    uint64_t hash;
    int32_t value;
} ByteSlot;

typedef struct {
    ByteSlot *slots;
    uint64_t size, used;
} ByteTable;

/* A string's place in these tables is siphash.h's hash_bytes, under the
 * module's key (native_research.py draws it as it imports this module). A
 * table numbers its strings in order of first appearance, so nothing
 * learned depends on the key. */

/* The slot of `bytes`, or the free slot where it goes. */
static ByteSlot *find_slot_of(const ByteTable *table, uint64_t hash, const uint8_t *bytes, int64_t length) {
    for (uint64_t slot = hash & (table->size - 1);; slot = (slot + 1) & (table->size - 1)) {
        ByteSlot *at = &table->slots[slot];
        if (at->length < 0) return at;
        if (at->hash == hash && at->length == length && memcmp(at->bytes, bytes, (size_t)length) == 0) return at;
    }
}

static int start_table(ByteTable *table) {
    keep_hash_key();
    table->size = 1024;
    table->used = 0;
    table->slots = malloc(table->size * sizeof(ByteSlot));
    if (table->slots == NULL) return -1;
    for (uint64_t slot = 0; slot < table->size; slot++) table->slots[slot].length = -1;
    return 0;
}

/* The number of `bytes`, or -1 if the table has none. */
static int32_t table_get(const ByteTable *table, const uint8_t *bytes, int64_t length) {
    ByteSlot *slot = find_slot_of(table, hash_bytes(bytes, length), bytes, length);
    return slot->length < 0 ? -1 : slot->value;
}

/* Puts `bytes` in the table with the number `value`, unless it is there;
 * returns its number, or -1 out of memory. */
static int32_t table_put(ByteTable *table, const uint8_t *bytes, int64_t length, int32_t value) {
    uint64_t hash = hash_bytes(bytes, length);
    ByteSlot *slot = find_slot_of(table, hash, bytes, length);
    if (slot->length >= 0) return slot->value;
    if (2 * (table->used + 1) > table->size) {
        ByteTable larger = {malloc(2 * table->size * sizeof(ByteSlot)), 2 * table->size, table->used};
        if (larger.slots == NULL) return -1;
        for (uint64_t index = 0; index < larger.size; index++) larger.slots[index].length = -1;
        for (uint64_t index = 0; index < table->size; index++) {
            ByteSlot *old = &table->slots[index];
            if (old->length >= 0) *find_slot_of(&larger, old->hash, old->bytes, old->length) = *old;
        }
        free(table->slots);
        *table = larger;
        slot = find_slot_of(table, hash, bytes, length);
    }
    *slot = (ByteSlot){bytes, length, hash, value};
    table->used++;
    return value;
}

/* ---- choosing pairs under a rule (learn.c's best_pair) ---- */

/* Offer a pair the rule refused again, if it still occurs (MergeState.reconsider). */
static int reconsider(State *s, int32_t pair) {
    return s->pairs[pair].count > 0 ? heap_push(s, pair, first_position(s, pair)) : 0;
}

/* A list of Python bytes as a Vocabulary. */
static int read_vocabulary(Vocabulary *vocabulary, PyObject *tokens) {
    for (Py_ssize_t id = 0; id < PyList_GET_SIZE(tokens); id++) {
        PyObject *token = PyList_GET_ITEM(tokens, id);
        if (!PyBytes_Check(token)) {
            PyErr_SetString(PyExc_TypeError, "tokens must be bytes");
            return -1;
        }
        if (add_token(vocabulary, (const uint8_t *)PyBytes_AS_STRING(token), (int32_t)PyBytes_GET_SIZE(token), NULL, 0)) {
            PyErr_NoMemory();
            return -1;
        }
    }
    return 0;
}

/* The stage-2 pieces ({piece: count}) in the state, each as
 * Tokenizer.encode_ordinary gives it with the stage-1 vocabulary: split with
 * the preset `pattern`, and each part by tiktoken's algorithm over the
 * tokens' ranks (their ids, the lowest where two share bytes): the C
 * encoder's own code (bpe.c), on the pieces' UTF-8 laid one after another,
 * so that one cache serves them all. Returns -1 with an exception set, 1
 * for pieces beyond what learn.c handles exactly, 0 when done. */
static int encode_pieces(State *s, PyObject *pieces, split_pattern pattern, const Vocabulary *vocabulary) {
    ByteTable seen = {0};
    const uint8_t **token = malloc((size_t)vocabulary->size * sizeof(uint8_t *));
    size_t *length = malloc((size_t)vocabulary->size * sizeof(size_t)), count = 0;
    bpe_rank *rank = malloc((size_t)vocabulary->size * sizeof(bpe_rank));
    bpe_ranks ranks;
    int has_ranks = 0, outcome = token == NULL || length == NULL || rank == NULL || start_table(&seen) ? -1 : 0;
    for (int64_t id = 0; id < vocabulary->size && outcome == 0; id++) {
        int32_t first = table_put(&seen, vocabulary->bytes[id], vocabulary->length[id], (int32_t)id);
        if (first < 0) outcome = -1;
        if (first != id) continue; /* a token made twice: encoding finds the first */
        token[count] = vocabulary->bytes[id], length[count] = (size_t)vocabulary->length[id], rank[count++] = (bpe_rank)id;
    }
    if (outcome == 0 && !(has_ranks = bpe_ranks_init(&ranks, count, token, length, rank) == 0)) outcome = -1;
    uint8_t *text = NULL;
    int64_t text_size = 0, text_capacity = 0, *ends = NULL, ends_capacity = 0, *weights = NULL, weights_capacity = 0, size = 0;
    Py_ssize_t cursor = 0;
    PyObject *piece, *weight_object;
    while (outcome == 0 && PyDict_Next(pieces, &cursor, &piece, &weight_object)) {
        Py_ssize_t piece_size;
        int overflow = 0;
        const char *utf8 = PyUnicode_Check(piece) ? PyUnicode_AsUTF8AndSize(piece, &piece_size) : NULL;
        long long weight = PyLong_Check(weight_object) ? PyLong_AsLongLongAndOverflow(weight_object, &overflow) : 0;
        if (utf8 == NULL || PyErr_Occurred()) {
            outcome = PyErr_Occurred() ? -1 : 1;
        } else if (overflow || weight < 1) {
            outcome = 1;
        } else if (grow((void **)&text, &text_capacity, text_size + piece_size, 1) ||
                   grow((void **)&ends, &ends_capacity, size + 1, sizeof(int64_t)) ||
                   grow((void **)&weights, &weights_capacity, size + 1, sizeof(int64_t))) {
            outcome = -1;
        } else {
            memcpy(text + text_size, utf8, (size_t)piece_size);
            text_size += piece_size;
            ends[size] = text_size, weights[size++] = weight;
        }
    }
    bpe_cache cache = {0};
    bpe_tokens out = {0};
    int64_t room = 0;
    for (int64_t index = 0, start = 0; index < size && outcome == 0; start = ends[index++]) {
        size_t first = out.size;
        int status = bpe_encode_text(&ranks, pattern, text, (size_t)start, (size_t)ends[index], &cache, &out);
        outcome = status == -1 ? -1 : status ? 1 : add_units(s, &room, (const int32_t *)(out.ids + first), (int64_t)(out.size - first), weights[index]);
    }
    if (outcome == -1 && !PyErr_Occurred()) PyErr_NoMemory();
    bpe_tokens_free(&out);
    bpe_cache_free(&cache);
    if (has_ranks) bpe_ranks_free(&ranks);
    free(seen.slots);
    free(token);
    free(length);
    free(rank);
    free(text);
    free(ends);
    free(weights);
    return outcome;
}

/* Rows of int64, `width` a step, as bytes for memoryview(...).cast("q"). */
typedef struct {
    int64_t *at;
    int64_t size, capacity;
} Rows;

static int64_t *new_row(Rows *rows, int width) {
    if (grow((void **)&rows->at, &rows->capacity, rows->size + width, sizeof(int64_t))) return NULL;
    rows->size += width;
    return &rows->at[rows->size - width];
}

/* Python bytes of `size` bytes at `data` (NULL when there are none). */
static PyObject *as_bytes(const void *data, int64_t size) {
    return PyBytes_FromStringAndSize(size ? data : "", (Py_ssize_t)size);
}

/* Calls progress(done, total); -1 if it raised (the caller stops the job so). */
static int report(PyObject *progress, int64_t done, int64_t total) {
    if (progress == Py_None) return 0;
    PyObject *heard = PyObject_CallFunction(progress, "LL", (long long)done, (long long)total);
    Py_XDECREF(heard);
    return heard == NULL ? -1 : 0;
}

static int read_deadline(PyObject *deadline_object, int *has_deadline, double *deadline) {
    *has_deadline = deadline_object != Py_None;
    *deadline = *has_deadline ? PyFloat_AsDouble(deadline_object) : 0.0;
    return *has_deadline && PyErr_Occurred() ? -1 : 0;
}

/* ---- characters ---- */

/* The classes of the code point at `at` of valid UTF-8 text, and its size. */
static unsigned classes_at(const uint8_t *text, int64_t at, int *size, uint32_t *code_point) {
    uint8_t first = text[at];
    *size = first < 0x80 ? 1 : first < 0xE0 ? 2 : first < 0xF0 ? 3 : 4;
    *code_point = code_point_at(text, (size_t)at);
    return split_classes(*code_point);
}

/* learn.c's count_pairs, for a long corpus that repeats little (SuperBPE's
 * second stage: its pieces are whole phrases, rarely seen twice; the runs
 * of BoundlessBPE's pretokens, likewise): the same
 * pairs, numbered in order of first appearance, with the same positions and
 * counts, found by sorting the positions by pair instead of looking each up
 * in a hash table, whose slots a corpus of millions of distinct pairs
 * visits at random. With `places_later`, a pair seen once gets no positions
 * yet (see learn.c's place_the_once_seen). */
static int count_pairs_by_sorting(State *s, int places_later) {
    int64_t found = 0, groups = 0, largest_id = 0;
    for (int32_t position = 0; position < s->positions; position++) {
        if (s->at[position].token > largest_id) largest_id = s->at[position].token;
    }
    int bits = 1;
    while ((uint64_t)1 << bits <= (uint64_t)largest_id) bits++;
    if (31 + 2 * bits > 64) return count_pairs(s); /* ids beyond 2^16: a key would not fit in 64 bits */
    s->unplaced_once_seen = places_later;
    size_t room = (size_t)s->positions + 1; /* + 1: never malloc(0), which may give NULL */
    uint64_t *keys = malloc(room * sizeof(uint64_t)), *sorted = malloc(room * sizeof(uint64_t));
    int32_t *group_of = malloc(room * sizeof(int32_t)); /* each position's pair, as a group of the sorted keys */
    int32_t *number_of = NULL; /* each group's pair number, once its first position is met */
    int failed = keys == NULL || sorted == NULL || group_of == NULL;
    /* Each pair's key: (left, right, position), so that sorting keeps positions ascending within a pair. */
    for (int32_t position = 0; position < s->positions && !failed; position++) {
        int32_t right = next_of(s, position);
        group_of[position] = -1;
        if (right == UNLINKED) continue;
        keys[found++] = ((uint64_t)s->at[position].token << bits | (uint64_t)s->at[right].token) << 31 | (uint64_t)position;
    }
    /* Least significant digit first, over the pair's bits (the positions are in order already): two
     * passes of up to 13 bits for up to 8,192 ids, else passes of 11 bits. */
    int width = 2 * bits <= 26 ? (2 * bits + 1) / 2 : 11;
    uint64_t mask = ((uint64_t)1 << width) - 1;
    int64_t *starts = malloc((mask + 2) * sizeof(int64_t));
    failed = failed || starts == NULL;
    for (int shift = 31; shift < 31 + 2 * bits && !failed; shift += width) {
        memset(starts, 0, (mask + 2) * sizeof(int64_t));
        for (int64_t index = 0; index < found; index++) starts[(keys[index] >> shift & mask) + 1]++;
        for (uint64_t digit = 0; digit < mask + 1; digit++) starts[digit + 1] += starts[digit];
        for (int64_t index = 0; index < found; index++) sorted[starts[keys[index] >> shift & mask]++] = keys[index];
        uint64_t *swap = keys;
        keys = sorted;
        sorted = swap;
    }
    free(starts);
    /* Equal pairs lie together now: each run of them is a group; `sorted` keeps each group's pair. */
    for (int64_t index = 0; index < found && !failed; index++) {
        if (index > 0 && keys[index] >> 31 != keys[index - 1] >> 31) groups++;
        group_of[keys[index] & INT32_MAX] = (int32_t)groups;
        sorted[groups] = keys[index] >> 31;
    }
    groups += found > 0;
    failed = failed || (number_of = malloc((size_t)(groups + 1) * sizeof(int32_t))) == NULL;
    for (int64_t group = 0; group < groups && !failed; group++) number_of[group] = NO_PAIR;
    /* Through the corpus in order: pairs numbered as they first appear, counted, their positions kept ascending. */
    uint64_t right_mask = ((uint64_t)1 << bits) - 1;
    for (int32_t position = 0; position < s->positions && !failed; position++) {
        int32_t group = group_of[position];
        if (group < 0) continue;
        if (number_of[group] == NO_PAIR &&
            (number_of[group] = new_pair(s, (int32_t)(sorted[group] >> bits), (int32_t)(sorted[group] & right_mask))) == NO_PAIR) {
            failed = 1;
            break;
        }
        s->at[position].pair = number_of[group];
        s->pairs[number_of[group]].count += s->weights[s->at[position].piece];
    }
    /* Each group's positions, ascending in the sorted keys already: copied into one array of the room
     * append_position expects (capacity), not appended one by one. */
    for (int64_t first = 0, group = 0, end; first < found && !failed; first = end, group++) {
        for (end = first + 1; end < found && keys[end] >> 31 == keys[first] >> 31; end++) continue;
        Positions *where = &s->pairs[number_of[group]].where;
        if (places_later && s->pairs[number_of[group]].count == 1) continue; /* see learn.c's place_the_once_seen */
        if ((where->at = malloc((size_t)capacity((int32_t)(end - first)) * sizeof(int32_t))) == NULL) {
            failed = 1;
            break;
        }
        for (int64_t index = first; index < end; index++) where->at[where->size++] = (int32_t)(keys[index] & INT32_MAX);
    }
    free(keys);
    free(sorted);
    free(group_of);
    free(number_of);
    s->seen_once = malloc(sizeof(int32_t)); /* not NULL: the once-seen wait */
    failed |= s->seen_once == NULL;
    for (int32_t number = 0; number < s->pair_count && !failed; number++) failed = offer(s, number);
    return failed ? -1 : 0;
}

/* ---- SuperBPE's second stage ---- */

#define MAX_WORDS 4

/* superbpe.allowed_superword on the pair's token: no ": " in it, and at
 * most four words (runs of bytes other than a space). */
static int allowed_superword(void *context, State *s, int32_t pair) {
    const Vocabulary *vocabulary = context;
    int32_t ids[2] = {s->pairs[pair].left, s->pairs[pair].right};
    int words = 0, after_space = 1, after_colon = 0;
    for (int side = 0; side < 2; side++) {
        const uint8_t *bytes = vocabulary->bytes[ids[side]];
        for (int32_t index = 0; index < vocabulary->length[ids[side]]; index++) {
            if (bytes[index] == ' ') {
                if (after_colon) return 0;
                after_space = 1;
            } else {
                words += after_space;
                after_space = 0;
            }
            after_colon = bytes[index] == ':';
        }
    }
    return words <= MAX_WORDS;
}

const char research_superword_merges_doc[] =
    "superword_merges(pieces, pattern, tokens, num_merges, deadline, progress, report_every)\n"
    "--\n\n"
    "SuperBPE's second stage: merge_learning.learn_merges over `pieces` ({piece:\n"
    "count}, in order of first appearance), each encoded with the stage-1\n"
    "`tokens` (bytes, by id) and its split `pattern` (a SPLIT_ number of\n"
    "_native_training) as Tokenizer.encode_ordinary encodes it, with\n"
    "superbpe.allowed_superword as its rule; merge k gets id len(tokens) + k.\n"
    "Returns (steps, stop): steps\n"
    "bytes of four 64-bit integers a merge (left, right, count, corpus tokens\n"
    "after), stop 0 (all learned), 1 (the deadline passed) or 2 (no pair left).\n"
    "None for pieces it cannot learn from exactly.";

static PyObject *research_superword_merges(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *pieces, *tokens, *deadline_object, *progress;
    int pattern;
    long long num_merges, report_every;
    if (!PyArg_ParseTuple(args, "O!iO!LOOL:superword_merges", &PyDict_Type, &pieces, &pattern, &PyList_Type, &tokens,
                          &num_merges, &deadline_object, &progress, &report_every)) {
        return NULL;
    }
    int has_deadline;
    double deadline;
    if (read_deadline(deadline_object, &has_deadline, &deadline)) return NULL;
    int64_t base_size = PyList_GET_SIZE(tokens);
    if (pattern < 0 || pattern >= SPLIT_PATTERNS || num_merges < 0 || report_every < 1 || base_size + num_merges >= INT32_MAX) {
        Py_RETURN_NONE;
    }

    State s;
    memset(&s, 0, sizeof s);
    Vocabulary vocabulary = {0};
    Rows rows = {0};
    PyObject *result = NULL;
    int stop = STOP_DONE, failed = 0, outcome = read_vocabulary(&vocabulary, tokens) ? -1 : 0;
    if (outcome == 0) outcome = encode_pieces(&s, pieces, (split_pattern)pattern, &vocabulary);
    if (outcome == 0) { /* from here on, C alone: other threads run meanwhile, until a report */
        Py_BEGIN_ALLOW_THREADS
        failed = cover_ids(&s, base_size) || count_pairs_by_sorting(&s, 1);
        Py_END_ALLOW_THREADS
        if (failed) PyErr_NoMemory();
    }
    int64_t step = 0;
    while (outcome == 0 && !failed && stop == STOP_DONE && step < num_merges) {
        int64_t until = (step / report_every + 1) * report_every;
        if (until > num_merges) until = num_merges;
        Py_BEGIN_ALLOW_THREADS
        for (; step < until; step++) {
            if (has_deadline && monotonic_seconds() > deadline) {
                stop = STOP_DEADLINE;
                break;
            }
            int32_t best = best_pair(&s, allowed_superword, &vocabulary);
            if (best == NO_PAIR) {
                stop = STOP_NO_PAIR;
                break;
            }
            Pair pair = s.pairs[best];
            int64_t *row = best == -2 ? NULL : new_row(&rows, 4);
            failed = row == NULL || merge(&s, best, (int32_t)(base_size + step)) ||
                     add_token(&vocabulary, vocabulary.bytes[pair.left], vocabulary.length[pair.left],
                               vocabulary.bytes[pair.right], vocabulary.length[pair.right]);
            if (failed) break;
            row[0] = pair.left, row[1] = pair.right, row[2] = pair.count, row[3] = s.corpus_tokens;
        }
        Py_END_ALLOW_THREADS
        if (failed) PyErr_NoMemory();
        else if (stop == STOP_DONE && step % report_every == 0) failed = report(progress, step, num_merges);
    }
    if (outcome == 0 && !failed) {
        PyObject *steps = PyBytes_FromStringAndSize((const char *)rows.at, (Py_ssize_t)(rows.size * sizeof(int64_t)));
        if (steps != NULL) result = Py_BuildValue("(Ni)", steps, stop);
    }
    free(rows.at);
    free_vocabulary(&vocabulary);
    free_state(&s);
    if (outcome == 1) Py_RETURN_NONE;
    return result;
}


/* The character classes of patterns.SUPERWORD_PATTERN at `at`, for a text
 * of `length` bytes: -1 past its end. */
enum { SYMBOL = 1, BLANK = 2, OTHER_SPACE = 4, LETTER = 8, NUMBER = 16 }; /* BLANK: " " */

static int kind_of(uint32_t code_point) {
    unsigned classes = split_classes(code_point);
    if (code_point == ' ') return BLANK;
    if (classes & CLASS_SPACE) return OTHER_SPACE;
    return classes & CLASS_LETTER ? LETTER : classes & CLASS_NUMBER ? NUMBER : SYMBOL;
}

/* kind_of each ASCII character, looked up: most of a text is ASCII, and
 * superword_end asks for most characters' kind twice or more. */
static uint8_t ascii_kinds[128];

static void fill_ascii_kinds(void) {
    for (uint32_t code_point = 0; code_point < 128; code_point++) ascii_kinds[code_point] = (uint8_t)kind_of(code_point);
}

static inline int kind_at(const uint8_t *text, int64_t length, int64_t at, int *size) {
    uint32_t code_point;
    if (at >= length) return *size = 0, -1;
    if (text[at] < 0x80) return *size = 1, ascii_kinds[text[at]];
    classes_at(text, at, size, &code_point);
    return kind_of(code_point);
}

/* Where the run of characters of `kinds` from `at` ends, and how many it holds. */
static int64_t run_end(const uint8_t *text, int64_t length, int64_t at, int kinds, int64_t *count) {
    int size;
    for (*count = 0; at < length && kind_at(text, length, at, &size) & kinds; at += size) ++*count;
    return at;
}

/* The end of the superword piece that starts at `start` (findall of
 * SUPERWORD_PATTERN: its alternatives in order, as a backtracking engine
 * takes them), or `start` where none matches there. */
static int64_t superword_end(const uint8_t *text, int64_t length, int64_t start) {
    int size, next_size, kind = kind_at(text, length, start, &size);
    int64_t count, at;
    if (kind == NUMBER) { /* \p{N}{1,3} */
        for (at = start, count = 0; count < 3 && kind_at(text, length, at, &size) == NUMBER; count++) at += size;
        return at;
    }
    /* " ?[^\s\p{L}\p{N}]{2,}[\r\n/]*" */
    at = run_end(text, length, kind == BLANK ? start + 1 : start, SYMBOL, &count);
    if (count >= 2) {
        while (at < length && (text[at] == '\r' || text[at] == '\n' || text[at] == '/')) at++;
        return at;
    }
    if (kind == BLANK) { /* " +(?!\S)": all the spaces before whitespace or the end, else all but the last */
        at = run_end(text, length, start, BLANK, &count);
        int after = kind_at(text, length, at, &size);
        if (after < 0 || after == OTHER_SPACE) return at;
        if (count >= 2) return at - 1;
    }
    /* "(?:\p{L}+|[^\S ]|[^\s\p{L}\p{N}](?![^\s\p{L}\p{N}])| (?=\S)(?![^\s\p{L}\p{N}]{2}))+" */
    for (at = start; at < length; at += size) {
        kind = kind_at(text, length, at, &size);
        int next = kind_at(text, length, at + size, &next_size);
        if (kind == LETTER || kind == OTHER_SPACE || (kind == SYMBOL && next != SYMBOL)) continue;
        if (kind == BLANK && next > 0 && next != BLANK && next != OTHER_SPACE &&
            !(next == SYMBOL && kind_at(text, length, at + size + next_size, &next_size) == SYMBOL)) {
            continue;
        }
        break;
    }
    return at;
}

const char research_superword_pieces_doc[] =
    "superword_pieces(segments)\n"
    "--\n\n"
    "The pieces of the str `segments` (a text's, between its special tokens)\n"
    "split as regex.findall(patterns.SUPERWORD_PATTERN, ...) splits them, with\n"
    "their counts, in order of first appearance: corpus.count_pieces with\n"
    "SuperBPE's second-stage split. None for a text holding a character split.c's\n"
    "tables may class otherwise than `regex` (unsettled.h).";

static PyObject *research_superword_pieces(PyObject *module, PyObject *segments) {
    (void)module;
    if (!PyList_Check(segments)) {
        PyErr_SetString(PyExc_TypeError, "segments must be a list of str");
        return NULL;
    }
    ByteTable table = {0};
    int64_t *counts = NULL, counts_capacity = 0;
    int32_t pieces = 0;
    int outcome = start_table(&table);
    for (Py_ssize_t index = 0; index < PyList_GET_SIZE(segments) && outcome == 0; index++) {
        Py_ssize_t length;
        const uint8_t *text = (const uint8_t *)PyUnicode_AsUTF8AndSize(PyList_GET_ITEM(segments, index), &length);
        if (text == NULL) {
            outcome = -2;
            break;
        }
        if (holds_unsettled(text, (size_t)length)) outcome = 1;
        for (int64_t start = 0, end; start < length && outcome == 0; start = end) {
            end = superword_end(text, length, start);
            if (end == start) { /* no piece starts here: findall goes on after this character */
                int size;
                classes_at(text, start, &size, &(uint32_t){0});
                end = start + size;
                continue;
            }
            int32_t piece = table_put(&table, text + start, end - start, pieces);
            if (piece < 0 || grow((void **)&counts, &counts_capacity, (int64_t)pieces + 1, sizeof(int64_t))) {
                outcome = -1;
                break;
            }
            if (piece == pieces) counts[pieces++] = 0;
            counts[piece]++;
        }
    }
    PyObject *result = outcome == 0 ? PyDict_New() : NULL;
    if (result != NULL) {
        /* The pieces in the order they were found: each slot knows its number. */
        const ByteSlot **in_order = malloc(((size_t)pieces + 1) * sizeof(ByteSlot *));
        for (uint64_t slot = 0; in_order != NULL && slot < table.size; slot++) {
            if (table.slots[slot].length >= 0) in_order[table.slots[slot].value] = &table.slots[slot];
        }
        for (int32_t piece = 0; in_order != NULL && piece < pieces && result != NULL; piece++) {
            PyObject *text = PyUnicode_DecodeUTF8((const char *)in_order[piece]->bytes, (Py_ssize_t)in_order[piece]->length, NULL);
            PyObject *count = PyLong_FromLongLong(counts[piece]);
            if (text == NULL || count == NULL || PyDict_SetItem(result, text, count)) Py_CLEAR(result);
            Py_XDECREF(text);
            Py_XDECREF(count);
        }
        if (in_order == NULL) {
            Py_CLEAR(result);
            PyErr_NoMemory();
        }
        free(in_order);
    }
    if (outcome == -1) PyErr_NoMemory();
    free(table.slots);
    free(counts);
    if (outcome == 1) Py_RETURN_NONE;
    return result;
}

/* ---- BoundlessBPE ---- */

/* boundless.MERGEABLE: letters (each maybe with marks after it), spaces,
 * underscores and apostrophes (' and U+2019), with a letter after the first
 * character (and, as `$` lets it, maybe one line break at the end). */
static int mergeable(const uint8_t *piece, int64_t length) {
    int after_letter = 0, later_letter = 0, size;
    uint32_t code_point;
    if (length > 1 && piece[length - 1] == '\n') length--;
    for (int64_t at = 0; at < length; at += size) {
        unsigned classes = classes_at(piece, at, &size, &code_point);
        if (classes & CLASS_LETTER) {
            after_letter = 1;
            later_letter |= at > 0;
        } else if (classes & CLASS_MARK) {
            if (!after_letter) return 0;
        } else if (code_point == ' ' || code_point == '_' || code_point == '\'' || code_point == 0x2019) {
            after_letter = 0;
        } else {
            return 0;
        }
    }
    return later_letter;
}

/* A pretoken: a distinct piece of the text. */
typedef struct {
    const uint8_t *bytes; /* in a segment's UTF-8 */
    int64_t length, count;
    int32_t start; /* its first position in the words' state */
    int32_t unit;  /* its unit in the runs' state, or -1: it is in no run */
    int mergeable;
} Pretoken;

typedef struct {
    int32_t *at;
    int64_t size, capacity;
} IdList;

typedef struct {
    State words, runs; /* BPE's own over the pretokens; supermerges over runs of pretokens */
    Vocabulary vocabulary;
    ByteTable known;     /* the tokens' bytes (their ids) */
    ByteTable pretokens; /* the pretokens' bytes (their indexes) */
    Pretoken *pretoken;
    int64_t pretoken_count, pretoken_capacity;
    int32_t *piece_of_unit; /* the pretoken of each unit of the runs */
    int64_t piece_of_unit_capacity;
    int32_t *whole;         /* each unit's token, once a merge has left it whole; else -1 */
    IdList *waiting;        /* each unit's supermerge pairs, refused until it is whole */
    int64_t units;
    int32_t first_unit; /* the id of unit 0 in the runs' state: above every token's */
    int64_t joined;     /* tokens the supermerges saved */
    uint8_t *joined_bytes; /* a pair's bytes, looked up in `known` */
    int64_t joined_capacity;
    int failed;
} Boundless;

static int is_unit(const Boundless *b, int32_t id) { return id >= b->first_unit; }

static void bytes_of(const Boundless *b, int32_t id, const uint8_t **bytes, int64_t *length) {
    if (is_unit(b, id)) {
        const Pretoken *pretoken = &b->pretoken[b->piece_of_unit[id - b->first_unit]];
        *bytes = pretoken->bytes;
        *length = pretoken->length;
    } else {
        *bytes = b->vocabulary.bytes[id];
        *length = b->vocabulary.length[id];
    }
}

/* Whether the bytes of `left` then `right` are a token already. */
static int is_known(Boundless *b, int32_t left, int32_t right) {
    const uint8_t *left_bytes, *right_bytes;
    int64_t left_length, right_length;
    bytes_of(b, left, &left_bytes, &left_length);
    bytes_of(b, right, &right_bytes, &right_length);
    if (grow((void **)&b->joined_bytes, &b->joined_capacity, left_length + right_length, 1)) {
        b->failed = 1;
        return 1;
    }
    memcpy(b->joined_bytes, left_bytes, (size_t)left_length);
    memcpy(b->joined_bytes + left_length, right_bytes, (size_t)right_length);
    return table_get(&b->known, b->joined_bytes, left_length + right_length) >= 0;
}

/* Whether a side of the runs' pair is a pretoken not whole yet; if so, the
 * pair waits for it (_BoundlessTraining.waits). */
static int waits(Boundless *b, int32_t pair) {
    int32_t sides[2] = {b->runs.pairs[pair].left, b->runs.pairs[pair].right};
    for (int side = 0; side < 2; side++) {
        int32_t unit = sides[side] - b->first_unit;
        if (unit >= 0 && b->whole[unit] < 0) {
            IdList *list = &b->waiting[unit];
            if (append(&list->at, &list->size, &list->capacity, pair)) b->failed = 1;
            return 1;
        }
    }
    return 0;
}

static int new_word(void *context, State *s, int32_t pair) {
    return !is_known(context, s->pairs[pair].left, s->pairs[pair].right);
}

static int new_superword(void *context, State *s, int32_t pair) {
    return !waits(context, pair) && !is_known(context, s->pairs[pair].left, s->pairs[pair].right);
}

/* Adds a learned token (its bytes: left's then right's) to the vocabulary. */
static int learn_token(Boundless *b, int32_t left, int32_t right) {
    const uint8_t *left_bytes, *right_bytes;
    int64_t left_length, right_length;
    bytes_of(b, left, &left_bytes, &left_length);
    bytes_of(b, right, &right_bytes, &right_length);
    int32_t id = (int32_t)b->vocabulary.size;
    return add_token(&b->vocabulary, left_bytes, (int32_t)left_length, right_bytes, (int32_t)right_length) ||
           table_put(&b->known, b->vocabulary.bytes[id], b->vocabulary.length[id], id) < 0;
}

/* _BoundlessTraining.merge_words: a merge within pretokens; a pretoken it
 * leaves whole lets its waiting supermerges be offered again. */
static int merge_words(Boundless *b, int32_t pair) {
    int32_t new_id = (int32_t)b->vocabulary.size;
    if (merge(&b->words, pair, new_id) || learn_token(b, b->words.pairs[pair].left, b->words.pairs[pair].right)) return -1;
    int32_t piece = table_get(&b->pretokens, b->vocabulary.bytes[new_id], b->vocabulary.length[new_id]);
    if (piece < 0 || b->pretoken[piece].unit < 0) return 0;
    int32_t start = b->pretoken[piece].start, unit = b->pretoken[piece].unit;
    if (b->words.at[start].token != new_id || next_of(&b->words, start) != UNLINKED) return 0;
    b->whole[unit] = new_id;
    IdList waiting = b->waiting[unit];
    memset(&b->waiting[unit], 0, sizeof waiting);
    for (int64_t index = 0; index < waiting.size && !b->failed; index++) {
        if (!waits(b, waiting.at[index]) && reconsider(&b->runs, waiting.at[index])) b->failed = 1;
    }
    free(waiting.at);
    return b->failed ? -1 : 0;
}

/* _BoundlessTraining.join_pretokens: a supermerge; the step's pair is
 * given in tokens (a whole pretoken's, or a superword's). */
static int join_pretokens(Boundless *b, int32_t pair, int64_t *row) {
    int32_t new_id = (int32_t)b->vocabulary.size, left = b->runs.pairs[pair].left, right = b->runs.pairs[pair].right;
    int64_t before = b->runs.corpus_tokens;
    if (learn_token(b, left, right) || merge(&b->runs, pair, new_id)) return -1;
    b->joined += before - b->runs.corpus_tokens;
    row[0] = is_unit(b, left) ? b->whole[left - b->first_unit] : left;
    row[1] = is_unit(b, right) ? b->whole[right - b->first_unit] : right;
    return 0;
}

/* The text's pretokens (split with the preset `pattern`), counted in order
 * of first appearance, and the pretoken of each piece of the text in turn,
 * -1 where a special token cut it (boundless.pieces_and_runs). Returns -1
 * with an exception set, 1 for a text split.c may split otherwise than
 * `regex` (a character newer than its tables), 0 when done. */
static int split_text(Boundless *b, PyObject *segments, split_pattern pattern, IdList *sequence) {
    for (Py_ssize_t index = 0; index < PyList_GET_SIZE(segments); index++) {
        Py_ssize_t length;
        const uint8_t *text = (const uint8_t *)PyUnicode_AsUTF8AndSize(PyList_GET_ITEM(segments, index), &length);
        if (text == NULL) return -1;
        if (holds_unsettled(text, (size_t)length)) return 1;
        for (size_t start = 0, end; start < (size_t)length; start = end) {
            end = split_next(pattern, text, (size_t)length, start);
            int32_t piece = (int32_t)b->pretoken_count;
            if (piece == INT32_MAX || (piece = table_put(&b->pretokens, text + start, (int64_t)(end - start), piece)) < 0 ||
                append(&sequence->at, &sequence->size, &sequence->capacity, piece)) {
                goto out_of_memory;
            }
            if (piece == b->pretoken_count) {
                if (grow((void **)&b->pretoken, &b->pretoken_capacity, piece + 1, sizeof(Pretoken))) goto out_of_memory;
                b->pretoken[piece] = (Pretoken){text + start, (int64_t)(end - start), 0, 0, -1, mergeable(text + start, (int64_t)(end - start))};
                b->pretoken_count++;
            }
            b->pretoken[piece].count++;
        }
        if (append(&sequence->at, &sequence->size, &sequence->capacity, -1)) goto out_of_memory;
    }
    return 0;
out_of_memory:
    PyErr_NoMemory();
    return -1;
}

/* The words' state (each pretoken's bytes, weighted by its count) and the
 * runs' (each run of two or more adjacent mergeable pretokens, counted, as
 * units numbered by first appearance in the runs). */
static int build_states(Boundless *b, const IdList *sequence) {
    int64_t words_room = 0, runs_room = 0; /* the states' room for positions */
    int32_t *units = NULL;
    int64_t units_capacity = 0;
    int outcome = 0;
    for (int64_t piece = 0; piece < b->pretoken_count && outcome == 0; piece++) {
        Pretoken *pretoken = &b->pretoken[piece];
        pretoken->start = (int32_t)b->words.positions;
        if (grow((void **)&units, &units_capacity, pretoken->length, sizeof(int32_t))) outcome = -1;
        for (int64_t index = 0; index < pretoken->length && outcome == 0; index++) units[index] = pretoken->bytes[index];
        if (outcome == 0) outcome = add_units(&b->words, &words_room, units, pretoken->length, pretoken->count);
    }
    /* The runs, counted in a table keyed by their pretokens' indexes (as bytes). */
    ByteTable runs = {0};
    int64_t *run_count = NULL, run_count_capacity = 0, run_total = 0;
    int64_t *run_start = NULL, run_start_capacity = 0, *run_length = NULL, run_length_capacity = 0;
    if (outcome == 0 && start_table(&runs)) outcome = -1;
    for (int64_t index = 0, start = 0; index <= sequence->size && outcome == 0; index++) {
        int32_t piece = index < sequence->size ? sequence->at[index] : -1;
        if (piece >= 0 && b->pretoken[piece].mergeable) continue;
        if (index - start > 1) {
            const uint8_t *key = (const uint8_t *)&sequence->at[start];
            int32_t run = table_put(&runs, key, (index - start) * (int64_t)sizeof(int32_t), (int32_t)run_total);
            if (run < 0 || grow((void **)&run_count, &run_count_capacity, run_total + 1, sizeof(int64_t)) ||
                grow((void **)&run_start, &run_start_capacity, run_total + 1, sizeof(int64_t)) ||
                grow((void **)&run_length, &run_length_capacity, run_total + 1, sizeof(int64_t))) {
                outcome = -1;
                break;
            }
            if (run == run_total) {
                run_count[run] = 0;
                run_start[run] = start;
                run_length[run] = index - start;
                run_total++;
            }
            run_count[run]++;
        }
        start = index + 1;
    }
    for (int64_t run = 0; run < run_total && outcome == 0; run++) {
        if (grow((void **)&units, &units_capacity, run_length[run], sizeof(int32_t)) ||
            grow((void **)&b->piece_of_unit, &b->piece_of_unit_capacity, b->units + run_length[run], sizeof(int32_t))) {
            outcome = -1;
            break;
        }
        for (int64_t index = 0; index < run_length[run]; index++) {
            Pretoken *pretoken = &b->pretoken[sequence->at[run_start[run] + index]];
            if (pretoken->unit < 0) {
                pretoken->unit = (int32_t)b->units;
                b->piece_of_unit[b->units++] = (int32_t)(pretoken - b->pretoken);
            }
            units[index] = b->first_unit + pretoken->unit;
        }
        outcome = add_units(&b->runs, &runs_room, units, run_length[run], run_count[run]);
    }
    free(runs.slots);
    free(run_count);
    free(run_start);
    free(run_length);
    free(units);
    return outcome;
}

const char research_boundless_doc[] =
    "boundless(segments, pattern, wanted, deadline, progress)\n"
    "--\n\n"
    "BoundlessBPE (boundless._BoundlessTraining) on the text's `segments` (the\n"
    "str between special tokens, in order), split with the preset `pattern`\n"
    "(a SPLIT_ number of _native_training), to `wanted` tokens.\n"
    "`progress(tokens - 256, wanted - 256)` is called at every 50th token.\n"
    "Returns (steps, stop): steps bytes of five 64-bit integers a step (left,\n"
    "right, count, corpus tokens after, 1 for a supermerge), stop 0 (all\n"
    "learned), 1 (the deadline passed) or 2 (no pair left). None for a text\n"
    "split.c may split otherwise than `regex`.";

static PyObject *research_boundless(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *segments, *deadline_object, *progress;
    int pattern;
    long long wanted;
    if (!PyArg_ParseTuple(args, "O!iLOO:boundless", &PyList_Type, &segments, &pattern, &wanted, &deadline_object, &progress)) {
        return NULL;
    }
    int has_deadline;
    double deadline;
    if (read_deadline(deadline_object, &has_deadline, &deadline)) return NULL;
    if (pattern < 0 || pattern >= SPLIT_PATTERNS || wanted < 256 || wanted >= INT32_MAX / 2) Py_RETURN_NONE;

    Boundless b;
    memset(&b, 0, sizeof b);
    b.first_unit = (int32_t)wanted;
    IdList sequence = {0};
    Rows rows = {0};
    PyObject *result = NULL;
    int stop = STOP_DONE;
    int outcome = start_table(&b.known) || start_table(&b.pretokens) ? -1 : 0;
    for (int byte = 0; byte < 256 && outcome == 0; byte++) {
        uint8_t one = (uint8_t)byte;
        outcome = add_token(&b.vocabulary, &one, 1, NULL, 0) ||
                  table_put(&b.known, b.vocabulary.bytes[byte], 1, byte) < 0 ? -1 : 0;
    }
    if (outcome == -1) PyErr_NoMemory();
    if (outcome == 0) outcome = split_text(&b, segments, (split_pattern)pattern, &sequence);
    if (outcome == 0) { /* from here on, C alone: other threads run meanwhile, until a report */
        Py_BEGIN_ALLOW_THREADS
        outcome = build_states(&b, &sequence);
        if (outcome == 0 && (cover_ids(&b.words, 256) || count_pairs_by_sorting(&b.words, 0) ||
                             cover_ids(&b.runs, b.first_unit + b.units) || count_pairs_by_sorting(&b.runs, 0) ||
                             (b.whole = malloc((size_t)(b.units + 1) * sizeof(int32_t))) == NULL ||
                             (b.waiting = calloc((size_t)b.units + 1, sizeof(IdList))) == NULL)) {
            outcome = -1;
        }
        Py_END_ALLOW_THREADS
    }
    if (outcome == -1 && !PyErr_Occurred()) PyErr_NoMemory();
    if (outcome == 0) {
        for (int64_t unit = 0; unit < b.units; unit++) b.whole[unit] = -1;
        /* No pretoken is whole yet: every supermerge pair waits (MergeState.withhold). */
        for (int32_t pair = 0; pair < b.runs.pair_count; pair++) waits(&b, pair);
        b.runs.heap_size = b.runs.seen_once_size = 0;
    }
    while (outcome == 0 && stop == STOP_DONE && b.vocabulary.size < wanted && !b.failed) {
        Py_BEGIN_ALLOW_THREADS
        do { /* up to the next report: every 50th token */
            if (has_deadline && monotonic_seconds() > deadline) {
                stop = STOP_DEADLINE;
                break;
            }
            int32_t word = best_pair(&b.words, new_word, &b), join = best_pair(&b.runs, new_superword, &b);
            if (word == -2 || join == -2 || b.failed) {
                b.failed = 1;
                break;
            }
            if (word == NO_PAIR && join == NO_PAIR) {
                stop = STOP_NO_PAIR;
                break;
            }
            int64_t *row = new_row(&rows, 5);
            if (row == NULL) {
                b.failed = 1;
                break;
            }
            if (join == NO_PAIR || (word != NO_PAIR && b.words.pairs[word].count > b.runs.pairs[join].count)) {
                row[0] = b.words.pairs[word].left, row[1] = b.words.pairs[word].right, row[2] = b.words.pairs[word].count, row[4] = 0;
                b.failed = merge_words(&b, word) != 0;
            } else {
                row[2] = b.runs.pairs[join].count, row[4] = 1;
                b.failed = join_pretokens(&b, join, row) != 0;
            }
            row[3] = b.words.corpus_tokens - b.joined;
        } while (!b.failed && b.vocabulary.size < wanted && b.vocabulary.size % 50 != 0);
        Py_END_ALLOW_THREADS
        if (!b.failed && stop == STOP_DONE && b.vocabulary.size % 50 == 0 && report(progress, b.vocabulary.size - 256, wanted - 256)) {
            outcome = -1;
        }
    }
    if (b.failed && !PyErr_Occurred()) PyErr_NoMemory();
    if (outcome == 0 && !b.failed) {
        PyObject *steps = PyBytes_FromStringAndSize((const char *)rows.at, (Py_ssize_t)(rows.size * sizeof(int64_t)));
        if (steps != NULL) result = Py_BuildValue("(Ni)", steps, stop);
    }
    for (int64_t unit = 0; b.waiting != NULL && unit < b.units; unit++) free(b.waiting[unit].at);
    free(b.waiting);
    free(b.whole);
    free(b.piece_of_unit);
    free(b.pretoken);
    free(b.known.slots);
    free(b.joined_bytes);
    free(b.pretokens.slots);
    free(sequence.at);
    free(rows.at);
    free_vocabulary(&b.vocabulary);
    free_state(&b.words);
    free_state(&b.runs);
    if (outcome == 1) Py_RETURN_NONE;
    return result;
}


/* ---- Picky BPE ---- */

/* Pairs by their two ids (learn.c forgets them once the corpus is counted:
 * a merge's new pairs all hold its new token; a removal brings back pairs
 * that may have existed before). Open addressing, at most half full, placed
 * by siphash.h's keyed hash_word as learn.c's count_pairs places them. */
typedef struct {
    uint64_t *keys; /* pair_key(left, right); EMPTY_KEY where free */
    int32_t *numbers;
    uint64_t size, used;
} PairMap;

static uint64_t *pair_slot(const PairMap *map, uint64_t key) {
    uint64_t slot = hash_word(key) & (map->size - 1);
    while (map->keys[slot] != key && map->keys[slot] != EMPTY_KEY) slot = (slot + 1) & (map->size - 1);
    return &map->keys[slot];
}

static int map_put(PairMap *map, int32_t left, int32_t right, int32_t number) {
    if (2 * (map->used + 1) > map->size) {
        PairMap larger = {malloc(2 * map->size * sizeof(uint64_t)), malloc(2 * map->size * sizeof(int32_t)), 2 * map->size, 0};
        if (larger.keys == NULL || larger.numbers == NULL) {
            free(larger.keys);
            free(larger.numbers);
            return -1;
        }
        for (uint64_t slot = 0; slot < larger.size; slot++) larger.keys[slot] = EMPTY_KEY;
        for (uint64_t slot = 0; slot < map->size; slot++) {
            if (map->keys[slot] == EMPTY_KEY) continue;
            uint64_t *at = pair_slot(&larger, map->keys[slot]);
            *at = map->keys[slot];
            larger.numbers[at - larger.keys] = map->numbers[slot];
            larger.used++;
        }
        free(map->keys);
        free(map->numbers);
        *map = larger;
    }
    uint64_t key = pair_key(left, right), *at = pair_slot(map, key);
    map->used += *at == EMPTY_KEY;
    *at = key;
    map->numbers[at - map->keys] = number;
    return 0;
}

/* The number of the pair (left, right), made if it has none: NO_PAIR out of memory. */
static int32_t pair_number(State *s, PairMap *map, int32_t left, int32_t right) {
    uint64_t *at = pair_slot(map, pair_key(left, right));
    if (*at != EMPTY_KEY) return map->numbers[at - map->keys];
    int32_t number = new_pair(s, left, right);
    return number == NO_PAIR || map_put(map, left, right, number) ? NO_PAIR : number;
}

/* Puts the pairs numbered from `first` on in the map. */
static int map_new_pairs(State *s, PairMap *map, int32_t first) {
    for (int32_t number = first; number < s->pair_count; number++) {
        if (map_put(map, s->pairs[number].left, s->pairs[number].right, number)) return -1;
    }
    return 0;
}

typedef struct {
    State s;
    PairMap pairs;
    double threshold;
    int32_t base; /* the first merged token's id */
    Vocabulary units;   /* each token as its base units (native ints, as bytes): equal tokens, equal units */
    ByteTable present_with; /* a present token's units -> its id (-1: none any more) */
    int32_t *parts_of;  /* each token's pair (two ids), -1 for a base unit */
    uint8_t *present;
    int64_t *uses;
    IdList *where; /* each merged token -> positions it was put at (some stale since) */
    int64_t tokens, capacity;
    /* a split's scratch: each pair's change in count, the pairs changed, and where pairs start anew */
    int64_t *change, change_size;
    IdList touched, chain;
    int64_t *gained, gained_size, gained_capacity; /* pair << 32 | position */
    Rows removals; /* after, token id, corpus tokens, parts' number, the parts */
    double *ios;
    int64_t ios_size, ios_capacity;
} Picky;

/* Room for one more token in every per-token array. */
static int room_for_token(Picky *p) {
    int64_t needed = p->tokens + 1, capacity = p->capacity;
    if (needed <= capacity) return 0;
    int64_t parts_capacity = capacity, present_capacity = capacity, uses_capacity = capacity, where_capacity = capacity;
    if (grow((void **)&p->parts_of, &parts_capacity, 2 * needed, sizeof(int32_t)) ||
        grow((void **)&p->present, &present_capacity, needed, sizeof(uint8_t)) ||
        grow((void **)&p->uses, &uses_capacity, needed, sizeof(int64_t)) ||
        grow((void **)&p->where, &where_capacity, needed, sizeof(IdList))) {
        return -1;
    }
    p->capacity = present_capacity < uses_capacity ? present_capacity : uses_capacity;
    if (where_capacity < p->capacity) p->capacity = where_capacity;
    if (parts_capacity / 2 < p->capacity) p->capacity = parts_capacity / 2;
    return 0;
}

/* Room in `change` for every pair, the new ones at 0. */
static int room_for_changes(Picky *p) {
    int64_t pairs = p->s.pair_count, capacity = p->change_size;
    if (pairs <= p->change_size) return 0;
    if (grow((void **)&p->change, &capacity, pairs, sizeof(int64_t))) return -1;
    memset(p->change + p->change_size, 0, (size_t)(capacity - p->change_size) * sizeof(int64_t));
    p->change_size = capacity;
    return 0;
}

static int32_t present_id(const Picky *p, int32_t token) {
    return table_get(&p->present_with, p->units.bytes[token], p->units.length[token]);
}

/* present_with.setdefault(the token's units, token) */
static int present_by_default(Picky *p, int32_t token) {
    const uint8_t *units = p->units.bytes[token];
    int64_t length = p->units.length[token];
    ByteSlot *slot = find_slot_of(&p->present_with, hash_bytes(units, length), units, length);
    if (slot->length >= 0) {
        if (slot->value < 0) slot->value = token; /* its tokens were all removed */
        return 0;
    }
    return table_put(&p->present_with, units, length, token) < 0 ? -1 : 0;
}

/* _PickyTraining.walk: the tokens still there that make up `token`. */
static int walk(Picky *p, int32_t token, IdList *parts) {
    if (p->present[token]) return append(&parts->at, &parts->size, &parts->capacity, token);
    int32_t again = present_id(p, token);
    if (again >= 0) return append(&parts->at, &parts->size, &parts->capacity, again);
    return walk(p, p->parts_of[2 * token], parts) || walk(p, p->parts_of[2 * token + 1], parts);
}

static int by_number(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

static int by_pair_then_position(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* MergeState.split: `token` replaced by `parts` wherever it stands at one
 * of `positions` (the others are stale); where each part now starts is
 * added to `placed`. */
static int split(Picky *p, int32_t token, const IdList *parts, const IdList *positions, IdList *placed) {
    State *s = &p->s;
    p->touched.size = p->gained_size = 0;
    for (int64_t index = 0; index < positions->size; index++) {
        int32_t start = positions->at[index];
        if (s->at[start].token != token) continue;
        int64_t occurrences = s->weights[s->at[start].piece];
        int32_t before = s->at[start].prev, after = next_of(s, start);
        int32_t lost[2] = {before != UNLINKED ? s->at[before].pair : NO_PAIR, after != UNLINKED ? s->at[start].pair : NO_PAIR};
        if (room_for_changes(p)) return -1;
        for (int side = 0; side < 2; side++) {
            if (lost[side] == NO_PAIR) continue;
            p->change[lost[side]] -= occurrences;
            if (append(&p->touched.at, &p->touched.size, &p->touched.capacity, lost[side])) return -1;
        }
        IdList *chain = &p->chain; /* before, the parts' places, after */
        chain->size = 0;
        if (before != UNLINKED && append(&chain->at, &chain->size, &chain->capacity, before)) return -1;
        for (int64_t part = 0, place = start; part < parts->size; place += s->units_of[parts->at[part]], part++) {
            s->at[place].token = parts->at[part];
            if (append(&chain->at, &chain->size, &chain->capacity, (int32_t)place) ||
                append(&placed->at, &placed->size, &placed->capacity, (int32_t)place)) {
                return -1;
            }
        }
        if (after == UNLINKED) s->at[chain->at[chain->size - 1]].pair = NO_PAIR;
        else if (append(&chain->at, &chain->size, &chain->capacity, after)) return -1;
        for (int64_t link = 0; link + 1 < chain->size; link++) {
            int32_t left = chain->at[link], right = chain->at[link + 1];
            int32_t number = pair_number(s, &p->pairs, s->at[left].token, s->at[right].token);
            if (number == NO_PAIR || room_for_changes(p) ||
                append(&p->touched.at, &p->touched.size, &p->touched.capacity, number) ||
                grow((void **)&p->gained, &p->gained_capacity, p->gained_size + 1, sizeof(int64_t))) {
                return -1;
            }
            s->at[left].pair = number;
            s->at[right].prev = left;
            p->change[number] += occurrences;
            p->gained[p->gained_size++] = (int64_t)number << 32 | left;
        }
        s->corpus_tokens += (parts->size - 1) * occurrences;
    }
    /* Each pair changed, once, in the order of their numbers, as the positions they gained are sorted. */
    qsort(p->gained, (size_t)p->gained_size, sizeof(int64_t), by_pair_then_position);
    qsort(p->touched.at, (size_t)p->touched.size, sizeof(int32_t), by_number);
    int64_t gained = 0;
    for (int64_t index = 0; index < p->touched.size; index++) {
        int32_t number = p->touched.at[index];
        int64_t change = p->change[number];
        if (index > 0 && number == p->touched.at[index - 1]) continue;
        Pair *pair = &s->pairs[number];
        pair->count += change;
        if (pair->count == 0) forget_positions(&pair->where);
        if (change <= 0) continue;
        /* Its positions: those it had and those it gained, ascending, once each. */
        while (gained < p->gained_size && p->gained[gained] >> 32 < number) gained++;
        Positions merged = {0};
        int32_t old = pair->where.start;
        int64_t fresh = gained;
        while (old < pair->where.size || (fresh < p->gained_size && p->gained[fresh] >> 32 == number)) {
            int32_t next_old = old < pair->where.size ? pair->where.at[old] : INT32_MAX;
            int32_t next_fresh = fresh < p->gained_size && p->gained[fresh] >> 32 == number ? (int32_t)(p->gained[fresh] & 0xFFFFFFFF) : INT32_MAX;
            int32_t position = next_old < next_fresh ? next_old : next_fresh;
            old += next_old == position;
            fresh += next_fresh == position;
            if ((merged.size == 0 || merged.at[merged.size - 1] != position) && append_position(&merged, position)) return -1;
        }
        free(pair->where.at);
        pair->where = merged;
        if (heap_push(s, number, first_position(s, number))) return -1;
    }
    for (int64_t index = 0; index < p->touched.size; index++) p->change[p->touched.at[index]] = 0;
    return 0;
}


/* _PickyTraining.remove */
static int remove_token(Picky *p, int32_t token, double ios, int64_t merges) {
    IdList parts = {0}, placed = {0};
    p->present[token] = 0;
    ByteSlot *slot = find_slot_of(&p->present_with, hash_bytes(p->units.bytes[token], p->units.length[token]),
                                  p->units.bytes[token], p->units.length[token]);
    if (slot->length >= 0 && slot->value == token) slot->value = -1;
    int failed = walk(p, p->parts_of[2 * token], &parts) || walk(p, p->parts_of[2 * token + 1], &parts);
    for (int64_t index = 0; index < parts.size && !failed; index++) p->uses[parts.at[index]] += p->uses[token];
    p->uses[token] = 0;
    IdList positions = p->where[token];
    memset(&p->where[token], 0, sizeof positions);
    failed = failed || split(p, token, &parts, &positions, &placed);
    for (int64_t index = 0; index < placed.size && !failed; index++) {
        int32_t there = p->s.at[placed.at[index]].token;
        if (there >= p->base) failed = append(&p->where[there].at, &p->where[there].size, &p->where[there].capacity, placed.at[index]);
    }
    int64_t *row = failed ? NULL : new_row(&p->removals, 4 + (int)parts.size);
    failed = row == NULL || grow((void **)&p->ios, &p->ios_capacity, p->ios_size + 1, sizeof(double));
    if (!failed) {
        row[0] = merges, row[1] = token, row[2] = p->s.corpus_tokens, row[3] = parts.size;
        for (int64_t index = 0; index < parts.size; index++) row[4 + index] = parts.at[index];
        p->ios[p->ios_size++] = ios;
    }
    free(parts.at);
    free(placed.at);
    free(positions.at);
    return failed ? -1 : 0;
}

/* _PickyTraining.merge: merge the pair `best` (the `merges`-th merge, its
 * step in `row`), then remove what it leaves behind; returns how many
 * tokens were removed, or -1 out of memory. */
static int merge_and_remove(Picky *p, int32_t best, int64_t *row, int64_t merges) {
    State *s = &p->s;
    int32_t left = s->pairs[best].left, right = s->pairs[best].right, new_id = (int32_t)p->tokens;
    row[0] = left, row[1] = right, row[2] = s->pairs[best].count;
    Positions *candidates = &s->pairs[best].where;
    IdList made = {0};
    for (int32_t index = candidates->start; index < candidates->size; index++) {
        if (append(&made.at, &made.size, &made.capacity, candidates->at[index])) return -1;
    }
    int64_t before = s->corpus_tokens;
    int32_t pairs_before = s->pair_count;
    if (room_for_token(p) || merge(s, best, new_id) || map_new_pairs(s, &p->pairs, pairs_before) ||
        add_token(&p->units, p->units.bytes[left], p->units.length[left], p->units.bytes[right], p->units.length[right]) ||
        present_by_default(p, new_id)) {
        free(made.at);
        return -1;
    }
    row[3] = s->corpus_tokens;
    int64_t merged = before - s->corpus_tokens;
    int64_t kept = 0; /* where[new_id]: the candidates it now stands at */
    for (int64_t index = 0; index < made.size; index++) {
        if (s->at[made.at[index]].token == new_id) made.at[kept++] = made.at[index];
    }
    made.size = kept;
    p->tokens++;
    p->parts_of[2 * new_id] = left, p->parts_of[2 * new_id + 1] = right;
    p->present[new_id] = 1;
    p->uses[new_id] = merged;
    p->where[new_id] = made;
    int removed = 0;
    int32_t sides[2] = {left, right};
    for (int side = 0; side < (left == right ? 1 : 2); side++) {
        int32_t token = sides[side];
        p->uses[token] -= merged * (left == right ? 2 : 1);
        double ios = (double)merged / (double)(p->uses[token] + merged);
        if (token >= p->base && ios > p->threshold) {
            if (remove_token(p, token, ios, merges)) return -1;
            removed++;
        }
    }
    return removed;
}

const char research_picky_doc[] =
    "picky(pieces, alphabet, threshold, wanted, max_events, deadline, progress)\n"
    "--\n\n"
    "Picky BPE (picky._PickyTraining) over `pieces` ({piece: count}, in order of\n"
    "first appearance; UTF-8 bytes when `alphabet` is None, else its characters),\n"
    "to `wanted` tokens left, in at most `max_events` merges.\n"
    "`progress(tokens learned, wanted - base)` is called at every 50th merge.\n"
    "Returns (merges, removals, ios, stop, size): merges bytes of four 64-bit\n"
    "integers a merge (left, right, count, corpus tokens after); removals bytes\n"
    "of 64-bit integers, per removal: merges before it, the token, corpus tokens\n"
    "after, the number of its parts, the parts; ios bytes of doubles, one a\n"
    "removal; stop 0 (done), 1 (the deadline passed), 2 (no pair left) or 4\n"
    "(out of events); size the tokens left. None for pieces it cannot learn\n"
    "from exactly.";

static PyObject *research_picky(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *pieces, *alphabet, *deadline_object, *progress;
    double threshold;
    long long wanted, max_events;
    if (!PyArg_ParseTuple(args, "O!OdLLOO:picky", &PyDict_Type, &pieces, &alphabet, &threshold, &wanted, &max_events,
                          &deadline_object, &progress)) {
        return NULL;
    }
    if (alphabet != Py_None && !PyUnicode_Check(alphabet)) {
        PyErr_SetString(PyExc_TypeError, "alphabet must be a str or None");
        return NULL;
    }
    int has_deadline;
    double deadline;
    if (read_deadline(deadline_object, &has_deadline, &deadline)) return NULL;
    int64_t base = alphabet == Py_None ? 256 : PyUnicode_GET_LENGTH(alphabet);
    if (max_events < 0 || max_events >= INT32_MAX - base || wanted >= INT32_MAX) Py_RETURN_NONE;

    Picky p;
    memset(&p, 0, sizeof p);
    p.threshold = threshold;
    p.base = (int32_t)base;
    Rows merges = {0};
    PyObject *result = NULL;
    int stop = STOP_DONE, failed = 0;
    int outcome = read_pieces(&p.s, pieces, alphabet);
    if (outcome == 0) {
        p.pairs = (PairMap){malloc(1024 * sizeof(uint64_t)), malloc(1024 * sizeof(int32_t)), 1024, 0};
        failed = p.pairs.keys == NULL || p.pairs.numbers == NULL || start_table(&p.present_with) || cover_ids(&p.s, base) ||
                 count_pairs(&p.s);
        for (uint64_t slot = 0; !failed && slot < p.pairs.size; slot++) p.pairs.keys[slot] = EMPTY_KEY;
        failed = failed || map_new_pairs(&p.s, &p.pairs, 0);
        for (int32_t id = 0; id < base && !failed; id++) {
            failed = room_for_token(&p) || add_token(&p.units, (const uint8_t *)&id, sizeof id, NULL, 0) ||
                     present_by_default(&p, id);
            if (failed) break;
            p.parts_of[2 * id] = p.parts_of[2 * id + 1] = -1;
            p.present[id] = 1;
            p.uses[id] = 0;
            memset(&p.where[id], 0, sizeof(IdList));
            p.tokens++;
        }
        for (int64_t position = 0; position < p.s.positions && !failed; position++) {
            p.uses[p.s.at[position].token] += p.s.weights[p.s.at[position].piece];
        }
    }
    int64_t size = base, events = 0;
    int done = 0;
    while (outcome == 0 && !failed && !done && events < max_events) {
        Py_BEGIN_ALLOW_THREADS /* C alone, up to the next report (every 50th merge): other threads run meanwhile */
        while (events < max_events) {
            if (size >= wanted) {
                done = 1;
                break;
            }
            if (has_deadline && monotonic_seconds() > deadline) {
                stop = STOP_DEADLINE, done = 1;
                break;
            }
            int32_t best = best_pair(&p.s, NULL, NULL);
            if (best == NO_PAIR) {
                stop = STOP_NO_PAIR, done = 1;
                break;
            }
            int64_t *row = best == -2 ? NULL : new_row(&merges, 4);
            int removed = row == NULL ? -1 : merge_and_remove(&p, best, row, events + 1);
            if ((failed = removed < 0)) break;
            size += 1 - removed;
            if (++events % 50 == 0) break;
        }
        Py_END_ALLOW_THREADS
        if (!failed && !done && events % 50 == 0 && report(progress, (size < wanted ? size : wanted) - base, wanted - base)) {
            outcome = -1;
        }
    }
    if (outcome == 0 && !failed && events == max_events) stop = 4; /* out of events, even if the last one reached `wanted` */
    if (failed && !PyErr_Occurred()) PyErr_NoMemory();
    if (outcome == 0 && !failed) {
        result = Py_BuildValue("(NNNiL)", as_bytes(merges.at, merges.size * sizeof(int64_t)),
                               as_bytes(p.removals.at, p.removals.size * sizeof(int64_t)),
                               as_bytes(p.ios, p.ios_size * sizeof(double)), stop, (long long)size);
    }
    for (int64_t id = 0; id < p.tokens; id++) free(p.where[id].at);
    free(p.where);
    free(p.parts_of);
    free(p.present);
    free(p.uses);
    free(p.change);
    free(p.touched.at);
    free(p.chain.at);
    free(p.gained);
    free(p.removals.at);
    free(p.ios);
    free(p.pairs.keys);
    free(p.pairs.numbers);
    free(p.present_with.slots);
    free_vocabulary(&p.units);
    free(merges.at);
    free_state(&p.s);
    if (outcome == 1) Py_RETURN_NONE;
    return result;
}

/* ---- the module ---- */

static PyMethodDef functions[] = {
    {"superword_pieces", research_superword_pieces, METH_O, research_superword_pieces_doc},
    {"superword_merges", research_superword_merges, METH_VARARGS, research_superword_merges_doc},
    {"boundless", research_boundless, METH_VARARGS, research_boundless_doc},
    {"picky", research_picky, METH_VARARGS, research_picky_doc},
    {"seed_hash", seed_hash, METH_VARARGS, seed_hash_doc},
    {"pair_hash", pair_hash, METH_VARARGS, pair_hash_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "bpe_core.algorithms._native_research",
    .m_doc = "The research algorithms' training loops in C (see algorithms/native_research.py).",
    .m_size = -1,
    .m_methods = functions,
};

PyMODINIT_FUNC PyInit__native_research(void) {
    fill_ascii_kinds();
    return PyModule_Create(&module);
}
