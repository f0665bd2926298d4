/* demangle.c: the Itanium C++ ABI names nvcc gives kernels, readable.
 *
 * nvcc mangles a kernel's name as the host compiler would (the Itanium C++
 * ABI, "5.1 External names"): `_Z6reducePKiPii` is
 * `reduce(int const*, int*, int)`. `ptxvm run` accepts a kernel by that
 * name (runargs.c) and `ptxvm info` prints it beside the mangled one.
 * Debian's libiberty has a complete demangler, but only as a static
 * library without a stable interface (binutils-dev), so this is ours, and
 * deliberately limited to what kernel signatures use: namespaces and
 * nested names, template arguments (types, integer and bool literals),
 * the builtin types, pointers, references, cv-qualifiers, arrays,
 * substitutions (S_, S0_, St) and template parameters (T_). Anything else
 * (function types, expressions, lambdas, ABI tags...) makes demangle()
 * return false and the caller shows the mangled name alone: a name is
 * never shown wrong, only sometimes not shown. tests/cli/test_demangle.sh
 * checks it against names nvcc produces (and c++filt, where installed). */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demangle.h"

enum { MAX_SUBS = 64, MAX_TARGS = 16, PIECE = 256 };

typedef struct D {
  const char *p;                   /* the next character of the mangled name */
  char subs[MAX_SUBS][PIECE];      /* substitution candidates, in order (S_, S0_, ...) */
  int nsubs;
  char targs[MAX_TARGS][PIECE];    /* the last template arguments (T_, T0_, ...) */
  int ntargs;
  int depth;                       /* of type(): a bound, so a hostile name cannot exhaust the stack */
  bool top;                        /* reading the function's own name: its template arguments are T_... */
  bool ok;
} D;

static void fail(D *d) { d->ok = false; }

static void cat(D *d, char *out, const char *s) {
  size_t n = strlen(out), k = strlen(s);
  if (n + k >= PIECE) { fail(d); return; }
  memcpy(out + n, s, k + 1);
}

static void add_sub(D *d, const char *s) {
  size_t n = strlen(s);
  if (d->nsubs >= MAX_SUBS || n >= PIECE) { fail(d); return; }
  memcpy(d->subs[d->nsubs++], s, n + 1);
}

/* <seq-id> _ : S_ is 0, S0_ is 1, S1_ is 2 ... (base 36, upper case) */
static int seq_id(D *d) {
  if (*d->p == '_') { d->p++; return 0; }
  int v = 0;
  while (isdigit((unsigned char)*d->p) || isupper((unsigned char)*d->p)) {
    if (v > MAX_SUBS) { fail(d); return -1; }
    v = v * 36 + (isdigit((unsigned char)*d->p) ? *d->p - '0' : *d->p - 'A' + 10);
    d->p++;
  }
  if (*d->p != '_') { fail(d); return -1; }
  d->p++;
  return v + 1;
}

static long number(D *d) {
  if (!isdigit((unsigned char)*d->p)) { fail(d); return 0; }
  long v = 0;
  while (isdigit((unsigned char)*d->p) && v < 100000) v = v * 10 + (*d->p++ - '0');
  return v;
}

/* <source-name> ::= <length> <identifier> */
static void source_name(D *d, char *out) {
  long n = number(d);
  if (!d->ok || n <= 0 || memchr(d->p, 0, (size_t)n) || n >= PIECE) { fail(d); return; }
  char id[PIECE];
  memcpy(id, d->p, (size_t)n);
  id[n] = 0;
  d->p += n;
  /* an anonymous namespace's name */
  cat(d, out, !strncmp(id, "_GLOBAL__N", 10) ? "(anonymous namespace)" : id);
}

static void type(D *d, char *out);

