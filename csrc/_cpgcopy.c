/*
 * dbjson._cpgcopy: read the rows of a PostgreSQL ``COPY ... TO STDOUT`` in blocks, in C.
 *
 * libpq hands out COPY data one row per PQgetCopyData call. Done from Python (psycopg's
 * ``pgconn.get_copy_data``), every row costs an interpreter round trip under the interpreter
 * lock, which serializes the export's worker threads. This module runs the same loop in C with the
 * lock released and returns whole blocks of rows.
 *
 * It does not link libpq: the caller passes the addresses of the libpq that psycopg itself loaded
 * (``PQgetCopyData`` and ``PQfreemem``, taken with ctypes) and psycopg's ``PGconn *``
 * (``pgconn.pgconn_ptr``), so both sides use one library and one connection state. The Python
 * loop in ``dbjson/engines/postgresql/export.py`` is the reference and the fallback.
 *
 *   read_rows(conn_ptr, getcopydata_ptr, freemem_ptr, max_bytes) -> (status, data)
 *       Calls PQgetCopyData(conn, &row, 1) (non-blocking) and appends the rows to ``data`` until
 *       at least ``max_bytes`` are collected (status 1), no complete row is buffered (status 0:
 *       the caller waits for the socket and calls PQconsumeInput), the COPY ended (-1) or failed
 *       (-2, the caller reads the error from the result). ``data`` holds whole rows only.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#include "common/buf.h"

typedef int (*getcopydata_fn)(void *conn, char **buffer, int async);
typedef void (*freemem_fn)(void *ptr);

static PyObject *py_read_rows(PyObject *self, PyObject *args)
{
    unsigned long long conn_addr, get_addr, free_addr;
    Py_ssize_t max_bytes;
    if (!PyArg_ParseTuple(args, "KKKn", &conn_addr, &get_addr, &free_addr, &max_bytes))
        return NULL;
    if (!conn_addr || !get_addr || !free_addr || max_bytes <= 0) {
        PyErr_SetString(PyExc_ValueError, "read_rows: null pointer or bad size");
        return NULL;
    }
    void *conn = (void *)(uintptr_t)conn_addr;
    getcopydata_fn get = (getcopydata_fn)(uintptr_t)get_addr;
    freemem_fn release = (freemem_fn)(uintptr_t)free_addr;

    Buf out = {0};
    if (buf_reserve(&out, max_bytes > PY_SSIZE_T_MAX - (1 << 16) ? -1 : max_bytes + (1 << 16)) < 0)
        return PyErr_NoMemory();
    int status = 1, oom = 0;
    Py_BEGIN_ALLOW_THREADS
    for (;;) {
        char *row = NULL;
        int n = get(conn, &row, 1);
        if (n <= 0) {
            status = n == 0 ? 0 : (n == -1 ? -1 : -2);
            if (row)
                release(row);
            break;
        }
        oom = buf_put(&out, row, n) < 0;
        release(row);
        if (oom)
            break;
        if (out.len >= max_bytes) {
            status = 1;
            break;
        }
    }
    Py_END_ALLOW_THREADS
    if (oom) {
        buf_free(&out);
        return PyErr_NoMemory();
    }
    PyObject *data = PyBytes_FromStringAndSize(out.p, out.len);
    buf_free(&out);
    if (data == NULL)
        return NULL;
    return Py_BuildValue("(iN)", status, data);
}

static PyMethodDef methods[] = {
    {"read_rows", py_read_rows, METH_VARARGS, "read_rows(conn_ptr, getcopydata_ptr, freemem_ptr, max_bytes) -> (status, data)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_cpgcopy", "COPY TO STDOUT rows in blocks, without the GIL.", -1,
                                    methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__cpgcopy(void) { return PyModule_Create(&module); }
