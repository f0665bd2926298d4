/* trace.c: the launch's timeline (trace.h) in the Chrome trace-event
 * format: "X" spans (ts, dur) of what each warp does, "b"/"e" async events
 * for asynchronous copies from issue to landing, "i" instants for mbarrier
 * phase completions, "M" names for CTAs (pid) and warps (tid).
 *
 * A warp's span is open in its cluster's state (TraceCluster) until its
 * kind changes: "running" (it has lanes that can run; it runs in turns
 * with the other warps), or waiting, named by what its lowest waiting lane
 * waits at (the same describers as the deadlock report). A wait begins
 * when a turn ends with the warp blocked and ends when lanes of it are
 * released (interp_release); one that ends within the warp's own turn is
 * not seen. Events are kept per cluster in the order they happen and
 * written sorted by cluster, so host threads (-j) running clusters at once
 * do not change the file. One mutex guards the list; the bound counts
 * events in arrival order, so which events a truncated trace keeps may
 * depend on -j (the count dropped does not). */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"
#include "program.h"
#include "warpsync.h"
#include "../sync/bar.h"

typedef struct Event {
  uint64_t cluster, seq;   /* sort key: cluster, then order of arrival */
  char *json;
} Event;

struct Trace {
  pthread_mutex_t lock;
  Event *ev;
  uint64_t n, cap, max, dropped, seq;
};

enum { TS_NONE, TS_RUN, TS_CTA_BAR, TS_CLUSTER_BAR, TS_MBAR, TS_COLLECTIVE, TS_BLOCKED, TS_DONE };
static const char *const span_name[] = {"", "running", "CTA barrier", "cluster barrier", "mbarrier",
                                        "warp collective", "blocked", ""};

typedef struct Span {
  int kind;
  uint32_t pc;           /* a wait: the instruction waited at */
  uint64_t start, steps; /* cluster time it opened; the warp's steps then */
  char what[400];
} Span;

typedef struct TraceCluster {
  uint64_t now;          /* cluster time of the latest event */
  uint64_t t0, s0;       /* the current turn: start time, the warp's steps then */
  Warp *w;               /* the warp whose turn it is (NULL between rounds) */
  Span *span;            /* per CTA rank, per warp (32 each) */
} TraceCluster;

Trace *trace_new(uint64_t max_events) {
  Trace *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  pthread_mutex_init(&t->lock, NULL);
  t->max = max_events ? max_events : TRACE_DEFAULT_MAX;
  return t;
}

void trace_free(Trace *t) {
  if (!t) return;
  for (uint64_t i = 0; i < t->n; i++) free(t->ev[i].json);
  free(t->ev);
  pthread_mutex_destroy(&t->lock);
  free(t);
}

/* s as the body of a JSON string into b (n bytes). */
static void jstr(const char *s, char *b, size_t n) {
  size_t k = 0;
  for (; *s && k + 7 < n; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') { b[k++] = '\\'; b[k++] = (char)c; }
    else if (c < 0x20) k += (size_t)snprintf(b + k, n - k, "\\u%04x", c);
    else b[k++] = (char)c;
  }
  b[k] = 0;
}

