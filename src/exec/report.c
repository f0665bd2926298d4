/* report.c: checker findings (STYLE.md §6 item 3), the channel of
 * exec_report (exec.h).
 *
 * Findings are collected on the Launch while it runs and never stop it;
 * under --check the API turns them into PTXVM_ERROR_HAZARD at the end
 * (src/api/launch.c). Each finding is its message plus the location in the
 * format of exec_fault ("  at FILE:LINE:COL (CUDA:LINE), kernel K, %ctaid
 * (..), %tid (..)"). The list is bounded: REPORT_MAX findings are kept and
 * the rest only counted; a finding whose message repeats one already kept
 * for the same instruction is dropped (a loop reports once). One mutex
 * serialises recording, so CTAs may run on several host threads. Clusters
 * resident together interleave (src/sched/launch.c), so each finding
 * records its cluster's index and the list reads as if the clusters ran
 * one after another: sorted by cluster, a repeat kept for the earliest
 * cluster, and when the bound is reached the earliest clusters' kept. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "program.h"
#include "interp.h"

enum { REPORT_MAX = 100 };

typedef struct Finding {
  uint64_t cluster;   /* linear index of the cluster that found it */
  const XInsn *x;
  char *msg;        /* the message, without the location (the dedupe key) */
  char *text;       /* message and location */
} Finding;

struct LaunchFindings {
  Finding f[REPORT_MAX];
  unsigned n;
  unsigned long long more;   /* findings beyond REPORT_MAX */
};

static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;

/* Whether a source path is one of CUDA's own headers (the toolkit's
 * include directory, libcu++, CUB, Thrust, cooperative groups), which a
 * report looks through to the user's line. */
static bool cuda_header(const char *path) {
  static const char *const parts[] = {"/cuda/std/", "/cccl/", "/cub/", "/thrust/", "cooperative_groups",
                                      "/crt/", "/targets/x86_64-linux/include/"};
  for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
    if (strstr(path, parts[i])) return true;
  const char *c = strstr(path, "/cuda");   /* /usr/local/cuda[-13.0]/include/... */
  return c && strstr(c, "/include/") != NULL;
}

/* One frame of an instruction's inline chain: where it is, and in what. */
typedef struct Frame { const char *file; int line; const char *fn; } Frame;

/* The chain of in (innermost first) into f; returns how many (at most n). */
static int inline_chain(const Module *m, const Insn *in, const char *kernel, Frame *f, int n) {
  int k = 0, i = in->src_inl;
  const char *file = module_file_name(m, in->src_file);
  int line = in->src_line;
  for (int guard = 0; i >= 0 && i < m->ninl && k < n - 1 && guard < 64; guard++) {
    const InlineFrame *g = &m->inl[i];
    const char *fn = module_debug_str(m, g->fn);
    f[k++] = (Frame){file, line, fn ? fn : g->fn};
    file = module_file_name(m, g->at_file);
    line = g->at_line;
    i = g->up;
  }
  f[k++] = (Frame){file, line, kernel};
  return k;
}

/* "FILE:LINE:COL (CUDA_FILE:LINE)" of an XInsn. With inlined_at frames:
 * "FILE:LINE:COL (USER_FILE:LINE in F, inlined at FILE:LINE in G, ...;
 * below it N frames in CUDA's headers, innermost HEADER:LINE)": the first
 * frame, walking out from the instruction, that is not in CUDA's own
 * headers (the user's line), then the frames it is inlined into, out to
 * the kernel. */
void exec_where(const Program *p, const XInsn *x, char *buf, size_t n) {
  const Insn *in = x ? x->src : NULL;
  if (!in) { snprintf(buf, n, "%s", p->m->path); return; }
  /* the input of its function: a linked module's functions keep theirs */
  const Module *m = x->func && x->func->unit ? x->func->unit : p->m;
  int k = snprintf(buf, n, "%s:%u:%u", m->path, in->line, in->col);
  const char *cu = in->src_file >= 0 ? module_file_name(m, in->src_file) : NULL;
  if (!cu || k <= 0 || (size_t)k >= n) return;
  if (in->src_inl < 0 || in->src_inl >= m->ninl) {
    snprintf(buf + k, n - (size_t)k, " (%s:%d)", cu, in->src_line);
    return;
  }
  Frame f[16];
  int nf = inline_chain(m, in, x->func ? x->func->name : "?", f, 16), u = 0;
  while (u < nf - 1 && (!f[u].file || cuda_header(f[u].file))) u++;
  size_t at = (size_t)k;
  for (int i = u; i < nf && at < n; i++)
    at += (size_t)snprintf(buf + at, n - at, "%s%s:%d in %s", i > u ? ", inlined at " : " (",
                           f[i].file ? f[i].file : "?", f[i].line, f[i].fn ? f[i].fn : "?");
  if (u && at < n)
    at += (size_t)snprintf(buf + at, n - at, "; below it %d frame%s in CUDA's headers, innermost %s:%d", u,
                           u > 1 ? "s" : "", f[0].file ? f[0].file : "?", f[0].line);
  if (at < n) snprintf(buf + at, n - at, ")");
}

