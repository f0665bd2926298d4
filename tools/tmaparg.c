/* tmaparg.c: tensor-map arguments of `ptxvm run` (docs/cli.md "Tensor
 * maps"):
 *   tensormap:TYPE,&N,dims=D0xD1..,box=B0xB1..[,strides=S1xS2..]
 *             [,estrides=E0xE1..][,swizzle=none|32B|64B|128B][,oob=zero|nan]
 *             [,interleave=none|16B|32B]
 *   tensormap:TYPE,&N,dims=CxWx..xN,lower=L1x..,upper=U1x..,channels=C,
 *             pixels=P[,strides=..][,estrides=..][,swizzle=..][,oob=..][,interleave=..]
 * (the second an im2col map, cuTensorMapEncodeIm2col: the corners of the
 * spatial dimensions W first, may be negative)
 * TYPE u8 u16 u32 s32 u64 s64 f16 f32 f64 bf16 tf32; &N the buffer the map
 * describes; dimension 0 first (innermost); strides in bytes of dimensions
 * 1.., by default dense (D0 * size, then times D1, ...). The map is the
 * parameter's 128 bytes by value (a __grid_constant__ CUtensorMap), made by
 * the device's encoder (ptxvm_tensor_map_encode; cuTensorMapEncodeTiled on
 * gpurun) once buffer N has its address. */
#include <stdlib.h>
#include <string.h>

#include "runargs.h"

static const struct { const char *name; int dtype; unsigned size; } TYPES[] = {
  {"u8", 0, 1}, {"u16", 1, 2}, {"u32", 2, 4}, {"s32", 3, 4}, {"u64", 4, 8}, {"s64", 5, 8},
  {"f16", 6, 2}, {"f32", 7, 4}, {"f64", 8, 8}, {"bf16", 9, 2}, {"tf32", 11, 4},
};

/* AxBx... (each a number) into v (at most 5 of them); the count, 0 if bad. */
static unsigned parse_list(const char *s, size_t len, uint64_t v[5]) {
  unsigned n = 0;
  while (len) {
    size_t k = 0;
    while (k < len && s[k] != 'x') k++;
    char num[32];
    if (n == 5 || k == 0 || k >= sizeof num) return 0;
    memcpy(num, s, k);
    num[k] = 0;
    if (!run_parse_u64(num, &v[n++])) return 0;
    if (k == len) break;
    s += k + 1;
    len -= k + 1;
    if (!len) return 0;
  }
  return n;
}

/* AxBx... of signed numbers (at most 3) into v; the count, 0 if bad. */
static unsigned parse_slist(const char *s, size_t len, int v[3]) {
  unsigned n = 0;
  while (len) {
    size_t k = 0;
    while (k < len && s[k] != 'x') k++;
    char num[16], *end;
    if (n == 3 || k == 0 || k >= sizeof num) return 0;
    memcpy(num, s, k);
    num[k] = 0;
    long x = strtol(num, &end, 10);
    if (*end || x < -2147483647 || x > 2147483647) return 0;
    v[n++] = (int)x;
    if (k == len) break;
    s += k + 1;
    len -= k + 1;
    if (!len) return 0;
  }
  return n;
}

