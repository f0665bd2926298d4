/* mbarrier.c: the mbarrier object state machine (see mbarrier.h). */
#include "mbarrier.h"

#include <stdio.h>

static const char *check_valid(const Mbar *m) {
  return m->valid ? NULL : "the object is not a valid mbarrier (uninitialized or invalidated)";
}

const char *mbar_init(Mbar *m, uint32_t count) {
  static _Thread_local char msg[96];
  if (m->valid) return "init of a valid mbarrier (inval it first: other threads may still use it)";
  if (count < 1 || count > MBAR_MAX) {
    snprintf(msg, sizeof msg, "count %u is outside 1..%d", count, MBAR_MAX);
    return msg;
  }
  m->valid = true;
  m->phase = 0;
  m->pending = m->expected = (int32_t)count;
  m->tx = 0;
  return NULL;
}

const char *mbar_inval(Mbar *m) {
  static _Thread_local char msg[128];
  const char *e = check_valid(m);
  if (e) return e;
  if (m->pending != m->expected || m->tx != 0) {
    snprintf(msg, sizeof msg, "inval while the current phase has arrivals or transactions "
             "outstanding (pending %d of %d, tx-count %d)", m->pending, m->expected, m->tx);
    return msg;
  }
  m->valid = false;
  return NULL;
}

static void complete(Mbar *m, bool *completed) {
  if (m->pending == 0 && m->tx == 0) {
    m->phase++;
    m->pending = m->expected;
    if (completed) *completed = true;
  }
}

static const char *tx_range(int64_t v) {
  static _Thread_local char msg[96];
  if (v > MBAR_MAX || v < -MBAR_MAX) {
    snprintf(msg, sizeof msg, "tx-count %lld is outside -%d..%d", (long long)v, MBAR_MAX, MBAR_MAX);
    return msg;
  }
  return NULL;
}

const char *mbar_expect_tx(Mbar *m, uint32_t n) {
  const char *e = check_valid(m);
  if (!e) e = tx_range((int64_t)m->tx + n);
  if (e) return e;
  m->tx += (int32_t)n;
  return NULL;
}

const char *mbar_complete_tx(Mbar *m, uint32_t n, bool *completed) {
  const char *e = check_valid(m);
  if (!e) e = tx_range((int64_t)m->tx - n);
  if (e) return e;
  m->tx -= (int32_t)n;
  complete(m, completed);
  return NULL;
}

const char *mbar_arrive(Mbar *m, uint32_t off, uint32_t count, unsigned flags, uint32_t tx,
                        uint64_t *state, bool *completed) {
  static _Thread_local char msg[160];
  bool drop = flags & MBAR_DROP, nocomplete = flags & MBAR_NOCOMPLETE;
  const char *e = check_valid(m);
  if (e) return e;
  if (count < 1 || count > MBAR_MAX) {
    snprintf(msg, sizeof msg, "arrive count %u is outside 1..%d", count, MBAR_MAX);
    return msg;
  }
  int64_t ntx = (int64_t)m->tx + (flags & MBAR_EXPECT_TX ? tx : 0);
  if ((e = tx_range(ntx))) return e;
  if ((int64_t)m->pending - count < 0) {
    snprintf(msg, sizeof msg, "an arrive with count %u would take the pending count %d below zero",
             count, m->pending);
    return msg;
  }
  if (drop && (int64_t)m->expected - count < 0) {
    snprintf(msg, sizeof msg, "arrive_drop with count %u would take the expected count %d below "
             "zero", count, m->expected);
    return msg;
  }
  if (nocomplete && m->pending - (int32_t)count == 0 && ntx == 0) {
    snprintf(msg, sizeof msg, "a .noComplete arrive (count %u, pending %d) completes the phase",
             count, m->pending);
    return msg;
  }
  if (state)
    *state = (uint64_t)(uint32_t)m->pending | (nocomplete ? 1ull << 20 : 0) | 1ull << 21 |
             (uint64_t)(off & 0xffffffu) << 24 | (uint64_t)(m->phase & 0xffffu) << 48;
  m->tx = (int32_t)ntx;
  if (drop) m->expected -= (int32_t)count;
  m->pending -= (int32_t)count;
  if (completed) *completed = false;
  complete(m, completed);
  return NULL;
}

const char *mbar_increment(Mbar *m) {
  const char *e = check_valid(m);
  if (e) return e;
  if (m->pending + 1 > MBAR_MAX) return "cp.async.mbarrier.arrive: the pending count would exceed 2^20-1";
  m->pending++;
  return NULL;
}

const char *mbar_test_state(const Mbar *m, uint32_t off, uint64_t state, bool *done) {
  static _Thread_local char msg[160];
  const char *e = check_valid(m);
  if (e) return e;
  if (!(state >> 21 & 1) || (uint32_t)(state >> 24 & 0xffffff) != (off & 0xffffffu)) {
    snprintf(msg, sizeof msg, "state 0x%016llx was not returned by an arrive on this mbarrier",
             (unsigned long long)state);
    return msg;
  }
  uint32_t sp = (uint32_t)(state >> 48), cp = m->phase & 0xffff;
  if (sp == cp) { *done = false; return NULL; }
  if (((sp + 1) & 0xffff) == cp) { *done = true; return NULL; }
  snprintf(msg, sizeof msg, "state of phase %u is older than the phase before the current phase "
           "%u", sp, m->phase);
  return msg;
}

bool mbar_test_parity(const Mbar *m, uint32_t parity) { return (m->phase & 1) != (parity & 1); }

const char *mbar_pending_count(uint64_t state, uint32_t *count) {
  if (!(state >> 21 & 1) || !(state >> 20 & 1))
    return "pending_count of a state that did not come from a .noComplete arrive";
  *count = (uint32_t)(state & 0xfffff);
  return NULL;
}

uint64_t mbar_encode(const Mbar *m) {
  return (uint64_t)((uint32_t)m->pending & 0xfffff) | (uint64_t)((uint32_t)m->expected & 0xfffff) << 20 |
         (uint64_t)((uint32_t)m->tx & 0x1fffff) << 40 | (uint64_t)(m->phase & 7) << 61;
}

void mbar_text(const Mbar *m, char *buf, unsigned n) {
  snprintf(buf, n, "phase %u, pending %d of %d expected, tx-count %d", m->phase, m->pending,
           m->expected, m->tx);
}
