/* occupancy.c: how many CTAs of a kernel one SM of the modelled device
 * holds at once (ptxvm.h "the device ptxvm models", ptxvm_function_occupancy).
 *
 * The device is an sm_90 (PTXVM_DEVICE_* in ptxvm.h, the numbers of the CUDA
 * C++ Programming Guide for compute capability 9.0). An SM's CTAs are
 * bounded by four resources, and the least bound wins:
 *   - CTA slots: PTXVM_DEVICE_CTAS_PER_SM;
 *   - warp slots: 2048 threads, a CTA taking whole warps;
 *   - registers: a warp takes regs x 32 registers rounded up to the
 *     allocation unit of 256; the 65536 registers are 4 partitions of
 *     16384 and a warp's registers lie in one partition; a CTA must also
 *     fit the per-CTA limit with its warps counted in fours (one per
 *     partition);
 *   - shared memory: static + dynamic + the 1 KiB the GPU reserves per
 *     CTA, rounded up to 128 bytes, out of 228 KiB (the largest carveout,
 *     which the driver picks when a kernel needs it).
 * The allocation units and partitions are those the CUDA toolkit's
 * occupancy calculator (cuda_occupancy.h) states for sm_90.
 *
 * A cluster's CTAs may take the CTA slots of any SMs: the model has no
 * GPCs (whose sizes on an H100 are not documented), so the device holds
 * SMs x CTAs per SM / cluster size clusters at once.
 *
 * Registers are the model's one assumption: PTX allocates none (ptxas
 * does), so a kernel is taken to use 32 per thread, the most at which a
 * full SM (2048 threads) fits in its registers, so that registers never
 * bound occupancy below the other limits; .maxnreg lowers it. Named
 * barriers (16 per CTA) are not counted. */
#include "../../include/ptxvm.h"
#include "../exec/interp.h"

enum {
  REGS_ASSUMED = PTXVM_DEVICE_REGS_PER_SM / PTXVM_DEVICE_THREADS_PER_SM,   /* 32 */
  REG_UNIT = 256,           /* registers per warp are allocated in these */
  PARTITIONS = 4,           /* register file partitions per SM */
  SHARED_UNIT = 128,        /* shared memory per CTA is allocated in these */
  MAX_CTA_THREADS = 1024,
};

static uint32_t round_up(uint64_t v, uint32_t unit) { return (uint32_t)((v + unit - 1) / unit * unit); }

unsigned occupancy_regs(const Function *k) {
  return k->maxnreg && k->maxnreg < REGS_ASSUMED ? k->maxnreg : REGS_ASSUMED;
}

/* Registers a warp of k takes. */
static uint32_t warp_regs(const Function *k) { return round_up((uint64_t)occupancy_regs(k) * WARP_SIZE, REG_UNIT); }

/* Whether a CTA of `warps` warps of k fits the per-CTA register limit. */
static bool regs_fit(const Function *k, uint32_t warps) {
  return (uint64_t)warp_regs(k) * round_up(warps, PARTITIONS) <= PTXVM_DEVICE_REGS_PER_CTA;
}

unsigned occupancy_max_threads(const Function *k) {
  uint32_t n = MAX_CTA_THREADS;
  const uint32_t *d = k->reqntid[0] ? k->reqntid : k->maxntid[0] ? k->maxntid : NULL;
  if (d) {
    uint64_t v = (uint64_t)d[0] * (d[1] ? d[1] : 1) * (d[2] ? d[2] : 1);
    if (v < n) n = (uint32_t)v;
  }
  while (n > WARP_SIZE && !regs_fit(k, (n + WARP_SIZE - 1) / WARP_SIZE))
    n = (n - 1) / WARP_SIZE * WARP_SIZE;   /* the next lower whole warp */
  return n;
}

unsigned occupancy_ctas(const Function *k, uint32_t threads, uint64_t shared) {
  if (!threads || threads > occupancy_max_threads(k) || shared > PTXVM_DEVICE_SHARED_PER_CTA) return 0;
  uint32_t warps = (threads + WARP_SIZE - 1) / WARP_SIZE;
  uint32_t n = PTXVM_DEVICE_CTAS_PER_SM;
  uint32_t by_warps = PTXVM_DEVICE_THREADS_PER_SM / WARP_SIZE / warps;
  uint32_t per_partition = PTXVM_DEVICE_REGS_PER_SM / PARTITIONS / warp_regs(k);
  uint32_t by_regs = per_partition * PARTITIONS / warps;
  uint32_t by_shared = PTXVM_DEVICE_SHARED_PER_SM /
                       round_up(shared + PTXVM_DEVICE_SHARED_RESERVED_PER_CTA, SHARED_UNIT);
  if (by_warps < n) n = by_warps;
  if (by_regs < n) n = by_regs;
  if (by_shared < n) n = by_shared;
  return n;
}

unsigned occupancy_clusters(const Function *k, uint32_t threads, uint64_t shared, uint32_t cluster_ctas) {
  uint64_t n = (uint64_t)PTXVM_DEVICE_SMS * occupancy_ctas(k, threads, shared) / (cluster_ctas ? cluster_ctas : 1);
  return (unsigned)n;
}
