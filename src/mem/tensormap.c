/* tensormap.c: encoding and decoding ptxvm's tensor map (layout in
 * tensormap.h). The checks are cuda.h's requirements of
 * cuTensorMapEncodeTiled, in its order. */
#include "tensormap.h"

#include <string.h>

unsigned tensormap_esize(unsigned t) {
  static const unsigned char size[] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4};
  return t < sizeof size ? size[t] : 0;
}

const char *tensormap_type_name(unsigned t) {
  static const char *name[] = {"u8", "u16", "u32", "s32", "u64", "s64", "f16", "f32", "f64", "bf16", "f32_ftz",
                               "tf32", "tf32_ftz", "16u4_align8b", "16u4_align16b", "16u6_align16b"};
  return t < sizeof name / sizeof *name ? name[t] : "unknown";
}

static bool is_float(unsigned t) {
  return t == TMAP_F16 || t == TMAP_F32 || t == TMAP_F64 || t == TMAP_BF16 ||
         t == TMAP_F32_FTZ || t == TMAP_TF32 || t == TMAP_TF32_FTZ;
}

#define BAD(msg) do { *why = msg; return 1; } while (0)
#define UNSUP(msg) do { *why = msg; return 2; } while (0)

/* The rules of both encodings, in cuda.h's order (check_rest: those after
 * the box's; inner is its inner dimension: tile box[0], im2col channels per pixel). */
static int check_common(const TensorMap *m, const char **why) {
  if (m->dtype > TMAP_16U6_ALIGN16B) BAD("unknown tensor data type");
  if (m->interleave > 2) BAD("unknown interleave");
  if (m->addr % 16) BAD("the global address must be 16-byte aligned");
  if (m->interleave == 2 && m->addr % 32) BAD("with 32B interleave the global address must be 32-byte aligned");
  for (unsigned i = 0; i < m->rank; i++)
    if (m->dim[i] == 0 || m->dim[i] > (1ull << 32)) BAD("each global dimension must be 1 to 2^32");
  for (unsigned i = 1; i < m->rank; i++) {
    if (m->stride[i] % 16 || m->stride[i] >= (1ull << 40))
      BAD("each global stride must be a multiple of 16 below 2^40");
    if (m->interleave == 2 && m->stride[i] % 32) BAD("with 32B interleave the strides must be multiples of 32");
  }
  return 0;
}

static int check_rest(const TensorMap *m, unsigned inner, const char **why) {
  unsigned es = tensormap_esize(m->dtype);
  for (unsigned i = 0; i < m->rank; i++)
    if (m->estride[i] == 0 || m->estride[i] > 8) BAD("each element stride must be 1 to 8");
  if (m->swizzle > TMAP_SWIZZLE_128B_ATOM_64B) BAD("unknown swizzle");
  if (m->interleave && m->dtype == TMAP_16U6_ALIGN16B) BAD("the 16U6_ALIGN16B type needs no interleave");
  if (es && m->interleave == 0 && m->swizzle) {
    unsigned span = m->swizzle == TMAP_SWIZZLE_32B ? 32 : m->swizzle == TMAP_SWIZZLE_64B ? 64 : 128;
    if (inner * es > span) BAD("the box's inner dimension must not exceed the swizzle span");
  }
  if (m->interleave == 2 && m->swizzle != TMAP_SWIZZLE_32B) BAD("32B interleave needs the 32B swizzle");
  if (m->l2promo > 3) BAD("unknown L2 promotion");
  if (m->oobfill > 1) BAD("unknown out-of-bounds fill");
  if (m->oobfill && !is_float(m->dtype)) BAD("the NaN fill needs a floating-point data type");
  if (!es) UNSUP("the packed data types (16U4, 16U6) are not supported");
  if (m->interleave && m->mode == TMAP_IM2COL)
    UNSUP("interleaved im2col maps are not supported (the ISA does not say how the im2col walk reads the "
          "C/8 or C/16 slices)");
  if (m->swizzle > TMAP_SWIZZLE_128B) UNSUP("the 128B swizzles with 32B or 64B atoms are not supported");
  return 0;
}

