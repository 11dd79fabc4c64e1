#!/usr/bin/env bash
# Workbook bombs (bench/bombs.py) through every command that reads a workbook: each must stop
# with a located error (exit 2) within its memory budget (96 MiB adjudicate and validate, 256
# MiB the rest) and in well under a second; the unused-part bomb must succeed (its bomb is
# never inflated). Prints one row per bomb and command: wall time (median of RUNS, the
# script's own clock), peak RSS (/usr/bin/time -v, the largest of the runs), exit status, and
# whether it is within the budget.
#
#   bench/bombs.sh                      # bombs of 600 MB each (made once, in $BENCH_DIR)
#   SIZE_MB=300 RUNS=1 bench/bombs.sh   # quicker
#   LJ=/path/to/leasejudge bench/bombs.sh   # another binary (a baseline, say)
set -euo pipefail

cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
SIZE_MB=${SIZE_MB:-600}
DIR=${BENCH_DIR:-target/bench}/bombs-$SIZE_MB
if [ -z "${LJ:-}" ]; then
    cargo build --release --quiet --bin leasejudge
    LJ=target/x86_64-unknown-linux-gnu/release/leasejudge
fi
mkdir -p "$DIR"
[ -s "$DIR/unused-part.xlsx" ] || python3 bench/bombs.py "$DIR" "$SIZE_MB"

# A small case file, its matrix (a key and a submission), for the commands that need them.
CASES="$DIR/cases.csv"
printf 'case_id,event,observed_at,job_id,lease_id,generation,holder,lease_duration\nc1,offer,2026-01-01T00:00:00Z,j,L,1,w,30\n' >"$CASES"
KEY="$DIR/key.csv"
"$LJ" adjudicate "$CASES" --format csv -o "$KEY"

median() { sort -g | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.3f", m}'; }
# One run: prints "WALL_SECONDS PEAK_RSS_KIB EXIT" (output to /dev/null).
run_once() {
    local start end rss status
    start=$(date +%s.%N)
    set +e
    rss=$(/usr/bin/time -v "$@" 2>&1 >/dev/null | awk -F: '/Maximum resident set size/ {print $2 + 0}')
    status=${PIPESTATUS[0]}
    set -e
    end=$(date +%s.%N)
    echo "$(echo "$end - $start" | bc -l) ${rss:-0} $status"
}
row() { # bomb command budget_mib want_exit -- command...
    local bomb=$1 what=$2 budget=$3 want=$4 max=0 wall rss status
    shift 5
    local -a walls=()
    for _ in $(seq "$RUNS"); do
        read -r wall rss status <<<"$(run_once "$@")"
        walls+=("$wall")
        [ "$rss" -gt "$max" ] && max=$rss
    done
    local mib ok
    mib=$(echo "$max / 1024" | bc -l)
    ok=$(awk -v m="$mib" -v b="$budget" -v s="$status" -v w="$want" 'BEGIN {print (m <= b && s == w) ? "yes" : "NO"}')
    printf '| %s | %s | %s s | %.1f MiB | %s | %s |\n' "$bomb" "$what" \
        "$(printf '%s\n' "${walls[@]}" | median)" "$mib" "$status" "$ok"
}

echo "## Workbook bombs of $SIZE_MB MB ($RUNS runs each: median wall, largest peak RSS)"
echo
echo "| bomb | command | wall | peak RSS | exit | within budget |"
echo "|---|---|---:|---:|---:|---|"
for bomb in "$DIR"/*.xlsx "$DIR"/*.ods; do
    name=$(basename "$bomb")
    want=2
    [ "$name" = unused-part.xlsx ] && want=0
    row "$name" "adjudicate" 96 "$want" -- "$LJ" adjudicate "$bomb" --format csv
    row "$name" "validate" 96 "$want" -- "$LJ" validate "$bomb"
    row "$name" "explain -f json" 256 "$want" -- "$LJ" explain "$bomb" --format json
    # As a golden file, as a submission and as a key, the bomb is a malformed matrix: exit 2
    # (the unused-part bomb's header is a case file's, which is no matrix either).
    row "$name" "check (golden)" 256 2 -- "$LJ" check "$CASES" --golden "$bomb"
    row "$name" "grade (submission)" 256 2 -- "$LJ" grade "$bomb" --golden "$KEY"
    row "$name" "grade (key)" 256 2 -- "$LJ" grade "$KEY" --golden "$bomb"
done
