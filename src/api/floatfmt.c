/* floatfmt.c: ptxvm_float_encode and ptxvm_float_decode (include/ptxvm.h),
 * the narrow formats of PTX ISA 9.0 §5.2.5 through the interpreter's own
 * conversions (src/exec/fpconv.h), so the host and the kernels agree bit
 * for bit. */
#include <math.h>

#include "../../include/ptxvm.h"
#include "../exec/fpconv.h"

uint32_t ptxvm_float_encode(ptxvm_float_format fmt, double x, int satfinite) {
  switch (fmt) {
  case PTXVM_FLOAT_F16: return (uint32_t)fp_round(x, 5, 10, FR_RN, satfinite != 0);
  case PTXVM_FLOAT_BF16: return (uint32_t)fp_round(x, 8, 7, FR_RN, satfinite != 0);
  case PTXVM_FLOAT_E4M3: return f8_round_rn(x, true, satfinite != 0);
  case PTXVM_FLOAT_E5M2: return f8_round_rn(x, false, satfinite != 0);
  }
  return 0;
}

double ptxvm_float_decode(ptxvm_float_format fmt, uint32_t bits) {
  double r;
  unsigned sign_bit;
  switch (fmt) {
  case PTXVM_FLOAT_F16: r = fp_decode(bits & 0xffff, 5, 10); sign_bit = 15; break;
  case PTXVM_FLOAT_BF16: r = fp_decode(bits & 0xffff, 8, 7); sign_bit = 15; break;
  case PTXVM_FLOAT_E4M3: r = f8_decode((uint8_t)bits, true); sign_bit = 7; break;
  case PTXVM_FLOAT_E5M2: r = f8_decode((uint8_t)bits, false); sign_bit = 7; break;
  default: return bits_f64(F64_CNAN);
  }
  return isnan(r) ? copysign(r, bits >> sign_bit & 1 ? -1.0 : 1.0) : r;
}
