#!/usr/bin/env bash
# The project's one test command: the Rust test suite and the Python package built
# from source (PyO3 + maturin) with its pytest suite.
# Needs only the Rust toolchain and Python 3 (>= 3.9): the Python tools (maturin,
# numpy, pandas, scikit-learn, pytest, PySpark; versions pinned in python/requirements-*.txt)
# are installed from PyPI into the virtual environment .venv, created if missing
# (scripts/setup-python.sh, which also installs Java 17 for the Spark tests when missing).
set -euo pipefail
cd "$(dirname "$0")/.."
VPY=.venv/bin/python
export PATH="$PWD/.venv/bin:$PATH"   # maturin, for the no-isolation build below

# 0. The Python environment (scripts/setup-python.sh: downloads, no compiling) alongside
#    the Rust build of step 1; its output is shown once it is done.
setup_log=$(mktemp)
bash scripts/setup-python.sh >"$setup_log" 2>&1 &
setup_pid=$!

# 1. Rust: every crate's test binaries, compiled (this also builds target/debug/heavydp,
#    the CLI the Python tests compare against). The examples are type-checked by clippy
#    (.ci/run) and not built here.
cargo test --workspace --lib --bins --tests --no-run

if ! wait "$setup_pid"; then
    cat "$setup_log" >&2
    echo "scripts/setup-python.sh failed" >&2
    exit 1
fi
cat "$setup_log" >&2
rm -f "$setup_log"

# 2. Python: build the extension and install the package. The dev profile has the test
#    profile's settings (Cargo.toml) and heavydp/default gives the core the features
#    `cargo test` built it with, so the extension links the core compiled in step 1
#    instead of compiling it again. (A user's `pip install ./python` builds release.)
MATURIN_PEP517_ARGS="--profile dev --features heavydp/default" \
    "$VPY" -m pip install --quiet --disable-pip-version-check --no-build-isolation --force-reinstall --no-deps ./python

# 3. The Rust tests (and the doctests) and pytest side by side: both suites are built,
#    and neither keeps two cores busy alone. pytest runs against the CLI built in step 1
#    (same core: bit-identical results); the Rust output is shown after pytest's.
rust_log=$(mktemp)
{ cargo test --workspace --lib --bins --tests && cargo test --workspace --doc; } >"$rust_log" 2>&1 &
rust_pid=$!
py_status=0
HEAVYDP_CLI="$PWD/target/debug/heavydp" "$VPY" -m pytest -q python/tests || py_status=$?
rust_status=0
wait "$rust_pid" || rust_status=$?
cat "$rust_log"
rm -f "$rust_log"
if [ "$rust_status" -ne 0 ] || [ "$py_status" -ne 0 ]; then
    echo "test-all: failed (Rust tests: exit $rust_status, pytest: exit $py_status)" >&2
    exit 1
fi
