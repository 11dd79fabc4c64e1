#!/usr/bin/env bash
# Regenerates the figures of docs/performance.md ("Today's figures"): for each input shape and each command, wall
# time (median of RUNS runs, the script's own clock) and peak RSS (/usr/bin/time -v, the largest
# of the runs), and adjudicate --format csv against a bare single-threaded csv-crate ByteRecord
# parse of the same file (csv_baseline, run alternately with it).
# Generated files go to $BENCH_DIR (default target/bench), never into git.
#
# Shapes:
#   plain     `generate` (default style), CASES cases (~8.7 rows each)
#   messy     `generate --style messy`: short sequential ids, quoted cells, offsets, blank
#             lines, scrambled headers, 1-4 cases interleaved; CASES cases
#   short-ids the plain file with its ids rewritten as c9-NNNNNN
#   returning BIG_CASES one-offer cases, then one final row for the first case
#   one-offer the same without the final row (the returning case's yardstick)
#   json      a JSON array of the plain rows, about JSON_MB MB
#   json-line the same rows as one line (what json.dump writes)
#   json-back the one-line array plus, at its end, an observe row for each of its first
#             1,000 cases: every one is read again (the returning case's yardstick: json-line)
#   files     SMALL_FILES two-row files in one directory
#
#   bench/run.sh                     # everything (several GB of disk at the default sizes)
#   CASES=20000 BIG_CASES=200000 JSON_MB=20 SMALL_FILES=1000 RUNS=1 bench/run.sh   # quick
#   SKIP_BIG=1 SKIP_JSON=1 SKIP_FILES=1 bench/run.sh                               # styles only
#   SKIP_EXPLAIN=1 SKIP_GRADE=1 SKIP_TABLE=1 SKIP_CLASS=1 ...                      # fewer commands
#   CLASS_SIZES="2000" bench/run.sh                                               # one class size
#   SIDE_ONLY=1 SKIP_BIG=1 SKIP_JSON=1 SKIP_FILES=1 bench/run.sh   # issue 38's comparisons only
#   LJ=/path/to/leasejudge bench/run.sh                                           # another build
#   LJ_BEFORE=/path/to/leasejudge SIDE_ONLY=1 ... bench/run.sh   # the side-by-side commands of
#             this build and another, in the same rounds (each ratio: this build ÷ that one)
#
# Workbook bombs (time and memory of every command on each): bench/bombs.sh.
set -euo pipefail

cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
CASES=${CASES:-74000}          # ~645k rows, ~52 MB plain
BIG_CASES=${BIG_CASES:-2000000}
GRADE_CASES=${GRADE_CASES:-400000}
JSON_MB=${JSON_MB:-120}
SMALL_FILES=${SMALL_FILES:-10000}
DIR=${BENCH_DIR:-target/bench}
mkdir -p "$DIR"

# The release binary is stripped: for perf or callgrind, build `--profile profiling`
# (target/x86_64-unknown-linux-gnu/profiling/leasejudge, with line tables) instead. Binaries are
# under target/x86_64-unknown-linux-gnu/ (.cargo/config.toml names the target).
# LJ=/path/to/leasejudge measures another build (a baseline, say) instead of building this tree.
if [ -z "${LJ:-}" ]; then
    cargo build --release --quiet --bin leasejudge
    LJ=target/x86_64-unknown-linux-gnu/release/leasejudge
fi
# The bare parse (examples/csv_baseline.rs); SKIP_PARSE=1 leaves it out (its build brings the
# examples' dependencies, whose features rebuild the dependencies: long on a loaded machine).
if [ -z "${SKIP_PARSE:-}" ]; then
    cargo build --release --quiet --example csv_baseline
    BASE=target/x86_64-unknown-linux-gnu/release/examples/csv_baseline
fi

