/* launch.c: launches, function attributes and the occupancy calculator of
 * ptxvm's CUDA driver, a self-checking program run by tests/run.py as
 * `ptxvm exec -j 2 PROGRAM` (driver_api.c says how). The expected values are
 * cuda.h's documented answers, the device model's arithmetic done by hand
 * in the comments (ptxvm.h PTXVM_DEVICE_*: 132 SMs, 2048 threads, 32 CTAs,
 * 65536 registers and 228 KiB of shared memory per SM, 1 KiB reserved and
 * 128-byte units per CTA, 32 registers per thread assumed), and a host
 * loop that computes what the grid-barrier kernel must leave.
 *
 * gridsync_ptx below is tests/cuda/ptx/grid_sync.sm_90.ptx, what nvcc 13.0
 * made of tests/cuda/grid_sync.cu (nvcc -arch=sm_90 -ptx; tests/cuda/gen.sh),
 * with its comment and blank lines left out, tabs as spaces, each line
 * quoted.
 *
 * EXEC: -j 2
 * STDERR: ptxvm: 'gridsync_rounds': a cooperative grid of 2113 CTAs is more than the 2112 the device holds at once
 * STDERR-ONCE: ptxvm: cuLaunchKernelEx: CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN is not implemented
 * STDERR: ptxvm: 'expl' is .explicitcluster without .reqnctapercluster
 * STDERR: ptxvm: 'req2': cluster 4,1,1 differs from the kernel's required cluster shape 2,1,1
 * STDERR: ptxvm: 'cl': capturing a launch with a programmatic or launch-completion event into a graph is not implemented
 * STDERR: ptxvm: cuGraphKernelNodeSetAttribute: kernel node attribute 8 is not implemented
 * STDERR: ptxvm: trap
 * STDERR: ptxvm:   at <ptx>:
 */
#include <cuda.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "../unit/check.h"

