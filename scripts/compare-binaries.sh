#!/usr/bin/env bash
# Runs two leasejudge binaries side by side and reports every run whose exit status, standard
# output, standard error or written files differ. For a refactoring that must change nothing for
# users: `scripts/compare-binaries.sh OLD_BINARY NEW_BINARY [WORK_DIR]`.
#
# The runs: every snapshot of the test suite (each `.cmd` of tests/data/cli, tests/data/explain and
# the scenario directories of tests/data/grading, in a copy of its directory), every command and format on every
# case-like file under cases/ and tests/data, and every command on a generated corpus (plain and
# messy, interleaved, long cases, a returning case, several open-case limits and job counts), with
# golden files and filled-in submissions for check, grade and the autograders. A bundle's copy of
# the binary itself is left out of the comparison (it is the binary under test).
#
# Prints one line per difference and, at the end, how many runs were compared and how many
# differed; exits 1 when any differed, 0 when none did, 2 on trouble.
set -uo pipefail

if [[ $# -lt 2 ]]; then
    echo "usage: $0 OLD_BINARY NEW_BINARY [WORK_DIR]" >&2
    exit 2
fi
OLD=$(realpath "$1") || exit 2
NEW=$(realpath "$2") || exit 2
ROOT=$(cd "$(dirname "$0")/.." && pwd)
if [[ $# -ge 3 ]]; then
    WORK=$3
else
    WORK=$(mktemp -d)
    # A work directory of our own goes when the runs agree; what differed stays for reading.
    trap '[[ ${differed:-1} -eq 0 ]] && rm -rf "$WORK"' EXIT
fi
mkdir -p "$WORK"
WORK=$(realpath "$WORK")
CORPUS=$WORK/corpus
mkdir -p "$CORPUS"
# Both binaries under one name: usage messages print the name a binary was run by.
mkdir -p "$WORK/bin/old" "$WORK/bin/new"
cp "$OLD" "$WORK/bin/old/leasejudge" && cp "$NEW" "$WORK/bin/new/leasejudge" || exit 2
OLD=$WORK/bin/old/leasejudge
NEW=$WORK/bin/new/leasejudge
export NO_COLOR=1 COLUMNS=100 LC_ALL=C

compared=0
differed=0

# run_in DIR ARGS...: runs both binaries with ARGS in copies of DIR (so files they write land in
# a directory of their own) and compares status, stdout, stderr and every file left behind.
run_in() {
    local src=$1
    shift
    compared=$((compared + 1))
    local n=$compared side bin
    for side in old new; do
        bin=$OLD
        [[ $side == new ]] && bin=$NEW
        local dir=$WORK/run/$side/$n
        mkdir -p "$dir"
        if [[ -n $src ]]; then
            cp -a "$src/." "$dir/"
        fi
        (cd "$dir" && "$bin" "$@" >"$WORK/run/$side/$n.stdout" 2>"$WORK/run/$side/$n.stderr" </dev/null
            echo $? >"$WORK/run/$side/$n.status")
        # A bundle carries the binary under test; compare what surrounds it.
        find "$dir" -name '*.zip' -print0 | while IFS= read -r -d '' zip; do
            mkdir -p "$zip.d" && (cd "$zip.d" && unzip -qo "$zip" && unzip -Z1 "$zip" >"$zip.d/.listing")
            rm -f "$zip"
        done
        find "$dir" -type f -name leasejudge -delete
    done
    local what=""
    for part in status stdout stderr; do
        cmp -s "$WORK/run/old/$n.$part" "$WORK/run/new/$n.$part" || what="$what $part"
    done
    diff -rq "$WORK/run/old/$n" "$WORK/run/new/$n" >/dev/null 2>&1 || what="$what files"
    if [[ -n $what ]]; then
        differed=$((differed + 1))
        echo "DIFFERS ($what ) #$n in ${src:-.}: leasejudge $*"
    else
        rm -rf "$WORK/run/old/$n" "$WORK/run/new/$n" "$WORK"/run/{old,new}/"$n".{status,stdout,stderr}
    fi
}

# run ARGS...: as run_in, in an empty directory (inputs named by absolute path).
run() { run_in "" "$@"; }

mkdir -p "$WORK/run/old" "$WORK/run/new"

# The snapshots of the test suite, as their runner runs them (tests/it/snapshot.rs).
for cmdfile in "$ROOT"/tests/data/grading/*/run.cmd "$ROOT"/tests/data/{cli,explain}/*.cmd; do
    read -ra args <"$cmdfile"
    run_in "$(dirname "$cmdfile")" "${args[@]}"
done

# Every command on every case-like file of the repository (good ones and broken ones alike).
mapfile -t inputs < <(find "$ROOT/cases" "$ROOT/tests/data" -type f \
    \( -name '*.csv' -o -name '*.tsv' -o -name '*.json' -o -name '*.ndjson' -o -name '*.jsonl' \
    -o -name '*.xlsx' -o -name '*.ods' -o -name '*.txt' \) -size -2M | sort)
for input in "${inputs[@]}"; do
    run adjudicate "$input" -f csv
    run adjudicate "$input" -f json --columns all
    run adjudicate "$input" -f table --wide
    run adjudicate "$input" --explain -f csv
    run adjudicate "$input" --explain -f json -o out.json --audit audit.csv
    run adjudicate "$input" --open-cases 2 -f csv
    run validate "$input"
    run explain "$input"
    run explain "$input" -f json
    run explain "$input" -f html -o page.html
    run explain "$input" -f mermaid
    run template "$input"
    run reorder "$input" -n 5 --seed 3
done
# Two files at once, each broken file after a good one and after the broken file before it
# (they share case ids): a case id in two files, and a bad row of a case an earlier file began.
mapfile -t broken < <(find "$ROOT/tests/data/malformed" -type f ! -name '*.stderr' | sort)
previous=${broken[-1]}
for input in "${broken[@]}"; do
    for pair in "$ROOT/cases/probes.csv $input" "$previous $input"; do
        read -ra files <<<"$pair"
        run adjudicate "${files[@]}" -f csv
        run adjudicate "${files[@]}" --explain -f csv
        run validate "${files[@]}"
        run explain "${files[@]}" -f html -o page.html
        run template "${files[@]}"
        run reorder "${files[@]}" -n 2
    done
    previous=$input
done
run adjudicate "$ROOT/cases" -f csv
run adjudicate "$ROOT/cases" -f table
run validate "$ROOT/cases"
run explain "$ROOT/cases" -f html -o page.html
run template "$ROOT/cases" --columns decision,reason
run check "$ROOT/cases" --golden "$ROOT/golden" --columns all
for format in table json junit github markdown; do
    run check "$ROOT/cases" --golden "$ROOT/golden" -f "$format" --verbose
done

# A generated corpus: the shapes the engine's strategies are chosen by.
gen() { # NAME ARGS...: a case file and its golden matrix, made by the old binary
    local name=$1
    shift
    "$OLD" generate "$@" -o "$CORPUS/$name.csv" --golden "$CORPUS/$name.golden.csv" || exit 2
}
gen plain-small --seed 1 --cases 300
gen messy-small --seed 2 --cases 300 --style messy
gen interleaved --seed 3 --cases 2000 --interleave 64
gen long --seed 4 --cases 40 --rows-per-case 200..400
gen messy-big --seed 5 --cases 40000 --style messy
gen plain-big --seed 6 --cases 60000
# A case that comes back after everything else.
{ cat "$CORPUS/plain-big.csv"; sed -n 2p "$CORPUS/plain-big.csv"; } >"$CORPUS/returning.csv"
"$OLD" adjudicate "$CORPUS/plain-big.csv" -f json >"$CORPUS/plain-big.json"
"$OLD" generate --seed 7 --cases 300 --style messy -o "$CORPUS/messy.json" --golden "$CORPUS/messy.golden.json"
"$OLD" generate --seed 8 --cases 300 -o "$CORPUS/plain.ndjson" || exit 2
# Submissions: one right, one with answers changed, one with a row gone and a column broken.
cp "$CORPUS/messy-small.golden.csv" "$CORPUS/right.csv"
awk -F, 'NR > 1 && NR % 7 == 0 { sub(/accept|reject/, "ignore") } { print }' \
    "$CORPUS/messy-small.golden.csv" >"$CORPUS/wrong.csv"
awk 'NR != 5' "$CORPUS/messy-small.golden.csv" | sed '9s/,[^,]*$/,nonsense/' >"$CORPUS/broken.csv"

for name in plain-small messy-small interleaved long messy-big plain-big returning; do
    file=$CORPUS/$name.csv
    for jobs in 1 2; do
        run adjudicate "$file" -f csv --jobs "$jobs"
    done
    run adjudicate "$file" -f json --columns all
    run adjudicate "$file" --open-cases 4 -f csv
    run adjudicate "$file" --explain -f csv -o out.csv --audit audit.csv
    run validate "$file"
    run validate "$file" --max-warnings 3
    run explain "$file" -f json
    run explain "$file" -f text --limit 50
    run explain "$file" -f html -o page.html --limit 40
    run explain "$file" -f mermaid --limit 20
    run template "$file"
    [[ -f $CORPUS/$name.golden.csv ]] && run check "$file" --golden "$CORPUS/$name.golden.csv" --columns all -f json
done
run reorder "$CORPUS/plain-small.csv" -n 20
run reorder "$CORPUS/messy-small.csv" -n 20 --seed 9
run reorder "$CORPUS/long.csv" -n 3
for file in "$CORPUS/messy.json" "$CORPUS/plain.ndjson" "$CORPUS/plain-big.json"; do
    run adjudicate "$file" -f csv
    run validate "$file"
    run explain "$file" -f json --limit 30
done
run check "$CORPUS/messy.json" --golden "$CORPUS/messy.golden.json"
run check "$CORPUS/messy-small.csv" --golden "$CORPUS/wrong.csv" --verbose
run check "$CORPUS/messy-small.csv" --golden "$CORPUS/broken.csv"

cases=$CORPUS/messy-small.csv
key=$CORPUS/messy-small.golden.csv
for sub in right wrong broken; do
    for feedback in none cases hint full; do
        run grade --golden "$key" --cases "$cases" --feedback "$feedback" "$CORPUS/$sub.csv"
    done
    for format in json junit gradescope prairielearn; do
        run grade --golden "$key" --cases "$cases" -f "$format" "$CORPUS/$sub.csv"
    done
done
run grade --golden "$key" --cases "$cases" --reveal "$CORPUS/wrong.csv" "$CORPUS/broken.csv"
run grade --golden "$key" --cases "$cases" --gradebook book.csv --item-analysis items.csv \
    "$CORPUS/right.csv" "$CORPUS/wrong.csv" "$CORPUS/broken.csv"
run grade --golden "$key" --columns all --weights decision=2,reason=1 -f json "$CORPUS/wrong.csv"
run grade --golden "$CORPUS/plain-big.golden.csv" -f json "$CORPUS/plain-big.golden.csv"
mkdir -p "$CORPUS/upload" && cp "$CORPUS/wrong.csv" "$CORPUS/upload/matrix.csv"
run grade --golden "$key" --cases "$cases" --autograder -f gradescope -o results/results.json \
    --submission-dir "$CORPUS/upload"
run autograder gradescope --golden "$key" --cases "$cases" -o autograder.zip --feedback hint
run autograder prairielearn --golden "$key" --cases "$cases" -o question
run generate --seed 11 --cases 50 --style messy --golden g.csv -o c.csv
run generate --list-scenarios

[[ $differed -eq 0 ]] && rm -rf "$CORPUS" "$WORK/bin"
echo "compared $compared runs of old and new; $differed differed (work dir: $WORK)"
[[ $differed -eq 0 ]]
