/* interp.h: programs (lowered modules), CTAs and launches, as the launcher
 * (src/sched/) and the interpreter (src/exec/interp.c) share them. */
#ifndef PTXVM_INTERP_H
#define PTXVM_INTERP_H

#include <stdatomic.h>

#include "../mem/mem.h"
#include "exec.h"

typedef struct Program Program;

/* Lowers every function of m. Module-scope .global and .const variables are
 * allocated in dev and initialised (addresses of variables and functions
 * resolved). An instruction that is not supported does not fail it: it is
 * recorded in Program.refusals (program.h) and refuses the kernels that can
 * reach it. Returns NULL with *err set (malloc'd "FILE:LINE:COL: ..."
 * message) when the module as a whole cannot be lowered (its local memory
 * or variables do not fit) or memory runs out. */
Program *program_build(const Module *m, Device *dev, char **err);
/* The first half of program_build, what loading a module must settle: the
 * variables (device memory, initialisers, shared and local layout), the
 * frames of every function, and so every error that stops the module as a
 * whole (NULL with *err as program_build). No registers or code yet:
 * program_lower gives them to functions when a launch needs them, so a
 * module of hundreds of kernels costs, in time and in each warp's register
 * file, only the ones used. */
Program *program_layout(const Module *m, Device *dev, char **err);
/* Lowers what kernel needs that is not lowered yet (the functions it can
 * reach, in declaration order; NULL: every function), with the same code
 * and refusals as program_build would give them. Returns false with *err
 * set (malloc'd; NULL when out of memory) when memory runs out or a
 * label is missing; p is then as it was. */
bool program_lower(Program *p, const Function *kernel, char **err);
/* Whether kernel and every function it can reach are lowered. */
bool program_kernel_lowered(const Program *p, const Function *kernel);
void program_free(Program *p);

/* Static shared memory of a kernel (bytes, the start of its dynamic area),
 * as laid out by lowering; may exceed what a launch allows (launch_check). */
uint64_t program_static_shared(const Program *p, const Function *kernel);
uint64_t program_static_shared_size(const Program *p, const Function *kernel);   /* CUDA's static size */
/* Device address of a module-scope variable (0 if it has none). */
uint64_t program_var_addr(const Program *p, const Symbol *var);

/* Counters of a launch (ptxvm_launch_stats): per opcode family, warp- and
 * thread-instructions (popcount of the executing mask, guard applied);
 * synchronization completions by ExecEvent; lane-group splits (a divergent
 * branch) and merges (a group picked that strictly contains the previous
 * one). Kept per warp and per cluster, added to Launch.stats when a cluster
 * ends (under a lock). */
typedef struct LaunchStats {
  uint64_t warp_insns[FAM_COUNT], thread_insns[FAM_COUNT];
  uint64_t events[EV_COUNT];
  uint64_t splits, merges;
} LaunchStats;

