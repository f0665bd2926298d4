#!/bin/sh
# test_demangle.sh: tools/demangle.c on the names nvcc gives kernels, seen
# through `ptxvm info` (the signature after "//"). The expected signatures
# are written from the C++ declarations below (each name was produced by
# nvcc 13 -arch=sm_90 from them) and, where c++filt is installed, also
# compared with it. Names demangle.c does not read, and malformed names,
# get no signature (never a wrong one), and no crash.
#   sh tests/cli/test_demangle.sh [BUILD_DIR]     (default build)
# Prints "N passed, M failed"; exits 1 on a failure.
B=${1:-build}
PTXVM="$B/ptxvm"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# mangled name | signature           (declaration it came from)
cat > "$T/names" <<'EOF2'
_Z6reducePKiPii|reduce(int const*, int*, int)
_Z6noargsv|noargs()
_Z3arrPA4_ihltd|arr(int (*) [4], unsigned char, long, unsigned short, double)
_Z2tkIfLi4EEvPT_PKS0_i|void tk<float, 4>(float*, float const*, int)
_Z2tkIdLin2EEvPT_PKS0_i|void tk<double, -2>(double*, double const*, int)
_Z2ttIiEvN2ns1VIT_EES3_PS2_|void tt<int>(ns::V<int>, ns::V<int>, int*)
_Z2bkILb1EEvN2ns1SES1_|void bk<true>(ns::S, ns::S)
_ZN2ns2k1EPKNS_1SEPS0_NS_1VIfEE|ns::k1(ns::S const*, ns::S*, ns::V<float>)
_ZN2ns5inner2k2EPyPVKicb|ns::inner::k2(unsigned long long*, int const volatile*, char, bool)
_ZN36_GLOBAL__N__932ef5e0_4_k_cu_2db8b6fd4anonEs|(anonymous namespace)::anon(short)
_Z2hkP6__halfS_Py|hk(__half*, __half, unsigned long long*)
_Z3maxIjEvPT_S1_j|void max<unsigned int>(unsigned int*, unsigned int*, unsigned int)
_Z1fIN2ns1VIiEEEvT_|void f<ns::V<int> >(ns::V<int>)
_Z6kernelRKfRd|kernel(float const&, double&)
EOF2
# not read (a function pointer, an operator), or malformed: no signature
cat > "$T/unread" <<'EOF2'
_Z1fPFviE
_ZN1SplERKS_
_Z3fooPS9_
_Z3fooI
_Z3foovi
_Z999x
_Z1fT_
_ZPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPi
plain_c_kernel
EOF2

{ printf '.version 8.0\n.target sm_90\n.address_size 64\n'
  for n in $(cut -d'|' -f1 "$T/names") $(cat "$T/unread"); do printf '.visible .entry %s()\n{\n  ret;\n}\n' "$n"; done
} > "$T/k.ptx"
if "$PTXVM" info "$T/k.ptx" > "$T/info" 2>"$T/err"; then ok; else bad "info: $(head -3 "$T/err")"; fi

while IFS='|' read -r name sig; do
  got=$(sed -n "s/^\.entry $name: 0 params, 0 bytes  \/\/ //p" "$T/info")
  if [ "$got" = "$sig" ]; then ok; else bad "$name: got '$got', want '$sig'"; fi
  if command -v c++filt >/dev/null 2>&1; then
    cf=$(echo "$name" | c++filt)
    # c++filt spells the anonymous namespace the same; > > is GNU's spacing too
    if [ "$cf" = "$sig" ]; then ok; else bad "$name: c++filt says '$cf', the test wants '$sig'"; fi
  fi
done < "$T/names"
for name in $(cat "$T/unread"); do
  if grep -q "^\.entry $name: 0 params, 0 bytes$" "$T/info"; then ok; else
    bad "$name: $(grep "^\.entry $name" "$T/info")"; fi
done

# a kernel is found by its demangled name
if "$PTXVM" run -q "$T/k.ptx" 'ns::inner::k2' 2>"$T/err"; then ok; else bad "run ns::inner::k2: $(head -2 "$T/err")"; fi
if "$PTXVM" run -q "$T/k.ptx" 'void max<unsigned int>(unsigned int*, unsigned int*, unsigned int)' 2>"$T/err"; then ok; else
  bad "run by signature: $(head -2 "$T/err")"; fi
"$PTXVM" run -q "$T/k.ptx" tk 2>"$T/err"
if [ $? = 2 ] && grep -q "kernel 'tk' is ambiguous: 2 kernels match it" "$T/err"; then ok; else bad "run tk: $(head -2 "$T/err")"; fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
