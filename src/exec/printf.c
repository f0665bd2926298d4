/* printf.c: CUDA device printf. nvcc compiles printf(fmt, ...) to
 *   call (ret), vprintf, (fmt, buf)
 * of the external function vprintf(.param .b64, .param .b64) -> .b32, where
 * fmt is the generic address of the format string and buf the generic
 * address of a (local) buffer holding the arguments packed in order, each
 * aligned to its size: int-sized and smaller integers and %c take 4 bytes,
 * long/long long, pointers (%s, %p) and floating values (float is promoted
 * to double) take 8. ctrl.c lowers such a call here (x->aux: CallInfo).
 *
 * For each lane of the mask, in lane order, the format is expanded like
 * CUDA's device printf (flags - + space # 0, width and precision, also '*';
 * length modifiers hh h l ll j z t L; conversions d i u x X o c s f F e E g
 * G a A p and %%; an unknown conversion is printed as written and consumes
 * no argument) and the text goes whole to the launch's printf_fn. The
 * return value, as CUDA documents, is the number of arguments parsed (0
 * with none), -1 when the format pointer is NULL. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "program.h"
#include "../util/text.h"

/* The host's snprintf formats each conversion from a spec assembled here
 * out of checked pieces (flags, width, precision, length, conversion), so
 * the spec cannot be a literal. */
#pragma GCC diagnostic ignored "-Wformat-nonliteral"

__attribute__((format(printf, 2, 3)))
static void out_fmt(Text *o, const char *fmt, ...) {
  char small[256];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if ((size_t)n < sizeof small) { text_put(o, small, (size_t)n); return; }
  char *big = malloc((size_t)n + 1);
  if (!big) { o->oom = true; return; }
  va_start(ap, fmt);
  vsnprintf(big, (size_t)n + 1, fmt, ap);
  va_end(ap);
  text_put(o, big, (size_t)n);
  free(big);
}

/* The argument cursor of one call. */
typedef struct Args { uint64_t base, off; } Args;

/* Reads the next argument of `size` bytes (4 or 8), aligned to its size.
 * false: a fault was reported. */
static bool arg_next(Warp *w, const XInsn *x, int l, Args *a, uint32_t size, uint64_t *v) {
  a->off = (a->off + size - 1) & ~(uint64_t)(size - 1);
  const uint8_t *p = mem_access(w, x, l, SP_NONE, a->base + a->off, size, size, ACC_PRINTF);
  if (!p) return false;
  a->off += size;
  *v = 0;
  memcpy(v, p, size);
  return true;
}

/* Reads the device string at addr (at most max bytes, SIZE_MAX: to its NUL)
 * into o. false: a fault was reported. */
static bool read_str(Warp *w, const XInsn *x, int l, uint64_t addr, size_t max, Text *o) {
  for (size_t i = 0; i < max; i++) {
    const char *c = mem_access(w, x, l, SP_NONE, addr + i, 1, 1, ACC_PRINTF);
    if (!c) return false;
    if (!*c) break;
    text_put(o, c, 1);
  }
  return true;
}

/* Formats lane l's call into o; returns the number of arguments parsed
 * (-1: NULL format), or INT32_MIN after a fault. */
