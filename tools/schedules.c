/* schedules.c: is a result schedule-dependent? (`ptxvm run --schedules N`)
 *
 * The launch runs N times: seed 0 (round-robin, warps in order) and then
 * seeds 1 .. N-1 (ptxvm_set_schedule: pseudo-random warp order, quanta and
 * lane-group choice), each time on buffers freshly allocated and filled from
 * the -a specs, so no run sees another's output. After each run the compared
 * buffers (those given to -o, or every buffer) are read back piece by piece
 * beside seed 0's, which stay allocated until the dumps; the seed's own are
 * freed. A difference is reported as the first buffer that differs: its
 * first differing element in both runs and how many elements differ. A
 * kernel whose result depends on the order its warps run in has a race or
 * relies on an order PTX does not promise, so a difference is exit status
 * 1, like a --check finding.
 *
 * Under --check each seed's findings (the launch's report, LaunchFn) are
 * collected rather than printed, and each distinct finding (its whole
 * text: the first line and its continuation lines) is printed once, in
 * the order of first appearance, with the seeds that gave it when not
 * every completed seed did: a finding that depends on the schedule says
 * so, and one that does not is not repeated N times. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "schedules.h"

/* Is buffer i compared: given to -o, or no -o given at all. */
static bool compared(const RunOpts *o, const Arg *args, int i) {
  if (!args[i].is_buf || args[i].by_value) return false;
  if (!o->ndumps) return true;
  for (int k = 0; k < o->ndumps; k++)
    if (o->dumps[k].arg == i) return true;
  return false;
}

/* Compares seed's buffers (args[i].bits) with seed 0's (ref[i]); prints
 * the first that differs. Sets *differs. */
static int compare_seed(const RunOpts *o, Arg *args, const uint64_t *ref, const RunDevice *dev, uint64_t seed,
                        bool *differs) {
  *differs = false;
  for (int i = 0; i < o->nargs; i++) {
    if (!compared(o, args, i)) continue;
    size_t first = 0, count = 0;
    uint8_t e0[8], es[8];
    int rc = run_compare(&args[i], ref[i], args[i].bits, dev, &first, &count, e0, es);
    if (rc != EXIT_OK) return rc;
    if (!count) continue;
    char v0[40], vs[40];
    run_format_elem(args[i].t, e0, v0, sizeof v0);
    run_format_elem(args[i].t, es, vs, sizeof vs);
    fprintf(stderr, "ptxvm: schedule %" PRIu64 " differs from schedule 0: buffer %d ('%s') element %zu is %s "
            "under schedule 0 and %s under schedule %" PRIu64 " (%zu of %zu elements differ)\n", seed, i,
            args[i].spec, first, v0, vs, seed, count, args[i].n);
    *differs = true;
    return EXIT_OK;
  }
  return EXIT_OK;
}

/* "3, 5, 9" of the seeds marked, at most the first 20. */
static void print_seeds(const bool *bad, unsigned n) {
  unsigned shown = 0;
  for (unsigned s = 0; s < n; s++)
    if (bad[s] && shown++ < 20) fprintf(stderr, "%s%u", shown > 1 ? ", " : "", s);
  if (shown > 20) fprintf(stderr, ", ...");
}

/* The distinct findings kept: beyond this many, new ones are only
 * counted (a seed-dependent finding, say one naming the thread that came
 * first, could otherwise grow with N). */
enum { SEEN_MAX = 1000, SEEDS_SHOWN = 20 };

typedef struct Seen {
  char *text;                   /* the finding: first line and continuation lines */
  uint64_t hash;
  unsigned n;                   /* how many seeds gave it */
  unsigned last;                /* the latest of them */
  unsigned seed[SEEDS_SHOWN];   /* the first of them */
} Seen;

typedef struct Findings {
  Seen *f;
  unsigned n, cap;
  unsigned long long dropped;   /* distinct findings beyond SEEN_MAX */
} Findings;

static uint64_t fnv(const char *p, size_t len) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < len; i++) h = (h ^ (unsigned char)p[i]) * 1099511628211ull;
  return h;
}

/* Adds the finding p[0, len) of seed s; false when memory runs out. */
static bool seen_add(Findings *fs, const char *p, size_t len, unsigned s) {
  uint64_t h = fnv(p, len);
  Seen *e = NULL;
  for (unsigned i = 0; i < fs->n && !e; i++)
    if (fs->f[i].hash == h && strlen(fs->f[i].text) == len && !memcmp(fs->f[i].text, p, len)) e = &fs->f[i];
  if (!e) {
    if (fs->n == SEEN_MAX) {
      fs->dropped++;
      return true;
    }
    if (fs->n == fs->cap) {
      unsigned cap = fs->cap ? 2 * fs->cap : 16;
      Seen *f = realloc(fs->f, cap * sizeof *f);
      if (!f) return false;
      fs->f = f;
      fs->cap = cap;
    }
    char *t = malloc(len + 1);
    if (!t) return false;
    memcpy(t, p, len);
    t[len] = 0;
    e = &fs->f[fs->n++];
    *e = (Seen){t, h, 0, 0, {0}};
  }
  if (e->n && e->last == s) return true;   /* the same text twice in one seed's report: once */
  if (e->n < SEEDS_SHOWN) e->seed[e->n] = s;
  e->n++;
  e->last = s;
  return true;
}

