/* Learning BPE merges in C: merge_learning.py's algorithm, step for step.
 *
 * merge_learning.py is the readable version, and its docstring says why it
 * learns exactly the merges of the reference algorithm. This file does the
 * same work on machine integers instead of Python objects:
 *
 * - the distinct pieces lie in one array of positions, in the order the
 *   dict gives them (first appearance in the text), each position with the
 *   token there, the one before, its piece (whose weight is its count) and
 *   the pair that starts there; the token after is as many positions on as
 *   the token here has units;
 * - every pair has a count and the ascending positions where it may still
 *   start (a position that no longer holds it is skipped when met);
 * - the best pair comes from a heap ordered by (count, first position),
 *   refreshed lazily: an entry can only sort too early, never too late;
 *   pairs seen once wait outside it until nothing more frequent is left.
 *
 * So the merges, their order, counts and ties come out the same as in
 * Python (tests/test_native_training.py holds the two equal). An input this
 * file cannot handle exactly (a count beyond 64 bits, more than 2^31
 * positions) gives None, and the caller runs the Python version instead.
 */
#include "native.h"
#include "learn.h"
#include "siphash.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PREFETCH_AHEAD 8 /* a merge asks memory for the occurrence it visits this many visits later */



/* ---- memory ---- */

int grow(void **array, int64_t *capacity, int64_t needed, size_t item) {
    if (needed <= *capacity) return 0;
    int64_t larger = *capacity ? *capacity : 4;
    while (larger < needed) larger *= 2;
    void *moved = realloc(*array, (size_t)larger * item);
    if (moved == NULL) return -1;
    *array = moved;
    *capacity = larger;
    return 0;
}

int append(int32_t **array, int64_t *size, int64_t *capacity, int32_t value) {
    if (grow((void **)array, capacity, *size + 1, sizeof(int32_t))) return -1;
    (*array)[(*size)++] = value;
    return 0;
}

int append_position(Positions *where, int32_t position) {
    if (where->at == NULL || (where->size >= 4 && where->size == capacity(where->size))) {
        if (where->size == INT32_MAX) return -1;
        int32_t *moved = realloc(where->at, (size_t)capacity(where->size + 1) * sizeof(int32_t));
        if (moved == NULL) return -1;
        where->at = moved;
    }
    where->at[where->size++] = position;
    return 0;
}

void forget_positions(Positions *where) {
    free(where->at);
    memset(where, 0, sizeof *where);
}

void free_state(State *s) {
    free(s->at);
    free(s->weights);
    free(s->ends);
    free(s->units_of);
    for (int32_t number = 0; number < s->pair_count; number++) free(s->pairs[number].where.at);
    free(s->pairs);
    free(s->heap);
    free(s->seen_once);
    free(s->made_after);
    free(s->made_before);
    free(s->made);
    free(s->emptied);
}

/* ---- pairs ---- */

/* A new pair with no occurrences yet: its number, or NO_PAIR out of memory. */
int32_t new_pair(State *s, int32_t left, int32_t right) {
    if (s->pair_count == INT32_MAX || grow((void **)&s->pairs, &s->pair_capacity, (int64_t)s->pair_count + 1, sizeof(Pair))) {
        return NO_PAIR;
    }
    Pair *pair = &s->pairs[s->pair_count];
    memset(pair, 0, sizeof *pair);
    pair->left = left;
    pair->right = right;
    return s->pair_count++;
}

/* The pair `number` starts at `position` too, `occurrences` times. */
static int gain(State *s, int32_t number, int32_t position, int64_t occurrences) {
    Pair *pair = &s->pairs[number];
    pair->count += occurrences;
    s->at[position].pair = number;
    return append_position(&pair->where, position);
}

/* The pair that starts at `position` occurs `occurrences` times less. */
static int lose(State *s, int32_t position, int64_t occurrences) {
    int32_t number = s->at[position].pair;
    s->pairs[number].count -= occurrences;
    if (s->pairs[number].count > 0) return 0;
    return append(&s->emptied, &s->emptied_size, &s->emptied_capacity, number);
}

/* The smallest position that still holds the pair `number` (those before it are dropped). */
int32_t first_position(State *s, int32_t number) {
    Positions *where = &s->pairs[number].where;
    while (where->start < where->size && s->at[where->at[where->start]].pair != number) where->start++;
    return where->start < where->size ? where->at[where->start] : INT32_MAX;
}

