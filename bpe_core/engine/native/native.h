/* The C half of training (the extension module bpe_core.engine._native_training):
 * what each file gives the module (training_module.c). */
#ifndef BPE_CORE_NATIVE_H
#define BPE_CORE_NATIVE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* learn.c: merge learning, as merge_learning.learn_merges. */
extern const char native_learn_merges_doc[];
PyObject *native_learn_merges(PyObject *module, PyObject *args);

#endif
