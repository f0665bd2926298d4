#!/bin/sh
# test_help.sh: the help and the man page cannot drift from docs/cli.md, nor
# docs/cli.md from the code: the generated files are current
# (scripts/gen_cli.py --check), each `ptxvm COMMAND --help` prints exactly
# its section (the golden text made by the same generator), every option
# the code accepts is documented and every documented option is accepted,
# every PTXVM_* environment variable the code reads is documented, and the
# options of the shared CLI.md contract are all there (where it is beside
# the repository).
#   sh tests/cli/test_help.sh [BUILD_DIR]     (default build)
# Prints "N passed, M failed"; exits 1 on a failure.
B=${1:-build}
PTXVM="$B/ptxvm"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

if out=$(python3 scripts/gen_cli.py --check 2>&1); then ok; else bad "generated files: $out"; fi

# the golden help of each command, from the same source
for cmd in "" run check info exec ptx; do
  python3 scripts/gen_cli.py --help-of "$cmd" > "$T/want" || { bad "no section for '$cmd'"; continue; }
  for flag in --help -h; do
    # shellcheck disable=SC2086 # "" is ptxvm's own help: no word
    "$PTXVM" $cmd $flag > "$T/got" 2>"$T/err"
    rc=$?
    if [ "$rc" = 0 ] && cmp -s "$T/want" "$T/got" && [ ! -s "$T/err" ]; then ok; else
      bad "ptxvm $cmd $flag: exit $rc, $(diff "$T/want" "$T/got" | head -5) $(head -2 "$T/err")"; fi
  done
done
# help after other arguments is still help, and a command's help is not the whole usage
if "$PTXVM" check x.ptx --help > "$T/got" && python3 scripts/gen_cli.py --help-of check | cmp -s - "$T/got"; then ok; else
  bad "ptxvm check x.ptx --help"; fi
if ! grep -q 'ptxvm exec' "$T/got"; then ok; else bad "ptxvm check --help prints the whole usage"; fi

# run: the options getopt takes (runargs.c's table) are the documented ones
python3 scripts/gen_cli.py --help-of run > "$T/run"
grep -o '{"[a-z-]*", *\(required\|no\)_argument' tools/runargs.c | sed 's/{"\([a-z-]*\)".*/\1/' | sort -u > "$T/code"
grep -o -- '--[a-z][a-z-]*' "$T/run" | sed 's/^--//' | sort -u > "$T/doc"
if [ "$(wc -l < "$T/code")" -ge 16 ]; then ok; else bad "read only $(wc -l < "$T/code") options from runargs.c"; fi
missing=$(comm -23 "$T/code" "$T/doc" | tr '\n' ' ')
if [ -z "$missing" ]; then ok; else bad "run options not in docs/cli.md: $missing"; fi
# every documented run option is accepted (a bogus value is a different error;
# a path in $T, as --trace writes there)
K="$T/k.ptx"
printf '.version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n  ret;\n}\n' > "$K"
for o in $(sed -n 's/^  \(-[a-z]\), \(--[a-z-]*\).*/\1 \2/p; s/^  \(--[a-z-]*\).*/\1/p' "$T/run"); do
  "$PTXVM" run "$o" "$T/1" "$K" >/dev/null 2>"$T/err"
  if ! grep -q "unknown option\|ambiguous option" "$T/err"; then ok; else bad "documented run option $o: $(head -1 "$T/err")"; fi
done
# exec: the options exec.c compares are the documented ones
python3 scripts/gen_cli.py --help-of exec > "$T/exec"
grep -o 'strcmp(a, "-[a-z-]*")' tools/exec.c | sed 's/.*"\(.*\)")/\1/' | grep -v '^--$' | sort -u > "$T/code"
missing=$(for o in $(cat "$T/code"); do grep -q -- "$o\b" "$T/exec" || echo "$o"; done | tr '\n' ' ')
if [ -s "$T/code" ] && [ -z "$missing" ]; then ok; else bad "exec options not in docs/cli.md: $missing"; fi
# every documented exec option is accepted (a bogus value is a different error)
for o in $(sed -n 's/^  \(-[a-z]\), \(--[a-z-]*\).*/\1 \2/p; s/^  \(--[a-z-]*\).*/\1/p' "$T/exec"); do
  "$PTXVM" exec "$o" "$T/1" /bin/true >/dev/null 2>"$T/err"
  if ! grep -q "unknown option\|ambiguous option" "$T/err"; then ok; else bad "documented exec option $o: $(head -1 "$T/err")"; fi
done

# every PTXVM_* variable the code reads is in the reference
grep -rhoE 'getenv\("PTXVM_[A-Z_]+"\)|env_u64\("PTXVM_[A-Z_]+"' src tools | grep -oE 'PTXVM_[A-Z_]+' | sort -u > "$T/vars"
missing=$(for v in $(cat "$T/vars"); do grep -q "$v" docs/cli.md || echo "$v"; done | tr '\n' ' ')
if [ -s "$T/vars" ] && [ -z "$missing" ]; then ok; else bad "environment variables not in docs/cli.md: $missing"; fi

# the contract: each option of CLI.md's run table is in the reference
CLI=../shared/CLI.md
[ -f "$CLI" ] || CLI=/work/shared/CLI.md
if [ -f "$CLI" ]; then
  sed -n 's/^| `\(-[a-z]\), \(--[a-z-]*\).*/\2/p; s/^| `\(--[a-z-]*\).*/\1/p' "$CLI" | sort -u > "$T/contract"
  missing=$(for o in $(cat "$T/contract"); do grep -q -- "$o\b" "$T/run" || echo "$o"; done | tr '\n' ' ')
  if [ -s "$T/contract" ] && [ -z "$missing" ]; then ok; else bad "CLI.md options not in run's help: $missing"; fi
fi

# the man page renders without warnings (where man is installed)
if command -v man >/dev/null 2>&1; then
  if MANWIDTH=80 man -l share/man/man1/ptxvm.1 2>"$T/err" | grep -q 'PTXVM RUN' && [ ! -s "$T/err" ]; then ok; else
    bad "man -l ptxvm.1: $(head -3 "$T/err")"; fi
fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