struct Launch {
  const Program *prog;
  const Function *kernel;
  Device *dev;
  uint32_t grid[3], block[3], cluster[3];   /* CTAs, threads, CTAs */
  const uint8_t *params;    /* kernel parameter buffer (layout as ptxvm_function_get_param) */
  uint32_t param_size;
  uint32_t dyn_shared;      /* dynamic shared memory per CTA, bytes */
  bool cooperative;         /* every cluster resident at once (launch_run) */
  bool explicit_cluster;    /* a cluster launch: %is_explicit_cluster */
  uint32_t envreg[32];      /* %envreg0..31 (ptxvm_launch_ex) */
  uint64_t max_steps;       /* watchdog: warp-instructions per cluster before a
                               runaway report (0 = default) */
  uint64_t schedule;        /* warp order: 0 round-robin in warp order, else
                               the seed of a pseudo-random order and quanta */
  bool check;               /* --check: record findings (exec_report) */
  bool has_async_delay;     /* async_delay set (ptxvm_set_async_delay); else
                               PTXVM_ASYNC_DELAY or 2000 (src/exec/async.c) */
  uint64_t async_delay;     /* virtual ns from issue to copy completion */
  const MemObserver *observer;  /* the memory-access hook (exec.h); NULL: none */
  struct RaceLaunch *race;  /* the race checker (src/exec/race.c) under check */
  struct InitLaunch *init;  /* the uninitialized-read checker (initcheck.c) */
  struct ProxyLaunch *proxy; /* the proxy-race checker (proxycheck.c) */
  struct LaunchFindings *findings;  /* src/exec/report.c; NULL when none */
  _Atomic int *cancel;      /* nonzero: stop (ptxvm_cancel); checked once a
                               round by each cluster and between clusters;
                               NULL when none */
  unsigned jobs;            /* host threads running clusters (launch_run);
                               0 or 1: one, in the calling thread */
  uint64_t started;         /* clusters started so far (launch_run; read by the
                               runaway report, atomically) */
  char *error;              /* first fault: malloc'd message; the launch stops.
                               Of faults in several clusters, the one of the
                               lowest cluster index (x, y, z order) is kept */
  uint64_t error_cluster;   /* that index */
  int fault_kind;           /* FaultKind of error, when it is a fault */
  char *assertion;          /* with a FAULT_ASSERT error: the lines a GPU
                               prints for it (exec_assert_fault); malloc'd */
  bool deadlock;            /* set with error when the failure is a deadlock
                               or a livelock (PTXVM_ERROR_DEADLOCK) */
  _Atomic uint64_t progress; /* the spin detector (src/exec/spin.c): bumped by
                               a cluster whose warps had effects since its last
                               check; a proof of a stuck cluster holds while it
                               does not change */
  /* Notes on a launch in progress (ptxvm_set_note_callback); NULL: none. */
  void (*note_fn)(const char *text, void *user);
  void *note_user;
  _Atomic int noted;        /* the note was sent (one per launch) */
  bool halted;              /* a livelock was found: every cluster stops (under
                               the error lock, launch_livelock) */
  /* Device printf output (vprintf, src/exec/printf.c): each formatted call
     is passed whole, in execution order; NULL discards it. */
  void (*printf_fn)(const char *text, size_t len, void *user);
  void *printf_user;
  uint64_t printf_limit;    /* bytes of printf output kept per cluster
                               (ptxvm_set_printf_buffer; 0: the default) */
  /* printf output dropped at that limit, counted as it is passed on (in
     cluster order): calls, bytes, clusters, the cluster id of the first */
  uint64_t printf_lost_calls, printf_lost_bytes, printf_lost_clusters;
  uint32_t printf_lost_first[3];
  LaunchStats stats;        /* what ran (cluster_end adds each cluster's) */
  struct Trace *trace;      /* the timeline (src/exec/trace.h); NULL: none */
};

typedef struct LaunchFindings LaunchFindings;

/* Whether the launch has been cancelled (Launch.cancel). */
static inline bool launch_cancelled(const Launch *l) {
  return l->cancel && atomic_load_explicit(l->cancel, memory_order_relaxed);
}

/* Whether the launch records checker findings (exec_report); a Warp made
 * by hand without a launch (unit tests) never does. */
static inline bool exec_checking(const Warp *w) { return w->launch && w->launch->check; }

/* The findings of a launch as one malloc'd text, one finding (message and
 * location line) after another, "... N more findings" last when the bound
 * was reached; NULL when there are none. Frees the list. */
char *launch_findings_take(Launch *L);

typedef struct Cluster Cluster;

/* The spin detector's state of a cluster (src/exec/spin.c). */
typedef struct SpinCluster {
  uint64_t next;            /* Cluster.steps at the next check */
  uint64_t epoch;           /* the warps' effects at the last check */
  uint64_t progress;        /* Launch.progress when the window began */
  bool window;              /* a window is open: no effect since it began, the
                               warps probe */
  double t0;                /* wall time of the cluster's start, seconds */
} SpinCluster;

