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
 * 1, like a --check finding. */
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
  int rc = run_bind(o, args, dev, values);
  if (rc == EXIT_OK) rc = launch(u, 0, values, &findings);
  if (rc != EXIT_OK) fprintf(stderr, "ptxvm: (under schedule 0, round-robin)\n");
  any_findings = findings;
  for (int i = 0; i < o->nargs; i++) ref[i] = args[i].bits;
  unsigned ndiff = 0;
  for (unsigned s = 1; rc == EXIT_OK && s < o->schedules; s++) {
    rc = run_bind(o, args, dev, values);
    if (rc == EXIT_OK) {
      rc = launch(u, s, values, &findings);
      any_findings |= findings;
      if (rc != EXIT_OK) fprintf(stderr, "ptxvm: (under schedule %u; schedules 0 to %u completed)\n", s, s - 1);
    }
    if (rc == EXIT_OK) rc = compare_seed(o, args, ref, dev, s, &bad[s]);
    ndiff += bad[s];
    run_unbind(o, args, dev);
    for (int i = 0; i < o->nargs; i++) args[i].bits = ref[i];
  }
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