const char *tensormap_interleave_unsupported(const TensorMap *m) {
  if (!m->interleave) return NULL;
  unsigned n0 = (m->box[0] + m->estride[0] - 1) / m->estride[0];
  if (n0 * tensormap_esize(m->dtype) % (m->interleave == 2 ? 32 : 16))
    return m->interleave == 2 ? "an interleaved box whose dimension-0 row (ceil(box[0] / elementStrides[0]) "
                                "elements) is not a whole number of 32-byte slices is not supported"
                              : "an interleaved box whose dimension-0 row (ceil(box[0] / elementStrides[0]) "
                                "elements) is not a whole number of 16-byte slices is not supported";
  return NULL;
}

/* The interleave rules a decoded map must still meet (tensormap.replace
 * edits fields one at a time): NULL when it does. */
static const char *interleave_bad(const TensorMap *m) {
  if (!m->interleave) return NULL;
  if (m->interleave > 2) return "the tensor map's interleave is not 0, 16B or 32B";
  if (m->mode == TMAP_IM2COL) return "interleaved im2col maps are not supported";
  if (m->rank < 3) return "the tensor map's interleaved layout needs rank 3 or more";
  if (m->interleave == 2) {
    if (m->swizzle != TMAP_SWIZZLE_32B) return "the tensor map's 32B interleave needs the 32B swizzle";
    bool odd = m->addr % 32;
    for (unsigned i = 1; i < m->rank; i++) odd |= m->stride[i] % 32 != 0;
    if (odd) return "the tensor map's 32B interleave needs a 32-byte aligned address and strides";
  }
  return tensormap_interleave_unsupported(m);
}

static void put_common(uint8_t out[TMAP_BYTES], const TensorMap *m) {
  memset(out, 0, TMAP_BYTES);
  uint32_t magic = TMAP_MAGIC;
  memcpy(out, &magic, 4);
  out[4] = (uint8_t)m->rank; out[5] = (uint8_t)m->dtype; out[6] = (uint8_t)tensormap_esize(m->dtype);
  out[7] = (uint8_t)m->interleave; out[8] = (uint8_t)m->swizzle; out[9] = (uint8_t)m->l2promo;
  out[10] = (uint8_t)m->oobfill;
  memcpy(out + 16, &m->addr, 8);
  for (unsigned i = 0; i < TMAP_MAX_RANK; i++) {
    uint64_t d = i < m->rank ? m->dim[i] : 1;
    uint16_t b = i < m->rank && m->mode == TMAP_TILE ? (uint16_t)m->box[i] : 1;
    uint8_t e = i < m->rank ? (uint8_t)m->estride[i] : 1;
    memcpy(out + 24 + 8 * i, &d, 8);
    memcpy(out + 96 + 2 * i, &b, 2);
    out[106 + i] = e;
    if (i >= 1 && i < m->rank) memcpy(out + 64 + 8 * (i - 1), &m->stride[i], 8);
  }
}

int tensormap_encode(uint8_t out[TMAP_BYTES], const TensorMap *m, const char **why) {
  if (m->dtype > TMAP_16U6_ALIGN16B) BAD("unknown tensor data type");
  if (m->rank == 0 || m->rank > TMAP_MAX_RANK) BAD("the rank must be 1 to 5");
  if (m->interleave <= 2 && m->interleave && m->rank < 3) BAD("an interleaved layout needs rank 3 or more");
  int r = check_common(m, why);
  if (r) return r;
  unsigned es = tensormap_esize(m->dtype);
  for (unsigned i = 0; i < m->rank; i++)
    if (m->box[i] == 0 || m->box[i] > 256) BAD("each box dimension must be 1 to 256");
  if (es && m->interleave == 0 && m->box[0] * es % 16)
    BAD("the box's inner dimension must be a multiple of 16 bytes");
  TensorMap t = *m;
  t.mode = TMAP_TILE;
  if ((r = check_rest(&t, m->box[0], why))) return r;
  if ((*why = tensormap_interleave_unsupported(&t))) return 2;
  put_common(out, &t);
  return 0;
}

