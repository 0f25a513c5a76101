/*
 * dbjson._cpgexport: PostgreSQL COPY text rows -> dbjson canonical JSON lines.
 *
 * copy_to_jsonl(block, keys, kinds, args) -> bytes | None
 *
 *   block  complete rows of `COPY (SELECT col, ...) TO STDOUT` in text format (fields separated by
 *          a tab, rows ended by a newline, NULL written as \N, backslash escapes \\ \b \f \n \r \t \v)
 *   keys   per column, the literal JSON text before the value: b'{"id":', b',"name":', ...
 *   kinds  per column, one of the K_* codes below (the module's constants); args: per column, an
 *          integer for the kind
 *
 * Output: per row keys[0] value0 keys[1] value1 ... "}\n", where each value is what
 * PostgreSQLExport.json_expression() makes the server produce for that column (NULL -> null).
 * It must match byte for byte the pure-Python reference copy_to_jsonl_py() in
 * dbjson/engines/postgresql/export.py (and so the server-built lines of line_expression()).
 *
 *   K_RAW        the server already computed json_expression(col): only COPY-unescape it
 *   K_NUMBER     integers of at most 32 bits: the text as is
 *   K_BOOL       t / f -> true / false
 *   K_QUOTED     bigint, numeric, money::numeric, date, uuid, bit: "text"
 *   K_STRING     char, varchar, text and the kinds whose expression is to_json(q::text) (enum, xml,
 *                macaddr, range, interval: their COPY text is their ::text): escape_json(), i.e.
 *                " \ \b \f \n \r \t escaped, other bytes < 0x20 as \u00xx (lowercase hex),
 *                everything else (/, DEL, U+2028, non-ASCII) unchanged
 *   K_TIMESTAMP  arg = fsp | with_tz << 8. "Y-MM-DD HH:MM:SS[.f][+00]" -> "Y-MM-DDTHH:MM:SS"
 *                + exactly fsp fraction digits (padded with 0, truncated) + Z for timestamptz,
 *                as to_char(); infinity, -infinity and BC dates verbatim in quotes
 *   K_BINARY     bytea hex text (\x0aff) -> "base64" (RFC 4648, padded, no newlines)
 *   K_JSON       arg = 1 for jsonb. Whitespace outside strings removed; the document null ->
 *                {"$json":null}; an object whose only key is $json wrapped once more
 *                ({"$json":...}). For json (not jsonb) the server's test is: the text contains
 *                "$json" and the object's distinct decoded keys are exactly {$json}.
 *   K_FLOAT      real / double precision, from the shortest text (extra_float_digits=1), as
 *                _FLOAT_JSON: NaN, Infinity, -Infinity quoted; -0 -> -0.0; 0 and 1e-5 <= |v| < 1e16
 *                in plain notation (numeric::text, ".0" added when it has no point); else the
 *                exponent form without leading exponent zeros (1e-07 -> 1e-7)
 *
 * copy_binary_to_jsonl(block, keys, kinds, args, decoders) -> bytes | None
 *
 *   block     complete tuples of `COPY (SELECT ...) TO STDOUT (FORMAT binary)` WITHOUT the file
 *             header (the caller strips its 19+ bytes from the first block); the trailer (field
 *             count -1) may end the block and nothing may follow it
 *   decoders  per column, one of the D_* codes below: how the column's binary value becomes the
 *             text its output function writes in dbjson's export session (TimeZone UTC, DateStyle
 *             ISO, YMD), which then goes through the column's kind as above (so the lines are those
 *             of the text COPY, byte for byte):
 *   D_TEXT       text, varchar, bpchar, json, and every ::text expression: the bytes are the text
 *   D_BOOL       1 byte 0/1 -> t / f
 *   D_INT2/4/8   big-endian two's complement -> decimal
 *   D_BYTEA      (with K_BINARY only) raw bytes: base64 straight from the bytes
 *   D_JSONB      version byte 1, then the jsonb text
 *   D_NUMERIC    (with K_QUOTED or K_RAW only) int16 ndigits, int16 weight, uint16 sign (0 +, 0x4000 -, 0xC000 NaN, 0xD000
 *                Infinity, 0xF000 -Infinity), int16 dscale, ndigits base-10000 digits ->
 *                numeric_out's text (get_str_from_var)
 *   D_TIMESTAMP  int64 microseconds since 2000-01-01 00:00 (INT64_MIN/MAX: -infinity/infinity) ->
 *   D_TIMESTAMPTZ  timestamp_out / timestamptz_out with DateStyle ISO and TimeZone UTC:
 *                "Y-MM-DD HH:MM:SS[.f]" (year zero-padded to 4, fraction without trailing zeros)
 *                [+ "+00" with time zone] [+ " BC"]
 *   D_DATE       int32 days since 2000-01-01 (INT32_MIN/MAX: -infinity/infinity) -> "Y-MM-DD[ BC]"
 *
 * Anything it does not handle exactly (an unknown COPY escape, a malformed row, a timestamp text of
 * another shape, a json value the server would refuse to cast to jsonb) makes it return None: the
 * caller then converts that block with the Python reference. It never reads outside `block`.
 * The byte loops run without the GIL.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "common/buf.h"
#include "common/constants.h"
#include "common/text.h"

/* the column kinds (above) */
#define KINDS(X) X(K_RAW) X(K_NUMBER) X(K_BOOL) X(K_QUOTED) X(K_STRING) X(K_TIMESTAMP) X(K_BINARY) X(K_JSON) X(K_FLOAT)
enum { KINDS(CONST_ENUM) K_COUNT };
/* the binary decoders (above) */
#define DECODERS(X) X(D_TEXT) X(D_BOOL) X(D_INT2) X(D_INT4) X(D_INT8) X(D_BYTEA) X(D_JSONB) X(D_NUMERIC) X(D_TIMESTAMP) X(D_TIMESTAMPTZ) X(D_DATE)
enum { DECODERS(CONST_ENUM) D_COUNT };
/* what the converters return */
enum { ST_OK = 0, ST_UNSUPPORTED = 1, ST_NOMEM = 2 };

#define PUT(b, s, n) do { if (buf_put((b), (s), (n))) return ST_NOMEM; } while (0)
#define PUTLIT(b, lit) PUT((b), (lit), (Py_ssize_t)(sizeof(lit) - 1))

/* COPY text bytes that end a field (1) or start an escape (2) */
static const unsigned char FIELD_CLASS[256] = {['\t'] = 1, ['\n'] = 1, ['\\'] = 2};

/* The bytes of w that are a tab, a newline or a backslash, as their high bits (word-at-a-time
 * "has zero byte" tests on w xor each byte repeated): the lowest set bit always marks a real one
 * (a higher one may be a false alarm after it), zero when there is none. */
