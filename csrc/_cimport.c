/*
 * dbjson._cimport: a block of JSON lines -> PostgreSQL COPY text / MySQL LOAD DATA text.
 *
 * jsonl_to_bulk(block: bytes, keys: tuple[bytes, ...], ops: bytes, flavor: int) -> bytes | None
 * has_escape(data: bytes) -> bool
 * has_nul_escape(data: bytes) -> bool
 * count_lines(data: bytes) -> int
 *
 * count_lines is `data.count(b"\n")` by memchr, without the interpreter lock (the importer counts
 * the lines of every block it loads; bytes.count holds the lock and reads about 1 GB/s).
 * has_escape is `b"\\u" in data` and has_nul_escape `b"\\u0000" in data` (the pre-flight's byte
 * tests, dbjson.format.linefilter: JSON can spell any character as \uXXXX, and U+0000 only so),
 * 8 bytes at a time (find_backslash_u), without the interpreter lock.
 *
 * `block` is whole lines, each ending in "\n". A blank line or a CR refuses the block (None), so a
 * block it converts is exactly its rows (the importer sums their lines over the block in one call).
 * Each line must be one JSON object whose keys are exactly `keys` (each given as its JSON text,
 * quotes included, as orjson.dumps writes it), in that order, with no whitespace outside
 * strings. Each value is converted by its column's op (OP_* below) and written as bulk text:
 * values joined by TAB, lines ended by LF, NULL as \N, strings escaped as
 * dbjson/engines/bulktext.py escapes them (flavor FLAVOR_PG = PostgreSQL COPY: backslash, TAB, LF,
 * CR; FLAVOR_MY = MySQL/MariaDB LOAD DATA: the same plus NUL as \0). The OP_* and FLAVOR_*
 * numbers are the module's constants.
 *
 * It must give, byte for byte, what the pure-Python path gives:
 *   dbjson/importer.py build_block_encoder (orjson.loads, load_converters, raw_json_columns,
 *   _put_raw_json / unwrap_json_text) and the engine's load_encode_columns /
 *   load_encode_rows (dbjson/engines/postgresql/load.py, dbjson/engines/mysql/load.py,
 *   dbjson/engines/bulktext.py). The op of each column is chosen in Python by the engine's
 *   load_bulk_op (next to load_converter, which it mirrors branch by branch).
 *
 * Whenever a line or a value is anything this file does not convert exactly as Python would
 * (malformed JSON, other key order, whitespace, a float whose Python repr might differ, NaN for
 * MySQL numbers, zero dates, integers beyond 64 bits, non-canonical JSON for re-serialised json
 * columns, ...), the whole block is refused: the function returns None and the caller uses the
 * Python path, which also names the bad line and column. Refusing is always safe.
 *
 * The byte loop runs without the GIL (dbjson loads with worker threads).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/constants.h"
#include "common/text.h"

/* The op of a column (the engines' load_bulk_op names them in lower case: "pass", "pgbool", ...) */
#define OPS(X)                                                                                             \
    X(OP_PASS)            /* no converter: string as is, number as str(), bool 1/0, null \N */           \
    X(OP_PGBOOL)          /* PostgreSQL boolean target: true -> t, false -> f */                          \
    X(OP_BOOL10)          /* boolean -> 1 / 0 */                                                          \
    X(OP_B64HEX)          /* base64 -> hex (PostgreSQL: \x prefix) */                                     \
    X(OP_MYNUM)           /* MySQL number: as PASS, but "NaN"/"Infinity"/"-Infinity" refused, no bool */ \
    X(OP_FLOATPASS)       /* PostgreSQL float: as PASS, no bool */                                        \
    X(OP_PGDATE)          /* string matching codec._VERBATIM_DATE, as is */                               \
    X(OP_PGDATEZ)         /* as OP_PGDATE, zero dates refused (policy) */                                 \
    X(OP_MYTEMP_SAME)     /* MySQL temporal converter (same kind) */                                      \
    X(OP_MYTEMP_OTHER)    /* MySQL temporal converter (other kind: zero dates refused) */                 \
    X(OP_JSONRAW)         /* json column loading the line's text (unwrapped) */                           \
    X(OP_JSONDUMP)        /* orjson.dumps(unwrap_json(v)): the text when canonical */                     \
    X(OP_JSONDUMP_NOWRAP) /* orjson.dumps(v): the text when canonical */                                  \
    X(OP_MYTIME)          /* MySQL time: a "+HH:MM" / "-HH:MM" offset removed */
enum { OPS(CONST_ENUM) OP_COUNT };

/* The bulk-text flavor (the engines' load_bulk_flavor) */
#define FLAVORS(X) X(FLAVOR_PG) X(FLAVOR_MY)
enum { FLAVORS(CONST_ENUM) };

#define MAX_DEPTH 100
#define MAX_KEYS 64
#define FLOAT_TEXT_MAX 64

/* ---- bulk text ----------------------------------------------------------------------- */

