/* sreg.c: special registers (PTX ISA 9.0 chapter 10; sync digest §2).
 *
 * Lowering resolves a special register's name to an id once (sreg_id), and
 * a pseudo-instruction (exec_sreg_load) copies its value into a hidden slot
 * before the instruction that reads it; `mov %r, %sreg` uses the same
 * handler with the destination as its slot.
 *
 * Values: %tid/%ntid/%ctaid/%nctaid from the launch; %laneid, %warpid and
 * %lanemask_* from the warp; clusters from launch->cluster (1,1,1 when
 * unset) with the CTA rank x-fastest; %smid spreads CTAs over NSMID
 * virtual SMs. %clock, %clock64 and %globaltimer advance in virtual time:
 * one cycle (= one nanosecond) per warp-instruction plus nanosleep time, so
 * spin loops with back-off terminate. %envreg0..31 read the launch's values
 * (ptxvm_launch_ex: 0 by default; a cooperative launch's grid workspace in
 * %envreg1:%envreg2); %pm and the reserved shared window registers read 0,
 * and so does the .w component of every .v4 register (%tid.w, %ntid.w, ...). */
#include "program.h"

#include <stdlib.h>
#include <string.h>

#include "../../include/ptxvm.h"

enum { NSMID = PTXVM_DEVICE_SMS };

typedef enum {
  SR_TID, SR_NTID, SR_CTAID, SR_NCTAID, SR_CLUSTERID, SR_NCLUSTERID,
  SR_CLUSTER_CTAID, SR_CLUSTER_NCTAID, SR_LANEID, SR_WARPID, SR_NWARPID,
  SR_SMID, SR_NSMID, SR_GRIDID, SR_CLUSTER_CTARANK, SR_CLUSTER_NCTARANK,
  SR_IS_EXPLICIT_CLUSTER, SR_LANEMASK_EQ, SR_LANEMASK_LE, SR_LANEMASK_LT,
  SR_LANEMASK_GE, SR_LANEMASK_GT, SR_CLOCK, SR_CLOCK_HI, SR_CLOCK64,
  SR_GLOBALTIMER, SR_GLOBALTIMER_LO, SR_GLOBALTIMER_HI, SR_DYNAMIC_SMEM_SIZE,
  SR_TOTAL_SMEM_SIZE, SR_AGGR_SMEM_SIZE, SR_ZERO,
  SR_ENVREG,                /* %envreg0; %envregN is SR_ENVREG + N */
} SregId;

static const struct { const char *name; SregId id; } names[] = {
  {"%tid", SR_TID}, {"%ntid", SR_NTID}, {"%ctaid", SR_CTAID}, {"%nctaid", SR_NCTAID},
  {"%clusterid", SR_CLUSTERID}, {"%nclusterid", SR_NCLUSTERID},
  {"%cluster_ctaid", SR_CLUSTER_CTAID}, {"%cluster_nctaid", SR_CLUSTER_NCTAID},
  {"%laneid", SR_LANEID}, {"%warpid", SR_WARPID}, {"%nwarpid", SR_NWARPID},
  {"%smid", SR_SMID}, {"%nsmid", SR_NSMID}, {"%gridid", SR_GRIDID},
  {"%cluster_ctarank", SR_CLUSTER_CTARANK}, {"%cluster_nctarank", SR_CLUSTER_NCTARANK},
  {"%is_explicit_cluster", SR_IS_EXPLICIT_CLUSTER},
  {"%lanemask_eq", SR_LANEMASK_EQ}, {"%lanemask_le", SR_LANEMASK_LE},
  {"%lanemask_lt", SR_LANEMASK_LT}, {"%lanemask_ge", SR_LANEMASK_GE},
  {"%lanemask_gt", SR_LANEMASK_GT}, {"%clock", SR_CLOCK}, {"%clock_hi", SR_CLOCK_HI},
  {"%clock64", SR_CLOCK64}, {"%globaltimer", SR_GLOBALTIMER},
  {"%globaltimer_lo", SR_GLOBALTIMER_LO}, {"%globaltimer_hi", SR_GLOBALTIMER_HI},
  {"%dynamic_smem_size", SR_DYNAMIC_SMEM_SIZE}, {"%total_smem_size", SR_TOTAL_SMEM_SIZE},
  {"%aggr_smem_size", SR_AGGR_SMEM_SIZE},
};

int sreg_id(const char *name) {
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (!strcmp(names[i].name, name)) return (int)names[i].id;
  if (!strncmp(name, "%envreg", 7)) {   /* %envreg0..31: the parser declares no others */
    long n = strtol(name + 7, NULL, 10);
    return n >= 0 && n < 32 ? SR_ENVREG + (int)n : -1;
  }
  /* %pm0..7(_64), %reserved_smem_offset_*, %current_graph_exec */
  if (!strncmp(name, "%pm", 3) ||
      !strncmp(name, "%reserved_smem_", 15) || !strcmp(name, "%current_graph_exec"))
    return SR_ZERO;
  return -1;
}

static uint32_t cluster_dim(const Launch *L, int c) { return L->cluster[c] ? L->cluster[c] : 1; }

