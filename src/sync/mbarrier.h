/* mbarrier.h: the state machine of one mbarrier object (PTX ISA 9.0
 * §9.7.13.15; sync digest §19), without an interpreter, so it runs on its
 * own in tests/unit/test_mbarrier.c. src/exec/mbar.c keeps one Mbar per
 * object in a per-CTA side table keyed by the object's shared-memory offset,
 * mirrors it into the object's 8 bytes (mbar_encode) and parks waiters.
 *
 * Object (the 8 bytes in shared memory, digest §19.13):
 *   [19:0] pending  [39:20] expected  [60:40] tx (21-bit two's complement)
 *   [63:61] phase mod 8.
 * Returned state (mbarrier.arrive / arrive_drop):
 *   [19:0] pending count just before the arrive, [20] 1 = from a .noComplete
 *   arrive, [21] 1 = a state (0 is never a valid state), [47:24] the object's
 *   shared offset mod 2^24 (a state used on another object is reported),
 *   [63:48] the phase of the arrive mod 2^16.
 *
 * Rules (digest §19.2-§19.10): a phase completes when pending reaches 0 and
 * tx is 0; phase += 1, pending = expected. arrive_drop lowers expected (this
 * phase's reload and every later one's) by its count, then arrives; expected
 * may reach 0 (the object then only accepts complete_tx/waits). inval with
 * arrivals (pending != expected) or transactions (tx != 0) outstanding in
 * the current phase is reported (digest §19.5 [I]). Each
 * operation returns NULL, or a message describing the undefined behaviour
 * (the caller reports it, located). */
#ifndef PTXVM_SYNC_MBARRIER_H
#define PTXVM_SYNC_MBARRIER_H

#include <stdbool.h>
#include <stdint.h>

#define MBAR_MAX ((1 << 20) - 1)

typedef struct Mbar {
  bool valid;            /* initialized, not invalidated */
  uint32_t phase;        /* current phase (full count) */
  int32_t pending, expected, tx;
} Mbar;

/* The result of a wait test. */
typedef enum { MW_FALSE, MW_TRUE, MW_STALE } MbarWait;

const char *mbar_init(Mbar *m, uint32_t count);
const char *mbar_inval(Mbar *m);
const char *mbar_expect_tx(Mbar *m, uint32_t n);
/* *completed: the phase completed. */
const char *mbar_complete_tx(Mbar *m, uint32_t n, bool *completed);
/* mbar_arrive's flags: arrive_drop (the expected count drops by count too),
 * .noComplete (the arrive must not complete the phase), .expect_tx (tx-count
 * += tx first; count must then be 1). */
enum { MBAR_DROP = 1u << 0, MBAR_NOCOMPLETE = 1u << 1, MBAR_EXPECT_TX = 1u << 2 };
/* One arrive of count with flags (MBAR_*). *state receives the state,
 * *completed whether this arrive completed the phase. off = the object's
 * offset. */
const char *mbar_arrive(Mbar *m, uint32_t off, uint32_t count, unsigned flags, uint32_t tx,
                        uint64_t *state, bool *completed);
/* cp.async.mbarrier.arrive without .noinc: pending += 1 now. */
const char *mbar_increment(Mbar *m);
/* test_wait(state) / the parity form. */
const char *mbar_test_state(const Mbar *m, uint32_t off, uint64_t state, bool *done);
bool mbar_test_parity(const Mbar *m, uint32_t parity);
/* pending_count(state). */
const char *mbar_pending_count(uint64_t state, uint32_t *count);
uint64_t mbar_encode(const Mbar *m);
/* "phase 3, pending 1 of 2 expected, tx-count 0" */
void mbar_text(const Mbar *m, char *buf, unsigned n);

#endif
