#!/usr/bin/env bash
# Hostile shapes (issue 28, "Memory"): inputs whose size is in the number of problems, of rows
# of one case, of columns or of bytes on one line. Every command must stay within its memory
# budget (96 MiB adjudicate and validate, 256 MiB the rest), never abort, and give the exit
# status it should. The shapes are made here (bench/hostile.py), once, in $BENCH_DIR. Prints a
# Markdown table: shape | command | wall | peak RSS | exit | within budget (wall time by the
# script's own clock, one run; peak RSS by /usr/bin/time -v).
#
#   bench/hostile.sh                           # 1M and 10M bad rows, cases of 1M and 5M rows...
#   SMALL=1 bench/hostile.sh                   # only the smaller of each size: quicker
#   LJ=/path/to/leasejudge bench/hostile.sh    # another binary (a baseline, say)
#   ONLY='grade' bench/hostile.sh              # only the rows whose "shape command" matches
#
# Every run is held to LIMIT_MIB of address space (ulimit -v; default 4096), so that a binary
# whose memory grows with the input aborts rather than takes the machine: such a run shows its
# exit status (134, or whatever the allocator gives) and "NO".
set -euo pipefail

cd "$(dirname "$0")/.."
DIR=${BENCH_DIR:-target/bench}/hostile
LIMIT_MIB=${LIMIT_MIB:-4096}
if [ -z "${LJ:-}" ]; then
    cargo build --release --quiet --bin leasejudge
    LJ=target/x86_64-unknown-linux-gnu/release/leasejudge
fi
mkdir -p "$DIR"
if [ -n "${SMALL:-}" ]; then
    BAD="1000000" ONE="1000000"
else
    BAD="1000000 10000000" ONE="1000000 5000000"
fi
LINE_BYTES=${LINE_BYTES:-600000000}
WIDE=${WIDE:-100000}
CLASS=${CLASS:-100000}

for n in $BAD; do python3 bench/hostile.py "$DIR" bad "$n"; python3 bench/hostile.py "$DIR" badkey "$n"; done
for n in $ONE; do python3 bench/hostile.py "$DIR" one "$n"; done
python3 bench/hostile.py "$DIR" line "$LINE_BYTES"
python3 bench/hostile.py "$DIR" wide "$WIDE"
python3 bench/hostile.py "$DIR" class "$CLASS"

# A small case file of the class's 1,000 case ids and its key, for the commands that need one.
CASES="$DIR/cases.csv"
if [ ! -s "$CASES" ]; then
    {
        echo "case_id,event,observed_at,job_id,lease_id,generation,holder,lease_duration"
        for i in $(seq 0 999); do echo "c$i,offer,2026-01-01T00:00:00Z,j$i,L$i,1,w,30"; done
    } >"$CASES"
fi
KEY="$DIR/key.csv"
"$LJ" adjudicate "$CASES" --format csv -o "$KEY"

# One run: prints "WALL_SECONDS PEAK_RSS_KIB EXIT" (its output to /dev/null).
run_once() {
    local start end rss status
    start=$(date +%s.%N)
    set +e
    rss=$( (ulimit -v $((LIMIT_MIB * 1024)); /usr/bin/time -v "$@" 2>&1 >/dev/null) |
        awk -F: '/Maximum resident set size/ {print $2 + 0}')
    status=${PIPESTATUS[0]}
    set -e
    end=$(date +%s.%N)
    echo "$(echo "$end - $start" | bc -l) ${rss:-0} $status"
}
row() { # shape command budget_mib want_exit -- command...
    local shape=$1 what=$2 budget=$3 want=$4 wall rss status
    shift 5
    if [ -n "${ONLY:-}" ] && ! grep -Eq -- "$ONLY" <<<"$shape $what"; then
        return
    fi
    read -r wall rss status <<<"$(run_once "$@")"
    local mib ok
    mib=$(echo "$rss / 1024" | bc -l)
    ok=$(awk -v m="$mib" -v b="$budget" -v s="$status" -v w="$want" 'BEGIN {print (m <= b && s == w) ? "yes" : "NO"}')
    printf '| %s | %s | %.1f s | %.1f MiB | %s | %s |\n' "$shape" "$what" "$wall" "$mib" "$status" "$ok"
}

echo "## Hostile shapes ($(basename "$LJ"), address space held to $LIMIT_MIB MiB)"
echo
echo "| shape | command | wall | peak RSS | exit | within budget |"
echo "|---|---|---:|---:|---:|---|"
for n in $BAD; do
    bad="$DIR/bad-$n.csv" badkey="$DIR/badkey-$n.csv" shape="$n malformed rows"
    row "$shape" "adjudicate" 96 2 -- "$LJ" adjudicate "$bad" --format csv
    row "$shape" "validate" 96 2 -- "$LJ" validate "$bad"
    row "$shape" "check --golden" 256 2 -- "$LJ" check "$bad" --golden "$KEY"
    row "$shape" "explain" 256 2 -- "$LJ" explain "$bad"
    row "$shape" "template" 256 2 -- "$LJ" template "$bad"
    row "$shape" "reorder" 256 2 -- "$LJ" reorder "$bad"
    row "$shape" "explain -f html --limit 10" 256 2 -- "$LJ" explain "$bad" --format html --limit 10
    row "$shape" "grade (submission)" 256 2 -- "$LJ" grade "$badkey" --golden "$KEY"
    row "$shape" "grade (key)" 256 2 -- "$LJ" grade "$KEY" --golden "$badkey"
    row "$shape" "grade --autograder (key)" 256 2 -- "$LJ" grade "$KEY" --golden "$badkey" \
        --autograder -f gradescope -o "$DIR/results-$n"
done
for n in $ONE; do
    one="$DIR/one-$n.csv" shape="one case of $n rows"
    for format in text json html mermaid; do
        row "$shape" "explain -f $format" 256 0 -- "$LJ" explain "$one" --format "$format"
    done
    row "$shape" "explain -f html --limit 10" 256 0 -- "$LJ" explain "$one" --format html --limit 10
    row "$shape" "adjudicate --explain" 96 0 -- "$LJ" adjudicate "$one" --explain --format csv
    row "$shape" "validate" 96 0 -- "$LJ" validate "$one"
    row "$shape" "template" 256 0 -- "$LJ" template "$one"
    row "$shape" "reorder" 256 2 -- "$LJ" reorder "$one"
done
line="$DIR/line-$LINE_BYTES.csv" shape="one line of $LINE_BYTES bytes"
for jobs in 1 2 4; do
    row "$shape" "adjudicate --jobs $jobs" 96 2 -- "$LJ" adjudicate "$line" --format csv --jobs "$jobs"
done
row "$shape" "validate" 96 2 -- "$LJ" validate "$line"
wide="$DIR/wide-$WIDE.csv" shape="2 rows, $WIDE columns"
row "$shape" "validate" 96 0 -- "$LJ" validate "$wide"
row "$shape" "adjudicate" 96 0 -- "$LJ" adjudicate "$wide" --format csv
row "$CLASS two-line submissions" "grade" 256 1 -- "$LJ" grade "$DIR/class-$CLASS" --golden "$KEY"
