/* bpe_core.engine._native: the engine's encoder in C, for Python.

   `Encoder(ranks, split, special_tokens)` holds a vocabulary (token bytes
   -> id) in a C table (bpe.c), the number of a preset split pattern
   (split.c; SPLIT_WHOLE for none, or -1 for a pattern only Python's
   `regex` reads, whose pieces the caller cuts), and the special tokens.

   - `encode(text, allowed=())`: the ids of `text`, the special tokens in
     `allowed` (a set of strings) read as such;
   - `encode_pieces(pieces)`: the ids of pieces cut elsewhere, one after
     another.

   Neither holds the GIL while it works, so threads encode in parallel. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <string.h>

#include "bpe.h"
#include "siphash.h"
#include "split.h"

typedef struct {
    PyObject_HEAD
    bpe_ranks ranks;
    int split; /* a split_pattern, or -1: the caller splits */
    /* special tokens, longest first (so that one that begins another never wins) */
    Py_ssize_t specials;
    PyObject **special_text; /* str */
    const char **special_bytes;
    Py_ssize_t *special_length;
    bpe_rank *special_id;
} Encoder;

static void Encoder_dealloc(Encoder *self) {
    bpe_ranks_free(&self->ranks);
    for (Py_ssize_t i = 0; i < self->specials; i++) {
        Py_XDECREF(self->special_text[i]);
    }
    PyMem_Free(self->special_text);
    PyMem_Free(self->special_bytes);
    PyMem_Free(self->special_length);
    PyMem_Free(self->special_id);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int read_id(PyObject *value, bpe_rank *id) {
    unsigned long long number = PyLong_AsUnsignedLongLong(value);
    if (PyErr_Occurred() || number >= BPE_NO_RANK) {
        PyErr_Clear();
        PyErr_SetString(PyExc_ValueError, "token ids must be whole numbers from 0 to 2**32 - 2");
        return -1;
    }
    *id = (bpe_rank)number;
    return 0;
}

static int load_ranks(Encoder *self, PyObject *ranks) {
    Py_ssize_t count = PyDict_Size(ranks), i = 0, position = 0;
    const uint8_t **token = PyMem_Malloc((count + 1) * sizeof *token);
    size_t *length = PyMem_Malloc((count + 1) * sizeof *length);
    bpe_rank *rank = PyMem_Malloc((count + 1) * sizeof *rank);
    PyObject *key, *value;
    int status = -1;
    if (!token || !length || !rank) {
        PyErr_NoMemory();
        goto done;
    }
    while (PyDict_Next(ranks, &position, &key, &value)) {
        if (!PyBytes_Check(key)) {
            PyErr_SetString(PyExc_TypeError, "ranks map token bytes to ids");
            goto done;
        }
        if (read_id(value, &rank[i])) {
            goto done;
        }
        token[i] = (const uint8_t *)PyBytes_AS_STRING(key);
        length[i] = (size_t)PyBytes_GET_SIZE(key);
        i++;
    }
    if (bpe_ranks_init(&self->ranks, (size_t)i, token, length, rank)) {
        PyErr_NoMemory();
        goto done;
    }
    status = 0;
done:
    PyMem_Free(token);
    PyMem_Free(length);
    PyMem_Free(rank);
    return status;
}


static int load_specials(Encoder *self, PyObject *specials) {
    Py_ssize_t count = PyDict_Size(specials), position = 0, i = 0;
    PyObject *key, *value;
    self->special_text = PyMem_Calloc(count + 1, sizeof *self->special_text);
    self->special_bytes = PyMem_Calloc(count + 1, sizeof *self->special_bytes);
    self->special_length = PyMem_Calloc(count + 1, sizeof *self->special_length);
    self->special_id = PyMem_Calloc(count + 1, sizeof *self->special_id);
    if (!self->special_text || !self->special_bytes || !self->special_length || !self->special_id) {
        PyErr_NoMemory();
        return -1;
    }
    while (PyDict_Next(specials, &position, &key, &value)) {
        if (!PyUnicode_Check(key)) {
            PyErr_SetString(PyExc_TypeError, "special tokens map strings to ids");
            return -1;
        }
        if (read_id(value, &self->special_id[i])) {
            return -1;
        }
        self->special_bytes[i] = PyUnicode_AsUTF8AndSize(key, &self->special_length[i]);
        if (!self->special_bytes[i]) {
            return -1;
        }
        Py_INCREF(key);
        self->special_text[i] = key;
        self->specials = ++i;
    }
    /* longest first; equal lengths in byte order, so the order is the same every run */
    for (Py_ssize_t a = 1; a < count; a++) {
        for (Py_ssize_t b = a; b > 0; b--) {
            Py_ssize_t la = self->special_length[b - 1], lb = self->special_length[b];
            int cmp = la != lb ? (la < lb ? 1 : -1)
                               : memcmp(self->special_bytes[b - 1], self->special_bytes[b], (size_t)la);
            if (cmp <= 0) {
                break;
            }
#define SWAP(array) do { __typeof__(array[0]) t = array[b]; array[b] = array[b - 1]; array[b - 1] = t; } while (0)
            SWAP(self->special_text);
            SWAP(self->special_bytes);
            SWAP(self->special_length);
            SWAP(self->special_id);
#undef SWAP
        }
    }
    return 0;
}

static int Encoder_init(Encoder *self, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"ranks", "split", "special_tokens", NULL};
    PyObject *ranks, *specials = NULL;
    int split;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!i|O!", keywords, &PyDict_Type, &ranks, &split, &PyDict_Type,
                                     &specials)) {
        return -1;
    }
    if (split < -1 || split >= SPLIT_PATTERNS) {
        PyErr_Format(PyExc_ValueError, "no split pattern numbered %d", split);
        return -1;
    }
    if (self->ranks.slots) {
        PyErr_SetString(PyExc_RuntimeError, "an Encoder is made once");
        return -1;
    }
    self->split = split;
    if (load_ranks(self, ranks)) {
        return -1;
    }
    return specials ? load_specials(self, specials) : 0;
}

