#!/usr/bin/env python3
"""gen_images.py: writes images.h, the fatbins the driver tests load, from
images.cu with the toolkit's nvcc (CUDA 13; $CUDA_HOME, else /usr/local/cuda).

    python3 tests/driver/gen_images.py

The tests then need no nvcc. Each image is one nvcc -fatbin output, as
bytes of an 8-byte aligned array (a __fatBinC_Wrapper_t may point at it):

  img_zstd   -arch=compute_90: PTX only, zstd-compressed (nvcc's default)
  img_lz4    -arch=compute_90 --compress-mode=speed: PTX, LZ4-compressed
  img_sass   -gencode arch=compute_90,code=sm_90 -DSASS_ONLY: SASS only,
             one kernel, sass_only (its ELF is the cubin the tests load)
"""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
NVCC = os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "nvcc")
IMAGES = [
    ("img_zstd", ["-arch=compute_90"]),
    ("img_lz4", ["-arch=compute_90", "--compress-mode=speed"]),
    ("img_sass", ["-gencode", "arch=compute_90,code=sm_90", "-DSASS_ONLY"]),
]


def main():
    src = os.path.join(HERE, "images.cu")
    out = ["/* images.h: written by gen_images.py from images.cu (do not edit). */",
           "#include <stdalign.h>", ""]
    with tempfile.TemporaryDirectory() as tmp:
        for name, opts in IMAGES:
            path = os.path.join(tmp, name + ".fatbin")
            subprocess.run([NVCC, "-fatbin", "-o", path, src] + opts, check=True)
            data = open(path, "rb").read()
            out.append("/* nvcc -fatbin %s */" % " ".join(opts))
            out.append("static alignas(8) const unsigned char %s[%d] = {" % (name, len(data)))
            for i in range(0, len(data), 16):
                out.append("  " + ",".join("0x%02x" % b for b in data[i:i + 16]) + ",")
            out.append("};")
            out.append("")
    with open(os.path.join(HERE, "images.h"), "w") as f:
        f.write("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
