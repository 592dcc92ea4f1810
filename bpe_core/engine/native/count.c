/* Counting pre-token pieces in C: what corpus.count_chunk does with the
 * `regex` module and a Counter, for the preset split patterns.
 *
 * A PieceCounts is a table of distinct pieces (their UTF-8 bytes) with how
 * often each occurs, in order of first appearance, as training needs them
 * (that order decides ties between equally frequent pairs):
 *
 * - `count(text, pattern)` splits a text with a preset pattern (split.c,
 *   piece for piece the split of the `regex` module) and adds its pieces;
 *   without the GIL, so that threads count chunks at once, each into a
 *   table of its own. It refuses (returns False, counting nothing) a text
 *   holding a character whose classes split.c may not share with `regex`
 *   (unsettled.h): Python counts that one, and adds its pieces with
 *   `add_pieces`, in order.
 * - `count_bytes(data, pattern)` does the same for UTF-8 bytes read from a
 *   file, so that a corpus never becomes Python strings at all (10 MB of
 *   text holding one emoji is 40 MB as a str); `utf8_error` checks them
 *   first, and `last_cut` says where a block read may be cut (corpus.py's
 *   LETTER_THEN_OTHER, in C).
 * - `add(other)` adds another table's counts after this one's, as the
 *   counts of consecutive chunks of a text add up to those of the whole.
 * - `to_dict()` gives them to Python, {piece: count}.
 */
#include "native.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "split.h"
#include "characters.h"
#include "siphash.h"

#define INLINE_BYTES 16 /* a piece this short keeps its bytes in its entry (most do) */
#define TOP_HALF 0xFFFFFFFF00000000ull

typedef struct {
    int64_t count;
    uint64_t hash;
    size_t length;
    union {
        unsigned char bytes[INLINE_BYTES];
        size_t offset; /* of a longer piece's bytes in the table's `long_bytes` */
    } at;
} Piece;

typedef struct {
    PyObject_HEAD
    Piece *pieces; /* in order of first appearance */
    size_t size, capacity;
    uint64_t *slots; /* open addressing: the hash's top half, then index + 1 of the piece; 0 where free */
    size_t slot_count; /* a power of two, at least twice `size` */
    char *long_bytes; /* the longer pieces' bytes, one after the other */
    size_t long_size, long_capacity;
    int busy; /* counting without the GIL: no other thread may touch it meanwhile */
} PieceCounts;

/* ---- the hash ---- */

/* Where a piece goes in the table is decided by a hash of its bytes:
 * siphash.h's, under the module's key (native_training.py draws it as it
 * imports this module; siphash.h says why). The table keeps its pieces in
 * order of first appearance whatever the key, so the counts, their order
 * and the merges learned from them do not depend on it. Tables add up
 * their pieces' hashes: the key stays from the first table on. */

static int grow(void **array, size_t *capacity, size_t needed, size_t item) {
    if (needed <= *capacity) return 0;
    size_t larger = *capacity ? *capacity : 64;
    while (larger < needed) larger *= 2;
    void *moved = realloc(*array, larger * item);
    if (moved == NULL) return -1;
    *array = moved;
    *capacity = larger;
    return 0;
}

static inline const unsigned char *bytes_of(const PieceCounts *table, const Piece *piece) {
    return piece->length <= INLINE_BYTES ? piece->at.bytes : (const unsigned char *)table->long_bytes + piece->at.offset;
}

static int resize_slots(PieceCounts *table, size_t slot_count) {
    uint64_t *slots = calloc(slot_count, sizeof *slots);
    if (slots == NULL) return -1;
    for (size_t index = 0; index < table->size; index++) {
        uint64_t hash = table->pieces[index].hash;
        size_t slot = hash & (slot_count - 1);
        while (slots[slot]) slot = (slot + 1) & (slot_count - 1);
        slots[slot] = (hash & TOP_HALF) | (index + 1);
    }
    free(table->slots);
    table->slots = slots;
    table->slot_count = slot_count;
    return 0;
}

