/* link.c: the JIT linker (cuLinkCreate, cuLinkAddData, cuLinkAddFile,
 * cuLinkComplete, cuLinkDestroy), what Numba and cuda.core use when
 * nvJitLink is not there: PTX inputs linked as -rdc=true objects are.
 *
 * A link state collects PTX texts, each checked as it is added (a text that
 * does not parse fails its cuLinkAddData with CUDA_ERROR_INVALID_PTX, as
 * the JIT compiles each input when it is added):
 *   CU_JIT_INPUT_PTX        the text (its size, or up to its NUL);
 *   CU_JIT_INPUT_FATBINARY  and CU_JIT_INPUT_OBJECT (a host object with an
 *                           embedded fatbin, an -rdc=true object): the PTX
 *                           ptxvm_image_get_ptx finds in it, each module an
 *                           input (NAME#I when there are several);
 *   CU_JIT_INPUT_LIBRARY    an ar archive: the PTX of its members that have
 *                           some is linked, every such member (as
 *                           --whole-archive would); members without PTX for
 *                           sm_90 (libcudadevrt.a's device runtime is SASS)
 *                           are recorded (named in the info log);
 *   CU_JIT_INPUT_CUBIN      refused (SASS: CUDA_ERROR_NO_BINARY_FOR_GPU);
 *   CU_JIT_INPUT_NVVM       refused (CUDA_ERROR_NOT_SUPPORTED).
 * cuLinkComplete links them (ptxvm_module_load_linked, PTX ISA §11.6: a
 * duplicate .visible definition or an unresolved extern is
 * CUDA_ERROR_INVALID_PTX, the message naming the symbol and its input;
 * a call of a device runtime function, cudaLaunchDevice..., links, and the
 * info log names each kernel that cannot launch, which its launch refuses
 * with CUDA_ERROR_NOT_SUPPORTED: ptxvm does not support device-side
 * launches) and
 * returns the image of ptxvm_image_link: an ELF file whose __nv_relfatbin
 * section holds one fatbin per input, which cuModuleLoadData,
 * cuModuleLoadDataEx and cuLibraryLoadData load (and link again) as they
 * load an -rdc=true object. The image is the state's, freed by
 * cuLinkDestroy, as CUDA's cubin is.
 *
 * Options (cuLinkCreate): the error and info log buffers are filled as
 * cuModuleLoadDataEx fills them, for every call on the state (their size
 * options receive the bytes written, in the caller's optionValues, which
 * CUDA requires to stay valid); CU_JIT_WALL_TIME receives the
 * milliseconds cuLinkComplete took. Other options (optimisation, target,
 * cache) do not change PTX's semantics. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"

typedef struct LinkInput { char *text; size_t len; char *name; } LinkInput;

struct CUlinkState_st {
  uint32_t magic;
  CUcontext ctx;
  DrvJitLog log;                         /* the caller's log buffers and wall time */
  LinkInput *in;
  int n, cap;
  char *libs;                            /* the libraries without PTX, "a, b" */
  char *info;                            /* cuLinkComplete's info log */
  int nadded;                            /* inputs added, for default names */
  void *image;                           /* cuLinkComplete's */
  size_t size;
};

static bool live_link(CUlinkState s) { return drv_live(s, MAGIC_LINK); }

/* The CUDA error of a ptxvm status of an image or a link; the message on
 * stderr and in the error log. */
static CUresult fail(CUlinkState s, ptxvm_status st, const char *msg) {
  drv_say_lines(msg);
  drv_jit_log_error(&s->log, msg);
  switch (st) {
  case PTXVM_ERROR_INVALID_PTX: return CUDA_ERROR_INVALID_PTX;
  case PTXVM_ERROR_INVALID_IMAGE: return CUDA_ERROR_INVALID_IMAGE;
  case PTXVM_ERROR_NO_PTX: return CUDA_ERROR_NO_BINARY_FOR_GPU;
  case PTXVM_ERROR_NOT_SUPPORTED: return CUDA_ERROR_NOT_SUPPORTED;
  case PTXVM_ERROR_INVALID_VALUE: return CUDA_ERROR_INVALID_VALUE;
  default: return CUDA_ERROR_OUT_OF_MEMORY;
  }
}