static void emit(Trace *t, uint64_t cluster, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void emit(Trace *t, uint64_t cluster, const char *fmt, ...) {
  char buf[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  pthread_mutex_lock(&t->lock);
  if (t->n == t->max) { t->dropped++; goto out; }
  if (t->n == t->cap) {
    uint64_t cap = t->cap ? t->cap * 2 : 1024;
    Event *e = realloc(t->ev, cap * sizeof *e);
    if (!e) { t->dropped++; goto out; }
    t->ev = e; t->cap = cap;
  }
  char *j = strdup(buf);
  if (!j) { t->dropped++; goto out; }
  t->ev[t->n++] = (Event){cluster, t->seq++, j};
out:
  pthread_mutex_unlock(&t->lock);
}

static uint64_t cta_pid(const Launch *L, const Cta *c) {
  return ((uint64_t)c->ctaid[2] * L->grid[1] + c->ctaid[1]) * L->grid[0] + c->ctaid[0];
}

/* The cluster's state, made (and its CTAs and warps named) at first use. */
static TraceCluster *state(Cluster *cl) {
  if (cl->trace) return cl->trace;
  TraceCluster *s = calloc(1, sizeof *s);
  Span *sp = s ? calloc((size_t)cl->ncta * WARP_SIZE, sizeof *sp) : NULL;
  if (!sp) { free(s); return NULL; }
  s->span = sp;
  cl->trace = s;
  Launch *L = cl->launch;
  for (int r = 0; r < cl->ncta; r++) {
    const Cta *c = &cl->ctas[r];
    uint64_t pid = cta_pid(L, c);
    emit(L->trace, cl->index, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%llu,\"args\":{\"name\":"
         "\"CTA (%u,%u,%u) cluster %llu rank %u\"}}", (unsigned long long)pid, c->ctaid[0], c->ctaid[1],
         c->ctaid[2], (unsigned long long)cl->index, c->rank);
    emit(L->trace, cl->index, "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":%llu,\"args\":"
         "{\"sort_index\":%llu}}", (unsigned long long)pid, (unsigned long long)pid);
    for (int i = 0; i < c->nwarps; i++)
      emit(L->trace, cl->index, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%llu,\"tid\":%d,\"args\":"
           "{\"name\":\"warp %d\"}}", (unsigned long long)pid, i, i);
  }
  return s;
}

static Span *span_of(TraceCluster *s, const Warp *w) { return &s->span[w->cta->rank * WARP_SIZE + (uint32_t)w->id]; }

/* Closes w's open span at time t. */
static void close_span(Cluster *cl, Warp *w, Span *sp, uint64_t t) {
  if (sp->kind == TS_NONE || sp->kind == TS_DONE) return;
  Launch *L = cl->launch;
  uint64_t pid = cta_pid(L, w->cta);
  if (sp->kind == TS_RUN) {
    emit(L->trace, cl->index, "{\"ph\":\"X\",\"name\":\"running\",\"cat\":\"warp\",\"pid\":%llu,\"tid\":%d,"
         "\"ts\":%llu,\"dur\":%llu,\"args\":{\"instructions\":%llu}}", (unsigned long long)pid, w->id,
         (unsigned long long)sp->start, (unsigned long long)(t - sp->start),
         (unsigned long long)(w->steps - sp->steps));
  } else {
    const Program *p = L->prog;
    const XInsn *x = &p->code[sp->pc];
    char at[512], insn[128], jat[600], jinsn[200], jwhat[600];
    exec_where(p, x, at, sizeof at);
    insn_text(x->src, insn, sizeof insn);
    jstr(at, jat, sizeof jat);
    jstr(insn, jinsn, sizeof jinsn);
    jstr(sp->what, jwhat, sizeof jwhat);
    emit(L->trace, cl->index, "{\"ph\":\"X\",\"name\":\"%s\",\"cat\":\"wait\",\"pid\":%llu,\"tid\":%d,"
         "\"ts\":%llu,\"dur\":%llu,\"args\":{\"insn\":\"%s\",\"at\":\"%s\",\"what\":\"%s\"}}",
         span_name[sp->kind], (unsigned long long)pid, w->id, (unsigned long long)sp->start,
         (unsigned long long)(t - sp->start), jinsn, jat, jwhat);
  }
  sp->kind = TS_NONE;
}

static void open_span(Span *sp, const Warp *w, int kind, uint64_t t) {
  sp->kind = kind;
  sp->start = t;
  sp->steps = w->steps;
}

void trace_turn_begin(Cluster *cl, Warp *w, uint64_t t0) {
  TraceCluster *s = state(cl);
  if (!s) return;
  s->w = w;
  s->t0 = s->now = t0;
  s->s0 = w->steps;
}

/* What the lowest waiting lane of w waits at: its span kind and text. */
static int wait_kind(Warp *w, int l, uint32_t pc, char *what, size_t n) {
  const XInsn *x = &w->launch->prog->code[pc];
  Cta *c = w->cta;
  if (warpsync_describe(w, l, what, n)) return TS_COLLECTIVE;
  if (x->fam == FAM_MBAR && mbar_wait_text(c, w->id, l, what, n)) return TS_MBAR;
  if (cluster_bar_describe(c, w->id, l, what, n)) return TS_CLUSTER_BAR;
  if (c->sync && bar_describe(c->sync, w->id, l, what, n)) return TS_CTA_BAR;
  snprintf(what, n, "blocked");
  return TS_BLOCKED;
}

void trace_turn_end(Cluster *cl, Warp *w, uint64_t n, bool blocked) {
  TraceCluster *s = cl->trace;
  if (!s) return;
  Span *sp = span_of(s, w);
  uint64_t t1 = s->t0 + n;
  if (n && sp->kind != TS_RUN) {
    close_span(cl, w, sp, s->t0);
    open_span(sp, w, TS_RUN, s->t0);
    sp->steps = s->s0;
  }
  uint32_t waiting = interp_waiting(w);
  if (!warp_live(w)) {
    close_span(cl, w, sp, t1);
    sp->kind = TS_DONE;
  } else if (blocked && waiting) {
    int l = __builtin_ctz(waiting);
    uint32_t pc = interp_pc(w, l);
    if (sp->kind == TS_RUN || sp->kind == TS_NONE || sp->pc != pc) {
      char what[400];
      int k = wait_kind(w, l, pc, what, sizeof what);
      close_span(cl, w, sp, t1);
      open_span(sp, w, k, t1);
      sp->pc = pc;
      memcpy(sp->what, what, sizeof what);
    }
  }
  s->w = NULL;
  s->t0 = s->now = t1;
}

/* The cluster time now, within a turn where one is running. */
static uint64_t now(TraceCluster *s) { return s->w ? s->t0 + (s->w->steps - s->s0) : s->now; }

void trace_release(Warp *w) {
  Cluster *cl = w->cta ? w->cta->cluster : NULL;
  TraceCluster *s = cl ? cl->trace : NULL;
  if (!s) return;
  Span *sp = span_of(s, w);
  if (sp->kind == TS_RUN || sp->kind == TS_NONE || sp->kind == TS_DONE) return;
  uint64_t t = now(s);
  close_span(cl, w, sp, t);
  open_span(sp, w, TS_RUN, t);
}

void trace_at(Cluster *cl, uint64_t t) {
  TraceCluster *s = cl->trace;
  if (!s) return;
  s->w = NULL;
  s->t0 = s->now = t;
}

void trace_cluster_end(Cluster *cl) {
  TraceCluster *s = cl->trace;
  if (!s) return;
  for (int r = 0; r < cl->ncta; r++)
    for (int i = 0; i < cl->ctas[r].nwarps; i++) {
      Warp *w = &cl->ctas[r].warps[i];
      close_span(cl, w, span_of(s, w), s->now);
    }
  free(s->span);
  free(s);
  cl->trace = NULL;
}

void trace_mbar_phase(Cta *c, uint32_t off, uint32_t phase) {
  Cluster *cl = c->cluster;
  TraceCluster *s = cl ? cl->trace : NULL;
  if (!s) return;
  int tid = s->w && s->w->cta == c ? s->w->id : 0;
  emit(c->launch->trace, cl->index, "{\"ph\":\"i\",\"s\":\"p\",\"name\":\"mbarrier phase %u complete\","
       "\"cat\":\"mbarrier\",\"pid\":%llu,\"tid\":%d,\"ts\":%llu,\"args\":{\"shared_offset\":\"0x%x\","
       "\"completed_phase\":%u}}", phase - 1, (unsigned long long)cta_pid(c->launch, c), tid,
       (unsigned long long)now(s), off, phase - 1);
}

void trace_async(Cta *c, int wl, const char *kind, uint32_t stream, uint32_t ord, bool begin) {
  Cluster *cl = c->cluster;
  TraceCluster *s = cl ? cl->trace : NULL;
  if (!s) return;
  uint64_t pid = cta_pid(c->launch, c);
  emit(c->launch->trace, cl->index, "{\"ph\":\"%s\",\"name\":\"%s\",\"cat\":\"async\",\"id2\":{\"local\":"
       "\"%llu.%d.%u.%u\"},\"pid\":%llu,\"tid\":%d,\"ts\":%llu%s%d}}", begin ? "b" : "e", kind,
       (unsigned long long)pid, wl, stream, ord, (unsigned long long)pid, wl / WARP_SIZE,
       (unsigned long long)now(s), ",\"args\":{\"lane\":", wl % WARP_SIZE);
}

static int by_cluster(const void *a, const void *b) {
  const Event *x = a, *y = b;
  if (x->cluster != y->cluster) return x->cluster < y->cluster ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

bool trace_write(Trace *t, const char *path, uint64_t *dropped) {
  *dropped = t->dropped;
  if (t->n) qsort(t->ev, t->n, sizeof *t->ev, by_cluster);
  FILE *f = fopen(path, "w");
  if (!f) { trace_free(t); return false; }
  fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"time_unit\":\"one warp-instruction of the "
        "cluster (virtual time)\"},\n\"traceEvents\":[\n", f);
  for (uint64_t i = 0; i < t->n; i++) fprintf(f, "%s%s\n", t->ev[i].json, i + 1 < t->n || t->dropped ? "," : "");
  if (t->dropped)
    fprintf(f, "{\"ph\":\"i\",\"s\":\"g\",\"name\":\"trace truncated: %llu events dropped (bound %llu)\","
            "\"pid\":0,\"tid\":0,\"ts\":0}\n", (unsigned long long)t->dropped, (unsigned long long)t->max);
  fputs("]}\n", f);
  bool ok = !ferror(f);
  ok &= fclose(f) == 0;
  trace_free(t);
  return ok;
}