static const char gridsync_ptx[] =
  ".version 9.0\n"
  ".target sm_90\n"
  ".address_size 64\n"
  " // .globl gridsync_rounds\n"
  ".visible .entry gridsync_rounds(\n"
  " .param .u64 gridsync_rounds_param_0,\n"
  " .param .u32 gridsync_rounds_param_1\n"
  ")\n"
  "{\n"
  " .reg .pred  %p<12>;\n"
  " .reg .b32  %r<109>;\n"
  " .reg .b64  %rd<55>;\n"
  " ld.param.u64  %rd8, [gridsync_rounds_param_0];\n"
  " ld.param.u32  %r6, [gridsync_rounds_param_1];\n"
  " // begin inline asm\n"
  " mov.u32 %r7, %envreg2;\n"
  " // end inline asm\n"
  " cvt.u64.u32  %rd9, %r7;\n"
  " // begin inline asm\n"
  " mov.u32 %r8, %envreg1;\n"
  " // end inline asm\n"
  " cvt.u64.u32  %rd10, %r8;\n"
  " bfi.b64  %rd1, %rd10, %rd9, 32, 32;\n"
  " setp.lt.s32  %p1, %r6, 1;\n"
  " @%p1 bra  $L__BB0_16;\n"
  " mov.u32  %r9, %nctaid.y;\n"
  " mov.u32  %r10, %ctaid.z;\n"
  " mul.wide.u32  %rd11, %r9, %r10;\n"
  " mov.u32  %r11, %ctaid.y;\n"
  " cvt.u64.u32  %rd12, %r11;\n"
  " add.s64  %rd13, %rd11, %rd12;\n"
  " mov.u32  %r12, %nctaid.x;\n"
  " cvt.u64.u32  %rd14, %r12;\n"
  " mul.lo.s64  %rd15, %rd13, %rd14;\n"
  " mov.u32  %r13, %ctaid.x;\n"
  " cvt.u64.u32  %rd16, %r13;\n"
  " add.s64  %rd17, %rd15, %rd16;\n"
  " mov.u32  %r14, %ntid.y;\n"
  " mov.u32  %r15, %ntid.x;\n"
  " mul.lo.s32  %r16, %r15, %r14;\n"
  " mov.u32  %r17, %ntid.z;\n"
  " mul.lo.s32  %r18, %r16, %r17;\n"
  " cvt.u64.u32  %rd18, %r18;\n"
  " mul.lo.s64  %rd19, %rd17, %rd18;\n"
  " mov.u32  %r19, %tid.z;\n"
  " mov.u32  %r20, %tid.y;\n"
  " mad.lo.s32  %r21, %r14, %r19, %r20;\n"
  " mov.u32  %r22, %tid.x;\n"
  " mad.lo.s32  %r23, %r21, %r15, %r22;\n"
  " cvt.u64.u32  %rd20, %r23;\n"
  " add.s64  %rd21, %rd19, %rd20;\n"
  " add.s64  %rd2, %rd21, 1;\n"
  " mov.u32  %r24, %nctaid.z;\n"
  " mul.lo.s32  %r25, %r9, %r24;\n"
  " mul.wide.u32  %rd22, %r25, %r12;\n"
  " mul.lo.s64  %rd23, %rd22, %rd18;\n"
  " or.b64   %rd24, %rd2, %rd23;\n"
  " and.b64   %rd25, %rd24, -4294967296;\n"
  " setp.eq.s64  %p2, %rd25, 0;\n"
  " @%p2 bra  $L__BB0_3;\n"
  " rem.u64  %rd54, %rd2, %rd23;\n"
  " bra.uni  $L__BB0_4;\n"
  "$L__BB0_3:\n"
  " cvt.u64.u32  %rd29, %r25;\n"
  " mul.lo.s64  %rd31, %rd29, %rd14;\n"
  " mul.lo.s64  %rd33, %rd31, %rd18;\n"
  " cvt.u32.u64  %r44, %rd33;\n"
  " cvt.u32.u64  %r45, %rd2;\n"
  " rem.u32  %r46, %r45, %r44;\n"
  " cvt.u64.u32  %rd54, %r46;\n"
  "$L__BB0_4:\n"
  " cvta.to.global.u64  %rd34, %rd8;\n"
  " shl.b64  %rd35, %rd54, 2;\n"
  " add.s64  %rd6, %rd34, %rd35;\n"
  " add.s64  %rd7, %rd1, 4;\n"
  " mov.u32  %r108, 0;\n"
  "$L__BB0_5:\n"
  " ld.global.u32  %r2, [%rd6];\n"
  " setp.ne.s64  %p3, %rd1, 0;\n"
  " @%p3 bra  $L__BB0_7;\n"
  " // begin inline asm\n"
  " trap;\n"
  " // end inline asm\n"
  "$L__BB0_7:\n"
  " add.s32  %r50, %r22, %r20;\n"
  " neg.s32  %r52, %r19;\n"
  " setp.ne.s32  %p4, %r50, %r52;\n"
  " barrier.sync  0;\n"
  " @%p4 bra  $L__BB0_10;\n"
  " add.s32  %r57, %r13, %r11;\n"
  " neg.s32  %r59, %r10;\n"
  " setp.eq.s32  %p5, %r57, %r59;\n"
  " mul.lo.s32  %r64, %r25, %r12;\n"
  " mov.u32  %r65, -2147483647;\n"
  " sub.s32  %r66, %r65, %r64;\n"
  " selp.b32  %r54, %r66, 1, %p5;\n"
  " // begin inline asm\n"
  " atom.add.release.gpu.u32 %r53,[%rd7],%r54;\n"
  " // end inline asm\n"
  "$L__BB0_9:\n"
  " // begin inline asm\n"
  " ld.acquire.gpu.u32 %r67,[%rd7];\n"
  " // end inline asm\n"
  " xor.b32   %r68, %r67, %r53;\n"
  " setp.gt.s32  %p6, %r68, -1;\n"
  " @%p6 bra  $L__BB0_9;\n"
  "$L__BB0_10:\n"
  " barrier.sync  0;\n"
  " cvt.u32.u64  %r84, %rd21;\n"
  " add.s32  %r85, %r108, %r84;\n"
  " add.s32  %r86, %r85, %r2;\n"
  " shl.b64  %rd50, %rd21, 2;\n"
  " add.s64  %rd51, %rd34, %rd50;\n"
  " st.global.u32  [%rd51], %r86;\n"
  " @%p3 bra  $L__BB0_12;\n"
  " // begin inline asm\n"
  " trap;\n"
  " // end inline asm\n"
  "$L__BB0_12:\n"
  " barrier.sync  0;\n"
  " @%p4 bra  $L__BB0_15;\n"
  " add.s32  %r96, %r13, %r11;\n"
  " neg.s32  %r98, %r10;\n"
  " setp.eq.s32  %p9, %r96, %r98;\n"
  " mul.lo.s32  %r103, %r25, %r12;\n"
  " mov.u32  %r104, -2147483647;\n"
  " sub.s32  %r105, %r104, %r103;\n"
  " selp.b32  %r93, %r105, 1, %p9;\n"
  " // begin inline asm\n"
  " atom.add.release.gpu.u32 %r92,[%rd7],%r93;\n"
  " // end inline asm\n"
  "$L__BB0_14:\n"
  " // begin inline asm\n"
  " ld.acquire.gpu.u32 %r106,[%rd7];\n"
  " // end inline asm\n"
  " xor.b32   %r107, %r106, %r92;\n"
  " setp.gt.s32  %p10, %r107, -1;\n"
  " @%p10 bra  $L__BB0_14;\n"
  "$L__BB0_15:\n"
  " barrier.sync  0;\n"
  " add.s32  %r108, %r108, 1;\n"
  " setp.lt.s32  %p11, %r108, %r6;\n"
  " @%p11 bra  $L__BB0_5;\n"
  "$L__BB0_16:\n"
  " ret;\n"
  "}\n";

/* attrs: directives and variables whose sizes the attributes report; cl,
 * req2 and expl store, after a cluster barrier, nctarank * 1000 +
 * clusterid.x * 10 + ctarank at out[%ctaid.x]; nop does nothing. */
static const char misc_ptx[] =
  ".version 8.0\n.target sm_80\n.address_size 64\n"
  ".const .align 8 .b8 table[40];\n"
  ".const .align 4 .u32 k3[3] = {1, 2, 3};\n"
  ".visible .entry attrs(.param .u64 p, .param .u32 n, .param .align 8 .b8 s[24])\n"
  "  .maxntid 256, 1, 1 .maxnreg 24\n{\n"
  "  .local .align 8 .b8 depot[48];\n"
  "  .shared .align 16 .b8 buf[1000];\n"
  "  .reg .b32 %r1;\n"
  "  mov.u32 %r1, 7;\n  st.shared.u32 [buf], %r1;\n  ret;\n}\n"
  ".visible .entry nop()\n{\n  ret;\n}\n";

#define CLUSTER_BODY                                                              \
  "{\n  .reg .b32 %r<7>; .reg .b64 %rd<4>;\n"                                      \
  "  barrier.cluster.arrive; barrier.cluster.wait;\n"                              \
  "  mov.u32 %r1, %ctaid.x; mov.u32 %r2, %cluster_nctarank;\n"                     \
  "  mov.u32 %r3, %clusterid.x; mov.u32 %r4, %cluster_ctarank;\n"                  \
  "  mad.lo.u32 %r5, %r2, 1000, %r4; mad.lo.u32 %r6, %r3, 10, %r5;\n"              \
  "  ld.param.u64 %rd1, [out]; mul.wide.u32 %rd2, %r1, 4; add.s64 %rd3, %rd1, %rd2;\n" \
  "  st.global.u32 [%rd3], %r6;\n  ret;\n}\n"

