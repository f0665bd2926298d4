/* spin.c: the spin detector: proves, within milliseconds, that a launch can
 * never finish because every thread left spins in a loop that nothing can
 * end (`bra $L`; a flag nobody will set; a test_wait on a phase that can
 * never complete), and otherwise leaves the loop to the watchdog
 * (--max-steps), which takes seconds to minutes. It claims only what it
 * proves: a report on a program that would finish is a wrong answer.
 *
 * Effects. An instruction is pure when it can change nothing but its own
 * lanes' registers, from those registers and memory it reads (exec_effect):
 * arithmetic, moves, conversions, loads, branches, fences, nanosleep,
 * test_wait, pending_count. Everything else is an effect: stores, atomics,
 * barriers and warp collectives (other lanes take part), calls, returns and
 * exits, mbarrier updates and try_wait, copies, and reading virtual time
 * (%clock, %globaltimer: it changes every step). Each warp counts the
 * effects it issues (WState.fx; guard-false ones too).
 *
 * A lane's future depends only on its pc, frames and registers and on the
 * memory it reads: not on how lanes are grouped or warps interleaved. A
 * lane that came back to the same pc with the same registers without any
 * effect in between goes round the same loop forever, under any schedule,
 * as long as the memory it reads does not change.
 *
 * Windows. Every SPIN_CHECK warp-instructions of a cluster (spin_check) the
 * sum of its warps' effects is compared with the last check's. A change,
 * a lane released by a poll, or time still mattering (a copy in flight or
 * a lane parked in try_wait, whose time limit may pass: mbar_cta_timeless)
 * closes the window; otherwise one opens, or stays open, and the warps
 * probe: at a backward branch taken by its whole lane group, while every
 * other runnable lane of the warp is held at an aligned barrier (where it
 * stays while the group spins), a warp snapshots its lanes (pcs, frames,
 * masks) and registers, and at a later one (1024 or more of its
 * instructions later, Brent's doubling for longer periods) compares. The
 * same snapshot again proves the warp spins (no effect in between: the
 * window is open). A cluster whose every warp is done, blocked (every live
 * lane waits: on a barrier, a collective, a cluster barrier, which only
 * effects release) or proven to spin is stuck as long as no other cluster
 * changes memory: cluster_resume returns CLUSTER_STUCK.
 *
 * Other clusters. A cluster announces its effects by bumping
 * Launch.progress at the check that sees them; a window records the value
 * when it opens and closes when it changes. The launcher (launch.c
 * "livelock") reports a livelock when every resident cluster is stuck in a
 * window opened at the current value and no cluster can start (none left,
 * or every host thread is full). Sound: let a stuck cluster X do an effect
 * after its proof, the earliest such effect of all; X's proof says some
 * other cluster Z wrote after X's window opened, before that effect. Z is
 * stuck too: had Z written before its own proof, a check of Z would have
 * bumped Launch.progress after X's window opened, which did not happen; so
 * Z's write came after Z's proof and before X's effect: an earlier such
 * effect. A contradiction.
 *
 * The note. A cluster that has run for NOTE_SECONDS of wall time sends the
 * launch's one note (Launch.note_fn): it is still running, where a warp is,
 * when the watchdog will stop it. */
#include "spin.h"

#include "program.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { NOTE_SECONDS = 4 };

bool exec_effect(const XInsn *x) {
  if (x->fn == exec_sreg_load) return sreg_timed(x);
  return op_has(x->op, OPF_FX);   /* FX in opcodes.def */
}

/* A warp's detector state: its snapshot and what was proven. */
typedef struct SpinWarp {
  bool valid, cyclic;
  uint64_t fx;              /* the warp's effects at the snapshot */
  uint32_t tries, limit;    /* comparisons since the snapshot; renewed after limit */
  uint32_t head, edge, group;   /* the loop (its target and branch pcs) and lanes */
  size_t n;
  uint8_t *snap;            /* SpinLanes, then the register files */
} SpinWarp;

void spin_free(void *slot) {
  SpinWarp *sp = slot;
  if (sp) free(sp->snap);
  free(sp);
}

/* The bytes of the warp's state: lanes, then the 32-bit, 64-bit and
 * predicate register files. */
static size_t state_size(const Warp *w) {
  const Program *p = w->launch->prog;
  return sizeof(SpinLanes) + (size_t)p->n32 * WARP_SIZE * 4 + (size_t)p->n64 * WARP_SIZE * 8 +
         (size_t)p->npred * 4;
}

static void state_copy(const Warp *w, const SpinLanes *ln, uint8_t *d) {
  const Program *p = w->launch->prog;
  size_t a = (size_t)p->n32 * WARP_SIZE * 4, b = (size_t)p->n64 * WARP_SIZE * 8;
  memcpy(d, ln, sizeof *ln);
  d += sizeof *ln;
  memcpy(d, w->r32, a);
  memcpy(d + a, w->r64, b);
  memcpy(d + a + b, w->pred, (size_t)p->npred * 4);
}

