/* The key of siphash.h's hash, for the extension module this file is
 * compiled into (setup.py compiles it into each that hashes): every file of
 * that module places its strings and pairs under it, and `seed_hash`, one of
 * the module's functions, sets it. native_training.draw_hash_key draws it
 * from os.urandom as each module is imported; the tests set their own. */
#include "siphash.h"

uint64_t hash_key[2];
int hash_key_kept;

const char seed_hash_doc[] =
    "seed_hash(key0, key1): the key of the hash that places strings and pairs of ids in this module's tables (two\n"
    "64-bit numbers), before the first table is made; RuntimeError after.";

PyObject *seed_hash(PyObject *module, PyObject *args) {
    (void)module;
    unsigned long long key0, key1;
    if (!PyArg_ParseTuple(args, "KK:seed_hash", &key0, &key1)) return NULL;
    if (hash_key_kept) {
        PyErr_SetString(PyExc_RuntimeError, "seed_hash() after a table was made: its contents are placed by the old key");
        return NULL;
    }
    hash_key[0] = key0;
    hash_key[1] = key1;
    Py_RETURN_NONE;
}