# Lines of a CSV file or directory; rows (objects) of a JSON array, which may be on one line.
lines() {
    if [ -d "$1" ]; then cat "$1"/* | wc -l
    elif [[ $1 == *.json ]]; then grep -o '{"' "$1" | wc -l
    else wc -l <"$1"; fi
}
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
# RUNS runs: prints "MEDIAN_WALL MAX_RSS_MIB EXIT".
measure() {
    local -a walls=()
    local max=0 status=0 wall rss
    for _ in $(seq "$RUNS"); do
        read -r wall rss status <<<"$(run_once "$@")"
        walls+=("$wall")
        [ "$rss" -gt "$max" ] && max=$rss
    done
    printf '%s %.1f %s\n' "$(printf '%s\n' "${walls[@]}" | median)" "$(echo "$max / 1024" | bc -l)" "$status"
}
row() { # shape command rows -- command...
    local shape=$1 what=$2 n=$3 wall rss status
    shift 4
    read -r wall rss status <<<"$(measure "$@")"
    printf '| %s | %s | %s | %s s | %.0f | %s MiB | %s |\n' "$shape" "$what" "$n" "$wall" \
        "$(echo "$n / $wall" | bc -l)" "$rss" "$status"
}

# ---- the files ----------------------------------------------------------------------------
gen() { # name style cases -> path (and NAME.golden.csv)
    local file="$DIR/$1.csv"
    if [ ! -s "$file" ]; then
        "$LJ" generate --style "$2" --seed 9 --cases "$3" -o "$file" --golden "$DIR/$1.golden.csv"
    fi
    echo "$file"
}
PLAIN=$(gen plain-$CASES plain "$CASES")
MESSY=$(gen messy-$CASES messy "$CASES")
SHORT="$DIR/short-ids-$CASES.csv"
if [ ! -s "$SHORT" ]; then
    sed -E 's/^case-[0-9]{2}([0-9]{6}),/c9-\1,/' "$PLAIN" >"$SHORT"
    "$LJ" adjudicate "$SHORT" --format csv -o "$DIR/short-ids-$CASES.golden.csv"
fi
shapes=(plain:"$PLAIN" messy:"$MESSY" short-ids:"$SHORT")

if [ -z "${SKIP_BIG:-}" ]; then
    ONE="$DIR/one-offer-$BIG_CASES.csv"
    BACK="$DIR/returning-$BIG_CASES.csv"
    if [ ! -s "$BACK" ]; then
        awk -v n="$BIG_CASES" 'BEGIN {
            print "case_id,event,observed_at,job_id,lease_id,generation,holder,lease_duration"
            for (i = 0; i < n; i++) printf "o%07d,offer,2026-01-01T00:00:00Z,j%d,L%d,1,w,30\n", i, i, i
        }' >"$ONE"
        cp "$ONE" "$BACK"
        echo "o0000000,observe,2026-01-01T01:00:00Z,,,,," >>"$BACK"
        "$LJ" adjudicate "$ONE" --format csv -o "${ONE%.csv}.golden.csv"
        "$LJ" adjudicate "$BACK" --format csv -o "${BACK%.csv}.golden.csv"
    fi
    shapes+=(one-offer:"$ONE" returning:"$BACK")
fi
if [ -z "${SKIP_JSON:-}" ]; then
    JSON="$DIR/array-${JSON_MB}mb.json"
    if [ ! -s "$JSON" ]; then
        # About 190 bytes of JSON per generated row.
        src=$(gen json-src-$JSON_MB plain $((JSON_MB * 1000000 / 190 / 9)))
        python3 - "$src" "$JSON" <<'EOF'
import csv, json, sys
with open(sys.argv[1], newline="") as f, open(sys.argv[2], "w") as out:
    out.write("[\n")
    for n, row in enumerate(csv.DictReader(f)):
        out.write((",\n" if n else "") + json.dumps({k: v for k, v in row.items() if v}))
    out.write("\n]\n")
EOF
        "$LJ" adjudicate "$JSON" --format csv -o "${JSON%.json}.golden.csv"
    fi
    LINE="$DIR/array-${JSON_MB}mb-line.json"
    BACK_JSON="$DIR/array-${JSON_MB}mb-back.json"
    if [ ! -s "$BACK_JSON" ]; then
        python3 - "$JSON" "$LINE" "$BACK_JSON" <<'EOF'
import json, sys
with open(sys.argv[1]) as f:
    rows = json.load(f)
with open(sys.argv[2], "w") as out:
    json.dump(rows, out)
first = list(dict.fromkeys(row["case_id"] for row in rows))[:1000]
back = [{"case_id": case, "event": "observe", "observed_at": "2027-01-01T00:00:00Z"} for case in first]
with open(sys.argv[3], "w") as out:
    json.dump(rows + back, out)
EOF
        "$LJ" adjudicate "$LINE" --format csv -o "${LINE%.json}.golden.csv"
        "$LJ" adjudicate "$BACK_JSON" --format csv -o "${BACK_JSON%.json}.golden.csv"
    fi
    shapes+=(json:"$JSON" json-line:"$LINE" json-back:"$BACK_JSON")
fi
if [ -z "${SKIP_FILES:-}" ]; then
    FILES="$DIR/files-$SMALL_FILES"
    if [ ! -d "$FILES" ]; then
        mkdir -p "$FILES"
        for i in $(seq -w 1 "$SMALL_FILES"); do
            printf 'case_id,event,observed_at,job_id,lease_id,generation,holder,lease_duration\nf%s,offer,2026-01-01T00:00:00Z,j,L,1,w,30\nf%s,ack,2026-01-01T00:00:01Z,,L,1,w,\n' "$i" "$i" >"$FILES/f$i.csv"
        done
    fi
    shapes+=(files:"$FILES")
fi

# ---- the bare parse -----------------------------------------------------------------------
if [ -z "${SKIP_PARSE:-}" ]; then
echo "## adjudicate --format csv against a bare csv-crate ByteRecord parse ($RUNS runs each, alternating, median wall)"
echo
echo "| shape | rows | bare parse | adjudicate --format csv | ratio |"
echo "|---|---:|---:|---:|---:|"
for entry in plain:"$PLAIN" messy:"$MESSY" short-ids:"$SHORT"; do
    name=${entry%%:*} file=${entry#*:}
    a=() b=()
    for _ in $(seq "$RUNS"); do
        read -r wall _ _ <<<"$(run_once "$BASE" "$file")"
        a+=("$wall")
        read -r wall _ _ <<<"$(run_once "$LJ" adjudicate "$file" --format csv)"
        b+=("$wall")
    done
    base=$(printf '%s\n' "${a[@]}" | median) judge=$(printf '%s\n' "${b[@]}" | median)
    printf '| %s | %d | %s s | %s s | %.2f× |\n' "$name" "$(($(lines "$file") - 1))" "$base" "$judge" \
        "$(echo "$judge / $base" | bc -l)"
done
echo
fi

# ---- every command against adjudicate, side by side (issue 38) -----------------------------
# Each run of the round takes every command once, in turn, so that a machine whose speed
# drifts slows them alike: ratios of medians taken together, never absolute times alone.
echo "## Every command against adjudicate on the plain file ($RUNS rounds, each command once a round, median wall)"
echo
SIDE="$DIR/side"
mkdir -p "$SIDE"
side_names=(parse adjudicate "adjudicate --jobs 1" "adjudicate -f json" validate "check --golden" template "explain -f json")
side_run() { # index [binary] -> wall seconds (outputs to $SIDE, never to the terminal)
    local lj=${2:-$LJ}
    case $1 in
        0) run_once "$BASE" "$PLAIN" ;;
        1) run_once "$lj" adjudicate "$PLAIN" --format csv -o "$SIDE/m.csv" ;;
        2) run_once "$lj" adjudicate "$PLAIN" --format csv --jobs 1 -o "$SIDE/m1.csv" ;;
        3) run_once "$lj" adjudicate "$PLAIN" --format json -o "$SIDE/m.json" ;;
        4) run_once "$lj" validate "$PLAIN" ;;
        5) run_once "$lj" check "$PLAIN" --golden "${PLAIN%.csv}.golden.csv" ;;
        6) run_once "$lj" template "$PLAIN" -o "$SIDE/t.csv" ;;
        7) run_once "$lj" explain "$PLAIN" --format json -o "$SIDE/e.json" ;;
    esac
}
declare -a side_walls before_walls
for _ in $(seq "$RUNS"); do
    for i in "${!side_names[@]}"; do
        if [ -n "${SKIP_PARSE:-}" ] && [ "$i" -eq 0 ]; then
            side_walls[0]+="1 "
            continue
        fi
        read -r wall _ _ <<<"$(side_run "$i")"
        side_walls[i]+="$wall "
        if [ -n "${LJ_BEFORE:-}" ] && [ "$i" -gt 0 ]; then
            read -r wall _ _ <<<"$(side_run "$i" "$LJ_BEFORE")"
            before_walls[i]+="$wall "
        fi
    done
done
side_median() { printf '%s\n' ${side_walls[$1]} | median; }
adj=$(side_median 1) parse=$(side_median 0)
echo "| command | wall | ÷ adjudicate | bare parse ÷ it |"
echo "|---|---:|---:|---:|"
for i in "${!side_names[@]}"; do
    m=$(side_median "$i")
    printf '| %s | %s s | %.2f | %.2f× |\n' "${side_names[i]}" "$m" "$(echo "$m / $adj" | bc -l)" \
        "$(echo "$parse / $m" | bc -l)"
done
explain_bytes=$(stat -c %s "$SIDE/e.json")
printf '\nexplain -f json: %d MB of output, %.0f MB/s (median wall)\n\n' "$((explain_bytes / 1000000))" \
    "$(echo "$explain_bytes / 1000000 / $(side_median 7)" | bc -l)"
if [ -n "${LJ_BEFORE:-}" ]; then
    before_median() { printf '%s\n' ${before_walls[$1]} | median; }
    before_adj=$(before_median 1)
    echo "The same rounds, $LJ_BEFORE before:"
    echo
    echo "| command | before | ÷ its adjudicate | this build ÷ before |"
    echo "|---|---:|---:|---:|"
    for i in "${!side_names[@]}"; do
        [ "$i" -eq 0 ] && continue
        b=$(before_median "$i")
        printf '| %s | %s s | %.2f | %.2f |\n' "${side_names[i]}" "$b" "$(echo "$b / $before_adj" | bc -l)" \
            "$(echo "$(side_median "$i") / $b" | bc -l)"
    done
    echo
fi

# ---- a class of learners who handed in almost nothing (issue 38) -------------------------
if [ -z "${SKIP_CLASS:-}" ]; then
    KEY="$DIR/class-key.golden.csv"
    [ -s "$KEY" ] || "$LJ" generate --seed 3 --cases 1000 -o "$DIR/class-key.csv" --golden "$KEY"
    for n in ${CLASS_SIZES:-2000 20000}; do
        CLASS="$DIR/class-$n"
        if [ ! -d "$CLASS" ]; then
            mkdir -p "$CLASS"
            # One row each: a learner who handed in almost nothing (999 missing cases).
            awk -v dir="$CLASS" -v n="$n" 'NR == 1 {header = $0; next} {rows[NR - 2] = $0}
                END {for (i = 0; i < n; i++) {
                    file = sprintf("%s/s%05d.csv", dir, i)
                    print header > file; print rows[i % (NR - 1)] > file; close(file)}}' "$KEY"
        fi
        read -r wall rss status <<<"$(measure "$LJ" grade "$CLASS" --golden "$KEY" -o "$SIDE/class.txt")"
        printf '| class of %d one-row submissions, 1,000-case key | grade (text report) | %s s | %s MiB | report %d bytes | exit %s |\n' \
            "$n" "$wall" "$rss" "$(stat -c %s "$SIDE/class.txt")" "$status"
    done
    echo
fi

[ -n "${SIDE_ONLY:-}" ] && exit 0

# ---- every command on every shape --------------------------------------------------------
echo "## Every command ($RUNS runs each: median wall, largest peak RSS; exit status of the last run)"
echo
echo "| shape | command | lines (JSON: rows) | wall | lines/s | peak RSS | exit |"
echo "|---|---|---:|---:|---:|---:|---|"
for entry in "${shapes[@]}"; do
    name=${entry%%:*} file=${entry#*:}
    n=$(lines "$file")
    golden="${file%.*}.golden.csv"
    row "$name" "adjudicate -f csv" "$n" -- "$LJ" adjudicate "$file" --format csv
    row "$name" "adjudicate -f json" "$n" -- "$LJ" adjudicate "$file" --format json
    [ -z "${SKIP_TABLE:-}" ] && row "$name" "adjudicate -f table" "$n" -- "$LJ" adjudicate "$file" --format table
    row "$name" "validate" "$n" -- "$LJ" validate "$file"
    if [ -z "${SKIP_EXPLAIN:-}" ]; then
        row "$name" "explain -f json" "$n" -- "$LJ" explain "$file" --format json
        row "$name" "explain -f text" "$n" -- "$LJ" explain "$file" --format text
    fi
    if [ -f "$golden" ] && [ ! -d "$file" ]; then
        row "$name" "check" "$n" -- "$LJ" check "$file" --golden "$golden"
    fi
    # Exit 1 when a shortcut survives the file's cases (generated files let some survive).
    [ -z "${SKIP_SHORTCUTS:-}" ] && row "$name" "shortcuts" "$n" -- "$LJ" shortcuts "$file"
done

if [ -z "${SKIP_GRADE:-}" ]; then
    # A GRADE_CASES-case matrix graded against itself with a tenth of the decisions changed.
    GOLD="$DIR/grade-$GRADE_CASES.golden.csv"
    SUB="$DIR/grade-$GRADE_CASES.submission.csv"
    if [ ! -s "$SUB" ]; then
        gen grade-src-$GRADE_CASES plain "$GRADE_CASES" >/dev/null
        cp "$DIR/grade-src-$GRADE_CASES.golden.csv" "$GOLD"
        awk -F, 'NR > 1 && NR % 10 == 0 {sub(/,[A-Z_]+,[a-z_]+$/, ",EXPIRED,expired_without_result")} {print}' "$GOLD" >"$SUB"
    fi
    row "matrix ($GRADE_CASES cases)" "grade" "$(lines "$SUB")" -- "$LJ" grade "$SUB" --golden "$GOLD"
    # A class of three such submissions, with every golden case in the item analysis.
    CLASS="$DIR/grade-$GRADE_CASES.class"
    mkdir -p "$CLASS"
    for i in 1 2 3; do [ -s "$CLASS/s$i.csv" ] || cp "$SUB" "$CLASS/s$i.csv"; done
    row "class of 3 ($GRADE_CASES cases each)" "grade --item-analysis" "$(lines "$CLASS")" -- \
        "$LJ" grade "$CLASS" --golden "$GOLD" --item-analysis "$DIR/items.csv"
fi