/* Splits seed s's report into findings: a line that does not start with
 * two spaces starts one (include/ptxvm.h, ptxvm_set_check). */
static bool seen_report(Findings *fs, const char *r, unsigned s) {
  const char *p = r;
  while (*p) {
    const char *q = p;
    do {
      const char *nl = strchr(q, '\n');
      q = nl ? nl + 1 : q + strlen(q);
    } while (*q && !strncmp(q, "  ", 2));
    size_t len = (size_t)(q - p);
    if (len && p[len - 1] == '\n') len--;
    if (len && !seen_add(fs, p, len, s)) return false;
    p = q;
  }
  return true;
}

/* Prints the findings of seeds 0 .. ran - 1 and frees them. */
static void seen_print(Findings *fs, unsigned ran) {
  for (unsigned i = 0; i < fs->n; i++) {
    Seen *e = &fs->f[i];
    fprintf(stderr, "%s\n", e->text);
    if (e->n < ran) {
      fprintf(stderr, "  (under seed%s ", e->n == 1 ? "" : "s");
      for (unsigned k = 0; k < e->n && k < SEEDS_SHOWN; k++) fprintf(stderr, "%s%u", k ? ", " : "", e->seed[k]);
      if (e->n > SEEDS_SHOWN) fprintf(stderr, ", ... (%u seeds)", e->n);
      fprintf(stderr, " of 0 to %u)\n", ran - 1);
    }
    free(e->text);
  }
  if (fs->dropped)
    fprintf(stderr, "ptxvm: %llu more distinct finding%s not shown (the first %d are)\n", fs->dropped,
            fs->dropped == 1 ? "" : "s", SEEN_MAX);
  free(fs->f);
  *fs = (Findings){NULL, 0, 0, 0};
}

/* The report of seed s's launch: a completed launch's findings are
 * collected; a failure is printed after the findings so far. */
static void take_report(Findings *fs, char *report, int rc, unsigned s) {
  if (!report) return;
  if (rc == EXIT_OK && seen_report(fs, report, s)) {
    free(report);
    return;
  }
  if (rc != EXIT_OK) seen_print(fs, s);
  report_print(report);
  free(report);
}

void report_print(const char *text) {
  fprintf(stderr, "%s%s", text, *text && text[strlen(text) - 1] == '\n' ? "" : "\n");
}

int schedules_run(const RunOpts *o, Arg *args, const RunDevice *dev, void **values, LaunchFn launch, void *u,
                  bool *completed) {
  uint64_t *ref = calloc((size_t)o->nargs + 1, sizeof *ref);
  bool *bad = calloc(o->schedules, sizeof *bad);
  *completed = false;
  if (!ref || !bad) {
    free(ref);
    free(bad);
    return run_bad("out of memory");
  }
  bool findings = false, any_findings = false;
  Findings fs = {NULL, 0, 0, 0};
  char *report = NULL;
  unsigned done = 0;   /* the seeds whose launch completed: 0 .. done - 1 */
  int rc = run_bind(o, args, dev, values);
  if (rc == EXIT_OK) rc = launch(u, 0, values, &findings, &report);
  take_report(&fs, report, rc, 0);
  done = rc == EXIT_OK;
  if (rc != EXIT_OK) fprintf(stderr, "ptxvm: (under schedule 0, round-robin)\n");
  any_findings = findings;
  for (int i = 0; i < o->nargs; i++) ref[i] = args[i].bits;
  unsigned ndiff = 0;
  for (unsigned s = 1; rc == EXIT_OK && s < o->schedules; s++) {
    rc = run_bind(o, args, dev, values);
    if (rc == EXIT_OK) {
      report = NULL;
      rc = launch(u, s, values, &findings, &report);
      any_findings |= findings;
      take_report(&fs, report, rc, s);
      done += rc == EXIT_OK;
      if (rc != EXIT_OK) fprintf(stderr, "ptxvm: (under schedule %u; schedules 0 to %u completed)\n", s, s - 1);
    }
    if (rc == EXIT_OK) rc = compare_seed(o, args, ref, dev, s, &bad[s]);
    ndiff += bad[s];
    run_unbind(o, args, dev);
    for (int i = 0; i < o->nargs; i++) args[i].bits = ref[i];
  }
  seen_print(&fs, done);   /* nothing left when a failed launch's report printed them */
  if (rc == EXIT_OK && ndiff) {
    fprintf(stderr, "ptxvm: %u schedules: %u give%s other results than schedule 0 (seeds ", o->schedules, ndiff,
            ndiff == 1 ? "s" : "");
    print_seeds(bad, o->schedules);
    fprintf(stderr, "): the result depends on the order the warps run in\n");
  } else if (rc == EXIT_OK && !o->quiet && o->schedules == 1) {
    fprintf(stderr, "ptxvm: --schedules 1 ran schedule 0 only: there is nothing to compare it with\n");
  } else if (rc == EXIT_OK && !o->quiet) {
    fprintf(stderr, "ptxvm: %u schedules (seeds 0 to %u): the same results under each\n", o->schedules,
            o->schedules - 1);
  }
  free(ref);
  free(bad);
  *completed = rc == EXIT_OK;
  return rc == EXIT_OK && (ndiff || any_findings) ? EXIT_FAULT : rc;
}