/* `count` occurrences more of the piece `data` (a new piece goes last). */
static int add_piece(PieceCounts *table, const unsigned char *data, size_t length, uint64_t hash, int64_t count) {
    size_t slot = hash & (table->slot_count - 1);
    for (; table->slots[slot]; slot = (slot + 1) & (table->slot_count - 1)) {
        if ((table->slots[slot] & TOP_HALF) != (hash & TOP_HALF)) continue;
        Piece *piece = &table->pieces[(table->slots[slot] & ~TOP_HALF) - 1];
        if (piece->length == length && memcmp(bytes_of(table, piece), data, length) == 0) {
            return __builtin_add_overflow(piece->count, count, &piece->count) ? -1 : 0;
        }
    }
    if (table->size + 1 >= 0xFFFFFFFFu || grow((void **)&table->pieces, &table->capacity, table->size + 1, sizeof(Piece))) {
        return -1;
    }
    Piece *piece = &table->pieces[table->size];
    piece->hash = hash;
    piece->count = count;
    piece->length = length;
    if (length <= INLINE_BYTES) {
        memcpy(piece->at.bytes, data, length);
    } else {
        if (grow((void **)&table->long_bytes, &table->long_capacity, table->long_size + length, 1)) return -1;
        piece->at.offset = table->long_size;
        memcpy(table->long_bytes + table->long_size, data, length);
        table->long_size += length;
    }
    table->slots[slot] = (hash & TOP_HALF) | ++table->size;
    return 2 * table->size > table->slot_count ? resize_slots(table, 2 * table->slot_count) : 0;
}

/* ---- UTF-8 ---- */

/* The size of the valid UTF-8 character at `at` (RFC 3629: no overlong
 * form, no surrogate, nothing past U+10FFFF), or 0 where none starts:
 * where Python's decoder would stop with an error. */
static size_t utf8_size(const unsigned char *text, size_t length, size_t at) {
    unsigned char first = text[at];
    if (first < 0x80) return 1;
    size_t size = first >= 0xC2 && first <= 0xDF ? 2 : first >= 0xE0 && first <= 0xEF ? 3 : first >= 0xF0 && first <= 0xF4 ? 4 : 0;
    if (size == 0 || at + size > length) return 0;
    unsigned char second = text[at + 1];
    unsigned char low = first == 0xE0 ? 0xA0 : first == 0xF0 ? 0x90 : 0x80;
    unsigned char high = first == 0xED ? 0x9F : first == 0xF4 ? 0x8F : 0xBF;
    if (second < low || second > high) return 0;
    for (size_t next = 2; next < size; next++) {
        if ((text[at + next] & 0xC0) != 0x80) return 0;
    }
    return size;
}

/* Where the first byte that starts no valid character is, or `length`. */
static size_t first_error(const unsigned char *text, size_t length) {
    size_t at = 0;
    while (at < length) {
        if (text[at] < 0x80) {
            at++;
            continue;
        }
        size_t size = utf8_size(text, length, at);
        if (size == 0) return at;
        at += size;
    }
    return length;
}

/* The last place where the split can be cut (see corpus.py's
 * LETTER_THEN_OTHER): right after a letter followed by anything but a
 * letter, a mark, a digit or an apostrophe, both characters settled, so
 * that `regex` classes them as split.c does. 0 where there is none. */
static size_t last_cut(const unsigned char *text, size_t length) {
    for (size_t cut = length > 0 ? length - 1 : 0; cut > 0; cut--) {
        if ((text[cut] & 0xC0) == 0x80) continue; /* not a character's first byte */
        size_t size = utf8_size(text, length, cut);
        if (size == 0 || text[cut] == '\'') continue;
        uint32_t after = code_point_at(text, cut);
        if ((split_classes(after) & (CLASS_LETTER | CLASS_MARK | CLASS_NUMBER)) || unsettled(after)) continue;
        size_t before = cut - 1;
        while (before > 0 && cut - before < 4 && (text[before] & 0xC0) == 0x80) before--;
        if (utf8_size(text, length, before) != cut - before) continue;
        uint32_t letter = code_point_at(text, before);
        if ((split_classes(letter) & CLASS_LETTER) && !unsettled(letter)) return cut;
    }
    return 0;
}

