/* tensormap.c: cuTensorMapEncodeTiled, cuTensorMapEncodeIm2col and
 * cuTensorMapReplaceAddress (src/cuda/tensormap.c), a self-checking program
 * run by tests/run.py through `ptxvm exec` (see driver_api.c). Every
 * requirement cuda.h lists for the tiled and the im2col encodings is broken
 * once (CUDA_ERROR_INVALID_VALUE), the valid forms ptxvm does not execute
 * are CUDA_ERROR_NOT_SUPPORTED, and the map drives a 2D tensor load, passed
 * as a __grid_constant__ parameter (.param .align 64 .b8 [128]) and from
 * global memory, before and after cuTensorMapReplaceAddress; an im2col map
 * drives a 3D .im2col load. The expected tiles are the host's arithmetic.
 */
#include <cuda.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../unit/check.h"

static const char ptx[] =
  ".version 8.0\n.target sm_90\n.address_size 64\n"
  ".shared .align 1024 .b8 sm[256];\n.shared .align 8 .b64 bar;\n"
  /* map: the parameter (byval, its generic address by cvta.param) or, in
     mode 1, a global address in g */
  ".visible .entry tile(.param .align 64 .b8 tm[128], .param .u64 g, .param .u32 mode,\n"
  "                     .param .u64 out, .param .s32 x, .param .s32 y)\n{\n"
  "  .reg .pred %p<4>; .reg .b32 %r<16>; .reg .b64 %rd<12>;\n"
  "  ld.param.u64 %rd1, [out]; ld.param.u64 %rd3, [g]; ld.param.u32 %r9, [mode];\n"
  "  mov.u64 %rd8, tm; cvta.param.u64 %rd8, %rd8;\n"
  "  ld.param.s32 %r1, [x]; ld.param.s32 %r2, [y];\n"
  "  mov.u32 %r0, %tid.x; setp.eq.u32 %p1, %r0, 0;\n"
  "  @%p1 mbarrier.init.shared.b64 [bar], 1;\n  bar.sync 0;\n"
  "  @%p1 mbarrier.arrive.expect_tx.shared.b64 %rd5, [bar], 256;\n"
  "  setp.eq.and.u32 %p2, %r9, 1, %p1;\n  setp.eq.and.u32 %p3, %r9, 0, %p1;\n"
  "  @%p3 cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [sm], [%rd8, {%r1, %r2}], [bar];\n"
  "  @%p2 cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [sm], [%rd3, {%r1, %r2}], [bar];\n"
  "WAIT:\n  mbarrier.try_wait.parity.shared.b64 %p2, [bar], 0;\n  @!%p2 bra.uni WAIT;\n"
  "  setp.ge.u32 %p3, %r0, 64;\n  @%p3 bra.uni DONE;\n"
  "  shl.b32 %r3, %r0, 2; mov.u32 %r4, sm; add.u32 %r4, %r4, %r3; ld.shared.u32 %r5, [%r4];\n"
  "  cvt.u64.u32 %rd6, %r3; add.s64 %rd7, %rd1, %rd6; st.global.u32 [%rd7], %r5;\n"
  "DONE:\n  ret;\n}\n";

/* An NWC im2col load: 16 channels of W = 12, N = 2 (element (c, w, n) is
 * n*192 + w*16 + c), 8 channels x 16 pixels from (c, w, n) with offset o. */
