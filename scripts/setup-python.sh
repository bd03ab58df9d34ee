#!/usr/bin/env bash
# The Python side of the test command: the virtual environment .venv (created if
# missing) with the pinned test tools (maturin, numpy, pandas, scikit-learn, pytest:
# python/requirements-test.txt) and PySpark (python/requirements-spark.txt), and Java 17
# from Debian when no JVM is found (without Java python/tests/test_spark.py skips with
# that reason). Idempotent: a second run only checks what is installed.
# scripts/test-all.sh runs it alongside the Rust build; .ci/run starts it before clippy.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
fi
VPY=.venv/bin/python
"$VPY" -m pip install --quiet --disable-pip-version-check -r python/requirements-test.txt
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