/* Split `text` with the preset `pattern` and count its pieces. */
static int count_text(PieceCounts *table, split_pattern pattern, const unsigned char *text, size_t length) {
    for (size_t start = 0; start < length;) {
        size_t end = split_next(pattern, text, length, start);
        if (add_piece(table, text + start, end - start, hash_bytes(text + start, end - start), 1)) return -1;
        start = end;
    }
    return 0;
}

/* ---- the Python type ---- */

/* Whether the table can be used now: made by its __init__ (a table made by
   PieceCounts.__new__ alone has no slots) and not counted into by another
   thread (which released the GIL while it counts). */
static int ready(PieceCounts *table) {
    if (table->slots == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "this PieceCounts was not initialised (call PieceCounts())");
        return 0;
    }
    if (!table->busy) return 1;
    PyErr_SetString(PyExc_RuntimeError, "another thread is counting into this PieceCounts");
    return 0;
}

static PyObject *PieceCounts_count(PieceCounts *self, PyObject *args) {
    PyObject *text;
    int pattern;
    if (!PyArg_ParseTuple(args, "Ui:count", &text, &pattern) || !ready(self)) return NULL;
    if (pattern < 0 || pattern >= SPLIT_WHOLE) return PyErr_Format(PyExc_ValueError, "no preset split numbered %d", pattern);
    Py_ssize_t length;
    const char *utf8 = PyUnicode_AsUTF8AndSize(text, &length);
    if (utf8 == NULL) return NULL; /* a lone surrogate: no UTF-8 */
    int refused = 0, failed = 0;
    self->busy = 1;
    Py_INCREF(text); /* its UTF-8 stays while the GIL is released */
    Py_BEGIN_ALLOW_THREADS
    refused = !PyUnicode_IS_ASCII(text) && holds_unsettled((const unsigned char *)utf8, (size_t)length);
    if (!refused) failed = count_text(self, (split_pattern)pattern, (const unsigned char *)utf8, (size_t)length);
    Py_END_ALLOW_THREADS
    Py_DECREF(text);
    self->busy = 0;
    if (failed) return PyErr_NoMemory();
    return PyBool_FromLong(!refused);
}

/* count_bytes(data, pattern): count UTF-8 bytes that utf8_error found valid. */
static PyObject *PieceCounts_count_bytes(PieceCounts *self, PyObject *args) {
    Py_buffer data;
    int pattern;
    if (!PyArg_ParseTuple(args, "y*i:count_bytes", &data, &pattern)) return NULL;
    if (!ready(self) || pattern < 0 || pattern >= SPLIT_WHOLE) {
        if (!PyErr_Occurred()) PyErr_Format(PyExc_ValueError, "no preset split numbered %d", pattern);
        PyBuffer_Release(&data);
        return NULL;
    }
    const unsigned char *text = data.buf;
    size_t length = (size_t)data.len;
    int refused = 0, failed = 0;
    self->busy = 1;
    Py_BEGIN_ALLOW_THREADS
    refused = first_error(text, length) != length || holds_unsettled(text, length);
    if (!refused) failed = count_text(self, (split_pattern)pattern, text, length);
    Py_END_ALLOW_THREADS
    self->busy = 0;
    PyBuffer_Release(&data);
    if (failed) return PyErr_NoMemory();
    return PyBool_FromLong(!refused);
}

