/* bar.h: the CTA barrier state machine of bar{.cta} / barrier{.cta}
 * .sync / .arrive / .red (PTX ISA 9.0 §9.7.13.1; sync digest §5.2, §5.3).
 *
 * It knows warps by index and lanes by mask only, so it runs without an
 * interpreter (tests/unit/test_bar.c). src/exec/sync.c drives it: before
 * each call it tells every warp's non-exited lanes (bar_set_live), then
 * applies what the call released (BarWarp.release, with .red results).
 *
 * Model (digest §5.2): 16 barriers per CTA. A lane that executes a barrier
 * instruction on id a is parked; the warp's arrival at a is marked once its
 * parked/gathered lanes cover every non-exited lane of the warp (the aligned
 * forms require them all in one call, i.e. converged on one instruction).
 * An arrival adds 32 threads. .arrive lanes continue once their warp has
 * arrived; .sync and .red lanes wait for completion: with a count, when the
 * arrived threads reach it; without, when every warp with a non-exited lane
 * has arrived. Completion releases the waiters (with the .red result) and
 * resets the barrier. */
#ifndef PTXVM_SYNC_BAR_H
#define PTXVM_SYNC_BAR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { BAR_IDS = 16, BAR_MAX_WARPS = 32 };

typedef enum { BK_SYNC, BK_ARRIVE, BK_RED_POPC, BK_RED_AND, BK_RED_OR } BarKind;

/* One execution of a barrier instruction by the lanes of one call. */
typedef struct BarReq {
  uint32_t id;        /* barrier id (checked: 0..15) */
  uint32_t count;     /* thread count, 0 = none (no-count form) */
  bool has_count;     /* a count operand was given (checked: nonzero, %32) */
  BarKind kind;
  bool aligned;       /* bar.* and barrier.*.aligned */
  uint32_t pred;      /* .red: lanes whose (possibly negated) input is true */
  uint32_t dst;       /* opaque per-lane datum kept for the release (.red slot) */
} BarReq;

typedef struct BarWarp {
  uint32_t live;                /* non-exited lanes (bar_set_live) */
  uint32_t gather[BAR_IDS];     /* lanes executed, warp not arrived yet */
  uint32_t parked[BAR_IDS];     /* lanes blocked at the id */
  uint32_t gpopc[BAR_IDS];      /* .red contributions of the gathered lanes */
  bool gall[BAR_IDS], gany[BAR_IDS];
  uint32_t release;             /* lanes released, not yet applied by the caller */
  uint32_t red_release;         /* those of them with a .red result */
  uint32_t arrivers[BAR_IDS];   /* parked lanes of kind BK_ARRIVE */
  int8_t at[32];                /* id a lane is parked at, -1 none */
  uint8_t kind[32];             /* BarKind of the parked lane */
  uint32_t dst[32];             /* BarReq.dst of the parked lane */
  uint32_t cnt[32];             /* its thread count (0 = none) */
  uint32_t result[32];          /* .red result of a released lane */
  const void *where[32];        /* caller's datum: the instruction a lane waits at */
} BarWarp;

typedef struct Barrier {
  uint32_t expected;            /* count, 0 = no-count form */
  bool active;                  /* some warp arrived in this generation */
  bool red;                     /* the generation is a .red one */
  uint32_t arrived_threads;     /* 32 per arrived warp */
  uint32_t arrived_warps;       /* bit per warp */
  uint32_t popc;
  bool all, any;
  uint64_t generations;         /* completions so far */
} Barrier;

typedef struct BarCta {
  int nwarps;
  Barrier bar[BAR_IDS];
  BarWarp *w;
  uint32_t live_warps;          /* bit per warp with a non-exited lane (bar_set_live) */
  uint32_t releasing;           /* bit per warp whose release is nonempty (the caller
                                   clears it as it applies them) */
  uint64_t completions;         /* of any barrier, so far (the caller's statistics) */
  /* Other CTA-wide waiting state (the mbarrier table of src/exec/mbar.c):
     bar_free frees it with ext_free; bar_describe asks ext_describe about a
     lane that is not parked at a CTA barrier. */
  void *ext;
  void (*ext_free)(void *ext);
  /* Called as barrier id completes, before its waiters are released (the
     race checker, src/exec/race.c): w[i].parked[id] are its waiting lanes. */
  void (*on_complete)(void *ctx, const struct BarCta *b, uint32_t id);
  void *on_ctx;
  /* Called likewise, after on_complete, under --check (the synchronization
     misuse checker, src/exec/synccheck.c); NULL: none. */
  void (*on_check)(void *ctx, const struct BarCta *b, uint32_t id);
  void *check_ctx;
  bool (*ext_describe)(void *ext, int wid, int lane, char *buf, size_t n);
} BarCta;

BarCta *bar_new(int nwarps);
void bar_free(BarCta *b);
void bar_set_live(BarCta *b, int wid, uint32_t live);

/* Lanes `mask` of warp wid execute r (where = the caller's datum for the
 * deadlock report). Returns false with a message in err on misuse (digest
 * §5.3); the state is then unspecified. Released lanes (possibly including
 * `mask`) are added to the warps' release masks. */
bool bar_exec(BarCta *b, int wid, uint32_t mask, const BarReq *r, const void *where,
              char *err, size_t n);

/* The aligned-barrier rule (PTX ISA 9.7.13.1), the one check of bar_exec
 * and src/exec/cluster.c: lanes `mask` of warp wid executing an aligned
 * barrier must be all its non-exited lanes `live`. True when they are; else
 * false, with the message in buf. The barrier: CTA barrier `id` of kind
 * `form` ("sync", "arrive", "red.popc"...), or with id < 0 the cluster
 * barrier `form` ("barrier.cluster.arrive"); the message suggests its
 * non-aligned form. */
bool bar_unconverged(char *buf, size_t n, uint32_t mask, uint32_t live, int wid, int id,
                     const char *form);
static inline bool bar_aligned_converged(char *buf, size_t n, uint32_t mask, uint32_t live,
                                         int wid, int id, const char *form) {
  return mask == live || bar_unconverged(buf, n, mask, live, wid, id, form);
}

/* Re-checks gathering and no-count completion after exits. Returns true
 * if any lane was released. */
bool bar_poll(BarCta *b);

/* What a parked lane waits for (one line, no location); false if the lane
 * is not parked. */
bool bar_describe(const BarCta *b, int wid, int lane, char *buf, size_t n);

/* The CTA's barrier state, created on first use (src/exec/sync.c). */
struct Cta;
BarCta *sync_bar_state(struct Cta *c);


#endif
