/* lex.c: PTX tokens, produced on demand (PTX ISA 9.0 §4: syntax).
 *
 * Identifiers are [a-zA-Z][a-zA-Z0-9_$]* or [_$%][a-zA-Z0-9_$]+ (§4.4); a
 * dot token is "." followed by the characters of a directive or modifier,
 * including "::" scopes (.shared::cta, .L2::cache_hint) and leading digits
 * (.2d). Integers are decimal, hex 0x, octal 0, binary 0b, with an optional
 * U suffix; floats are 0f + 8 hex digits (f32 bits), 0d + 16 hex digits (f64
 * bits), or decimal with a point or exponent (§4.5); WARP_SZ is the integer
 * 32 (§4.5: predefined identifier). Comments are // and
 * slash-star as in C; preprocessor line markers (# N "file") are skipped.
 * Tokens point into the source, so nothing is copied. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "front.h"

void lex_init(Lexer *L, Parser *P, const char *src, size_t len) {
  L->src = L->p = L->line_start = src;
  L->end = src + len;
  L->line = 1;
  L->P = P;
}

/* ASCII classes, independent of the host program's locale (isalnum() in a
 * Latin-1 locale would take byte 0xE9 into a name) and cheaper per byte. */
static bool is_digit(int c) { return (unsigned)(c - '0') < 10; }
static bool is_alpha(int c) { return (unsigned)((c | 32) - 'a') < 26; }

/* [A-Za-z0-9_$] as two 64-bit masks (the lexer's innermost test):
 * '$' and the digits in the first, the letters and '_' in the second. */
static bool is_ident_char(int c) {
  static const uint64_t ident[2] = {
    1ull << '$' | 0x3FFull << '0',
    0x3FFFFFFull << ('A' - 64) | 1ull << ('_' - 64) | 0x3FFFFFFull << ('a' - 64),
  };
  return (unsigned)c < 128 && (ident[c >> 6] >> (c & 63) & 1);
}

static uint32_t col_of(const Lexer *L, const char *p) {
  return (uint32_t)(p - L->line_start) + 1;
}

/* Is L->p preceded only by blanks on its line? */
static bool at_line_start(const Lexer *L) {
  for (const char *q = L->line_start; q < L->p; q++)
    if (*q != ' ' && *q != '\t') return false;
  return true;
}

/* A NUL byte ends ptxas's input ("Unexpected EOF"): PTX is text, and a
 * file with NULs in it is binary; refuse it where the first one is. */
static void not_nul(Lexer *L, const char *p) {
  if (!*p)
    diag_error(L->P, L->line, col_of(L, p), 1, "NUL byte: PTX is text (is this a binary file?)");
}

/* ptxas (and the driver's JIT) reject any byte outside ASCII, in comments
 * too; so do we, rather than accept a file the GPU toolchain refuses. */
static void ascii_only(Lexer *L) {
  not_nul(L, L->p);
  if ((unsigned char)*L->p >= 0x80)
    diag_error(L->P, L->line, col_of(L, L->p), 1, "non-ASCII character (byte 0x%02x); PTX is ASCII",
               (unsigned char)*L->p);
}

/* Skips white space and comments; reports whether anything was skipped. */
static bool skip_space(Lexer *L) {
  const char *start = L->p;
  while (L->p < L->end) {
    char c = *L->p;
    if (c == '\n') {
      L->p++;
      L->line++;
      L->line_start = L->p;
    } else if (c == ' ' || c == '\t' || c == '\r') {   /* ptxas rejects \f and \v */
      L->p++;
    } else if (c == '#' && at_line_start(L)) {
      /* a C preprocessor line marker (# 1 "kernel.cu"), which ptxas skips */
      while (L->p < L->end && *L->p != '\n') ascii_only(L), L->p++;
    } else if (c == '/' && L->p + 1 < L->end && L->p[1] == '/') {
      while (L->p < L->end && *L->p != '\n') ascii_only(L), L->p++;
    } else if (c == '/' && L->p + 1 < L->end && L->p[1] == '*') {
      uint32_t line = L->line, col = col_of(L, L->p);
      L->p += 2;
      for (;;) {
        if (L->p + 1 >= L->end)
          diag_error(L->P, line, col, 2, "unterminated comment");
        if (L->p[0] == '*' && L->p[1] == '/') { L->p += 2; break; }
        if (*L->p == '\n') { L->line++; L->line_start = L->p + 1; }
        ascii_only(L);
        L->p++;
      }
    } else {
      break;
    }
  }
  return L->p != start;
}