static const char cluster_ptx[] =
  ".version 8.0\n.target sm_90\n.address_size 64\n"
  ".visible .entry cl(.param .u64 out)\n" CLUSTER_BODY
  ".visible .entry req2(.param .u64 out) .reqnctapercluster 2, 1, 1 .explicitcluster\n" CLUSTER_BODY
  ".visible .entry expl(.param .u64 out) .explicitcluster\n" CLUSTER_BODY
  ".visible .entry isexpl(.param .u64 out)\n{\n  .reg .pred %p1; .reg .b32 %r<3>; .reg .b64 %rd<4>;\n"
  "  mov.pred %p1, %is_explicit_cluster; selp.u32 %r1, 1, 0, %p1; mov.u32 %r2, %ctaid.x;\n"
  "  ld.param.u64 %rd1, [out]; mul.wide.u32 %rd2, %r2, 4; add.s64 %rd3, %rd1, %rd2;\n"
  "  st.global.u32 [%rd3], %r1;\n  ret;\n}\n";

static int attr(CUfunction f, CUfunction_attribute a) {
  int v = -12345;
  return cuFuncGetAttribute(&v, a, f) == CUDA_SUCCESS ? v : -12345;
}

static int occupancy(CUfunction f, int threads, size_t dyn) {
  int n = -1;
  return cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, f, threads, dyn) == CUDA_SUCCESS ? n : -1;
}

/* What gridsync_rounds leaves in data (n ints, iota at first). */
static void gridsync_expected(int *d, int n, int rounds) {
  static int v[4096];
  for (int i = 0; i < n; i++) d[i] = i;
  for (int r = 0; r < rounds; r++) {
    for (int t = 0; t < n; t++) v[t] = d[(t + 1) % n];
    for (int t = 0; t < n; t++) d[t] = (int)((unsigned)v[t] + (unsigned)t + (unsigned)r);
  }
}

/* Runs gridsync_rounds cooperatively on grid x block threads, through
 * cuLaunchCooperativeKernel or (ex) cuLaunchKernelEx; true when the result
 * is the host's. */
static bool gridsync_ok(CUfunction f, unsigned grid, unsigned block, int rounds, bool ex) {
  static int got[4096], want[4096];
  int n = (int)(grid * block);
  CUdeviceptr d;
  if (n > 4096 || cuMemAlloc(&d, (size_t)n * sizeof(int)) != CUDA_SUCCESS) return false;
  gridsync_expected(want, n, 0);   /* iota */
  bool ok = cuMemcpyHtoD(d, want, (size_t)n * sizeof(int)) == CUDA_SUCCESS;
  void *args[] = {&d, &rounds};
  if (ex) {
    CUlaunchAttribute a = {.id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE, .value.cooperative = 1};
    CUlaunchConfig cfg = {.gridDimX = grid, .gridDimY = 1, .gridDimZ = 1, .blockDimX = block, .blockDimY = 1,
                          .blockDimZ = 1, .attrs = &a, .numAttrs = 1};
    ok = ok && cuLaunchKernelEx(&cfg, f, args, NULL) == CUDA_SUCCESS;
  } else {
    ok = ok && cuLaunchCooperativeKernel(f, grid, 1, 1, block, 1, 1, 0, NULL, args) == CUDA_SUCCESS;
  }
  ok = ok && cuMemcpyDtoH(got, d, (size_t)n * sizeof(int)) == CUDA_SUCCESS;
  gridsync_expected(want, n, rounds);
  ok = ok && !memcmp(got, want, (size_t)n * sizeof(int));
  cuMemFree(d);
  return ok;
}

static void test_cooperative(CUmodule mod) {
  CUfunction f;
  CHECK(cuModuleGetFunction(&f, mod, "gridsync_rounds") == CUDA_SUCCESS);
  int v = 0;
  CHECK(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, 0) == CUDA_SUCCESS && v == 1);
  CHECK(gridsync_ok(f, 40, 64, 3, false));   /* more CTAs than a host thread keeps resident otherwise */
  CHECK(gridsync_ok(f, 7, 96, 2, true));
  CHECK(gridsync_ok(f, 1, 32, 4, false));
  /* 128 threads: 4 warps, 64 / 4 = 16 per SM, 132 x 16 = 2112 CTAs at once */
  CHECK(occupancy(f, 128, 0) == 16);
  CUdeviceptr d;
  int rounds = 1;
  CHECK(cuMemAlloc(&d, 2113 * 128 * sizeof(int)) == CUDA_SUCCESS);
  void *args[] = {&d, &rounds};
  CHECK(cuLaunchCooperativeKernel(f, 2113, 1, 1, 128, 1, 1, 0, NULL, args) ==
        CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);
  CHECK(cuMemFree(d) == CUDA_SUCCESS);
  CHECK(cuCtxSynchronize() == CUDA_SUCCESS);   /* a refused launch is not sticky */
}

