/*
 * dbjson._cmyexport: MySQL / MariaDB text-protocol result rows -> canonical JSON lines.
 *
 * The Python side (dbjson/engines/mysql/export.py, MySQLExport._stream_c) sends a plain
 * "SELECT col, col, ... FROM t" through PyMySQL, lets PyMySQL read the column count and column
 * definitions, then feeds the raw bytes that follow (read from the connection's buffered socket
 * file) to rows_to_jsonl(). This function consumes complete MySQL packets only:
 *
 *   packet   = 3-byte little-endian payload length, 1-byte sequence id, payload; a payload of
 *              0xFFFFFF bytes continues in the next packet (values >= 16 MB)
 *   row      = one length-encoded string per column (0xFB = NULL)
 *   end      = EOF packet (0xFE, payload < 9 bytes), or with CLIENT_DEPRECATE_EOF an OK packet
 *              starting with 0xFE; ERR packet (0xFF) returned to Python, which raises it
 *
 * and writes, per row, exactly the bytes that the server-side expressions of
 * MySQLExport.json_expression / line_expression produce (which are the codec's canonical lines,
 * docs/data-format.md), one kind per column:
 *
 *   K_NUMBER    integer (<= 32 bits), year: ``(col + 0)``: leading zeros dropped
 *   K_BOOL      the SELECT sends CASE col WHEN 0 THEN 0 WHEN 1 THEN 1 ELSE 2 END: false / true,
 *               2 -> status BAD (Python raises the DataError of the server path)
 *   K_QUOTED    bigint, decimal, uuid, inet, date, time: ``CONCAT('"', col, '"')``
 *   K_STRING    char, varchar, text, enum: JSON_QUOTE with orjson's escapes
 *   K_BINARY    binary, varbinary, blob: base64 (RFC 4648, padded, no line breaks)
 *   K_BIT       bit(n), arg n: ``LPAD(BIN(col + 0), n, '0')`` quoted
 *   K_TIMESTAMP arg 1 = with time zone: ``REPLACE(col, ' ', 'T')`` quoted, plus Z
 *   K_SET       simple labels only: ``["a","b"]``, ``[]``
 *   K_JSON      whitespace outside strings removed (the REGEXP_REPLACE of _JSON_WS) plus the
 *               ``$json`` wrapping of _json_wrapped: arg 0 (MySQL, whose JSON text is
 *               normalised) detects the single ``"$json"`` key here; arg 1 (MariaDB) reads the
 *               server-computed flag in the next result column
 *   K_DOUBLE    _double_json on MySQL's text of the double
 *   K_GEOMETRY  MySQL's SRID + WKB -> upper-case hex EWKB, as json_expression's HEX/SUBSTR
 *               expression (SRID 0: the WKB; else the SRID flag set in the type's high byte)
 *
 * The K_* kinds and the ST_* statuses of the result are the module's constants.
 *
 * Anything this code cannot convert exactly (a text it does not expect) makes the call return
 * status UNSUPPORTED; malformed packets raise ValueError. It never reads or writes out of bounds
 * on any input (every length is checked against the bytes present). The byte loops run without
 * the GIL.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "common/buf.h"
#include "common/constants.h"
#include "common/text.h"

/* the column kinds (above) */
#define KINDS(X)                                                                                  \
    X(K_NUMBER) X(K_BOOL) X(K_QUOTED) X(K_STRING) X(K_BINARY) X(K_BIT) X(K_TIMESTAMP) X(K_SET) X(K_JSON) \
    X(K_DOUBLE) X(K_GEOMETRY)
enum { KINDS(CONST_ENUM) K_COUNT };
/* the status of a call (rows_to_jsonl_doc) */
#define STATUSES(X) X(ST_MORE) X(ST_END) X(ST_ERR) X(ST_BAD) X(ST_UNSUPPORTED)
enum { STATUSES(CONST_ENUM) };
/* protocol errors (raised as ValueError / MemoryError) */
enum { PE_NONE = 0, PE_SEQ, PE_ROW, PE_NOMEM };

#define MAX_PACKET 0xFFFFFFu

typedef struct {
    const char *key;
    Py_ssize_t key_len;
    int kind;
    long arg;
} colspec;

typedef struct {
    const unsigned char *p;
    Py_ssize_t len; /* -1: NULL */
} value;

/* ---------------------------------------------------------------- packets */