int tensormap_encode_im2col(uint8_t out[TMAP_BYTES], const TensorMap *m, const char **why) {
  if (m->dtype > TMAP_16U6_ALIGN16B) BAD("unknown tensor data type");
  if (m->rank < 3 || m->rank > TMAP_MAX_RANK) BAD("an im2col map's rank must be 3, 4 or 5");
  int r = check_common(m, why);
  if (r) return r;
  /* the corners: one s16 offset for rank 3, two in [-128, 127] for 4, three in [-16, 15] for 5 */
  int lim = m->rank == 3 ? 32768 : m->rank == 4 ? 128 : 16;
  for (unsigned i = 0; i + 2 < m->rank; i++) {
    if (m->lower[i] < -lim || m->lower[i] >= lim || m->upper[i] < -lim || m->upper[i] >= lim)
      BAD(m->rank == 3 ? "a bounding-box corner must be in [-32768, 32767] for rank 3"
          : m->rank == 4 ? "a bounding-box corner must be in [-128, 127] for rank 4"
                         : "a bounding-box corner must be in [-16, 15] for rank 5");
    /* the box of filter bases spans lower .. dim - 1 + upper */
    if ((int64_t)m->dim[i + 1] + m->upper[i] - m->lower[i] <= 0)
      BAD("the bounding box of the lower and upper corners must have non-zero area");
  }
  if (m->cpp == 0 || m->cpp > 256) BAD("channels per pixel must be 1 to 256");
  if ((m->dtype == TMAP_16U6_ALIGN16B || m->dtype == TMAP_16U4_ALIGN16B) && m->cpp != 128)
    BAD("with the 16U4/16U6 16B-aligned types channels per pixel must be 128");
  if (m->ppc == 0 || m->ppc > 1024) BAD("pixels per column must be 1 to 1024");
  TensorMap t = *m;
  t.mode = TMAP_IM2COL;
  if ((r = check_rest(&t, m->cpp, why))) return r;
  unsigned es = tensormap_esize(m->dtype);
  /* a box of whole 16-byte chunks: what the swizzle and the shared layout move */
  if (m->cpp * es * m->ppc % 16) UNSUP("an im2col box that is not a multiple of 16 bytes is not supported");
  put_common(out, &t);
  out[11] = TMAP_IM2COL;
  for (unsigned i = 0; i + 2 < m->rank; i++) {
    int16_t lo = (int16_t)m->lower[i], up = (int16_t)m->upper[i];
    memcpy(out + 112 + 2 * i, &lo, 2);
    memcpy(out + 118 + 2 * i, &up, 2);
  }
  uint16_t c = (uint16_t)m->cpp, p = (uint16_t)m->ppc;
  memcpy(out + 124, &c, 2);
  memcpy(out + 126, &p, 2);
  return 0;
}

bool tensormap_decode(const uint8_t in[TMAP_BYTES], TensorMap *m, const char **why) {
  uint32_t magic;
  memcpy(&magic, in, 4);
  if (magic != TMAP_MAGIC) { *why = "not a tensor map (not made by cuTensorMapEncodeTiled)"; return false; }
  memset(m, 0, sizeof *m);
  m->rank = in[4]; m->dtype = in[5]; m->esize = tensormap_esize(in[5]);   /* byte 6 is informative */ m->interleave = in[7];
  m->swizzle = in[8]; m->l2promo = in[9]; m->oobfill = in[10];
  m->mode = in[11];
  if (m->mode > TMAP_IM2COL) { *why = "the tensor map's mode is neither tile nor im2col"; return false; }
  memcpy(&m->addr, in + 16, 8);
  for (unsigned i = 0; i < TMAP_MAX_RANK; i++) {
    uint16_t b;
    memcpy(&m->dim[i], in + 24 + 8 * i, 8);
    memcpy(&b, in + 96 + 2 * i, 2);
    m->box[i] = b;
    m->estride[i] = in[106 + i];
    if (i) memcpy(&m->stride[i], in + 64 + 8 * (i - 1), 8);
  }
  m->stride[0] = m->esize;
  if (m->rank == 0 || m->rank > TMAP_MAX_RANK || m->esize == 0 || m->swizzle > TMAP_SWIZZLE_128B) {
    *why = "the tensor map holds a field ptxvm does not support";
    return false;
  }
  if (m->mode == TMAP_IM2COL) {
    for (unsigned i = 0; i < 3; i++) {
      int16_t lo, up;
      memcpy(&lo, in + 112 + 2 * i, 2);
      memcpy(&up, in + 118 + 2 * i, 2);
      m->lower[i] = lo; m->upper[i] = up;
    }
    uint16_t c, p;
    memcpy(&c, in + 124, 2);
    memcpy(&p, in + 126, 2);
    m->cpp = c; m->ppc = p;
    if (m->rank < 3 || !c || c > 256 || !p || p > 1024) {
      *why = "the im2col tensor map holds an out-of-range rank, channels per pixel or pixels per column";
      return false;
    }
  }
  for (unsigned i = 0; i < m->rank; i++)
    if (!m->box[i] || m->box[i] > 256 || !m->estride[i] || m->estride[i] > 8 || !m->dim[i]) {
      *why = "the tensor map holds an out-of-range box, element stride or dimension";
      return false;
    }
  if ((*why = interleave_bad(m))) return false;
  return true;
}