/* The occupancy calculator on nvcc's kernel (no directives, no shared memory). */
static void test_occupancy(CUmodule mod) {
  CUfunction f;
  CHECK(cuModuleGetFunction(&f, mod, "gridsync_rounds") == CUDA_SUCCESS);
  CHECK(occupancy(f, 32, 0) == 32);     /* CTA slots: 32 */
  CHECK(occupancy(f, 96, 0) == 21);     /* 3 warps: 64 / 3 */
  CHECK(occupancy(f, 1024, 0) == 2);
  CHECK(occupancy(f, 1025, 0) == 0);    /* no such CTA */
  /* 256 threads (8 per SM by warps), 48 KiB + 1 KiB of shared: 233472 / 50176 = 4 */
  CHECK(occupancy(f, 256, 49152) == 4);
  CHECK(occupancy(f, 256, 49153) == 0); /* beyond the default 48 KiB limit: the launch would fail */
  int n = -1;
  CHECK(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&n, f, 64, 0, CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE) ==
        CUDA_SUCCESS && n == 32);
  CHECK(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&n, f, 64, 0, 2) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, f, 0, 0) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuOccupancyMaxActiveBlocksPerMultiprocessor(NULL, f, 32, 0) == CUDA_ERROR_INVALID_VALUE);
  /* the block size with the most threads per SM (2048), the largest such */
  int grid = -1, block = -1;
  CHECK(cuOccupancyMaxPotentialBlockSize(&grid, &block, f, NULL, 0, 0) == CUDA_SUCCESS && block == 1024 &&
        grid == 2 * 132);
  /* limit 200: 200 (7 warps, 9 CTAs: 1800), 192 (1920), 160 (1920), 128 (16 CTAs: 2048) */
  CHECK(cuOccupancyMaxPotentialBlockSize(&grid, &block, f, NULL, 0, 200) == CUDA_SUCCESS && block == 128 &&
        grid == 16 * 132);
}

/* 64 bytes of dynamic shared memory per thread. */
static size_t smem_per_block(int block) { return (size_t)block * 64; }

static void test_occupancy_shared(CUmodule mod) {
  CUfunction f;
  CHECK(cuModuleGetFunction(&f, mod, "gridsync_rounds") == CUDA_SUCCESS);
  int grid = -1, block = -1;
  /* 1024 and 992 need more than 48 KiB; 768: 2 CTAs (1536 threads); 672: 3
     (2016); 512: 4 by warps, 6 by shared (33792 bytes each): 2048 */
  CHECK(cuOccupancyMaxPotentialBlockSizeWithFlags(&grid, &block, f, smem_per_block, 0, 0, 0) == CUDA_SUCCESS &&
        block == 512 && grid == 4 * 132);
  size_t dyn = 0;
  /* 2 CTAs: 233472 / 2 = 116736 each, less 1 KiB; but at most the default 48 KiB */
  CHECK(cuOccupancyAvailableDynamicSMemPerBlock(&dyn, f, 2, 128) == CUDA_SUCCESS && dyn == 49152);
  CHECK(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 200000) == CUDA_SUCCESS);
  CHECK(cuOccupancyAvailableDynamicSMemPerBlock(&dyn, f, 2, 128) == CUDA_SUCCESS && dyn == 115712);
  CHECK(cuOccupancyAvailableDynamicSMemPerBlock(&dyn, f, 3, 128) == CUDA_SUCCESS && dyn == 76800);
  CHECK(cuOccupancyAvailableDynamicSMemPerBlock(&dyn, f, 1, 128) == CUDA_SUCCESS && dyn == 200000);
  CHECK(cuOccupancyAvailableDynamicSMemPerBlock(&dyn, f, 17, 128) == CUDA_ERROR_INVALID_VALUE);   /* 16 fit */
  CHECK(cuOccupancyAvailableDynamicSMemPerBlock(&dyn, f, 0, 128) == CUDA_ERROR_INVALID_VALUE);
  /* 64 threads with 100000 bytes: 101024, in 128-byte units 101120: 2 per SM */
  CHECK(occupancy(f, 64, 100000) == 2);
  CHECK(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 48 * 1024) == CUDA_SUCCESS);
}

static void test_attributes(CUmodule mod) {
  CUfunction f;
  CHECK(cuModuleGetFunction(&f, mod, "attrs") == CUDA_SUCCESS);
  CHECK(attr(f, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK) == 256);        /* .maxntid */
  CHECK(attr(f, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES) == 1000);   /* buf's end, not aligned up (a GPU
                                                                   reports 40 for 40 bytes: numba's
                                                                   test_get_shared_mem_per_block) */
  CHECK(attr(f, CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES) == 52);              /* table 40, k3 12 */
  CHECK(attr(f, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES) == 48);              /* depot */
  CHECK(attr(f, CU_FUNC_ATTRIBUTE_NUM_REGS) == 24);                      /* .maxnreg, below 32 */
  CHECK(attr(f, CU_FUNC_ATTRIBUTE_PTX_VERSION) == 80);                   /* .target sm_80 */
  CHECK(attr(f, CU_FUNC_ATTRIBUTE_BINARY_VERSION) == 90);                /* the device */
  CHECK(attr(f, CU_FUNC_ATTRIBUTE_CACHE_MODE_CA) == 0);
  CHECK(attr(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) == 49152 - 1000);
  CHECK(attr(f, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT) == -1);
  CHECK(attr(f, CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET) == 0);
  CHECK(attr(f, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH) == 0);
  CHECK(attr(f, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT) == 0);
  CHECK(attr(f, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH) == 0);
  CHECK(attr(f, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED) == 0);
  CHECK(attr(f, CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE) == 0);
  int v;
  CHECK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX, f) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuFuncGetAttribute(NULL, CU_FUNC_ATTRIBUTE_NUM_REGS, f) == CUDA_ERROR_INVALID_VALUE);
  /* 256 threads: 8 warps, 8 per SM by warps; 24 registers, 768 a warp: 21 warps a
     partition, 84 an SM, 10 CTAs; shared 1000 + 1024 = 2024: 115 */
  CHECK(occupancy(f, 256, 0) == 8);
  CHECK(occupancy(f, 257, 0) == 0);                                      /* beyond .maxntid */
  /* setting */
  CHECK(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 232448 - 1000 + 1) ==
        CUDA_ERROR_INVALID_VALUE);
  CHECK(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 100000) == CUDA_SUCCESS);
  CHECK(attr(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) == 100000);
  CHECK(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 100001, NULL, (void *[]){&(CUdeviceptr){0}, &(int){0},
                       (char[24]){0}}, NULL) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 100000, NULL, (void *[]){&(CUdeviceptr){0}, &(int){0},
                       (char[24]){0}}, NULL) == CUDA_SUCCESS);
  CHECK(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, 50) == CUDA_SUCCESS &&
        attr(f, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT) == 50);
  CHECK(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, 101) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE,
                           CU_CLUSTER_SCHEDULING_POLICY_SPREAD) == CUDA_SUCCESS &&
        attr(f, CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE) == 1);
  CHECK(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE, 3) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 2) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_NUM_REGS, 16) == CUDA_ERROR_INVALID_VALUE);   /* read-only */
  CHECK(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, 0) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuFuncSetCacheConfig(f, CU_FUNC_CACHE_PREFER_SHARED) == CUDA_SUCCESS);
  CHECK(cuFuncSetCacheConfig(f, (CUfunc_cache)7) == CUDA_ERROR_INVALID_VALUE);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  CHECK(cuFuncSetSharedMemConfig(f, CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE) == CUDA_SUCCESS);