/* `n` bytes with the flavor's bulk-text escapes (bulktext._COPY_ESCAPE / _TSV_ESCAPE). */
static int put_bulk_escaped(Buf *b, const unsigned char *s, Py_ssize_t n, int flavor)
{
    if (n > (PY_SSIZE_T_MAX - 16) / 2 || buf_reserve(b, 2 * n) < 0)
        return -1;
    char *o = b->p + b->len;
    const uint64_t ones = UINT64_C(0x0101010101010101), highs = UINT64_C(0x8080808080808080);
    for (Py_ssize_t i = 0; i < n; i++) {
        while (i + 8 <= n) { /* copy 8 bytes at a time while none is < 0x0E or a backslash */
            uint64_t w, k;
            memcpy(&w, s + i, 8);
            k = w ^ (ones * '\\');
            if ((((w - ones * 0x0E) & ~w) | ((k - ones) & ~k)) & highs)
                break;
            memcpy(o, s + i, 8);
            o += 8;
            i += 8;
        }
        if (i >= n)
            break;
        unsigned char c = s[i];
        switch (c) {
        case '\\': *o++ = '\\'; *o++ = '\\'; break;
        case '\t': *o++ = '\\'; *o++ = 't'; break;
        case '\n': *o++ = '\\'; *o++ = 'n'; break;
        case '\r': *o++ = '\\'; *o++ = 'r'; break;
        case 0:
            if (flavor == FLAVOR_MY) { *o++ = '\\'; *o++ = '0'; }
            else *o++ = 0;
            break;
        default: *o++ = (char)c;
        }
    }
    b->len = o - b->p;
    return 0;
}

/* ---- JSON strings --------------------------------------------------------------------- */

#define STR_ESCAPED 1   /* the string held a backslash escape */
#define STR_NONASCII 2  /* the decoded string holds a byte >= 0x80 */
#define STR_NONCANON 4  /* an escape orjson.dumps would not write */

static int hex4(const unsigned char *p, const unsigned char *end, unsigned *out)
{
    if (end - p < 4)
        return -1;
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        int h = hex_value(p[i]);
        if (h < 0)
            return -1;
        v = v * 16 + (unsigned)h;
    }
    *out = v;
    return 0;
}

/* Length of the strict UTF-8 sequence at p (no overlongs, no surrogates, <= U+10FFFF), or 0. */
static Py_ssize_t utf8_len(const unsigned char *p, const unsigned char *end)
{
    unsigned char c = p[0];
    Py_ssize_t avail = end - p;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        return (avail >= 2 && (p[1] & 0xC0) == 0x80) ? 2 : 0;
    if (c >= 0xE0 && c <= 0xEF) {
        if (avail < 3 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80)
            return 0;
        if (c == 0xE0 && p[1] < 0xA0) return 0;  /* overlong */
        if (c == 0xED && p[1] >= 0xA0) return 0; /* surrogate */
        return 3;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        if (avail < 4 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80 || (p[3] & 0xC0) != 0x80)
            return 0;
        if (c == 0xF0 && p[1] < 0x90) return 0;  /* overlong */
        if (c == 0xF4 && p[1] >= 0x90) return 0; /* > U+10FFFF */
        return 4;
    }
    return 0;
}

static Py_ssize_t put_utf8(unsigned char *o, unsigned cp)
{
    if (cp < 0x80) { o[0] = (unsigned char)cp; return 1; }
    if (cp < 0x800) { o[0] = (unsigned char)(0xC0 | (cp >> 6)); o[1] = (unsigned char)(0x80 | (cp & 0x3F)); return 2; }
    if (cp < 0x10000) {
        o[0] = (unsigned char)(0xE0 | (cp >> 12)); o[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (unsigned char)(0x80 | (cp & 0x3F)); return 3;
    }
    o[0] = (unsigned char)(0xF0 | (cp >> 18)); o[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F)); o[3] = (unsigned char)(0x80 | (cp & 0x3F));
    return 4;
}

/* `cp` (from a \u escape) written at o as UTF-8; with `bulk`, a code point that the bulk text
 * escapes (backslash, TAB, LF, CR; NUL for MySQL) as put_bulk_escaped escapes its byte. */
static inline unsigned char *put_cp(unsigned char *o, unsigned cp, int bulk, int flavor)
{
    if (bulk && cp < 0x80) {
        switch (cp) {
        case '\\': *o++ = '\\'; *o++ = '\\'; return o;
        case '\t': *o++ = '\\'; *o++ = 't'; return o;
        case '\n': *o++ = '\\'; *o++ = 'n'; return o;
        case '\r': *o++ = '\\'; *o++ = 'r'; return o;
        case 0:
            if (flavor == FLAVOR_MY) { *o++ = '\\'; *o++ = '0'; return o; }
            break;
        default:
            break;
        }
    }
    return o + put_utf8(o, cp);
}

/*
 * The JSON string at *pp (which points at its opening quote): with `write`, its value written at
 * `o` -- decoded, and with `bulk` also escaped as bulk text of `flavor` (as put_bulk_escaped would
 * escape the decoded bytes) -- else only validated. Neither form is ever longer than the string's
 * source text (an escape is at least as long as what it stands for, even bulk-escaped), so room
 * for `end - *pp` bytes at o is enough. *pp is moved past the closing quote and *flags set.
 * Returns the end of what was written (o itself without `write`), or NULL: refuse.
 *
 * One pass, no per-piece bounds checks: a run of plain ASCII is copied 8 bytes at a time, the
 * JSON payloads of text columns (a backslash every few bytes) take the escape switch inline.
 * Called with constant write/bulk, so each caller gets its own specialised loop.
 */