/* One logical packet at buf[pos:]: complete (1), incomplete (0, *need = bytes wanted from pos),
 * or a protocol error (-1, *perr). On 1: *payload_len (sum of the parts), *parts, *end (offset
 * after the last part), *seq advanced past its packets. */
static int packet_at(const unsigned char *buf, Py_ssize_t size, Py_ssize_t pos, int *seq,
                     Py_ssize_t *payload_len, Py_ssize_t *parts, Py_ssize_t *end, Py_ssize_t *need, int *perr)
{
    Py_ssize_t p = pos, total = 0, n = 0;
    int s = *seq;
    for (;;) {
        if (size - p < 4) {
            *need = p - pos + 4;
            return 0;
        }
        uint32_t len = (uint32_t)buf[p] | ((uint32_t)buf[p + 1] << 8) | ((uint32_t)buf[p + 2] << 16);
        if (buf[p + 3] != (unsigned char)s) {
            *perr = PE_SEQ;
            return -1;
        }
        if (size - p - 4 < (Py_ssize_t)len) {
            *need = p - pos + 4 + (Py_ssize_t)len;
            return 0;
        }
        s = (s + 1) & 0xFF;
        p += 4 + (Py_ssize_t)len;
        total += (Py_ssize_t)len;
        n++;
        if (len < MAX_PACKET)
            break;
    }
    *seq = s;
    *payload_len = total;
    *parts = n;
    *end = p;
    return 1;
}

/* The payload of a complete logical packet: in place for one part, else joined into *tmp. */
static const unsigned char *payload_of(const unsigned char *buf, Py_ssize_t pos, Py_ssize_t total, Py_ssize_t parts,
                                       unsigned char **tmp)
{
    if (parts == 1)
        return buf + pos + 4;
    unsigned char *j = malloc(total > 0 ? (size_t)total : 1);
    if (j == NULL)
        return NULL;
    Py_ssize_t p = pos, w = 0;
    for (Py_ssize_t i = 0; i < parts; i++) {
        Py_ssize_t len = (Py_ssize_t)buf[p] | ((Py_ssize_t)buf[p + 1] << 8) | ((Py_ssize_t)buf[p + 2] << 16);
        memcpy(j + w, buf + p + 4, (size_t)len);
        w += len;
        p += 4 + len;
    }
    *tmp = j;
    return j;
}

static int is_end_packet(const unsigned char *pl, Py_ssize_t len, int deprecate_eof)
{
    if (len < 1 || pl[0] != 0xFE)
        return 0;
    return deprecate_eof ? len < (Py_ssize_t)MAX_PACKET : len < 9;
}

/* The server status of an EOF packet (FE, warnings:2, status:2) or an OK packet (FE, affected rows
 * and insert id as length-encoded integers, status:2); 0 when absent. */
static int lenenc_int(const unsigned char *p, Py_ssize_t len, Py_ssize_t *i, uint64_t *v);
static long end_status(const unsigned char *pl, Py_ssize_t len, int deprecate_eof)
{
    if (!deprecate_eof)
        return len >= 5 ? (long)(pl[3] | (pl[4] << 8)) : 0;
    Py_ssize_t i = 1;
    uint64_t v;
    if (lenenc_int(pl, len, &i, &v) < 0 || lenenc_int(pl, len, &i, &v) < 0 || len - i < 2)
        return 0;
    return (long)(pl[i] | (pl[i + 1] << 8));
}

/* A length-encoded integer at p[*i]: 0 ok, -1 truncated or 0xFF. 0xFB (NULL) is the caller's. */
static int lenenc_int(const unsigned char *p, Py_ssize_t len, Py_ssize_t *i, uint64_t *v)
{
    if (*i >= len)
        return -1;
    unsigned char c = p[*i];
    int nb;
    if (c < 0xFB) {
        *v = c;
        *i += 1;
        return 0;
    }
    if (c == 0xFC)
        nb = 2;
    else if (c == 0xFD)
        nb = 3;
    else if (c == 0xFE)
        nb = 8;
    else
        return -1;
    if (len - *i - 1 < nb)
        return -1;
    uint64_t r = 0;
    for (int k = nb; k >= 1; k--)
        r = (r << 8) | p[*i + k];
    *v = r;
    *i += 1 + nb;
    return 0;
}

