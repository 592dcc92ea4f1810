/* SipHash-1-3 (Python's own hash of strings), under a 128-bit key: the
 * hash that places things in the engine's tables, byte strings (count.c's
 * pieces, research.c's tokens, pretokens and phrases, bpe.c's tokens and the
 * pieces it caches) and pairs of ids (learn.c's count_pairs, research.c's
 * Picky BPE). Were the hash fixed, a corpus (or a vocabulary) could be made
 * of strings or pairs that all land in one place, and counting them (or
 * looking them up) would take time in the square of their number; under a
 * key drawn once per process, which collide cannot be known without it.
 *
 * The key lives in siphash.c, which each extension module compiles in (so
 * each has its own, which native_training.draw_hash_key, or c_encoder.py for
 * the encoder's, sets as the module is imported), and is shared by every
 * file of that module. */
#ifndef BPE_CORE_SIPHASH_H
#define BPE_CORE_SIPHASH_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define SIP_ROTATE(x, bits) ((x) << (bits) | (x) >> (64 - (bits)))
#define SIP_ROUND(v0, v1, v2, v3)                                                             \
    do {                                                                                     \
        v0 += v1; v1 = SIP_ROTATE(v1, 13); v1 ^= v0; v0 = SIP_ROTATE(v0, 32);                \
        v2 += v3; v3 = SIP_ROTATE(v3, 16); v3 ^= v2;                                         \
        v0 += v3; v3 = SIP_ROTATE(v3, 21); v3 ^= v0;                                         \
        v2 += v1; v1 = SIP_ROTATE(v1, 17); v1 ^= v2; v2 = SIP_ROTATE(v2, 32);                \
    } while (0)

static inline uint64_t siphash13(const uint64_t key[2], const void *bytes, size_t length) {
    const unsigned char *data = bytes;
    uint64_t v0 = key[0] ^ 0x736F6D6570736575ull, v1 = key[1] ^ 0x646F72616E646F6Dull;
    uint64_t v2 = key[0] ^ 0x6C7967656E657261ull, v3 = key[1] ^ 0x7465646279746573ull;
    uint64_t last = (uint64_t)length << 56; /* the length's low byte, above the last bytes */
    for (; length >= 8; data += 8, length -= 8) {
        uint64_t word;
        memcpy(&word, data, 8);
        v3 ^= word;
        SIP_ROUND(v0, v1, v2, v3);
        v0 ^= word;
    }
    uint64_t tail = 0;
    memcpy(&tail, data, length);
    last |= tail;
    v3 ^= last;
    SIP_ROUND(v0, v1, v2, v3);
    v0 ^= last;
    v2 ^= 0xFF;
    SIP_ROUND(v0, v1, v2, v3);
    SIP_ROUND(v0, v1, v2, v3);
    SIP_ROUND(v0, v1, v2, v3);
    return v0 ^ v1 ^ v2 ^ v3;
}

/* ---- the key, one per extension module (siphash.c) ---- */

extern uint64_t hash_key[2];
extern int hash_key_kept; /* 1 once a table was made: the key stays from then on */

/* A table is being made: seed_hash refuses to change the key from now on
 * (count.c's tables keep their pieces' hashes and add them up). Only the
 * first call writes, and the first table of every job is made with the GIL
 * held, as seed_hash runs: no two threads write at once. */
static inline void keep_hash_key(void) {
    if (!hash_key_kept) hash_key_kept = 1;
}

/* Where a byte string goes in a table. */
static inline uint64_t hash_bytes(const void *data, size_t length) { return siphash13(hash_key, data, length); }

/* Where a 64-bit number goes in a table: a pair of ids, as learn.h's
 * pair_key makes it. SipHash-1-3 of its eight bytes (the message's one
 * word, whole: the compiler reduces siphash13's loop to that one step). A
 * cheaper keyed mix (a key xored into a multiply and shift) has nothing to
 * show it cannot be attacked, and keyed mixes of that kind (MurmurHash's,
 * CityHash's) were found to have collisions that hold whatever the key
 * (Aumasson, Bernstein and Bosslet, 2012); SipHash was made for this. */
static inline uint64_t hash_word(uint64_t word) { return siphash13(hash_key, &word, sizeof word); }

extern const char seed_hash_doc[];
PyObject *seed_hash(PyObject *module, PyObject *args);

#endif