/* -------------------------------------------------------------- encoding */

/* The ids as a Python list. Making an int object for each costs more than
   all the rest of encoding an English text, and a few hundred ids are most
   of any text's tokens, so the last object made for each of 4,096 slots
   is kept and used again (the list keeps them alive meanwhile). */
static PyObject *as_list(const bpe_tokens *tokens) {
    enum { RECENT = 4096 };
    PyObject *recent[RECENT] = {NULL};
    bpe_rank recent_id[RECENT];
    PyObject *list = PyList_New((Py_ssize_t)tokens->size);
    if (!list) {
        return NULL;
    }
    for (size_t i = 0; i < tokens->size; i++) {
        bpe_rank id = tokens->ids[i];
        size_t slot = id % RECENT;
        PyObject *number = recent[slot];
        if (number && recent_id[slot] == id) {
            Py_INCREF(number);
        } else if ((number = PyLong_FromUnsignedLong(id))) {
            recent[slot] = number;
            recent_id[slot] = id;
        } else {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, (Py_ssize_t)i, number);
    }
    return list;
}

static PyObject *failed(int status) {
    if (status == -1) {
        return PyErr_NoMemory();
    }
    if (status == -3) {
        PyErr_SetString(PyExc_OverflowError, "a piece of 4 GB or more");
        return NULL;
    }
    PyErr_SetString(PyExc_ValueError, "a byte of the text is no token and merges into none");
    return NULL;
}

/* Where the next allowed special token starts at or after `from`, and
   which it is (`*which`); `length` if there is none. */
static size_t next_special(const Encoder *self, const char *allowed, const uint8_t *first_bytes, const uint8_t *text,
                           size_t length, size_t from, Py_ssize_t *which) {
    for (size_t at = from; at < length; at++) {
        if (!first_bytes[text[at]]) {
            continue;
        }
        for (Py_ssize_t i = 0; i < self->specials; i++) {
            size_t size = (size_t)self->special_length[i];
            if (allowed[i] && size <= length - at && !memcmp(text + at, self->special_bytes[i], size)) {
                *which = i;
                return at;
            }
        }
    }
    return length;
}

/* Encode `text`, reading the special tokens that `allowed` marks (none if
   NULL) as such; the text between them is split as a text of its own. */
static int encode_text(const Encoder *self, const char *allowed, const uint8_t *text, size_t length, bpe_tokens *out) {
    uint8_t first_bytes[256] = {0};
    int any = 0;
    for (Py_ssize_t i = 0; allowed && i < self->specials; i++) {
        if (allowed[i] && self->special_length[i]) {
            first_bytes[(uint8_t)self->special_bytes[i][0]] = 1;
            any = 1;
        }
    }
    bpe_cache cache = {0};
    size_t start = 0;
    int status = 0;
    while (start < length && !status) {
        Py_ssize_t which = -1;
        size_t special = any ? next_special(self, allowed, first_bytes, text, length, start, &which) : length;
        status = bpe_encode_text(&self->ranks, (split_pattern)self->split, text, start, special, &cache, out);
        if (status || which < 0) {
            break;
        }
        status = bpe_tokens_push(out, self->special_id[which]);
        start = special + (size_t)self->special_length[which];
    }
    bpe_cache_free(&cache);
    return status;
}

