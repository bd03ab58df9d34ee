#!/usr/bin/env bash
# The default fit at scale: `heavydp fit --algorithm auto --epsilon 1` (every other option
# at its default) on simulated heavy-tailed data read from .npy, at n = 10^5 and 10^6
# (10^7 with BENCH_1E7=1), d = 20 and 100. Prints, per fit: wall time, the passes over the
# data, peak memory (GNU time) and accuracy (test MSE and ||w - w*||_2 of `heavydp
# evaluate --truth` on 20 000 fresh rows: test MSE, excess risk over w*, ||w - w*||_2).
#
# Passes over the data of an in-memory default fit = the algorithm's gradient passes (the
# model's hyperparameters.T) + 1 for the private intercept + 4 for the private scaling
# (one grid-histogram pass over the rows per stage, in memory as on Spark, where the
# validation job adds one more: docs/distributed.md). The private fit check
# (preprocessing.fit_check) reads its sum and histograms in the intercept's pass.
#
# Usage: scripts/bench-default-fit.sh            (env: HEAVYDP=path/to/heavydp,
#        OUT=dir for the data (default /tmp/bench-default-fit), BENCH_1E7=1 adds n = 10^7,
#        SIZES="n1xd1 n2xd2" to choose the sizes, EXTRA="--param max_steps=10000" to add
#        fit arguments (e.g. the theorem's schedule: EXTRA="--param max_steps=10000"),
#        PYTHON=path/to/python to add a row for heavydp.PrivateRegressor(epsilon=1).fit(X, y)
#        on the loaded array when that interpreter imports heavydp)
# Needs: a release build (cargo build --release -p heavydp-cli), python3 (stdlib),
# GNU time (/usr/bin/time).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
HEAVYDP=${HEAVYDP:-$ROOT/target/release/heavydp}
[ -x "$HEAVYDP" ] || (cd "$ROOT" && cargo build --release -p heavydp-cli)
OUT=${OUT:-/tmp/bench-default-fit}
mkdir -p "$OUT"
SIZES=${SIZES:-"100000x20 100000x100 1000000x20 1000000x100"}
if [ "${BENCH_1E7:-0}" = 1 ]; then SIZES="$SIZES 10000000x20 10000000x100"; fi
SCEN=hu-linear-lognormal
# One printed row: n, d, the model file, GNU time's output, `heavydp evaluate`'s, the
# interface (cli / python) and, optionally, the wall seconds to print instead of GNU
# time's.
row() {
    python3 - "$@" <<'PY'
import json, sys
n, d, model, timef, evalf, via = sys.argv[1:7]
m = json.load(open(model)); e = json.load(open(evalf))
t = open(timef).read().splitlines()
def field(name):
    return next(l.split(": ", 1)[1] for l in t if l.strip().startswith(name))
if len(sys.argv) > 7:
    secs = float(sys.argv[7])
else:
    parts = [float(x) for x in field("Elapsed (wall clock) time").split(":")]
    secs = sum(p * 60 ** i for i, p in enumerate(reversed(parts)))
peak = int(field("Maximum resident set size")) / 1024
hp = m["hyperparameters"]
alg = m.get("selected") or m["algorithm"]
if isinstance(alg, dict):
    alg = alg.get("algorithm", str(alg))
gradient = int(hp.get("T", 1))
passes = gradient + 1 + 4
note = f"schedule={hp.get('schedule', '-')}"
print(f"{n:<9} {d:<4} {via:<7} {alg:<12} {secs:8.1f} {passes:7d} {gradient:6d} {peak:10.0f} {e['mse']:10.4f} {e.get('excess_risk', float('nan')):11.4f} {e.get('l2_error', float('nan')):10.4f}  {note}")
PY
}
printf '%-9s %-4s %-7s %-12s %8s %7s %6s %10s %10s %11s %10s  %s\n' n d via algorithm wall_s passes T peak_MiB test_mse excess_risk l2_error notes
for size in $SIZES; do
    n=${size%x*}; d=${size#*x}
    data="$OUT/train-$n-$d.npy"; test="$OUT/test-$d.csv"; truth="$OUT/truth-$d.json"
    if [ ! -s "$data" ]; then
        "$HEAVYDP" simulate --scenario $SCEN --n "$n" --d "$d" --seed 1 --out "$data" --truth "$truth" >/dev/null
    fi
    if [ ! -s "$test" ]; then
        "$HEAVYDP" simulate --scenario $SCEN --n 20000 --d "$d" --seed 2 --out "$test" >/dev/null
    fi
    model="$OUT/model-$n-$d.json"
    # shellcheck disable=SC2086
    /usr/bin/time -v -o "$OUT/time.txt" "$HEAVYDP" fit --algorithm auto --data "$data" \
        --epsilon 1 --seed 3 --out "$model" ${EXTRA:-} 2>"$OUT/stderr.txt"
    "$HEAVYDP" evaluate --model "$model" --data "$test" --truth "$truth" >"$OUT/eval.json"
    row "$n" "$d" "$model" "$OUT/time.txt" "$OUT/eval.json" cli
    if [ -n "${PYTHON:-}" ] && "$PYTHON" -c 'import heavydp' 2>/dev/null; then
        # the Python estimator on a C-contiguous X (read in place, docs/python.md) made
        # from the loaded [X | y] array before the timer: wall is the fit alone; peak is
        # the whole process's, the loaded array and X's copy included (about 2 x 8nd
        # bytes before the fit adds its own few vectors of length n)
        pymodel="$OUT/model-py-$n-$d.json"
        /usr/bin/time -v -o "$OUT/time-py.txt" "$PYTHON" - "$data" "$pymodel" "$OUT/fit-secs.txt" <<'PY'
import sys, time, numpy as np, heavydp
a = np.load(sys.argv[1])
X, y = np.ascontiguousarray(a[:, :-1]), a[:, -1].copy()
del a
t0 = time.perf_counter()
est = heavydp.PrivateRegressor(epsilon=1.0, random_state=3).fit(X, y)
secs = time.perf_counter() - t0
est.save(sys.argv[2])
open(sys.argv[3], "w").write(f"{secs}")
PY
        "$HEAVYDP" evaluate --model "$pymodel" --data "$test" --truth "$truth" >"$OUT/eval-py.json"
        row "$n" "$d" "$pymodel" "$OUT/time-py.txt" "$OUT/eval-py.json" python "$(cat "$OUT/fit-secs.txt")"
    fi
done
