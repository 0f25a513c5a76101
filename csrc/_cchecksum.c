/*
 * dbjson._cchecksum: the content checksum of canonical lines, without a Python object per line.
 *
 * The checksum (dbjson.format.checksum.Checksum, docs/data-format.md) of a set of lines is the sum modulo
 * 2^64 of a 64-bit hash of every line. Two line hashes exist, named by the manifest's
 * ``checksum_algorithm``:
 *
 *   XXH3 (1)      ``xxh3-64-sum``, the default since data format 1.2: XXH3-64 (seed 0) of the
 *                 line. XXH3 comes from xxHash 0.8.2 (Yann Collet, BSD 2-Clause), vendored
 *                 unchanged in csrc/vendor/xxhash/ and compiled inline here; the Python reference
 *                 is the ``xxhash`` package's ``xxh3_64_intdigest``.
 *   BLAKE2B64 (0) ``blake2b64-sum`` (data format 1.0-1.1 exports, still read and verified): the
 *                 first 8 bytes of the line's BLAKE2b-512 digest read as a little-endian integer,
 *                 i.e. the final state word h[0]. BLAKE2b is implemented below as specified in
 *                 RFC 7693 (unkeyed, 64-byte output); the Python reference is hashlib.blake2b.
 *
 * The algorithm numbers are the module's constants BLAKE2B64 and XXH3.
 *
 * One C call per block (or list of lines), with the interpreter lock released: export, import and
 * verify hash from worker threads. tests/test_cchecksum.py compares every function with its Python
 * reference on all lengths around the block boundaries and on random data.
 *
 *   sum_block(block: bytes, algorithm: int = 0) -> (value, rows)
 *       Lines of ``block`` split at b"\n"; a final empty piece (the block ends with a newline, or
 *       is empty) is not a line -- exactly Checksum.add_block's rule.
 *   sum_lines(lines: list[bytes], algorithm: int = 0) -> value
 *       The sum over a list of lines (codec.sum_lines).
 *   line_value(line: bytes, algorithm: int = 0) -> value
 *       One line's value (codec.line_hash).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "common/constants.h"

#define XXH_INLINE_ALL
#include "vendor/xxhash/xxhash.h"

/* the algorithm argument (exported as the module's constants) */
#define ALGORITHMS(X) X(BLAKE2B64) X(XXH3)
enum { ALGORITHMS(CONST_ENUM) };

static const uint64_t IV[8] = {
    0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL, 0x3c6ef372fe94f82bULL, 0xa54ff53a5f1d36f1ULL,
    0x510e527fade682d1ULL, 0x9b05688c2b3e6c1fULL, 0x1f83d9abfb41bd6bULL, 0x5be0cd19137e2179ULL,
};