/* ---- the heap: most frequent first, then earliest ---- */

static inline int goes_before(const HeapEntry *a, const HeapEntry *b) {
    if (a->count != b->count) return a->count > b->count;
    if (a->first != b->first) return a->first < b->first;
    return a->pair < b->pair;
}

static void sift_down(State *s, int64_t index) {
    HeapEntry moving = s->heap[index];
    for (;;) {
        int64_t child = 2 * index + 1;
        if (child >= s->heap_size) break;
        if (child + 1 < s->heap_size && goes_before(&s->heap[child + 1], &s->heap[child])) child++;
        if (!goes_before(&s->heap[child], &moving)) break;
        s->heap[index] = s->heap[child];
        index = child;
    }
    s->heap[index] = moving;
}

int heap_push(State *s, int32_t number, int32_t first) {
    if (grow((void **)&s->heap, &s->heap_capacity, s->heap_size + 1, sizeof(HeapEntry))) return -1;
    HeapEntry entry = {s->pairs[number].count, first, number};
    int64_t index = s->heap_size++;
    while (index > 0) {
        int64_t parent = (index - 1) / 2;
        if (!goes_before(&entry, &s->heap[parent])) break;
        s->heap[index] = s->heap[parent];
        index = parent;
    }
    s->heap[index] = entry;
    return 0;
}

void heap_pop(State *s) {
    s->heap[0] = s->heap[--s->heap_size];
    if (s->heap_size > 0) sift_down(s, 0);
}

/* A pair seen once can only lose that occurrence, so it waits outside the
 * heap until the best pair left is seen once too; then all come in.
 * Returns -1 out of memory, else whether any came in. */
static int let_in_the_once_seen(State *s) {
    if (s->seen_once == NULL || (s->heap_size > 0 && s->heap[0].count > 1)) return 0;
    int failed = 0;
    for (int64_t index = 0; index < s->seen_once_size && !failed; index++) {
        int32_t number = s->seen_once[index];
        if (s->pairs[number].count == 1) failed = heap_push(s, number, first_position(s, number));
    }
    free(s->seen_once);
    s->seen_once = NULL;
    return failed ? -1 : s->heap_size > 0;
}

/* A pair the merge under way made: into the heap, or to wait with the once-seen. */
int offer(State *s, int32_t number) {
    if (s->pairs[number].count == 1 && s->seen_once != NULL) {
        return append(&s->seen_once, &s->seen_once_size, &s->seen_once_capacity, number);
    }
    return heap_push(s, number, s->pairs[number].where.at[0]);
}

/* ---- training ---- */

/* Gives each pair seen once its position, where counting left it out
 * (`unplaced_once_seen`: research.c's count_pairs_by_sorting), before the
 * once-seen come into the heap: until then nothing reads it (such a pair
 * can only lose its one occurrence), and in a long text most pairs are seen
 * once and never get there. */
static int place_the_once_seen(State *s) {
    if (!s->unplaced_once_seen || s->seen_once == NULL || (s->heap_size > 0 && s->heap[0].count > 1)) return 0;
    for (int32_t position = 0; position < s->positions; position++) {
        int32_t number = s->at[position].pair;
        if (number == NO_PAIR) continue;
        Pair *pair = &s->pairs[number];
        if (pair->count == 1 && pair->where.at == NULL && append_position(&pair->where, position)) return -1;
    }
    s->unplaced_once_seen = 0;
    return 0;
}

/* The most frequent pair, the earliest on a tie, that `allowed` accepts
 * (any pair, where it is NULL), left on top of the heap (the merge empties
 * it, and the next call takes it off): the first entry on top that is up
 * to date (see merge_learning's docstring; MergeState.best_pair). A pair
 * the rule refuses leaves the heap; the rule is asked before the first
 * position is brought up to date, which may move right, never back. NO_PAIR
 * if none is left; -2 out of memory. */
int32_t best_pair(State *s, PairRule allowed, void *context) {
    for (;;) {
        if (place_the_once_seen(s)) return -2;
        int came_in = let_in_the_once_seen(s);
        if (came_in < 0) return -2;
        if (!came_in && s->heap_size == 0) return NO_PAIR;
        HeapEntry *top = &s->heap[0];
        int64_t count = s->pairs[top->pair].count;
        if (count == 0) {
            heap_pop(s);
        } else if (count != top->count) {
            top->count = count;
            sift_down(s, 0);
        } else if (allowed != NULL && !allowed(context, s, top->pair)) {
            heap_pop(s);
        } else {
            int32_t first = first_position(s, top->pair);
            if (first == top->first) return top->pair;
            top->first = first;
            sift_down(s, 0);
        }
    }
}