/* Split a row payload into exactly n values: 0 ok, -1 malformed. */
static int split_row(const unsigned char *pl, Py_ssize_t len, value *vals, Py_ssize_t n)
{
    Py_ssize_t i = 0;
    for (Py_ssize_t c = 0; c < n; c++) {
        if (i >= len)
            return -1;
        if (pl[i] == 0xFB) {
            vals[c].p = NULL;
            vals[c].len = -1;
            i++;
            continue;
        }
        uint64_t v;
        if (lenenc_int(pl, len, &i, &v) < 0 || v > (uint64_t)(len - i))
            return -1;
        vals[c].p = pl + i;
        vals[c].len = (Py_ssize_t)v;
        i += (Py_ssize_t)v;
    }
    return i == len ? 0 : -1;
}

/* ---------------------------------------------------------------- kinds */

static int conv_number(Buf *o, const unsigned char *s, Py_ssize_t n)
{
    Py_ssize_t i = 0;
    if (n > 0 && s[0] == '-') {
        buf_putc_unchecked(o, '-');
        i = 1;
    }
    if (i >= n)
        return -1;
    for (Py_ssize_t k = i; k < n; k++)
        if (!is_digit(s[k]))
            return -1;
    while (i < n - 1 && s[i] == '0')
        i++;
    if (s[0] == '-' && n - i == 1 && s[i] == '0')
        return -1; /* "-0" is no integer MySQL sends */
    buf_put_unchecked(o, s + i, n - i);
    return 0;
}

static void conv_string(Buf *o, const unsigned char *s, Py_ssize_t n)
{
    o->len = json_quote(o->p + o->len, s, n) - o->p;
}

static void conv_base64(Buf *o, const unsigned char *s, Py_ssize_t n)
{
    buf_putc_unchecked(o, '"');
    char *w = o->p + o->len;
    Py_ssize_t i = 0;
    for (; n - i >= 3; i += 3)
        w = b64_quad(w, ((uint32_t)s[i] << 16) | ((uint32_t)s[i + 1] << 8) | s[i + 2], 3);
    if (n - i == 1)
        w = b64_quad(w, (uint32_t)s[i] << 16, 1);
    else if (n - i == 2)
        w = b64_quad(w, ((uint32_t)s[i] << 16) | ((uint32_t)s[i + 1] << 8), 2);
    o->len = w - o->p;
    buf_putc_unchecked(o, '"');
}

/* The n low bits of the big-endian integer s, most significant first; a set bit above them (LPAD
 * would cut the digits) has no exact form here: -1. */
static int conv_bit(Buf *o, const unsigned char *s, Py_ssize_t n, long bits)
{
    for (Py_ssize_t j = 0; j < n; j++) { /* j: byte index from the least significant end */
        unsigned char byte = s[n - 1 - j];
        if (j >= 8 || (long)j * 8 >= bits) {
            if (byte)
                return -1;
        } else if ((long)j * 8 + 8 > bits && (byte >> (bits - (long)j * 8)))
            return -1;
    }
    buf_putc_unchecked(o, '"');
    for (long b = bits - 1; b >= 0; b--) {
        Py_ssize_t j = (Py_ssize_t)(b / 8);
        int bit = j < n ? (s[n - 1 - j] >> (b % 8)) & 1 : 0;
        buf_putc_unchecked(o, bit ? '1' : '0');
    }
    buf_putc_unchecked(o, '"');
    return 0;
}

static void conv_timestamp(Buf *o, const unsigned char *s, Py_ssize_t n, long tz)
{
    buf_putc_unchecked(o, '"');
    Py_ssize_t start = o->len;
    buf_put_unchecked(o, s, n);
    for (Py_ssize_t i = start; i < o->len; i++)
        if (o->p[i] == ' ')
            o->p[i] = 'T';
    if (tz)
        buf_putc_unchecked(o, 'Z');
    buf_putc_unchecked(o, '"');
}

static void conv_set(Buf *o, const unsigned char *s, Py_ssize_t n)
{
    buf_putc_unchecked(o, '[');
    if (n > 0) {
        buf_putc_unchecked(o, '"');
        for (Py_ssize_t i = 0; i < n; i++) {
            if (s[i] == ',')
                buf_put_unchecked(o, "\",\"", 3);
            else
                buf_putc_unchecked(o, (char)s[i]);
        }
        buf_putc_unchecked(o, '"');
    }
    buf_putc_unchecked(o, ']');
}

