/* The data addresses of a call's arrays (sim/extension.py `addresses`), taken in one call: a compiled call hands
   over some dozens of arrays, and Python's own ways to an array's address (ctypes' from_buffer, numpy's .ctypes)
   cost as much per array as the call itself. Through the buffer protocol: any object that exports a strided
   buffer (every numpy array: read-only, empty or not contiguous), its `buf` the address of its first element.
   Called with the GIL held (ctypes.PyDLL), unlike the extension's other functions. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

/* out[i]: the address of arrays[i] (a tuple or list), 0 for an empty one where empty_null (C's NULL). Returns how
   many were written: all of them, or the index of the first that exports no buffer (its error cleared; the caller
   takes that one and the rest its own way). */
int64_t pvu_buffer_addresses(PyObject *arrays, int64_t empty_null, int64_t *out) {
    PyObject *sequence = PySequence_Fast(arrays, "pvu_buffer_addresses takes a sequence");
    if (sequence == NULL) {
        PyErr_Clear();
        return 0;
    }
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(sequence);
    PyObject **items = PySequence_Fast_ITEMS(sequence);
    Py_ssize_t i = 0;
    for (; i < n; ++i) {
        Py_buffer view;
        if (PyObject_GetBuffer(items[i], &view, PyBUF_STRIDED_RO) != 0) {
            PyErr_Clear();
            break;
        }
        out[i] = empty_null && view.len == 0 ? 0 : (int64_t)(uintptr_t)view.buf;
        PyBuffer_Release(&view);
    }
    Py_DECREF(sequence);
    return (int64_t)i;
}