/* <template-args> ::= I <template-arg>+ E; the arguments become T_, T0_... */
static void template_args(D *d, char *out) {
  d->p++;   /* I */
  char args[MAX_TARGS][PIECE];
  int n = 0;
  cat(d, out, "<");
  while (d->ok && *d->p != 'E') {
    if (n >= MAX_TARGS) { fail(d); return; }
    char *a = args[n];
    a[0] = 0;
    if (*d->p == 'L') {   /* L <builtin type> [n] <number> E */
      d->p++;
      char t = *d->p++;
      bool neg = *d->p == 'n';
      if (neg) d->p++;
      const char *digits = d->p;
      while (isdigit((unsigned char)*d->p)) d->p++;
      if (*d->p != 'E' || d->p == digits) { fail(d); return; }
      int len = (int)(d->p - digits);
      d->p++;
      static const char *const suffix[128] = {['i'] = "", ['j'] = "u", ['l'] = "l", ['m'] = "ul",
                                               ['x'] = "ll", ['y'] = "ull"};
      if (t == 'b' && len == 1) snprintf(a, PIECE, "%s", *digits == '1' ? "true" : "false");
      else if (t > 0 && suffix[(int)t]) snprintf(a, PIECE, "%s%.*s%s", neg ? "-" : "", len, digits, suffix[(int)t]);
      else { fail(d); return; }
    } else {
      type(d, a);
    }
    if (n) cat(d, out, ", ");
    cat(d, out, a);
    n++;
  }
  if (!d->ok || *d->p != 'E' || !n) { fail(d); return; }
  d->p++;
  cat(d, out, out[strlen(out) - 1] == '>' ? " >" : ">");
  if (d->top) {
    memcpy(d->targs, args, sizeof args[0] * (size_t)n);
    d->ntargs = n;
  }
}

/* <nested-name> ::= N [<CV-qualifiers>] <prefix> <unqualified-name> E;
 * every prefix but the whole name is a substitution candidate. Sets
 * *templated when the name ends in template arguments. */
static void nested_name(D *d, char *out, bool *templated) {
  d->p++;   /* N */
  while (*d->p == 'K' || *d->p == 'V' || *d->p == 'r') d->p++;   /* a member function's cv: not shown */
  out[0] = 0;
  while (d->ok && *d->p != 'E') {
    *templated = false;
    if (*d->p == 'S') {
      if (out[0]) { fail(d); return; }
      d->p++;
      if (*d->p == 't') { d->p++; cat(d, out, "std"); continue; }   /* St: ::std:: */
      int i = seq_id(d);
      if (!d->ok || i < 0 || i >= d->nsubs) { fail(d); return; }
      cat(d, out, d->subs[i]);
      continue;   /* a substitution is not added again */
    } else if (*d->p == 'I') {
      if (!out[0]) { fail(d); return; }
      template_args(d, out);
      *templated = true;
    } else if (isdigit((unsigned char)*d->p)) {
      if (out[0]) cat(d, out, "::");
      source_name(d, out);
    } else {
      fail(d);   /* constructors, operators, ... */
      return;
    }
    if (*d->p != 'E') add_sub(d, out);
  }
  if (d->ok) d->p++;
}

/* <name>: nested, or unscoped with perhaps template arguments. */
static void name(D *d, char *out, bool *templated) {
  *templated = false;
  out[0] = 0;
  if (*d->p == 'N') { nested_name(d, out, templated); return; }
  if (d->p[0] == 'S' && d->p[1] == 't') { d->p += 2; cat(d, out, "std::"); }
  else if (*d->p == 'S') {   /* a substitution as a type name */
    d->p++;
    int i = seq_id(d);
    if (!d->ok || i < 0 || i >= d->nsubs) { fail(d); return; }
    cat(d, out, d->subs[i]);
    if (*d->p == 'I') { template_args(d, out); *templated = true; }
    return;
  }
  source_name(d, out);
  if (*d->p == 'I') {
    add_sub(d, out);   /* <unscoped-template-name> */
    template_args(d, out);
    *templated = true;
  }
}

static const char *builtin(char c) {
  switch (c) {
  case 'v': return "void";          case 'w': return "wchar_t";        case 'b': return "bool";
  case 'c': return "char";          case 'a': return "signed char";    case 'h': return "unsigned char";
  case 's': return "short";         case 't': return "unsigned short"; case 'i': return "int";
  case 'j': return "unsigned int";  case 'l': return "long";           case 'm': return "unsigned long";
  case 'x': return "long long";     case 'y': return "unsigned long long";
  case 'n': return "__int128";      case 'o': return "unsigned __int128";
  case 'f': return "float";         case 'd': return "double";         case 'e': return "long double";
  case 'g': return "__float128";    case 'z': return "...";
  default: return NULL;
  }
}

/* <type>, written as c++filt writes it ("int const*"); every type but a
 * builtin one becomes a substitution candidate. */