/* REGEXP_REPLACE(text, '("(?:[^"\\]++|\\.)*+")|[ \t\n\r]+', '\1'): strings kept, whitespace
 * outside them dropped. A backslash followed by anything but a JSON escape letter: -1 (the regex
 * engines' "." differ on line terminators; valid JSON never has it). */
static int json_compact(Buf *o, const unsigned char *s, Py_ssize_t n)
{
    char *d = o->p + o->len; /* the output never outgrows the input (room reserved by the caller) */
    Py_ssize_t i = 0;
    while (i < n) {
        unsigned char c = s[i];
        if (c != '"') { /* written, and kept unless it is whitespace */
            *d = (char)c; /* ' ', '\t', '\n', '\r': bits 32, 9, 10, 13 */
            d += 1 - (Py_ssize_t)((UINT64_C(0x100002600) >> (c & 63)) & (c <= ' '));
            i++;
            continue;
        }
        Py_ssize_t j = i + 1;
        for (;;) {
            j = next_quote_or_backslash(s, j, n);
            if (j >= n || s[j] == '"')
                break;
            /* a backslash */
            if (j + 1 >= n || !strchr("\"\\/bfnrtu", s[j + 1]) || s[j + 1] == 0)
                return -1;
            j += 2;
        }
        if (j >= n) { /* no closing quote: the string alternative fails, '"' is copied */
            *d++ = '"';
            i++;
            continue;
        }
        /* the string with its quotes; strings are short: 8 bytes at a time, the last word past
         * the string's end when the input has those bytes (the output has room: it trails the
         * input by the whitespace dropped, and the caller reserved n + 64) */
        Py_ssize_t len = j + 1 - i;
        if (j + 8 <= n) {
            for (Py_ssize_t k = 0; k < len; k += 8)
                memcpy(d + k, s + i + k, 8);
        } else
            memcpy(d, s + i, (size_t)len);
        d += len;
        i = j + 1;
    }
    o->len = d - o->p;
    return 0;
}

/* Does the compact JSON text t (an object) have exactly one member, named "$json" as written? */
static int single_json_key(const char *t, Py_ssize_t n)
{
    static const char head[] = "{\"$json\":";
    if (n < 10 || memcmp(t, head, 9) != 0)
        return 0;
    int depth = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        char c = t[i];
        if (c == '"') {
            for (i++; i < n && t[i] != '"'; i++)
                if (t[i] == '\\')
                    i++;
            if (i >= n)
                return 0;
            continue;
        }
        if (c == '{' || c == '[')
            depth++;
        else if (c == '}' || c == ']')
            depth--;
        else if (c == ',' && depth == 1)
            return 0;
        if (depth <= 0)
            return i == n - 1 && c == '}';
    }
    return 0;
}

/* flag: -1 = decide here (MySQL), 0/1 = the server's $json test (MariaDB). */
static int conv_json(Buf *o, const unsigned char *s, Py_ssize_t n, int flag)
{
    static const char wrap[] = "{\"$json\":";
    Py_ssize_t start = o->len;
    if (json_compact(o, s, n) < 0)
        return -1;
    char *t = o->p + start;
    Py_ssize_t tn = o->len - start;
    int w = (tn == 4 && memcmp(t, "null", 4) == 0) ||
            (flag >= 0 ? flag : (tn > 0 && t[0] == '{' && single_json_key(t, tn)));
    if (w) { /* rare: moved behind the wrapping (the bound has room for its 10 bytes) */
        memmove(t + 9, t, (size_t)tn);
        memcpy(t, wrap, 9);
        o->len = start + 9 + tn;
        buf_putc_unchecked(o, '}');
    }
    return 0;
}

