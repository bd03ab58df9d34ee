#!/usr/bin/env bash
# The project's one test command: the Rust test suite, then the Python package built
# from source (PyO3 + maturin) and its pytest suite.
# Needs only the Rust toolchain and Python 3 (>= 3.9): the Python tools (maturin,
# numpy, pandas, scikit-learn, pytest; versions pinned in python/requirements-test.txt)
# are installed from PyPI into the virtual environment .venv, created if missing.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
fi
VPY=.venv/bin/python
export PATH="$PWD/.venv/bin:$PATH"   # maturin, for the no-isolation build below
"$VPY" -m pip install --quiet --disable-pip-version-check -r python/requirements-test.txt

# 1. Rust: every crate's tests (this also builds target/debug/heavydp, the CLI the
#    Python tests compare against).
cargo test --workspace

# 2. Python: build the extension (release) and install the package as a user would.
"$VPY" -m pip install --quiet --disable-pip-version-check --no-build-isolation --force-reinstall --no-deps ./python

# 3. pytest, against the CLI built in step 1 (same core: bit-identical results).
HEAVYDP_CLI="$PWD/target/debug/heavydp" "$VPY" -m pytest -q python/tests
