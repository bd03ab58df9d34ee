#!/usr/bin/env bash
# Peak memory of a whole `heavydp fit`, per algorithm.
#
# For every algorithm of `heavydp algorithms --json` (its "name" field) this fits on a
# simulated dataset (default n = 200 000, d = 50: an 80 MB feature matrix) under
# `/usr/bin/time -v` and prints the peak resident set size (RSS) divided by the size of
# the feature matrix (n·d·8 bytes). Goal of the issue: <= 1.3 for every algorithm.
#
# Two baselines separate the cost of reading the CSV from the cost of the fit:
#   read      `heavydp fit --algorithm intercept-only`: parses and validates the CSV into
#             the feature matrix, private scaling, one clipped mean; no iterations.
#   evaluate  `heavydp evaluate` of a model on the same CSV: reads it for prediction.
#
# The data: `heavydp simulate` with a scenario matching the algorithm's default loss
# (regression: hu-linear-lognormal; sparse domain: tian-sparse-student with s* = 5;
# an algorithm without a regression loss would get hu-logistic-lognormal's ±1 labels).
# Some algorithms get a smaller iteration count than their default (listed in
# OVERRIDES below, printed in the table) so the whole run takes minutes: their scratch
# buffers are sized by d or by a block, never by the iteration count, so the peak RSS
# does not depend on it (check: MEM_FULL=1 runs every algorithm with its defaults).
#
# Usage: scripts/measure-memory.sh [n] [d]       (env: HEAVYDP=path/to/heavydp,
#        OUT=dir for the data (default a temp dir), MEM_FULL=1 for default parameters,
#        ONLY="name1 name2" to measure only these algorithms)
# Needs: a release build (cargo build --release -p heavydp-cli), python3 (stdlib only),
# GNU time (/usr/bin/time; installed with apt-get when missing).
set -euo pipefail

N=${1:-200000}
D=${2:-50}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
HEAVYDP=${HEAVYDP:-$ROOT/target/release/heavydp}
[ -x "$HEAVYDP" ] || (cd "$ROOT" && cargo build --release -p heavydp-cli)

if [ ! -x /usr/bin/time ]; then
    echo "installing GNU time (apt-get install time)" >&2
    if [ "$(id -u)" -eq 0 ]; then apt-get install -y time >&2; else sudo apt-get install -y time >&2; fi
fi

OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"
SEED=7

# Smaller iteration counts (memory is independent of them, see above).
declare -A OVERRIDES=(
    [dp-frank-wolfe]="--param T=200"
    [dp-frank-wolfe-gaussian]="--param T=200"
    [frank-wolfe]="--param T=200"
    [noisy-mirror-descent]="--param T=200"
    [clipped-gd]="--param T=100"
    [iterative-updating-gd]="--param T=4"
    [objective-perturbation]="--param max_iter=500"
    [l1-regression-expmech]="--param net=random --param max_candidates=256"
)
if [ "${MEM_FULL:-0}" = 1 ]; then OVERRIDES=(); fi

# name <TAB> scenario-kind <TAB> extra fit arguments, one line per algorithm.
PLAN=$("$HEAVYDP" algorithms --json | python3 -c '
import json, sys
for a in json.load(sys.stdin):
    regression = any(l in a["losses"] for l in ("squared", "huber", "absolute", "biweight"))
    sparse = "sparse" in a["domains"] and len(a["domains"]) == 1
    kind = "sparse" if sparse else ("linear" if regression else "logistic")
    extra = "--sparsity 5" if sparse else ""
    if not regression:
        extra += " --loss logistic"
    print(a["name"], kind, extra, sep="\t")
')

declare -A SCENARIO=(
    [linear]=hu-linear-lognormal
    [logistic]=hu-logistic-lognormal
    [sparse]=tian-sparse-student
)
data_for() {
    local f="$OUT/$1-n$N-d$D.csv"
    if [ ! -e "$f" ]; then
        "$HEAVYDP" simulate --scenario "${SCENARIO[$1]}" --n "$N" --d "$D" --seed $SEED --out "$f"
    fi
    echo "$f"
}

MATRIX=$((N * D * 8))
# peak <label> <command...>: runs the command under GNU time; prints "KB seconds".
peak() {
    local log="$OUT/time.log"
    if /usr/bin/time -v -o "$log" "$@" >/dev/null 2>"$OUT/stderr.log"; then
        local kb s
        kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$log")
        s=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$log")
        echo "$kb $s"
    else
        echo "FAILED $(tail -1 "$OUT/stderr.log")"
    fi
}

row() { # label, "KB wall" or "FAILED ...", note
    local label=$1 res=$2 note=$3
    if [[ $res == FAILED* ]]; then
        printf '| %-26s | %s | | | %s |\n' "$label" "$res" "$note"
        return
    fi
    local kb=${res%% *} wall=${res#* }
    python3 -c "
kb, m = $kb, $MATRIX
print('| %-26s | %8.1f | %5.2f | %8s | %s |' % ('$label', kb / 1024, kb * 1024 / m, '$wall', '$note'))"
}

echo "heavydp peak RSS per algorithm: n = $N, d = $D, feature matrix $((MATRIX / 1000000)) MB (n*d*8 bytes)"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo)"
echo "binary: $HEAVYDP (built $(date -r "$HEAVYDP" '+%F %T'))"
echo
echo "| algorithm                  | peak MiB | / X   | wall     | arguments |"
echo "|----------------------------|----------|-------|----------|-----------|"

LIN=$(data_for linear)
row "(read: intercept-only fit)" "$(peak "$HEAVYDP" fit --algorithm intercept-only --data "$LIN" --epsilon 1 --seed 1 --out "$OUT/io.json")" "hu-linear-lognormal CSV"
row "(read: evaluate)" "$(peak "$HEAVYDP" evaluate --model "$OUT/io.json" --data "$LIN")" "same CSV"

while IFS=$'\t' read -r name kind extra; do
    if [ -n "${ONLY:-}" ] && [[ " $ONLY " != *" $name "* ]]; then continue; fi
    f=$(data_for "$kind")
    over=${OVERRIDES[$name]:-}
    # shellcheck disable=SC2086
    res=$(peak "$HEAVYDP" fit --algorithm "$name" --data "$f" --epsilon 1 --seed 1 $extra $over --out "$OUT/$name.json")
    row "$name" "$res" "${SCENARIO[$kind]} $extra $over"
done <<<"$PLAN"
echo
echo "(/ X = peak RSS / feature-matrix bytes; data in $OUT)"
