#!/usr/bin/env bash
# The autograders' ceilings (issue 29): `run_autograder`, run as Gradescope and PrairieLearn
# run it, on a large lab and hostile uploads, must peak at no more than BUDGET_MIB of resident
# memory (Gradescope's default container has 768 MB), write its results every time, and keep
# the instructor's log (its standard output and error) within 1,000,000 bytes. Every shape is
# made here; the script fails loudly, naming the shape, when a ceiling is passed.
#
#   bench/autograder.sh                         # 100,000-case lab, 60 MB uploads
#   CASES=20000 UPLOAD_MB=10 bench/autograder.sh   # quick
#   LJ=/path/to/leasejudge bench/autograder.sh  # another build
#
# Shapes, each through both platforms (Gradescope's zip with --feedback hint, PrairieLearn's
# question in a course, sharing its binary):
#   answers   every case answered (ACTIVE within_lease): the lab's whole matrix graded with hints
#   pasted    one row pasted UPLOAD_MB MB over (a duplicated case id per row)
#   ragged    UPLOAD_MB MB of rows with a cell too many
#   junk      UPLOAD_MB MB of rows whose cells are not UTF-8, 5,000 bytes each
#   utf16     the answers as UTF-16 with tabs (Excel's Unicode Text)
set -euo pipefail

cd "$(dirname "$0")/.."
CASES=${CASES:-100000}
UPLOAD_MB=${UPLOAD_MB:-60}
BUDGET_MIB=${BUDGET_MIB:-512}
LOG_LIMIT=1000000
DIR=${BENCH_DIR:-target/bench}/autograder
rm -rf "$DIR"
mkdir -p "$DIR"

if [ -z "${LJ:-}" ]; then
    cargo build --release --quiet --bin leasejudge
    LJ=target/release/leasejudge
fi
LJ=$(cd "$(dirname "$LJ")" && pwd)/$(basename "$LJ")

echo "making a lab of $CASES cases and its uploads ($UPLOAD_MB MB) in $DIR"
"$LJ" generate --cases "$CASES" --seed 29 -o "$DIR/lab.csv" --golden "$DIR/key.csv" >/dev/null
python3 - "$DIR" "$UPLOAD_MB" <<'EOF'
import sys
out, mb = sys.argv[1], int(sys.argv[2]) * 1_000_000
ids = [line.split(',', 1)[0] for line in open(f"{out}/key.csv").read().splitlines()[1:]]
header = "case_id,decision,reason\n"
answers = header + "".join(f"{i},ACTIVE,within_lease\n" for i in ids)
open(f"{out}/answers.csv", "w").write(answers)
row = f"{ids[0]},ACTIVE,within_lease\n"
open(f"{out}/pasted.csv", "w").write(header + row * (mb // len(row)))
row = f"{ids[0]},ACTIVE,within_lease,extra\n"
open(f"{out}/ragged.csv", "w").write(header + row * (mb // len(row)))
with open(f"{out}/junk.csv", "wb") as junk:
    junk.write(header.encode())
    row = b"c," + b"\xff" * 5000 + b",x\n"
    junk.write(row * (mb // len(row)))
open(f"{out}/utf16.csv", "wb").write(answers.replace(",", "\t").encode("utf-16"))
EOF

"$LJ" autograder gradescope --golden "$DIR/key.csv" --cases "$DIR/lab.csv" --feedback hint \
    -o "$DIR/autograder.zip" >/dev/null
mkdir -p "$DIR/course"
"$LJ" autograder prairielearn --golden "$DIR/key.csv" --cases "$DIR/lab.csv" --feedback hint \
    --course "$DIR/course" --qid lab >/dev/null 2>&1

failed=0
# One run of `platform` on `upload`: the platform's layout made fresh, the script run under
# /usr/bin/time; prints the peak and checks every ceiling.
run() {
    local platform=$1 shape=$2 root="$DIR/root" rss log results script
    rm -rf "$root"
    if [ "$platform" = gradescope ]; then
        mkdir -p "$root/source" "$root/submission" "$root/results"
        (cd "$root/source" && unzip -q "../../autograder.zip")
        cp "$root/source/run_autograder" "$root/run_autograder"
        chmod +x "$root/run_autograder" "$root/source/leasejudge"
        cp "$DIR/$shape.csv" "$root/submission/$shape.csv"
        script="$root/run_autograder"
        results="$root/results/results.json"
    else
        mkdir -p "$root/student" "$root/serverFilesCourse"
        cp -R "$DIR/course/questions/lab/tests" "$root/tests"
        cp -R "$DIR/course/serverFilesCourse/leasejudge" "$root/serverFilesCourse/"
        chmod +x "$root/tests/run_autograder"
        cp "$DIR/$shape.csv" "$root/student/$shape.csv"
        script="$root/tests/run_autograder"
        results="$root/results/results.json"
    fi
    set +e
    LEASEJUDGE_AUTOGRADER_ROOT="$root" /usr/bin/time -v -o "$DIR/time" "$script" >"$DIR/log" 2>&1
    set -e
    rss=$(awk -F: '/Maximum resident set size/ {print $2 + 0}' "$DIR/time")
    log=$(wc -c <"$DIR/log")
    local mib=$((rss / 1024)) verdict=ok
    if [ "$mib" -gt "$BUDGET_MIB" ]; then verdict="OVER ${BUDGET_MIB} MiB"; failed=1; fi
    if [ ! -s "$results" ]; then verdict="NO RESULTS"; failed=1; fi
    if [ "$log" -gt "$LOG_LIMIT" ]; then verdict="LOG OVER 1 MB"; failed=1; fi
    printf '%-12s %-8s peak %5d MiB  log %8d bytes  results %8d bytes  %s\n' \
        "$platform" "$shape" "$mib" "$log" "$(wc -c <"$results" 2>/dev/null || echo 0)" "$verdict"
}

for shape in answers pasted ragged junk utf16; do
    run gradescope "$shape"
    run prairielearn "$shape"
done
if [ "$failed" -ne 0 ]; then
    echo "bench/autograder.sh: a ceiling was passed (above)" >&2
    exit 1
fi
