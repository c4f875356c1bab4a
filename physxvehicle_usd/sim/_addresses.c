/* The data addresses of a call's arrays (sim/extension.py `addresses`), taken in one call: a compiled call hands
   over some dozens of arrays, and Python's own ways to an array's address (ctypes' from_buffer, numpy's .ctypes)
   cost as much per array as the call itself. Through the buffer protocol: any object that exports a strided
   buffer (every numpy array: read-only, empty or not contiguous), its `buf` the address of its first element.
   Called with the GIL held (ctypes.PyDLL), unlike the extension's other functions. The same way, `pvu_copy_into`
   copies a call's arrays into the buffers a compiled call reads (sim/extension.py `copy_into`): one call for what
   would be a numpy copyto each. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

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

/* Element kinds of `pvu_copy_into`, as numpy's dtypes: bool, int32, int64, float32, float64 */
enum { KIND_BOOL, KIND_INT32, KIND_INT64, KIND_FLOAT32, KIND_FLOAT64 };
static const int64_t KIND_SIZE[] = {1, 4, 8, 4, 8};

/* The kind of a buffer's elements (native byte order), -1 for any other */
static int buffer_kind(const Py_buffer *view) {
    const char *format = view->format ? view->format : "B";
    if (*format == '<' || *format == '=' || *format == '@') ++format;
    if (format[0] == 0 || format[1] != 0) return -1;
    switch (format[0]) {
    case '?': return view->itemsize == 1 ? KIND_BOOL : -1;
    case 'i': case 'l': case 'q': return view->itemsize == 4 ? KIND_INT32 : view->itemsize == 8 ? KIND_INT64 : -1;
    case 'f': return view->itemsize == 4 ? KIND_FLOAT32 : -1;
    case 'd': return view->itemsize == 8 ? KIND_FLOAT64 : -1;
    default: return -1;
    }
}

/* n elements of kind `from` at src into kind `to` at dst, as numpy's copyto with casting="unsafe" converts them:
   the same kind as bytes; to bool: != 0 (NaN true); from bool: 0 or 1; int64 to int32: the C conversion (numpy's,
   wrapping); int32 to int64 and float32 to float64: exact; float64 to float32: rounded to nearest (numpy's C
   conversion). Returns 0 for a pair it does not convert (integers to floats and back: numpy's copyto then). */
static int cast_copy(const char *src, int from, char *dst, int to, int64_t n) {
    if (from == to) {
        memcpy(dst, src, (size_t)(n * KIND_SIZE[to]));
        return 1;
    }
#define CAST(S, D, EXPR) for (int64_t i = 0; i < n; ++i) { const S v = ((const S *)src)[i]; ((D *)dst)[i] = (EXPR); } return 1
    switch (from * 8 + to) {
    case KIND_BOOL * 8 + KIND_INT32: CAST(uint8_t, int32_t, v != 0);
    case KIND_BOOL * 8 + KIND_INT64: CAST(uint8_t, int64_t, v != 0);
    case KIND_BOOL * 8 + KIND_FLOAT32: CAST(uint8_t, float, v != 0 ? 1.0f : 0.0f);
    case KIND_BOOL * 8 + KIND_FLOAT64: CAST(uint8_t, double, v != 0 ? 1.0 : 0.0);
    case KIND_INT32 * 8 + KIND_BOOL: CAST(int32_t, uint8_t, v != 0);
    case KIND_INT64 * 8 + KIND_BOOL: CAST(int64_t, uint8_t, v != 0);
    case KIND_FLOAT32 * 8 + KIND_BOOL: CAST(float, uint8_t, v != 0.0f);
    case KIND_FLOAT64 * 8 + KIND_BOOL: CAST(double, uint8_t, v != 0.0);
    case KIND_INT32 * 8 + KIND_INT64: CAST(int32_t, int64_t, v);
    case KIND_INT64 * 8 + KIND_INT32: CAST(int64_t, int32_t, (int32_t)v);
    case KIND_FLOAT32 * 8 + KIND_FLOAT64: CAST(float, double, v);
    case KIND_FLOAT64 * 8 + KIND_FLOAT32: CAST(double, float, (float)v);
    default: return 0;
    }
#undef CAST
}

/* Copy arrays[i] (a tuple or list of C-contiguous arrays) into its target, row i of `table`: (the target's address
   past `base`, its kind, its ndim (up to 4), its shape), converting as `cast_copy` does, where the array has that
   shape and a kind `cast_copy` converts from. Returns how many were copied: all of them, or the index of the first
   that is not (the caller copies that one and the rest its own way); *differing: bit i set where arrays[i]'s kind is
   not its target's (i < 64). */
int64_t pvu_copy_into(PyObject *arrays, const int64_t *table, int64_t base, int64_t *differing) {
    PyObject *sequence = PySequence_Fast(arrays, "pvu_copy_into takes a sequence");
    if (sequence == NULL) {
        PyErr_Clear();
        return 0;
    }
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(sequence);
    PyObject **items = PySequence_Fast_ITEMS(sequence);
    int64_t mask = 0;
    Py_ssize_t i = 0;
    for (; i < n; ++i) {
        const int64_t *row = table + 7 * i;
        Py_buffer view;
        if (PyObject_GetBuffer(items[i], &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) != 0) {
            PyErr_Clear();
            break;
        }
        int same_shape = view.ndim == row[2] && row[2] <= 4;
        for (int d = 0; same_shape && d < view.ndim; ++d) same_shape = view.shape[d] == row[3 + d];
        const int from = buffer_kind(&view), to = (int)row[1];
        const int copied = same_shape && from >= 0
                           && cast_copy((const char *)view.buf, from, (char *)(uintptr_t)(base + row[0]), to,
                                        view.len / view.itemsize);
        PyBuffer_Release(&view);
        if (!copied) break;
        if (from != to && i < 64) mask |= (int64_t)1 << i;
    }
    Py_DECREF(sequence);
    *differing = mask;
    return (int64_t)i;
}

/* out[i]: the address of arrays[i] (a tuple or list) where it is C-contiguous and its elements of kinds[i] (as
   `pvu_copy_into` names them; plus KIND_WRITABLE: and writable, as an array the call writes into must be). Returns
   how many were written: all of them, or the index of the first that is not such an array (the caller takes the
   call's numpy way). */
#define KIND_WRITABLE 8
int64_t pvu_kind_addresses(PyObject *arrays, const int64_t *kinds, int64_t *out) {
    PyObject *sequence = PySequence_Fast(arrays, "pvu_kind_addresses takes a sequence");
    if (sequence == NULL) {
        PyErr_Clear();
        return 0;
    }
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(sequence);
    PyObject **items = PySequence_Fast_ITEMS(sequence);
    Py_ssize_t i = 0;
    for (; i < n; ++i) {
        Py_buffer view;
        const int writable = kinds[i] >= KIND_WRITABLE;
        if (PyObject_GetBuffer(items[i], &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0))
            != 0) {
            PyErr_Clear();
            break;
        }
        const int kind = buffer_kind(&view);
        out[i] = (int64_t)(uintptr_t)view.buf;
        PyBuffer_Release(&view);
        if (kind != kinds[i] - (writable ? KIND_WRITABLE : 0)) break;
    }
    Py_DECREF(sequence);
    return (int64_t)i;
}
