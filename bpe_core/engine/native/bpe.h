/* Byte pair encoding in C: tiktoken's algorithm over a table of ranks.

   A vocabulary is a table of token bytes -> rank (the token's id). A piece
   of text that is itself a token is that token; otherwise it starts as one
   part per byte, and the adjacent pair of parts whose bytes together form
   the token of lowest rank merges, the leftmost on a tie, until no pair
   forms a token. That is bpe_core's merge loop (merge_loop.py) and
   tiktoken's `byte_pair_encode`, rule for rule. */

#ifndef BPE_BPE_H
#define BPE_BPE_H

#include <stddef.h>
#include <stdint.h>

#include "split.h"

typedef uint32_t bpe_rank;
#define BPE_NO_RANK UINT32_MAX

typedef struct bpe_slot bpe_slot;

typedef struct {
    bpe_slot *slots;    /* open addressing, a power of two of them */
    size_t mask;        /* slots - 1 */
    uint32_t *tails;    /* per slot: where a long token's bytes after its eighth are */
    uint8_t *bytes;     /* those bytes, one token's after another */
    size_t size;        /* tokens */
    bpe_rank byte_ranks[256]; /* each single byte's rank (BPE_NO_RANK if none) */
} bpe_ranks;

/* Tokens as they are produced. */
typedef struct {
    bpe_rank *ids;
    size_t size, capacity;
} bpe_tokens;

/* Build the table from `count` tokens (bytes `token[i]`, `length[i]` long,
   rank `rank[i]`); 0 on success, -1 when memory runs out. The table owns
   copies of the bytes. */
int bpe_ranks_init(bpe_ranks *ranks, size_t count, const uint8_t *const *token, const size_t *length,
                   const bpe_rank *rank);
void bpe_ranks_free(bpe_ranks *ranks);

/* The rank of a token's bytes, or BPE_NO_RANK. */
bpe_rank bpe_rank_of(const bpe_ranks *ranks, const uint8_t *bytes, size_t length);

/* Append the tokens of one piece; 0 on success, -1 when memory runs out,
   -2 when a byte of the piece is no token and merges into none
   (a vocabulary of characters may lack single bytes). */
int bpe_encode_piece(const bpe_ranks *ranks, const uint8_t *piece, size_t length, bpe_tokens *out);

/* The pieces of one text that merged, remembered for the rest of it (see
   bpe.c); start from {0}, free with bpe_cache_free. */
typedef struct {
    struct cached_piece *entries;
    size_t size, capacity;
} bpe_cache;
void bpe_cache_free(bpe_cache *cache);

/* Split text[start:end] with `pattern` (end is the end of the text, for
   the pattern) and append the tokens of every piece; the return values
   of `bpe_encode_piece`. `cache` may be shared by the calls for the parts
   of one text (between special tokens), and by no other text. Needs no
   Python: callers may let other threads run. */
int bpe_encode_text(const bpe_ranks *ranks, split_pattern pattern, const uint8_t *text, size_t start, size_t end,
                    bpe_cache *cache, bpe_tokens *out);

/* The same for pieces cut elsewhere (by a pattern only a regex engine
   reads): piece i is text[ends[i - 1]:ends[i]], the first from 0. */
int bpe_encode_pieces(const bpe_ranks *ranks, const uint8_t *text, const size_t *ends, size_t count, bpe_cache *cache,
                      bpe_tokens *out);

int bpe_tokens_push(bpe_tokens *out, bpe_rank id);
void bpe_tokens_free(bpe_tokens *out);

#endif