/* msg + "\n  at FILE:LINE:COL (CUDA:LINE), kernel K, %ctaid (..), %tid (..)"
 * for lane of w (malloc'd; NULL when memory runs out): the one format of
 * faults and findings (STYLE.md §6). */
char *exec_located(Warp *w, const XInsn *x, int lane, const char *msg) {
  char loc[512];
  const Launch *L = w->launch;
  exec_where(L->prog, x, loc, sizeof loc);
  const uint32_t *c = w->cta->ctaid;
  size_t n = strlen(msg) + strlen(loc) + strlen(L->kernel->name) + 160;
  char *out = malloc(n);
  if (out)
    snprintf(out, n, "%s\n  at %s, kernel %s, %%ctaid (%u,%u,%u), %%tid (%u,%u,%u)", msg, loc,
             L->kernel->name, c[0], c[1], c[2], w->tid[0][lane], w->tid[1][lane], w->tid[2][lane]);
  return out;
}

/* Adds a finding (text malloc'd, taken) of cluster cl at x unless it
 * repeats one (x, msg) kept already; the bound as the header says. */
static void record(Launch *L, uint64_t cl, const XInsn *x, const char *msg, char *text) {
  pthread_mutex_lock(&report_lock);
  LaunchFindings *lf = L->findings;
  if (!lf && !(lf = L->findings = calloc(1, sizeof *lf))) goto out;
  int drop = -1;   /* a finding of a later cluster that this one displaces */
  for (unsigned i = 0; i < lf->n; i++)
    if (lf->f[i].x == x && !strcmp(lf->f[i].msg, msg)) {
      if (cl >= lf->f[i].cluster) goto out;
      drop = (int)i;   /* a repeat found first by a later cluster */
    }
  if (drop < 0 && lf->n == REPORT_MAX) {   /* full: keep the earliest clusters' */
    lf->more++;
    for (unsigned i = 0; i < lf->n; i++)
      if (drop < 0 || lf->f[i].cluster > lf->f[drop].cluster) drop = (int)i;
    if (cl >= lf->f[drop].cluster) goto out;
  }
  char *key = strdup(msg);
  if (!key) goto out;
  if (drop >= 0) {   /* appended below instead: the order within a cluster is kept */
    free(lf->f[drop].text);
    free(lf->f[drop].msg);
    memmove(&lf->f[drop], &lf->f[drop + 1], (lf->n - (unsigned)drop - 1) * sizeof *lf->f);
    lf->n--;
  }
  lf->f[lf->n++] = (Finding){cl, x, key, text};
  text = NULL;
out:
  pthread_mutex_unlock(&report_lock);
  free(text);
}

void exec_report(Warp *w, const XInsn *x, int lane, const char *fmt, ...) {
  Launch *L = w->launch;
  if (!L || !L->check) return;
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (lane < 0 || lane >= WARP_SIZE) {
    uint32_t live = warp_live(w);
    lane = live ? __builtin_ctz(live) : 0;
  }
  char *text = exec_located(w, x, lane, msg);
  if (text) record(L, launch_current(), x, msg, text);
}

void exec_report_text(Launch *L, uint64_t cluster, const XInsn *x, const char *msg, const char *text) {
  char *t = strdup(text);
  if (t) record(L, cluster, x, msg, t);
}

/* Stable, by cluster: clusters resident together on a host thread
 * (src/sched/launch.c) interleave, yet the findings read as if the
 * clusters ran one after another. */
static void sort_by_cluster(LaunchFindings *lf) {
  for (unsigned i = 1; i < lf->n; i++) {
    Finding f = lf->f[i];
    unsigned j = i;
    for (; j > 0 && lf->f[j - 1].cluster > f.cluster; j--) lf->f[j] = lf->f[j - 1];
    lf->f[j] = f;
  }
}

char *launch_findings_take(Launch *L) {
  LaunchFindings *lf = L->findings;
  L->findings = NULL;
  if (!lf) return NULL;
  sort_by_cluster(lf);
  size_t n = 64;
  for (unsigned i = 0; i < lf->n; i++) n += strlen(lf->f[i].text) + 1;
  char *out = malloc(n);
  size_t k = 0;
  for (unsigned i = 0; i < lf->n; i++) {
    if (out) k += (size_t)snprintf(out + k, n - k, "%s%s", k ? "\n" : "", lf->f[i].text);
    free(lf->f[i].text);
    free(lf->f[i].msg);
  }
  if (out && lf->more) snprintf(out + k, n - k, "\n... %llu more findings", lf->more);
  free(lf);
  return out;
}