static inline unsigned char *json_string_to(const unsigned char **pp, const unsigned char *end, unsigned char *o,
                                            int write, int bulk, int flavor, int *flags)
{
    const unsigned char *p = *pp + 1;
    int fl = 0;
    for (;;) {
        /* 8 bytes at a time while none needs a look (json_word_hits, or >= 0x80); a word that holds
         * one is copied too, and the bytes before the first such byte are kept (no byte loop) */
        while (end - p >= 8) {
            uint64_t w;
            memcpy(&w, p, 8);
            uint64_t hits = (w & UINT64_C(0x8080808080808080)) | json_word_hits(w);
            if (write)
                memcpy(o, &w, 8); /* (room: what is written never outruns what is read) */
            if (hits == 0) {
                o += write ? 8 : 0;
                p += 8;
                continue;
            }
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
            /* the lowest flagged byte is exact (json_word_hits), the first in memory */
            Py_ssize_t k = (Py_ssize_t)(__builtin_ctzll(hits) >> 3);
            o += write ? k : 0;
            p += k;
#endif
            break;
        }
        if (p >= end)
            return NULL;
        unsigned char c = *p;
        if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
            if (write)
                *o++ = c;
            p++;
            continue;
        }
        if (c == '"') {
            *pp = p + 1;
            *flags = fl;
            return o;
        }
        if (c < 0x20)
            return NULL; /* orjson: unexpected control character */
        if (c >= 0x80) {
            Py_ssize_t n = utf8_len(p, end);
            if (n == 0)
                return NULL;
            fl |= STR_NONASCII;
            if (write) {
                o[0] = p[0];
                o[1] = p[1];
                if (n > 2) {
                    o[2] = p[2];
                    if (n > 3)
                        o[3] = p[3];
                }
                o += n;
            }
            p += n;
            continue;
        }
        /* backslash: orjson.dumps writes \" \\ \b \f \n \r \t and \u00XX (lower-case hex) for the
         * other control characters; any other escape is STR_NONCANON */
        fl |= STR_ESCAPED;
        if (end - p < 2)
            return NULL;
        unsigned char e = p[1];
        p += 2;
        switch (e) {
        case '"':
            if (write) *o++ = '"';
            continue;
        case '\\':
            if (write) {
                *o++ = '\\';
                if (bulk) *o++ = '\\';
            }
            continue;
        case '/':
            fl |= STR_NONCANON;
            if (write) *o++ = '/';
            continue;
        case 'b':
            if (write) *o++ = 8;
            continue;
        case 'f':
            if (write) *o++ = 12;
            continue;
        case 'n':
        case 'r':
        case 't':
            if (write) {
                if (bulk) {
                    *o++ = '\\';
                    *o++ = e;
                } else {
                    *o++ = e == 'n' ? 10 : e == 'r' ? 13 : 9;
                }
            }
            continue;
        case 'u': {
            unsigned cp;
            if (hex4(p, end, &cp) < 0)
                return NULL;
            if (cp >= 0x20 || cp == 8 || cp == 9 || cp == 10 || cp == 12 || cp == 13)
                fl |= STR_NONCANON;
            else
                for (int i = 0; i < 4; i++)
                    if (p[i] >= 'A' && p[i] <= 'F')
                        fl |= STR_NONCANON;
            p += 4;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                unsigned lo;
                if (end - p < 6 || p[0] != '\\' || p[1] != 'u' || hex4(p + 2, end, &lo) < 0
                        || lo < 0xDC00 || lo > 0xDFFF)
                    return NULL; /* orjson: no low surrogate */
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                p += 6;
            } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                return NULL; /* a lone low surrogate */
            }
            if (cp >= 0x80)
                fl |= STR_NONASCII;
            if (write)
                o = put_cp(o, cp, bulk, flavor);
            continue;
        }
        default:
            return NULL;
        }
    }
}

/* The JSON string at *pp decoded (with `bulk`, also bulk-escaped) and appended to `out`. -1: refuse. */
static inline int json_string_buf(const unsigned char **pp, const unsigned char *end, Buf *out, int bulk, int flavor,
                                  int *flags)
{
    if (buf_reserve(out, end - *pp) < 0)
        return -1;
    unsigned char *o = json_string_to(pp, end, (unsigned char *)out->p + out->len, 1, bulk, flavor, flags);
    if (o == NULL)
        return -1;
    out->len = (char *)o - out->p;
    return 0;
}

/*
 * The JSON string at *pp (which points at its opening quote), decoded into `out` when out is
 * not NULL (validated only otherwise); *pp is moved past the closing quote. -1: refuse.
 */
static int json_string(const unsigned char **pp, const unsigned char *end, Buf *out, int *flags)
{
    if (out != NULL)
        return json_string_buf(pp, end, out, 0, 0, flags);
    unsigned char none;
    return json_string_to(pp, end, &none, 0, 0, 0, flags) == NULL ? -1 : 0;
}

/* ---- JSON numbers --------------------------------------------------------------------- */

typedef struct {
    const unsigned char *start, *end;
    const unsigned char *int_start, *int_end;   /* the integer digits */
    const unsigned char *frac_start, *frac_end; /* the fraction digits (empty: none) */
    int negative, has_frac, has_exp;
    long exp;                                   /* the exponent (clamped) */
} Number;

static int json_number(const unsigned char **pp, const unsigned char *end, Number *n)
{
    const unsigned char *p = *pp;
    memset(n, 0, sizeof *n);
    n->start = p;
    if (p < end && *p == '-') { n->negative = 1; p++; }
    n->int_start = p;
    if (p >= end) return -1;
    if (*p == '0') p++;
    else if (*p >= '1' && *p <= '9') { while (p < end && *p >= '0' && *p <= '9') p++; }
    else return -1;
    n->int_end = p;
    if (p < end && *p == '.') {
        p++;
        n->has_frac = 1;
        n->frac_start = p;
        while (p < end && *p >= '0' && *p <= '9') p++;
        if (p == n->frac_start) return -1;
        n->frac_end = p;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        n->has_exp = 1;
        int eneg = 0;
        if (p < end && (*p == '+' || *p == '-')) { eneg = *p == '-'; p++; }
        const unsigned char *d = p;
        long e = 0;
        while (p < end && *p >= '0' && *p <= '9') {
            if (e < 100000) e = e * 10 + (*p - '0');
            p++;
        }
        if (p == d) return -1;
        n->exp = eneg ? -e : e;
    }
    n->end = p;
    *pp = p;
    return 0;
}