#pragma GCC diagnostic pop
  /* parameters: p at 0 (8 bytes), n at 8 (4), s at 16 (24, .align 8) */
  size_t off = 99, size = 99;
  CHECK(cuFuncGetParamInfo(f, 0, &off, &size) == CUDA_SUCCESS && off == 0 && size == 8);
  CHECK(cuFuncGetParamInfo(f, 1, &off, &size) == CUDA_SUCCESS && off == 8 && size == 4);
  CHECK(cuFuncGetParamInfo(f, 2, &off, NULL) == CUDA_SUCCESS && off == 16);
  CHECK(cuFuncGetParamInfo(f, 2, &off, &size) == CUDA_SUCCESS && size == 24);
  CHECK(cuFuncGetParamInfo(f, 3, &off, &size) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuFuncGetParamInfo(f, 0, NULL, &size) == CUDA_ERROR_INVALID_VALUE);
  CUfunction nop;
  CHECK(cuModuleGetFunction(&nop, mod, "nop") == CUDA_SUCCESS);
  CHECK(cuFuncGetParamInfo(nop, 0, &off, &size) == CUDA_ERROR_INVALID_VALUE);
  CHECK(attr(nop, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK) == 1024 && attr(nop, CU_FUNC_ATTRIBUTE_NUM_REGS) == 32);
  /* a cooperative grid of exactly what the device holds: 1024 threads, 2 per SM */
  CHECK(occupancy(nop, 1024, 0) == 2);
  CHECK(cuLaunchCooperativeKernel(nop, 264, 1, 1, 1024, 1, 1, 0, NULL, NULL) == CUDA_SUCCESS);
  CHECK(cuLaunchCooperativeKernel(nop, 265, 1, 1, 1024, 1, 1, 0, NULL, NULL) ==
        CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);
  CHECK(cuCtxSynchronize() == CUDA_SUCCESS);
}

/* Runs f on `grid` CTAs of 32 threads with the given attributes; out gets
 * what each CTA stored. */
static CUresult run_cluster(CUfunction f, unsigned grid, const CUlaunchAttribute *attrs, unsigned nattrs,
                            unsigned *out) {
  CUdeviceptr d;
  if (cuMemAlloc(&d, grid * sizeof(unsigned)) != CUDA_SUCCESS) return CUDA_ERROR_OUT_OF_MEMORY;
  void *args[] = {&d};
  CUlaunchConfig cfg = {.gridDimX = grid, .gridDimY = 1, .gridDimZ = 1, .blockDimX = 32, .blockDimY = 1,
                        .blockDimZ = 1, .attrs = (CUlaunchAttribute *)attrs, .numAttrs = nattrs};
  CUresult r = cuLaunchKernelEx(&cfg, f, args, NULL);
  if (r == CUDA_SUCCESS) r = cuMemcpyDtoH(out, d, grid * sizeof(unsigned));
  cuMemFree(d);
  return r;
}

/* Whether out[i] is what CTA i of clusters of n CTAs stores. */
static bool clusters_of(const unsigned *out, unsigned grid, unsigned n) {
  for (unsigned i = 0; i < grid; i++)
    if (out[i] != n * 1000 + i / n * 10 + i % n) return false;
  return true;
}

static CUlaunchAttribute cluster_dim(unsigned x) {
  CUlaunchAttribute a = {.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION};
  a.value.clusterDim.x = x;
  a.value.clusterDim.y = a.value.clusterDim.z = 1;
  return a;
}