static bool state_same(const Warp *w, const SpinLanes *ln, const uint8_t *d) {
  const Program *p = w->launch->prog;
  size_t a = (size_t)p->n32 * WARP_SIZE * 4, b = (size_t)p->n64 * WARP_SIZE * 8;
  return !memcmp(d, ln, sizeof *ln) && !memcmp(d + sizeof *ln + a + b, w->pred, (size_t)p->npred * 4) &&
         !memcmp(d + sizeof *ln, w->r32, a) && !memcmp(d + sizeof *ln + a, w->r64, b);
}

bool spin_probe(Warp *w, void **slot, const SpinLanes *ln, uint64_t fx, uint32_t edge) {
  SpinWarp *sp = *slot;
  if (!sp) {
    sp = *slot = calloc(1, sizeof *sp);
    if (!sp) return false;
  }
  if (!sp->snap) {
    sp->n = state_size(w);
    sp->snap = malloc(sp->n);
    if (!sp->snap) return false;
  }
  if (sp->valid && sp->fx == fx && sp->edge == edge && state_same(w, ln, sp->snap)) {
    sp->cyclic = true;
    return true;
  }
  if (!sp->valid || sp->fx != fx || ++sp->tries >= sp->limit) {   /* Brent: renew, twice as late */
    sp->limit = !sp->valid || sp->fx != fx ? 1 : sp->limit < 64 ? 2 * sp->limit : 64;
    sp->tries = 0;
    state_copy(w, ln, sp->snap);
    sp->valid = true;
    sp->fx = fx;
    sp->head = ln->pc[__builtin_ctz(ln->group)];
    sp->edge = edge;
    sp->group = ln->group;
  }
  return false;
}

bool spin_loop(Warp *w, uint32_t *head, uint32_t *edge, uint32_t *lanes) {
  const SpinWarp *sp = *interp_spin(w);
  if (!sp || !sp->cyclic) return false;
  *head = sp->head, *edge = sp->edge, *lanes = sp->group;
  return true;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The launch's one note, from the first cluster that runs NOTE_SECONDS. */
static void note(Cluster *cl) {
  Launch *L = cl->launch;
  if (!L->note_fn || atomic_exchange(&L->noted, 1)) return;
  const Program *p = L->prog;
  char loc[512] = "", text[1024];
  for (int r = 0; r < cl->ncta && !loc[0]; r++)
    for (int i = 0; i < cl->ctas[r].nwarps && !loc[0]; i++) {
      const Warp *w = &cl->ctas[r].warps[i];
      uint32_t m = warp_live(w) & ~interp_waiting(w);
      if (m) exec_where(p, &p->code[interp_pc(w, __builtin_ctz(m))], loc, sizeof loc);
    }
  const uint32_t *c = cl->ctas[0].ctaid;
  snprintf(text, sizeof text, "note: kernel %s, %%ctaid (%u,%u,%u) still runs after %d s (%llu "
           "warp-instructions)%s%s; if it spins forever, the watchdog stops it after %llu "
           "(--max-steps)", L->kernel->name, c[0], c[1], c[2], NOTE_SECONDS,
           (unsigned long long)cl->steps, loc[0] ? ", a warp at " : "", loc,
           (unsigned long long)(L->max_steps ? L->max_steps : 1ull << 28));
  L->note_fn(text, L->note_user);
}

/* Closes the window (open = false) or opens a new one. */
static void window(Cluster *cl, bool open) {
  SpinCluster *sc = &cl->spin;
  sc->window = open;
  sc->progress = atomic_load(&cl->launch->progress);
  for (int r = 0; r < cl->ncta; r++)
    for (int i = 0; i < cl->ctas[r].nwarps; i++) {
      Warp *w = &cl->ctas[r].warps[i];
      SpinWarp *sp = *interp_spin(w);
      if (sp) {
        sp->valid = false;
        sp->cyclic = false;
      }
      interp_probe(w, open);
    }
}

bool spin_check(Cluster *cl, bool released) {
  SpinCluster *sc = &cl->spin;
  Launch *L = cl->launch;
  if (sc->t0 == 0) sc->t0 = now_s();
  else if (L->note_fn && !atomic_load(&L->noted) && now_s() - sc->t0 >= NOTE_SECONDS) note(cl);
  uint64_t fx = 0;
  bool timeless = true;
  for (int r = 0; r < cl->ncta; r++) {
    const Cta *c = &cl->ctas[r];
    for (int i = 0; i < c->nwarps; i++) fx += interp_effects(&c->warps[i]);
    timeless &= mbar_cta_timeless(c);
  }
  if (fx != sc->epoch) {   /* effects since the last check (the first: epoch UINT64_MAX) */
    sc->epoch = fx;
    atomic_fetch_add(&L->progress, 1);
    window(cl, false);
    return false;
  }
  if (released || !timeless) { window(cl, false); return false; }
  if (!sc->window || atomic_load(&L->progress) != sc->progress) { window(cl, true); return false; }
  bool spins = false;
  for (int r = 0; r < cl->ncta; r++)
    for (int i = 0; i < cl->ctas[r].nwarps; i++) {
      Warp *w = &cl->ctas[r].warps[i];
      if (!(warp_live(w) & ~interp_waiting(w))) continue;   /* done or blocked */
      uint32_t head, edge, lanes;
      if (!spin_loop(w, &head, &edge, &lanes)) return false;
      spins = true;
    }
  return spins;
}
