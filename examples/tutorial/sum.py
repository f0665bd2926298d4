# sum.py: docs/tutorial.md's Python example: the kernels of sum.ptx on
# numpy arrays (the ptxvm package: pip install ./python).
import numpy as np
import ptxvm

with ptxvm.Context() as ctx:
    mod = ctx.load_file("sum.ptx")
    x = np.arange(1024, dtype=np.float32)
    sums = np.zeros(4, dtype=np.float32)
    # parameters in declaration order; arrays are copied in and back out
    mod["_Z9block_sumPKfPfi"](grid=4, block=256, args=(x, sums, len(x)))
    print("per-CTA sums:", sums, "total:", sums.sum())

with ptxvm.Context(check=True) as ctx:
    mod = ctx.load_file("sum.ptx")
    try:
        mod["_Z8warp_sumPKfPfi"](grid=1, block=32, args=(x[:32], np.zeros(1, np.float32), 20))
    except ptxvm.Hazard as e:
        print("warp_sum:", e.findings[0])   # the report's lines; the first names the finding
