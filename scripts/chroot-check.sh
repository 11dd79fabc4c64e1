#!/usr/bin/env bash
# Proves that the release binary runs on any x86-64 Linux: it is statically linked (no program
# interpreter, no shared library), and it runs in an empty root directory that holds nothing but
# itself (no /lib, no /tmp, no /proc, no /dev): `adjudicate` on standard input, and `grade` and
# `validate` of the two files they are given, with the outputs a normal run gives.
#
#   scripts/chroot-check.sh            # from the repository root; needs root (chroot), or
#                                      # user namespaces (`unshare -r`) where root is not had
#   LJ=/path/to/leasejudge scripts/chroot-check.sh   # another binary
#
# Everything it makes goes under $CHROOT_DIR (default target/chroot-check), never into git.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${CHROOT_DIR:-$PWD/target/chroot-check}

if [ -z "${LJ:-}" ]; then
    cargo build --locked --release --quiet --bin leasejudge
    LJ=target/x86_64-unknown-linux-gnu/release/leasejudge
fi

fail() {
    echo "chroot-check: $*" >&2
    exit 1
}

# Statically linked: no program interpreter and no shared library in its program and dynamic
# headers (readelf, binutils), and ldd finds nothing to load.
if readelf -lW "$LJ" | grep -q "INTERP"; then
    fail "$LJ names a program interpreter: $(readelf -lW "$LJ" | grep -A1 INTERP | tr -s ' ')"
fi
if readelf -dW "$LJ" | grep -q "(NEEDED)"; then
    fail "$LJ links shared libraries: $(readelf -dW "$LJ" | grep "(NEEDED)" | tr -s ' ')"
fi
if ldd "$LJ" 2>&1 | grep -q "=>"; then
    fail "$LJ links shared libraries: $(ldd "$LJ" 2>&1 | tr '\n' ' ')"
fi
if command -v file >/dev/null; then
    echo "chroot-check: $LJ: $(file -b "$LJ")"
else
    echo "chroot-check: $LJ: statically linked (readelf, ldd)"
fi

# The empty root: the binary alone; `grade` and `validate` get their input files beside it.
rm -rf "$dir"
mkdir -p "$dir/root"
cp "$LJ" "$dir/root/leasejudge"
# A container may forbid both (no CAP_SYS_CHROOT, no user namespaces): then the checks above
# are all this machine can prove, and the script says so rather than failing CI for the
# machine's policy. SKIP_IF_NO_CHROOT=0 makes that an error instead.
if [ "$(id -u)" -eq 0 ] && chroot "$dir/root" /leasejudge --version >/dev/null 2>&1; then
    in_root() { chroot "$dir/root" /leasejudge "$@"; }
elif unshare -r chroot "$dir/root" /leasejudge --version >/dev/null 2>&1; then
    in_root() { unshare -r chroot "$dir/root" /leasejudge "$@"; }
elif [ "${SKIP_IF_NO_CHROOT:-1}" = 1 ]; then
    echo "chroot-check: this machine allows neither chroot nor user namespaces (unshare -r): the run in an empty root is skipped; the binary is statically linked (checked above)" >&2
    exit 0
else
    echo "chroot-check: needs root (chroot) or user namespaces (unshare -r)" >&2
    exit 2
fi
if [ "$(find "$dir/root" | wc -l)" -ne 2 ]; then
    fail "the root holds more than the binary: $(find "$dir/root")"
fi

in_root --version
in_root adjudicate - --format csv <cases/probes.csv >"$dir/probes.csv" ||
    fail "adjudicate on standard input failed in the empty root"
cmp -s "$dir/probes.csv" golden/probes.csv ||
    fail "adjudicate in the empty root differs from golden/probes.csv"
echo "chroot-check: adjudicate - < cases/probes.csv in the empty root gives golden/probes.csv"

cp golden/probes.csv "$dir/root/key.csv"
cp tests/data/grading/grade-wrong/submission.csv "$dir/root/submission.csv"
status=0
in_root grade /submission.csv --golden /key.csv --format json >"$dir/grade.json" || status=$?
# One case right of four: exit 1 (differences found), and the score in the report.
[ "$status" -eq 1 ] || fail "grade in the empty root exited $status, not 1"
grep -q '"score": 1' "$dir/grade.json" || fail "grade in the empty root: no score of 1 in $dir/grade.json"
echo "chroot-check: grade in the empty root scores the submission 1 of 4 (exit 1)"

cp cases/probes.csv "$dir/root/probes.csv"
in_root validate /probes.csv >"$dir/validate.out" 2>&1 || fail "validate in the empty root: $(cat "$dir/validate.out")"
grep -q "4 cases, 22 rows: 0 input errors, 0 warnings" "$dir/validate.out" ||
    fail "validate in the empty root: $(cat "$dir/validate.out")"
echo "chroot-check: validate in the empty root: $(tail -1 "$dir/validate.out")"
