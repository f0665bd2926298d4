/* test_bar.c: the CTA barrier state machine (src/sync/bar.c) on its own:
 * gathering, arrivals, completion with and without a count, reset and
 * reuse, exit release, .red results, and each misuse it reports. */
#include <string.h>

#include "../../src/sync/bar.h"
#include "check.h"

static char err[512];

static BarCta *cta(int nwarps) {
  BarCta *b = bar_new(nwarps);
  for (int i = 0; i < nwarps; i++) bar_set_live(b, i, 0xffffffffu);
  return b;
}

static bool ex(BarCta *b, int wid, uint32_t mask, uint32_t id, uint32_t count, BarKind k,
               bool aligned, uint32_t pred) {
  BarReq r = {.id = id, .count = count, .has_count = count != 0, .kind = k,
              .aligned = aligned, .pred = pred, .dst = 7};
  err[0] = 0;
  return bar_exec(b, wid, mask, &r, NULL, err, sizeof err);
}

static uint32_t take(BarCta *b, int wid) {
  uint32_t r = b->w[wid].release;
  b->w[wid].release = 0;
  return r;
}

int main(void) {
  const uint32_t ALL = 0xffffffffu;
  /* no count: completes when every live warp arrived, then resets */
  BarCta *b = cta(3);
  CHECK(ex(b, 0, ALL, 0, 0, BK_SYNC, true, 0));
  CHECK(take(b, 0) == 0);
  CHECK(ex(b, 1, ALL, 0, 0, BK_SYNC, true, 0));
  CHECK(take(b, 1) == 0 && b->bar[0].arrived_threads == 64);
  CHECK(ex(b, 2, ALL, 0, 0, BK_SYNC, true, 0));
  CHECK(take(b, 0) == ALL && take(b, 1) == ALL && take(b, 2) == ALL);
  CHECK(!b->bar[0].active && b->bar[0].arrived_threads == 0 && b->bar[0].arrived_warps == 0);
  CHECK(b->bar[0].generations == 1);
  /* reuse at once */
  for (int i = 0; i < 3; i++) CHECK(ex(b, i, ALL, 0, 0, BK_SYNC, true, 0));
  CHECK(take(b, 2) == ALL && b->bar[0].generations == 2);
  bar_free(b);

  /* count 64: two warps complete it, the third starts the next generation */
  b = cta(3);
  CHECK(ex(b, 0, ALL, 1, 64, BK_SYNC, true, 0));
  CHECK(ex(b, 1, ALL, 1, 64, BK_SYNC, true, 0));
  CHECK(take(b, 0) == ALL && take(b, 1) == ALL);
  CHECK(ex(b, 2, ALL, 1, 64, BK_SYNC, true, 0));
  CHECK(take(b, 2) == 0 && b->bar[1].arrived_threads == 32);
  bar_free(b);

  /* arrive: continues once its warp is gathered, without waiting */
  b = cta(2);
  CHECK(ex(b, 0, ALL, 2, 64, BK_ARRIVE, true, 0));
  CHECK(take(b, 0) == ALL && b->bar[2].arrived_threads == 32);
  CHECK(ex(b, 1, ALL, 2, 64, BK_SYNC, true, 0));
  CHECK(take(b, 1) == ALL && !b->bar[2].active);
  /* arriving twice in one generation */
  CHECK(ex(b, 0, ALL, 3, 96, BK_ARRIVE, true, 0));
  CHECK(!ex(b, 0, ALL, 3, 96, BK_ARRIVE, true, 0) && strstr(err, "twice"));
  bar_free(b);

  /* non-aligned gathering from two calls; exit of the rest completes it */
  b = cta(2);
  CHECK(ex(b, 0, 0x0000ffffu, 0, 0, BK_SYNC, false, 0));
  CHECK(b->bar[0].arrived_warps == 0 && b->w[0].gather[0] == 0x0000ffffu);
  CHECK(ex(b, 0, 0xffff0000u, 0, 0, BK_SYNC, false, 0));
  CHECK(b->bar[0].arrived_warps == 1);
  bar_set_live(b, 1, 0);          /* warp 1 exits */
  CHECK(bar_poll(b));
  CHECK(take(b, 0) == ALL);
  bar_free(b);

  /* exits inside a warp: lanes 16-31 exited, lanes 0-15 gather the warp */
  b = cta(2);
  bar_set_live(b, 0, 0x0000ffffu);
  CHECK(ex(b, 0, 0x0000ffffu, 0, 0, BK_SYNC, true, 0));
  CHECK(b->bar[0].arrived_warps == 1);
  CHECK(ex(b, 1, ALL, 0, 0, BK_SYNC, true, 0));
  CHECK(take(b, 0) == 0x0000ffffu && take(b, 1) == ALL);
  /* lanes waiting for their own warp are released when the others exit */
  CHECK(ex(b, 1, 0x0000000fu, 4, 0, BK_SYNC, false, 0));
  bar_set_live(b, 1, 0x0000000fu);
  bar_set_live(b, 0, 0);
  CHECK(bar_poll(b) && take(b, 1) == 0x0000000fu);
  bar_free(b);

  /* a counted barrier is not released by exits: it waits for its count */
  b = cta(3);
  CHECK(ex(b, 0, ALL, 2, 96, BK_SYNC, true, 0));
  CHECK(ex(b, 1, ALL, 2, 96, BK_SYNC, true, 0));
  bar_set_live(b, 2, 0);
  CHECK(!bar_poll(b) && take(b, 0) == 0 && b->bar[2].arrived_threads == 64);
  bar_free(b);

  /* a partial warp adds the warp size: 32 + 32 lanes-worth completes 64 */
  b = cta(2);
  bar_set_live(b, 1, 0x0000ffffu);
  CHECK(ex(b, 0, ALL, 0, 64, BK_SYNC, true, 0));
  CHECK(ex(b, 1, 0x0000ffffu, 0, 64, BK_SYNC, true, 0));
  CHECK(take(b, 0) == ALL && take(b, 1) == 0x0000ffffu);
  bar_free(b);

  /* .red: popc, and, or over two warps; results to every waiter */
  b = cta(2);
  CHECK(ex(b, 0, ALL, 5, 0, BK_RED_POPC, true, 0x000000ffu));
  CHECK(ex(b, 1, ALL, 5, 0, BK_RED_POPC, true, 0x00000003u));
  CHECK(take(b, 0) == ALL && take(b, 1) == ALL);
  CHECK(b->w[0].result[0] == 10 && b->w[1].result[31] == 10 && b->w[0].dst[3] == 7);
  CHECK(ex(b, 0, ALL, 5, 0, BK_RED_AND, true, ALL));
  CHECK(ex(b, 1, ALL, 5, 0, BK_RED_AND, true, ALL & ~(1u << 13)));
  CHECK(take(b, 0) == ALL && b->w[0].result[4] == 0 && b->w[1].result[13] == 0);
  CHECK(ex(b, 0, ALL, 5, 0, BK_RED_OR, true, 0));
  CHECK(ex(b, 1, ALL, 5, 0, BK_RED_OR, true, 1u << 13));
  CHECK(b->w[0].result[0] == 1 && b->w[1].result[0] == 1);
  CHECK(ex(b, 0, ALL, 5, 0, BK_RED_OR, true, 0));
  CHECK(ex(b, 1, ALL, 5, 0, BK_RED_OR, true, 0));
  CHECK(b->w[0].result[0] == 0);
  /* .red mixed with .sync in one generation */
  CHECK(ex(b, 0, ALL, 6, 0, BK_RED_OR, true, 0));
  CHECK(!ex(b, 1, ALL, 6, 0, BK_SYNC, true, 0) && strstr(err, "mixed"));
  bar_free(b);

  /* misuse: aligned divergence, counts, ids */
  b = cta(2);
  CHECK(!ex(b, 0, 1, 0, 0, BK_SYNC, true, 0) && strstr(err, "not converged"));
  CHECK(!ex(b, 0, ALL, 16, 0, BK_SYNC, true, 0) && strstr(err, "out of range"));
  CHECK(!ex(b, 0, ALL, 0, 48, BK_SYNC, true, 0) && strstr(err, "multiple of 32"));
  CHECK(!ex(b, 0, ALL, 0, 0, BK_ARRIVE, true, 0) && strstr(err, "requires a thread count"));
  CHECK(ex(b, 0, ALL, 7, 96, BK_SYNC, true, 0));
  CHECK(!ex(b, 1, ALL, 7, 64, BK_SYNC, true, 0) && strstr(err, "differs"));
  bar_free(b);

  /* describe: what a parked lane waits for */
  b = cta(4);
  char d[256];
  CHECK(ex(b, 2, ALL, 1, 128, BK_SYNC, true, 0));
  CHECK(bar_describe(b, 2, 5, d, sizeof d) && strstr(d, "32 of 128 threads arrived") &&
        strstr(d, "warps not arrived: 0-1,3"));
  CHECK(!bar_describe(b, 0, 0, d, sizeof d));
  bar_free(b);
  return unit_report();
}