static void test_clusters(CUmodule mod) {
  CUfunction cl, req2, expl, isexpl;
  CHECK(cuModuleGetFunction(&cl, mod, "cl") == CUDA_SUCCESS && cuModuleGetFunction(&req2, mod, "req2") ==
        CUDA_SUCCESS && cuModuleGetFunction(&expl, mod, "expl") == CUDA_SUCCESS);
  CHECK(cuModuleGetFunction(&isexpl, mod, "isexpl") == CUDA_SUCCESS);
  unsigned out[16];
  CUlaunchAttribute a[4] = {cluster_dim(1)};
  /* a cluster dimension of 1,1,1 makes a cluster launch; none does not */
  CHECK(run_cluster(isexpl, 2, a, 1, out) == CUDA_SUCCESS && out[0] == 1 && out[1] == 1);
  CHECK(run_cluster(isexpl, 2, NULL, 0, out) == CUDA_SUCCESS && out[0] == 0 && out[1] == 0);
  a[0] = cluster_dim(4);
  CHECK(run_cluster(cl, 8, a, 1, out) == CUDA_SUCCESS && clusters_of(out, 8, 4));
  CHECK(run_cluster(cl, 8, NULL, 0, out) == CUDA_SUCCESS && clusters_of(out, 8, 1));
  a[0] = cluster_dim(3);
  CHECK(run_cluster(cl, 8, a, 1, out) == CUDA_ERROR_INVALID_CLUSTER_SIZE);   /* 8 % 3 */
  a[0] = cluster_dim(16);
  CHECK(run_cluster(cl, 16, a, 1, out) == CUDA_ERROR_INVALID_CLUSTER_SIZE);  /* not portable */
  CHECK(cuFuncSetAttribute(cl, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1) == CUDA_SUCCESS);
  CHECK(run_cluster(cl, 16, a, 1, out) == CUDA_SUCCESS && clusters_of(out, 16, 16));
  /* the attributes that are accepted, and one that is not */
  a[0] = cluster_dim(2);
  a[1] = (CUlaunchAttribute){.id = CU_LAUNCH_ATTRIBUTE_PRIORITY, .value.priority = -1};
  a[2] = (CUlaunchAttribute){.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION,
                             .value.programmaticStreamSerializationAllowed = 1};
  a[3] = (CUlaunchAttribute){.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE,
                             .value.clusterSchedulingPolicyPreference = CU_CLUSTER_SCHEDULING_POLICY_LOAD_BALANCING};
  CHECK(run_cluster(cl, 8, a, 4, out) == CUDA_SUCCESS && clusters_of(out, 8, 2));
  a[1] = (CUlaunchAttribute){.id = CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN};
  CHECK(run_cluster(cl, 8, a, 2, out) == CUDA_ERROR_NOT_SUPPORTED);
  CUevent ev;
  CHECK(cuEventCreate(&ev, CU_EVENT_DISABLE_TIMING) == CUDA_SUCCESS);
  a[1] = (CUlaunchAttribute){.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT, .value.programmaticEvent.event = ev};
  CHECK(run_cluster(cl, 8, a, 2, out) == CUDA_SUCCESS && clusters_of(out, 8, 2) && cuEventQuery(ev) == CUDA_SUCCESS);
  CHECK(cuEventDestroy(ev) == CUDA_SUCCESS);
  /* a cooperative grid of clusters: 32 threads, 32 CTAs per SM, 132 x 32 / 4 = 1056 clusters */
  a[0] = cluster_dim(4);
  a[1] = (CUlaunchAttribute){.id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE, .value.cooperative = 1};
  CHECK(run_cluster(cl, 8, a, 2, out) == CUDA_SUCCESS && clusters_of(out, 8, 4));
  CUlaunchConfig cfg = {.gridDimX = 4 * 1057, .gridDimY = 1, .gridDimZ = 1, .blockDimX = 32, .blockDimY = 1,
                        .blockDimZ = 1, .attrs = a, .numAttrs = 2};
  CUdeviceptr d = 0;
  CHECK(cuLaunchKernelEx(&cfg, cl, (void *[]){&d}, NULL) == CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);
  int n = -1;
  cfg.numAttrs = 1;
  CHECK(cuOccupancyMaxActiveClusters(&n, cl, &cfg) == CUDA_SUCCESS && n == 1056);
  cfg.numAttrs = 0;
  CHECK(cuOccupancyMaxActiveClusters(&n, cl, &cfg) == CUDA_ERROR_INVALID_CLUSTER_SIZE);   /* none given */
  CHECK(cuOccupancyMaxActiveClusters(&n, req2, &cfg) == CUDA_SUCCESS && n == 2112);       /* its own 2 */
  CHECK(cuOccupancyMaxPotentialClusterSize(&n, cl, &cfg) == CUDA_SUCCESS && n == 16);     /* non-portable */
  CHECK(cuOccupancyMaxPotentialClusterSize(&n, req2, &cfg) == CUDA_SUCCESS && n == 2);
  CHECK(cuOccupancyMaxPotentialClusterSize(&n, expl, &cfg) == CUDA_SUCCESS && n == 8);
  /* .reqnctapercluster 2,1,1 .explicitcluster: the shape when none is given */
  CHECK(attr(req2, CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET) == 1 &&
        attr(req2, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH) == 2 &&
        attr(req2, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT) == 1 &&
        attr(req2, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH) == 1);
  CHECK(cuFuncSetAttribute(req2, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, 4) == CUDA_ERROR_NOT_PERMITTED);
  CHECK(run_cluster(req2, 4, NULL, 0, out) == CUDA_SUCCESS && clusters_of(out, 4, 2));
  a[0] = cluster_dim(4);
  CHECK(run_cluster(req2, 8, a, 1, out) == CUDA_ERROR_INVALID_CLUSTER_SIZE);
  /* .explicitcluster alone: a shape must be given */
  CHECK(run_cluster(expl, 4, NULL, 0, out) == CUDA_ERROR_INVALID_CLUSTER_SIZE);
  a[0] = cluster_dim(2);
  CHECK(run_cluster(expl, 4, a, 1, out) == CUDA_SUCCESS && clusters_of(out, 4, 2));
  /* a required shape set at run time */
  CHECK(cuFuncSetAttribute(cl, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, 2) == CUDA_SUCCESS);
  CHECK(run_cluster(cl, 4, NULL, 0, out) == CUDA_ERROR_INVALID_CLUSTER_SIZE);   /* height, depth still 0 */
  CHECK(cuFuncSetAttribute(cl, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT, 1) == CUDA_SUCCESS &&
        cuFuncSetAttribute(cl, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH, 1) == CUDA_SUCCESS);
  CHECK(attr(cl, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH) == 2);
  CHECK(run_cluster(cl, 4, NULL, 0, out) == CUDA_SUCCESS && clusters_of(out, 4, 2));
  CHECK(cuCtxSynchronize() == CUDA_SUCCESS);
}