struct Cta {
  Launch *launch;
  Cluster *cluster;         /* the cluster it runs in (NULL: a Cta made by hand) */
  uint32_t rank;            /* %cluster_ctarank */
  bool exited;              /* every thread has exited (its shared memory is gone) */
  uint32_t ctaid[3];
  uint8_t *shared;          /* static + dynamic shared memory */
  uint32_t shared_size;
  Warp *warps;
  int nwarps;
  uint8_t *wmem;            /* the warps' state, one block (interp.c warp_init) */
  void *sync;               /* barrier state (src/sync/) */
  uint8_t *written;         /* --check: shared bytes written, a bit each
                               (src/exec/initcheck.c); NULL: none yet */
  uint32_t nwritten;        /* --check: how many bytes of written are set (all: every load settled) */
  void *proxy;              /* --check: shared bytes' generic writers and the
                               threads' proxy fences (src/exec/proxycheck.c) */
  void *synccheck;          /* --check: each barrier id's last completion
                               (src/exec/synccheck.c); NULL: none yet */
};

/* The CTAs of one cluster, co-resident (a launch without clusters runs
 * clusters of one CTA). ctas[r] is the CTA of %cluster_ctarank r. A
 * cluster is resumable: what its loop needs between two cluster_resume
 * calls is kept here. */
struct Cluster {
  Launch *launch;
  uint32_t id[3];           /* %clusterid */
  int ncta;
  Cta *ctas;
  void *bar;                /* barrier.cluster state (src/exec/cluster.c) */
  void *race;               /* the race checker's state (src/exec/race.c) */
  uint64_t index;           /* linear index in the grid (x, y, z order) */
  uint64_t steps;           /* warp-instructions run so far (the watchdog) */
  uint64_t rng;             /* Launch.schedule: CTA and warp order state */
  int worder[1024 / WARP_SIZE], corder[64];   /* Launch.schedule: the orders */
  LaunchStats stats;        /* added to Launch.stats by cluster_end */
  SpinCluster spin;
  void *trace;              /* the timeline's state (trace.c); NULL: none */
};

typedef enum { CLUSTER_DONE, CLUSTER_FAILED, CLUSTER_YIELD, CLUSTER_STUCK } ClusterStatus;

/* Creates the cluster of the launch at clusterid (linear index `index`):
 * its CTAs and their warps. NULL (launch->error set) when memory runs out. */
Cluster *cluster_start(Launch *launch, const uint32_t clusterid[3], uint64_t index);
/* Runs the cluster's warps interleaved (so that its CTAs can wait on each
 * other) until every thread has exited (CLUSTER_DONE), a fault occurs or no
 * warp can progress (CLUSTER_FAILED: launch->error set, for a deadlock a
 * report listing every waiting warp of every CTA of the cluster; also when
 * the launch is cancelled or a lower cluster failed), or, after a round, at
 * least `budget` warp-instructions ran since the call (CLUSTER_YIELD: call
 * again to continue; the launcher runs other clusters meanwhile, so one
 * that spins on a flag another sets lets it run), or CLUSTER_STUCK: every
 * thread left spins in a loop that nothing of the cluster can end
 * (src/exec/spin.c); call again to go on, or report it with
 * cluster_livelock_text when no other cluster can change memory. */
ClusterStatus cluster_resume(Cluster *cl, uint64_t budget);
/* The livelock report of a cluster that returned CLUSTER_STUCK: every
 * spinning warp with its loop, every waiting warp as in a deadlock report
 * (malloc'd; NULL without memory). */
char *cluster_livelock_text(Cluster *cl);
/* Records msg (ownership passes) as the launch's failure, a livelock of the
 * cluster of linear index `index`, unless a fault is recorded already (the
 * spin most likely waits for that cluster); either way every cluster
 * stops (CLUSTER_FAILED). */
void launch_livelock(Launch *L, uint64_t index, char *msg);
/* Writes to buf (n bytes) the note that names the first CTA that had not
 * started, if some had not (runaway and livelock reports); false (buf
 * untouched) when all had. */
bool launch_unstarted_note(Launch *L, char *buf, size_t n);
/* Frees the cluster and adds its counts to Launch.stats. */
void cluster_end(Cluster *cl);
/* The linear index (x, y, z order) of the cluster the calling host thread
 * runs (0 unless set; cluster_start, cluster_resume and cluster_end set it):
 * a fault it records replaces one of a higher index, and it stops only for
 * a fault of its own or of a lower index, so that a launch on several
 * threads fails as it would on one (launch_run). */
