#!/usr/bin/env bash
# Regenerates the README's "Performance" figures: throughput of `adjudicate --format csv`
# against a bare csv-crate ByteRecord parse of the same file (side by side, median of RUNS
# runs) and peak RSS, at 1M and 10M rows (contiguous and interleaved cases), and several files
# on one thread or two. Generated files go to $BENCH_DIR (default target/bench), never git.
#
#   bench/run.sh            # everything (the 10M-row files need ~1.6 GB of disk)
#   RUNS=9 bench/run.sh     # more runs per median
#   SKIP_10M=1 bench/run.sh # only the 1M-row figures
set -euo pipefail

cd "$(dirname "$0")/.."
RUNS=${RUNS:-5}
DIR=${BENCH_DIR:-target/bench}
mkdir -p "$DIR"

# The release binary is stripped: for perf or callgrind, build `--profile profiling`
# (target/profiling/leasejudge, with line tables) instead.
cargo build --release --quiet --bin leasejudge --example csv_baseline
LJ=target/release/leasejudge
BASE=target/release/examples/csv_baseline

# Generated cases average about 8.7 rows: these case counts give just over 1M and 10M rows.
gen() { # name cases interleave
    local file="$DIR/$1.csv"
    if [ ! -s "$file" ]; then
        "$LJ" generate --seed 1 --cases "$2" --interleave "$3" -o "$file"
    fi
    echo "$file"
}
rows() { echo $(($(wc -l <"$1") - 1)); }

# Wall-clock seconds of a command (output discarded).
seconds() {
    local start end
    start=$(date +%s.%N)
    "$@" >/dev/null
    end=$(date +%s.%N)
    echo "$end - $start" | bc -l
}
median() { sort -g | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.3f", m}'; }
# Median wall seconds of two commands run alternately, $RUNS times each: prints "A B".
#   medians_of_two command A... -- command B...
medians_of_two() {
    local -a first=() a_times=() b_times=()
    while [ "$1" != "--" ]; do
        first+=("$1")
        shift
    done
    shift
    for _ in $(seq "$RUNS"); do
        a_times+=("$(seconds "${first[@]}")")
        b_times+=("$(seconds "$@")")
    done
    echo "$(printf '%s\n' "${a_times[@]}" | median) $(printf '%s\n' "${b_times[@]}" | median)"
}
peak_rss_mib() { # command... -> MiB
    /usr/bin/time -v "$@" 2>&1 >/dev/null | awk -F: '/Maximum resident set size/ {printf "%.1f", $2/1024}'
}

M1=$(gen rows-1m-contiguous 116000 1)
M1I=$(gen rows-1m-interleave8 116000 8)
echo "files: $M1 ($(rows "$M1") rows), $M1I ($(rows "$M1I") rows)" >&2
targets=("$M1" "$M1I")
if [ -z "${SKIP_10M:-}" ]; then
    targets+=("$(gen rows-10m-contiguous 1160000 1)" "$(gen rows-10m-interleave8 1160000 8)")
fi

echo "## Throughput ($RUNS runs each, alternating, median wall time)"
echo
echo "| file | rows | csv ByteRecord parse | adjudicate --format csv | ratio | adjudicate rows/s |"
echo "|---|---:|---:|---:|---:|---:|"
for file in "${targets[@]}"; do
    read -r base judge <<<"$(medians_of_two "$BASE" "$file" -- "$LJ" adjudicate "$file" --format csv)"
    n=$(rows "$file")
    printf '| %s | %d | %.3f s | %.3f s | %.2f× | %.0f |\n' "$(basename "$file")" "$n" "$base" "$judge" \
        "$(echo "$judge / $base" | bc -l)" "$(echo "$n / $judge" | bc -l)"
done
echo

echo "## One file: one thread or two halves ($RUNS runs each, alternating, median wall time)"
echo
echo "| file | --jobs 1 | --jobs 2 (two halves) | same output |"
echo "|---|---:|---:|---|"
for file in "$M1" "$M1I"; do
    read -r one two <<<"$(medians_of_two "$LJ" adjudicate "$file" --format csv --jobs 1 \
        -- "$LJ" adjudicate "$file" --format csv --jobs 2)"
    "$LJ" adjudicate "$file" --format csv --jobs 1 -o "$DIR/one.csv"
    "$LJ" adjudicate "$file" --format csv --jobs 2 -o "$DIR/two.csv"
    cmp "$DIR/one.csv" "$DIR/two.csv"
    printf '| %s | %s s | %s s | yes (cmp) |\n' "$(basename "$file")" "$one" "$two"
done
echo

echo "## Peak RSS (/usr/bin/time -v, adjudicate --format csv)"
echo
echo "| file | rows | peak RSS |"
echo "|---|---:|---:|"
for file in "${targets[@]}"; do
    printf '| %s | %d | %s MiB |\n' "$(basename "$file")" "$(rows "$file")" \
        "$(peak_rss_mib "$LJ" adjudicate "$file" --format csv -o "$DIR/matrix.csv")"
done
echo

echo "## Several files: one thread or two ($RUNS runs, median)"
echo
split_dir="$DIR/parts"
if [ ! -d "$split_dir" ]; then
    mkdir -p "$split_dir"
    for i in 1 2 3 4; do
        "$LJ" generate --seed "$i" --cases 29000 --interleave 1 -o "$split_dir/part$i.tmp"
        sed "s/^case-/p$i-case-/" "$split_dir/part$i.tmp" >"$split_dir/part$i.csv"
        rm "$split_dir/part$i.tmp"
    done
fi
read -r one two <<<"$(medians_of_two "$LJ" adjudicate "$split_dir" --format csv --jobs 1 -o "$DIR/one.csv" \
    -- "$LJ" adjudicate "$split_dir" --format csv --jobs 2 -o "$DIR/two.csv")"
cmp "$DIR/one.csv" "$DIR/two.csv"
echo "| 4 files, $(cat "$split_dir"/*.csv | wc -l) lines | --jobs 1 | --jobs 2 | same output |"
echo "|---|---:|---:|---|"
printf '| | %s s | %s s | yes (cmp) |\n' "$one" "$two"
