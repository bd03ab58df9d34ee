#!/bin/sh
# The worked example of docs/guide.md: private and non-private fits of the wage data,
# each model's in-sample MSE against the mean predictor's. Its output is pasted into
# the guide; tests/guide.rs runs it on a subsample.
#
# usage: scripts/guide_example.sh [DATA.csv] [TARGET] [EPSILON] [SEED]
#   HEAVYDP=path/to/heavydp overrides the binary (default: heavydp on PATH, else
#   target/release/heavydp).
set -eu
DATA=${1:-data/real/cps1988_wage.csv}
TARGET=${2:-y}
EPS=${3:-1}
SEED=${4:-1}
if [ -z "${HEAVYDP:-}" ]; then
    if command -v heavydp >/dev/null 2>&1; then HEAVYDP=heavydp; else HEAVYDP=target/release/heavydp; fi
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# fit NAME ARGS...: writes $TMP/NAME.json (notes go to $TMP/NAME.notes)
fit() {
    name=$1; shift
    "$HEAVYDP" fit --data "$DATA" --target "$TARGET" --seed "$SEED" --out "$TMP/$name.json" "$@" 2>"$TMP/$name.notes"
}
# mse NAME: the in-sample mean squared error of model NAME
mse() {
    "$HEAVYDP" evaluate --model "$TMP/$1.json" --data "$DATA" | sed -n 's/^ *"mse": *\([^,]*\),*$/\1/p'
}

fit mean        --algorithm intercept-only --epsilon inf
fit ols         --algorithm clipped-gd     --epsilon inf
fit auto        --algorithm auto           --epsilon "$EPS"
fit private-mean --algorithm intercept-only --epsilon "$EPS"
fit raw         --algorithm clipped-gd     --epsilon "$EPS" --scale none --intercept none

BASE=$(mse mean)
N=$(sed -n 's/^ *"n": *\([0-9]*\),*$/\1/p' "$TMP/mean.json" | head -n 1)
echo "data: $DATA (target $TARGET, n = $N), epsilon = $EPS, seed = $SEED"
echo
echo "| model | command | epsilon | MSE | MSE / mean predictor |"
echo "|---|---|---|---|---|"
row() {
    m=$(mse "$1")
    awk -v n="$2" -v c="$3" -v e="$4" -v m="$m" -v b="$BASE" \
        'BEGIN { printf "| %s | `%s` | %s | %.6g | %.3f |\n", n, c, e, m, m / b }'
}
row mean "mean predictor (non-private)" "--algorithm intercept-only --epsilon inf" inf
row ols "non-private fit (same pipeline)" "--algorithm clipped-gd --epsilon inf" inf
row auto "private, the defaults" "--algorithm auto --epsilon $EPS" "$EPS"
row private-mean "private mean predictor" "--algorithm intercept-only --epsilon $EPS" "$EPS"
row raw "private, raw columns (no scaling, no intercept)" "--algorithm clipped-gd --scale none --intercept none" "$EPS"
echo
echo "notes of the private default fit (stderr of heavydp fit):"
sed 's/^/    /' "$TMP/auto.notes"
