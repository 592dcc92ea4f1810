/* Byte pair encoding in C; see bpe.h. */

#include "siphash.h" /* hash_bytes: where a token, or a piece, goes in a table */

#include "bpe.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define HUGE_PAGE (2u << 20)

/* ---------------------------------------------------------- the table */

/* A token's slot is where siphash.h's hash_bytes, under the module's key
   (drawn as the module is imported, see c_encoder.py), points, or the next
   free one after it. Were the hash fixed, a visitor's vocabulary (a
   tiktoken file, a model folder) could be made of tokens that all land in
   one run of slots, and each lookup would walk the run: building the table
   would take time in the square of the tokens, and so would a text of
   them. Which tokens collide under a key drawn at random cannot be known
   without it; the same goes for the pieces of a text in `bpe_cache`.
   SipHash-1-3 of a short token costs more than a multiply and a shift,
   but a lookup's time is the memory it reads: encoding measured as fast.

   A slot holds a token's first eight bytes itself, so that looking up a
   short token (most are) reads one 16-byte slot and nothing else; a longer
   token's remaining bytes are in `bytes`, at `tails[slot]`. The table is
   at most half full, and for a large vocabulary asks the kernel for huge
   pages: each lookup lands somewhere new in megabytes, and with 4 KB
   pages the address translation misses as often as the cache does. */
struct bpe_slot {
    uint64_t head;   /* the first 8 bytes, zero-padded */
    uint32_t length; /* 0: an empty slot */
    bpe_rank rank;
};

static inline uint64_t head_of(const uint8_t *bytes, size_t length) {
    uint64_t head = 0;
    memcpy(&head, bytes, length < 8 ? length : 8);
    return head;
}