int run_parse_tensormap(Arg *a, const char *spec) {
  memset(a, 0, sizeof *a);
  a->spec = spec;
  TmapSpec *t = calloc(1, sizeof *t);
  uint8_t *data = aligned_alloc(64, 128);
  if (!t || !data) { free(t); free(data); return run_bad("out of memory"); }
  memset(data, 0, 128);
  a->tmap = t; a->data = data;
  a->is_struct = a->by_value = true;
  a->t = run_find_type("u8", 2);
  a->init = INIT_LIST;
  a->n = 128;
  a->align = 64;
  t->buf = -1;
  unsigned esize = 0, nbox = 0, nstr = 0, nes = 0, nlo = 0, nup = 0;
  bool has_cpp = false, has_ppc = false;
  bool has_strides = false;
  uint64_t box[5], es[5] = {1, 1, 1, 1, 1}, str[5];
  const char *p = spec + 10;
  for (int item = 0; *p; item++) {
    size_t len = strcspn(p, ",");
    const char *eq = memchr(p, '=', len);
    size_t kl = eq ? (size_t)(eq - p) : len;
    const char *val = eq ? eq + 1 : p;
    size_t vl = eq ? len - kl - 1 : len;
    if (item == 0) {
      for (size_t i = 0; i < sizeof TYPES / sizeof *TYPES; i++)
        if (strlen(TYPES[i].name) == len && !memcmp(TYPES[i].name, p, len)) {
          t->dtype = TYPES[i].dtype; esize = TYPES[i].size;
        }
      if (!esize) return run_bad("argument '%s': unknown tensor-map type '%.*s' (u8, u16, u32, s32, u64, s64, f16, "
                                 "f32, f64, bf16, tf32)", spec, (int)len, p);
    } else if (item == 1) {
      uint64_t b;
      char num[24];
      if (len < 2 || *p != '&' || len - 1 >= sizeof num) return run_bad("argument '%s': expected &N (the buffer) after the type", spec);
      memcpy(num, p + 1, len - 1);
      num[len - 1] = 0;
      if (!run_parse_u64(num, &b) || b > 1000000) return run_bad("argument '%s': bad buffer number", spec);
      t->buf = (int)b;
    } else if (eq && kl == 4 && !memcmp(p, "dims", 4)) {
      uint64_t d[5];
      if (!(t->rank = parse_list(val, vl, d))) return run_bad("argument '%s': dims= takes 1 to 5 numbers, AxB...", spec);
      memcpy(t->dim, d, sizeof d);
    } else if (eq && kl == 3 && !memcmp(p, "box", 3)) {
      if (!(nbox = parse_list(val, vl, box))) return run_bad("argument '%s': box= takes 1 to 5 numbers, AxB...", spec);
    } else if (eq && kl == 7 && !memcmp(p, "strides", 7)) {
      has_strides = true;
      if (!(nstr = parse_list(val, vl, str)) || nstr > 4) return run_bad("argument '%s': strides= takes 1 to 4 numbers", spec);
    } else if (eq && kl == 8 && !memcmp(p, "estrides", 8)) {
      if (!(nes = parse_list(val, vl, es))) return run_bad("argument '%s': estrides= takes 1 to 5 numbers", spec);
    } else if (eq && kl == 5 && (!memcmp(p, "lower", 5) || !memcmp(p, "upper", 5))) {
      unsigned *n = *p == 'l' ? &nlo : &nup;
      if (!(*n = parse_slist(val, vl, *p == 'l' ? t->lower : t->upper)))
        return run_bad("argument '%s': %.5s= takes 1 to 3 numbers, AxB... (W first)", spec, p);
    } else if (eq && ((kl == 8 && !memcmp(p, "channels", 8)) || (kl == 6 && !memcmp(p, "pixels", 6)))) {
      uint64_t v[5];
      if (parse_list(val, vl, v) != 1 || v[0] > 0xffffffffu)
        return run_bad("argument '%s': %.*s= takes one number", spec, (int)kl, p);
      if (*p == 'c') { t->cpp = (uint32_t)v[0]; has_cpp = true; }
      else { t->ppc = (uint32_t)v[0]; has_ppc = true; }
    } else if (eq && kl == 7 && !memcmp(p, "swizzle", 7)) {
      static const char *sw[] = {"none", "32B", "64B", "128B"};
      t->swizzle = -1;
      for (int i = 0; i < 4; i++) if (strlen(sw[i]) == vl && !memcmp(val, sw[i], vl)) t->swizzle = i;
      if (t->swizzle < 0) return run_bad("argument '%s': swizzle= is none, 32B, 64B or 128B", spec);
    } else if (eq && kl == 10 && !memcmp(p, "interleave", 10)) {
      static const char *il[] = {"none", "16B", "32B"};
      t->interleave = -1;
      for (int i = 0; i < 3; i++) if (strlen(il[i]) == vl && !memcmp(val, il[i], vl)) t->interleave = i;
      if (t->interleave < 0) return run_bad("argument '%s': interleave= is none, 16B or 32B", spec);
    } else if (eq && kl == 3 && !memcmp(p, "oob", 3)) {
      if (vl == 4 && !memcmp(val, "zero", 4)) t->oobfill = 0;
      else if (vl == 3 && !memcmp(val, "nan", 3)) t->oobfill = 1;
      else return run_bad("argument '%s': oob= is zero or nan", spec);
    } else {
      return run_bad("argument '%s': unknown tensor-map field '%.*s' (dims=, box=, strides=, estrides=, "
                     "swizzle=, oob=, interleave=; im2col: lower=, upper=, channels=, pixels=)", spec, (int)len, p);
    }
    p += len;
    if (*p == ',') p++;
  }
  t->im2col = nlo || nup || has_cpp || has_ppc;
  if (t->im2col) {
    if (t->buf < 0 || !t->rank || !nlo || !nup || !has_cpp || !has_ppc || nbox)
      return run_bad("argument '%s': an im2col tensor map needs TYPE, &N, dims=, lower=, upper=, channels= and "
                     "pixels= (and no box=)", spec);
    if (t->rank < 3 || nlo != t->rank - 2 || nup != t->rank - 2)
      return run_bad("argument '%s': an im2col map has 3 to 5 dims= and dims - 2 numbers in lower= and upper=", spec);
  } else {
    if (t->buf < 0 || !t->rank || !nbox)
      return run_bad("argument '%s': a tensor map needs TYPE, &N, dims= and box=", spec);
    if (nbox != t->rank) return run_bad("argument '%s': box= has %u numbers, dims= %u", spec, nbox, t->rank);
  }
  if (nes && nes != t->rank) return run_bad("argument '%s': estrides= has %u numbers, dims= %u", spec, nes, t->rank);
  if (has_strides && nstr != t->rank - 1)
    return run_bad("argument '%s': strides= has %u numbers, dims= %u (the strides of dimensions 1..)", spec, nstr, t->rank);
  uint64_t dense = esize;
  for (unsigned i = 0; i < t->rank; i++) {
    if ((!t->im2col && box[i] > 0xffffffffu) || es[i] > 0xffffffffu)
      return run_bad("argument '%s': box or estrides too large", spec);
    t->box[i] = t->im2col ? 1 : (uint32_t)box[i];
    t->estride[i] = (uint32_t)es[i];
    if (i) t->stride[i - 1] = has_strides ? str[i - 1] : dense;
    dense *= t->dim[i];
  }
  return EXIT_OK;
}