static PyObject *Encoder_encode(Encoder *self, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"text", "allowed", NULL};
    PyObject *text, *allowed_set = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "U|O", keywords, &text, &allowed_set)) {
        return NULL;
    }
    if (self->split < 0) {
        PyErr_SetString(PyExc_ValueError, "this Encoder's split pattern is Python's: use encode_pieces");
        return NULL;
    }
    Py_ssize_t length;
    const char *utf8 = PyUnicode_AsUTF8AndSize(text, &length); /* lone surrogates: UnicodeEncodeError */
    if (!utf8) {
        return NULL;
    }
    char *allowed = NULL;
    int any_allowed = 0;
    if (allowed_set && allowed_set != Py_None && self->specials) {
        allowed = PyMem_Calloc((size_t)self->specials, 1);
        if (!allowed) {
            return PyErr_NoMemory();
        }
        for (Py_ssize_t i = 0; i < self->specials; i++) {
            int found = PySequence_Contains(allowed_set, self->special_text[i]);
            if (found < 0) {
                PyMem_Free(allowed);
                return NULL;
            }
            allowed[i] = (char)found;
            any_allowed |= found;
        }
    }
    bpe_tokens tokens = {0};
    int status;
    Py_BEGIN_ALLOW_THREADS
    status = encode_text(self, any_allowed ? allowed : NULL, (const uint8_t *)utf8, (size_t)length, &tokens);
    Py_END_ALLOW_THREADS
    PyMem_Free(allowed);
    PyObject *result = status ? failed(status) : as_list(&tokens);
    bpe_tokens_free(&tokens);
    return result;
}

static PyObject *Encoder_encode_pieces(Encoder *self, PyObject *pieces_argument) {
    PyObject *pieces = PySequence_Fast(pieces_argument, "pieces are a list of strings or bytes");
    if (!pieces) {
        return NULL;
    }
    Py_ssize_t count = PySequence_Fast_GET_SIZE(pieces);
    size_t *ends = PyMem_Malloc((count + 1) * sizeof *ends), total = 0, capacity = 4096;
    char *text = PyMem_Malloc(capacity);
    PyObject *result = NULL;
    if (!ends || !text) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < count; i++) { /* the pieces, one after another, in a buffer of our own */
        PyObject *piece = PySequence_Fast_GET_ITEM(pieces, i);
        const char *bytes;
        Py_ssize_t length;
        if (PyBytes_Check(piece)) {
            bytes = PyBytes_AS_STRING(piece);
            length = PyBytes_GET_SIZE(piece);
        } else if (!(bytes = PyUnicode_Check(piece) ? PyUnicode_AsUTF8AndSize(piece, &length) : NULL)) {
            if (!PyErr_Occurred()) {
                PyErr_SetString(PyExc_TypeError, "pieces are strings or bytes");
            }
            goto done;
        }
        if (total + (size_t)length > capacity) {
            while (total + (size_t)length > capacity) {
                capacity *= 2;
            }
            char *larger = PyMem_Realloc(text, capacity);
            if (!larger) {
                PyErr_NoMemory();
                goto done;
            }
            text = larger;
        }
        memcpy(text + total, bytes, (size_t)length);
        total += (size_t)length;
        ends[i] = total;
    }
    bpe_tokens tokens = {0};
    bpe_cache cache = {0};
    int status;
    Py_BEGIN_ALLOW_THREADS
    status = bpe_encode_pieces(&self->ranks, (const uint8_t *)text, ends, (size_t)count, &cache, &tokens);
    bpe_cache_free(&cache);
    Py_END_ALLOW_THREADS
    result = status ? failed(status) : as_list(&tokens);
    bpe_tokens_free(&tokens);
done:
    PyMem_Free(ends);
    PyMem_Free(text);
    Py_DECREF(pieces);
    return result;
}