static int32_t format_lane(Warp *w, const XInsn *x, int l, uint64_t fmt, uint64_t buf, Text *o) {
  if (fmt == 0) return -1;
  Text f = {0};   /* the format string */
  if (!read_str(w, x, l, fmt, SIZE_MAX, &f)) { free(f.p); return INT32_MIN; }
  if (f.oom) { free(f.p); return INT32_MIN; }
  const char *s = f.p ? f.p : "";
  Args a = {buf, 0};
  int32_t nargs = 0;
  for (size_t i = 0; s[i];) {
    if (s[i] != '%') {
      size_t j = i;
      while (s[j] && s[j] != '%') j++;
      text_put(o, s + i, j - i);
      i = j;
      continue;
    }
    size_t start = i++;
    if (s[i] == '%') { text_put(o, "%", 1); i++; continue; }
    char spec[64];
    size_t k = 0;
    spec[k++] = '%';
    while (s[i] && strchr("-+ #0", s[i])) { if (k < 8) spec[k++] = s[i]; i++; }
    int width = -1, prec = -1;
    uint64_t v;
    bool star_w = false, star_p = false;
    if (s[i] == '*') { star_w = true; i++; }
    else if (s[i] >= '0' && s[i] <= '9') {
      width = 0;
      while (s[i] >= '0' && s[i] <= '9') { if (width < 100000) width = width * 10 + (s[i] - '0'); i++; }
    }
    if (s[i] == '.') {
      i++;
      if (s[i] == '*') { star_p = true; i++; }
      else {
        prec = 0;
        while (s[i] >= '0' && s[i] <= '9') { if (prec < 100000) prec = prec * 10 + (s[i] - '0'); i++; }
      }
    }
    int lng = 0;   /* 0: int-sized, 1: h, 2: hh, 8: 64-bit */
    if (s[i] == 'h') { i++; lng = 1; if (s[i] == 'h') { i++; lng = 2; } }
    else if (s[i] == 'l') { i++; lng = 8; if (s[i] == 'l') i++; }
    else if (s[i] && strchr("jztLq", s[i])) { i++; lng = 8; }
    char c = s[i];
    if (!c || !strchr("diuxXocsfFeEgGaAp", c)) {   /* unknown: as written */
      text_put(o, s + start, i - start);
      continue;
    }
    i++;
    if (buf == 0) {   /* no argument buffer: nothing to format */
      text_put(o, s + start, i - start);
      continue;
    }
    if (star_w) {
      if (!arg_next(w, x, l, &a, 4, &v)) { free(f.p); return INT32_MIN; }
      nargs++;
      width = (int32_t)(uint32_t)v;
      if (width < 0) { spec[k++] = '-'; width = width == INT32_MIN ? INT32_MAX : -width; }
      if (width > 100000) width = 100000;
    }
    if (star_p) {
      if (!arg_next(w, x, l, &a, 4, &v)) { free(f.p); return INT32_MIN; }
      nargs++;
      prec = (int32_t)(uint32_t)v;
      if (prec > 100000) prec = 100000;
    }
    if (width >= 0) k += (size_t)snprintf(spec + k, sizeof spec - k, "%d", width);
    if (prec >= 0) k += (size_t)snprintf(spec + k, sizeof spec - k, ".%d", prec);
    nargs++;
    switch (c) {
    case 'd': case 'i': case 'u': case 'x': case 'X': case 'o': {
      bool is_signed = c == 'd' || c == 'i';
      if (!arg_next(w, x, l, &a, lng == 8 ? 8 : 4, &v)) { free(f.p); return INT32_MIN; }
      if (lng == 8) {
        snprintf(spec + k, sizeof spec - k, "ll%c", c);
        if (is_signed) out_fmt(o, spec, (long long)v);
        else out_fmt(o, spec, (unsigned long long)v);
      } else {
        snprintf(spec + k, sizeof spec - k, "%s%c", lng == 2 ? "hh" : lng == 1 ? "h" : "", c);
        if (is_signed) out_fmt(o, spec, (int)(int32_t)(uint32_t)v);
        else out_fmt(o, spec, (unsigned)(uint32_t)v);
      }
      break;
    }
    case 'c':
      if (!arg_next(w, x, l, &a, 4, &v)) { free(f.p); return INT32_MIN; }
      snprintf(spec + k, sizeof spec - k, "c");
      out_fmt(o, spec, (int)(unsigned char)v);
      break;
    case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': case 'a': case 'A': {
      if (!arg_next(w, x, l, &a, 8, &v)) { free(f.p); return INT32_MIN; }
      double d;
      memcpy(&d, &v, sizeof d);
      snprintf(spec + k, sizeof spec - k, "%c", c);
      out_fmt(o, spec, d);
      break;
    }
    case 's': {
      if (!arg_next(w, x, l, &a, 8, &v)) { free(f.p); return INT32_MIN; }
      Text str = {0};
      if (v == 0) text_put(&str, "(null)", 6);
      else if (!read_str(w, x, l, v, prec >= 0 ? (size_t)prec : SIZE_MAX, &str)) {
        free(str.p); free(f.p); return INT32_MIN;
      }
      snprintf(spec + k, sizeof spec - k, "s");
      out_fmt(o, spec, str.p ? str.p : "");
      if (str.oom) o->oom = true;
      free(str.p);
      break;
    }
    case 'p':
      if (!arg_next(w, x, l, &a, 8, &v)) { free(f.p); return INT32_MIN; }
      /* as glibc shows a non-NULL pointer; 0 shows as (nil) */
      if (v == 0) { snprintf(spec + k, sizeof spec - k, "s"); out_fmt(o, spec, "(nil)"); }
      else {
        char hex[24];
        snprintf(hex, sizeof hex, "0x%llx", (unsigned long long)v);
        snprintf(spec + k, sizeof spec - k, "s");
        out_fmt(o, spec, hex);
      }
      break;
    }
  }
  free(f.p);
  return nargs;
}

