#!/bin/sh
# deps.sh: installs what bench/ocl needs when it is missing, from Debian's
# packages (as scripts/deps.sh does): PoCL's CPU driver, the ICD loader and
# its development library, the OpenCL headers.
set -e
need=""
ls /etc/OpenCL/vendors/pocl*.icd >/dev/null 2>&1 || need="$need pocl-opencl-icd"
echo '#include <CL/cl.h>' | cc -E -x c - >/dev/null 2>&1 || need="$need opencl-headers"
echo 'int main(void){return 0;}' | cc -x c - -lOpenCL -o /tmp/ptxvm-ocl-probe >/dev/null 2>&1 ||
  need="$need ocl-icd-opencl-dev"
rm -f /tmp/ptxvm-ocl-probe
if [ -n "$need" ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "bench/ocl/deps.sh: please install:$need" >&2
    exit 1
  fi
  echo "bench/ocl/deps.sh: installing$need" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need >/dev/null
fi
