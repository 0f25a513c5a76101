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
 *   semantic_line(line: bytes, jsons, decimals, json_texts=()) -> bytes (tuples of bytes)
 *       A line's by-meaning form, for verify's comparison across engines (see below).
 *   semantic_sum_block(block, jsons, decimals, algorithm=0, json_texts=()) -> (value, rows)
 *   semantic_sum_lines(lines, jsons, decimals, algorithm=0, json_texts=()) -> value
 *       sum_block / sum_lines of the lines' by-meaning forms (ValueError as semantic_line).
 *   date_values(text, keys) -> bool
 *       Whether a member named by keys holds a zero or infinite date (verify's value rules).
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


/* ------------------------------------------------------------------------------------------------
 * semantic_line: a canonical line in its by-meaning form (verify's cross-engine comparison).
 *
 *   semantic_line(line: bytes, jsons: tuple[bytes, ...], decimals: tuple[bytes, ...],
 *                 json_texts: tuple[bytes, ...] = ()) -> bytes
 *
 * The Python twin is dbjson.verify.semantic_line_py; tests/test_cchecksum.py compares the two.
 * The line is a JSON object; its members are written sorted by key (UTF-8 bytes = code point
 * order; a repeated key keeps its last value), without whitespace. The value of a key named in
 * ``jsons`` (a json column) is rewritten by meaning: objects with sorted keys (last of a repeated
 * key), no whitespace, strings with the minimal escapes orjson writes, numbers by exact value
 * (canonical_number below). The value of a key named in ``decimals`` (an unconstrained decimal
 * column, a JSON string) that holds a JSON number gets its digits the same way. The value of a key
 * named in ``json_texts`` (a json column written as the JSON string of its text, data format 1.3)
 * is the JSON text that string holds, rewritten by meaning as for ``jsons`` and then given the
 * row encoding's escape (``null`` -> {"$json":null}, an object whose only key is "$json" wrapped
 * once more), so that it equals the form of the same document written nested. Every other value
 * is kept as written. Malformed input (or nesting deeper than MAX_DEPTH, an exponent of more than
 * MAX_EXP_DIGITS digits, a lone surrogate) raises ValueError: the caller then uses the twin, whose
 * error names the problem.
 * ---------------------------------------------------------------------------------------------- */

#include "common/buf.h"

#define MAX_DEPTH 200
#define MAX_EXP_DIGITS 6
#define FIXED_LIMIT 1000 /* |exponent| above this: digits "e" exponent instead of plain digits */

typedef struct {
    const unsigned char *p;
    size_t n, i;
} Src;

enum { OK = 0, BAD = -1, NOMEM = -2 };

/* a byte a JSON string holds as it is (not '"', '\\', nor a control character) */
static unsigned char plain_table[256]; /* filled by plain_init() when the module loads */

static void plain_init(void)
{
    for (int c = 0; c < 256; c++)
        plain_table[c] = c >= 0x20 && c != '"' && c != '\\';
}

static inline int plain_byte(unsigned char c) { return plain_table[c]; }

/* Scratch byte buffers kept per thread (see Scratch below), each used by one function that
   calls nothing else using it; large ones are given back after use. */
static _Thread_local Buf t_string, t_value, t_text, t_tmp;
#define SCRATCH_KEEP (64 * 1024)

static Buf *buf_take(Buf *b)
{
    b->len = 0;
    return b;
}

static void buf_give(Buf *b)
{
    if (b->cap > SCRATCH_KEEP)
        buf_free(b);
}

static void skip_ws(Src *s)
{
    while (s->i < s->n && (s->p[s->i] == ' ' || s->p[s->i] == '\t' || s->p[s->i] == '\n' || s->p[s->i] == '\r'))
        s->i++;
}

static int hexval(unsigned char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static int read_hex4(Src *s, unsigned *out)
{
    if (s->i + 4 > s->n)
        return BAD;
    unsigned v = 0;
    for (int k = 0; k < 4; k++) {
        int h = hexval(s->p[s->i + k]);
        if (h < 0)
            return BAD;
        v = v * 16 + (unsigned)h;
    }
    s->i += 4;
    *out = v;
    return OK;
}

/* ``cp`` (a code point) as UTF-8 at d; the number of bytes written (at most 4). */
static int utf8_at(char *d, unsigned cp)
{
    if (cp < 0x80) {
        d[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        d[0] = (char)(0xC0 | (cp >> 6));
        d[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        d[0] = (char)(0xE0 | (cp >> 12));
        d[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        d[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    d[0] = (char)(0xF0 | (cp >> 18));
    d[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    d[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    d[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* The string token at s->i (a '"'), its content decoded (UTF-8) appended to ``out``. The
   decoded text is never longer than the rest of the input (an escape is longer than what it
   stands for: \uXXXX, 6 bytes, gives at most 3; a surrogate pair, 12, gives 4), so the room is
   reserved once and written without further checks. */
static int decode_string(Src *s, Buf *out)
{
    if (s->i >= s->n || s->p[s->i] != '"')
        return BAD;
    s->i++;
    if (buf_reserve(out, (Py_ssize_t)(s->n - s->i)) < 0)
        return NOMEM;
    char *d = out->p + out->len;
    int rc = OK;
    for (;;) {
        const unsigned char *p = s->p;
        size_t i = s->i, n = s->n;
        while (i < n && plain_byte(p[i])) /* copied as scanned: the runs between escapes are short */
            *d++ = (char)p[i++];
        s->i = i;
        if (s->i >= s->n || s->p[s->i] < 0x20) {
            rc = BAD; /* unterminated, or a raw control character (json.loads rejects both) */
            break;
        }
        if (s->p[s->i] == '"') {
            s->i++;
            break;
        }
        s->i++; /* backslash */
        if (s->i >= s->n) {
            rc = BAD;
            break;
        }
        unsigned char c = s->p[s->i++];
        switch (c) {
        case '"': *d++ = '"'; continue;
        case '\\': *d++ = '\\'; continue;
        case '/': *d++ = '/'; continue;
        case 'b': *d++ = '\b'; continue;
        case 'f': *d++ = '\f'; continue;
        case 'n': *d++ = '\n'; continue;
        case 'r': *d++ = '\r'; continue;
        case 't': *d++ = '\t'; continue;
        case 'u': {
            unsigned cp, lo;
            if (read_hex4(s, &cp) < 0) {
                rc = BAD;
                break;
            }
            if (cp >= 0xD800 && cp < 0xDC00) {
                if (s->i + 6 > s->n || s->p[s->i] != '\\' || s->p[s->i + 1] != 'u') {
                    rc = BAD; /* a lone high surrogate: orjson cannot write it */
                    break;
                }
                s->i += 2;
                if (read_hex4(s, &lo) < 0 || lo < 0xDC00 || lo >= 0xE000) {
                    rc = BAD;
                    break;
                }
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            } else if (cp >= 0xDC00 && cp < 0xE000) {
                rc = BAD;
                break;
            }
            d += utf8_at(d, cp);
            continue;
        }
        default:
            rc = BAD;
        }
        break; /* (only an error leaves the switch without continue) */
    }
    out->len = d - out->p;
    return rc;
}

/* ``u`` (UTF-8) as a JSON string with orjson's escapes: \" \\ \b \f \n \r \t, \u00xx for the
   other control characters; everything else as it is. */
static int emit_string(Buf *b, const unsigned char *u, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    if (buf_reserve(b, (Py_ssize_t)n * 6 + 2) < 0)
        return NOMEM;
    char *d = b->p + b->len;
    *d++ = '"';
    for (size_t k = 0; k < n; k++) {
        unsigned char c = u[k];
        if (c >= 0x20 && c != '"' && c != '\\') {
            *d++ = (char)c;
            continue;
        }
        *d++ = '\\';
        switch (c) {
        case '"': *d++ = '"'; break;
        case '\\': *d++ = '\\'; break;
        case '\b': *d++ = 'b'; break;
        case '\f': *d++ = 'f'; break;
        case '\n': *d++ = 'n'; break;
        case '\r': *d++ = 'r'; break;
        case '\t': *d++ = 't'; break;
        default:
            *d++ = 'u';
            *d++ = '0';
            *d++ = '0';
            *d++ = hex[c >> 4];
            *d++ = hex[c & 15];
        }
    }
    *d++ = '"';
    b->len = d - b->p;
    return OK;
}

/* A JSON number (``p[0..n)``, exactly the JSON grammar) by exact value: "0" for every zero; else
   the sign, then the digits without leading or trailing zeros placed around the decimal point
   (1.50 -> 1.5, 1E2 -> 100, 25e-3 -> 0.025), or, when the exponent of the last digit is beyond
   +-FIXED_LIMIT, those digits, "e" and that exponent (1e2000 -> 1e2000). BAD when it is not a
   number, or its exponent has more than MAX_EXP_DIGITS digits. */
static int canonical_number(const unsigned char *p, size_t n, Buf *out)
{
    size_t i = 0;
    int neg = 0;
    if (i < n && p[i] == '-') {
        neg = 1;
        i++;
    }
    if (i >= n || p[i] < '0' || p[i] > '9')
        return BAD;
    size_t int_start = i;
    if (p[i] == '0')
        i++;
    else
        while (i < n && p[i] >= '0' && p[i] <= '9')
            i++;
    size_t int_end = i, frac_start = i, frac_end = i;
    if (i < n && p[i] == '.') {
        i++;
        frac_start = i;
        while (i < n && p[i] >= '0' && p[i] <= '9')
            i++;
        frac_end = i;
        if (frac_end == frac_start)
            return BAD;
    }
    long exp = 0;
    if (i < n && (p[i] == 'e' || p[i] == 'E')) {
        i++;
        int eneg = 0;
        if (i < n && (p[i] == '+' || p[i] == '-'))
            eneg = p[i++] == '-';
        size_t es = i;
        while (i < n && p[i] >= '0' && p[i] <= '9') {
            if (i - es >= MAX_EXP_DIGITS)
                return BAD;
            exp = exp * 10 + (p[i] - '0');
            i++;
        }
        if (i == es)
            return BAD;
        if (eneg)
            exp = -exp;
    }
    if (i != n)
        return BAD;
    if (frac_end == frac_start && exp == 0 && i == int_end) { /* an integer: as written, but zero */
        if (int_end - int_start == 1 && p[int_start] == '0')
            return buf_put(out, "0", 1) < 0 ? NOMEM : OK;
        return buf_put(out, p, (Py_ssize_t)n) < 0 ? NOMEM : OK;
    }
    /* the significant digits: integer part then fraction, value = digits * 10^(exp - frac digits) */
    size_t total = (int_end - int_start) + (frac_end - frac_start);
    char small[128];
    Buf dg = {0};
    if (total + 1 <= sizeof small) { /* on the stack (never grown: reserved below) */
        dg.p = small;
        dg.cap = (Py_ssize_t)sizeof small;
    } else if (buf_reserve(&dg, (Py_ssize_t)total + 1) < 0)
        return NOMEM;
    buf_put_unchecked(&dg, p + int_start, (Py_ssize_t)(int_end - int_start));
    buf_put_unchecked(&dg, p + frac_start, (Py_ssize_t)(frac_end - frac_start));
    long e = exp - (long)(frac_end - frac_start);
    Py_ssize_t a = 0, z = dg.len;
    while (a < z && dg.p[a] == '0')
        a++;
    while (z > a && dg.p[z - 1] == '0') {
        z--;
        e++;
    }
    int rc = OK;
    if (a == z) {
        rc = buf_put(out, "0", 1) < 0 ? NOMEM : OK;
        if (dg.p != small)
            buf_free(&dg);
        return rc;
    }
    Py_ssize_t nd = z - a;
    const char *d = dg.p + a;
    if (neg && buf_put(out, "-", 1) < 0)
        rc = NOMEM;
    else if (e > FIXED_LIMIT || e < -FIXED_LIMIT) {
        char tail[32];
        int k = snprintf(tail, sizeof tail, "e%ld", e);
        if (buf_put(out, d, nd) < 0 || buf_put(out, tail, k) < 0)
            rc = NOMEM;
    } else if (e >= 0) {
        if (buf_reserve(out, nd + e) < 0)
            rc = NOMEM;
        else {
            buf_put_unchecked(out, d, nd);
            memset(out->p + out->len, '0', (size_t)e);
            out->len += e;
        }
    } else {
        Py_ssize_t point = nd + e; /* digits before the decimal point */
        if (buf_reserve(out, nd + (point > 0 ? 1 : 2 - point)) < 0)
            rc = NOMEM;
        else if (point > 0) {
            buf_put_unchecked(out, d, point);
            buf_putc_unchecked(out, '.');
            buf_put_unchecked(out, d + point, nd - point);
        } else {
            buf_put_unchecked(out, "0.", 2);
            memset(out->p + out->len, '0', (size_t)(-point));
            out->len += -point;
            buf_put_unchecked(out, d, nd);
        }
    }
    if (dg.p != small)
        buf_free(&dg);
    return rc;
}

static int match_word(Src *s, const char *w)
{
    size_t k = strlen(w);
    if (s->i + k > s->n || memcmp(s->p + s->i, w, k) != 0)
        return 0;
    s->i += k;
    return 1;
}

typedef struct {
    Py_ssize_t key, keylen, val, vallen; /* offsets into the object's scratch buffers */
    Py_ssize_t order;
} Member;

static int member_cmp(const void *x, const void *y, const char *keys)
{
    const Member *a = x, *b = y;
    Py_ssize_t m = a->keylen < b->keylen ? a->keylen : b->keylen;
    int c = memcmp(keys + a->key, keys + b->key, (size_t)m);
    if (c)
        return c;
    if (a->keylen != b->keylen)
        return a->keylen < b->keylen ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order; /* stable: a repeated key, last one last */
}

/* insertion sort into place: objects are small, and this keeps the comparison's context simple */
static void sort_members(Member *ms, Py_ssize_t n, const char *keys)
{
    for (Py_ssize_t i = 1; i < n; i++) {
        Member t = ms[i];
        Py_ssize_t j = i;
        while (j > 0 && member_cmp(&ms[j - 1], &t, keys) > 0) {
            ms[j] = ms[j - 1];
            j--;
        }
        ms[j] = t;
    }
}

static int canon_value(Src *s, Buf *out, int depth);

/* Members already parsed into ``keys``/``vals``: written sorted, a repeated key's last value. */
static int emit_members(Buf *out, Member *ms, Py_ssize_t count, const Buf *keys, const Buf *vals)
{
    sort_members(ms, count, keys->p);
    if (buf_put(out, "{", 1) < 0)
        return NOMEM;
    int first = 1;
    for (Py_ssize_t k = 0; k < count; k++) {
        if (k + 1 < count && ms[k + 1].keylen == ms[k].keylen &&
            memcmp(keys->p + ms[k + 1].key, keys->p + ms[k].key, (size_t)ms[k].keylen) == 0)
            continue; /* a later member has the same key */
        if (!first && buf_put(out, ",", 1) < 0)
            return NOMEM;
        first = 0;
        int r = emit_string(out, (const unsigned char *)keys->p + ms[k].key, (size_t)ms[k].keylen);
        if (r < 0)
            return r;
        if (buf_put(out, ":", 1) < 0 || buf_put(out, vals->p + ms[k].val, ms[k].vallen) < 0)
            return NOMEM;
    }
    return buf_put(out, "}", 1) < 0 ? NOMEM : OK;
}

static int grow_members(Member **ms, Py_ssize_t *cap, Py_ssize_t count)
{
    if (count < *cap)
        return OK;
    Py_ssize_t nc = *cap ? *cap * 2 : 16;
    Member *m = PyMem_RawRealloc(*ms, (size_t)nc * sizeof(Member));
    if (m == NULL)
        return NOMEM;
    *ms = m;
    *cap = nc;
    return OK;
}

/* Scratch buffers of one object being rewritten, kept per thread and per nesting depth (an
   object's members are rewritten at a greater depth than the object), so that a block of lines
   does not allocate and free them for every object; large ones are given back after use. */
typedef struct {
    Buf keys, vals;
    Member *ms;
    Py_ssize_t cap;
} Scratch;

static _Thread_local Scratch scratch[MAX_DEPTH + 2];

static Scratch *scratch_take(int depth)
{
    Scratch *x = &scratch[depth];
    x->keys.len = x->vals.len = 0;
    return x;
}

static void scratch_give(Scratch *x)
{
    if (x->keys.cap > SCRATCH_KEEP)
        buf_free(&x->keys);
    if (x->vals.cap > SCRATCH_KEEP)
        buf_free(&x->vals);
    if (x->cap > 4096) {
        PyMem_RawFree(x->ms);
        x->ms = NULL;
        x->cap = 0;
    }
}

static int emit_object_members(Buf *out, Member *ms, Py_ssize_t count, const Buf *keys, const Buf *vals);

static int canon_object(Src *s, Buf *out, int depth)
{
    s->i++; /* { */
    Scratch *x = scratch_take(depth + 1); /* depth 0: the line's own members (semantic) */
    Buf keys = x->keys, vals = x->vals;
    Member *ms = x->ms;
    Py_ssize_t count = 0, cap = x->cap;
    int rc = OK;
    skip_ws(s);
    if (s->i < s->n && s->p[s->i] == '}') {
        s->i++;
        return buf_put(out, "{}", 2) < 0 ? NOMEM : OK;
    }
    for (;;) {
        skip_ws(s);
        if ((rc = grow_members(&ms, &cap, count)) < 0)
            break;
        Member *m = &ms[count];
        m->order = count;
        m->key = keys.len;
        if ((rc = decode_string(s, &keys)) < 0)
            break;
        m->keylen = keys.len - m->key;
        skip_ws(s);
        if (s->i >= s->n || s->p[s->i] != ':') {
            rc = BAD;
            break;
        }
        s->i++;
        skip_ws(s);
        m->val = vals.len;
        if ((rc = canon_value(s, &vals, depth + 1)) < 0)
            break;
        m->vallen = vals.len - m->val;
        count++;
        skip_ws(s);
        if (s->i < s->n && s->p[s->i] == ',') {
            s->i++;
            continue;
        }
        if (s->i < s->n && s->p[s->i] == '}') {
            s->i++;
            rc = emit_object_members(out, ms, count, &keys, &vals);
            break;
        }
        rc = BAD;
        break;
    }
    x->keys = keys;
    x->vals = vals;
    x->ms = ms;
    x->cap = cap;
    scratch_give(x);
    return rc;
}

static int canon_value(Src *s, Buf *out, int depth)
{
    if (depth > MAX_DEPTH)
        return BAD;
    skip_ws(s);
    if (s->i >= s->n)
        return BAD;
    unsigned char c = s->p[s->i];
    if (c == '{')
        return canon_object(s, out, depth);
    if (c == '[') {
        s->i++;
        if (buf_put(out, "[", 1) < 0)
            return NOMEM;
        skip_ws(s);
        if (s->i < s->n && s->p[s->i] == ']') {
            s->i++;
            return buf_put(out, "]", 1) < 0 ? NOMEM : OK;
        }
        for (;;) {
            int r = canon_value(s, out, depth + 1);
            if (r < 0)
                return r;
            skip_ws(s);
            if (s->i < s->n && s->p[s->i] == ',') {
                s->i++;
                if (buf_put(out, ",", 1) < 0)
                    return NOMEM;
                continue;
            }
            if (s->i < s->n && s->p[s->i] == ']') {
                s->i++;
                return buf_put(out, "]", 1) < 0 ? NOMEM : OK;
            }
            return BAD;
        }
    }
    if (c == '"') {
        size_t j = s->i + 1;
        while (j < s->n && plain_byte(s->p[j]))
            j++;
        if (j < s->n && s->p[j] == '"') { /* no escape: decoded and re-escaped it is the token itself */
            if (buf_put(out, s->p + s->i, (Py_ssize_t)(j + 1 - s->i)) < 0)
                return NOMEM;
            s->i = j + 1;
            return OK;
        }
        Buf *t = buf_take(&t_string);
        int r = decode_string(s, t);
        if (r == OK)
            r = emit_string(out, (const unsigned char *)t->p, (size_t)t->len);
        buf_give(t);
        return r;
    }
    if (match_word(s, "true"))
        return buf_put(out, "true", 4) < 0 ? NOMEM : OK;
    if (match_word(s, "false"))
        return buf_put(out, "false", 5) < 0 ? NOMEM : OK;
    if (match_word(s, "null"))
        return buf_put(out, "null", 4) < 0 ? NOMEM : OK;
    if (match_word(s, "NaN"))
        return buf_put(out, "NaN", 3) < 0 ? NOMEM : OK;
    if (match_word(s, "Infinity"))
        return buf_put(out, "Infinity", 8) < 0 ? NOMEM : OK;
    if (match_word(s, "-Infinity"))
        return buf_put(out, "-Infinity", 9) < 0 ? NOMEM : OK;
    size_t start = s->i;
    while (s->i < s->n) {
        unsigned char d = s->p[s->i];
        if (!((d >= '0' && d <= '9') || d == '-' || d == '+' || d == '.' || d == 'e' || d == 'E'))
            break;
        s->i++;
    }
    if (s->i == start)
        return BAD;
    return canonical_number(s->p + start, s->i - start, out);
}

/* Index just past the string token at s->i, validated exactly as decode_string validates it
   (unterminated, raw control characters, unknown escapes, bad \u escapes, lone surrogates are
   BAD), without decoding it anywhere: a member kept as written is only checked. */
static int skip_string(Src *s)
{
    if (s->i >= s->n || s->p[s->i] != '"')
        return BAD;
    s->i++;
    for (;;) {
        while (s->i < s->n && plain_byte(s->p[s->i]))
            s->i++;
        if (s->i >= s->n || s->p[s->i] < 0x20)
            return BAD;
        if (s->p[s->i] == '"') {
            s->i++;
            return OK;
        }
        s->i++; /* backslash */
        if (s->i >= s->n)
            return BAD;
        unsigned char c = s->p[s->i++];
        switch (c) {
        case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
            continue;
        case 'u': {
            unsigned cp, lo;
            if (read_hex4(s, &cp) < 0)
                return BAD;
            if (cp >= 0xD800 && cp < 0xDC00) {
                if (s->i + 6 > s->n || s->p[s->i] != '\\' || s->p[s->i + 1] != 'u')
                    return BAD;
                s->i += 2;
                if (read_hex4(s, &lo) < 0 || lo < 0xDC00 || lo >= 0xE000)
                    return BAD;
            } else if (cp >= 0xDC00 && cp < 0xE000) {
                return BAD;
            }
            continue;
        }
        default:
            return BAD;
        }
    }
}

/* Index just past the value at s->i, without rewriting it (a top-level value kept as written).
   Strings and the literals true/false/null (nearly every member of a canonical line) are checked
   in place; other values are validated by rewriting them into a scratch buffer. */
static int skip_value(Src *s)
{
    skip_ws(s);
    if (s->i < s->n && s->p[s->i] == '"')
        return skip_string(s);
    if (match_word(s, "null") || match_word(s, "true") || match_word(s, "false"))
        return OK;
    Buf *t = buf_take(&t_value); /* (numbers, arrays, objects: canon_value does not use t_value) */
    int r = canon_value(s, t, 0); /* validates as the twin's raw_values + later parse would */
    buf_give(t);
    return r;
}

static int in_names(const unsigned char *k, Py_ssize_t n, PyObject *names)
{
    Py_ssize_t count = PyTuple_GET_SIZE(names);
    for (Py_ssize_t j = 0; j < count; j++) {
        PyObject *o = PyTuple_GET_ITEM(names, j);
        if (PyBytes_GET_SIZE(o) == n && memcmp(PyBytes_AS_STRING(o), k, (size_t)n) == 0)
            return 1;
    }
    return 0;
}

/* The by-meaning form of the JSON text t (the content of a json_texts value), escaped as the row
   encoding escapes a nested json value (wrap_json_text), appended to out. */
static int canon_json_text(const Buf *t, Buf *out)
{
    Src in = {(const unsigned char *)(t->p ? t->p : ""), (size_t)t->len, 0};
    Buf c = *buf_take(&t_text); /* (canon_value does not use t_text) */
    int r = canon_value(&in, &c, 0);
    if (r == OK) {
        skip_ws(&in);
        if (in.i != in.n)
            r = BAD;
    }
    if (r == OK) {
        int wrap = 0;
        if (c.len == 4 && memcmp(c.p, "null", 4) == 0)
            wrap = 1;
        else if (c.len > 9 && memcmp(c.p, "{\"$json\":", 9) == 0) {
            /* the canonical form has its keys sorted and unique: a single key when the value
               of "$json" ends just before the closing brace */
            Src v = {(const unsigned char *)c.p, (size_t)c.len, 9};
            Buf skip = {0};
            int rv = canon_value(&v, &skip, 0);
            buf_free(&skip);
            if (rv < 0)
                r = rv;
            else if (v.i == v.n - 1)
                wrap = 1;
        }
        if (r == OK) {
            if (wrap && buf_put(out, "{\"$json\":", 9) < 0)
                r = NOMEM;
            else if (buf_put(out, c.p ? c.p : "", c.len) < 0)
                r = NOMEM;
            else if (wrap && buf_put(out, "}", 1) < 0)
                r = NOMEM;
        }
    }
    t_text = c;
    buf_give(&t_text);
    return r;
}

/* The order in which a line's members are written, kept per thread from the line before: the
   lines of a table have the same keys in the same order, so the sort and the keys' escapes are
   done once per block rather than once per line. Used only when a line's keys (decoded, in line
   order, with their lengths) are exactly the previous line's; otherwise rebuilt. */
typedef struct {
    Buf keys;       /* the decoded keys of the line it was built for, in line order */
    Buf ekeys;      /* the written keys in written order: ["," for all but the first] "key": */
    Member *sorted; /* scratch for the sort */
    Py_ssize_t *idx; /* lens[0..count): key lengths in line order; perm[0..nemit): the line index
                        of each written member; eoff[0..nemit]: offsets in ekeys */
    Py_ssize_t count, nemit, cap;
    int valid;
} LineOrder;

#define LINE_ORDER_MAX 4096 /* members; a line with more is written without keeping its order */
static _Thread_local LineOrder line_order;

static int line_order_same(const LineOrder *o, const Member *ms, Py_ssize_t count, const Buf *keys)
{
    if (!o->valid || o->count != count || o->keys.len != keys->len)
        return 0;
    if (keys->len && memcmp(o->keys.p, keys->p, (size_t)keys->len) != 0)
        return 0;
    for (Py_ssize_t k = 0; k < count; k++)
        if (o->idx[k] != ms[k].keylen)
            return 0;
    return 1;
}

/* Build o for members ms[0..count) (in line order: ms[k].order == k), as emit_members writes them. */
static int line_order_build(LineOrder *o, const Member *ms, Py_ssize_t count, const Buf *keys)
{
    o->valid = 0;
    if (count > o->cap) {
        Py_ssize_t nc = count < 16 ? 16 : count;
        Member *m = PyMem_RawRealloc(o->sorted, (size_t)nc * sizeof(Member));
        if (m == NULL)
            return NOMEM;
        o->sorted = m;
        Py_ssize_t *ix = PyMem_RawRealloc(o->idx, (size_t)(3 * nc + 1) * sizeof(Py_ssize_t));
        if (ix == NULL)
            return NOMEM;
        o->idx = ix;
        o->cap = nc;
    }
    o->keys.len = 0;
    if (buf_put(&o->keys, keys->p ? keys->p : "", keys->len) < 0)
        return NOMEM;
    Py_ssize_t *perm = o->idx + count, *eoff = perm + count;
    for (Py_ssize_t k = 0; k < count; k++) {
        o->idx[k] = ms[k].keylen;
        o->sorted[k] = ms[k];
    }
    sort_members(o->sorted, count, keys->p);
    o->ekeys.len = 0;
    Py_ssize_t nemit = 0;
    for (Py_ssize_t k = 0; k < count; k++) {
        const Member *a = &o->sorted[k];
        if (k + 1 < count && o->sorted[k + 1].keylen == a->keylen &&
            memcmp(keys->p + o->sorted[k + 1].key, keys->p + a->key, (size_t)a->keylen) == 0)
            continue; /* a later member has the same key */
        eoff[nemit] = o->ekeys.len;
        if (nemit > 0 && buf_put(&o->ekeys, ",", 1) < 0)
            return NOMEM;
        int r = emit_string(&o->ekeys, (const unsigned char *)keys->p + a->key, (size_t)a->keylen);
        if (r < 0)
            return r;
        if (buf_put(&o->ekeys, ":", 1) < 0)
            return NOMEM;
        perm[nemit++] = a->order;
    }
    eoff[nemit] = o->ekeys.len;
    o->count = count;
    o->nemit = nemit;
    o->valid = 1;
    return OK;
}

/* Members ms[0..count) (in their order in the text) written as emit_members writes them, in the
   order kept in o (rebuilt for these keys when it was built for others). */
static int emit_ordered(LineOrder *o, Buf *out, Member *ms, Py_ssize_t count, const Buf *keys, const Buf *vals)
{
    if (!line_order_same(o, ms, count, keys)) {
        int r = line_order_build(o, ms, count, keys);
        if (r < 0)
            return r;
    }
    if (buf_reserve(out, 2 + o->ekeys.len + vals->len) < 0)
        return NOMEM;
    const Py_ssize_t *perm = o->idx + count, *eoff = perm + count;
    buf_putc_unchecked(out, '{');
    for (Py_ssize_t j = 0; j < o->nemit; j++) {
        const Member *m = &ms[perm[j]];
        buf_put_unchecked(out, o->ekeys.p + eoff[j], eoff[j + 1] - eoff[j]);
        buf_put_unchecked(out, vals->p + m->val, m->vallen);
    }
    buf_putc_unchecked(out, '}');
    return OK;
}

/* A line's members (ms[0..count) in line order) written as emit_members writes them. */
static int emit_line_members(Buf *out, Member *ms, Py_ssize_t count, const Buf *keys, const Buf *vals)
{
    if (count > LINE_ORDER_MAX)
        return emit_members(out, ms, count, keys, vals);
    return emit_ordered(&line_order, out, ms, count, keys, vals);
}

/* The members of an object inside a JSON value, the same way: the objects of a table's documents
   have a few shapes (a document's sibling objects differ, so one kept order per depth would be
   rebuilt each time), so the orders are kept in OBJECT_ORDERS slots per thread chosen by a hash of
   the keys; a slot is used only for exactly the same keys, else rebuilt. Small objects only. */
#define OBJECT_ORDERS 32
#define OBJECT_ORDER_MAX 64        /* members */
#define OBJECT_ORDER_KEYS 2048     /* bytes of keys */
static _Thread_local LineOrder object_orders[OBJECT_ORDERS];

static int emit_object_members(Buf *out, Member *ms, Py_ssize_t count, const Buf *keys, const Buf *vals)
{
    if (count > OBJECT_ORDER_MAX || keys->len > OBJECT_ORDER_KEYS)
        return emit_members(out, ms, count, keys, vals);
    uint64_t h = XXH3_64bits_withSeed(keys->p ? keys->p : "", (size_t)keys->len, (uint64_t)count);
    return emit_ordered(&object_orders[h % OBJECT_ORDERS], out, ms, count, keys, vals);
}

static int semantic(Src *s, Buf *out, PyObject *jsons, PyObject *decimals, PyObject *texts)
{
    skip_ws(s);
    if (s->i >= s->n || s->p[s->i] != '{')
        return BAD;
    s->i++;
    Scratch *x = scratch_take(0); /* the line's members; its JSON values' objects use 1 and up */
    Buf keys = x->keys, vals = x->vals, tmp = *buf_take(&t_tmp); /* (nothing called uses t_tmp) */
    Member *ms = x->ms;
    Py_ssize_t count = 0, cap = x->cap;
    int rc = OK;
    skip_ws(s);
    int empty = s->i < s->n && s->p[s->i] == '}';
    if (empty)
        s->i++;
    while (!empty) {
        skip_ws(s);
        if ((rc = grow_members(&ms, &cap, count)) < 0)
            break;
        Member *m = &ms[count];
        m->order = count;
        m->key = keys.len;
        if ((rc = decode_string(s, &keys)) < 0)
            break;
        m->keylen = keys.len - m->key;
        skip_ws(s);
        if (s->i >= s->n || s->p[s->i] != ':') {
            rc = BAD;
            break;
        }
        s->i++;
        skip_ws(s);
        m->val = vals.len;
        const unsigned char *kp = (const unsigned char *)keys.p + m->key;
        size_t vstart = s->i;
        if (texts != NULL && in_names(kp, m->keylen, texts) && s->i < s->n && s->p[s->i] == '"') {
            tmp.len = 0;
            rc = decode_string(s, &tmp);
            if (rc == OK)
                rc = canon_json_text(&tmp, &vals);
        } else if (in_names(kp, m->keylen, jsons)) {
            rc = canon_value(s, &vals, 0);
        } else if (in_names(kp, m->keylen, decimals) && s->i < s->n && s->p[s->i] == '"') {
            tmp.len = 0;
            rc = decode_string(s, &tmp);
            if (rc == OK) {
                Py_ssize_t mark = vals.len;
                if (buf_put(&vals, "\"", 1) < 0)
                    rc = NOMEM;
                else {
                    rc = canonical_number((const unsigned char *)tmp.p, (size_t)tmp.len, &vals);
                    if (rc == BAD) { /* not a number (NaN, Infinity): as written */
                        vals.len = mark;
                        rc = buf_put(&vals, s->p + vstart, (Py_ssize_t)(s->i - vstart)) < 0 ? NOMEM : OK;
                    } else if (rc == OK && buf_put(&vals, "\"", 1) < 0)
                        rc = NOMEM;
                }
            }
        } else {
            rc = skip_value(s);
            if (rc == OK && buf_put(&vals, s->p + vstart, (Py_ssize_t)(s->i - vstart)) < 0)
                rc = NOMEM;
        }
        if (rc < 0)
            break;
        m->vallen = vals.len - m->val;
        count++;
        skip_ws(s);
        if (s->i < s->n && s->p[s->i] == ',') {
            s->i++;
            skip_ws(s);
            if (s->i < s->n && s->p[s->i] == '}') {
                rc = BAD;
                break;
            }
            continue;
        }
        if (s->i < s->n && s->p[s->i] == '}') {
            s->i++;
            break;
        }
        rc = BAD;
        break;
    }
    if (rc == OK) {
        skip_ws(s);
        if (s->i != s->n)
            rc = BAD;
        else
            rc = emit_line_members(out, ms, count, &keys, &vals);
    }
    x->keys = keys;
    x->vals = vals;
    x->ms = ms;
    x->cap = cap;
    scratch_give(x);
    t_tmp = tmp;
    buf_give(&t_tmp);
    return rc;
}

static int bytes_tuple(PyObject *t, const char *what)
{
    if (!PyTuple_Check(t)) {
        PyErr_Format(PyExc_TypeError, "semantic_line() %s must be a tuple of bytes", what);
        return -1;
    }
    for (Py_ssize_t j = 0; j < PyTuple_GET_SIZE(t); j++)
        if (!PyBytes_Check(PyTuple_GET_ITEM(t, j))) {
            PyErr_Format(PyExc_TypeError, "semantic_line() %s must be a tuple of bytes", what);
            return -1;
        }
    return 0;
}

/* The name tuples of a semantic call (json_texts optional: NULL or None for none). */
static int semantic_args(PyObject *jsons, PyObject *decimals, PyObject *texts)
{
    return bytes_tuple(jsons, "jsons") < 0 || bytes_tuple(decimals, "decimals") < 0 ||
                   (texts != NULL && texts != Py_None && bytes_tuple(texts, "json_texts") < 0)
               ? -1
               : 0;
}

static PyObject *py_semantic_line(PyObject *self, PyObject *args)
{
    Py_buffer view;
    PyObject *jsons, *decimals, *texts = NULL;
    if (!PyArg_ParseTuple(args, "y*OO|O:semantic_line", &view, &jsons, &decimals, &texts))
        return NULL;
    if (semantic_args(jsons, decimals, texts) < 0) {
        PyBuffer_Release(&view);
        return NULL;
    }
    if (texts == Py_None)
        texts = NULL;
    Src s = {view.buf, (size_t)view.len, 0};
    Buf out = {0};
    int rc = semantic(&s, &out, jsons, decimals, texts);
    PyBuffer_Release(&view);
    if (rc < 0) {
        buf_free(&out);
        if (rc == NOMEM)
            return PyErr_NoMemory();
        PyErr_SetString(PyExc_ValueError, "semantic_line(): malformed or unsupported line");
        return NULL;
    }
    PyObject *r = PyBytes_FromStringAndSize(out.p ? out.p : "", out.len);
    buf_free(&out);
    return r;
}

/* The by-meaning lines' checksum of a block (split as sum_block splits) or of a list of lines:
   semantic() on each line, then the line hash, summed. ValueError on a line semantic_line refuses
   (the caller then takes the twin's path, line by line). */

static int semantic_hash(const unsigned char *p, size_t n, Buf *out, PyObject *jsons, PyObject *decimals,
                         PyObject *texts, line_fn hash, uint64_t *total)
{
    Src s = {p, n, 0};
    out->len = 0;
    int rc = semantic(&s, out, jsons, decimals, texts);
    if (rc == OK)
        *total += hash((const unsigned char *)(out->p ? out->p : ""), (size_t)out->len);
    return rc;
}

static PyObject *semantic_failed(int rc)
{
    if (rc == NOMEM)
        return PyErr_NoMemory();
    PyErr_SetString(PyExc_ValueError, "semantic_line(): malformed or unsupported line");
    return NULL;
}

static PyObject *py_semantic_sum_block(PyObject *self, PyObject *args)
{
    Py_buffer view;
    PyObject *jsons, *decimals, *texts = NULL;
    int algorithm = BLAKE2B64;
    if (!PyArg_ParseTuple(args, "y*OO|iO:semantic_sum_block", &view, &jsons, &decimals, &algorithm, &texts))
        return NULL;
    line_fn hash = semantic_args(jsons, decimals, texts) < 0 ? NULL : hash_of(algorithm);
    if (texts == Py_None)
        texts = NULL;
    if (hash == NULL) {
        PyBuffer_Release(&view);
        return NULL;
    }
    const unsigned char *p = view.buf;
    size_t n = (size_t)view.len, start = 0;
    uint64_t total = 0;
    Py_ssize_t rows = 0;
    Buf out = {0};
    int rc = OK;
    /* the tuples and the buffer are held by the call's arguments and not changed: no lock needed */
    Py_BEGIN_ALLOW_THREADS
    while (start < n && rc == OK) {
        const unsigned char *nl = memchr(p + start, '\n', n - start);
        size_t end = nl ? (size_t)(nl - p) : n;
        rc = semantic_hash(p + start, end - start, &out, jsons, decimals, texts, hash, &total);
        rows++;
        start = end + 1;
    }
    Py_END_ALLOW_THREADS
    buf_free(&out);
    PyBuffer_Release(&view);
    if (rc < 0)
        return semantic_failed(rc);
    return Py_BuildValue("(Kn)", (unsigned long long)total, rows);
}

static PyObject *py_semantic_sum_lines(PyObject *self, PyObject *args)
{
    PyObject *arg, *jsons, *decimals, *texts = NULL;
    int algorithm = BLAKE2B64;
    if (!PyArg_ParseTuple(args, "OOO|iO:semantic_sum_lines", &arg, &jsons, &decimals, &algorithm, &texts))
        return NULL;
    line_fn hash = semantic_args(jsons, decimals, texts) < 0 ? NULL : hash_of(algorithm);
    if (texts == Py_None)
        texts = NULL;
    if (hash == NULL)
        return NULL;
    PyObject *seq = PySequence_Fast(arg, "semantic_sum_lines() takes a list of bytes");
    if (seq == NULL)
        return NULL;
    Py_ssize_t count = PySequence_Fast_GET_SIZE(seq);
    PyObject **items = PySequence_Fast_ITEMS(seq);
    for (Py_ssize_t i = 0; i < count; i++)
        if (!PyBytes_Check(items[i])) {
            Py_DECREF(seq);
            PyErr_SetString(PyExc_TypeError, "semantic_sum_lines() takes a list of bytes");
            return NULL;
        }
    uint64_t total = 0;
    Buf out = {0};
    int rc = OK;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < count && rc == OK; i++)
        rc = semantic_hash((const unsigned char *)PyBytes_AS_STRING(items[i]), (size_t)PyBytes_GET_SIZE(items[i]), &out,
                           jsons, decimals, texts, hash, &total);
    Py_END_ALLOW_THREADS
    buf_free(&out);
    Py_DECREF(seq);
    if (rc < 0)
        return semantic_failed(rc);
    return PyLong_FromUnsignedLongLong(total);
}

/* ------------------------------------------------------------------------------------------------
 * date_values(text: bytes, keys: tuple[bytes, ...]) -> bool
 *
 * Whether ``text`` (a line or a block of lines) has a member named by one of ``keys`` (each the
 * JSON string token of a name, quotes included, as orjson writes it) whose value is a JSON string
 * that starts as a zero date (year 0000, month or day 00) or is (-)infinity: verify's pre-test of
 * the zero-null and infinity-null value rules, without the interpreter lock. The twin is the
 * regular expression of dbjson.verify._zero_date_search (key, \s*:\s*", then 0000- | 4 bytes
 * that are not '"' or '\' and -00- | 7 such bytes and -00 | -?infinity"); tests/test_verify.py
 * compares the two.
 * ---------------------------------------------------------------------------------------------- */

static int re_space(unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

static int no_quote(const unsigned char *v, size_t k)
{
    for (size_t j = 0; j < k; j++)
        if (v[j] == '"' || v[j] == '\\')
            return 0;
    return 1;
}

/* i: just past a key token */
static int date_value_at(const unsigned char *p, size_t n, size_t i)
{
    while (i < n && re_space(p[i]))
        i++;
    if (i >= n || p[i] != ':')
        return 0;
    i++;
    while (i < n && re_space(p[i]))
        i++;
    if (i >= n || p[i] != '"')
        return 0;
    i++;
    const unsigned char *v = p + i;
    size_t r = n - i;
    return (r >= 5 && memcmp(v, "0000-", 5) == 0) || (r >= 8 && no_quote(v, 4) && memcmp(v + 4, "-00-", 4) == 0) ||
           (r >= 10 && no_quote(v, 7) && memcmp(v + 7, "-00", 3) == 0) || (r >= 9 && memcmp(v, "infinity\"", 9) == 0) ||
           (r >= 10 && memcmp(v, "-infinity\"", 10) == 0);
}

static int has_date_value(const unsigned char *p, size_t n, const unsigned char *key, size_t k)
{
    if (k < 2)
        return 0;
    size_t i = 0;
    while (i + k <= n) {
#if defined(__GLIBC__) /* memmem (a GNU extension, declared under pyconfig.h's _GNU_SOURCE) */
        const unsigned char *q = memmem(p + i, n - i, key, k);
        if (q == NULL)
            return 0;
        i = (size_t)(q - p);
        if (date_value_at(p, n, i + k))
            return 1;
#else
        const unsigned char *q = memchr(p + i, key[0], n - i - k + 1);
        if (q == NULL)
            return 0;
        i = (size_t)(q - p);
        if (p[i + 1] == key[1] && memcmp(p + i, key, k) == 0 && date_value_at(p, n, i + k))
            return 1;
#endif
        i++;
    }
    return 0;
}

static PyObject *py_date_values(PyObject *self, PyObject *args)
{
    Py_buffer view;
    PyObject *keys;
    if (!PyArg_ParseTuple(args, "y*O!:date_values", &view, &PyTuple_Type, &keys))
        return NULL;
    Py_ssize_t count = PyTuple_GET_SIZE(keys);
    for (Py_ssize_t j = 0; j < count; j++)
        if (!PyBytes_Check(PyTuple_GET_ITEM(keys, j))) {
            PyBuffer_Release(&view);
            PyErr_SetString(PyExc_TypeError, "date_values() keys must be a tuple of bytes");
            return NULL;
        }
    int found = 0;
    /* the tuple and the buffer are held by the call's arguments and not changed */
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t j = 0; j < count && !found; j++) {
        PyObject *o = PyTuple_GET_ITEM(keys, j);
        found = has_date_value(view.buf, (size_t)view.len, (const unsigned char *)PyBytes_AS_STRING(o),
                               (size_t)PyBytes_GET_SIZE(o));
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    return PyBool_FromLong(found);
}

static PyMethodDef methods[] = {
    {"sum_block", py_sum_block, METH_VARARGS, "sum_block(block, algorithm=0) -> (value, rows): checksum of the block's lines"},
    {"sum_lines", py_sum_lines, METH_VARARGS, "sum_lines(lines, algorithm=0) -> value: checksum of a list of lines"},
    {"line_value", py_line_value, METH_VARARGS, "line_value(line, algorithm=0) -> value: one line's checksum value"},
    {"semantic_line", py_semantic_line, METH_VARARGS,
     "semantic_line(line, jsons, decimals, json_texts=()) -> bytes: the line's by-meaning form (verify)"},
    {"semantic_sum_block", py_semantic_sum_block, METH_VARARGS,
     "semantic_sum_block(block, jsons, decimals, algorithm=0, json_texts=()) -> (value, rows): checksum of the by-meaning lines"},
    {"semantic_sum_lines", py_semantic_sum_lines, METH_VARARGS,
     "semantic_sum_lines(lines, jsons, decimals, algorithm=0, json_texts=()) -> value: checksum of the by-meaning lines"},
    {"date_values", py_date_values, METH_VARARGS,
     "date_values(text, keys) -> bool: a member named by keys holds a zero or infinite date (verify's value rules)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_cchecksum", "Line checksums: XXH3-64 and BLAKE2b (RFC 7693).", -1,
                                    methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__cchecksum(void)
{
    plain_init();
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
