#!/usr/bin/env bash
# Side-by-side benchmark: heavydp against the NumPy reference implementations of
# ../shared/peers/ref_numpy.py (HT-DP-FW, DP-IHT-H, Peeling); figures in docs/performance.md.
#
# One run: generates the data once (the peers' gen.py, seeded), then times on the same
# data and matched parameters
#   * the NumPy reference (in-memory arrays),
#   * heavydp's compute only (the `bench_peers` example: the same PrivateAlgorithm::fit
#     the CLI runs, timed in-process on the same doubles),
#   * the release CLI `heavydp fit` on the CSV of the same doubles (whole command:
#     process start, CSV parsing, fit, model file),
# and prints the speed-up ratios NumPy time / heavydp time (docs/performance.md).
#
# Usage: scripts/bench-peers.sh [--quick] [driver options]   (scripts/bench_peers.py --help)
# Env: PEERS_DIR (default ../shared/peers next to the repository, or /work/shared/peers),
#      VENV (default target/peers-venv): created with python3 -m venv, numpy + scipy
#      installed into it with pip on first use.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
VENV=${VENV:-$ROOT/target/peers-venv}
if [ -z "${PEERS_DIR:-}" ]; then
    for p in "$ROOT/../shared/peers" /work/shared/peers; do
        if [ -e "$p/ref_numpy.py" ]; then PEERS_DIR=$(cd "$p" && pwd); break; fi
    done
fi
[ -e "${PEERS_DIR:-}/ref_numpy.py" ] || { echo "ref_numpy.py not found: set PEERS_DIR" >&2; exit 2; }

if [ ! -x "$VENV/bin/python" ]; then
    echo "creating $VENV (numpy, scipy)" >&2
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --upgrade pip >&2
fi
"$VENV/bin/python" -c 'import numpy, scipy' 2>/dev/null \
    || "$VENV/bin/pip" install --quiet numpy scipy >&2

echo "building the release CLI and the bench_peers example" >&2
(cd "$ROOT" && cargo build --release --quiet -p heavydp-cli && \
    cargo build --release --quiet -p heavydp --example bench_peers)

exec "$VENV/bin/python" "$ROOT/scripts/bench_peers.py" \
    --peers-dir "$PEERS_DIR" \
    --heavydp "$ROOT/target/release/heavydp" \
    --bench-bin "$ROOT/target/release/examples/bench_peers" "$@"
