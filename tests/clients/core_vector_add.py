"""cuda.core: a vector add compiled from CUDA C++ to PTX by NVRTC (Program,
code_type "ptx"; NVRTC runs on the host and never touches a GPU), loaded as
PTX and launched with cuda.core.launch, checked against numpy, the way
cuda-python's cuda.core examples do it. Run: ptxvm exec python3 core_vector_add.py"""
import sys

import numpy as np
from cuda.core import Device, LaunchConfig, LegacyPinnedMemoryResource, Program, ProgramOptions, launch

SRC = r"""
template <typename T>
__global__ void vadd(const T *a, const T *b, T *c, size_t n) {
  size_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
"""


def main():
    dev = Device()
    dev.set_current()
    stream = dev.create_stream()
    arch = "".join(str(x) for x in dev.compute_capability)
    if arch != "90":
        sys.exit("FAIL compute capability %s, want 90" % arch)
    prog = Program(SRC, code_type="c++", options=ProgramOptions(std="c++17", arch="sm_" + arch))
    mod = prog.compile("ptx", name_expressions=("vadd<float>",))
    kernel = mod.get_kernel("vadd<float>")

    n = 5000
    rng = np.random.default_rng(2)
    a = rng.random(n, dtype=np.float32)
    b = rng.random(n, dtype=np.float32)
    nbytes = a.nbytes
    # host data in pinned buffers (cuMemAllocHost), seen by numpy through DLPack
    pinned = LegacyPinnedMemoryResource()
    ha, hb, hc = (pinned.allocate(nbytes) for _ in range(3))
    view = lambda buf: np.from_dlpack(buf).view(np.float32)
    view(ha)[:] = a
    view(hb)[:] = b
    mr = dev.memory_resource
    da, db, dc = (mr.allocate(nbytes, stream=stream) for _ in range(3))
    da.copy_from(ha, stream=stream)
    db.copy_from(hb, stream=stream)
    block = 128
    config = LaunchConfig(grid=(n + block - 1) // block, block=block)
    launch(stream, config, kernel, da, db, dc, np.uint64(n))
    dc.copy_to(hc, stream=stream)
    stream.sync()
    c = view(hc).copy()
    for buf in (da, db, dc, ha, hb, hc):
        buf.close(stream)
    want = a + b
    if not np.array_equal(c, want):
        sys.exit("FAIL cuda.core vector add: %d of %d differ" % (np.count_nonzero(c != want), n))
    print("PASS cuda.core Program (NVRTC to PTX) vector add (%d elements)" % n)


if __name__ == "__main__":
    main()