static PyObject *PieceCounts_add_pieces(PieceCounts *self, PyObject *pieces) {
    PyObject *iterator = PyObject_GetIter(pieces), *piece;
    if (iterator == NULL || !ready(self)) {
        Py_XDECREF(iterator);
        return NULL;
    }
    while ((piece = PyIter_Next(iterator)) != NULL) {
        Py_ssize_t length;
        const char *utf8 = PyUnicode_Check(piece) ? PyUnicode_AsUTF8AndSize(piece, &length) : NULL;
        int failed = utf8 == NULL || add_piece(self, (const unsigned char *)utf8, (size_t)length,
                                               hash_bytes((const unsigned char *)utf8, (size_t)length), 1);
        Py_DECREF(piece);
        if (failed) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "add_pieces() takes strings");
            break;
        }
    }
    Py_DECREF(iterator);
    if (PyErr_Occurred()) return NULL;
    Py_RETURN_NONE;
}

static PyTypeObject PieceCountsType;

static PyObject *PieceCounts_add(PieceCounts *self, PyObject *other_object) {
    if (!PyObject_TypeCheck(other_object, &PieceCountsType)) {
        PyErr_SetString(PyExc_TypeError, "add() takes another PieceCounts");
        return NULL;
    }
    PieceCounts *other = (PieceCounts *)other_object;
    if (!ready(self) || !ready(other)) return NULL;
    for (size_t index = 0; index < other->size; index++) {
        Piece *piece = &other->pieces[index];
        if (add_piece(self, bytes_of(other, piece), piece->length, piece->hash, piece->count)) return PyErr_NoMemory();
    }
    Py_RETURN_NONE;
}

static PyObject *PieceCounts_to_dict(PieceCounts *self, PyObject *Py_UNUSED(ignored)) {
    if (!ready(self)) return NULL;
    PyObject *counts = PyDict_New();
    for (size_t index = 0; counts != NULL && index < self->size; index++) {
        Piece *piece = &self->pieces[index];
        PyObject *text = PyUnicode_DecodeUTF8((const char *)bytes_of(self, piece), (Py_ssize_t)piece->length, "strict");
        PyObject *count = text != NULL ? PyLong_FromLongLong(piece->count) : NULL;
        if (count == NULL || PyDict_SetItem(counts, text, count)) Py_CLEAR(counts);
        Py_XDECREF(text);
        Py_XDECREF(count);
    }
    return counts;
}

static Py_ssize_t PieceCounts_len(PieceCounts *self) { return (Py_ssize_t)self->size; }

static int PieceCounts_init(PieceCounts *self, PyObject *args, PyObject *kwargs) {
    static char *no_keywords[] = {NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, ":PieceCounts", no_keywords)) return -1;
    if (self->slots == NULL && resize_slots(self, 1024)) {
        PyErr_NoMemory();
        return -1;
    }
    keep_hash_key();
    return 0;
}

static void PieceCounts_dealloc(PieceCounts *self) {
    free(self->pieces);
    free(self->slots);
    free(self->long_bytes);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef PieceCounts_methods[] = {
    {"count", (PyCFunction)PieceCounts_count, METH_VARARGS,
     "count(text, pattern) -> bool: split `text` with a preset (its SPLIT_ number) and count its pieces; False, "
     "counting nothing, where the text holds a character split.c may class otherwise than `regex`."},
    {"count_bytes", (PyCFunction)PieceCounts_count_bytes, METH_VARARGS,
     "count_bytes(data, pattern) -> bool: count() for UTF-8 bytes; False, counting nothing, where they are not all "
     "UTF-8 (see utf8_error) or hold such a character."},
    {"add_pieces", (PyCFunction)PieceCounts_add_pieces, METH_O, "add_pieces(pieces): count these strings, in order."},
    {"add", (PyCFunction)PieceCounts_add, METH_O, "add(other): add another table's counts, its new pieces after ours."},
    {"to_dict", (PyCFunction)PieceCounts_to_dict, METH_NOARGS, "The counts as {piece: count}, first appearances first."},
    {NULL, NULL, 0, NULL},
};

static PySequenceMethods PieceCounts_as_sequence = {.sq_length = (lenfunc)PieceCounts_len};

static PyTypeObject PieceCountsType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "bpe_core.engine._native_training.PieceCounts",
    .tp_basicsize = sizeof(PieceCounts),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Distinct pre-token pieces and their counts, in order of first appearance.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)PieceCounts_init,
    .tp_dealloc = (destructor)PieceCounts_dealloc,
    .tp_methods = PieceCounts_methods,
    .tp_as_sequence = &PieceCounts_as_sequence,
};

