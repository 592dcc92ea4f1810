/* SipHash-1-3 (Python's own hash of strings), under a 128-bit key: the
 * hash that places byte strings in the training's tables (count.c's pieces,
 * research.c's tokens, pretokens and phrases). Were the hash fixed, a
 * corpus could be made of strings that all land in one place, and counting
 * them would take time in the square of their number; under a key drawn
 * once per process, which strings collide cannot be known without it. */
#ifndef BPE_CORE_SIPHASH_H
#define BPE_CORE_SIPHASH_H

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

static inline uint64_t siphash13(const uint64_t key[2], const unsigned char *data, size_t length) {
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

#endif