static const char i2c_ptx[] =
  ".version 8.0\n.target sm_90\n.address_size 64\n"
  ".shared .align 1024 .b8 sm[256];\n.shared .align 8 .b64 bar;\n"
  ".visible .entry i2c(.param .align 64 .b8 tm[128], .param .u64 out, .param .s32 c, .param .s32 w,\n"
  "                    .param .s32 n, .param .u16 o)\n{\n"
  "  .reg .pred %p<4>; .reg .b16 %rs<2>; .reg .b32 %r<16>; .reg .b64 %rd<12>;\n"
  "  ld.param.u64 %rd1, [out]; ld.param.s32 %r1, [c]; ld.param.s32 %r2, [w]; ld.param.s32 %r3, [n];\n"
  "  ld.param.u16 %rs1, [o]; mov.u64 %rd8, tm; cvta.param.u64 %rd8, %rd8;\n"
  "  mov.u32 %r0, %tid.x; setp.eq.u32 %p1, %r0, 0;\n"
  "  @%p1 mbarrier.init.shared.b64 [bar], 1;\n  bar.sync 0;\n"
  "  @%p1 mbarrier.arrive.expect_tx.shared.b64 %rd5, [bar], 256;\n"
  "  @%p1 cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [sm], [%rd8, {%r1, %r2, %r3}], [bar], {%rs1};\n"
  "WAIT:\n  mbarrier.try_wait.parity.shared.b64 %p2, [bar], 0;\n  @!%p2 bra.uni WAIT;\n"
  "  setp.ge.u32 %p3, %r0, 64;\n  @%p3 bra.uni DONE;\n"
  "  shl.b32 %r4, %r0, 2; mov.u32 %r5, sm; add.u32 %r5, %r5, %r4; ld.shared.u32 %r6, [%r5];\n"
  "  cvt.u64.u32 %rd6, %r4; add.s64 %rd7, %rd1, %rd6; st.global.u32 [%rd7], %r6;\n"
  "DONE:\n  ret;\n}\n";

typedef struct { CUtensorMapDataType t; cuuint32_t rank; void *addr; cuuint64_t dim[5], str[4];
                 int lo[3], up[3]; cuuint32_t cpp, ppc, es[5]; CUtensorMapInterleave il;
                 CUtensorMapSwizzle sw; CUtensorMapL2promotion l2; CUtensorMapFloatOOBfill oob; } I2c;

static CUresult enc_i2c(CUtensorMap *m, const I2c *a) {
  return cuTensorMapEncodeIm2col(m, a->t, a->rank, a->addr, a->dim, a->str, a->lo, a->up, a->cpp, a->ppc,
                                 a->es, a->il, a->sw, a->l2, a->oob);
}

/* The 8 x 16 box: pixels from base w (bases lo .. W - 1 + up, then the next
 * image), element w + o of each, channels c.. (NWC as i2c_ptx says). */
static int i2c_ok(const uint16_t *got, int c, int w, int n, int o, int lo, int up) {
  for (int p = 0; p < 16; p++) {
    for (int k = 0; k < 8; k++) {
      int gw = w + o, gc = c + k;
      uint16_t want = gw >= 0 && gw < 12 && gc < 16 && n < 2 ? (uint16_t)(n * 192 + gw * 16 + gc) : 0;
      if (got[p * 8 + k] != want) return 0;
    }
    if (++w > 12 - 1 + up) { w = lo; n++; }
  }
  return 1;
}

typedef struct { CUtensorMapDataType t; cuuint32_t rank; void *addr; cuuint64_t dim[5], str[4];
                 cuuint32_t box[5], es[5]; CUtensorMapInterleave il; CUtensorMapSwizzle sw;
                 CUtensorMapL2promotion l2; CUtensorMapFloatOOBfill oob; } Args;

static CUresult enc(CUtensorMap *m, const Args *a) {
  return cuTensorMapEncodeTiled(m, a->t, a->rank, a->addr, a->dim, a->str, a->box, a->es, a->il, a->sw,
                                a->l2, a->oob);
}

/* 16 x 8 u16 tile of the 64 x 32 tensor whose element (i, j) is j*64 + i, at (x, y). */
static int tile_ok(const uint16_t *got, int x, int y, uint16_t base) {
  for (int r = 0; r < 8; r++)
    for (int i = 0; i < 16; i++) {
      int gx = x + i, gy = y + r;
      uint16_t want = gx >= 0 && gx < 64 && gy >= 0 && gy < 32 ? (uint16_t)(base + gy * 64 + gx) : 0;
      if (got[r * 16 + i] != want) return 0;
    }
  return 1;
}