static const uint8_t SIGMA[12][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
    {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4},
    {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
    {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13},
    {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
    {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11},
    {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
    {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5},
    {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
};

static inline uint64_t rotr64(uint64_t x, unsigned n) { return (x >> n) | (x << (64 - n)); }

static inline uint64_t load64(const unsigned char *p)
{
    return (uint64_t)p[0] | ((uint64_t)p[1] << 8) | ((uint64_t)p[2] << 16) | ((uint64_t)p[3] << 24) |
           ((uint64_t)p[4] << 32) | ((uint64_t)p[5] << 40) | ((uint64_t)p[6] << 48) | ((uint64_t)p[7] << 56);
}

#define G(a, b, c, d, x, y)                \
    do {                                   \
        v[a] = v[a] + v[b] + (x);          \
        v[d] = rotr64(v[d] ^ v[a], 32);    \
        v[c] = v[c] + v[d];                \
        v[b] = rotr64(v[b] ^ v[c], 24);    \
        v[a] = v[a] + v[b] + (y);          \
        v[d] = rotr64(v[d] ^ v[a], 16);    \
        v[c] = v[c] + v[d];                \
        v[b] = rotr64(v[b] ^ v[c], 63);    \
    } while (0)

/* RFC 7693 section 3.2: compress one 128-byte block; t = bytes hashed so far including it. */
static void compress(uint64_t h[8], const unsigned char block[128], uint64_t t, int last)
{
    uint64_t v[16], m[16];
    for (int i = 0; i < 16; i++)
        m[i] = load64(block + 8 * i);
    for (int i = 0; i < 8; i++) {
        v[i] = h[i];
        v[i + 8] = IV[i];
    }
    v[12] ^= t; /* low word of the 128-bit counter; lines are far below 2^64 bytes */
    if (last)
        v[14] = ~v[14];
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC unroll 12
#endif
    for (int r = 0; r < 12; r++) {
        const uint8_t *s = SIGMA[r];
        G(0, 4, 8, 12, m[s[0]], m[s[1]]);
        G(1, 5, 9, 13, m[s[2]], m[s[3]]);
        G(2, 6, 10, 14, m[s[4]], m[s[5]]);
        G(3, 7, 11, 15, m[s[6]], m[s[7]]);
        G(0, 5, 10, 15, m[s[8]], m[s[9]]);
        G(1, 6, 11, 12, m[s[10]], m[s[11]]);
        G(2, 7, 8, 13, m[s[12]], m[s[13]]);
        G(3, 4, 9, 14, m[s[14]], m[s[15]]);
    }
    for (int i = 0; i < 8; i++)
        h[i] ^= v[i] ^ v[i + 8];
}

/* The first 8 digest bytes (little-endian) of BLAKE2b-512 of p[0..n). */
static uint64_t line_value(const unsigned char *p, size_t n)
{
    uint64_t h[8];
    memcpy(h, IV, sizeof h);
    h[0] ^= 0x01010000ULL ^ 64; /* depth 1, fanout 1, no key, 64-byte digest */
    uint64_t t = 0;
    while (n > 128) { /* every full block but the last one */
        t += 128;
        compress(h, p, t, 0);
        p += 128;
        n -= 128;
    }
    unsigned char last[128];
    memset(last, 0, sizeof last);
    if (n)
        memcpy(last, p, n);
    t += n;
    compress(h, last, t, 1);
    return h[0];
}

typedef uint64_t (*line_fn)(const unsigned char *, size_t);

static uint64_t xxh3_value(const unsigned char *p, size_t n) { return (uint64_t)XXH3_64bits(p, n); }

/* The line hash of an ``algorithm`` argument (0 when absent); NULL with an exception set. */
static line_fn hash_of(int algorithm)
{
    if (algorithm == BLAKE2B64)
        return line_value;
    if (algorithm == XXH3)
        return xxh3_value;
    PyErr_Format(PyExc_ValueError, "unknown checksum algorithm %d", algorithm);
    return NULL;
}

static PyObject *py_sum_block(PyObject *self, PyObject *args)
{
    Py_buffer view;
    int algorithm = BLAKE2B64;
    if (!PyArg_ParseTuple(args, "y*|i:sum_block", &view, &algorithm))
        return NULL;
    line_fn hash = hash_of(algorithm);
    if (hash == NULL) {
        PyBuffer_Release(&view);
        return NULL;
    }
    const unsigned char *p = view.buf;
    size_t n = (size_t)view.len;
    uint64_t total = 0;
    Py_ssize_t rows = 0;
    Py_BEGIN_ALLOW_THREADS
    size_t start = 0;
    while (start < n) {
        const unsigned char *nl = memchr(p + start, '\n', n - start);
        size_t end = nl ? (size_t)(nl - p) : n;
        total += hash(p + start, end - start);
        rows++;
        start = end + 1;
    }
    /* pieces between newlines: "a\n\nb\n" is a, "", b; a block ending without a newline has its
       last piece as a line; the empty piece after a final newline is not one (start == n) */
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    return Py_BuildValue("(Kn)", (unsigned long long)total, rows);
}

static PyObject *py_sum_lines(PyObject *self, PyObject *args)
{
    PyObject *arg;
    int algorithm = BLAKE2B64;
    if (!PyArg_ParseTuple(args, "O|i:sum_lines", &arg, &algorithm))
        return NULL;
    line_fn hash = hash_of(algorithm);
    if (hash == NULL)
        return NULL;
    PyObject *seq = PySequence_Fast(arg, "sum_lines() takes a list of bytes");
    if (seq == NULL)
        return NULL;
    Py_ssize_t count = PySequence_Fast_GET_SIZE(seq);
    PyObject **items = PySequence_Fast_ITEMS(seq);
    uint64_t total = 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        if (!PyBytes_Check(items[i])) {
            Py_DECREF(seq);
            PyErr_SetString(PyExc_TypeError, "sum_lines() takes a list of bytes");
            return NULL;
        }
    }
    /* the list is held (seq) and bytes are immutable: safe to read without the lock */
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < count; i++)
        total += hash((const unsigned char *)PyBytes_AS_STRING(items[i]), (size_t)PyBytes_GET_SIZE(items[i]));
    Py_END_ALLOW_THREADS
    Py_DECREF(seq);
    return PyLong_FromUnsignedLongLong(total);
}

static PyObject *py_line_value(PyObject *self, PyObject *args)
{
    Py_buffer view;
    int algorithm = BLAKE2B64;
    if (!PyArg_ParseTuple(args, "y*|i:line_value", &view, &algorithm))
        return NULL;
    line_fn hash = hash_of(algorithm);
    if (hash == NULL) {
        PyBuffer_Release(&view);
        return NULL;
    }
    uint64_t v = hash(view.buf, (size_t)view.len);
    PyBuffer_Release(&view);
    return PyLong_FromUnsignedLongLong(v);
}

static PyMethodDef methods[] = {
    {"sum_block", py_sum_block, METH_VARARGS, "sum_block(block, algorithm=0) -> (value, rows): checksum of the block's lines"},
    {"sum_lines", py_sum_lines, METH_VARARGS, "sum_lines(lines, algorithm=0) -> value: checksum of a list of lines"},
    {"line_value", py_line_value, METH_VARARGS, "line_value(line, algorithm=0) -> value: one line's checksum value"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_cchecksum", "Line checksums: XXH3-64 and BLAKE2b (RFC 7693).", -1,
                                    methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__cchecksum(void)
{
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    static const ModuleConst constants[] = {ALGORITHMS(CONST_ENTRY) {NULL, 0}};
    if (add_constants(m, constants) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