bool tensormap_replace(uint8_t m[TMAP_BYTES], TensorMapField f, unsigned ord, uint64_t v, const char **why) {
  /* the ISA's .elemtype numbering (Table 33) -> CUtensorMapDataType's */
  static const unsigned char elemtype[] = {TMAP_U8, TMAP_U16, TMAP_U32, TMAP_S32, TMAP_U64, TMAP_S64,
                                           TMAP_F16, TMAP_F32, TMAP_F32_FTZ, TMAP_F64, TMAP_BF16,
                                           TMAP_TF32, TMAP_TF32_FTZ};
  uint32_t magic = TMAP_MAGIC;
  bool dim = f == TMF_BOX_DIM || f == TMF_GLOBAL_DIM || f == TMF_ELEMENT_STRIDE;
  if ((dim && ord >= TMAP_MAX_RANK) || (f == TMF_GLOBAL_STRIDE && ord >= TMAP_MAX_RANK - 1)) {
    *why = "the ordinal is past the fifth dimension";
    return false;
  }
  switch (f) {
  case TMF_GLOBAL_ADDRESS: memcpy(m + 16, &v, 8); break;
  case TMF_RANK:
    if (v >= TMAP_MAX_RANK) { *why = "the rank field holds the rank minus one, 0 to 4"; return false; }
    m[4] = (uint8_t)(v + 1);
    break;
  case TMF_BOX_DIM:
    if (m[11] == TMAP_IM2COL) { *why = "an im2col map has no box dimensions (its box is pixels x channels)"; return false; }
    if (v == 0 || v > 256) { *why = "a box dimension must be 1 to 256"; return false; }
    { uint16_t b = (uint16_t)v; memcpy(m + 96 + 2 * ord, &b, 2); }
    break;
  case TMF_GLOBAL_DIM:
    if (v == 0) { *why = "a global dimension must not be zero"; return false; }
    memcpy(m + 24 + 8 * ord, &v, 8);
    break;
  case TMF_GLOBAL_STRIDE: memcpy(m + 64 + 8 * ord, &v, 8); break;
  case TMF_ELEMENT_STRIDE:
    if (v == 0 || v > 8) { *why = "an element stride must be 1 to 8"; return false; }
    m[106 + ord] = (uint8_t)v;
    break;
  case TMF_ELEMTYPE:
    if (v >= sizeof elemtype) { *why = "the packed element types (.b4x16, .b6x16) are not supported"; return false; }
    m[5] = elemtype[v];
    m[6] = (uint8_t)tensormap_esize(elemtype[v]);
    break;
  case TMF_INTERLEAVE:   /* 0 none, 1 16B, 2 32B; decoding checks the rest */
    if (v > 2) { *why = "the interleave layout is 0 (none), 1 (16B) or 2 (32B)"; return false; }
    if (v && m[11] == TMAP_IM2COL) { *why = "interleaved im2col maps are not supported"; return false; }
    m[7] = (uint8_t)v;
    break;
  case TMF_SWIZZLE_MODE:
    if (v > 3) { *why = "swizzle modes past 128B are not supported"; return false; }
    m[8] = (uint8_t)v;
    break;
  case TMF_SWIZZLE_ATOMICITY:
    if (v) { *why = "swizzle atomicity other than 16B is not supported"; return false; }
    break;
  case TMF_FILL_MODE:
    if (v > 1) { *why = "the fill mode is 0 (zero) or 1 (NaN)"; return false; }
    m[10] = (uint8_t)v;
    break;
  }
  memcpy(m, &magic, 4);
  return true;
}
