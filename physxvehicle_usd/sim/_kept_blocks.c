/* Which kept block of arrays no one else holds (sim/memo.py `Blocks.spare`), by reference counts read in one call:
   Python's getrefcount over a block's dozens of arrays costs as much as making them anew. Called with the GIL held
   (ctypes.PyDLL): it reads Python objects, and changes none. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

/* blocks: a list of entries (bytes, arrays (a tuple), references, ...), as `Blocks.keep` makes them. Returns the index
   of the first whose bytes are referred to by its entry and its arrays alone (each array a view whose base is the
   bytes) and whose arrays' reference counts sum to `references` (as sys.getrefcount counts them: one more each, for
   its argument); -1 where none is, or an entry is not of that form. */
int64_t pvu_spare_block(PyObject *blocks) {
    if (!PyList_Check(blocks)) return -1;
    const Py_ssize_t count = PyList_GET_SIZE(blocks);
    for (Py_ssize_t b = 0; b < count; ++b) {
        PyObject *entry = PyList_GET_ITEM(blocks, b);
        if (!PyTuple_Check(entry) || PyTuple_GET_SIZE(entry) < 3) return -1;
        PyObject *raw = PyTuple_GET_ITEM(entry, 0), *arrays = PyTuple_GET_ITEM(entry, 1);
        PyObject *references = PyTuple_GET_ITEM(entry, 2);
        if (!PyTuple_Check(arrays) || !PyLong_Check(references)) return -1;
        const Py_ssize_t n = PyTuple_GET_SIZE(arrays);
        if (Py_REFCNT(raw) != 1 + n) continue;
        long long sum = 0;
        for (Py_ssize_t i = 0; i < n; ++i) sum += (long long)Py_REFCNT(PyTuple_GET_ITEM(arrays, i)) + 1;
        if (sum == PyLong_AsLongLong(references)) return (int64_t)b;
    }
    return -1;
}
