/* bar.c: the CTA barrier state machine (bar.h; sync digest §5.2, §5.3). */
#include "bar.h"
#include "../util/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_name[] = {"sync", "arrive", "red.popc", "red.and", "red.or"};

BarCta *bar_new(int nwarps) {
  if (nwarps < 0 || nwarps > BAR_MAX_WARPS) return NULL;
  BarCta *b = calloc(1, sizeof *b);
  if (!b) return NULL;
  b->nwarps = nwarps;
  b->w = calloc((size_t)nwarps + 1, sizeof *b->w);
  if (!b->w) { free(b); return NULL; }
  for (int i = 0; i < nwarps; i++) memset(b->w[i].at, -1, sizeof b->w[i].at);
  for (int k = 0; k < BAR_IDS; k++) b->bar[k].all = true;
  return b;
}

void bar_free(BarCta *b) {
  if (!b) return;
  if (b->ext_free) b->ext_free(b->ext);
  free(b->w);
  free(b);
}

/* BarCta.live_warps follows each change, so that an arrival need not scan
 * the warps. */
void bar_set_live(BarCta *b, int wid, uint32_t live) {
  b->w[wid].live = live;
  b->live_warps = live ? b->live_warps | 1u << wid : b->live_warps & ~(1u << wid);
}

static uint32_t live_warps(const BarCta *b) { return b->live_warps; }

static void reset(Barrier *br) {
  uint64_t g = br->generations;
  memset(br, 0, sizeof *br);
  br->all = true;
  br->generations = g + 1;
}

/* Releases every lane parked at id with the .red result; resets. */
static void complete(BarCta *b, uint32_t id) {
  Barrier *br = &b->bar[id];
  b->completions++;
  if (b->on_complete) b->on_complete(b->on_ctx, b, id);
  if (b->on_check) b->on_check(b->check_ctx, b, id);
  for (int i = 0; i < b->nwarps; i++) {
    BarWarp *w = &b->w[i];
    if (!(br->arrived_warps >> i & 1)) continue;
    uint32_t p = w->parked[id];
    if (p == UINT32_MAX && !br->red) {   /* a converged warp at bar.sync */
      memset(w->at, -1, sizeof w->at);
      memset(w->result, 0, sizeof w->result);
    } else {
      for (int l = 0; l < 32; l++) {
        if (!(p >> l & 1)) continue;
        switch ((BarKind)w->kind[l]) {
        case BK_RED_POPC: w->result[l] = br->popc; break;
        case BK_RED_AND: w->result[l] = br->all; break;
        case BK_RED_OR: w->result[l] = br->any; break;
        default: w->result[l] = 0; break;
        }
        w->at[l] = -1;
      }
    }
    w->release |= p;
    if (p) b->releasing |= 1u << i;
    if (br->red) w->red_release |= p;
    w->parked[id] = 0;
    w->arrivers[id] = 0;
  }
  reset(br);
}

static bool done(const BarCta *b, uint32_t id) {
  const Barrier *br = &b->bar[id];
  if (!br->active) return false;
  if (br->expected) return br->arrived_threads >= br->expected;
  uint32_t lw = live_warps(b);
  return (br->arrived_warps & lw) == lw;
}

/* The warp's gathered lanes cover its live lanes: mark its arrival. */
static void warp_arrives(BarCta *b, int wid, uint32_t id, uint32_t expected, bool red) {
  Barrier *br = &b->bar[id];
  BarWarp *w = &b->w[wid];
  if (!br->active) { br->active = true; br->expected = expected; br->red = red; }
  br->arrived_warps |= 1u << wid;
  br->arrived_threads += 32;
  br->popc += w->gpopc[id];
  br->all = br->all && w->gall[id];
  br->any = br->any || w->gany[id];
  w->gather[id] = 0;
  w->gpopc[id] = 0; w->gall[id] = true; w->gany[id] = false;
  uint32_t go = w->parked[id] & w->arrivers[id];   /* .arrive lanes continue now */
  for (uint32_t r = go; r; r &= r - 1) w->at[__builtin_ctz(r)] = -1;
  w->arrivers[id] = 0;
  w->parked[id] &= ~go;
  w->release |= go;
  if (go) b->releasing |= 1u << wid;
  if (done(b, id)) complete(b, id);
}