/* The pair made by this merge, kept in `*slot` (made_after[x] or made_before[y]). */
static int32_t made_pair(State *s, int32_t *slot, int32_t left, int32_t right) {
    if (*slot != NO_PAIR) return *slot;
    int32_t number = new_pair(s, left, right);
    if (number == NO_PAIR || append(&s->made, &s->made_size, &s->made_capacity, number)) return NO_PAIR;
    return *slot = number;
}

/* Room in units_of, made_after and made_before for every id below `ids`
 * (each id's units 1 until a merge sets them: the base units have one). */
int cover_ids(State *s, int64_t ids) {
    if (ids <= s->ids) return 0;
    int64_t old = s->ids, units_capacity = old, after_capacity = old, before_capacity = old;
    if (grow((void **)&s->units_of, &units_capacity, ids, sizeof(int32_t)) ||
        grow((void **)&s->made_after, &after_capacity, ids, sizeof(int32_t)) ||
        grow((void **)&s->made_before, &before_capacity, ids, sizeof(int32_t))) {
        return -1;
    }
    s->ids = units_capacity < after_capacity ? units_capacity : after_capacity;
    if (before_capacity < s->ids) s->ids = before_capacity;
    for (int64_t id = old; id < s->ids; id++) {
        s->units_of[id] = 1;
        s->made_after[id] = s->made_before[id] = NO_PAIR;
    }
    return 0;
}

/* Replace every occurrence of the pair `merged`, left to right, by
 * `new_id`: at each, "x A B y" becomes "x Z y", so (x, A) and (B, y) lose
 * an occurrence and (x, Z) and (Z, y) gain one (see MergeState.merge). */
int merge(State *s, int32_t merged, int32_t new_id) {
    if (cover_ids(s, (int64_t)new_id + 1)) return -1;
    s->units_of[new_id] = s->units_of[s->pairs[merged].left] + s->units_of[s->pairs[merged].right];
    Positions where = s->pairs[merged].where; /* taken over: the pair is gone after this */
    memset(&s->pairs[merged].where, 0, sizeof where);
    Position *at = s->at;
    int64_t merged_occurrences = 0;
    int failed = 0;
    s->made_size = s->emptied_size = 0;
    for (int32_t index = where.start; index < where.size && !failed; index++) {
        if (index + PREFETCH_AHEAD < where.size) { /* its neighbours too: two cache lines */
            int32_t later = where.at[index + PREFETCH_AHEAD];
            __builtin_prefetch(&at[later > 0 ? later - 1 : 0]);
            __builtin_prefetch(&at[later + 1 < s->positions ? later + 1 : later]);
        }
        int32_t left = where.at[index];
        if (at[left].pair != merged) continue; /* stale, or consumed by an overlapping merge ("aaa") */
        int32_t right = next_of(s, left), before = at[left].prev, after = next_of(s, right);
        int64_t occurrences = s->weights[at[left].piece];
        if (before != UNLINKED) {
            int32_t x = at[before].token;
            int32_t made = made_pair(s, &s->made_after[x], x, new_id);
            failed = made == NO_PAIR || lose(s, before, occurrences) || gain(s, made, before, occurrences);
        }
        at[left].pair = NO_PAIR;
        if (after != UNLINKED && !failed) {
            int32_t y = at[after].token;
            int32_t made = made_pair(s, &s->made_before[y], new_id, y);
            failed = made == NO_PAIR || lose(s, right, occurrences) || gain(s, made, left, occurrences);
            at[after].prev = left;
        }
        at[left].token = new_id; /* the token after it is now `after`: units_of[new_id] on */
        at[right].token = ABSORBED;
        at[right].pair = NO_PAIR;
        merged_occurrences += occurrences;
    }
    free(where.at);
    s->corpus_tokens -= merged_occurrences;
    s->pairs[merged].count = 0;
    for (int64_t index = 0; index < s->emptied_size; index++) {
        Pair *pair = &s->pairs[s->emptied[index]];
        if (pair->count == 0) forget_positions(&pair->where);
    }
    for (int64_t index = 0; index < s->made_size; index++) {
        int32_t number = s->made[index];
        Pair *pair = &s->pairs[number];
        if (pair->right == new_id) s->made_after[pair->left] = NO_PAIR;
        if (pair->left == new_id) s->made_before[pair->right] = NO_PAIR;
        if (pair->count > 0 && !failed) failed = offer(s, number);
    }
    return failed ? -1 : 0;
}

