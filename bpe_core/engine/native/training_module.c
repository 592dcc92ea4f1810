/* The extension module bpe_core.engine._native_training: training's hot
 * loops in C, for engine/native_training.py (which says when they are used). */
#include "native.h"

static PyMethodDef functions[] = {
    {"learn_merges", native_learn_merges, METH_VARARGS, native_learn_merges_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "bpe_core.engine._native_training",
    .m_doc = "Training's hot loops in C: merge learning (see engine/native_training.py).",
    .m_size = -1,
    .m_methods = functions,
};

PyMODINIT_FUNC PyInit__native_training(void) { return PyModule_Create(&module); }
