/* The numerical guard's quick test (sim/guard.py `_surely_healthy`), compiled: whether every checked state array's
   largest magnitude is within its bound, numpy's test of the arrays concatenated (np.maximum.reduceat of their
   magnitudes <= the bounds, a NaN failing it) without the concatenation. float32 arrays are compared in float32
   against bounds rounded to float32 (as numpy compares a float32 array with a float32 array), float64 in float64.
   Called with the GIL held (ctypes.PyDLL): it reads the arrays through the buffer protocol. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>

/* 1 where every element x of arrays[i] (a tuple or list) has |x| <= bounds[i], 0 where one has not (NaN included);
   -1 where an array is not C-contiguous, is empty, or is not of the kind `float64` says (0: float32, 1: float64):
   numpy's test then. */
int64_t pvu_all_within(PyObject *arrays, const double *bounds, int64_t float64) {
    PyObject *sequence = PySequence_Fast(arrays, "pvu_all_within takes a sequence");
    if (sequence == NULL) {
        PyErr_Clear();
        return -1;
    }
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(sequence);
    PyObject **items = PySequence_Fast_ITEMS(sequence);
    int64_t result = 1;
    for (Py_ssize_t i = 0; i < n && result == 1; ++i) {
        Py_buffer view;
        if (PyObject_GetBuffer(items[i], &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) != 0) {
            PyErr_Clear();
            result = -1;
            break;
        }
        const char *format = view.format ? view.format : "B";
        if (*format == '<' || *format == '=' || *format == '@') ++format;
        const char want = float64 ? 'd' : 'f';
        if (format[0] != want || format[1] != 0 || view.itemsize != (float64 ? 8 : 4) || view.len == 0) {
            result = -1;
        } else if (float64) {
            const double *x = (const double *)view.buf, bound = bounds[i];
            for (Py_ssize_t k = 0; k < view.len / 8; ++k)
                if (!(fabs(x[k]) <= bound)) { result = 0; break; }
        } else {
            const float *x = (const float *)view.buf, bound = (float)bounds[i];
            for (Py_ssize_t k = 0; k < view.len / 4; ++k)
                if (!(fabsf(x[k]) <= bound)) { result = 0; break; }
        }
        PyBuffer_Release(&view);
    }
    Py_DECREF(sequence);
    return result;
}
