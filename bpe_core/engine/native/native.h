/* The C half of training (the extension module bpe_core.engine._native_training):
 * what each file gives the module (training_module.c). */
#ifndef BPE_CORE_NATIVE_H
#define BPE_CORE_NATIVE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* learn.c: merge learning, as merge_learning.learn_merges. */
extern const char native_learn_merges_doc[];
PyObject *native_learn_merges(PyObject *module, PyObject *args);

/* count.c: counting pieces, as corpus.count_chunk; adds the PieceCounts type
   and the numbers of the preset splits (SPLIT_GPT2, ...) to the module. */
int native_add_piece_counts(PyObject *module);
extern const char native_utf8_error_doc[], native_last_cut_doc[], native_character_classes_doc[], native_piece_hash_doc[];
PyObject *native_utf8_error(PyObject *module, PyObject *data);
PyObject *native_last_cut(PyObject *module, PyObject *data);
PyObject *native_character_classes(PyObject *module, PyObject *ignored);
PyObject *native_piece_hash(PyObject *module, PyObject *data);

#endif