/* Whether orjson.loads takes it without "number is infinity" (refuses doubtful ones). */
static int number_finite(const Number *n)
{
    Py_ssize_t idig = n->int_end - n->int_start;
    if (!n->has_frac && !n->has_exp)
        return idig <= 300;
    return idig + (n->exp > 0 ? n->exp : -n->exp) <= 300;
}

/* An integer token that orjson reads as an int (64-bit) and str() writes the same: not -0. */
static int int_verbatim(const Number *n)
{
    if (n->has_frac || n->has_exp)
        return 0;
    Py_ssize_t len = n->int_end - n->int_start;
    const char *lim = n->negative ? "9223372036854775808" : "18446744073709551615";
    Py_ssize_t limlen = (Py_ssize_t)strlen(lim);
    if (n->negative && len == 1 && n->int_start[0] == '0')
        return 0;
    if (len < limlen)
        return 1;
    if (len > limlen)
        return 0;
    return memcmp(n->int_start, lim, (size_t)len) <= 0;
}

/*
 * str(float(token)) of a float token (one with a fraction or an exponent), written to `out`.
 * Python's repr is the shortest decimal string that reads back as the same double (the nearest
 * one among the shortest): with the token's n significant digits D and decimal exponent E, the
 * repr's digits are D when D is the double correctly rounded to n digits (snprintf %.*e) and
 * the double rounded to n-1 digits does not read back as the same double. It is then spelled as
 * float_repr_style 'short' does: fixed notation for -4 <= E < 16 (".0" when integral), else
 * d[.ddd]e±XX. More than 17 digits, powers of two with n > 1 (where the rounding interval is
 * lopsided), infinity (orjson refuses it), underflow and anything odd are refused (-1).
 * strtod/snprintf are the C library's (correctly rounded in glibc); a locale with another
 * decimal point only refuses.
 */
static int float_repr(const Number *n, char *o, int *width, long *exponent)
{
    char dig[24];
    int nd = 0, lead = 1;
    long exp10 = 0, pos = 0; /* pos: the decimal exponent of the next digit */
    Py_ssize_t ilen = n->int_end - n->int_start;
    pos = (long)ilen - 1;
    const unsigned char *parts[2][2] = {{n->int_start, n->int_end}, {n->frac_start, n->frac_end}};
    for (int part = 0; part < 2; part++) {
        for (const unsigned char *q = parts[part][0]; q && q < parts[part][1]; q++, pos--) {
            if (lead && *q == '0')
                continue;
            if (lead) { lead = 0; exp10 = pos; }
            if (nd >= 20)
                return -1;
            dig[nd++] = (char)*q;
        }
    }
    if (nd == 0) { /* zero: 0.0 or -0.0 */
        *width = n->negative ? 4 : 3;
        memcpy(o, n->negative ? "-0.0" : "0.0", (size_t)*width);
        *exponent = 0;
        return 0;
    }
    while (nd > 1 && dig[nd - 1] == '0') nd--;
    if (nd > 17 || n->exp > 400 || n->exp < -400)
        return -1;
    exp10 += n->exp;
    char tok[64];
    Py_ssize_t tlen = n->end - n->start;
    if (tlen >= (Py_ssize_t)sizeof tok)
        return -1;
    memcpy(tok, n->start, (size_t)tlen);
    tok[tlen] = 0;
    char *endp;
    double d = strtod(tok, &endp);
    if (endp != tok + tlen || !isfinite(d) || d == 0.0)
        return -1;
    int e2;
    if (nd > 1 && frexp(fabs(d), &e2) == 0.5)
        return -1; /* a power of two: the rounding interval is lopsided */
    char buf[64];
    int len = snprintf(buf, sizeof buf, "%.*e", nd - 1, fabs(d));
    if (len <= 0 || len >= (int)sizeof buf)
        return -1;
    int k = 0, at = 0;
    for (; at < len && buf[at] != 'e'; at++) {
        if (buf[at] == '.')
            continue;
        if (k >= nd || buf[at] != dig[k])
            return -1;
        k++;
    }
    if (k != nd || at >= len || atol(buf + at + 1) != exp10)
        return -1;
    if (nd > 1) {
        len = snprintf(buf, sizeof buf, "%.*e", nd - 2, d);
        if (len <= 0 || len >= (int)sizeof buf || strtod(buf, NULL) == d)
            return -1; /* a shorter text reads back as the same double */
    }
    /* spell it as Python does */
    int w = 0;
    if (n->negative) o[w++] = '-';
    if (exp10 >= -4 && exp10 < 16) {
        if (exp10 < 0) {
            o[w++] = '0'; o[w++] = '.';
            for (long z = -1; z > exp10; z--) o[w++] = '0';
            for (int q = 0; q < nd; q++) o[w++] = dig[q];
        } else {
            for (int q = 0; q <= exp10; q++) o[w++] = q < nd ? dig[q] : '0';
            o[w++] = '.';
            if (nd > exp10 + 1)
                for (int q = (int)exp10 + 1; q < nd; q++) o[w++] = dig[q];
            else
                o[w++] = '0';
        }
    } else {
        o[w++] = dig[0];
        if (nd > 1) {
            o[w++] = '.';
            for (int q = 1; q < nd; q++) o[w++] = dig[q];
        }
        w += snprintf(o + w, (size_t)(FLOAT_TEXT_MAX - w), "e%c%02ld", exp10 < 0 ? '-' : '+', exp10 < 0 ? -exp10 : exp10);
    }
    *width = w;
    *exponent = exp10;
    return 0;
}

static int put_float_repr(Buf *out, const Number *n)
{
    char o[FLOAT_TEXT_MAX];
    int w;
    long e;
    if (float_repr(n, o, &w, &e) < 0)
        return -1;
    return buf_put(out, o, w);
}