int main(void) {
  CUcontext ctx = NULL;
  CUdevice dev;
  CHECK(cuInit(0) == CUDA_SUCCESS && cuDeviceGet(&dev, 0) == CUDA_SUCCESS);
  CHECK(cuDevicePrimaryCtxRetain(&ctx, dev) == CUDA_SUCCESS && cuCtxSetCurrent(ctx) == CUDA_SUCCESS);
  CUdeviceptr src = 0, src2 = 0, out = 0, gmap = 0;
  uint16_t host[64 * 32];
  CHECK(cuMemAlloc(&src, sizeof host) == CUDA_SUCCESS && cuMemAlloc(&src2, sizeof host) == CUDA_SUCCESS);
  CHECK(cuMemAlloc(&out, 256) == CUDA_SUCCESS && cuMemAlloc(&gmap, 128) == CUDA_SUCCESS);
  for (int i = 0; i < 64 * 32; i++) host[i] = (uint16_t)i;
  CHECK(cuMemcpyHtoD(src, host, sizeof host) == CUDA_SUCCESS);
  for (int i = 0; i < 64 * 32; i++) host[i] = (uint16_t)(5000 + i);
  CHECK(cuMemcpyHtoD(src2, host, sizeof host) == CUDA_SUCCESS);

  CUtensorMap m;
  const Args good = {CU_TENSOR_MAP_DATA_TYPE_UINT16, 2, (void *)(uintptr_t)src, {64, 32}, {128}, {16, 8},
                     {1, 1}, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                     CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE};
  CHECK(enc(&m, &good) == CUDA_SUCCESS);

  /* each documented requirement, broken once */
  Args a;
#define BAD(edit) do { a = good; edit; CHECK(enc(&m, &a) == CUDA_ERROR_INVALID_VALUE); } while (0)
  BAD(a.t = (CUtensorMapDataType)99);                     /* not a CUtensorMapDataType */
  BAD(a.rank = 0);
  BAD(a.rank = 6);
#define RANK3 (a.rank = 3, a.dim[2] = 2, a.str[1] = 4096, a.box[2] = 1, a.es[2] = 1)
  a = good; RANK3; CHECK(enc(&m, &a) == CUDA_SUCCESS);
  BAD((RANK3, a.il = (CUtensorMapInterleave)7));
  BAD(a.il = CU_TENSOR_MAP_INTERLEAVE_16B);               /* interleave needs rank >= 3 */
  BAD(a.addr = (void *)(uintptr_t)(src + 8));             /* 16-byte alignment */
  BAD(a.dim[1] = 0);
  BAD(a.dim[0] = (1ull << 32) + 1);
  BAD(a.str[0] = 120);                                    /* multiple of 16 */
  BAD(a.str[0] = 1ull << 40);
  BAD(a.box[0] = 0);
  BAD(a.box[1] = 257);
  BAD(a.box[0] = 4);                                      /* 8 bytes: not a multiple of 16 */
  BAD(a.es[1] = 0);
  BAD(a.es[0] = 9);
  BAD(a.sw = (CUtensorMapSwizzle)9);
  BAD((a.box[0] = 32, a.sw = CU_TENSOR_MAP_SWIZZLE_32B)); /* 64 bytes > the 32B span */
  BAD((a.box[0] = 64, a.dim[0] = 64, a.sw = CU_TENSOR_MAP_SWIZZLE_64B));   /* 128 > 64 */
  BAD(a.l2 = (CUtensorMapL2promotion)4);
  BAD(a.oob = (CUtensorMapFloatOOBfill)2);
  BAD(a.oob = CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA);   /* u16 is not floating-point */
  BAD((RANK3, a.str[1] = 4096 + 16, a.il = CU_TENSOR_MAP_INTERLEAVE_32B,
       a.sw = CU_TENSOR_MAP_SWIZZLE_32B));                /* 32B interleave: strides multiple of 32 */
  BAD((RANK3, a.il = CU_TENSOR_MAP_INTERLEAVE_32B));      /* 32B interleave needs the 32B swizzle */
  BAD((RANK3, a.il = CU_TENSOR_MAP_INTERLEAVE_32B, a.sw = CU_TENSOR_MAP_SWIZZLE_32B,
       a.addr = (void *)(uintptr_t)(src + 16)));          /* 32B interleave: 32-byte aligned address */
  CHECK(cuTensorMapEncodeTiled(NULL, good.t, 2, good.addr, good.dim, good.str, good.box, good.es, good.il,
                               good.sw, good.l2, good.oob) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuTensorMapEncodeTiled((CUtensorMap *)((char *)&m + 16), good.t, 2, good.addr, good.dim, good.str,
                               good.box, good.es, good.il, good.sw, good.l2, good.oob) == CUDA_ERROR_INVALID_VALUE);
  BAD((RANK3, a.t = CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B, a.il = CU_TENSOR_MAP_INTERLEAVE_16B));
                                                          /* 16U6_ALIGN16B needs no interleave */
  /* interleaved (NC/8HWC8: dimension 0 the channels of a 16-byte slice) */
  a = good; RANK3; a.il = CU_TENSOR_MAP_INTERLEAVE_16B;
  CHECK(enc(&m, &a) == CUDA_SUCCESS);                     /* a 32-byte row: two slices */
  a = good; RANK3; a.il = CU_TENSOR_MAP_INTERLEAVE_16B; a.box[0] = 32; a.dim[0] = 32; a.sw = CU_TENSOR_MAP_SWIZZLE_32B;
  CHECK(enc(&m, &a) == CUDA_SUCCESS);                     /* 64 bytes > the 32B span: no limit when interleaved */
  a = good; RANK3; a.il = CU_TENSOR_MAP_INTERLEAVE_16B; a.box[0] = 16; a.es[0] = 2;
  CHECK(enc(&m, &a) == CUDA_SUCCESS);                     /* dimension 0's stride: 8 elements, one slice */
  a = good; RANK3; a.il = CU_TENSOR_MAP_INTERLEAVE_32B; a.sw = CU_TENSOR_MAP_SWIZZLE_32B;
  CHECK(enc(&m, &a) == CUDA_SUCCESS);
  /* valid, but not executed by ptxvm: rows of partial slices */
  a = good; RANK3; a.il = CU_TENSOR_MAP_INTERLEAVE_16B; a.box[0] = 4;
  CHECK(enc(&m, &a) == CUDA_ERROR_NOT_SUPPORTED);         /* 8 bytes: no multiple-of-16 rule, half a slice */
  a = good; RANK3; a.il = CU_TENSOR_MAP_INTERLEAVE_16B; a.box[0] = 16; a.es[0] = 4;
  CHECK(enc(&m, &a) == CUDA_ERROR_NOT_SUPPORTED);         /* 4 elements of 2 bytes */
  a = good; RANK3; a.il = CU_TENSOR_MAP_INTERLEAVE_32B; a.sw = CU_TENSOR_MAP_SWIZZLE_32B; a.box[0] = 8;
  CHECK(enc(&m, &a) == CUDA_ERROR_NOT_SUPPORTED);         /* 16 bytes of a 32-byte slice */
  a = good; a.sw = CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B;
  CHECK(enc(&m, &a) == CUDA_ERROR_NOT_SUPPORTED);
  a = good; a.t = CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B;
  CHECK(enc(&m, &a) == CUDA_ERROR_NOT_SUPPORTED);
  a = good; a.t = CU_TENSOR_MAP_DATA_TYPE_FLOAT16; a.oob = CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA;
  CHECK(enc(&m, &a) == CUDA_SUCCESS);
  /* im2col: each of cuda.h's requirements, broken once */
  const I2c gi = {CU_TENSOR_MAP_DATA_TYPE_UINT16, 3, (void *)(uintptr_t)src, {16, 12, 2}, {32, 384},
                  {-1}, {-1}, 8, 16, {1, 1, 1}, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                  CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE};
  CHECK(enc_i2c(&m, &gi) == CUDA_SUCCESS);
  I2c b;
#define BADI(edit) do { b = gi; edit; CHECK(enc_i2c(&m, &b) == CUDA_ERROR_INVALID_VALUE); } while (0)
  BADI(b.t = (CUtensorMapDataType)99);
  BADI(b.rank = 2);                                       /* 3, 4 or 5 */
  BADI(b.rank = 6);
  BADI(b.addr = (void *)(uintptr_t)(src + 8));
  BADI(b.dim[2] = 0);
  BADI(b.dim[1] = (1ull << 32) + 1);
  BADI(b.str[0] = 40);
  BADI(b.str[1] = 1ull << 40);
  BADI(b.lo[0] = -32769);                                 /* rank 3: [-32768, 32767] */
  BADI(b.up[0] = 32768);
  b = gi; b.lo[0] = -32768; b.up[0] = 32767; CHECK(enc_i2c(&m, &b) == CUDA_SUCCESS);
#define RANK4 (b.rank = 4, b.dim[3] = 2, b.str[2] = 32 * 12 * 3, b.dim[2] = 3, b.lo[1] = 0, b.up[1] = 0, b.es[3] = 1)
  b = gi; RANK4; b.lo[0] = -128; b.up[1] = 127; CHECK(enc_i2c(&m, &b) == CUDA_SUCCESS);
  BADI((RANK4, b.lo[0] = -129));                          /* rank 4: [-128, 127] */
  BADI((RANK4, b.up[1] = 128));
#define RANK5 (RANK4, b.rank = 5, b.dim[4] = 2, b.str[3] = 32 * 12 * 3 * 2, b.lo[2] = 0, b.up[2] = 0, b.es[4] = 1)
  b = gi; RANK5; b.lo[2] = -16; b.up[0] = 15; CHECK(enc_i2c(&m, &b) == CUDA_SUCCESS);
  BADI((RANK5, b.lo[2] = -17));                           /* rank 5: [-16, 15] */
  BADI((RANK5, b.up[0] = 16));
  BADI((b.lo[0] = 0, b.up[0] = -12));                     /* no filter base: zero area */
  b = gi; b.lo[0] = 0; b.up[0] = -11; CHECK(enc_i2c(&m, &b) == CUDA_SUCCESS);   /* one base */
  BADI(b.cpp = 0);
  BADI(b.cpp = 257);
  BADI(b.ppc = 0);
  BADI(b.ppc = 1025);
  BADI(b.es[1] = 0);
  BADI(b.es[2] = 9);
  BADI(b.il = (CUtensorMapInterleave)3);
  BADI(b.sw = (CUtensorMapSwizzle)7);
  BADI((b.cpp = 32, b.sw = CU_TENSOR_MAP_SWIZZLE_32B));   /* 64 bytes per pixel > the 32B span */
  BADI(b.il = CU_TENSOR_MAP_INTERLEAVE_32B);              /* needs the 32B swizzle */
  BADI(b.l2 = (CUtensorMapL2promotion)4);
  BADI(b.oob = CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA);   /* u16 */
  BADI(b.oob = (CUtensorMapFloatOOBfill)2);
  CHECK(cuTensorMapEncodeIm2col(NULL, gi.t, 3, gi.addr, gi.dim, gi.str, gi.lo, gi.up, 8, 16, gi.es, gi.il,
                                gi.sw, gi.l2, gi.oob) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuTensorMapEncodeIm2col((CUtensorMap *)((char *)&m + 16), gi.t, 3, gi.addr, gi.dim, gi.str, gi.lo,
                                gi.up, 8, 16, gi.es, gi.il, gi.sw, gi.l2, gi.oob) == CUDA_ERROR_INVALID_VALUE);
  /* valid, but not executed by ptxvm */
  b = gi; b.il = CU_TENSOR_MAP_INTERLEAVE_16B; CHECK(enc_i2c(&m, &b) == CUDA_ERROR_NOT_SUPPORTED);
  b = gi; b.sw = CU_TENSOR_MAP_SWIZZLE_128B_ATOM_64B; CHECK(enc_i2c(&m, &b) == CUDA_ERROR_NOT_SUPPORTED);
  b = gi; b.cpp = 1; b.ppc = 3; CHECK(enc_i2c(&m, &b) == CUDA_ERROR_NOT_SUPPORTED);   /* 6 bytes */

  /* the map at work */
  CUmodule mod = NULL;
  CUfunction f = NULL;
  CHECK(cuModuleLoadData(&mod, ptx) == CUDA_SUCCESS && cuModuleGetFunction(&f, mod, "tile") == CUDA_SUCCESS);
  CHECK(enc(&m, &good) == CUDA_SUCCESS);
  uint16_t got[128];
  for (int k = 0; k < 4; k++) {
    unsigned mode = k & 1;              /* 0: the parameter, 1: a copy in global memory */
    int x = k < 2 ? 8 : 56, y = k < 2 ? 4 : 28;   /* the second pair: partly out of bounds */
    if (k == 2) CHECK(cuTensorMapReplaceAddress(&m, (void *)(uintptr_t)src2) == CUDA_SUCCESS);
    CHECK(cuMemcpyHtoD(gmap, &m, sizeof m) == CUDA_SUCCESS);
    void *params[] = {&m, &gmap, &mode, &out, &x, &y};
    CHECK(cuLaunchKernel(f, 1, 1, 1, 128, 1, 1, 0, NULL, params, NULL) == CUDA_SUCCESS);
    CHECK(cuCtxSynchronize() == CUDA_SUCCESS);
    CHECK(cuMemcpyDtoH(got, out, 256) == CUDA_SUCCESS);
    CHECK(tile_ok(got, x, y, k < 2 ? 0 : 5000));
  }
  /* the im2col map at work: padding 1 on the left and right (corners -1, -1), the column running into
     the second image, then offset 2 */
  CUmodule mi = NULL;
  CUfunction fi = NULL;
  CHECK(cuModuleLoadData(&mi, i2c_ptx) == CUDA_SUCCESS && cuModuleGetFunction(&fi, mi, "i2c") == CUDA_SUCCESS);
  for (int k = 0; k < 2; k++) {
    I2c g = gi;
    g.addr = (void *)(uintptr_t)src;
    CHECK(enc_i2c(&m, &g) == CUDA_SUCCESS);
    int c = k ? 8 : 4, w = k ? 3 : -1, n = 0;
    unsigned short o = k ? 2 : 0;
    void *params[] = {&m, &out, &c, &w, &n, &o};
    CHECK(cuLaunchKernel(fi, 1, 1, 1, 128, 1, 1, 0, NULL, params, NULL) == CUDA_SUCCESS);
    CHECK(cuCtxSynchronize() == CUDA_SUCCESS);
    CHECK(cuMemcpyDtoH(got, out, 256) == CUDA_SUCCESS);
    CHECK(i2c_ok(got, c, w, n, o, -1, -1));
  }
  CHECK(cuTensorMapReplaceAddress(&m, (void *)(uintptr_t)(src + 8)) == CUDA_ERROR_INVALID_VALUE);
  CUtensorMap junk;
  memset(&junk, 0, sizeof junk);
  CHECK(cuTensorMapReplaceAddress(&junk, (void *)(uintptr_t)src) == CUDA_ERROR_INVALID_VALUE);
  return unit_report();
}