/* _double_json on the server's text of a DOUBLE: [-]d+[.d+][e[+-]d+]. */
static int conv_double(Buf *o, const unsigned char *s, Py_ssize_t n)
{
    Py_ssize_t i = 0;
    int neg = 0;
    if (i < n && s[i] == '-') {
        neg = 1;
        i++;
    }
    Py_ssize_t ip = i;
    while (i < n && is_digit(s[i]))
        i++;
    Py_ssize_t ilen = i - ip, fp = i, flen = 0;
    if (ilen == 0)
        return -1;
    if (i < n && s[i] == '.') {
        fp = ++i;
        while (i < n && is_digit(s[i]))
            i++;
        flen = i - fp;
        if (flen == 0)
            return -1;
    }
    long exp = 0;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        if (s[i] == 'E')
            return -1;
        i++;
        int eneg = 0;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            eneg = s[i++] == '-';
        Py_ssize_t ep = i;
        while (i < n && is_digit(s[i]) && i - ep < 6)
            exp = exp * 10 + (s[i++] - '0');
        if (i == ep)
            return -1;
        if (eneg)
            exp = -exp;
    }
    if (i != n || ilen + flen > 40)
        return -1;
    /* all digits, leading zeros counted, then stripped */
    char all[48];
    Py_ssize_t an = 0;
    memcpy(all, s + ip, (size_t)ilen);
    an = ilen;
    memcpy(all + an, s + fp, (size_t)flen);
    an += flen;
    Py_ssize_t lead = 0;
    while (lead < an && all[lead] == '0')
        lead++;
    if (lead == an) { /* q = 0 */
        buf_put_unchecked(o, neg ? "-0.0" : "0.0", neg ? 4 : 3);
        return 0;
    }
    Py_ssize_t dn = an;
    while (all[dn - 1] == '0')
        dn--;
    const char *d = all + lead;
    dn -= lead;
    long k = (long)ilen - 1 - (long)lead + exp; /* value = d.ddd * 10^k */
    if (neg)
        buf_putc_unchecked(o, '-');
    if (k >= -5 && k < 16) {
        if (k >= 0) {
            for (long p = 0; p <= k; p++)
                buf_putc_unchecked(o, p < dn ? d[p] : '0');
            buf_putc_unchecked(o, '.');
            if (dn > k + 1)
                buf_put_unchecked(o, d + k + 1, dn - (k + 1));
            else
                buf_putc_unchecked(o, '0');
        } else {
            buf_put_unchecked(o, "0.", 2);
            for (long p = 0; p < -k - 1; p++)
                buf_putc_unchecked(o, '0');
            buf_put_unchecked(o, d, dn);
        }
        return 0;
    }
    buf_putc_unchecked(o, d[0]);
    if (dn > 1) {
        buf_putc_unchecked(o, '.');
        buf_put_unchecked(o, d + 1, dn - 1);
    }
    char e[24];
    int en = snprintf(e, sizeof e, "e%c%ld", k < 0 ? '-' : '+', k < 0 ? -k : k);
    buf_put_unchecked(o, e, en);
    return 0;
}

static void put_hex(Buf *o, const unsigned char *s, Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < n; i++) {
        buf_putc_unchecked(o, hex_upper(s[i] >> 4));
        buf_putc_unchecked(o, hex_upper(s[i]));
    }
}

static int conv_geometry(Buf *o, const unsigned char *s, Py_ssize_t n)
{
    if (n < 9)
        return -1;
    buf_putc_unchecked(o, '"');
    if (s[0] == 0 && s[1] == 0 && s[2] == 0 && s[3] == 0) {
        put_hex(o, s + 4, n - 4);
    } else {
        unsigned char t = s[8] | 0x20;
        put_hex(o, s + 4, 4);
        put_hex(o, &t, 1);
        put_hex(o, s, 4);
        put_hex(o, s + 9, n - 9);
    }
    buf_putc_unchecked(o, '"');
    return 0;
}

/* Upper bound of the output for one value. */
static Py_ssize_t bound(int kind, long arg, Py_ssize_t n)
{
    if (n < 0)
        return 4;
    if (n > PY_SSIZE_T_MAX / 8)
        return PY_SSIZE_T_MAX / 2; /* out_reserve then fails */
    switch (kind) {
    case K_STRING: return 6 * n + 2;
    case K_BINARY: return 4 * (n / 3 + 1) + 2;
    case K_BIT: return arg + 2;
    case K_SET: return 3 * n + 4;
    case K_GEOMETRY: return 2 * n + 4;
    default: return n + 64;
    }
}