bool bar_exec(BarCta *b, int wid, uint32_t mask, const BarReq *r, const void *where,
              char *err, size_t n) {
  const char *kn = kind_name[r->kind];
  if (r->id >= BAR_IDS) {
    snprintf(err, n, "barrier id %u is out of range 0..15", r->id);
    return false;
  }
  if (r->has_count && (r->count == 0 || r->count % 32)) {
    snprintf(err, n, "thread count %u is not a nonzero multiple of 32", r->count);
    return false;
  }
  if (r->kind == BK_ARRIVE && !r->has_count) {
    snprintf(err, n, "barrier.arrive requires a thread count");
    return false;
  }
  uint32_t id = r->id, cnt = r->has_count ? r->count : 0;
  bool red = r->kind >= BK_RED_POPC;
  BarWarp *w = &b->w[wid];
  Barrier *br = &b->bar[id];
  if (r->aligned && !bar_aligned_converged(err, n, mask, w->live, wid, (int)id, kn)) return false;
  if (br->arrived_warps >> wid & 1) {
    snprintf(err, n, "warp %d executes barrier.%s on barrier %u twice before the barrier "
             "completes (it already arrived in this generation)", wid, kn, id);
    return false;
  }
  /* form of the generation so far: own gathered lanes, then arrived warps */
  bool have = false, cur_red = false;
  uint32_t cur_cnt = 0;
  if (w->gather[id]) {   /* its lowest gathered lane */
    int l = __builtin_ctz(w->gather[id]);
    have = true;
    cur_red = w->kind[l] >= BK_RED_POPC;
    cur_cnt = w->cnt[l];
  }
  if (br->active) { have = true; cur_red = br->red; cur_cnt = br->expected; }
  if (have && cur_red != red) {
    snprintf(err, n, "barrier %u: barrier.%s mixed with %s in one generation of the barrier "
             "(.red cannot share a barrier with .sync/.arrive)", id, kn,
             cur_red ? "barrier.red" : "barrier.sync/.arrive");
    return false;
  }
  /* The no-count form and a count equal to the CTA's threads differ too:
     the ISA allows the mix, but an H200 faults on it (ILLEGAL_INSTRUCTION,
     tests/gpu: bar/misuse_count_vs_none.ptx; truth/bar_count_vs_none_128.ptx). */
  if (have && cur_cnt != cnt) {
    char c1[32], c2[32];
    if (cnt) snprintf(c1, sizeof c1, "%u", cnt); else snprintf(c1, sizeof c1, "none");
    if (cur_cnt) snprintf(c2, sizeof c2, "%u", cur_cnt); else snprintf(c2, sizeof c2, "none");
    snprintf(err, n, "barrier %u: thread count %s differs from the count %s of the threads "
             "already at the barrier", id, c1, c2);
    return false;
  }
  /* park the lanes */
  if (mask == UINT32_MAX) {   /* loops without branches for a converged warp */
    memset(w->at, (int8_t)id, sizeof w->at);
    memset(w->kind, (int)r->kind, sizeof w->kind);
    for (int l = 0; l < 32; l++) { w->dst[l] = r->dst; w->cnt[l] = cnt; w->where[l] = where; }
  } else {
    for (int l = 0; l < 32; l++) {
      if (!(mask >> l & 1)) continue;
      w->at[l] = (int8_t)id;
      w->kind[l] = (uint8_t)r->kind;
      w->dst[l] = r->dst;
      w->cnt[l] = cnt;
      w->where[l] = where;
    }
  }
  if (r->kind == BK_ARRIVE) w->arrivers[id] |= mask;
  if (!w->gather[id]) { w->gpopc[id] = 0; w->gall[id] = true; w->gany[id] = false; }
  w->gather[id] |= mask;
  w->parked[id] |= mask;
  if (red) {
    uint32_t p = r->pred & mask;
    w->gpopc[id] += (uint32_t)__builtin_popcount(p);
    w->gall[id] = w->gall[id] && p == mask;
    w->gany[id] = w->gany[id] || p != 0;
  }
  if ((w->gather[id] & w->live) == w->live) warp_arrives(b, wid, id, cnt, red);
  return true;
}