static void *table_alloc(size_t size) {
#ifdef MADV_HUGEPAGE
    if (size >= HUGE_PAGE) {
        void *memory = NULL;
        size = (size + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
        if (posix_memalign(&memory, HUGE_PAGE, size)) {
            return NULL;
        }
        madvise(memory, size, MADV_HUGEPAGE); /* advice: fine if refused */
        memset(memory, 0, size);
        return memory;
    }
#endif
    return calloc(1, size);
}

int bpe_ranks_init(bpe_ranks *ranks, size_t count, const uint8_t *const *token, const size_t *length,
                   const bpe_rank *rank) {
    memset(ranks, 0, sizeof *ranks);
    size_t capacity = 16, total = 0;
    while (capacity < 2 * count) { /* at most half full */
        capacity *= 2;
    }
    for (size_t i = 0; i < count; i++) {
        total += length[i] > 8 ? length[i] - 8 : 0;
    }
    ranks->slots = table_alloc(capacity * sizeof *ranks->slots);
    ranks->tails = calloc(capacity, sizeof *ranks->tails);
    ranks->bytes = malloc(total ? total : 1);
    if (!ranks->slots || !ranks->tails || !ranks->bytes || total > UINT32_MAX) {
        bpe_ranks_free(ranks);
        return -1;
    }
    ranks->mask = capacity - 1;
    keep_hash_key(); /* the slots are placed by the key: it stays */
    for (int byte = 0; byte < 256; byte++) {
        ranks->byte_ranks[byte] = BPE_NO_RANK;
    }
    size_t offset = 0;
    for (size_t i = 0; i < count; i++) {
        if (length[i] == 0 || length[i] > UINT32_MAX) {
            continue; /* no piece is empty; none is 4 GB long */
        }
        if (bpe_rank_of(ranks, token[i], length[i]) != BPE_NO_RANK) {
            continue; /* the same bytes twice: the first rank given stays */
        }
        if (length[i] == 1) {
            ranks->byte_ranks[token[i][0]] = rank[i];
        }
        size_t at = hash_bytes(token[i], length[i]) & ranks->mask;
        while (ranks->slots[at].length) {
            at = (at + 1) & ranks->mask;
        }
        ranks->slots[at] = (bpe_slot){head_of(token[i], length[i]), (uint32_t)length[i], rank[i]};
        if (length[i] > 8) {
            memcpy(ranks->bytes + offset, token[i] + 8, length[i] - 8);
            ranks->tails[at] = (uint32_t)offset;
            offset += length[i] - 8;
        }
        ranks->size++;
    }
    return 0;
}

void bpe_ranks_free(bpe_ranks *ranks) {
    free(ranks->slots);
    free(ranks->tails);
    free(ranks->bytes);
    ranks->slots = NULL;
    ranks->tails = NULL;
    ranks->bytes = NULL;
}

static inline bpe_rank rank_with_hash(const bpe_ranks *ranks, const uint8_t *bytes, size_t length, uint64_t hash) {
    uint64_t head = head_of(bytes, length);
    for (size_t at = hash & ranks->mask;; at = (at + 1) & ranks->mask) {
        const bpe_slot *slot = &ranks->slots[at];
        if (slot->length == length && slot->head == head &&
            (length <= 8 || !memcmp(ranks->bytes + ranks->tails[at], bytes + 8, length - 8))) {
            return slot->rank;
        }
        if (slot->length == 0) {
            return BPE_NO_RANK;
        }
    }
}

bpe_rank bpe_rank_of(const bpe_ranks *ranks, const uint8_t *bytes, size_t length) {
    return rank_with_hash(ranks, bytes, length, hash_bytes(bytes, length));
}

/* ------------------------------------------------------------ tokens out */

int bpe_tokens_push(bpe_tokens *out, bpe_rank id) {
    if (out->size == out->capacity) {
        size_t capacity = out->capacity ? 2 * out->capacity : 1024;
        bpe_rank *ids = realloc(out->ids, capacity * sizeof *ids);
        if (!ids) {
            return -1;
        }
        out->ids = ids;
        out->capacity = capacity;
    }
    out->ids[out->size++] = id;
    return 0;
}

void bpe_tokens_free(bpe_tokens *out) {
    free(out->ids);
    out->ids = NULL;
    out->size = out->capacity = 0;
}

/* ----------------------------------------------------- merging a piece */

/* Pieces shorter than this merge as tiktoken merges them: a list of parts,
   scanned whole for the lowest pair at each step (n parts, m merges: n*m
   work, and nothing beats a scan of a few cached words). Longer ones (a
   whitespace run, a line of CJK, a whole text without pre-tokenization)
   keep their candidate pairs in a heap: n log n. Both merge the pair of
   lowest rank, the leftmost on a tie, so they give the same tokens. */
#define SHORT_PIECE 128

static int merge_short(const bpe_ranks *ranks, const uint8_t *piece, size_t length, bpe_tokens *out) {
    uint32_t start[SHORT_PIECE + 1];     /* where each part starts; start[parts] == length */
    bpe_rank part_rank[SHORT_PIECE];     /* each part's token */
    bpe_rank pair_rank[SHORT_PIECE];     /* the token of each part with the next, or BPE_NO_RANK */
    size_t parts = length;
    for (size_t i = 0; i < length; i++) {
        start[i] = (uint32_t)i;
        part_rank[i] = ranks->byte_ranks[piece[i]]; /* BPE_NO_RANK if none: then it must merge */
    }
    start[length] = (uint32_t)length;
    for (size_t i = 0; i + 1 < length; i++) {
        pair_rank[i] = bpe_rank_of(ranks, piece + i, 2);
    }
    pair_rank[length - 1] = BPE_NO_RANK;
    for (;;) {
        bpe_rank lowest = BPE_NO_RANK;
        size_t at = 0;
        for (size_t i = 0; i + 1 < parts; i++) {
            if (pair_rank[i] < lowest) {
                lowest = pair_rank[i];
                at = i;
            }
        }
        if (lowest == BPE_NO_RANK) {
            break;
        }
        /* parts at and at+1 become one */
        part_rank[at] = lowest;
        memmove(start + at + 1, start + at + 2, (parts - at - 1) * sizeof *start);
        memmove(part_rank + at + 1, part_rank + at + 2, (parts - at - 2) * sizeof *part_rank);
        memmove(pair_rank + at + 1, pair_rank + at + 2, (parts - at - 2) * sizeof *pair_rank);
        parts--;
        pair_rank[at] = at + 1 < parts ? bpe_rank_of(ranks, piece + start[at], start[at + 2] - start[at]) : BPE_NO_RANK;
        if (at > 0) {
            pair_rank[at - 1] = bpe_rank_of(ranks, piece + start[at - 1], start[at + 1] - start[at - 1]);
        }
    }
    for (size_t i = 0; i < parts; i++) {
        if (part_rank[i] == BPE_NO_RANK) {
            return -2;
        }
        if (bpe_tokens_push(out, part_rank[i])) {
            return -1;
        }
    }
    return 0;
}

static int merge_long(const bpe_ranks *ranks, const uint8_t *piece, size_t length, bpe_tokens *out);

/* The tokens of a piece that is no token itself. */
static int merge(const bpe_ranks *ranks, const uint8_t *piece, size_t length, bpe_tokens *out) {
    return length < SHORT_PIECE ? merge_short(ranks, piece, length, out) : merge_long(ranks, piece, length, out);
}

/* A candidate merge: the pair whose left part starts at `start`. */
typedef struct {
    bpe_rank rank;
    uint32_t start;
} candidate;

static inline int before(candidate a, candidate b) {
    return a.rank < b.rank || (a.rank == b.rank && a.start < b.start);
}

static void heap_push(candidate *heap, size_t *size, candidate c) {
    size_t at = (*size)++;
    while (at > 0 && before(c, heap[(at - 1) / 2])) {
        heap[at] = heap[(at - 1) / 2];
        at = (at - 1) / 2;
    }
    heap[at] = c;
}

static candidate heap_pop(candidate *heap, size_t *size) {
    candidate top = heap[0], last = heap[--*size];
    size_t at = 0;
    for (;;) {
        size_t child = 2 * at + 1;
        if (child >= *size) {
            break;
        }
        if (child + 1 < *size && before(heap[child + 1], heap[child])) {
            child++;
        }
        if (!before(heap[child], last)) {
            break;
        }
        heap[at] = heap[child];
        at = child;
    }
    heap[at] = last;
    return top;
}

/* Each part, by where it starts: tiktoken's `_byte_pair_merge_large`. */
typedef struct {
    uint32_t previous;  /* start of the part before (UINT32_MAX for none) */
    uint32_t end;       /* end of this part */
    uint32_t next_end;  /* end of the part after it */
    bpe_rank next_rank; /* the merge with the part after, if queued; else BPE_NO_RANK */
    bpe_rank rank;      /* this part's token */
} part;

static void queue_merge(const bpe_ranks *ranks, const uint8_t *piece, size_t length, part *parts,
                        candidate *heap, size_t *heap_size, uint32_t start, uint32_t next_end) {
    parts[start].next_end = next_end;
    parts[start].next_rank = BPE_NO_RANK; /* any merge queued before is stale now */
    if (next_end <= length) {
        bpe_rank rank = bpe_rank_of(ranks, piece + start, next_end - start);
        if (rank != BPE_NO_RANK) {
            parts[start].next_rank = rank;
            heap_push(heap, heap_size, (candidate){rank, start});
        }
    }
}

static int merge_long(const bpe_ranks *ranks, const uint8_t *piece, size_t length, bpe_tokens *out) {
    if (length >= UINT32_MAX) {
        return -3;
    }
    part *parts = malloc(length * sizeof *parts);
    /* at most one candidate per part at first, and two more per merge */
    candidate *heap = malloc(3 * length * sizeof *heap);
    if (!parts || !heap) {
        free(parts);
        free(heap);
        return -1;
    }
    size_t heap_size = 0;
    for (uint32_t i = 0; i < length; i++) {
        parts[i] = (part){i ? i - 1 : UINT32_MAX, i + 1, i + 2, BPE_NO_RANK, ranks->byte_ranks[piece[i]]};
    }
    for (uint32_t i = 0; i + 1 < length; i++) {
        queue_merge(ranks, piece, length, parts, heap, &heap_size, i, i + 2);
    }
    while (heap_size) {
        candidate c = heap_pop(heap, &heap_size);
        if (c.rank != parts[c.start].next_rank) {
            continue; /* a neighbour merged since it was queued */
        }
        uint32_t left = c.start, right = parts[left].end, right_end = parts[left].next_end;
        parts[left].rank = c.rank;
        parts[left].end = right_end;
        queue_merge(ranks, piece, length, parts, heap, &heap_size, left, parts[right].next_end);
        if (right_end < length) {
            parts[right_end].previous = left;
        }
        if (left > 0) {
            queue_merge(ranks, piece, length, parts, heap, &heap_size, parts[left].previous, right_end);
        }
        parts[right].next_rank = BPE_NO_RANK;
    }
    int status = 0;
    for (uint32_t i = 0; i < length && !status; i = parts[i].end) {
        status = parts[i].rank == BPE_NO_RANK ? -2 : bpe_tokens_push(out, parts[i].rank);
    }
    free(parts);
    free(heap);
    return status;
}

int bpe_encode_piece(const bpe_ranks *ranks, const uint8_t *piece, size_t length, bpe_tokens *out) {
    if (length == 1) {
        bpe_rank rank = ranks->byte_ranks[piece[0]];
        return rank == BPE_NO_RANK ? -2 : bpe_tokens_push(out, rank);
    }
    bpe_rank whole = bpe_rank_of(ranks, piece, length); /* tiktoken's shortcut: a piece that is a token */
    if (whole != BPE_NO_RANK) {
        return bpe_tokens_push(out, whole);
    }
    return merge(ranks, piece, length, out);
}

/* ------------------------------------------------- pieces seen before */

/* A text repeats its pieces: " the" thousands of times, a rare name a few.
   A piece that is a token costs one lookup anyway, but one that merges
   costs dozens, so the merged ones are remembered for the rest of the text
   (`bpe_cache`): the piece (where it is in the text) and where its tokens
   already are in the output. tiktoken gave up its cache for threads'
   sake; this one belongs to one call, so threads share nothing. */
typedef struct cached_piece {
    uint64_t hash;
    size_t start, length;  /* the piece, in the text */
    size_t first, count;   /* its tokens, in the output */
} cached_piece;

#define CACHED_PIECE_BYTES 256      /* longer pieces (long runs) rarely repeat */
#define CACHED_PIECES_MAX (1u << 20) /* then it stops growing */

static int cache_grow(bpe_cache *cache) {
    size_t capacity = cache->capacity ? 2 * cache->capacity : 1024;
    cached_piece *entries = calloc(capacity, sizeof *entries);
    if (!entries) {
        return -1;
    }
    for (size_t i = 0; i < cache->capacity; i++) {
        if (cache->entries[i].length) {
            size_t at = cache->entries[i].hash & (capacity - 1);
            while (entries[at].length) {
                at = (at + 1) & (capacity - 1);
            }
            entries[at] = cache->entries[i];
        }
    }
    free(cache->entries);
    cache->entries = entries;
    cache->capacity = capacity;
    return 0;
}

void bpe_cache_free(bpe_cache *cache) {
    free(cache->entries);
    memset(cache, 0, sizeof *cache);
}

/* One piece of `text` (from `start`, `length` bytes), through the cache. */
static int encode_cached(const bpe_ranks *ranks, const uint8_t *text, size_t start, size_t length, bpe_cache *cache,
                         bpe_tokens *out) {
    const uint8_t *piece = text + start;
    if (length == 1) {
        bpe_rank rank = ranks->byte_ranks[piece[0]];
        return rank == BPE_NO_RANK ? -2 : bpe_tokens_push(out, rank);
    }
    uint64_t hash = hash_bytes(piece, length);
    bpe_rank whole = rank_with_hash(ranks, piece, length, hash);
    if (whole != BPE_NO_RANK) {
        return bpe_tokens_push(out, whole);
    }
    if (length > CACHED_PIECE_BYTES) {
        return merge(ranks, piece, length, out);
    }
    size_t at = 0;
    if (cache->capacity) {
        for (at = hash & (cache->capacity - 1); cache->entries[at].length; at = (at + 1) & (cache->capacity - 1)) {
            cached_piece *seen = &cache->entries[at];
            if (seen->hash == hash && seen->length == length && !memcmp(text + seen->start, piece, length)) {
                for (size_t i = 0; i < seen->count; i++) {
                    if (bpe_tokens_push(out, out->ids[seen->first + i])) {
                        return -1;
                    }
                }
                return 0;
            }
        }
    }
    size_t first = out->size;
    int status = merge(ranks, piece, length, out);
    if (status || cache->size >= CACHED_PIECES_MAX) {
        return status;
    }
    if (2 * (cache->size + 1) > cache->capacity) {
        if (cache_grow(cache)) {
            return 0; /* no room to remember it: encoding goes on all the same */
        }
        at = hash & (cache->capacity - 1); /* the free slot it goes to, in the larger table */
        while (cache->entries[at].length) {
            at = (at + 1) & (cache->capacity - 1);
        }
    }
    cache->entries[at] = (cached_piece){hash, start, length, first, out->size - first};
    cache->size++;
    return 0;
}

int bpe_encode_text(const bpe_ranks *ranks, split_pattern pattern, const uint8_t *text, size_t start, size_t end,
                    bpe_cache *cache, bpe_tokens *out) {
    while (start < end) {
        size_t piece_end = split_next(pattern, text, end, start);
        int status = encode_cached(ranks, text, start, piece_end - start, cache, out);
        if (status) {
            return status;
        }
        start = piece_end;
    }
    return 0;
}

int bpe_encode_pieces(const bpe_ranks *ranks, const uint8_t *text, const size_t *ends, size_t count, bpe_cache *cache,
                      bpe_tokens *out) {
    size_t start = 0;
    for (size_t i = 0; i < count; i++) {
        if (ends[i] > start) {
            int status = encode_cached(ranks, text, start, ends[i] - start, cache, out);
            if (status) {
                return status;
            }
        }
        start = ends[i];
    }
    return 0;
}
