/* The extension module bpe_core.engine._native_training: training's hot
 * loops in C, for engine/native_training.py (which says when they are used). */
#include "native.h"
#include "learn.h"
#include "siphash.h"

static PyMethodDef functions[] = {
    {"learn_merges", native_learn_merges, METH_VARARGS, native_learn_merges_doc},
    {"utf8_error", native_utf8_error, METH_O, native_utf8_error_doc},
    {"last_cut", native_last_cut, METH_O, native_last_cut_doc},
    {"character_classes", native_character_classes, METH_NOARGS, native_character_classes_doc},
    {"seed_hash", seed_hash, METH_VARARGS, seed_hash_doc},
    {"piece_hash", native_piece_hash, METH_O, native_piece_hash_doc},
    {"pair_hash", pair_hash, METH_VARARGS, pair_hash_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "bpe_core.engine._native_training",
    .m_doc = "Training's hot loops in C: counting pieces and learning merges (see engine/native_training.py).",
    .m_size = -1,
    .m_methods = functions,
};

PyMODINIT_FUNC PyInit__native_training(void) {
    PyObject *created = PyModule_Create(&module);
    if (created != NULL && native_add_piece_counts(created) < 0) Py_CLEAR(created);
    return created;
}