/* bar_aligned_converged's message (bar.h); false. */
bool bar_unconverged(char *buf, size_t n, uint32_t mask, uint32_t live, int wid, int id,
                     const char *form) {
  char what[64], instead[64], t1[160], t2[160];
  if (id >= 0) {
    snprintf(what, sizeof what, "aligned barrier %d (%s)", id, form);
    snprintf(instead, sizeof instead, "barrier.%s", form);
  } else {
    snprintf(what, sizeof what, "%s.aligned", form);
    snprintf(instead, sizeof instead, "%s", form);
  }
  lanes_text(mask, t1, sizeof t1);
  lanes_text(live, t2, sizeof t2);
  snprintf(buf, n, "%s reached by lanes %s of warp %d, which are not converged: its non-exited "
           "lanes are %s (use the non-aligned %s)", what, t1, wid, t2, instead);
  return false;
}

bool bar_poll(BarCta *b) {
  bool any = false;
  for (int i = 0; i < b->nwarps; i++) {
    BarWarp *w = &b->w[i];
    uint32_t gathering = 0;   /* most warps gather at no barrier: one look */
    for (uint32_t id = 0; id < BAR_IDS; id++) gathering |= w->gather[id];
    if (!gathering) continue;
    for (uint32_t id = 0; id < BAR_IDS; id++) {
      if (!w->gather[id] || (w->gather[id] & w->live) != w->live) continue;
      int l = __builtin_ctz(w->gather[id]);
      warp_arrives(b, i, id, w->cnt[l], w->kind[l] >= BK_RED_POPC);
      any = true;
    }
  }
  for (uint32_t id = 0; id < BAR_IDS; id++)
    if (done(b, id)) { complete(b, id); any = true; }
  return any;
}

bool bar_describe(const BarCta *b, int wid, int lane, char *buf, size_t n) {
  const BarWarp *w = &b->w[wid];
  int id = w->at[lane];
  if (id < 0) return b->ext_describe && b->ext_describe(b->ext, wid, lane, buf, n);
  const Barrier *br = &b->bar[id];
  char t[160];
  const char *kn = kind_name[w->kind[lane]];
  if (w->gather[id] >> lane & 1) {
    lanes_text(w->live & ~w->gather[id], t, sizeof t);
    snprintf(buf, n, "barrier %d (%s): its own warp is not gathered yet, lanes %s of warp %d "
             "have not reached a barrier instruction on id %d", id, kn, t, wid, id);
    return true;
  }
  uint32_t lw = live_warps(b), missing = lw & ~br->arrived_warps;
  char wl[160];
  lanes_text(missing, wl, sizeof wl);
  if (!missing) snprintf(wl, sizeof wl, "none (every warp with a live thread is here)");
  if (br->expected) {
    snprintf(buf, n, "barrier %d (%s): %u of %u threads arrived; warps not arrived: %s", id, kn,
             br->arrived_threads, br->expected, wl);
  } else {
    uint32_t arrived = 0, expected = 0;
    for (int i = 0; i < b->nwarps; i++) {
      uint32_t c = (uint32_t)__builtin_popcount(b->w[i].live);
      expected += c;
      if (br->arrived_warps >> i & 1) arrived += c;
    }
    snprintf(buf, n, "barrier %d (%s, no count: every warp with a live thread): %u of %u "
             "threads arrived; warps missing: %s", id, kn, arrived, expected, wl);
  }
  return true;
}