#define ONES UINT64_C(0x0101010101010101)
#define HIGHS UINT64_C(0x8080808080808080)
static inline uint64_t zero_byte(uint64_t y) { return (y - ONES) & ~y & HIGHS; }
static inline uint64_t word_specials(uint64_t w)
{
    return zero_byte(w ^ (ONES * '\t')) | zero_byte(w ^ (ONES * '\n')) | zero_byte(w ^ (ONES * '\\'));
}

#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define FIRST_SPECIAL(m) ((Py_ssize_t)(__builtin_ctzll(m) >> 3))
#endif

/* The end of the field starting at blk[i]: the index of its tab or newline (len if none), with
 * *escaped set when a backslash comes before it. Reads 8 bytes at a time. */
static inline Py_ssize_t field_end(const char *blk, Py_ssize_t i, Py_ssize_t len, int *escaped)
{
    int esc = 0;
    while (i + 8 <= len) {
        uint64_t w;
        memcpy(&w, blk + i, 8);
        uint64_t m = word_specials(w);
        if (m == 0) {
            i += 8;
            continue;
        }
#ifdef FIRST_SPECIAL
        i += FIRST_SPECIAL(m);
        if (blk[i] != '\\') {
            *escaped = esc;
            return i;
        }
        esc = 2;
        i++;
#else
        Py_ssize_t stop = i + 8;
        for (; i < stop; i++) {
            unsigned char cls = FIELD_CLASS[(unsigned char)blk[i]];
            if (cls & 1) {
                *escaped = esc;
                return i;
            }
            esc |= cls;
        }
#endif
    }
    for (; i < len; i++) { /* the block's last bytes */
        unsigned char cls = FIELD_CLASS[(unsigned char)blk[i]];
        if (cls & 1)
            break;
        esc |= cls;
    }
    *escaped = esc;
    return i;
}

/* The 4 hex digits s[i..i+4) as a number, or -1 (not hex, or past the end). */
static int hex4(const char *s, Py_ssize_t n, Py_ssize_t i)
{
    int v = 0;
    if (i < 0 || i + 4 > n)
        return -1;
    for (int q = 0; q < 4; q++) {
        int h = hex_value(s[i + q]);
        if (h < 0)
            return -1;
        v = v << 4 | h;
    }
    return v;
}

/* -- COPY text unescaping --------------------------------------------------------------------- */
/* Unescape s[0..n) into dst (room for n bytes); *outn gets the length. */
static int copy_unescape(const char *s, Py_ssize_t n, char *dst, Py_ssize_t *outn)
{
    Py_ssize_t j = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        const char *bs = memchr(s + i, '\\', (size_t)(n - i));
        Py_ssize_t e = bs ? bs - s : n;
        if (e > i) { /* the bytes up to the next backslash in one copy */
            memcpy(dst + j, s + i, (size_t)(e - i));
            j += e - i;
            i = e;
            if (i >= n)
                break;
        }
        if (i + 1 >= n)
            return ST_UNSUPPORTED;
        switch (s[++i]) {
        case '\\': dst[j++] = '\\'; break;
        case 'b': dst[j++] = '\b'; break;
        case 'f': dst[j++] = '\f'; break;
        case 'n': dst[j++] = '\n'; break;
        case 'r': dst[j++] = '\r'; break;
        case 't': dst[j++] = '\t'; break;
        case 'v': dst[j++] = '\v'; break;
        default: return ST_UNSUPPORTED; /* the server never writes other escapes */
        }
    }
    *outn = j;
    return ST_OK;
}

/* -- per-kind emitters ------------------------------------------------------------------------- */
static int emit_bool(Buf *o, const char *s, Py_ssize_t n)
{
    if (n == 1 && s[0] == 't') { PUTLIT(o, "true"); return ST_OK; }
    if (n == 1 && s[0] == 'f') { PUTLIT(o, "false"); return ST_OK; }
    return ST_UNSUPPORTED;
}

static int emit_quoted(Buf *o, const char *s, Py_ssize_t n)
{
    if (buf_reserve(o, n > PY_SSIZE_T_MAX - 2 ? -1 : n + 2))
        return ST_NOMEM;
    o->p[o->len++] = '"';
    memcpy(o->p + o->len, s, (size_t)n);
    o->len += n;
    o->p[o->len++] = '"';
    return ST_OK;
}

/* PostgreSQL's escape_json() (to_json of a text). */
static int emit_string(Buf *o, const char *s, Py_ssize_t n)
{
    if (n > (PY_SSIZE_T_MAX - 2) / 6 || buf_reserve(o, 6 * n + 2))
        return ST_NOMEM;
    o->len = json_quote(o->p + o->len, (const unsigned char *)s, n) - o->p;
    return ST_OK;
}

static int ends_with(const char *s, Py_ssize_t n, const char *lit)
{
    Py_ssize_t k = (Py_ssize_t)strlen(lit);
    return n >= k && memcmp(s + n - k, lit, (size_t)k) == 0;
}

/* to_char(q, 'YYYY-MM-DD"T"HH24:MI:SS.FF<fsp>') [|| 'Z'] for finite AD values, else q::text. */
static int emit_timestamp(Buf *o, const char *s, Py_ssize_t n, long arg)
{
    int fsp = (int)(arg & 0xff), tz = (int)((arg >> 8) & 1);
    if ((n == 8 && memcmp(s, "infinity", 8) == 0) || (n == 9 && memcmp(s, "-infinity", 9) == 0) ||
        ends_with(s, n, " BC"))
        return emit_quoted(o, s, n);
    if (fsp > 6)
        return ST_UNSUPPORTED;
    Py_ssize_t m = n;
    if (tz) {
        if (!ends_with(s, n, "+00"))
            return ST_UNSUPPORTED;
        m -= 3;
    }
    Py_ssize_t y = 0;
    while (y < m && is_digit(s[y]))
        y++;
    /* Y+ "-MM-DD HH:MM:SS" is y + 15 bytes */
    if (y < 4 || m - y < 15)
        return ST_UNSUPPORTED;
    const char *t = s + y;
    static const char shape[] = "-dd-dd dd:dd:dd";
    for (int i = 0; i < 15; i++) {
        if (shape[i] == 'd' ? !is_digit(t[i]) : t[i] != shape[i])
            return ST_UNSUPPORTED;
    }
    const char *frac = t + 15;
    Py_ssize_t nfrac = m - y - 15;
    if (nfrac > 0) {
        if (frac[0] != '.' || nfrac < 2 || nfrac > 7)
            return ST_UNSUPPORTED;
        frac++;
        nfrac--;
        for (Py_ssize_t i = 0; i < nfrac; i++)
            if (!is_digit(frac[i]))
                return ST_UNSUPPORTED;
    }
    if (buf_reserve(o, y + 15 + 1 + fsp + 3))
        return ST_NOMEM;
    char *d = o->p + o->len;
    *d++ = '"';
    memcpy(d, s, (size_t)(y + 15));
    d[y + 6] = 'T';
    d += y + 15;
    if (fsp > 0) {
        *d++ = '.';
        for (int i = 0; i < fsp; i++)
            *d++ = i < nfrac ? frac[i] : '0';
    }
    if (tz)
        *d++ = 'Z';
    *d++ = '"';
    o->len = d - o->p;
    return ST_OK;
}