CUresult cuLinkCreate_v2(unsigned int numOptions, CUjit_option *options, void **optionValues, CUlinkState *stateOut) {
  if (!stateOut || (numOptions && (!options || !optionValues))) return CUDA_ERROR_INVALID_VALUE;
  CUcontext c;
  CUresult r = drv_enter_work(NULL, &c);
  if (r != CUDA_SUCCESS) return r;
  drv_leave(c);
  CUlinkState s = calloc(1, sizeof *s);
  if (!s) return CUDA_ERROR_OUT_OF_MEMORY;
  s->magic = MAGIC_LINK;
  s->ctx = c;
  drv_jit_log_parse(&s->log, numOptions, options, optionValues);
  if (!drv_handle_add(s)) {
    free(s);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  drv_jit_log_error(&s->log, "");
  drv_jit_log_info(&s->log, "");
  *stateOut = s;
  return CUDA_SUCCESS;
}

/* Appends one PTX input (copied), after checking that it parses. */
static CUresult add_ptx(CUlinkState s, const char *text, size_t len, const char *name) {
  while (len && !text[len - 1]) len--;   /* the NUL that CUDA's size may count */
  if (!len) return fail(s, PTXVM_ERROR_INVALID_VALUE, "cuLinkAddData: empty PTX input");
  CUcontext c;
  CUresult r = drv_enter_work(s->ctx, &c);
  if (r != CUDA_SUCCESS) return r;
  ptxvm_module *m = NULL;
  ptxvm_status st = ptxvm_module_load_data(c->vm, text, len, name, &m);
  if (st != PTXVM_SUCCESS) {
    r = fail(s, st, ptxvm_last_error(c->vm));
    drv_leave(c);
    return r;
  }
  ptxvm_module_unload(m);
  drv_leave(c);
  if (s->n == s->cap) {
    int nc = s->cap ? 2 * s->cap : 8;
    LinkInput *ni = realloc(s->in, (size_t)nc * sizeof *ni);
    if (!ni) return CUDA_ERROR_OUT_OF_MEMORY;
    s->in = ni;
    s->cap = nc;
  }
  LinkInput in = {malloc(len + 1), len, strdup(name)};
  if (!in.text || !in.name) {
    free(in.text);
    free(in.name);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  memcpy(in.text, text, len);
  in.text[len] = 0;
  s->in[s->n++] = in;
  return CUDA_SUCCESS;
}

/* Adds every PTX module of an image (`size` 0: as long as its headers say). */
static CUresult add_image(CUlinkState s, const void *data, size_t size, const char *name) {
  CUcontext c;
  CUresult r = drv_enter_work(s->ctx, &c);
  if (r != CUDA_SUCCESS) return r;
  ptxvm_image_ptx *list = NULL;
  int n = 0;
  ptxvm_status st = ptxvm_image_get_ptx(c->vm, data, size, &list, &n);
  if (st != PTXVM_SUCCESS) {
    char msg[1200];
    snprintf(msg, sizeof msg, "%s: %s", name, ptxvm_last_error(c->vm));
    drv_leave(c);
    return fail(s, st, msg);
  }
  drv_leave(c);
  for (int i = 0; i < n && r == CUDA_SUCCESS; i++) {
    char nm[1100];
    if (n > 1) snprintf(nm, sizeof nm, "%s#%d", name, i + 1);
    else snprintf(nm, sizeof nm, "%s", name);
    r = add_ptx(s, list[i].text, list[i].len, nm);
  }
  ptxvm_image_free(list, n);
  return r;
}

/* Records a library whose device code ptxvm cannot link. */
static CUresult record_library(CUlinkState s, const char *name) {
  size_t old = s->libs ? strlen(s->libs) : 0;
  char *nl = realloc(s->libs, old + strlen(name) + 3);
  if (!nl) return CUDA_ERROR_OUT_OF_MEMORY;
  if (old) strcpy(nl + old, ", ");
  else nl[0] = 0;
  strcat(nl, name);
  s->libs = nl;
  return CUDA_SUCCESS;
}

static unsigned long ar_size(const unsigned char *h) {
  char buf[11];
  memcpy(buf, h + 48, 10);
  buf[10] = 0;
  char *end;
  unsigned long v = strtoul(buf, &end, 10);
  return end == buf ? (unsigned long)-1 : v;
}

/* An ar archive (System V / GNU: "!<arch>\n", then members of a 60-byte
 * header, whose size is decimal at +48 and which ends in "`\n", and their
 * data padded to an even length): the PTX of each member that is an image
 * holding some; the archive is recorded when no member has any. */
static CUresult add_library(CUlinkState s, const unsigned char *p, size_t size, const char *name) {
  if (size < 8 || memcmp(p, "!<arch>\n", 8)) {
    char msg[600];
    snprintf(msg, sizeof msg, "%s: CU_JIT_INPUT_LIBRARY needs an ar archive (a .a file)", name);
    return fail(s, PTXVM_ERROR_INVALID_IMAGE, msg);
  }
  int with_ptx = 0, k = 0;
  for (size_t off = 8; off < size; k++) {
    unsigned long n = size - off >= 60 && !memcmp(p + off + 58, "`\n", 2) ? ar_size(p + off) : (unsigned long)-1;
    if (n == (unsigned long)-1 || n > size - off - 60) {
      char msg[600];
      snprintf(msg, sizeof msg, "%s: malformed ar archive (member %d at byte %zu)", name, k + 1, off);
      return fail(s, PTXVM_ERROR_INVALID_IMAGE, msg);
    }
    const unsigned char *h = p + off, *m = h + 60;
    off += 60 + n + (n & 1);
    bool table = h[0] == '/' && (h[1] < '0' || h[1] > '9');   /* "/", "//", "/SYM64/"; "/N" is a long name */
    if (table || n < 4 || memcmp(m, "\x7f" "ELF", 4)) continue;
    CUcontext c;
    CUresult r = drv_enter_work(s->ctx, &c);
    if (r != CUDA_SUCCESS) return r;
    ptxvm_image_ptx *list = NULL;
    int count = 0;
    ptxvm_status st = ptxvm_image_get_ptx(c->vm, m, n, &list, &count);
    drv_leave(c);
    ptxvm_image_free(list, count);
    if (st == PTXVM_ERROR_OUT_OF_MEMORY) return CUDA_ERROR_OUT_OF_MEMORY;
    if (st != PTXVM_SUCCESS) continue;   /* no PTX for sm_90 (SASS only), or no device code */
    char nm[600];
    snprintf(nm, sizeof nm, "%s(member %d)", name, k + 1);
    r = add_image(s, m, n, nm);
    if (r != CUDA_SUCCESS) return r;
    with_ptx++;
  }
  return with_ptx ? CUDA_SUCCESS : record_library(s, name);
}

static CUresult add_data(CUlinkState s, CUjitInputType type, const void *data, size_t size, const char *name) {
  char dflt[32];
  s->nadded++;
  if (!name) {
    snprintf(dflt, sizeof dflt, "<input#%d>", s->nadded);
    name = dflt;
  }
  char msg[700];
  switch (type) {
  case CU_JIT_INPUT_PTX: return add_ptx(s, data, size ? size : strlen(data), name);
  case CU_JIT_INPUT_FATBINARY:
  case CU_JIT_INPUT_OBJECT: return add_image(s, data, size, name);
  case CU_JIT_INPUT_LIBRARY:
    if (!size) return fail(s, PTXVM_ERROR_INVALID_VALUE, "cuLinkAddData: a library input needs its size");
    return add_library(s, data, size, name);
  case CU_JIT_INPUT_CUBIN:
    snprintf(msg, sizeof msg, "%s: CU_JIT_INPUT_CUBIN is SASS, which ptxvm does not run: link PTX (nvcc -ptx), "
             "or a fatbin or object built with -arch=sm_90 so it carries PTX", name);
    return fail(s, PTXVM_ERROR_NO_PTX, msg);
  case CU_JIT_INPUT_NVVM:
    snprintf(msg, sizeof msg, "%s: CU_JIT_INPUT_NVVM (LTO-IR) is not supported: ptxvm links PTX", name);
    return fail(s, PTXVM_ERROR_NOT_SUPPORTED, msg);
  default:
    return CUDA_ERROR_INVALID_VALUE;
  }
}

CUresult cuLinkAddData_v2(CUlinkState state, CUjitInputType type, void *data, size_t size, const char *name,
                          unsigned int numOptions, CUjit_option *options, void **optionValues) {
  (void)numOptions, (void)options, (void)optionValues;   /* compiler options: no effect on semantics */
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (!live_link(state)) return CUDA_ERROR_INVALID_HANDLE;
  if (!data) return CUDA_ERROR_INVALID_VALUE;
  return add_data(state, type, data, size, name);
}

CUresult cuLinkAddFile_v2(CUlinkState state, CUjitInputType type, const char *path, unsigned int numOptions,
                          CUjit_option *options, void **optionValues) {
  (void)numOptions, (void)options, (void)optionValues;
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (!live_link(state)) return CUDA_ERROR_INVALID_HANDLE;
  if (!path) return CUDA_ERROR_INVALID_VALUE;
  FILE *f = fopen(path, "rb");
  if (!f) return CUDA_ERROR_FILE_NOT_FOUND;
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap + 1);
  while (buf) {
    n += fread(buf + n, 1, cap - n, f);
    if (n < cap) break;
    char *nb = cap > ((size_t)1 << 31) ? NULL : realloc(buf, 2 * cap + 1);
    if (!nb) { free(buf); buf = NULL; }
    else { buf = nb; cap *= 2; }
  }
  bool bad = ferror(f);
  fclose(f);
  if (!buf || bad) {
    free(buf);
    return bad ? CUDA_ERROR_FILE_NOT_FOUND : CUDA_ERROR_OUT_OF_MEMORY;
  }
  buf[n] = 0;
  r = n ? add_data(state, type, buf, n, path) : fail(state, PTXVM_ERROR_INVALID_VALUE, "cuLinkAddFile: empty file");
  free(buf);
  return r;
}

/* Appends a line to the info log text of the state. */
static void note(CUlinkState s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(CUlinkState s, const char *fmt, ...) {
  char line[1200];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  size_t old = s->info ? strlen(s->info) : 0;
  char *ni = realloc(s->info, old + strlen(line) + 2);
  if (!ni) return;
  snprintf(ni + old, strlen(line) + 2, "%s\n", line);
  s->info = ni;
}

/* The kernels of the linked module m that cannot launch (a device runtime
 * call: device-side launches; an instruction ptxvm cannot execute yet), in
 * the info log, and the libraries nothing was linked from. */
static void refusals(CUlinkState s, ptxvm_module *m) {
  if (s->libs) note(s, "ptxvm: %s: no PTX for sm_90 (its device code is SASS): nothing linked from it", s->libs);
  int n = ptxvm_module_unsupported_count(m);
  for (int i = 0; i < n; i++) {
    ptxvm_unsupported_info u;
    if (ptxvm_module_unsupported(m, i, &u) == PTXVM_SUCCESS)
      note(s, "ptxvm: %s%s%s", u.message, u.function ? " (refused at the launch of the kernels that reach " : "",
           u.function ? "it)" : "");
  }
}

/* Links the inputs once, to report what cuModuleLoadData would. */
static CUresult check_link(CUlinkState s) {
  CUcontext c;
  CUresult r = drv_enter_work(s->ctx, &c);
  if (r != CUDA_SUCCESS) return r;
  const char **texts = calloc((size_t)s->n, sizeof *texts), **names = calloc((size_t)s->n, sizeof *names);
  size_t *lens = calloc((size_t)s->n, sizeof *lens);
  if (!texts || !names || !lens) r = CUDA_ERROR_OUT_OF_MEMORY;
  for (int i = 0; r == CUDA_SUCCESS && i < s->n; i++) texts[i] = s->in[i].text, lens[i] = s->in[i].len,
                                                    names[i] = s->in[i].name;
  ptxvm_module *m = NULL;
  ptxvm_status st = r == CUDA_SUCCESS ? ptxvm_module_load_linked(c->vm, s->n, texts, lens, names, NULL, &m)
                                      : PTXVM_ERROR_OUT_OF_MEMORY;
  if (st == PTXVM_SUCCESS) {
    refusals(s, m);
    ptxvm_module_unload(m);
  } else if (r == CUDA_SUCCESS) {
    r = fail(s, st, ptxvm_last_error(c->vm));
  }
  drv_leave(c);
  free(texts);
  free(names);
  free(lens);
  return r;
}

CUresult cuLinkComplete(CUlinkState state, void **cubinOut, size_t *sizeOut) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (!live_link(state)) return CUDA_ERROR_INVALID_HANDLE;
  if (!cubinOut) return CUDA_ERROR_INVALID_VALUE;
  if (!state->n) return fail(state, PTXVM_ERROR_INVALID_VALUE, "cuLinkComplete: no PTX input was added");
  double t0 = drv_now_ms();
  free(state->info);
  state->info = NULL;
  r = check_link(state);
  if (r != CUDA_SUCCESS) return r;
  CUcontext c;
  r = drv_enter_work(state->ctx, &c);
  if (r != CUDA_SUCCESS) return r;
  const char **texts = calloc((size_t)state->n, sizeof *texts);
  size_t *lens = calloc((size_t)state->n, sizeof *lens);
  void *image = NULL;
  size_t size = 0;
  for (int i = 0; texts && lens && i < state->n; i++) texts[i] = state->in[i].text, lens[i] = state->in[i].len;
  ptxvm_status st = texts && lens ? ptxvm_image_link(c->vm, state->n, texts, lens, &image, &size)
                                  : PTXVM_ERROR_OUT_OF_MEMORY;
  drv_leave(c);
  free(texts);
  free(lens);
  if (st != PTXVM_SUCCESS) return CUDA_ERROR_OUT_OF_MEMORY;
  free(state->image);   /* a second completion replaces the first image */
  state->image = image;
  state->size = size;
  *cubinOut = image;
  if (sizeOut) *sizeOut = size;
  if (state->log.wall_ms) *state->log.wall_ms = (float)(drv_now_ms() - t0);
  note(state, "ptxvm: linked %d PTX input%s", state->n, state->n == 1 ? "" : "s");
  drv_jit_log_info(&state->log, state->info ? state->info : "");
  return CUDA_SUCCESS;
}

CUresult cuLinkDestroy(CUlinkState state) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (!live_link(state)) return CUDA_ERROR_INVALID_HANDLE;
  drv_handle_remove(state);
  for (int i = 0; i < state->n; i++) {
    free(state->in[i].text);
    free(state->in[i].name);
  }
  free(state->in);
  free(state->libs);
  free(state->info);
  free(state->image);
  free(state);
  return CUDA_SUCCESS;
}

/* The CUDA 5.5 ABI's forms take the same arguments. */
#undef cuLinkCreate
#undef cuLinkAddData
#undef cuLinkAddFile
SAME_AS(cuLinkCreate, cuLinkCreate_v2)
SAME_AS(cuLinkAddData, cuLinkAddData_v2)
SAME_AS(cuLinkAddFile, cuLinkAddFile_v2)