XStatus exec_vprintf(Warp *w, const XInsn *x, uint32_t mask) {
  const CallInfo *ci = x->aux;
  Launch *launch = w->launch;
  FOR_LANES(l) {
    if (!ACTIVE(mask, l)) continue;
    Text o = {0};
    int32_t r = format_lane(w, x, l, call_opd_u64(w, &ci->args[0], l), call_opd_u64(w, &ci->args[1], l), &o);
    if (r == INT32_MIN) { free(o.p); return XS_TRAP; }
    if (o.oom) { free(o.p); return exec_fault(w, x, l, "printf: out of host memory"); }
    if (launch->printf_fn && o.n) launch->printf_fn(o.p, o.n, launch->printf_user);
    free(o.p);
    if (ci->nrets == 1) call_opd_put(w, &ci->rets[0], l, (uint64_t)(int64_t)r);
  }
  return XS_NEXT;
}
HANDLER_NAME(exec_vprintf);

/* Up to n - 1 bytes of the C string at generic address addr for lane l
 * (stops at a bad address; the fault is then already reported). */
static bool c_string(Warp *w, const XInsn *x, int l, uint64_t addr, char *buf, size_t n) {
  size_t k = 0;
  for (; k + 1 < n; k++) {
    const char *p = mem_access(w, x, l, SP_NONE, addr + k, 1, 1, ACC_PRINTF);
    if (!p) return false;
    if (!*p) break;
    buf[k] = *p;
  }
  buf[k] = 0;
  return true;
}

/* __assertfail(message, file, line, function, charSize): the located
 * report for the lowest lane, and for each lane of the warp that calls it
 * the line a GPU prints (ptxvm_launch_assertion), as CUDA's device assert
 * writes it: "FILE:LINE: FUNCTION: block: [x,y,z], thread: [x,y,z]
 * Assertion `COND` failed." */
XStatus exec_assertfail(Warp *w, const XInsn *x, uint32_t mask) {
  const CallInfo *ci = x->aux;
  int first = __builtin_ctz(mask);
  char msg[256], file[256], func[256], *gpu = NULL;
  size_t gpu_len = 0;
  FILE *lines = open_memstream(&gpu, &gpu_len);
  if (!lines) return exec_fault(w, x, first, "out of host memory for an assertion's report");
  const uint32_t *c = w->cta->ctaid;
  for (uint32_t m = mask; m; m &= m - 1) {
    int l = __builtin_ctz(m);
    if (!c_string(w, x, l, call_opd_u64(w, &ci->args[0], l), msg, sizeof msg) ||
        !c_string(w, x, l, call_opd_u64(w, &ci->args[1], l), file, sizeof file) ||
        !c_string(w, x, l, call_opd_u64(w, &ci->args[3], l), func, sizeof func)) {
      fclose(lines);
      free(gpu);
      return XS_TRAP;   /* a bad string address: that fault is the report */
    }
    fprintf(lines, "%s:%u: %s: block: [%u,%u,%u], thread: [%u,%u,%u] Assertion `%s` failed.\n", file,
            (unsigned)call_opd_u64(w, &ci->args[2], l), func, c[0], c[1], c[2], w->tid[0][l], w->tid[1][l],
            w->tid[2][l], msg);
  }
  if (fclose(lines) != 0) {
    free(gpu);
    return exec_fault(w, x, first, "out of host memory for an assertion's report");
  }
  /* the located report names the lowest lane, with its own strings */
  if (!c_string(w, x, first, call_opd_u64(w, &ci->args[0], first), msg, sizeof msg) ||
      !c_string(w, x, first, call_opd_u64(w, &ci->args[1], first), file, sizeof file) ||
      !c_string(w, x, first, call_opd_u64(w, &ci->args[3], first), func, sizeof func)) {
    free(gpu);
    return XS_TRAP;
  }
  return exec_assert_fault(w, x, first, gpu, "assertion failed: %s (%s:%u, in %s)", msg, file,
                           (unsigned)call_opd_u64(w, &ci->args[2], first), func);
}
HANDLER_NAME(exec_assertfail);