/* bytea hex output (\x0aff) -> quoted base64 */
static int emit_binary(Buf *o, const char *s, Py_ssize_t n)
{
    if (n < 2 || s[0] != '\\' || s[1] != 'x' || (n - 2) % 2 != 0)
        return ST_UNSUPPORTED;
    const char *h = s + 2;
    Py_ssize_t nbytes = (n - 2) / 2;
    if (buf_reserve(o, (nbytes + 2) / 3 * 4 + 2))
        return ST_NOMEM;
    char *d = o->p + o->len;
    *d++ = '"';
    for (Py_ssize_t i = 0; i < nbytes; i += 3) {
        unsigned int v = 0;
        Py_ssize_t take = nbytes - i < 3 ? nbytes - i : 3;
        for (Py_ssize_t k = 0; k < 3; k++) {
            unsigned int byte = 0;
            if (k < take) {
                int hi = hex_value(h[2 * (i + k)]), lo = hex_value(h[2 * (i + k) + 1]);
                if (hi < 0 || lo < 0)
                    return ST_UNSUPPORTED;
                byte = (unsigned int)(hi << 4 | lo);
            }
            v = v << 8 | byte;
        }
        d = b64_quad(d, v, (int)take);
    }
    *d++ = '"';
    o->len = d - o->p;
    return ST_OK;
}

/* -- json / jsonb -------------------------------------------------------------------------------- */
/* Remove ' ', \t, \n, \r outside strings (the server's regexp_replace). dst has room for n bytes.
 * *risky is set when a string holds a \u0000 or an unpaired surrogate escape (jsonb refuses those). */
static int json_compact(const char *s, Py_ssize_t n, char *dst, Py_ssize_t *outn, int *risky)
{
    Py_ssize_t j = 0, i = 0;
    *risky = 0;
    while (i < n) {
        unsigned char c = (unsigned char)s[i];
        if (c != '"') { /* written, and kept unless it is whitespace (' ', \t, \n, \r: bits 32, 9, 10, 13) */
            dst[j] = (char)c;
            j += 1 - (Py_ssize_t)((UINT64_C(0x100002600) >> (c & 63)) & (c <= ' '));
            i++;
            continue;
        }
        dst[j++] = '"';
        i++;
        for (;;) { /* in a string: its plain bytes in one copy, then a quote or an escape */
            Py_ssize_t e = next_quote_or_backslash((const unsigned char *)s, i, n);
            memcpy(dst + j, s + i, (size_t)(e - i));
            j += e - i;
            i = e;
            if (i >= n)
                return ST_UNSUPPORTED; /* no closing quote */
            dst[j++] = s[i];
            if (s[i] == '"') {
                i++;
                break;
            }
            if (i + 1 >= n) /* a backslash */
                return ST_UNSUPPORTED;
            c = (unsigned char)s[++i];
            dst[j++] = (char)c;
            if (c == 'u') {
                int v = hex4(s, n, i + 1);
                if (v < 0)
                    return ST_UNSUPPORTED;
                if (v == 0 || (v >= 0xDC00 && v <= 0xDFFF)) {
                    *risky = 1; /* \u0000, or a low surrogate without its high one */
                } else if (v >= 0xD800 && v <= 0xDBFF) {
                    int lo = (i + 6 < n && s[i + 5] == '\\' && s[i + 6] == 'u') ? hex4(s, n, i + 7) : -1;
                    if (lo >= 0xDC00 && lo <= 0xDFFF) { /* a pair: copy the second escape too */
                        memcpy(dst + j, s + i + 1, 10);
                        j += 10;
                        i += 10;
                    } else
                        *risky = 1;
                }
            }
            i++;
        }
    }
    *outn = j;
    return ST_OK;
}

/* End of the string starting at s[i] == '"' (index just past the closing quote), or -1. */
static Py_ssize_t json_skip_string(const char *s, Py_ssize_t n, Py_ssize_t i)
{
    for (i++;;) {
        i = next_quote_or_backslash((const unsigned char *)s, i, n);
        if (i >= n)
            return -1;
        if (s[i] == '"')
            return i + 1;
        i += 2; /* a backslash and the character it escapes */
    }
}

/* Does the JSON string s[a..b) (quotes included) decode to exactly "$json"? */
static int key_is_dollar_json(const char *s, Py_ssize_t a, Py_ssize_t b)
{
    static const char want[] = "$json";
    int k = 0;
    for (Py_ssize_t i = a + 1; i < b - 1; i++) {
        int ch = (unsigned char)s[i];
        if (ch == '\\') {
            if (i + 1 >= b - 1)
                return 0;
            switch (s[++i]) {
            case '"': ch = '"'; break;
            case '\\': ch = '\\'; break;
            case '/': ch = '/'; break;
            case 'b': ch = '\b'; break;
            case 'f': ch = '\f'; break;
            case 'n': ch = '\n'; break;
            case 'r': ch = '\r'; break;
            case 't': ch = '\t'; break;
            case 'u': {
                int v = hex4(s, b - 1, i + 1);
                if (v < 0)
                    return 0;
                i += 4;
                ch = v < 0x80 ? v : -1; /* a non-ASCII character is not part of "$json" */
                break;
            }
            default: return 0;
            }
        }
        if (k >= 5 || ch != want[k])
            return 0;
        k++;
    }
    return k == 5;
}

/* 1 when the object s[0..n) (compact) has at least one key and every top-level key is $json,
 * 0 when not, -1 when it is not a well-formed object. */
