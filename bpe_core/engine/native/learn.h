/* learn.c's merge state, for the files that train on it: learn.c itself
 * (plain BPE, native_learn_merges) and research.c (SuperBPE, BoundlessBPE
 * and Picky BPE, each a rule or a step added to the same state). learn.c
 * says how the state works; this file says what it holds and what the
 * other files may call. */
#ifndef BPE_CORE_LEARN_H
#define BPE_CORE_LEARN_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#define UNLINKED (-1) /* a neighbour meaning "none": the piece ends here */
#define ABSORBED (-1) /* the token of a position merged into its left neighbour */
#define NO_PAIR (-1)

/* Why training stopped; Python words each reason (merge_learning's stop_reason). */
enum { STOP_DONE = 0, STOP_DEADLINE = 1, STOP_NO_PAIR = 2, STOP_MIN_COUNT = 3 };

/* One position of the corpus; its fields lie together, as a merge reads
 * them together (16 bytes: a 50 MB corpus has over a million positions). */
typedef struct {
    int32_t token; /* the id there, or ABSORBED */
    int32_t prev;  /* where the token before it in the same piece starts, or UNLINKED */
    int32_t pair;  /* the pair that starts here (this token and the next), or NO_PAIR */
    int32_t piece; /* the piece it belongs to: weights[piece], ends[piece] */
} Position;

/* Where a pair starts: ascending, those before `start` known not to hold
 * it any more. The array holds room for `capacity(size)` positions. */
typedef struct {
    int32_t *at;
    int32_t start, size;
} Positions;

typedef struct {
    int32_t left, right;
    int64_t count; /* occurrences, each times its piece's weight; 0: gone for good */
    Positions where;
} Pair;

typedef struct {
    int64_t count; /* the pair's count when the entry was made (only ever too high) */
    int32_t first; /* its first position then (only ever too early) */
    int32_t pair;
} HeapEntry;

typedef struct {
    Position *at; /* the deduplicated corpus */
    int64_t positions, corpus_tokens;
    int64_t *weights; /* of each piece: how often it occurs */
    int32_t *ends;    /* of each piece: the position after its last */
    int64_t pieces, weights_capacity, ends_capacity;
    Pair *pairs; /* every pair seen, by number */
    int32_t pair_count;
    int64_t pair_capacity;
    HeapEntry *heap;
    int64_t heap_size, heap_capacity;
    int32_t *seen_once; /* pairs seen once, outside the heap; NULL once let in */
    int64_t seen_once_size, seen_once_capacity;
    int unplaced_once_seen; /* whether pairs seen once wait for their position too (see place_the_once_seen) */
    /* the pairs the merge under way makes, found by their other token */
    int32_t *units_of;    /* units_of[id]: how many bytes or characters the token covers */
    int32_t *made_after;  /* made_after[x]: the pair (x, new) */
    int32_t *made_before; /* made_before[y]: the pair (new, y) */
    int64_t ids;          /* how many ids those three tables cover */
    int32_t *made, *emptied;
    int64_t made_size, made_capacity, emptied_size, emptied_capacity;
} State;

#define EMPTY_KEY UINT64_MAX /* a free slot of a table keyed by two ids (pair_key) */

/* The pair of ids (left, right) as one number, the key of a table of pairs
 * (placed by siphash.h's hash_word). */
static inline uint64_t pair_key(int32_t left, int32_t right) { return (uint64_t)(uint32_t)left << 32 | (uint32_t)right; }

/* Room for `size` positions in a Positions' array: 4, 8, 16, ... (kept
 * implicit: millions of pairs hold a few positions each). */
static inline int32_t capacity(int32_t size) {
    int32_t room = 4;
    while (room < size) room *= 2;
    return room;
}

/* Where the token after the one at `position` starts, in the same piece,
 * or UNLINKED: as many positions on as the token there has units. */
static inline int32_t next_of(const State *s, int32_t position) {
    int32_t next = position + s->units_of[s->at[position].token];
    return next < s->ends[s->at[position].piece] ? next : UNLINKED;
}

/* Whether a training may merge the pair `pair` (best_pair's `allowed`). */
typedef int (*PairRule)(void *context, State *s, int32_t pair);

int grow(void **array, int64_t *capacity, int64_t needed, size_t item);
int append(int32_t **array, int64_t *size, int64_t *capacity, int32_t value);
int append_position(Positions *where, int32_t position);
void forget_positions(Positions *where);
void free_state(State *s);
int32_t new_pair(State *s, int32_t left, int32_t right);
int32_t first_position(State *s, int32_t number);
int heap_push(State *s, int32_t number, int32_t first);
void heap_pop(State *s);
int offer(State *s, int32_t number);
int32_t best_pair(State *s, PairRule allowed, void *context);
int cover_ids(State *s, int64_t ids);
int merge(State *s, int32_t merged, int32_t new_id);
int add_units(State *s, int64_t *room, const int32_t *units, int64_t size, int64_t weight);
int read_pieces(State *s, PyObject *pieces, PyObject *alphabet);
int count_pairs(State *s);
extern const char pair_hash_doc[];
PyObject *pair_hash(PyObject *module, PyObject *args);
double monotonic_seconds(void);

#endif
