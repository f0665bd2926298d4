#!/bin/sh
# test_install.sh: `make install` as a packager runs it, and a host program
# built against the staged tree with pkg-config: the soname and its links,
# only ptxvm_* exported from libptxvm.so (nm -D), the .pc file's flags, a
# kernel launched through the shared library, the CUDA driver and runtime
# in lib/ptxvm with a CUDA program run by the installed `ptxvm exec`, the
# man page, and `make uninstall`.
#   sh tests/install/test_install.sh [BUILD_DIR]     (default build)
# Prints "N passed, M failed"; exits 1 on a failure.
B=${1:-build}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

ver() { sed -n "s/^#define PTXVM_VERSION_$1 *\([0-9]*\).*/\1/p" include/ptxvm.h; }
MAJOR=$(ver MAJOR)
VERSION=$MAJOR.$(ver MINOR).$(ver PATCH)
D="$T/stage"
L="$D/usr/local/lib"

# the exports of the shared library: the API, nothing internal
nm -D --defined-only "$B/libptxvm.so" | awk '{print $NF}' | sort > "$T/exports"
grep -v '^ptxvm_' "$T/exports" > "$T/internal"
if [ -s "$T/exports" ] && [ ! -s "$T/internal" ]; then ok; else
  bad "libptxvm.so exports $(wc -l < "$T/internal") non-API symbols: $(head -5 "$T/internal" | tr '\n' ' ')"; fi
# every function ptxvm.h declares is exported
grep -o '\bptxvm_[a-z0-9_]*(' include/ptxvm.h | tr -d '(' | sort -u > "$T/declared"
missing=$(comm -23 "$T/declared" "$T/exports")
if [ -z "$missing" ]; then ok; else bad "declared in ptxvm.h, not exported: $missing"; fi
# the static archive keeps the internals (the unit tests link them)
if nm "$B/libptxvm.a" 2>/dev/null | grep -q ' T ir_\| T front_\| T sched_\| T mem_'; then ok; else
  bad "libptxvm.a lost its internal symbols"; fi

if make -s install B="$B" DESTDIR="$D" PREFIX=/usr/local >"$T/make.out" 2>&1; then ok; else
  bad "make install: $(tail -3 "$T/make.out")"; fi
for f in bin/ptxvm include/ptxvm.h lib/libptxvm.a lib/libptxvm.so.$VERSION lib/pkgconfig/ptxvm.pc \
         share/man/man1/ptxvm.1; do
  if [ -f "$D/usr/local/$f" ] && [ ! -L "$D/usr/local/$f" ]; then ok; else bad "not installed: $f"; fi
done
# the installed header speaks only of public things: no source paths
if ! grep -n 'src/\|tools/\|tests/\|\.c\b' "$D/usr/local/include/ptxvm.h" >"$T/paths"; then ok; else
  bad "ptxvm.h names internal files: $(head -3 "$T/paths" | tr '\n' ' ')"; fi
if [ "$(readlink "$L/libptxvm.so.$MAJOR")" = "libptxvm.so.$VERSION" ] &&
   [ "$(readlink "$L/libptxvm.so")" = "libptxvm.so.$MAJOR" ]; then ok; else
  bad "symlinks: $(ls -l "$L" | tr '\n' ' ')"; fi
