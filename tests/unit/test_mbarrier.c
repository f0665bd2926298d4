/* test_mbarrier.c: the mbarrier state machine on its own (src/sync/mbarrier.c;
 * sync digest §19.3-§19.10, §19.15 and issue 6's vectors). */
#include "../../src/sync/mbarrier.h"
#include "check.h"

#include <string.h>

static bool arrive(Mbar *m, uint32_t n, uint64_t *st) {
  bool done = false;
  CHECK(mbar_arrive(m, 0x40, n, 0, 0, st, &done) == NULL);
  return done;
}

int main(void) {
  Mbar m = {0};
  uint64_t s0, s1, s;
  bool done;
  uint32_t pc;

  /* uninitialized: every operation is refused */
  CHECK(mbar_arrive(&m, 0, 1, 0, 0, &s, &done) != NULL);
  CHECK(mbar_inval(&m) != NULL);
  CHECK(mbar_expect_tx(&m, 4) != NULL);
  /* invalid counts (§19.15 vector 14) */
  CHECK(mbar_init(&m, 0) != NULL);
  CHECK(mbar_init(&m, 1u << 20) != NULL);

  /* §19.15 vector 1: basic phase */
  CHECK(mbar_init(&m, 2) == NULL);
  CHECK(mbar_init(&m, 2) != NULL);   /* init of a valid object */
  CHECK(mbar_test_parity(&m, 1) && !mbar_test_parity(&m, 0));
  CHECK(!arrive(&m, 1, &s0));
  CHECK(mbar_test_state(&m, 0x40, s0, &done) == NULL && !done);
  CHECK(arrive(&m, 1, &s1));
  CHECK(m.phase == 1 && m.pending == 2);
  CHECK(mbar_test_state(&m, 0x40, s0, &done) == NULL && done);
  CHECK(mbar_test_state(&m, 0x40, s1, &done) == NULL && done);
  CHECK(mbar_test_state(&m, 0x80, s1, &done) != NULL);   /* another object */
  CHECK(mbar_test_parity(&m, 0) && !mbar_test_parity(&m, 1));
  CHECK(mbar_inval(&m) == NULL && !m.valid);

  /* vector 2: tx */
  memset(&m, 0, sizeof m);
  CHECK(mbar_init(&m, 1) == NULL);
  CHECK(mbar_arrive(&m, 0, 1, MBAR_EXPECT_TX, 64, &s, &done) == NULL && !done);
  CHECK(m.pending == 0 && m.tx == 64);
  CHECK(mbar_complete_tx(&m, 32, &done) == NULL && !done && m.tx == 32);
  done = false;
  CHECK(mbar_complete_tx(&m, 32, &done) == NULL && done && m.phase == 1 && m.pending == 1);

  /* vector 3: negative tx */
  memset(&m, 0, sizeof m);
  CHECK(mbar_init(&m, 1) == NULL);
  done = false;
  CHECK(mbar_complete_tx(&m, 16, &done) == NULL && !done && m.tx == -16);
  CHECK(mbar_arrive(&m, 0, 1, MBAR_EXPECT_TX, 16, &s, &done) == NULL && done && m.phase == 1);
  /* tx range */
  CHECK(mbar_expect_tx(&m, MBAR_MAX) == NULL);
  CHECK(mbar_expect_tx(&m, 1) != NULL);
  CHECK(mbar_complete_tx(&m, 2 * MBAR_MAX + 1, &done) != NULL);

  /* vector 4 (and issue vector 3): arrive_drop lowers expected, then arrives */
  memset(&m, 0, sizeof m);
  CHECK(mbar_init(&m, 3) == NULL);
  CHECK(mbar_arrive(&m, 0, 1, MBAR_DROP, 0, &s, &done) == NULL && !done);
  CHECK(m.expected == 2 && m.pending == 2);
  CHECK(!arrive(&m, 1, &s));
  CHECK(arrive(&m, 1, &s) && m.phase == 1 && m.pending == 2);
  CHECK(!arrive(&m, 1, &s));
  CHECK(arrive(&m, 1, &s) && m.phase == 2);

  /* vector 5 / issue vector 2: noComplete and pending_count */
  memset(&m, 0, sizeof m);
  CHECK(mbar_init(&m, 8) == NULL);
  CHECK(mbar_arrive(&m, 0, 3, MBAR_NOCOMPLETE, 0, &s, &done) == NULL && !done);
  CHECK(mbar_pending_count(s, &pc) == NULL && pc == 8);
  CHECK(mbar_arrive(&m, 0, 4, MBAR_NOCOMPLETE, 0, &s, &done) == NULL);
  CHECK(mbar_pending_count(s, &pc) == NULL && pc == 5);
  CHECK(arrive(&m, 1, &s));
  CHECK(mbar_pending_count(s, &pc) != NULL);   /* vector 15: not from .noComplete */
  CHECK(mbar_arrive(&m, 0, 8, MBAR_NOCOMPLETE, 0, &s, &done) != NULL);   /* completes */

  /* vector 6: counted arrive; vector 7: over-arrival */
  memset(&m, 0, sizeof m);
  CHECK(mbar_init(&m, 32) == NULL);
  CHECK(arrive(&m, 32, &s));
  CHECK(mbar_test_state(&m, 0x40, s, &done) == NULL && done);
  memset(&m, 0, sizeof m);
  CHECK(mbar_init(&m, 2) == NULL);
  CHECK(mbar_arrive(&m, 0, 3, 0, 0, &s, &done) != NULL);
  CHECK(m.pending == 2);

  /* vector 11: stale token */
  memset(&m, 0, sizeof m);
  CHECK(mbar_init(&m, 1) == NULL);
  CHECK(arrive(&m, 1, &s0));
  CHECK(arrive(&m, 1, &s1));
  CHECK(mbar_test_state(&m, 0x40, s1, &done) == NULL && done);
  CHECK(mbar_test_state(&m, 0x40, s0, &done) != NULL);

  /* cp.async.mbarrier.arrive: increment then arrive, net zero */
  memset(&m, 0, sizeof m);
  CHECK(mbar_init(&m, 2) == NULL);
  CHECK(mbar_increment(&m) == NULL && m.pending == 3);
  CHECK(!arrive(&m, 1, &s));
  CHECK(m.pending == 2 && m.phase == 0);

  /* inval with an arrival or a transaction outstanding */
  memset(&m, 0, sizeof m);
  CHECK(mbar_init(&m, 2) == NULL);
  CHECK(!arrive(&m, 1, &s));
  CHECK(mbar_inval(&m) != NULL && m.valid);
  CHECK(arrive(&m, 1, &s));
  CHECK(mbar_expect_tx(&m, 16) == NULL);
  CHECK(mbar_inval(&m) != NULL);
  CHECK(mbar_complete_tx(&m, 16, &done) == NULL);
  CHECK(mbar_inval(&m) == NULL && !m.valid);

  /* the encodings */
  memset(&m, 0, sizeof m);
  CHECK(mbar_init(&m, 5) == NULL);
  CHECK(mbar_complete_tx(&m, 1, &done) == NULL);
  CHECK(mbar_encode(&m) == (5ull | 5ull << 20 | 0x1fffffull << 40));
  return unit_report();
}