/* A float token that orjson.dumps writes again as it is: Python's repr in fixed notation (the
 * same text as orjson's there: checked over a million random doubles in the tests). */
static int float_canonical(const Number *n)
{
    char o[FLOAT_TEXT_MAX];
    int w;
    long e;
    if (!n->has_frac || n->has_exp || float_repr(n, o, &w, &e) < 0)
        return 0;
    return w == n->end - n->start && memcmp(o, n->start, (size_t)w) == 0;
}

/* ---- nested JSON values (json columns) ------------------------------------------------ */

static int json_value(const unsigned char **pp, const unsigned char *end, int depth, int canon);

static int json_literal(const unsigned char **pp, const unsigned char *end)
{
    const unsigned char *p = *pp;
    Py_ssize_t avail = end - p;
    if (avail >= 4 && memcmp(p, "true", 4) == 0) { *pp = p + 4; return 0; }
    if (avail >= 5 && memcmp(p, "false", 5) == 0) { *pp = p + 5; return 0; }
    if (avail >= 4 && memcmp(p, "null", 4) == 0) { *pp = p + 4; return 0; }
    return -1;
}

/* An object at *pp; with `canon`, also what orjson.dumps would write again (no duplicate key). */
static int json_object(const unsigned char **pp, const unsigned char *end, int depth, int canon)
{
    const unsigned char *p = *pp + 1;
    const unsigned char *kstart[MAX_KEYS];
    Py_ssize_t klen[MAX_KEYS];
    int nkeys = 0;
    if (p < end && *p == '}') { *pp = p + 1; return 0; }
    for (;;) {
        if (p >= end || *p != '"')
            return -1;
        const unsigned char *k = p;
        int fl;
        if (json_string(&p, end, NULL, &fl) < 0)
            return -1;
        if (canon) {
            if (fl & STR_NONCANON || nkeys >= MAX_KEYS)
                return -1;
            for (int i = 0; i < nkeys; i++)
                if (klen[i] == p - k && memcmp(kstart[i], k, (size_t)(p - k)) == 0)
                    return -1; /* a duplicate key: orjson keeps the last one */
            kstart[nkeys] = k;
            klen[nkeys] = p - k;
            nkeys++;
        }
        if (p >= end || *p != ':')
            return -1;
        p++;
        if (json_value(&p, end, depth + 1, canon) < 0)
            return -1;
        if (p < end && *p == ',') { p++; continue; }
        if (p < end && *p == '}') { *pp = p + 1; return 0; }
        return -1;
    }
}

static int json_array(const unsigned char **pp, const unsigned char *end, int depth, int canon)
{
    const unsigned char *p = *pp + 1;
    if (p < end && *p == ']') { *pp = p + 1; return 0; }
    for (;;) {
        if (json_value(&p, end, depth + 1, canon) < 0)
            return -1;
        if (p < end && *p == ',') { p++; continue; }
        if (p < end && *p == ']') { *pp = p + 1; return 0; }
        return -1;
    }
}

/* Any JSON value (no whitespace); `canon`: refuse what orjson.dumps would spell otherwise. */
static int json_value(const unsigned char **pp, const unsigned char *end, int depth, int canon)
{
    if (depth > MAX_DEPTH || *pp >= end)
        return -1;
    unsigned char c = **pp;
    if (c == '{')
        return json_object(pp, end, depth, canon);
    if (c == '[')
        return json_array(pp, end, depth, canon);
    if (c == '"') {
        int fl;
        if (json_string(pp, end, NULL, &fl) < 0)
            return -1;
        return (canon && (fl & STR_NONCANON)) ? -1 : 0;
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
        Number n;
        if (json_number(pp, end, &n) < 0 || !number_finite(&n))
            return -1;
        if (!canon)
            return 0;
        return (n.has_frac || n.has_exp) ? (float_canonical(&n) ? 0 : -1) : (int_verbatim(&n) ? 0 : -1);
    }
    return json_literal(pp, end);
}

/* ---- per-column conversions ----------------------------------------------------------- */

static int digits(const unsigned char *s, Py_ssize_t n, Py_ssize_t i, Py_ssize_t count)
{
    if (n - i < count)
        return 0;
    for (Py_ssize_t k = 0; k < count; k++)
        if (!is_digit(s[i + k]))
            return 0;
    return 1;
}

/* codec._VERBATIM_DATE on an ASCII string (full match, no trailing newline). */
static int is_date_text(const unsigned char *s, Py_ssize_t n)
{
    Py_ssize_t i = 0;
    if (i < n && s[i] == '-') i++;
    if (n - i == 8 && memcmp(s + i, "infinity", 8) == 0)
        return 1;
    Py_ssize_t d = i;
    while (i < n && is_digit(s[i])) i++;
    if (i - d < 4 || i >= n || s[i] != '-') return 0;
    i++;
    if (!digits(s, n, i, 2) || !(s[i] == '0' || (s[i] == '1' && s[i + 1] <= '2'))) return 0;
    i += 2;
    if (i >= n || s[i] != '-') return 0;
    i++;
    if (!digits(s, n, i, 2) || !(s[i] <= '2' || (s[i] == '3' && s[i + 1] <= '1'))) return 0;
    i += 2;
    /* (?:[ T]\d{2}:\d{2}(?::\d{2})?(?:\.\d*)?)? */
    if (i < n && (s[i] == ' ' || s[i] == 'T') && digits(s, n, i + 1, 2) && n - i > 3 && s[i + 3] == ':'
            && digits(s, n, i + 4, 2)) {
        i += 6;
        if (i < n && s[i] == ':' && digits(s, n, i + 1, 2)) i += 3;
        if (i < n && s[i] == '.') { i++; while (i < n && is_digit(s[i])) i++; }
    }
    /* (?:Z|[+-]\d{2}(?::?\d{2}){0,2})? */
    if (i < n && s[i] == 'Z') {
        i++;
    } else if (i < n && (s[i] == '+' || s[i] == '-')) {
        if (!digits(s, n, i + 1, 2)) return 0;
        i += 3;
        for (int g = 0; g < 2; g++) {
            Py_ssize_t j = i;
            if (j < n && s[j] == ':') j++;
            if (!digits(s, n, j, 2)) break;
            i = j + 2;
        }
    }
    if (n - i == 3 && memcmp(s + i, " BC", 3) == 0)
        i += 3;
    return i == n;
}