static void type_at(D *d, char *out);

static void type(D *d, char *out) {
  out[0] = 0;
  if (++d->depth > 32) { fail(d); return; }
  type_at(d, out);
  d->depth--;
}

static void type_at(D *d, char *out) {
  const char *b = builtin(*d->p);
  if (b) { d->p++; cat(d, out, b); return; }
  char c = *d->p;
  if (c == 'D') {
    const char *s = d->p[1] == 'h' ? "half" : d->p[1] == 'n' ? "decltype(nullptr)" : NULL;
    if (!s) { fail(d); return; }
    d->p += 2;
    cat(d, out, s);
    return;
  }
  if ((c == 'P' || c == 'R' || c == 'O') && d->p[1] == 'A') {   /* a pointer to an array: int (*) [4] */
    d->p += 2;
    long n = number(d);
    if (!d->ok || *d->p != '_') { fail(d); return; }
    d->p++;
    char elem[PIECE], arr[PIECE + 32];
    type(d, elem);
    snprintf(arr, sizeof arr, "%s [%ld]", elem, n);
    add_sub(d, arr);   /* the array type itself */
    snprintf(arr, sizeof arr, "%s (%s) [%ld]", elem, c == 'P' ? "*" : c == 'R' ? "&" : "&&", n);
    cat(d, out, arr);
  } else if (c == 'P' || c == 'R' || c == 'O' || c == 'K' || c == 'V' || c == 'r') {
    d->p++;
    char inner[PIECE];
    type(d, inner);
    cat(d, out, inner);
    cat(d, out, c == 'P' ? "*" : c == 'R' ? "&" : c == 'O' ? "&&" : c == 'K' ? " const" : c == 'V' ? " volatile"
                : " restrict");
  } else if (c == 'A') {   /* A <number> _ <type>: int [4] */
    d->p++;
    long n = number(d);
    if (!d->ok || *d->p != '_') { fail(d); return; }
    d->p++;
    char inner[PIECE];
    type(d, inner);
    char dim[32];
    snprintf(dim, sizeof dim, " [%ld]", n);
    cat(d, out, inner);
    cat(d, out, dim);
  } else if (c == 'T') {   /* T_ T0_ ...: the function's template arguments */
    d->p++;
    int i = seq_id(d);
    if (!d->ok || i < 0 || i >= d->ntargs) { fail(d); return; }
    cat(d, out, d->targs[i]);
  } else if (c == 'S' && d->p[1] != 't') {
    d->p++;
    int i = seq_id(d);
    if (!d->ok || i < 0 || i >= d->nsubs) { fail(d); return; }
    cat(d, out, d->subs[i]);
    if (*d->p != 'I') return;   /* a substitution is not a new candidate */
    template_args(d, out);
  } else if (c == 'N' || isdigit((unsigned char)c) || c == 'S') {
    bool templated;
    name(d, out, &templated);
  } else {
    fail(d);   /* function types, member pointers, decltype, ... */
    return;
  }
  if (d->ok) add_sub(d, out);
}

bool demangle(const char *mangled, char *name_out, size_t name_size, char *sig_out, size_t sig_size) {
  if (strncmp(mangled, "_Z", 2)) return false;
  D *d = calloc(1, sizeof *d);
  if (!d) return false;
  d->p = mangled + 2;
  d->ok = true;
  char nm[PIECE], params[PIECE] = "";
  char ret[PIECE] = "";
  bool templated;
  d->top = true;
  name(d, nm, &templated);
  d->top = false;
  if (d->ok && templated && *d->p) {   /* a template function's type starts with its return type */
    type(d, ret);
    cat(d, ret, " ");
  }
  if (d->ok && *d->p == 'v' && !d->p[1]) {
    d->p++;
  } else {
    for (int n = 0; d->ok && *d->p; n++) {
      char t[PIECE];
      if (*d->p == 'v') fail(d);   /* void is a parameter list only alone */
      type(d, t);
      if (n) cat(d, params, ", ");
      cat(d, params, t);
    }
  }
  bool ok = d->ok && !*d->p && (size_t)snprintf(name_out, name_size, "%s", nm) < name_size &&
            (size_t)snprintf(sig_out, sig_size, "%s%s(%s)", ret, nm, params) < sig_size;
  free(d);
  return ok;
}