soname=$(readelf -d "$L/libptxvm.so.$VERSION" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
if [ "$soname" = "libptxvm.so.$MAJOR" ]; then ok; else bad "soname '$soname', want libptxvm.so.$MAJOR"; fi
if [ "$("$D/usr/local/bin/ptxvm" --version)" = "ptxvm $VERSION" ]; then ok; else bad "installed ptxvm --version"; fi

# the man page is the committed one, and man reads it (where man is installed)
if cmp -s share/man/man1/ptxvm.1 "$D/usr/local/share/man/man1/ptxvm.1"; then ok; else bad "installed ptxvm.1 differs"; fi
if command -v man >/dev/null 2>&1; then
  if MANWIDTH=80 man -l "$D/usr/local/share/man/man1/ptxvm.1" 2>"$T/man.err" | grep -q 'ptxvm run \[OPTIONS\] FILE.ptx' &&
     [ ! -s "$T/man.err" ]; then ok; else bad "man -l ptxvm.1: $(head -3 "$T/man.err")"; fi
fi

# pkg-config on the staged tree: the sysroot prefixes its -I and -L
PC="env PKG_CONFIG_PATH=$L/pkgconfig PKG_CONFIG_SYSROOT_DIR=$D pkg-config"
if [ "$($PC --modversion ptxvm)" = "$VERSION" ]; then ok; else bad "pkg-config --modversion: $($PC --modversion ptxvm 2>&1)"; fi
flags=$($PC --cflags --libs ptxvm)
case "$flags" in *"-I$D/usr/local/include"*"-L$L"*"-lptxvm"*) ok ;; *) bad "pkg-config flags: $flags" ;; esac
static=$($PC --static --libs ptxvm)
case "$static" in *-lm*-lpthread*) ok ;; *) bad "pkg-config --static lacks -lm -lpthread: $static" ;; esac

cat > "$T/host.c" <<'C'
/* A host program: loads a kernel that doubles n words, launches it on 2
 * CTAs of 32 threads, checks the result. */
#include <ptxvm.h>
#include <stdio.h>
#include <string.h>

static const char ptx[] =
    ".version 8.0\n.target sm_90\n.address_size 64\n"
    ".visible .entry twice(.param .u64 p, .param .u32 n)\n{\n"
    "  .reg .b32 %r<6>;\n  .reg .b64 %rd<4>;\n  .reg .pred %q;\n"
    "  ld.param.u64 %rd1, [p];\n  ld.param.u32 %r1, [n];\n"
    "  mov.u32 %r2, %ctaid.x;\n  mov.u32 %r3, %ntid.x;\n  mov.u32 %r4, %tid.x;\n"
    "  mad.lo.s32 %r2, %r2, %r3, %r4;\n  setp.ge.u32 %q, %r2, %r1;\n  @%q ret;\n"
    "  mul.wide.u32 %rd2, %r2, 4;\n  add.s64 %rd3, %rd1, %rd2;\n"
    "  ld.global.u32 %r5, [%rd3];\n  shl.b32 %r5, %r5, 1;\n  st.global.u32 [%rd3], %r5;\n"
    "  ret;\n}\n";

int main(void) {
  ptxvm_context *ctx;
  ptxvm_module *mod;
  ptxvm_function *fn;
  ptxvm_devptr d;
  unsigned host[50], n = 50;
  for (unsigned i = 0; i < n; i++) host[i] = i;
  if (ptxvm_context_create(&ctx) || ptxvm_module_load_data(ctx, ptx, strlen(ptx), "twice.ptx", &mod) ||
      ptxvm_module_get_function(mod, "twice", &fn) || ptxvm_mem_alloc(ctx, sizeof host, &d) ||
      ptxvm_memcpy_htod(ctx, d, host, sizeof host)) {
    fprintf(stderr, "setup: %s\n", ptxvm_last_error(ctx));
    return 1;
  }
  void *params[] = {&d, &n};
  unsigned grid[3] = {2, 1, 1}, block[3] = {32, 1, 1};
  if (ptxvm_launch(fn, grid, block, NULL, 0, params) || ptxvm_memcpy_dtoh(ctx, host, d, sizeof host)) {
    fprintf(stderr, "launch: %s\n", ptxvm_last_error(ctx));
    return 1;
  }
  for (unsigned i = 0; i < n; i++)
    if (host[i] != 2 * i) {
      fprintf(stderr, "word %u is %u\n", i, host[i]);
      return 1;
    }
  printf("ptxvm %s (header %d.%d.%d): ok\n", ptxvm_version(), PTXVM_VERSION_MAJOR, PTXVM_VERSION_MINOR,
         PTXVM_VERSION_PATCH);
  return ptxvm_context_destroy(ctx) != PTXVM_SUCCESS;
}
C
# shellcheck disable=SC2086 # the flags are words
if cc -std=c11 -Wall -Werror -o "$T/host" "$T/host.c" $flags 2>"$T/cc.err"; then ok; else bad "cc: $(head -c 300 "$T/cc.err")"; fi
# linked against the shared library, by its soname
if readelf -d "$T/host" 2>/dev/null | grep -q "NEEDED.*\[libptxvm.so.$MAJOR\]"; then ok; else bad "host not linked to libptxvm.so.$MAJOR"; fi
out=$(LD_LIBRARY_PATH="$L" "$T/host" 2>&1)
if [ "$out" = "ptxvm $VERSION (header ${VERSION%%.*}.$(ver MINOR).$(ver PATCH)): ok" ]; then ok; else bad "host program: $out"; fi
# and statically, as the README says (the archive and the .pc's Libs.private;
# the sysroot prefixes libdir too)
libdir=$($PC --variable=libdir ptxvm)
private=$($PC --static --libs-only-l ptxvm | sed 's/-lptxvm//')
# shellcheck disable=SC2086
if [ "$libdir" = "$L" ] && cc -std=c11 -o "$T/host-static" "$T/host.c" $($PC --cflags ptxvm) \
     "$libdir/libptxvm.a" $private 2>"$T/cc.err" && "$T/host-static" >/dev/null &&
   ! readelf -d "$T/host-static" | grep -q libptxvm; then ok; else
  bad "static link (libdir '$libdir'): $(head -c 300 "$T/cc.err")"; fi