static int hexval(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* Reads digits of `base` into t->ival, reporting overflow past 64 bits. */
static const char *read_digits(Lexer *L, Token *t, const char *p, int base) {
  uint64_t v = 0;
  const char *start = p;
  for (; p < L->end; p++) {
    int d = hexval((unsigned char)*p);
    if (d < 0 || d >= base) break;
    uint64_t m, n;   /* v * base + d past 2^64 (without a division a digit) */
    bool over = __builtin_mul_overflow(v, (uint64_t)base, &m);
    over |= __builtin_add_overflow(m, (uint64_t)d, &n);
    if (over)
      diag_error(L->P, t->line, t->col, (uint32_t)(p - t->s) + 1,
                 "integer constant does not fit in 64 bits");
    v = n;
  }
  if (p == start)
    diag_error(L->P, t->line, t->col, (uint32_t)(p - t->s),
               "malformed number");
  t->ival = v;
  return p;
}

static const char *lex_float_bits(Lexer *L, Token *t, const char *p, int ndig) {
  uint64_t v = 0;
  for (int i = 0; i < ndig; i++, p++) {
    int d = p < L->end ? hexval((unsigned char)*p) : -1;
    if (d < 0)
      diag_error(L->P, t->line, t->col, (uint32_t)(p - t->s) + 1,
                 "%s literal needs exactly %d hex digits",
                 ndig == 8 ? "0f" : "0d", ndig);
    v = v << 4 | (uint64_t)d;
  }
  t->kind = TK_FLOAT;
  t->is_hex_float = true;
  t->ival = v;
  if (ndig == 8) {
    uint32_t b = (uint32_t)v;
    float f;
    memcpy(&f, &b, 4);
    t->fval = (double)f;
    t->is_f32 = true;
  } else {
    memcpy(&t->fval, &v, 8);
  }
  return p;
}

static const char *lex_number(Lexer *L, Token *t, const char *p) {
  t->kind = TK_INT;
  if (p[0] == '0' && p + 1 < L->end) {
    char c = p[1];
    if (c == 'f' || c == 'F') return lex_float_bits(L, t, p + 2, 8);
    if (c == 'd' || c == 'D') return lex_float_bits(L, t, p + 2, 16);
    if (c == 'x' || c == 'X') p = read_digits(L, t, p + 2, 16);
    else if (c == 'b' || c == 'B') p = read_digits(L, t, p + 2, 2);
    else if (is_digit((unsigned char)c) && c != '.') {
      const char *q = p + 1;
      while (q < L->end && is_digit((unsigned char)*q)) q++;
      if (q < L->end && (*q == '.' || *q == 'e' || *q == 'E')) goto decimal_float;
      p = read_digits(L, t, p + 1, 8);
    } else goto decimal;
  } else {
  decimal:;
    const char *q = p;
    while (q < L->end && is_digit((unsigned char)*q)) q++;
    if (q < L->end && (*q == '.' || *q == 'e' || *q == 'E')) goto decimal_float;
    p = read_digits(L, t, p, 10);
  }
  if (p < L->end && *p == 'U') { t->is_unsigned = true; p++; }
  if (p < L->end && is_ident_char((unsigned char)*p))
    diag_error(L->P, t->line, col_of(L, p), 1, "malformed number");
  return p;

decimal_float:;
  char *endp;
  errno = 0;
  size_t n = (size_t)(L->end - p);
  char buf[128];
  if (n > sizeof buf - 1) n = sizeof buf - 1;
  memcpy(buf, p, n);
  buf[n] = 0;
  t->fval = strtod(buf, &endp);
  t->kind = TK_FLOAT;
  p += endp - buf;
  if (isinf(t->fval))
    diag_error(L->P, t->line, t->col, (uint32_t)(p - t->s),
               "floating-point constant out of range");
  if (p < L->end && is_ident_char((unsigned char)*p))
    diag_error(L->P, t->line, col_of(L, p), 1, "malformed number");
  return p;
}

Token lex_next(Lexer *L) {
  Token t;
  memset(&t, 0, sizeof t);
  t.space_before = skip_space(L);
  const char *p = L->p;
  t.s = p;
  t.line = L->line;
  t.col = col_of(L, p);
  if (p >= L->end) {
    t.kind = TK_EOF;
    return t;
  }
  unsigned char c = (unsigned char)*p;
  if (is_alpha(c) || c == '_' || c == '$' || c == '%') {
    p++;
    while (p < L->end && is_ident_char((unsigned char)*p)) p++;
    if (p == t.s + 1 && c == '%')
      diag_error(L->P, t.line, t.col, 1, "'%%' must start a name");
    t.kind = TK_IDENT;
    if (p - t.s == 7 && !memcmp(t.s, "WARP_SZ", 7)) {   /* §4.5: the predefined constant */
      t.kind = TK_INT;
      t.ival = 32;
    }
  } else if (c == '.' && p + 1 < L->end &&
             (is_ident_char((unsigned char)p[1]))) {
    p++;
    for (;;) {
      while (p < L->end && is_ident_char((unsigned char)*p)) p++;
      if (p + 2 < L->end && p[0] == ':' && p[1] == ':' &&
          is_ident_char((unsigned char)p[2]))
        p += 2;
      else
        break;
    }
    t.kind = TK_DOT;
  } else if (is_digit(c)) {
    p = lex_number(L, &t, p);
  } else if (c == '"') {
    p++;
    while (p < L->end && *p != '"' && *p != '\n') {
      if (*p == '\\' && p + 1 < L->end && p[1] != '\n') p++;
      not_nul(L, p);
      p++;
    }
    if (p >= L->end || *p != '"')
      diag_error(L->P, t.line, t.col, 1, "unterminated string");
    p++;
    t.kind = TK_STRING;
  } else if (strchr("{}[](),;:+-!@|<>=*", c) && c) {
    p++;
    t.kind = TK_PUNCT;
  } else {
    not_nul(L, p);
    if (c >= 0x20 && c < 0x7f)
      diag_error(L->P, t.line, t.col, 1, "unexpected character '%c'", c);
    diag_error(L->P, t.line, t.col, 1, "unexpected byte 0x%02x", c);
  }
  t.len = (uint32_t)(p - t.s);
  L->p = p;
  return t;
}
