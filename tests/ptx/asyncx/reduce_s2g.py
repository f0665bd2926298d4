#!/usr/bin/env python3
"""reduce_s2g.py: the expected output of reduce_s2g.ptx from numpy (an independent
reference): prints its EXPECT lines (f16 as ptxvm prints it, %.5g; the kernel's
f16(0.3 t) is cvt.rn of the f32 product 0.3f * t)."""
import numpy as np

t = np.arange(16)
h = (np.float32(t) * np.float32(0.3)).astype(np.float32).astype(np.float16)
lines = [
    " ".join(str(v) for v in t + 3 * t),
    " ".join("%.5g" % float(v) for v in t.astype(np.float16) + h),
    " ".join("%.17g" % v for v in t + t + 0.5),
    " ".join(str(v) for v in np.minimum(t, 8 - t)),
]
for _ in range(2):
    for l in lines:
        print("// EXPECT: " + l)