/* One row: 0 ok, 1 bad boolean, 2 unsupported (*badcol, *badval set), -1 no memory. */
static int convert_row(Buf *o, const colspec *cols, Py_ssize_t ncols, const value *vals, Py_ssize_t *badcol,
                       value *badval)
{
    Py_ssize_t need = 2, v = 0;
    for (Py_ssize_t c = 0; c < ncols; c++) {
        need += cols[c].key_len + bound(cols[c].kind, cols[c].arg, vals[v].len);
        v += (cols[c].kind == K_JSON && cols[c].arg == 1) ? 2 : 1;
    }
    if (buf_reserve(o, need) < 0)
        return -1;
    Py_ssize_t row_start = o->len;
    v = 0;
    for (Py_ssize_t c = 0; c < ncols; c++) {
        const colspec *cs = &cols[c];
        const value *x = &vals[v++];
        int flag = -1;
        if (cs->kind == K_JSON && cs->arg == 1) {
            const value *f = &vals[v++];
            flag = f->len == 1 && f->p[0] == '1';
        }
        buf_put_unchecked(o, cs->key, cs->key_len);
        if (x->len < 0) {
            buf_put_unchecked(o, "null", 4);
            continue;
        }
        int r = 0;
        switch (cs->kind) {
        case K_NUMBER: r = conv_number(o, x->p, x->len); break;
        case K_BOOL:
            if (x->len == 1 && (x->p[0] == '0' || x->p[0] == '1'))
                buf_put_unchecked(o, x->p[0] == '1' ? "true" : "false", x->p[0] == '1' ? 4 : 5);
            else {
                *badcol = c;
                *badval = *x;
                o->len = row_start;
                return 1;
            }
            break;
        case K_QUOTED:
            buf_putc_unchecked(o, '"');
            buf_put_unchecked(o, x->p, x->len);
            buf_putc_unchecked(o, '"');
            break;
        case K_STRING: conv_string(o, x->p, x->len); break;
        case K_BINARY: conv_base64(o, x->p, x->len); break;
        case K_BIT: r = conv_bit(o, x->p, x->len, cs->arg); break;
        case K_TIMESTAMP: conv_timestamp(o, x->p, x->len, cs->arg); break;
        case K_SET: conv_set(o, x->p, x->len); break;
        case K_JSON: r = conv_json(o, x->p, x->len, flag); break;
        case K_DOUBLE: r = conv_double(o, x->p, x->len); break;
        case K_GEOMETRY: r = conv_geometry(o, x->p, x->len); break;
        default: r = -1;
        }
        if (r < 0) {
            *badcol = c;
            *badval = *x;
            o->len = row_start;
            return 2;
        }
    }
    buf_put_unchecked(o, "}\n", 2);
    return 0;
}

/* ---------------------------------------------------------------- the loop */

typedef struct {
    const unsigned char *buf;
    Py_ssize_t size, pos;
    int seq, deprecate_eof;
    const colspec *cols; /* NULL: skip rows (drain) */
    Py_ssize_t ncols, nvals;
    value *vals;
    Buf out;
    /* results */
    int status, perr;
    Py_ssize_t need, rows, badcol;
    long server_status;
    Py_ssize_t info_off, info_len; /* ERR payload, or the bad value, as offsets into info_tmp/buf */
    unsigned char *info_tmp;
} run_t;

static void run(run_t *r)
{
    r->status = ST_MORE;
    r->need = 0;
    for (;;) {
        Py_ssize_t total, parts, end, need = 0;
        int seq = r->seq;
        int k = packet_at(r->buf, r->size, r->pos, &seq, &total, &parts, &end, &need, &r->perr);
        if (k < 0)
            return;
        if (k == 0) {
            r->need = need;
            return;
        }
        unsigned char *tmp = NULL;
        const unsigned char *pl = payload_of(r->buf, r->pos, total, parts, &tmp);
        if (pl == NULL) {
            r->perr = PE_NOMEM;
            return;
        }
        if (total >= 1 && pl[0] == 0xFF) {
            r->status = ST_ERR;
            r->info_tmp = malloc(total > 0 ? (size_t)total : 1);
            if (r->info_tmp == NULL) {
                free(tmp);
                r->perr = PE_NOMEM;
                return;
            }
            memcpy(r->info_tmp, pl, (size_t)total);
            r->info_off = 0;
            r->info_len = total;
            free(tmp);
            r->seq = seq;
            r->pos = end;
            return;
        }
        if (is_end_packet(pl, total, r->deprecate_eof)) {
            r->server_status = end_status(pl, total, r->deprecate_eof);
            free(tmp);
            r->status = ST_END;
            r->seq = seq;
            r->pos = end;
            return;
        }
        if (r->cols != NULL) {
            if (split_row(pl, total, r->vals, r->nvals) < 0) {
                free(tmp);
                r->perr = PE_ROW;
                return;
            }
            Py_ssize_t bc = 0;
            value bv = {NULL, 0};
            int c = convert_row(&r->out, r->cols, r->ncols, r->vals, &bc, &bv);
            if (c < 0) {
                free(tmp);
                r->perr = PE_NOMEM;
                return;
            }
            if (c > 0) { /* the row stays unconsumed */
                r->status = c == 1 ? ST_BAD : ST_UNSUPPORTED;
                r->badcol = bc;
                r->info_len = bv.len < 0 ? 0 : bv.len;
                r->info_tmp = malloc(r->info_len > 0 ? (size_t)r->info_len : 1);
                if (r->info_tmp == NULL)
                    r->perr = PE_NOMEM;
                else if (r->info_len > 0)
                    memcpy(r->info_tmp, bv.p, (size_t)r->info_len);
                r->info_off = 0;
                free(tmp);
                return;
            }
        }
        free(tmp);
        r->rows++;
        r->seq = seq;
        r->pos = end;
    }
}

