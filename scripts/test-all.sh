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
# heavydp.spark (docs/distributed.md): PySpark from PyPI, and Java 17 from Debian when
# no JVM is found; without Java python/tests/test_spark.py skips with that reason.
"$VPY" -m pip install --quiet --disable-pip-version-check -r python/requirements-spark.txt
if ! java -version >/dev/null 2>&1; then
    if command -v apt-get >/dev/null 2>&1; then
        SUDO=$([ "$(id -u)" = 0 ] || echo sudo)
        { $SUDO apt-get update -qq && $SUDO apt-get install -y -qq openjdk-17-jre-headless; } >/dev/null 2>&1 \
            || echo "note: Java 17 could not be installed: the Spark tests will be skipped" >&2
    else
        echo "note: no Java and no apt-get: the Spark tests will be skipped" >&2
    fi
fi

# 1. Rust: every crate's tests (this also builds target/debug/heavydp, the CLI the
#    Python tests compare against).
cargo test --workspace

# 2. Python: build the extension (release) and install the package as a user would.
"$VPY" -m pip install --quiet --disable-pip-version-check --no-build-isolation --force-reinstall --no-deps ./python

# 3. pytest, against the CLI built in step 1 (same core: bit-identical results).
HEAVYDP_CLI="$PWD/target/debug/heavydp" "$VPY" -m pytest -q python/tests