static PyMethodDef Encoder_methods[] = {
    {"encode", (PyCFunction)(void (*)(void))Encoder_encode, METH_VARARGS | METH_KEYWORDS,
     "encode(text, allowed=()) -> list of ids; the special tokens in `allowed` are read as such."},
    {"encode_pieces", (PyCFunction)Encoder_encode_pieces, METH_O,
     "encode_pieces(pieces) -> list of ids: each piece (str or bytes) encoded, one after another."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject EncoderType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "bpe_core.engine._native.Encoder",
    .tp_basicsize = sizeof(Encoder),
    .tp_dealloc = (destructor)Encoder_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A BPE vocabulary, a split pattern and special tokens, encoding in C.",
    .tp_methods = Encoder_methods,
    .tp_init = (initproc)Encoder_init,
    .tp_new = PyType_GenericNew,
};

/* ---------------------------------------------------------- the module */

/* The pieces of a text, for tests and for counting: split.c from Python. */
static PyObject *split_text(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *text;
    int pattern;
    if (!PyArg_ParseTuple(args, "Ui", &text, &pattern)) {
        return NULL;
    }
    if (pattern < 0 || pattern >= SPLIT_PATTERNS) {
        PyErr_Format(PyExc_ValueError, "no split pattern numbered %d", pattern);
        return NULL;
    }
    Py_ssize_t length;
    const char *utf8 = PyUnicode_AsUTF8AndSize(text, &length);
    if (!utf8) {
        return NULL;
    }
    PyObject *pieces = PyList_New(0);
    for (size_t start = 0; pieces && start < (size_t)length;) {
        size_t end = split_next((split_pattern)pattern, (const uint8_t *)utf8, (size_t)length, start);
        PyObject *piece = PyUnicode_DecodeUTF8(utf8 + start, (Py_ssize_t)(end - start), "strict");
        if (!piece || PyList_Append(pieces, piece)) {
            Py_XDECREF(piece);
            Py_CLEAR(pieces);
            break;
        }
        Py_DECREF(piece);
        start = end;
    }
    return pieces;
}

static PyObject *class_table(PyObject *module, PyObject *unused) {
    (void)module;
    (void)unused;
    PyObject *table = PyBytes_FromStringAndSize(NULL, 0x110000);
    if (!table) {
        return NULL;
    }
    char *bits = PyBytes_AS_STRING(table);
    for (uint32_t code_point = 0; code_point < 0x110000; code_point++) {
        bits[code_point] = (char)split_classes(code_point);
    }
    return table;
}

static PyObject *token_hash(PyObject *module, PyObject *argument) {
    (void)module;
    Py_buffer data;
    if (PyObject_GetBuffer(argument, &data, PyBUF_SIMPLE) < 0) {
        return NULL;
    }
    uint64_t hash = hash_bytes(data.buf, (size_t)data.len);
    PyBuffer_Release(&data);
    return PyLong_FromUnsignedLongLong(hash);
}

static PyMethodDef module_methods[] = {
    {"split", split_text, METH_VARARGS, "split(text, pattern) -> the pieces of `text` (a split pattern's number)."},
    {"class_table", class_table, METH_NOARGS,
     "class_table() -> bytes: the CLASS_* bits the split patterns see, for each code point 0..0x10FFFF."},
    {"seed_hash", seed_hash, METH_VARARGS, seed_hash_doc},
    {"token_hash", token_hash, METH_O,
     "token_hash(data) -> int: the hash that places the token, or piece, `data` (bytes) in an Encoder's tables."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_definition = {
    PyModuleDef_HEAD_INIT, "_native", "The BPE engine's encoder in C (see bpe_core/engine/native).", -1,
    module_methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__native(void) {
    if (PyType_Ready(&EncoderType) < 0) {
        return NULL;
    }
    PyObject *module = PyModule_Create(&module_definition);
    if (!module) {
        return NULL;
    }
    Py_INCREF(&EncoderType);
    if (PyModule_AddObject(module, "Encoder", (PyObject *)&EncoderType) < 0) {
        Py_DECREF(&EncoderType);
        Py_DECREF(module);
        return NULL;
    }
    static const char *const names[SPLIT_PATTERNS] = {
        "SPLIT_GPT2", "SPLIT_CL100K", "SPLIT_LLAMA3", "SPLIT_QWEN", "SPLIT_O200K", "SPLIT_TEKKEN", "SPLIT_WHOLE",
    };
    for (int i = 0; i < SPLIT_PATTERNS; i++) {
        PyModule_AddIntConstant(module, names[i], i);
    }
    PyModule_AddStringConstant(module, "UNICODE_VERSION", split_unicode_version());
    PyModule_AddIntConstant(module, "CLASS_LETTER", CLASS_LETTER);
    PyModule_AddIntConstant(module, "CLASS_NUMBER", CLASS_NUMBER);
    PyModule_AddIntConstant(module, "CLASS_SPACE", CLASS_SPACE);
    PyModule_AddIntConstant(module, "CLASS_MARK", CLASS_MARK);
    PyModule_AddIntConstant(module, "CLASS_UPPER_RUN", CLASS_UPPER_RUN);
    PyModule_AddIntConstant(module, "CLASS_LOWER_RUN", CLASS_LOWER_RUN);
    return module;
}