# the CUDA driver and runtime: in lib/ptxvm, off the system's library path,
# found there by the installed `ptxvm exec`
if [ -e "$B/libcuda.so.1" ]; then
  P="$L/ptxvm"
  for f in libcuda.so.1 libcudart.so.13 nvjitlink/libnvJitLink.so.13 nvjitlink/libnvJitLink.so.12; do
    if [ -f "$P/$f" ] && [ ! -L "$P/$f" ] && [ ! -e "$L/$f" ]; then ok; else bad "not installed in lib/ptxvm: $f"; fi
  done
  if [ "$(readlink "$P/libcuda.so")" = libcuda.so.1 ] && [ "$(readlink "$P/libcudart.so")" = libcudart.so.13 ]; then
    ok; else bad "links in lib/ptxvm: $(ls -l "$P" | tr '\n' ' ')"; fi
  got=$(env -u LD_LIBRARY_PATH "$D/usr/local/bin/ptxvm" exec sh -c 'echo "$LD_LIBRARY_PATH"')
  if [ "$got" = "$D/usr/local/bin/../lib/ptxvm" ]; then ok; else bad "installed exec: LD_LIBRARY_PATH=$got"; fi
  NVCC=$(command -v nvcc || echo "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc")
  if [ -x "$NVCC" ]; then
    # a CUDA program built with the shared runtime runs on the installed libraries
    cat > "$T/app.cu" <<'CU'
#include <cstdio>
__global__ void sq(int *p) { p[threadIdx.x] *= p[threadIdx.x]; }
int main() {
  int h[4] = {1, 2, 3, 4}, *d;
  if (cudaMalloc(&d, sizeof h) || cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice)) return 1;
  sq<<<1, 4>>>(d);
  if (cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost)) return 1;
  printf("%d %d %d %d\n", h[0], h[1], h[2], h[3]);
  return 0;
}
CU
    if "$NVCC" -cudart shared -arch=sm_90 -o "$T/app" "$T/app.cu" 2>"$T/nvcc.err"; then ok; else
      bad "nvcc: $(head -c 300 "$T/nvcc.err")"; fi
    out=$(env -u LD_LIBRARY_PATH "$D/usr/local/bin/ptxvm" exec -q "$T/app" 2>&1)
    if [ "$out" = "1 4 9 16" ]; then ok; else bad "CUDA program under the installed exec: $out"; fi
  fi
fi

if make -s uninstall B="$B" DESTDIR="$D" PREFIX=/usr/local >"$T/make.out" 2>&1; then ok; else
  bad "make uninstall: $(tail -3 "$T/make.out")"; fi
left=$(find "$D" ! -type d)
if [ -z "$left" ]; then ok; else bad "left after uninstall: $left"; fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