static PyObject *finish(run_t *r)
{
    PyObject *res = NULL;
    if (r->perr != PE_NONE) {
        if (r->perr == PE_NOMEM)
            PyErr_NoMemory();
        else
            PyErr_SetString(PyExc_ValueError, r->perr == PE_SEQ ? "packet sequence number wrong"
                                                                 : "malformed result row");
        goto done;
    }
    PyObject *info;
    if (r->status == ST_MORE)
        info = PyLong_FromSsize_t(r->need);
    else if (r->status == ST_END)
        info = PyLong_FromLong(r->server_status);
    else if (r->status == ST_ERR)
        info = PyBytes_FromStringAndSize((const char *)r->info_tmp, r->info_len);
    else
        info = Py_BuildValue("(ny#)", r->badcol, (const char *)r->info_tmp, r->info_len);
    if (info == NULL)
        goto done;
    res = Py_BuildValue("(y#niiNn)", r->out.p ? r->out.p : "", r->out.len, r->pos, r->seq, r->status, info, r->rows);
done:
    buf_free(&r->out);
    free(r->info_tmp);
    free(r->vals);
    return res;
}

/* A run over view[pos:] (no columns: skip_rows; rows_to_jsonl sets them). */
static void run_init(run_t *r, const Py_buffer *view, Py_ssize_t pos, int seq, int deprecate_eof)
{
    memset(r, 0, sizeof *r);
    r->buf = view->buf;
    r->size = view->len;
    r->pos = pos;
    r->seq = seq;
    r->deprecate_eof = deprecate_eof;
}

/* The loop without the GIL, then the view released and the result tuple built. */
static PyObject *run_and_finish(run_t *r, Py_buffer *view)
{
    Py_BEGIN_ALLOW_THREADS
    run(r);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(view);
    return finish(r);
}

static int get_buffer(PyObject *obj, Py_ssize_t pos, Py_buffer *view)
{
    if (PyObject_GetBuffer(obj, view, PyBUF_SIMPLE) < 0)
        return -1;
    if (pos < 0 || pos > view->len) {
        PyBuffer_Release(view);
        PyErr_SetString(PyExc_ValueError, "pos out of range");
        return -1;
    }
    return 0;
}

PyDoc_STRVAR(rows_to_jsonl_doc,
"rows_to_jsonl(buf, pos, seq, keys, kinds, args, deprecate_eof) -> (out, pos, seq, status, info, rows)\n\n"
"Convert the complete row packets in buf[pos:] (text protocol) into canonical JSON lines.\n"
"keys: bytes per output column ('{\"name\":' then ',\"name\":'); kinds/args: ints per column.\n"
"status 0: more bytes needed (info: bytes wanted from pos); 1: end of rows (info: server status);\n"
"2: ERR packet (info: its payload); 3: a boolean value other than 0/1 and 4: a value this code\n"
"cannot convert exactly (info: (column index, value)); pos is then at the start of that row.");

