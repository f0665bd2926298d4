#!/bin/sh
# callgrind.sh: host instructions per thread-instruction on reduced sizes of
# the bench workloads (issue 19), and the checker's cost on W1-W3 (issue 17). Host instructions do not vary with machine
# load, unlike wall time; only the launch (ptxvm_launch) is counted. Usage: sh bench/callgrind.sh [PTXVM] ; prints
# "name host-insns thread-insns ratio". Needs valgrind.
cd "$(dirname "$0")/.." || exit 1
VM=${1:-build/ptxvm}
T=${TMPDIR:-/tmp}/ptxvm-cg.$$
mkdir -p "$T"
run() {   # name, then ptxvm run arguments
    name=$1; shift
    valgrind --tool=callgrind --toggle-collect=ptxvm_launch --callgrind-out-file="$T/$name.out" "$VM" run -q -j 1 --stats "$@" \
        >"$T/$name.log" 2>&1 || { echo "$name: failed"; cat "$T/$name.log"; return; }
    ir=$(grep -o 'Collected : [0-9]*' "$T/$name.log" | grep -o '[0-9]*$')
    ti=$(grep -o 'thread-instructions: [0-9]*' "$T/$name.log" | grep -o '[0-9]*$')
    echo "$name $ir $ti" | awk '{ printf "%-10s %12d host, %10d thread-insns, %.2f per thread-insn\n", $1, $2, $3, $2 / $3 }'
}
P=bench/ptx
run w1 -g 64 -b 256 -a s32[262144]:rand=1 -a s32[64]:zero -a u32:262144 $P/w1_reduce.ptx _Z9w1_reducePKiPij
run w2 -g 2,2 -b 32,32 -a f32[4096]:rand=1 -a f32[4096]:rand=2 -a f32[4096]:zero -a s32:64 $P/w2_sgemm.ptx _Z8w2_sgemmPKfS0_Pfi
run w4 -g 64 -b 256 -a f32[65536]:rand=4 -a f32[65536]:zero -a u32:256 $P/w4_pipeline.ptx _Z11w4_pipelinePKfPfj
run reduce -g 512 -b 256 -a s32[131072]:rand=1 -a s32[512]:zero -a s32:131072 examples/reduce.ptx _Z6reducePKiPii
# per-CTA set-up and teardown: an empty kernel at 256 and at 512 CTAs of 256 threads
printf '.version 8.0\n.target sm_90\n.address_size 64\n.visible .entry empty()\n{\n\tret;\n}\n' >"$T/empty.ptx"
run empty256 -g 256 -b 256 "$T/empty.ptx" empty >/dev/null
run empty512 -g 512 -b 256 "$T/empty.ptx" empty >/dev/null
a=$(grep -o 'Collected : [0-9]*' "$T/empty256.log" | grep -o '[0-9]*$')
b=$(grep -o 'Collected : [0-9]*' "$T/empty512.log" | grep -o '[0-9]*$')
echo "per-CTA (256 threads, empty kernel): $(( (b - a) / 256 )) host insns"
# the checker's cost (issue 17): W1-W3 with and without --check, host
# instructions of the launch, and their ratio
cost() {   # name, then ptxvm run arguments
    name=$1; shift
    for c in plain check; do
        f=; [ $c = check ] && f=--check
        valgrind --tool=callgrind --toggle-collect=ptxvm_launch --callgrind-out-file="$T/$name.$c.out" \
            "$VM" run -q -j 1 $f "$@" >"$T/$name.$c.log" 2>&1 || { echo "$name $c: failed"; cat "$T/$name.$c.log"; return; }
    done
    p=$(grep -o 'Collected : [0-9]*' "$T/$name.plain.log" | grep -o '[0-9]*$')
    k=$(grep -o 'Collected : [0-9]*' "$T/$name.check.log" | grep -o '[0-9]*$')
    echo "$name $p $k" | awk '{ printf "%-10s --check %12d host, unchecked %12d: %.2fx\n", $1, $3, $2, $3 / $2 }'
}
cost w1check -g 64 -b 256 -a s32[1048576]:rand=1 -a s32[64]:zero -a u32:1048576 $P/w1_reduce.ptx _Z9w1_reducePKiPij
cost w2check -g 4,4 -b 32,32 -a f32[16384]:rand=1 -a f32[16384]:rand=2 -a f32[16384]:zero -a s32:128 $P/w2_sgemm.ptx _Z8w2_sgemmPKfS0_Pfi
cost w3check -g 64 -b 256 -a u8[1048576]:rand=3 -a u32[256]:zero -a u32:1048576 $P/w3_hist.ptx _Z7w3_histPKhPjj
echo "profiles in $T"