static int only_dollar_json_keys(const char *s, Py_ssize_t n)
{
    Py_ssize_t i = 1;
    int all = 1;
    if (n < 2 || s[0] != '{')
        return -1;
    if (s[1] == '}')
        return n == 2 ? 0 : -1;
    for (;;) {
        if (i >= n || s[i] != '"')
            return -1;
        Py_ssize_t e = json_skip_string(s, n, i);
        if (e < 0)
            return -1;
        if (!key_is_dollar_json(s, i, e))
            all = 0;
        i = e;
        if (i >= n || s[i] != ':')
            return -1;
        i++;
        Py_ssize_t depth = 0;
        for (;;) {
            if (i >= n)
                return -1;
            char c = s[i];
            if (c == '"') {
                i = json_skip_string(s, n, i);
                if (i < 0)
                    return -1;
                continue;
            }
            if (c == '{' || c == '[') {
                depth++;
            } else if (c == '}' || c == ']') {
                if (depth == 0) {
                    if (c != '}' || i != n - 1)
                        return -1;
                    return all;
                }
                depth--;
            } else if (c == ',' && depth == 0) {
                i++;
                break;
            }
            i++;
        }
    }
}

static int contains(const char *s, Py_ssize_t n, const char *lit)
{
    Py_ssize_t k = (Py_ssize_t)strlen(lit);
    for (Py_ssize_t i = 0; i + k <= n; i++)
        if (s[i] == lit[0] && memcmp(s + i, lit, (size_t)k) == 0)
            return 1;
    return 0;
}

static int emit_json(Buf *o, const char *s, Py_ssize_t n, long binary, char *tmp)
{
    Py_ssize_t m = 0;
    int risky = 0, st = json_compact(s, n, tmp, &m, &risky);
    if (st)
        return st;
    if (m == 4 && memcmp(tmp, "null", 4) == 0) {
        PUTLIT(o, "{\"$json\":null}");
        return ST_OK;
    }
    int wrap = 0;
    if (m > 0 && tmp[0] == '{' && (binary || contains(tmp, m, "\"$json\""))) {
        if (!binary && risky)
            return ST_UNSUPPORTED; /* the server's ::jsonb may fail: the Python path decides */
        wrap = only_dollar_json_keys(tmp, m);
        if (wrap < 0)
            return ST_UNSUPPORTED;
    }
    if (wrap)
        PUTLIT(o, "{\"$json\":");
    PUT(o, tmp, m);
    if (wrap)
        PUTLIT(o, "}");
    return ST_OK;
}

/* -- float4 / float8 ------------------------------------------------------------------------------ */
/* A float's shortest text -?D+(.D+)?(e[+-]D{1,4})? taken apart. Its significant digits G are the
 * integer and fraction digits without leading zeros; the value is G * 10^p. */
typedef struct {
    int neg;
    const char *ip, *fp; /* integer / fraction digits */
    Py_ssize_t ip_len, fp_len, lead, g_len, e_at; /* e_at: index of 'e', or -1 */
    Py_ssize_t p;
} FloatText;

static int parse_float_text(const char *s, Py_ssize_t n, FloatText *f)
{
    Py_ssize_t i = 0;
    long ex = 0;
    memset(f, 0, sizeof *f);
    f->e_at = -1;
    if (i < n && s[i] == '-') {
        f->neg = 1;
        i++;
    }
    f->ip = s + i;
    while (i < n && is_digit(s[i]))
        i++;
    f->ip_len = (s + i) - f->ip;
    if (f->ip_len == 0)
        return ST_UNSUPPORTED;
    f->fp = s + i;
    if (i < n && s[i] == '.') {
        f->fp = s + ++i;
        while (i < n && is_digit(s[i]))
            i++;
        f->fp_len = (s + i) - f->fp;
        if (f->fp_len == 0)
            return ST_UNSUPPORTED;
    }
    if (i < n && s[i] == 'e') {
        f->e_at = i++;
        if (i >= n || (s[i] != '+' && s[i] != '-'))
            return ST_UNSUPPORTED;
        int eneg = s[i++] == '-';
        Py_ssize_t d0 = i;
        while (i < n && is_digit(s[i]) && i - d0 < 4)
            ex = ex * 10 + (s[i++] - '0');
        if (i == d0)
            return ST_UNSUPPORTED;
        if (eneg)
            ex = -ex;
    }
    if (i != n)
        return ST_UNSUPPORTED;
    Py_ssize_t total = f->ip_len + f->fp_len;
    while (f->lead < total && (f->lead < f->ip_len ? f->ip[f->lead] : f->fp[f->lead - f->ip_len]) == '0')
        f->lead++;
    f->g_len = total - f->lead;
    f->p = (Py_ssize_t)ex - f->fp_len;
    return ST_OK;
}

/* k-th significant digit */
static char float_digit(const FloatText *f, Py_ssize_t k)
{
    Py_ssize_t at = f->lead + k;
    return at < f->ip_len ? f->ip[at] : f->fp[at - f->ip_len];
}

/* numeric::text of G * 10^p (scale max(0, -p)), with ".0" when that has no point */
static int emit_plain(Buf *o, const FloatText *f)
{
    Py_ssize_t p = f->p, g_len = f->g_len;
    if (buf_reserve(o, g_len + (p < 0 ? -p : p) + 8))
        return ST_NOMEM;
    char *d = o->p + o->len;
    Py_ssize_t scale = p < 0 ? -p : 0, int_digits = g_len - scale;
    if (f->neg)
        *d++ = '-';
    if (int_digits <= 0)
        *d++ = '0';
    for (Py_ssize_t k = 0; k < int_digits; k++)
        *d++ = float_digit(f, k);
    for (Py_ssize_t k = 0; k < p; k++)
        *d++ = '0';
    *d++ = '.';
    if (scale == 0)
        *d++ = '0';
    for (Py_ssize_t k = int_digits; k < 0; k++)
        *d++ = '0';
    for (Py_ssize_t k = int_digits < 0 ? 0 : int_digits; k < g_len; k++)
        *d++ = float_digit(f, k);
    o->len = d - o->p;
    return ST_OK;
}

/* _FLOAT_JSON */
static int emit_float(Buf *o, const char *s, Py_ssize_t n)
{
    FloatText f;
    if ((n == 3 && memcmp(s, "NaN", 3) == 0) || (n == 8 && memcmp(s, "Infinity", 8) == 0) ||
        (n == 9 && memcmp(s, "-Infinity", 9) == 0))
        return emit_quoted(o, s, n);
    if (n == 2 && memcmp(s, "-0", 2) == 0) {
        PUTLIT(o, "-0.0");
        return ST_OK;
    }
    if (parse_float_text(s, n, &f))
        return ST_UNSUPPORTED;
    if (f.g_len == 0) {
        PUTLIT(o, "0.0");
        return ST_OK;
    }
    Py_ssize_t mag = f.g_len - 1 + f.p; /* |value| = m * 10^mag, 1 <= m < 10 */
    if (mag >= -5 && mag <= 15)
        return emit_plain(o, &f);
    if (f.e_at < 0) { /* never from the server: a plain text out of range stays as it is */
        PUT(o, s, n);
        return ST_OK;
    }
    Py_ssize_t d = f.e_at + 2; /* the exponent form without leading exponent zeros */
    while (d < n - 1 && s[d] == '0')
        d++;
    PUT(o, s, f.e_at + 2);
    PUT(o, s + d, n - d);
    return ST_OK;
}