static PyObject *rows_to_jsonl(PyObject *self, PyObject *a)
{
    PyObject *bufobj, *keys, *kinds, *args;
    Py_ssize_t pos;
    int seq, deprecate_eof;
    if (!PyArg_ParseTuple(a, "OniO!O!O!p", &bufobj, &pos, &seq, &PyTuple_Type, &keys, &PyTuple_Type, &kinds,
                          &PyTuple_Type, &args, &deprecate_eof))
        return NULL;
    Py_ssize_t ncols = PyTuple_GET_SIZE(keys);
    if (ncols < 1 || PyTuple_GET_SIZE(kinds) != ncols || PyTuple_GET_SIZE(args) != ncols || seq < 0 || seq > 255) {
        PyErr_SetString(PyExc_ValueError, "keys, kinds and args must be non-empty tuples of one length; seq 0..255");
        return NULL;
    }
    colspec *cols = PyMem_Calloc((size_t)ncols, sizeof *cols);
    if (cols == NULL)
        return PyErr_NoMemory();
    Py_ssize_t nvals = 0;
    for (Py_ssize_t c = 0; c < ncols; c++) {
        PyObject *key = PyTuple_GET_ITEM(keys, c);
        if (!PyBytes_Check(key)) {
            PyErr_SetString(PyExc_TypeError, "keys must be bytes");
            goto fail;
        }
        cols[c].key = PyBytes_AS_STRING(key);
        cols[c].key_len = PyBytes_GET_SIZE(key);
        long kind = PyLong_AsLong(PyTuple_GET_ITEM(kinds, c));
        long arg = PyLong_AsLong(PyTuple_GET_ITEM(args, c));
        if (PyErr_Occurred())
            goto fail;
        if (kind < 0 || kind >= K_COUNT || (kind == K_BIT && (arg < 1 || arg > 64)) ||
            (kind == K_JSON && arg != 0 && arg != 1) || cols[c].key_len > (1 << 20)) {
            PyErr_SetString(PyExc_ValueError, "bad column kind or argument");
            goto fail;
        }
        cols[c].kind = (int)kind;
        cols[c].arg = arg;
        nvals += (kind == K_JSON && arg == 1) ? 2 : 1;
    }
    Py_buffer view;
    if (get_buffer(bufobj, pos, &view) < 0)
        goto fail;
    run_t r;
    run_init(&r, &view, pos, seq, deprecate_eof);
    r.cols = cols;
    r.ncols = ncols;
    r.nvals = nvals;
    r.vals = malloc((size_t)nvals * sizeof(value));
    if (r.vals == NULL) {
        PyBuffer_Release(&view);
        PyErr_NoMemory();
        goto fail;
    }
    PyObject *res = run_and_finish(&r, &view);
    PyMem_Free(cols);
    return res;
fail:
    PyMem_Free(cols);
    return NULL;
}

PyDoc_STRVAR(skip_rows_doc,
"skip_rows(buf, pos, seq, deprecate_eof) -> (b'', pos, seq, status, info, rows)\n\n"
"Walk the row packets in buf[pos:] without converting them (draining a result after an error).");

static PyObject *skip_rows(PyObject *self, PyObject *a)
{
    PyObject *bufobj;
    Py_ssize_t pos;
    int seq, deprecate_eof;
    if (!PyArg_ParseTuple(a, "Onip", &bufobj, &pos, &seq, &deprecate_eof))
        return NULL;
    if (seq < 0 || seq > 255) {
        PyErr_SetString(PyExc_ValueError, "seq 0..255");
        return NULL;
    }
    Py_buffer view;
    if (get_buffer(bufobj, pos, &view) < 0)
        return NULL;
    run_t r;
    run_init(&r, &view, pos, seq, deprecate_eof);
    return run_and_finish(&r, &view);
}

static PyMethodDef methods[] = {
    {"rows_to_jsonl", rows_to_jsonl, METH_VARARGS, rows_to_jsonl_doc},
    {"skip_rows", skip_rows, METH_VARARGS, skip_rows_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "dbjson._cmyexport",
    "MySQL/MariaDB text-protocol rows -> canonical JSON lines (see the C source's header).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__cmyexport(void)
{
    PyObject *mod = PyModule_Create(&module);
    if (mod == NULL)
        return NULL;
    static const ModuleConst constants[] = {KINDS(CONST_ENTRY) STATUSES(CONST_ENTRY) {NULL, 0}};
    if (add_constants(mod, constants) < 0) {
        Py_DECREF(mod);
        return NULL;
    }
    return mod;
}