/* ---- the corpus, from Python's pieces ---- */

/* Adds one piece's units. Returns -1 out of memory, 1 if it is beyond
 * what this file handles exactly, 0 when done. */
int add_units(State *s, int64_t *room, const int32_t *units, int64_t size, int64_t weight) {
    int64_t tokens;
    if (size == 0) return 0;
    if (s->positions + size >= INT32_MAX || s->pieces >= INT32_MAX || __builtin_mul_overflow(size, weight, &tokens) ||
        __builtin_add_overflow(s->corpus_tokens, tokens, &s->corpus_tokens)) {
        return 1;
    }
    if (grow((void **)&s->at, room, s->positions + size, sizeof(Position)) ||
        grow((void **)&s->weights, &s->weights_capacity, s->pieces + 1, sizeof(int64_t)) ||
        grow((void **)&s->ends, &s->ends_capacity, s->pieces + 1, sizeof(int32_t))) {
        return -1;
    }
    s->weights[s->pieces] = weight;
    s->ends[s->pieces] = (int32_t)(s->positions + size);
    for (int64_t unit = 0; unit < size; unit++) {
        int32_t position = (int32_t)(s->positions + unit);
        s->at[position] = (Position){
            .token = units[unit],
            .prev = unit > 0 ? position - 1 : UNLINKED,
            .pair = NO_PAIR,
            .piece = (int32_t)s->pieces,
        };
    }
    s->positions += size;
    s->pieces++;
    return 0;
}

/* The id of each character of `alphabet` (its index), by code point, plus
 * one: 0 means not in the alphabet. */
static int32_t *char_ids_of(PyObject *alphabet) {
    int32_t *ids = calloc(0x110000, sizeof(int32_t)); /* pages never touched cost nothing */
    if (ids == NULL) return NULL;
    int kind = PyUnicode_KIND(alphabet);
    const void *data = PyUnicode_DATA(alphabet);
    for (Py_ssize_t index = PyUnicode_GET_LENGTH(alphabet) - 1; index >= 0; index--) {
        ids[PyUnicode_READ(kind, data, index)] = (int32_t)index + 1;
    }
    return ids;
}

/* The pieces ({piece: count}, in order of first appearance) as positions:
 * their UTF-8 bytes, or the ids of their characters in `alphabet`. Returns
 * -1 with an exception set, 1 if they are beyond what this file handles
 * exactly, 0 when done. */