/* -- the row loop -------------------------------------------------------------------------------- */
typedef struct {
    Py_ssize_t ncols;
    const char **keys;
    Py_ssize_t *keylens;
    int *kinds;
    long *args;
} Plan;

static int emit_value(Buf *o, int kind, long arg, const char *s, Py_ssize_t n, char *tmp)
{
    switch (kind) {
    case K_RAW:
    case K_NUMBER: PUT(o, s, n); return ST_OK;
    case K_BOOL: return emit_bool(o, s, n);
    case K_QUOTED: return emit_quoted(o, s, n);
    case K_STRING: return emit_string(o, s, n);
    case K_TIMESTAMP: return emit_timestamp(o, s, n, arg);
    case K_BINARY: return emit_binary(o, s, n);
    case K_JSON: return emit_json(o, s, n, arg, tmp);
    case K_FLOAT: return emit_float(o, s, n);
    default: return ST_UNSUPPORTED;
    }
}


/* -- binary COPY: values to their output function's text ---------------------------------------- */
static inline uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}
static inline uint16_t be16(const unsigned char *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static inline uint64_t be64(const unsigned char *p) { return (uint64_t)be32(p) << 32 | be32(p + 4); }

/* decimal of v into d (room for 21 bytes); returns the end */
static char *put_int(char *d, int64_t v)
{
    char tmp[24];
    int k = 0;
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    do {
        tmp[k++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        *d++ = '-';
    while (k)
        *d++ = tmp[--k];
    return d;
}

/* v zero-padded to at least `width` digits (v >= 0) */
static char *put_zeropad(char *d, int64_t v, int width)
{
    char tmp[24];
    int k = 0;
    do {
        tmp[k++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (k < width)
        tmp[k++] = '0';
    while (k)
        *d++ = tmp[--k];
    return d;
}

/* 0 <= v < 100 as two digits */
static inline char *put_2(char *d, int v)
{
    d[0] = (char)('0' + v / 10);
    d[1] = (char)('0' + v % 10);
    return d + 2;
}

/* PostgreSQL's j2date() */
static void j2date(int jd, int *year, int *month, int *day)
{
    unsigned int julian, quad, extra;
    int y;
    julian = (unsigned int)jd;
    julian += 32044;
    quad = julian / 146097;
    extra = (julian - quad * 146097) * 4 + 3;
    julian += 60 + quad * 3 + extra / 146097;
    quad = julian / 1461;
    julian -= quad * 1461;
    y = (int)(julian * 4 / 1461);
    julian = ((y != 0) ? ((julian + 305) % 365) : ((julian + 306) % 366)) + 123;
    y += (int)(quad * 4);
    *year = y - 4800;
    quad = julian * 2141 / 65536;
    *day = (int)(julian - 7834 * quad / 256);
    *month = (int)((quad + 10) % 12 + 1);
}

#define POSTGRES_EPOCH_JDATE 2451545
#define USECS_PER_DAY INT64_C(86400000000)

/* "Y-MM-DD" (ISO, year of the era zero-padded to 4) for Julian day jd; *bc set for years <= 0 */
static char *put_date(char *d, int jd, int *bc)
{
    int y, mo, dd;
    j2date(jd, &y, &mo, &dd);
    *bc = y <= 0;
    d = put_zeropad(d, y > 0 ? y : -(y - 1), 4);
    *d++ = '-';
    d = put_zeropad(d, mo, 2);
    *d++ = '-';
    return put_zeropad(d, dd, 2);
}

/* timestamp(tz)_out in ISO style, UTC; d has room for 64 bytes. Returns the end or NULL. */
static char *put_timestamp(char *d, int64_t t, int tz)
{
    if (t == INT64_MIN) {
        memcpy(d, "-infinity", 9);
        return d + 9;
    }
    if (t == INT64_MAX) {
        memcpy(d, "infinity", 8);
        return d + 8;
    }
    int64_t date = t / USECS_PER_DAY, time = t - date * USECS_PER_DAY;
    if (time < 0) {
        time += USECS_PER_DAY;
        date -= 1;
    }
    date += POSTGRES_EPOCH_JDATE;
    if (date < 0 || date > INT32_MAX)
        return NULL; /* the server says "timestamp out of range" */
    int bc;
    d = put_date(d, (int)date, &bc);
    *d++ = ' ';
    int64_t hour = time / INT64_C(3600000000);
    time -= hour * INT64_C(3600000000);
    int64_t min = time / 60000000;
    time -= min * 60000000;
    int64_t sec = time / 1000000, fsec = time - sec * 1000000;
    d = put_zeropad(d, hour, 2);
    *d++ = ':';
    d = put_zeropad(d, min, 2);
    *d++ = ':';
    d = put_zeropad(d, sec, 2);
    if (fsec != 0) { /* six digits, trailing zeros dropped */
        *d++ = '.';
        char *f = d;
        d = put_zeropad(d, fsec, 6);
        while (d > f && d[-1] == '0')
            d--;
    }
    if (tz) {
        memcpy(d, "+00", 3);
        d += 3;
    }
    if (bc) {
        memcpy(d, " BC", 3);
        d += 3;
    }
    return d;
}

/* emit_timestamp() of the text put_timestamp() writes, without the text: for finite AD values
 * "Y-MM-DDTHH:MM:SS" + the first fsp digits of the six-digit fraction (the text's fraction has its
 * trailing zeros dropped; emit_timestamp pads it with zeros again) [+ Z]; infinity and BC values
 * are quoted text, as emit_timestamp does. ST_UNSUPPORTED: let the text path decide (fsp > 6, out
 * of range). txt: scratch of 64 bytes. */
static int emit_binary_timestamp(Buf *o, int64_t t, long arg, int tz, char *txt)
{
    int fsp = (int)(arg & 0xff);
    if (((arg >> 8) & 1) != tz || fsp > 6)
        return ST_UNSUPPORTED;
    if (t == INT64_MIN || t == INT64_MAX)
        return ST_UNSUPPORTED; /* the text path: "infinity" quoted */
    int64_t date = t / USECS_PER_DAY, time = t - date * USECS_PER_DAY;
    if (time < 0) {
        time += USECS_PER_DAY;
        date -= 1;
    }
    date += POSTGRES_EPOCH_JDATE;
    if (date < 0 || date > INT32_MAX)
        return ST_UNSUPPORTED;
    int y, mo, dd;
    j2date((int)date, &y, &mo, &dd);
    if (y <= 0)
        return ST_UNSUPPORTED; /* BC: the text path quotes the text */
    if (buf_reserve(o, 48))
        return ST_NOMEM;
    char *d = o->p + o->len;
    *d++ = '"';
    d = put_zeropad(d, y, 4);
    *d++ = '-';
    d = put_2(d, mo);
    *d++ = '-';
    d = put_2(d, dd);
    *d++ = 'T';
    int64_t hour = time / INT64_C(3600000000);
    time -= hour * INT64_C(3600000000);
    int64_t min = time / 60000000;
    time -= min * 60000000;
    int64_t sec = time / 1000000, fsec = time - sec * 1000000;
    d = put_2(d, (int)hour);
    *d++ = ':';
    d = put_2(d, (int)min);
    *d++ = ':';
    d = put_2(d, (int)sec);
    if (fsp > 0) {
        char f[6];
        for (int i = 5; i >= 0; i--) {
            f[i] = (char)('0' + fsec % 10);
            fsec /= 10;
        }
        *d++ = '.';
        memcpy(d, f, (size_t)fsp);
        d += fsp;
    }
    if (tz)
        *d++ = 'Z';
    *d++ = '"';
    o->len = d - o->p;
    (void)txt;
    return ST_OK;
}

/* numeric_out of a binary numeric s[0..n) into dst (room: numeric_text_room); *outn the length */
static int numeric_text(const unsigned char *s, Py_ssize_t n, char *dst, Py_ssize_t *outn)
{
    if (n < 8)
        return ST_UNSUPPORTED;
    int ndigits = (int16_t)be16(s), weight = (int16_t)be16(s + 2), dscale = (int16_t)be16(s + 6);
    uint16_t sign = be16(s + 4);
    if (ndigits < 0 || dscale < 0 || n != 8 + 2 * (Py_ssize_t)ndigits)
        return ST_UNSUPPORTED;
    char *d = dst;
    if (sign == 0xC000 || sign == 0xD000 || sign == 0xF000) {
        const char *w = sign == 0xC000 ? "NaN" : sign == 0xD000 ? "Infinity" : "-Infinity";
        size_t k = strlen(w);
        memcpy(d, w, k);
        *outn = (Py_ssize_t)k;
        return ST_OK;
    }
    if (sign != 0 && sign != 0x4000)
        return ST_UNSUPPORTED;
    const unsigned char *digs = s + 8;
    for (int k = 0; k < ndigits; k++)
        if (be16(digs + 2 * k) > 9999)
            return ST_UNSUPPORTED;
#define DIGIT(k) ((k) >= 0 && (k) < ndigits ? (int)be16(digs + 2 * (k)) : 0)
    if (sign == 0x4000)
        *d++ = '-';
    int k;
    if (weight < 0) {
        k = weight + 1;
        *d++ = '0';
    } else {
        for (k = 0; k <= weight; k++) {
            int dig = DIGIT(k), putit = k > 0, d1;
            d1 = dig / 1000;
            dig -= d1 * 1000;
            putit |= d1 > 0;
            if (putit)
                *d++ = (char)(d1 + '0');
            d1 = dig / 100;
            dig -= d1 * 100;
            putit |= d1 > 0;
            if (putit)
                *d++ = (char)(d1 + '0');
            d1 = dig / 10;
            dig -= d1 * 10;
            putit |= d1 > 0;
            if (putit)
                *d++ = (char)(d1 + '0');
            *d++ = (char)(dig + '0');
        }
    }
    if (dscale > 0) {
        *d++ = '.';
        char *end = d + dscale;
        for (int i = 0; i < dscale; k++, i += 4) {
            int dig = DIGIT(k);
            d[0] = (char)('0' + dig / 1000);
            d[1] = (char)('0' + dig / 100 % 10);
            d[2] = (char)('0' + dig / 10 % 10);
            d[3] = (char)('0' + dig % 10);
            d += 4;
        }
        d = end;
    }
#undef DIGIT
    *outn = d - dst;
    return ST_OK;
}

/* room numeric_text needs for a value of n bytes (weight up to 32767 groups, dscale up to 32767) */
static Py_ssize_t numeric_text_room(const unsigned char *s, Py_ssize_t n)
{
    if (n < 8)
        return 16;
    int weight = (int16_t)be16(s + 2), dscale = (int16_t)be16(s + 6);
    Py_ssize_t intpart = weight < 0 ? 1 : ((Py_ssize_t)weight + 1) * 4;
    return intpart + (dscale < 0 ? 0 : dscale) + 4 + 16;
}

/* quoted base64 of raw bytes */
static int emit_base64(Buf *o, const unsigned char *s, Py_ssize_t n)
{
    if (buf_reserve(o, (n + 2) / 3 * 4 + 2))
        return ST_NOMEM;
    char *d = o->p + o->len;
    *d++ = '"';
    Py_ssize_t i = 0;
    for (; i + 3 <= n; i += 3)
        d = b64_quad(d, (uint32_t)s[i] << 16 | (uint32_t)s[i + 1] << 8 | s[i + 2], 3);
    if (i < n) {
        uint32_t v = (uint32_t)s[i] << 16 | (i + 1 < n ? (uint32_t)s[i + 1] << 8 : 0);
        d = b64_quad(d, v, (int)(n - i));
    }
    *d++ = '"';
    o->len = d - o->p;
    return ST_OK;
}

typedef struct {
    Plan pl;
    int *decoders;
} BinPlan;

/* One binary value s[0..n) of column c. txt: scratch of at least n + 64 bytes (and the room a
 * numeric needs); tmp: the json scratch (at least the text's length). */
static int emit_binary_value(Buf *o, const BinPlan *bp, Py_ssize_t c, const unsigned char *s, Py_ssize_t n,
                             char *txt, char *tmp)
{
    int kind = bp->pl.kinds[c];
    long arg = bp->pl.args[c];
    const char *t = (const char *)s;
    Py_ssize_t tn = n;
    switch (bp->decoders[c]) {
    case D_TEXT: break;
    case D_BOOL:
        if (n != 1 || s[0] > 1)
            return ST_UNSUPPORTED;
        t = s[0] ? "t" : "f";
        break;
    case D_INT2:
    case D_INT4:
    case D_INT8: {
        int dec = bp->decoders[c];
        if (n != (dec == D_INT2 ? 2 : dec == D_INT4 ? 4 : 8))
            return ST_UNSUPPORTED;
        int64_t v = dec == D_INT2 ? (int16_t)be16(s) : dec == D_INT4 ? (int32_t)be32(s) : (int64_t)be64(s);
        if (kind == K_NUMBER || kind == K_QUOTED || kind == K_RAW) { /* written in place */
            if (buf_reserve(o, 24))
                return ST_NOMEM;
            char *d = o->p + o->len;
            if (kind == K_QUOTED)
                *d++ = '"';
            d = put_int(d, v);
            if (kind == K_QUOTED)
                *d++ = '"';
            o->len = d - o->p;
            return ST_OK;
        }
        tn = put_int(txt, v) - txt;
        t = txt;
        break;
    }
    case D_BYTEA:
        if (kind != K_BINARY)
            return ST_UNSUPPORTED;
        return emit_base64(o, s, n);
    case D_JSONB:
        if (n < 1 || s[0] != 1)
            return ST_UNSUPPORTED;
        t++;
        tn--;
        break;
    case D_NUMERIC: { /* K_QUOTED or K_RAW (checked at the call): written in place */
        int q = kind == K_QUOTED;
        Py_ssize_t room = numeric_text_room(s, n);
        if (buf_reserve(o, room + 2))
            return ST_NOMEM;
        char *d = o->p + o->len;
        if (q)
            *d++ = '"';
        int st = numeric_text(s, n, d, &tn);
        if (st)
            return st;
        d += tn;
        if (q)
            *d++ = '"';
        o->len = d - o->p;
        return ST_OK;
    }
    case D_TIMESTAMP:
    case D_TIMESTAMPTZ: {
        if (n != 8)
            return ST_UNSUPPORTED;
        if (kind == K_TIMESTAMP) {
            int st = emit_binary_timestamp(o, (int64_t)be64(s), arg, bp->decoders[c] == D_TIMESTAMPTZ, txt);
            if (st != ST_UNSUPPORTED)
                return st;
        }
        char *e = put_timestamp(txt, (int64_t)be64(s), bp->decoders[c] == D_TIMESTAMPTZ);
        if (e == NULL)
            return ST_UNSUPPORTED;
        tn = e - txt;
        t = txt;
        break;
    }
    case D_DATE: {
        if (n != 4)
            return ST_UNSUPPORTED;
        int32_t v = (int32_t)be32(s);
        char *e = txt;
        if (v == INT32_MIN) {
            memcpy(e, "-infinity", 9);
            e += 9;
        } else if (v == INT32_MAX) {
            memcpy(e, "infinity", 8);
            e += 8;
        } else {
            int64_t jd = (int64_t)v + POSTGRES_EPOCH_JDATE;
            int bc;
            if (jd < 0 || jd > INT32_MAX)
                return ST_UNSUPPORTED;
            e = put_date(e, (int)jd, &bc);
            if (bc) {
                memcpy(e, " BC", 3);
                e += 3;
            }
        }
        tn = e - txt;
        t = txt;
        break;
    }
    default: return ST_UNSUPPORTED;
    }
    return emit_value(o, kind, arg, t, tn, tmp);
}

/* txt/tmp: scratch of len + 128 bytes each. */
static int convert_binary(const unsigned char *blk, Py_ssize_t len, const BinPlan *bp, Buf *o, char *txt, char *tmp)
{
    Py_ssize_t i = 0;
    Py_ssize_t ncols = bp->pl.ncols;
    while (i < len) {
        if (len - i < 2)
            return ST_UNSUPPORTED;
        int nf = (int16_t)be16(blk + i);
        i += 2;
        if (nf == -1)
            return i == len ? ST_OK : ST_UNSUPPORTED; /* the trailer ends the data */
        if (nf != ncols)
            return ST_UNSUPPORTED;
        for (Py_ssize_t c = 0; c < ncols; c++) {
            if (len - i < 4)
                return ST_UNSUPPORTED;
            int32_t fl = (int32_t)be32(blk + i);
            i += 4;
            PUT(o, bp->pl.keys[c], bp->pl.keylens[c]);
            if (fl == -1) {
                PUTLIT(o, "null");
                continue;
            }
            if (fl < 0 || fl > len - i)
                return ST_UNSUPPORTED;
            const unsigned char *s = blk + i;
            i += fl;
            int st;
            st = emit_binary_value(o, bp, c, s, fl, txt, tmp);
            if (st)
                return st;
        }
        PUTLIT(o, "}\n");
    }
    return ST_OK;
}

/* scratch1/scratch2: room for len bytes each (unescaped field, compacted json). */
static int convert(const char *blk, Py_ssize_t len, const Plan *pl, Buf *o, char *scratch1, char *scratch2)
{
    Py_ssize_t i = 0;
    while (i < len) {
        for (Py_ssize_t c = 0; c < pl->ncols; c++) {
            Py_ssize_t a = i;
            int escaped = 0;
            i = field_end(blk, i, len, &escaped);
            if (i >= len)
                return ST_UNSUPPORTED; /* incomplete row */
            char sep = blk[i];
            if (sep != (c == pl->ncols - 1 ? '\n' : '\t'))
                return ST_UNSUPPORTED; /* wrong number of fields */
            const char *s = blk + a;
            Py_ssize_t n = i - a;
            i++;
            PUT(o, pl->keys[c], pl->keylens[c]);
            if (n == 2 && s[0] == '\\' && s[1] == 'N') {
                PUTLIT(o, "null");
                continue;
            }
            if (escaped) {
                int st = copy_unescape(s, n, scratch1, &n);
                if (st)
                    return st;
                s = scratch1;
            }
            int st = emit_value(o, pl->kinds[c], pl->args[c], s, n, scratch2);
            if (st)
                return st;
        }
        PUTLIT(o, "}\n");
    }
    return ST_OK;
}

/* Fills pl from the keys, kinds and args tuples (0), or sets an exception (-1). */
static int parse_plan(PyObject *keys, PyObject *kinds, PyObject *args, Plan *pl)
{
    Py_ssize_t ncols = PyTuple_GET_SIZE(keys);
    if (ncols < 1 || PyTuple_GET_SIZE(kinds) != ncols || PyTuple_GET_SIZE(args) != ncols) {
        PyErr_SetString(PyExc_ValueError, "keys, kinds and args must be tuples of the same non-zero length");
        return -1;
    }
    pl->ncols = ncols;
    pl->keys = PyMem_Malloc(sizeof(char *) * (size_t)ncols);
    pl->keylens = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)ncols);
    pl->kinds = PyMem_Malloc(sizeof(int) * (size_t)ncols);
    pl->args = PyMem_Malloc(sizeof(long) * (size_t)ncols);
    if (!pl->keys || !pl->keylens || !pl->kinds || !pl->args) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t c = 0; c < ncols; c++) {
        PyObject *k = PyTuple_GET_ITEM(keys, c);
        if (!PyBytes_Check(k)) {
            PyErr_SetString(PyExc_TypeError, "keys must be bytes");
            return -1;
        }
        pl->keys[c] = PyBytes_AS_STRING(k);
        pl->keylens[c] = PyBytes_GET_SIZE(k);
        long kind = PyLong_AsLong(PyTuple_GET_ITEM(kinds, c));
        if (kind == -1 && PyErr_Occurred())
            return -1;
        if (kind < 0 || kind >= K_COUNT) {
            PyErr_SetString(PyExc_ValueError, "unknown column kind");
            return -1;
        }
        pl->kinds[c] = (int)kind;
        pl->args[c] = PyLong_AsLong(PyTuple_GET_ITEM(args, c));
        if (pl->args[c] == -1 && PyErr_Occurred())
            return -1;
    }
    return 0;
}

static void free_plan(Plan *pl)
{
    PyMem_Free(pl->keys);
    PyMem_Free(pl->keylens);
    PyMem_Free(pl->kinds);
    PyMem_Free(pl->args);
}

static PyObject *copy_to_jsonl(PyObject *self, PyObject *pyargs)
{
    (void)self;
    Py_buffer view;
    PyObject *keys, *kinds, *args;
    if (!PyArg_ParseTuple(pyargs, "y*O!O!O!:copy_to_jsonl", &view, &PyTuple_Type, &keys, &PyTuple_Type, &kinds,
                          &PyTuple_Type, &args))
        return NULL;
    PyObject *result = NULL;
    Plan pl = {0, NULL, NULL, NULL, NULL};
    char *scratch = NULL;
    Buf out = {NULL, 0, 0};
    if (parse_plan(keys, kinds, args, &pl) < 0)
        goto done;
    /* two scratch areas of view.len bytes each: no field is longer than the block */
    if (view.len > (PY_SSIZE_T_MAX - 2) / 2) {
        PyErr_NoMemory();
        goto done;
    }
    scratch = PyMem_Malloc((size_t)(2 * view.len + 2));
    if (scratch == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    int st;
    Py_BEGIN_ALLOW_THREADS
    st = buf_reserve(&out, 2 * view.len + 64) < 0 ? ST_NOMEM : ST_OK; /* lines are about twice the COPY text */
    if (st == ST_OK)
        st = convert((const char *)view.buf, view.len, &pl, &out, scratch, scratch + view.len + 1);
    Py_END_ALLOW_THREADS
    if (st == ST_NOMEM)
        PyErr_NoMemory();
    else if (st == ST_UNSUPPORTED)
        result = Py_NewRef(Py_None);
    else
        result = PyBytes_FromStringAndSize(out.p, out.len);
done:
    buf_free(&out);
    PyMem_Free(scratch);
    free_plan(&pl);
    PyBuffer_Release(&view);
    return result;
}

static PyObject *copy_binary_to_jsonl(PyObject *self, PyObject *pyargs)
{
    (void)self;
    Py_buffer view;
    PyObject *keys, *kinds, *args, *decoders;
    if (!PyArg_ParseTuple(pyargs, "y*O!O!O!O!:copy_binary_to_jsonl", &view, &PyTuple_Type, &keys, &PyTuple_Type,
                          &kinds, &PyTuple_Type, &args, &PyTuple_Type, &decoders))
        return NULL;
    PyObject *result = NULL;
    BinPlan bp = {{0, NULL, NULL, NULL, NULL}, NULL};
    char *scratch = NULL;
    Buf out = {NULL, 0, 0};
    if (parse_plan(keys, kinds, args, &bp.pl) < 0)
        goto done;
    if (PyTuple_GET_SIZE(decoders) != bp.pl.ncols) {
        PyErr_SetString(PyExc_ValueError, "decoders must be a tuple as long as keys");
        goto done;
    }
    bp.decoders = PyMem_Malloc(sizeof(int) * (size_t)bp.pl.ncols);
    if (bp.decoders == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t c = 0; c < bp.pl.ncols; c++) {
        long d = PyLong_AsLong(PyTuple_GET_ITEM(decoders, c));
        if (d == -1 && PyErr_Occurred())
            goto done;
        int kind = bp.pl.kinds[c];
        /* the pairs the converter is written for (the json scratch holds a text or jsonb value's bytes) */
        if (d < 0 || d >= D_COUNT || (d == D_BYTEA && kind != K_BINARY) ||
            (d == D_NUMERIC && kind != K_QUOTED && kind != K_RAW) ||
            (kind == K_JSON && d != D_TEXT && d != D_JSONB)) {
            PyErr_SetString(PyExc_ValueError, "unknown decoder, or a decoder and kind that do not go together");
            goto done;
        }
        bp.decoders[c] = (int)d;
    }
    if (view.len > (PY_SSIZE_T_MAX - 256) / 2) {
        PyErr_NoMemory();
        goto done;
    }
    scratch = PyMem_Malloc((size_t)(2 * view.len + 256));
    if (scratch == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    int st;
    Py_BEGIN_ALLOW_THREADS
    st = buf_reserve(&out, 2 * view.len + 64) < 0 ? ST_NOMEM : ST_OK;
    if (st == ST_OK)
        st = convert_binary((const unsigned char *)view.buf, view.len, &bp, &out, scratch, scratch + view.len + 128);
    Py_END_ALLOW_THREADS
    if (st == ST_NOMEM)
        PyErr_NoMemory();
    else if (st == ST_UNSUPPORTED)
        result = Py_NewRef(Py_None);
    else
        result = PyBytes_FromStringAndSize(out.p, out.len);
done:
    buf_free(&out);
    PyMem_Free(scratch);
    PyMem_Free(bp.decoders);
    free_plan(&bp.pl);
    PyBuffer_Release(&view);
    return result;
}

static PyMethodDef methods[] = {
    {"copy_to_jsonl", copy_to_jsonl, METH_VARARGS,
     "copy_to_jsonl(block, keys, kinds, args) -> bytes | None: PostgreSQL COPY text rows to canonical "
     "JSON lines (None: a value it does not handle exactly; use the Python path)."},
    {"copy_binary_to_jsonl", copy_binary_to_jsonl, METH_VARARGS,
     "copy_binary_to_jsonl(block, keys, kinds, args, decoders) -> bytes | None: PostgreSQL binary COPY "
     "tuples (header stripped) to canonical JSON lines (None: use the Python path)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "dbjson._cpgexport",
                                    "PostgreSQL COPY text rows to dbjson JSON lines.", -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__cpgexport(void)
{
    PyObject *mod = PyModule_Create(&module);
    if (mod == NULL)
        return NULL;
    static const ModuleConst constants[] = {KINDS(CONST_ENTRY) DECODERS(CONST_ENTRY){NULL, 0}};
    if (add_constants(mod, constants) < 0) {
        Py_DECREF(mod);
        return NULL;
    }
    return mod;
}