/* ---- module functions ---- */

const char native_utf8_error_doc[] =
    "utf8_error(data) -> int: the offset of the first byte of `data` that starts no valid UTF-8 character (where "
    "Python's decoder stops), or -1 if it is all UTF-8.";

PyObject *native_utf8_error(PyObject *module, PyObject *argument) {
    (void)module;
    Py_buffer data;
    if (PyObject_GetBuffer(argument, &data, PyBUF_SIMPLE) < 0) return NULL;
    size_t error;
    Py_BEGIN_ALLOW_THREADS
    error = first_error(data.buf, (size_t)data.len);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&data);
    return PyLong_FromSsize_t(error == (size_t)data.len ? -1 : (Py_ssize_t)error);
}

const char native_last_cut_doc[] =
    "last_cut(data) -> int: the last place in the UTF-8 bytes `data` where a preset's split can be cut without "
    "changing a piece (corpus.LETTER_THEN_OTHER, between two characters split.c and `regex` class alike), or 0.";

PyObject *native_last_cut(PyObject *module, PyObject *argument) {
    (void)module;
    Py_buffer data;
    if (PyObject_GetBuffer(argument, &data, PyBUF_SIMPLE) < 0) return NULL;
    size_t cut = last_cut(data.buf, (size_t)data.len);
    PyBuffer_Release(&data);
    return PyLong_FromSize_t(cut);
}

const char native_character_classes_doc[] =
    "character_classes() -> bytes: for each code point, the classes split.c gives it (split.h's CLASS_ bits), plus "
    "128 where it is unsettled (unsettled.h): what the tests compare with the `regex` module's classes.";

PyObject *native_character_classes(PyObject *module, PyObject *Py_UNUSED(ignored)) {
    (void)module;
    PyObject *classes = PyBytes_FromStringAndSize(NULL, 0x110000);
    if (classes == NULL) return NULL;
    char *bits = PyBytes_AS_STRING(classes);
    for (uint32_t code_point = 0; code_point < 0x110000; code_point++) {
        bits[code_point] = (char)(split_classes(code_point) | (unsettled(code_point) ? 128 : 0));
    }
    return classes;
}

const char native_piece_hash_doc[] = "piece_hash(data) -> int: the hash that places the piece `data` (UTF-8 bytes) in a table.";

PyObject *native_piece_hash(PyObject *module, PyObject *argument) {
    (void)module;
    Py_buffer data;
    if (PyObject_GetBuffer(argument, &data, PyBUF_SIMPLE) < 0) return NULL;
    uint64_t hash = hash_bytes(data.buf, (size_t)data.len);
    PyBuffer_Release(&data);
    return PyLong_FromUnsignedLongLong(hash);
}

int native_add_piece_counts(PyObject *module) {
    if (PyType_Ready(&PieceCountsType) < 0) return -1;
    Py_INCREF(&PieceCountsType);
    if (PyModule_AddObject(module, "PieceCounts", (PyObject *)&PieceCountsType) < 0) {
        Py_DECREF(&PieceCountsType);
        return -1;
    }
    return PyModule_AddIntConstant(module, "SPLIT_GPT2", SPLIT_GPT2) || PyModule_AddIntConstant(module, "SPLIT_CL100K", SPLIT_CL100K) ||
           PyModule_AddIntConstant(module, "SPLIT_O200K", SPLIT_O200K) ? -1 : 0;
}