int read_pieces(State *s, PyObject *pieces, PyObject *alphabet) {
    int32_t *char_ids = NULL, *units = NULL;
    int64_t units_capacity = 0, room = 0;
    int outcome = 0;
    if (alphabet != Py_None && (char_ids = char_ids_of(alphabet)) == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    Py_ssize_t cursor = 0;
    PyObject *piece, *count;
    while (outcome == 0 && PyDict_Next(pieces, &cursor, &piece, &count)) {
        int overflow = 0;
        long long weight = PyLong_CheckExact(count) ? PyLong_AsLongLongAndOverflow(count, &overflow) : 0;
        if (!PyUnicode_CheckExact(piece) || overflow || weight < 1) {
            outcome = 1;
            break;
        }
        PyObject *encoded = NULL;
        const unsigned char *bytes = NULL;
        Py_ssize_t size = PyUnicode_GET_LENGTH(piece);
        if (char_ids == NULL && !PyUnicode_IS_ASCII(piece)) {
            if ((encoded = PyUnicode_AsUTF8String(piece)) == NULL) { /* a lone surrogate: Python says what is wrong */
                PyErr_Clear();
                outcome = 1;
                break;
            }
            bytes = (const unsigned char *)PyBytes_AS_STRING(encoded);
            size = PyBytes_GET_SIZE(encoded);
        } else if (char_ids == NULL) {
            bytes = PyUnicode_DATA(piece);
        }
        if (grow((void **)&units, &units_capacity, size, sizeof(int32_t))) {
            Py_XDECREF(encoded);
            outcome = -1;
            break;
        }
        if (bytes != NULL) {
            for (Py_ssize_t index = 0; index < size; index++) units[index] = bytes[index];
        } else {
            int kind = PyUnicode_KIND(piece);
            const void *data = PyUnicode_DATA(piece);
            for (Py_ssize_t index = 0; index < size && outcome == 0; index++) {
                units[index] = char_ids[PyUnicode_READ(kind, data, index)] - 1;
                if (units[index] < 0) outcome = 1; /* not in the alphabet */
            }
        }
        Py_XDECREF(encoded);
        if (outcome == 0) outcome = add_units(s, &room, units, size, weight);
    }
    free(units);
    free(char_ids);
    if (outcome == -1 && !PyErr_Occurred()) PyErr_NoMemory();
    return outcome;
}

/* Pairs by their two ids, only while the corpus is first counted (after
 * that, each position knows the pair that starts there): open addressing,
 * placed by siphash.h's keyed hash, so that no corpus can be made whose
 * pairs all land in one run of slots. */
typedef struct {
    uint64_t key; /* pair_key(left, right); EMPTY_KEY where free */
    int32_t pair;
} Slot;

static Slot *new_slots(uint64_t size) {
    Slot *slots = malloc(size * sizeof *slots);
    for (uint64_t slot = 0; slots != NULL && slot < size; slot++) slots[slot].key = EMPTY_KEY;
    return slots;
}

/* Where the pair `key` is, or the free slot where it goes. */
static Slot *find_slot(Slot *slots, uint64_t size, uint64_t key) {
    uint64_t slot = hash_word(key) & (size - 1);
    while (slots[slot].key != key && slots[slot].key != EMPTY_KEY) slot = (slot + 1) & (size - 1);
    return &slots[slot];
}

/* Every pair of adjacent positions counted; the heap and the once-seen filled. */
int count_pairs(State *s) {
    uint64_t size = 1024;
    keep_hash_key();
    Slot *slots = new_slots(size);
    int failed = slots == NULL;
    for (int32_t position = 0; position < s->positions && !failed; position++) {
        int32_t right = next_of(s, position);
        if (right == UNLINKED) continue;
        int32_t left_id = s->at[position].token, right_id = s->at[right].token;
        uint64_t key = pair_key(left_id, right_id);
        Slot *slot = find_slot(slots, size, key);
        if (slot->key == EMPTY_KEY) {
            if (2 * ((uint64_t)s->pair_count + 1) > size) { /* at most half full */
                Slot *larger = new_slots(2 * size);
                if ((failed = larger == NULL)) break;
                for (uint64_t old = 0; old < size; old++) {
                    if (slots[old].key != EMPTY_KEY) *find_slot(larger, 2 * size, slots[old].key) = slots[old];
                }
                free(slots);
                slots = larger;
                size *= 2;
                slot = find_slot(slots, size, key);
            }
            slot->key = key;
            if ((failed = (slot->pair = new_pair(s, left_id, right_id)) == NO_PAIR)) break;
        }
        failed = gain(s, slot->pair, position, s->weights[s->at[position].piece]);
    }
    free(slots);
    s->seen_once = malloc(sizeof(int32_t)); /* not NULL: the once-seen wait */
    failed |= s->seen_once == NULL;
    for (int32_t number = 0; number < s->pair_count && !failed; number++) failed = offer(s, number);
    return failed ? -1 : 0;
}

const char pair_hash_doc[] =
    "pair_hash(left, right) -> int: the hash that places the pair of ids (left, right) in this module's tables of "
    "pairs (count_pairs'; Picky BPE's).";

PyObject *pair_hash(PyObject *module, PyObject *args) {
    (void)module;
    int32_t left, right;
    if (!PyArg_ParseTuple(args, "ii:pair_hash", &left, &right)) return NULL;
    return PyLong_FromUnsignedLongLong(hash_word(pair_key(left, right)));
}

double monotonic_seconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now); /* the clock of Python's time.monotonic() */
    return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

const char native_learn_merges_doc[] =
    "learn_merges(pieces, alphabet, num_merges, min_count, deadline, progress, report_every)\n"
    "--\n\n"
    "Learn up to `num_merges` merges over `pieces` ({piece: count}, in order of\n"
    "first appearance), as merge_learning.learn_merges does. Units are UTF-8\n"
    "bytes when `alphabet` is None, else the characters of the str `alphabet`\n"
    "(id i is its i-th character). `deadline` is a time.monotonic() reading or\n"
    "None; `progress(done, num_merges)` is called after every `report_every`\n"
    "merges. Returns (steps, stop, stop_count): steps bytes holding four\n"
    "native 64-bit integers a merge (left, right, count, corpus_tokens after:\n"
    "memoryview(steps).cast('q')), stop 0 (all learned), 1 (the deadline\n"
    "passed), 2 (no pair left) or 3 (the best pair's count, stop_count, is\n"
    "below min_count). Returns None for pieces it cannot learn from exactly.";

