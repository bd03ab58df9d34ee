#!/usr/bin/env bash
# The project's one test command: the Rust test suite, then the Python package built
# from source (PyO3 + maturin) and its pytest suite.
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

# 1. The CLI the Python tests compare against (target/debug/heavydp) and the core it
#    links, with the features and profile `cargo test --workspace` builds them with
#    (so step 4 reuses them and does not touch the binary while pytest runs it).
cargo build --workspace --bins

if ! wait "$setup_pid"; then
    cat "$setup_log" >&2
    echo "scripts/setup-python.sh failed" >&2
    exit 1
fi
cat "$setup_log" >&2
rm -f "$setup_log"

# 2. Python: build the extension and install the package. The dev profile has the test
#    profile's settings (Cargo.toml) and heavydp/default gives the core the features
#    `cargo test` builds it with, so the extension links the core compiled in step 1
#    instead of compiling it again. (A user's `pip install ./python` builds release.)
MATURIN_PEP517_ARGS="--profile dev --features heavydp/default" \
    "$VPY" -m pip install --quiet --disable-pip-version-check --no-build-isolation --force-reinstall --no-deps ./python

# 3. pytest (against the CLI of step 1: same core, bit-identical results) runs alongside
#    step 4: it waits on the JVM and on subprocesses for about half of its time, which
#    the Rust compilation and tests fill. Its output is shown when both are done.
pytest_log=$(mktemp)
HEAVYDP_CLI="$PWD/target/debug/heavydp" "$VPY" -m pytest -q python/tests >"$pytest_log" 2>&1 &
pytest_pid=$!

# 4. Rust: every crate's tests. The examples are type-checked by clippy (.ci/run) and not
#    built here.
rust_ok=0
cargo test --workspace --lib --bins --tests && cargo test --workspace --doc || rust_ok=$?
pytest_ok=0
wait "$pytest_pid" || pytest_ok=$?
cat "$pytest_log"
rm -f "$pytest_log"
if [ "$rust_ok" -ne 0 ] || [ "$pytest_ok" -ne 0 ]; then
    echo "tests failed: Rust exit $rust_ok, pytest exit $pytest_ok" >&2
    exit 1
fi
