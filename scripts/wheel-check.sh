#!/usr/bin/env bash
# Builds the Python wheel as README says (`pip wheel .` tagged manylinux2014, maturin's binary
# bindings), checks its tag and that the binary it carries is statically linked, and installs it
# into a fresh virtual environment whose PATH has no Rust toolchain, then checks that the
# `leasejudge` it puts on PATH is a working one: the bundled cases give the same matrix as the
# cargo-built binary, and `check` passes against the golden files. Also checks `pip install .`
# from the clone.
#
#   scripts/wheel-check.sh            # from the repository root; needs python3 (3.8+) with venv
#
# Everything it makes goes under $WHEEL_DIR (default target/wheel-check), never into git.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
dir=${WHEEL_DIR:-$root/target/wheel-check}
python=${PYTHON:-python3}

rm -rf "$dir"
mkdir -p "$dir/wheels"

# The build environment: maturin comes from PyPI through pip's build isolation.
"$python" -m venv "$dir/build-env"
# maturin tags a PEP 517 build `linux_x86_64` unless told the compatibility: README's command.
"$dir/build-env/bin/pip" wheel --quiet "$root" --wheel-dir "$dir/wheels" \
    --config-settings "build-args=--compatibility manylinux2014"
wheel=$(ls "$dir"/wheels/leasejudge-*.whl)
echo "wheel-check: built $(basename "$wheel")"
case $(basename "$wheel") in
    *-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl) ;;
    *)
        echo "wheel-check: the wheel is not tagged manylinux2014 (manylinux_2_17_x86_64)" >&2
        exit 1
        ;;
esac
# The binary it carries is the static one: it runs on any x86-64 Linux the tag admits.
"$python" -m zipfile -e "$wheel" "$dir/unpacked"
carried=$(find "$dir/unpacked" -path '*.data/scripts/leasejudge')
if readelf -lW "$carried" | grep -q "INTERP" || readelf -dW "$carried" | grep -q "(NEEDED)"; then
    echo "wheel-check: the wheel's leasejudge is not statically linked:" >&2
    readelf -lW "$carried" | grep -A1 INTERP >&2
    exit 1
fi
echo "wheel-check: its leasejudge is statically linked (no interpreter, no shared library)"
# The licenses Cargo.toml declares (MIT OR Apache-2.0) travel with the binary.
for license in LICENSE-MIT LICENSE-APACHE; do
    if ! find "$dir/unpacked" -path "*.dist-info/*" -name "$license" | grep -q .; then
        echo "wheel-check: the wheel's .dist-info lacks $license" >&2
        exit 1
    fi
done
echo "wheel-check: the wheel carries LICENSE-MIT and LICENSE-APACHE"

# A clean environment for the checks: no cargo, no rustc, no ~/.cargo/bin on PATH.
clean_run() {
    env -i HOME="$dir/home" LANG=C.UTF-8 PATH="$1/bin:/usr/bin:/bin" bash -c "$2"
}
mkdir -p "$dir/home"
if clean_run /nonexistent 'command -v cargo || command -v rustc' >/dev/null; then
    echo "wheel-check: cargo or rustc is in /usr/bin or /bin; the check needs a PATH without them" >&2
    exit 2
fi

"$python" -m venv "$dir/fresh"
clean_run "$dir/fresh" "pip install --quiet --no-index '$wheel'"
installed=$(clean_run "$dir/fresh" 'command -v leasejudge')
if [ "$installed" != "$dir/fresh/bin/leasejudge" ]; then
    echo "wheel-check: the wheel did not put leasejudge on the environment's PATH (got: $installed)" >&2
    exit 1
fi

cargo build --locked --release --quiet --bin leasejudge
expected=$(target/x86_64-unknown-linux-gnu/release/leasejudge adjudicate cases/ --format csv)
got=$(clean_run "$dir/fresh" "cd '$root' && leasejudge adjudicate cases/ --format csv")
if [ "$got" != "$expected" ]; then
    echo "wheel-check: the wheel's leasejudge gives a different matrix for cases/ than the cargo build" >&2
    diff <(printf '%s\n' "$expected") <(printf '%s\n' "$got") | head -20 >&2
    exit 1
fi
clean_run "$dir/fresh" "cd '$root' && leasejudge check cases/ --golden golden/ --columns all >/dev/null"
echo "wheel-check: the wheel installs without Rust and its leasejudge matches the cargo build"

# README's `pip install .` from the clone (this one builds, so it has the toolchain).
"$python" -m venv "$dir/from-clone"
"$dir/from-clone/bin/pip" install --quiet "$root"
"$dir/from-clone/bin/leasejudge" --version
echo "wheel-check: pip install . puts a working leasejudge in the environment"
