#!/usr/bin/env bash
# Renders `leasejudge explain` HTML pages in headless Chromium and saves screenshots, to look
# at the timeline by eye: labels of close rows must not overlap, a clicked (pinned) row must
# be highlighted in the trace, and the page must print with every row's details. Not a CI
# test: CI may have no Chromium (`apt-get install chromium` here). Each page is shot at a
# desktop's width (1280 px) and a phone's (390 px): at 390 the trace scrolls in its own box,
# the timeline is as wide as the screen, and no timestamp breaks at a hyphen.
#
#   scripts/explain-screenshots.sh [OUT_DIR]      # default target/explain-shots
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-target/explain-shots}
mkdir -p "$OUT"
# Debian's chromium, or the headless shell Chrome for Testing and Playwright install.
BROWSER=$(command -v chromium-headless-shell || command -v headless_shell || command -v chromium \
    || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$BROWSER" ]; then
    echo "explain-screenshots: no Chromium found (apt-get install chromium)" >&2
    exit 2
fi
cargo build --quiet --bin leasejudge
LJ=target/x86_64-unknown-linux-gnu/debug/leasejudge

# Cases with rows close in time (labels that used to overlap) and every decision.
"$LJ" explain cases/probes.csv -o "$OUT/probes.html"
"$LJ" explain cases/ -o "$OUT/cases.html" 2>/dev/null
"$LJ" explain cases/cancellation.csv -o "$OUT/cancellation.html"

shot() { # page.html out.png [fragment] [height] [width]
    "$BROWSER" --headless --no-sandbox --disable-gpu --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$(mktemp -d)" --hide-scrollbars \
        --window-size="${5:-1280}","${4:-1600}" --screenshot="$2" \
        "file://$(realpath "$1")${3:-}" 2>/dev/null
    echo "$2"
}
shot "$OUT/probes.html" "$OUT/probes.png"
shot "$OUT/probes.html" "$OUT/probes-390.png" "" 2400 390
shot "$OUT/cancellation.html" "$OUT/cancellation.png" "" 2400
shot "$OUT/cancellation.html" "$OUT/cancellation-390.png" "" 3200 390
# A mark clicked: its row is pinned (the URL fragment is what the click sets).
shot "$OUT/probes.html" "$OUT/probes-pinned.png" "#case-1-row-3"
# Print: every row's details are in the printed page.
"$BROWSER" --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
    --disable-component-update --disable-sync --user-data-dir="$(mktemp -d)" \
    --print-to-pdf="$OUT/probes.pdf" --no-pdf-header-footer "file://$(realpath "$OUT/probes.html")" 2>/dev/null
echo "$OUT/probes.pdf"