/* A superset of dbjson.format.decoders.is_zero_date_text (which also wants digits before the
 * zero part): a value this accepts is refused here and decided by the Python converter. */
static int is_zero_date(const unsigned char *s, Py_ssize_t n)
{
    if (n >= 5 && memcmp(s, "0000-", 5) == 0) return 1;
    if (n >= 8 && memcmp(s + 4, "-00-", 4) == 0) return 1;
    if (n >= 10 && memcmp(s + 7, "-00", 3) == 0) return 1;
    return 0;
}

static int b64val(unsigned char c)
{
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

/* base64.b64decode(s, validate=True).hex() (refuses non-zero leftover bits too). */
static int put_b64hex(Buf *out, const unsigned char *s, Py_ssize_t n)
{
    if (n % 4 != 0)
        return -1;
    Py_ssize_t pad = 0;
    if (n >= 1 && s[n - 1] == '=') {
        pad++;
        if (n >= 2 && s[n - 2] == '=')
            pad++;
    }
    if (buf_reserve(out, n / 4 * 6) < 0)
        return -1;
    char *o = out->p + out->len;
    for (Py_ssize_t i = 0; i < n; i += 4) {
        int last = i + 4 == n;
        int v[4];
        int nd = last ? 4 - (int)pad : 4;
        for (int k = 0; k < nd; k++)
            if ((v[k] = b64val(s[i + k])) < 0)
                return -1;
        for (int k = nd; k < 4; k++)
            v[k] = 0;
        unsigned bits = ((unsigned)v[0] << 18) | ((unsigned)v[1] << 12) | ((unsigned)v[2] << 6) | (unsigned)v[3];
        unsigned char b[3] = {(unsigned char)(bits >> 16), (unsigned char)(bits >> 8), (unsigned char)bits};
        int nb = nd == 4 ? 3 : nd == 3 ? 2 : 1;
        if (nd == 3 && (v[2] & 3)) return -1;
        if (nd == 2 && (v[1] & 15)) return -1;
        for (int k = 0; k < nb; k++) {
            *o++ = hex_lower(b[k] >> 4);
            *o++ = hex_lower(b[k]);
        }
    }
    out->len = o - out->p;
    return 0;
}

typedef struct {
    const unsigned char *const *keys;
    const Py_ssize_t *keylens;
    const unsigned char *ops;
    Py_ssize_t ncols;
    int flavor;
    Buf out, tmp;
} Job;

static int put_null(Buf *out) { return buf_put(out, "\\N", 2); }

/* A string value (decoded in job->tmp) by op. */
static int convert_string(Job *job, int op, int flags)
{
    Buf *out = &job->out;
    const unsigned char *s = (const unsigned char *)job->tmp.p;
    Py_ssize_t n = job->tmp.len;
    switch (op) {
    case OP_PASS:
    case OP_FLOATPASS:
        return put_bulk_escaped(out, s, n, job->flavor);
    case OP_MYNUM:
        if ((n == 3 && memcmp(s, "NaN", 3) == 0) || (n == 8 && memcmp(s, "Infinity", 8) == 0)
                || (n == 9 && memcmp(s, "-Infinity", 9) == 0))
            return -1;
        return put_bulk_escaped(out, s, n, job->flavor);
    case OP_B64HEX:
        if (flags & STR_ESCAPED)
            return -1;
        if (job->flavor == FLAVOR_PG && buf_put(out, "\\\\x", 3) < 0)
            return -1;
        return put_b64hex(out, s, n);
    case OP_PGDATE:
    case OP_PGDATEZ:
        if ((flags & STR_NONASCII) || !is_date_text(s, n) || (op == OP_PGDATEZ && is_zero_date(s, n)))
            return -1;
        return put_bulk_escaped(out, s, n, job->flavor);
    case OP_MYTEMP_SAME:
    case OP_MYTEMP_OTHER: {
        if (flags & STR_NONASCII)
            return -1;
        if ((n == 8 && memcmp(s, "infinity", 8) == 0) || (n >= 1 && s[0] == '-')
                || (op == OP_MYTEMP_OTHER && is_zero_date(s, n)))
            return -1;
        Py_ssize_t start = out->len;
        if (put_bulk_escaped(out, s, n, job->flavor) < 0)
            return -1;
        if (n > 10) {
            /* v.replace("T", " ", 1), then a trailing "Z" removed (T and Z are not escaped) */
            char *t = memchr(out->p + start, 'T', (size_t)(out->len - start));
            if (t) *t = ' ';
            if (s[n - 1] == 'Z') out->len--;
        }
        return 0;
    }
    case OP_MYTIME:
        /* v[:-6] if len(v) > 6 and v[-6] in "+-" and v[-3] == ":" else v */
        if (flags & STR_NONASCII)
            return -1;
        if (n > 6 && (s[n - 6] == '+' || s[n - 6] == '-') && s[n - 3] == ':')
            n -= 6;
        return put_bulk_escaped(out, s, n, job->flavor);
    default:
        return -1;
    }
}

/* The top-level json value at *pp of a json column. */
static int convert_json(Job *job, int op, const unsigned char **pp, const unsigned char *end)
{
    const unsigned char *start = *pp;
    int canon = op != OP_JSONRAW;
    if (json_value(pp, end, 0, canon) < 0)
        return -1;
    const unsigned char *vs = start, *ve = *pp;
    if (op != OP_JSONDUMP_NOWRAP && *start == '{' && ve - vs > 9 && memcmp(start, "{\"$json\":", 9) == 0) {
        /* unwrap_json_text / unwrap_json: {"$json": X} -> X when "$json" is the only key */
        const unsigned char *p = start + 9;
        if (json_value(&p, end, 1, canon) < 0)
            return -1;
        if (*p == '}' && p + 1 == ve) {
            vs = start + 9;
            ve = p;
        } else if (!canon) {
            return -1; /* more keys after "$json" (maybe duplicates of it): Python decides */
        }
    }
    if (op == OP_JSONRAW && *start == '{') {
        /* a first key spelled with escapes could be "$json": Python decides */
        const unsigned char *q = start + 1;
        for (; q < ve && q - start < 24 && *q != '"'; q++) {}
        if (q < ve && *q == '"') {
            for (q++; q < ve && *q != '"'; q++)
                if (*q == '\\')
                    return -1;
        }
    }
    return put_bulk_escaped(&job->out, vs, ve - vs, job->flavor);
}

static int convert_value(Job *job, int op, const unsigned char **pp, const unsigned char *end)
{
    const unsigned char *p = *pp;
    Buf *out = &job->out;
    if (p >= end)
        return -1;
    unsigned char c = *p;
    if (c == 'n') {
        if (end - p < 4 || memcmp(p, "null", 4) != 0)
            return -1;
        *pp = p + 4;
        return put_null(out);
    }
    if (op == OP_JSONRAW || op == OP_JSONDUMP || op == OP_JSONDUMP_NOWRAP)
        return convert_json(job, op, pp, end);
    if (c == '"') {
        int flags;
        if (op == OP_PASS || op == OP_FLOATPASS) /* (convert_string: the string bulk-escaped) */
            return json_string_buf(pp, end, out, 1, job->flavor, &flags);
        job->tmp.len = 0;
        if (json_string(pp, end, &job->tmp, &flags) < 0)
            return -1;
        return convert_string(job, op, flags);
    }
    if (c == 't' || c == 'f') {
        int v = c == 't';
        Py_ssize_t len = v ? 4 : 5;
        if (end - p < len || memcmp(p, v ? "true" : "false", (size_t)len) != 0)
            return -1;
        *pp = p + len;
        switch (op) {
        case OP_PASS:
        case OP_BOOL10:
            return buf_put(out, v ? "1" : "0", 1);
        case OP_PGBOOL:
            return buf_put(out, v ? "t" : "f", 1);
        default:
            return -1;
        }
    }
    if (c == '-' || is_digit(c)) {
        Number n;
        if (json_number(pp, end, &n) < 0)
            return -1;
        if (op != OP_PASS && op != OP_MYNUM && op != OP_FLOATPASS)
            return -1;
        if (n.has_frac || n.has_exp)
            return put_float_repr(out, &n);
        if (!int_verbatim(&n))
            return -1; /* -0, or beyond 64 bits (orjson reads a double) */
        return buf_put(out, (const char *)n.start, n.end - n.start);
    }
    return -1; /* an array or object in a scalar column, or not JSON */
}

/* One line [p, end) -> one bulk-text line. */
static int convert_line(Job *job, const unsigned char *p, const unsigned char *end)
{
    if (p >= end || *p != '{')
        return -1;
    p++;
    for (Py_ssize_t i = 0; i < job->ncols; i++) {
        if (i > 0) {
            if (p >= end || *p != ',')
                return -1;
            p++;
            if (buf_put(&job->out, "\t", 1) < 0)
                return -1;
        }
        Py_ssize_t kl = job->keylens[i];
        if (end - p < kl + 1 || memcmp(p, job->keys[i], (size_t)kl) != 0 || p[kl] != ':')
            return -1;
        p += kl + 1;
        if (convert_value(job, job->ops[i], &p, end) < 0)
            return -1;
    }
    if (p >= end || *p != '}' || p + 1 != end)
        return -1;
    return buf_put(&job->out, "\n", 1);
}

static int convert_block(Job *job, const unsigned char *s, Py_ssize_t n)
{
    if (n == 0)
        return 0;
    if (s[n - 1] != '\n')
        return -1;
    const unsigned char *p = s, *end = s + n;
    while (p < end) {
        const unsigned char *nl = memchr(p, '\n', (size_t)(end - p));
        if (nl == NULL || convert_line(job, p, nl) < 0)
            return -1;
        p = nl + 1;
    }
    return 0;
}

/* ---- module --------------------------------------------------------------------------- */

static PyObject *jsonl_to_bulk(PyObject *self, PyObject *args)
{
    Py_buffer block;
    PyObject *keys;
    Py_buffer ops;
    int flavor;
    if (!PyArg_ParseTuple(args, "y*O!y*i:jsonl_to_bulk", &block, &PyTuple_Type, &keys, &ops, &flavor))
        return NULL;
    PyObject *result = NULL;
    const unsigned char **kp = NULL;
    Py_ssize_t *kl = NULL;
    Py_ssize_t ncols = PyTuple_GET_SIZE(keys);
    Job job;
    memset(&job, 0, sizeof job);
    if (ncols < 1 || ncols != ops.len || (flavor != FLAVOR_PG && flavor != FLAVOR_MY)) {
        PyErr_SetString(PyExc_ValueError, "jsonl_to_bulk: keys and ops must have the same length >= 1; flavor 0 or 1");
        goto done;
    }
    kp = PyMem_Malloc(sizeof *kp * (size_t)ncols);
    kl = PyMem_Malloc(sizeof *kl * (size_t)ncols);
    if (kp == NULL || kl == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < ncols; i++) {
        PyObject *k = PyTuple_GET_ITEM(keys, i);
        if (!PyBytes_Check(k)) {
            PyErr_SetString(PyExc_TypeError, "jsonl_to_bulk: keys must be bytes");
            goto done;
        }
        kp[i] = (const unsigned char *)PyBytes_AS_STRING(k);
        kl[i] = PyBytes_GET_SIZE(k);
        if (((const unsigned char *)ops.buf)[i] >= OP_COUNT) {
            PyErr_SetString(PyExc_ValueError, "jsonl_to_bulk: unknown op");
            goto done;
        }
    }
    job.keys = kp;
    job.keylens = kl;
    job.ops = ops.buf;
    job.ncols = ncols;
    job.flavor = flavor;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = buf_reserve(&job.out, block.len + block.len / 2 + 64) < 0 ? -1
         : convert_block(&job, block.buf, block.len);
    Py_END_ALLOW_THREADS
    if (rc < 0) {
        result = Py_None;
        Py_INCREF(result);
    } else {
        result = PyBytes_FromStringAndSize(job.out.p, job.out.len);
    }
done:
    buf_free(&job.out);
    buf_free(&job.tmp);
    PyMem_Free(kp);
    PyMem_Free(kl);
    PyBuffer_Release(&block);
    PyBuffer_Release(&ops);
    return result;
}

/* The first "\u" (a backslash, then "u") of s[0:n], or n: 8 bytes at a time (exact per-byte
 * equality masks, so the lowest hit is the first), then byte by byte. A JSON document stored
 * as a string has a backslash every few bytes (each \"), where a memchr per backslash crawls. */
static Py_ssize_t find_backslash_u(const unsigned char *s, Py_ssize_t n)
{
    Py_ssize_t i = 0;
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    const uint64_t ones = UINT64_C(0x0101010101010101), low7 = UINT64_C(0x7F7F7F7F7F7F7F7F);
    while (i + 9 <= n) { /* (byte i + 8 is read too: a backslash last in the word) */
        uint64_t w;
        memcpy(&w, s + i, 8);
        uint64_t b = w ^ (ones * '\\'), u = w ^ (ones * 'u');
        uint64_t zb = ~(((b & low7) + low7) | b | low7); /* 0x80 in each byte that is a backslash */
        uint64_t zu = ~(((u & low7) + low7) | u | low7); /* ... that is a "u" */
        uint64_t hit = (zb << 8) & zu;                   /* a "u" right after a backslash */
        if (hit)
            return i + (Py_ssize_t)(__builtin_ctzll(hit) >> 3) - 1;
        if ((zb >> 63) && s[i + 8] == 'u')
            return i + 7;
        i += 8;
    }
#endif
    for (; i + 1 < n; i++)
        if (s[i] == '\\' && s[i + 1] == 'u')
            return i;
    return n;
}

static PyObject *has_escape(PyObject *self, PyObject *arg)
{
    Py_buffer data;
    if (PyObject_GetBuffer(arg, &data, PyBUF_SIMPLE) < 0)
        return NULL;
    Py_ssize_t at;
    Py_BEGIN_ALLOW_THREADS
    at = find_backslash_u(data.buf, data.len);
    Py_END_ALLOW_THREADS
    int found = at < data.len;
    PyBuffer_Release(&data);
    return PyBool_FromLong(found);
}

static PyObject *has_nul_escape(PyObject *self, PyObject *arg)
{
    Py_buffer data;
    if (PyObject_GetBuffer(arg, &data, PyBUF_SIMPLE) < 0)
        return NULL;
    int found = 0;
    Py_BEGIN_ALLOW_THREADS
    const unsigned char *s = data.buf;
    Py_ssize_t n = data.len, i = 0;
    while (n - i >= 6) {
        i += find_backslash_u(s + i, n - i);
        if (n - i < 6)
            break;
        if (memcmp(s + i + 2, "0000", 4) == 0) {
            found = 1;
            break;
        }
        i++;
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&data);
    return PyBool_FromLong(found);
}

static PyObject *count_lines(PyObject *self, PyObject *arg)
{
    Py_buffer data;
    if (PyObject_GetBuffer(arg, &data, PyBUF_SIMPLE) < 0)
        return NULL;
    Py_ssize_t n = 0;
    Py_BEGIN_ALLOW_THREADS
    const unsigned char *p = data.buf, *end = p + data.len;
    while (p < end) {
        const unsigned char *q = memchr(p, '\n', (size_t)(end - p));
        if (q == NULL)
            break;
        n++;
        p = q + 1;
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&data);
    return PyLong_FromSsize_t(n);
}

static PyMethodDef methods[] = {
    {"count_lines", count_lines, METH_O, "count_lines(data) -> int: data.count(b'\\n'), without the interpreter lock."},
    {"has_escape", has_escape, METH_O,
     "has_escape(data) -> bool: whether data holds a JSON \\u escape (b'\\\\u' in data)."},
    {"has_nul_escape", has_nul_escape, METH_O,
     "has_nul_escape(data) -> bool: whether data holds the JSON escape \\u0000 (b'\\\\u0000' in data)."},
    {"jsonl_to_bulk", jsonl_to_bulk, METH_VARARGS,
     "jsonl_to_bulk(block, keys, ops, flavor) -> bytes | None: JSON lines to COPY / LOAD DATA text "
     "(None: the block needs the Python path)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "dbjson._cimport", NULL, -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__cimport(void)
{
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    static const ModuleConst constants[] = {OPS(CONST_ENTRY) FLAVORS(CONST_ENTRY) {NULL, 0}};
    if (add_constants(m, constants) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
