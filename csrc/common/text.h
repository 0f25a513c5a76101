/*
 * dbjson C speedups, shared: character classes and the encodings several modules write.
 *
 *   is_digit(c)            ASCII 0-9 (c: a char or an unsigned char)
 *   hex_value(c)           0-15 for an ASCII hex digit (either case), else -1
 *   hex_lower(v), hex_upper(v)   the hex digit of v & 15
 *   b64_quad(d, v, take)   the 4 base64 characters (RFC 4648 alphabet, '=' padding) of the
 *                          24-bit group v holding `take` (1-3) bytes, most significant first;
 *                          returns d + 4
 *   json_quote(d, s, n)    s[0..n) as a JSON string, quotes included, escaped as both orjson and
 *                          PostgreSQL's escape_json() write it: " \ \b \f \n \r \t as two-byte
 *                          escapes, other bytes < 0x20 as \u00xx (lowercase hex), every other
 *                          byte (DEL, non-ASCII, /) unchanged; needs room for 6 * n + 2 bytes at d;
 *                          returns the end of what it wrote
 *   next_quote_or_backslash(s, j, n)   the index of the first '"' or '\\' of s[j..n), or n
 *   json_word_hits(w), json_word_plain(w)   the bytes of an 8-byte word that need a JSON escape
 *
 * No memory is allocated and no Python object touched: all of it is usable without the lock.
 */
#ifndef DBJSON_COMMON_TEXT_H
#define DBJSON_COMMON_TEXT_H

#include <Python.h>
#include <stdint.h>
#include <string.h>

static inline int is_digit(int c) { return c >= '0' && c <= '9'; }

static inline int hex_value(int c)
{
    /* value + 1 (0: not a hex digit) */
    static const unsigned char HEX1[256] = {
        ['0'] = 1,  ['1'] = 2,  ['2'] = 3,  ['3'] = 4,  ['4'] = 5,  ['5'] = 6,  ['6'] = 7,  ['7'] = 8,
        ['8'] = 9,  ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
        ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
    };
    return (int)HEX1[(unsigned char)c] - 1;
}

static inline char hex_lower(unsigned v) { return "0123456789abcdef"[v & 15]; }

static inline char hex_upper(unsigned v) { return "0123456789ABCDEF"[v & 15]; }

static inline char *b64_quad(char *d, uint32_t v, int take)
{
    static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    d[0] = B64[(v >> 18) & 63];
    d[1] = B64[(v >> 12) & 63];
    d[2] = take > 1 ? B64[(v >> 6) & 63] : '=';
    d[3] = take > 2 ? B64[v & 63] : '=';
    return d + 4;
}

/* The high bit of each byte of w that may need a JSON escape (< 0x20, '"', '\\'): word-at-a-time
 * tests, exact about whether such a byte is there, and about the lowest flagged byte (a borrow
 * makes false positives only above a true one; on a little-endian load, the first byte in memory). */
static inline uint64_t json_word_hits(uint64_t w)
{
    const uint64_t ones = UINT64_C(0x0101010101010101), highs = UINT64_C(0x8080808080808080);
    uint64_t q = w ^ (ones * '"'), b = w ^ (ones * '\\');
    return (((w - ones * 0x20) & ~w) | ((q - ones) & ~q) | ((b - ones) & ~b)) & highs;
}

/* Whether none of the 8 bytes of w needs a JSON escape. */
static inline int json_word_plain(uint64_t w) { return json_word_hits(w) == 0; }

/* The first '"' or '\\' of s[j:n] (n when there is none): 8 bytes at a time where the byte order
 * is known (the lowest flagged byte of the zero-byte test is exact: its false positives lie only
 * above a true hit), then byte by byte. */
static inline Py_ssize_t next_quote_or_backslash(const unsigned char *s, Py_ssize_t j, Py_ssize_t n)
{
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    const uint64_t ones = UINT64_C(0x0101010101010101), highs = UINT64_C(0x8080808080808080);
    while (j + 8 <= n) {
        uint64_t w;
        memcpy(&w, s + j, 8);
        uint64_t q = w ^ (ones * '"'), b = w ^ (ones * '\\');
        uint64_t hit = (((q - ones) & ~q) | ((b - ones) & ~b)) & highs;
        if (hit)
            return j + (Py_ssize_t)(__builtin_ctzll(hit) >> 3);
        j += 8;
    }
#endif
    while (j < n && s[j] != '"' && s[j] != '\\')
        j++;
    return j;
}

static inline char *json_quote(char *d, const unsigned char *s, Py_ssize_t n)
{
    *d++ = '"';
    Py_ssize_t run = 0; /* start of the bytes not written yet */
    for (Py_ssize_t i = 0; i < n; i++) {
        while (i + 8 <= n) { /* skip 8 plain bytes at a time */
            uint64_t w;
            memcpy(&w, s + i, 8);
            if (!json_word_plain(w)) {
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
                i += (Py_ssize_t)(__builtin_ctzll(json_word_hits(w)) >> 3); /* to the byte, not the next word */
#endif
                break;
            }
            i += 8;
        }
        if (i >= n)
            break;
        unsigned char c = s[i];
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        if (i > run)
            memcpy(d, s + run, (size_t)(i - run));
        d += i - run;
        run = i + 1;
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
            *d++ = hex_lower(c >> 4);
            *d++ = hex_lower(c);
        }
    }
    if (n > run)
        memcpy(d, s + run, (size_t)(n - run));
    d += n - run;
    *d++ = '"';
    return d;
}

#endif