static uint64_t cluster_value(Warp *w, int id, int c) {
  const Launch *L = w->launch;
  const uint32_t *ct = w->cta->ctaid;
  switch (id) {
  case SR_CLUSTERID: return ct[c] / cluster_dim(L, c);
  case SR_NCLUSTERID: return L->grid[c] / cluster_dim(L, c);
  case SR_CLUSTER_CTAID: return ct[c] % cluster_dim(L, c);
  case SR_CLUSTER_NCTAID: return cluster_dim(L, c);
  case SR_CLUSTER_CTARANK:
    return ct[0] % cluster_dim(L, 0) +
           cluster_dim(L, 0) * (ct[1] % cluster_dim(L, 1) + cluster_dim(L, 1) * (ct[2] % cluster_dim(L, 2)));
  default:
    return (uint64_t)cluster_dim(L, 0) * cluster_dim(L, 1) * cluster_dim(L, 2);
  }
}

static uint32_t smem_total(const Warp *w) { return w->cta->shared_size; }

uint64_t sreg_value(Warp *w, int id, int c, int lane) {
  const Launch *L = w->launch;
  const uint32_t *ct = w->cta->ctaid;
  uint32_t bit = 1u << lane;
  /* .w of the .v4 registers: "the fourth element is unused and always
   * returns zero" (PTX ISA 9.0 §10.1, 10.2, 10.6, 10.7, 10.12-10.15; %ntid
   * and %nctaid too) */
  if (c > 2) return 0;
  switch ((SregId)id) {
  case SR_TID: return w->tid[c][lane];
  case SR_NTID: return L->block[c];
  case SR_CTAID: return ct[c];
  case SR_NCTAID: return L->grid[c];
  case SR_CLUSTERID: case SR_NCLUSTERID: case SR_CLUSTER_CTAID: case SR_CLUSTER_NCTAID:
  case SR_CLUSTER_CTARANK: case SR_CLUSTER_NCTARANK:
    return cluster_value(w, id, c);
  case SR_LANEID: return (uint64_t)lane;
  case SR_WARPID: return (uint64_t)w->id;
  case SR_NWARPID: return (uint64_t)w->cta->nwarps;
  case SR_SMID: return (ct[0] + L->grid[0] * (ct[1] + (uint64_t)L->grid[1] * ct[2])) % NSMID;
  case SR_NSMID: return NSMID;
  case SR_GRIDID: return 1;
  case SR_IS_EXPLICIT_CLUSTER: return L->explicit_cluster;
  case SR_LANEMASK_EQ: return bit;
  case SR_LANEMASK_LE: return bit | (bit - 1);
  case SR_LANEMASK_LT: return bit - 1;
  case SR_LANEMASK_GE: return ~(bit - 1) & 0xffffffffu;
  case SR_LANEMASK_GT: return ~(bit | (bit - 1)) & 0xffffffffu;
  case SR_CLOCK: return (uint32_t)interp_clock(w);
  case SR_CLOCK_HI: return (uint32_t)(interp_clock(w) >> 32);
  case SR_CLOCK64: case SR_GLOBALTIMER: return interp_clock(w);
  case SR_GLOBALTIMER_LO: return (uint32_t)interp_clock(w);
  case SR_GLOBALTIMER_HI: return (uint32_t)(interp_clock(w) >> 32);
  case SR_DYNAMIC_SMEM_SIZE: return L->dyn_shared;
  case SR_TOTAL_SMEM_SIZE: case SR_AGGR_SMEM_SIZE: return smem_total(w);
  case SR_ZERO: return 0;
  default: return id >= SR_ENVREG && id < SR_ENVREG + 32 ? L->envreg[id - SR_ENVREG] : 0;
  }
}

bool sreg_timed(const XInsn *x) {
  switch (x->sub) {
  case SR_CLOCK: case SR_CLOCK_HI: case SR_CLOCK64: case SR_GLOBALTIMER: case SR_GLOBALTIMER_LO:
  case SR_GLOBALTIMER_HI:
    return true;
  default:
    return false;
  }
}

/* Whether the register's value differs between the lanes of a warp
 * (sreg_value reads `lane` for these only). */
static bool per_lane(int id) {
  return id == SR_TID || id == SR_LANEID || (id >= SR_LANEMASK_EQ && id <= SR_LANEMASK_GT);
}

XStatus exec_sreg_load(Warp *w, const XInsn *x, uint32_t mask) {
  int id = x->sub, c = (int)x->imm;
  if (x->type == TY_PRED) {
    uint32_t v = 0;
    FOR_LANES(l) if (ACTIVE(mask, l) && sreg_value(w, id, c, l)) v |= 1u << l;
    w->pred[x->slot[0]] = (w->pred[x->slot[0]] & ~mask) | v;
  } else if (type_size((Type)x->type) == 8) {
    uint64_t *d = R64(w, x->slot[0]);
    if (!per_lane(id)) {
      uint64_t v = sreg_value(w, id, c, 0);
      FOR_LANES(l) if (ACTIVE(mask, l)) d[l] = v;
    } else FOR_LANES(l) if (ACTIVE(mask, l)) d[l] = sreg_value(w, id, c, l);
  } else {
    uint32_t *d = R32(w, x->slot[0]);
    if (id == SR_TID && c <= 2) merge32(d, w->tid[c], mask);   /* the warp keeps them */
    else if (!per_lane(id)) {   /* one value for the warp: read once */
      uint32_t v = (uint32_t)sreg_value(w, id, c, 0), t[WARP_SIZE];
      FOR_LANES(l) t[l] = v;
      merge32(d, t, mask);
    } else FOR_LANES(l) if (ACTIVE(mask, l)) d[l] = (uint32_t)sreg_value(w, id, c, l);
  }
  return XS_NEXT;
}
HANDLER_NAME(exec_sreg_load);
