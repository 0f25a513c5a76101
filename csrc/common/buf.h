/*
 * dbjson C speedups, shared: the one growable output buffer.
 *
 * A Buf is a byte string being built: p[0..len) written, cap bytes allocated. Its memory comes
 * from PyMem_RawRealloc / PyMem_RawFree, which need no interpreter lock, so every function here
 * may run between Py_BEGIN_ALLOW_THREADS and Py_END_ALLOW_THREADS.
 *
 *   Buf b = {0};                    empty; buf_free(&b) when done (also when nothing was written)
 *   buf_reserve(&b, n)              room for n more bytes: 0, or -1 (size overflow, no memory)
 *   buf_put(&b, s, n)               append n bytes: 0, or -1 as above
 *   buf_put_unchecked(&b, s, n)     append into room reserved before (no check)
 *   buf_putc_unchecked(&b, c)       one byte into room reserved before (no check)
 *
 * A failure sets no Python exception (the lock may not be held): the caller raises MemoryError
 * once it holds the lock again. The usual pattern in a byte loop: reserve an upper bound for a
 * whole value or row, then write with the unchecked calls, or through a pointer
 * (char *d = b.p + b.len; ... b.len = d - b.p).
 */
#ifndef DBJSON_COMMON_BUF_H
#define DBJSON_COMMON_BUF_H

#include <Python.h>
#include <string.h>

#define BUF_MIN_CAP 4096

typedef struct {
    char *p;
    Py_ssize_t len, cap;
} Buf;

static inline int buf_reserve(Buf *b, Py_ssize_t extra)
{
    if (extra < 0 || b->len > PY_SSIZE_T_MAX - extra)
        return -1;
    Py_ssize_t need = b->len + extra;
    if (need <= b->cap)
        return 0;
    Py_ssize_t cap = b->cap ? b->cap : BUF_MIN_CAP;
    while (cap < need)
        cap = cap > PY_SSIZE_T_MAX / 2 ? need : cap * 2;
    char *p = PyMem_RawRealloc(b->p, (size_t)cap);
    if (p == NULL)
        return -1;
    b->p = p;
    b->cap = cap;
    return 0;
}

static inline void buf_put_unchecked(Buf *b, const void *s, Py_ssize_t n)
{
    if (n > 0)
        memcpy(b->p + b->len, s, (size_t)n);
    b->len += n;
}

static inline void buf_putc_unchecked(Buf *b, char c) { b->p[b->len++] = c; }

static inline int buf_put(Buf *b, const void *s, Py_ssize_t n)
{
    if (buf_reserve(b, n) < 0)
        return -1;
    buf_put_unchecked(b, s, n);
    return 0;
}

static inline void buf_free(Buf *b)
{
    PyMem_RawFree(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}

#endif
