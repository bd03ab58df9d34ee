#!/usr/bin/env bash
# The measured-bounds table of docs/privacy.md ("Trial counts and measured results"):
# every audit target of `heavydp audit --list` and its broken twin at ε = 1 with the
# test suite's seed, at the test's 20 000 trials and at the target's default count.
# Prints one Markdown row per target: trials, the real target's 95 % lower bound on ε,
# the twin's; then the same at the default count.
#   usage: scripts/audit-table.sh [path/to/heavydp]   (default target/release/heavydp)
set -euo pipefail
B=${1:-target/release/heavydp}
SEED=20240601   # crates/heavydp/tests/audit.rs
bound() {
    "$B" audit --target "$1" --epsilon 1 --trials "$2" --seed "$SEED" |
        python3 -c 'import json, sys; print("%.3f" % json.load(sys.stdin)["epsilon_lower_bound"])'
}
spaced() { printf '%d' "$1" | sed -e ':a' -e 's/\([0-9]\)\([0-9]\{3\}\)\($\| \)/\1 \2\3/; ta'; }
"$B" audit --list | awk 'NR > 1 && $1 !~ /-broken$/ { print $1, $4 }' |
while read -r target trials; do
    row="| \`$target\` |"
    for n in 20000 "$trials"; do
        row="$row $(spaced "$n") | $(bound "$target" "$n") | $(bound "$target-broken" "$n") |"
        [ "$n" = 20000 ] && row="$row |"
    done
    echo "$row"
done