/* Stream capture of a cluster launch and a cooperative one: graph nodes
 * that keep the cluster shape and the cooperative flag (their attributes,
 * kept across new parameters), run by cuGraphLaunch as the launches would. */
static void test_capture_launches(CUmodule clusters, CUmodule gs) {
  CUfunction cl, grid_sync;
  CHECK(cuModuleGetFunction(&cl, clusters, "cl") == CUDA_SUCCESS);
  CHECK(cuModuleGetFunction(&grid_sync, gs, "gridsync_rounds") == CUDA_SUCCESS);
  enum { GRID = 7, BLOCK = 96, ROUNDS = 2 };
  static int data[GRID * BLOCK], want[GRID * BLOCK];
  unsigned out[8];
  CUdeviceptr d, g;
  CUstream cs;
  CHECK(cuStreamCreate(&cs, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS);
  CHECK(cuMemAlloc(&d, sizeof out) == CUDA_SUCCESS && cuMemAlloc(&g, sizeof data) == CUDA_SUCCESS);
  CHECK(cuMemsetD32(d, 7, 8) == CUDA_SUCCESS);
  gridsync_expected(data, GRID * BLOCK, 0);
  CHECK(cuMemcpyHtoD(g, data, sizeof data) == CUDA_SUCCESS);
  CUlaunchAttribute a[2] = {cluster_dim(2)};
  CUlaunchConfig cfg = {.gridDimX = 8, .gridDimY = 1, .gridDimZ = 1, .blockDimX = 32, .blockDimY = 1,
                        .blockDimZ = 1, .hStream = cs, .attrs = a, .numAttrs = 1};
  int rounds = ROUNDS;
  void *gargs[] = {&g, &rounds};
  CUgraph graph;
  CHECK(cuStreamBeginCapture(cs, CU_STREAM_CAPTURE_MODE_RELAXED) == CUDA_SUCCESS);
  CHECK(cuLaunchKernelEx(&cfg, cl, (void *[]){&d}, NULL) == CUDA_SUCCESS);
  CHECK(cuLaunchCooperativeKernel(grid_sync, GRID, 1, 1, BLOCK, 1, 1, 0, cs, gargs) == CUDA_SUCCESS);
  /* still checked when captured: a grid that is no multiple of the cluster */
  cfg.gridDimX = 7;
  CHECK(cuLaunchKernelEx(&cfg, cl, (void *[]){&d}, NULL) == CUDA_ERROR_INVALID_CLUSTER_SIZE);
  cfg.gridDimX = 8;
  /* a launch-completion event cannot be a node yet */
  CUevent ev;
  CHECK(cuEventCreate(&ev, CU_EVENT_DISABLE_TIMING) == CUDA_SUCCESS);
  a[1] = (CUlaunchAttribute){.id = CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT, .value.launchCompletionEvent.event = ev};
  cfg.numAttrs = 2;
  CHECK(cuLaunchKernelEx(&cfg, cl, (void *[]){&d}, NULL) == CUDA_ERROR_NOT_SUPPORTED);
  graph = NULL;
  cuStreamEndCapture(cs, &graph);   /* the refusals' effect on the capture is not this test's */
  if (graph) CHECK(cuGraphDestroy(graph) == CUDA_SUCCESS);
  CHECK(cuStreamBeginCapture(cs, CU_STREAM_CAPTURE_MODE_RELAXED) == CUDA_SUCCESS);
  cfg.numAttrs = 1;
  CHECK(cuLaunchKernelEx(&cfg, cl, (void *[]){&d}, NULL) == CUDA_SUCCESS);
  CHECK(cuLaunchCooperativeKernel(grid_sync, GRID, 1, 1, BLOCK, 1, 1, 0, cs, gargs) == CUDA_SUCCESS);
  CHECK(cuStreamEndCapture(cs, &graph) == CUDA_SUCCESS);
  CHECK(cuMemcpyDtoH(out, d, sizeof out) == CUDA_SUCCESS && out[0] == 7);   /* captured, not run */
  CUgraphNode nodes[2];
  size_t n = 2;
  CHECK(cuGraphGetNodes(graph, nodes, &n) == CUDA_SUCCESS && n == 2);
  CUkernelNodeAttrValue v;
  memset(&v, 0, sizeof v);
  CHECK(cuGraphKernelNodeGetAttribute(nodes[0], CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, &v) == CUDA_SUCCESS &&
        v.clusterDim.x == 2 && v.clusterDim.y == 1 && v.clusterDim.z == 1);
  CHECK(cuGraphKernelNodeGetAttribute(nodes[1], CU_LAUNCH_ATTRIBUTE_COOPERATIVE, &v) == CUDA_SUCCESS &&
        v.cooperative == 1);
  CHECK(cuGraphKernelNodeGetAttribute(nodes[0], CU_LAUNCH_ATTRIBUTE_COOPERATIVE, &v) == CUDA_SUCCESS &&
        v.cooperative == 0);
  CUgraphExec exec;
  CHECK(cuGraphInstantiate(&exec, graph, 0) == CUDA_SUCCESS);
  CHECK(cuGraphLaunch(exec, cs) == CUDA_SUCCESS && cuStreamSynchronize(cs) == CUDA_SUCCESS);
  CHECK(cuMemcpyDtoH(out, d, sizeof out) == CUDA_SUCCESS && clusters_of(out, 8, 2));
  CHECK(cuMemcpyDtoH(data, g, sizeof data) == CUDA_SUCCESS);
  gridsync_expected(want, GRID * BLOCK, ROUNDS);
  CHECK(!memcmp(data, want, sizeof data));
  CHECK(cuGraphExecDestroy(exec) == CUDA_SUCCESS);
  /* clusters of 4 set on the node; new parameters keep them */
  v.clusterDim.x = 4, v.clusterDim.y = v.clusterDim.z = 1;
  CHECK(cuGraphKernelNodeSetAttribute(nodes[0], CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, &v) == CUDA_SUCCESS);
  CUDA_KERNEL_NODE_PARAMS p;
  CHECK(cuGraphKernelNodeGetParams(nodes[0], &p) == CUDA_SUCCESS && p.func == cl && p.gridDimX == 8);
  CHECK(cuGraphKernelNodeSetParams(nodes[0], &p) == CUDA_SUCCESS);
  CHECK(cuGraphKernelNodeSetAttribute(nodes[0], CU_LAUNCH_ATTRIBUTE_PRIORITY, &v) == CUDA_ERROR_NOT_SUPPORTED);
  CHECK(cuGraphInstantiate(&exec, graph, 0) == CUDA_SUCCESS);
  CHECK(cuGraphLaunch(exec, cs) == CUDA_SUCCESS && cuStreamSynchronize(cs) == CUDA_SUCCESS);
  CHECK(cuMemcpyDtoH(out, d, sizeof out) == CUDA_SUCCESS && clusters_of(out, 8, 4));
  CHECK(cuGraphExecDestroy(exec) == CUDA_SUCCESS);
  /* a node made by hand, made cooperative by its attribute (a plain launch
     of this kernel traps: test_plain_grid_sync) */
  CUgraph hand;
  CUgraphNode node;
  CHECK(cuGraphCreate(&hand, 0) == CUDA_SUCCESS);
  gridsync_expected(data, GRID * BLOCK, 0);
  CHECK(cuMemcpyHtoD(g, data, sizeof data) == CUDA_SUCCESS);
  p = (CUDA_KERNEL_NODE_PARAMS){.func = grid_sync, .gridDimX = GRID, .gridDimY = 1, .gridDimZ = 1,
                                .blockDimX = BLOCK, .blockDimY = 1, .blockDimZ = 1, .kernelParams = gargs};
  CHECK(cuGraphAddKernelNode(&node, hand, NULL, 0, &p) == CUDA_SUCCESS);
  v.cooperative = 1;
  CHECK(cuGraphKernelNodeSetAttribute(node, CU_LAUNCH_ATTRIBUTE_COOPERATIVE, &v) == CUDA_SUCCESS);
  CHECK(cuGraphInstantiate(&exec, hand, 0) == CUDA_SUCCESS);
  CHECK(cuGraphLaunch(exec, cs) == CUDA_SUCCESS && cuStreamSynchronize(cs) == CUDA_SUCCESS);
  CHECK(cuMemcpyDtoH(data, g, sizeof data) == CUDA_SUCCESS && !memcmp(data, want, sizeof data));
  CHECK(cuGraphExecDestroy(exec) == CUDA_SUCCESS && cuGraphDestroy(hand) == CUDA_SUCCESS);
  CHECK(cuGraphDestroy(graph) == CUDA_SUCCESS && cuEventDestroy(ev) == CUDA_SUCCESS);
  CHECK(cuStreamDestroy(cs) == CUDA_SUCCESS && cuMemFree(d) == CUDA_SUCCESS && cuMemFree(g) == CUDA_SUCCESS);
  CHECK(cuCtxSynchronize() == CUDA_SUCCESS);
}

/* cooperative_groups' grid sync in a plain launch: no workspace, so it traps. */
static void test_plain_grid_sync(CUdevice dev) {
  CUcontext c, prev;
  CHECK(cuCtxGetCurrent(&prev) == CUDA_SUCCESS);
  CHECK(cuCtxCreate(&c, NULL, 0, dev) == CUDA_SUCCESS);
  CUmodule mod;
  CUfunction f;
  CHECK(cuModuleLoadData(&mod, gridsync_ptx) == CUDA_SUCCESS);
  CHECK(cuModuleGetFunction(&f, mod, "gridsync_rounds") == CUDA_SUCCESS);
  CUdeviceptr d;
  int rounds = 1;
  CHECK(cuMemAlloc(&d, 64 * sizeof(int)) == CUDA_SUCCESS);
  void *args[] = {&d, &rounds};
  CHECK(cuLaunchKernel(f, 2, 1, 1, 32, 1, 1, 0, NULL, args, NULL) == CUDA_SUCCESS);
  CHECK(cuCtxSynchronize() == CUDA_ERROR_LAUNCH_FAILED);   /* sticky */
  CHECK(cuCtxDestroy(c) == CUDA_SUCCESS);
  CHECK(cuCtxSetCurrent(prev) == CUDA_SUCCESS);
}

int main(void) {
  CUdevice dev;
  CUcontext ctx;
  CUmodule gs, misc, clusters;
  CHECK(cuInit(0) == CUDA_SUCCESS && cuDeviceGet(&dev, 0) == CUDA_SUCCESS);
  CHECK(cuCtxCreate(&ctx, NULL, 0, dev) == CUDA_SUCCESS);
  CHECK(cuModuleLoadData(&gs, gridsync_ptx) == CUDA_SUCCESS);
  CHECK(cuModuleLoadData(&misc, misc_ptx) == CUDA_SUCCESS);
  CHECK(cuModuleLoadData(&clusters, cluster_ptx) == CUDA_SUCCESS);
  test_cooperative(gs);
  test_occupancy(gs);
  test_occupancy_shared(gs);
  test_attributes(misc);
  test_capture_launches(clusters, gs);   /* before test_clusters sets cl's required shape */
  test_clusters(clusters);
  test_plain_grid_sync(dev);
  CHECK(cuCtxDestroy(ctx) == CUDA_SUCCESS);
  return unit_report();
}