void launch_set_current(uint64_t cluster_index);
uint64_t launch_current(void);
/* Runs one CTA alone, as a cluster of one (unit tests). */
bool cta_run(Launch *launch, const uint32_t ctaid[3]);

/* barrier.cluster (src/exec/cluster.c): re-checks completion after exits
 * (true if a waiting lane was released); what a lane waits for (false if it
 * does not wait on the cluster barrier); frees the state. */
bool cluster_bar_poll(Cluster *cl);
bool cluster_bar_describe(const Cta *c, int wid, int lane, char *buf, size_t n);
void cluster_bar_free(Cluster *cl);
/* The CTA of w's cluster whose shared memory holds [p, p + n) (p from
 * mem_ptr on a .shared::cluster or generic address), or NULL: for
 * operations on objects in another CTA's shared memory (remote mbarrier
 * arrive, cp.async.bulk.shared::cluster completing on that CTA's mbarrier). */
Cta *cluster_cta_of(const Warp *w, const void *p, size_t n);

/* ---- the launcher (src/sched/launch.c) ---- */

/* Checks a launch configuration against the limits of sm_90 and the kernel's
 * directives (.reqntid, .maxntid, .reqnctapercluster, cluster size): every
 * dimension >= 1, grid x < 2^31 and y, z < 65536, block x, y <= 1024, z <= 64
 * and at most 1024 threads, each grid dimension a multiple of the cluster's,
 * at most 8 CTAs per cluster (16 with .maxclusterrank/.explicitcluster
 * allowing), shared memory (static + dynamic) within 227 KiB. Returns false
 * with a message in err (errlen bytes) when it is violated. */
bool launch_check(const Function *kernel, const uint32_t grid[3], const uint32_t block[3],
                  const uint32_t cluster[3], uint64_t shared_bytes, char *err, size_t errlen);
/* As launch_check; nonportable: clusters of up to 16 CTAs whatever the
 * kernel's .maxclusterrank (ptxvm_launch_options.cluster_nonportable). */
bool launch_check_shape(const Function *kernel, const uint32_t grid[3], const uint32_t block[3],
                        const uint32_t cluster[3], uint64_t shared_bytes, bool nonportable, char *err,
                        size_t errlen);
/* A cooperative launch's check (after launch_check): the grid's clusters
 * must all be resident at once on the device model (occupancy_clusters). */
bool launch_check_cooperative(const Function *kernel, const uint32_t grid[3], const uint32_t block[3],
                              const uint32_t cluster[3], uint64_t shared_bytes, char *err, size_t errlen);

/* ---- the occupancy model (src/sched/occupancy.c; ptxvm.h) ---- */

/* Registers per thread assumed for kernel k (32, or .maxnreg if lower). */
unsigned occupancy_regs(const Function *k);
/* The most threads a CTA of k may have (1024, .maxntid/.reqntid, registers). */
unsigned occupancy_max_threads(const Function *k);
/* CTAs of k with `threads` threads and `shared` bytes of shared memory
 * (static + dynamic) each that one SM holds at once; 0 if none fits. */
unsigned occupancy_ctas(const Function *k, uint32_t threads, uint64_t shared);
/* Clusters of cluster_ctas such CTAs the whole device holds at once. */
unsigned occupancy_clusters(const Function *k, uint32_t threads, uint64_t shared, uint32_t cluster_ctas);
/* Runs every cluster of the launch (clusters started in x, y, z order),
 * stopping at the first one that fails (launch->error set). The clusters
 * run on launch->jobs host threads (one with --check), each keeping up to
 * 16 CTAs resident (every CTA of a cooperative launch) and running them in
 * turns, so that a CTA waiting for a CTA started after it makes progress; after a fault no further cluster is
 * started, the fault of the lowest cluster index is the launch's, and
 * printf output is passed on cluster by cluster in index order, none of
 * the clusters after the failing one: the same on any number of threads,
 * for kernels whose clusters do not race. Returns true when all
 * completed. */
bool launch_run(Launch *launch);

#endif