PyObject *native_learn_merges(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *pieces, *alphabet, *deadline_object, *progress;
    long long num_merges, min_count, report_every;
    if (!PyArg_ParseTuple(args, "O!OLLOOL:learn_merges", &PyDict_Type, &pieces, &alphabet, &num_merges, &min_count,
                          &deadline_object, &progress, &report_every)) {
        return NULL;
    }
    if (alphabet != Py_None && !PyUnicode_Check(alphabet)) {
        PyErr_SetString(PyExc_TypeError, "alphabet must be a str or None");
        return NULL;
    }
    int has_deadline = deadline_object != Py_None;
    double deadline = has_deadline ? PyFloat_AsDouble(deadline_object) : 0.0;
    if (has_deadline && PyErr_Occurred()) return NULL;
    int64_t base_size = alphabet == Py_None ? 256 : PyUnicode_GET_LENGTH(alphabet);
    if (num_merges < 0 || report_every < 1 || base_size + num_merges >= INT32_MAX) Py_RETURN_NONE;

    State s;
    memset(&s, 0, sizeof s);
    int64_t *learned = NULL, learned_capacity = 0; /* per step: left, right, count, corpus tokens after */
    int stop = STOP_DONE, failed = 0;
    int64_t stop_count = 0;
    int32_t step = 0;
    PyObject *result = NULL;
    int outcome = read_pieces(&s, pieces, alphabet);
    if (outcome != 0) goto done;
    if (cover_ids(&s, base_size) || count_pairs(&s)) {
        PyErr_NoMemory();
        goto done;
    }
    while (step < num_merges && stop == STOP_DONE && !failed) {
        int32_t until = progress == Py_None ? (int32_t)num_merges : (int32_t)((step / report_every + 1) * report_every);
        if (until > num_merges) until = (int32_t)num_merges;
        Py_BEGIN_ALLOW_THREADS
        for (; step < until; step++) {
            if (has_deadline && monotonic_seconds() > deadline) {
                stop = STOP_DEADLINE;
                break;
            }
            int32_t best = best_pair(&s, NULL, NULL);
            if (best == NO_PAIR || best == -2) {
                stop = STOP_NO_PAIR;
                failed = best == -2;
                break;
            }
            if (s.pairs[best].count < min_count) {
                stop = STOP_MIN_COUNT;
                stop_count = s.pairs[best].count;
                break;
            }
            if (grow((void **)&learned, &learned_capacity, 4 * ((int64_t)step + 1), sizeof(int64_t))) {
                failed = 1;
                break;
            }
            int64_t *row = &learned[4 * (int64_t)step];
            row[0] = s.pairs[best].left;
            row[1] = s.pairs[best].right;
            row[2] = s.pairs[best].count;
            if ((failed = merge(&s, best, (int32_t)(base_size + step)))) break;
            row[3] = s.corpus_tokens;
        }
        Py_END_ALLOW_THREADS
        if (failed) {
            PyErr_NoMemory();
        } else if (stop == STOP_DONE && progress != Py_None && step % report_every == 0) {
            PyObject *heard = PyObject_CallFunction(progress, "iL", step, num_merges);
            failed = heard == NULL; /* the caller stops the job by raising */
            Py_XDECREF(heard);
        }
    }
    free_state(&s); /* before the Python objects are made: the two need not fit in memory together */
    memset(&s, 0, sizeof s);
    if (!failed) {
        /* The rows as they are, not a tuple of four Python ints a merge (over
         * 150 bytes each), so that the caller's trace is the only copy of
         * the merges as Python objects. */
        PyObject *steps = PyBytes_FromStringAndSize((const char *)learned, 4 * (Py_ssize_t)step * sizeof(int64_t));
        if (steps != NULL) result = Py_BuildValue("(NiL)", steps, stop, (long long)stop_count);
    }
done:
    free(learned);
    free_state(&s);
    if (outcome == 1) Py_RETURN_NONE;
    return result;
}
