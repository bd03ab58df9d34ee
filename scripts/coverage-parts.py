#!/usr/bin/env python3
"""Sum up one coverage cell of `clipped-gd`'s intervals run in parts.

A cell of the coverage study at n = 10^5 takes hours, so it is run in parts with the
probe `experiments::inference_coverage::tests::clipped_gd_recentre_probe`
(`HEAVYDP_PROBE_FIRST=<first repetition> HEAVYDP_PROBE=n,d,eps,<repetitions>`, see
docs/inference.md). Each part's log has one line per repetition:

    rep R: err [...] v0missed=[..] v0width=[..] v1missed=[..] ... scales_off=[..] olswidth=[..]

(v0: the basic interval of one batch; v1: two batches, unit slope; v2: two batches,
secant slope, the interval `heavydp fit --intervals` ships; v3: three batches. The
index d of a `missed` list is the intercept.) This script reads the logs, checks that a
repetition run by two parts gave the same line, and prints per variant the coverage of
every term, pooled over the slopes, the smallest over the slopes and the intercept's,
and the median slope width against the median OLS width (over the repetitions whose
lines carry widths).

    python3 scripts/coverage-parts.py part1.log part2.log [--reps 200]

`--reps N` fails (exit 1) unless repetitions 0..N-1 are all present.
"""
import argparse
import re
import statistics
import sys

NAMES = ["basic (1 batch)", "2 batches, unit slope", "2 batches, secant (shipped)",
         "3 batches, secant"]
REP = re.compile(r"^rep (\d+): (.*)$")
FIELD = re.compile(r"(v\d+missed|v\d+width|olswidth|scales_off)=\[([^\]]*)\]")


def parse(paths):
    reps = {}
    for path in paths:
        with open(path) as f:
            for line in f:
                m = REP.match(line.rstrip("\n"))
                if not m:
                    continue
                r, rest = int(m.group(1)), m.group(2)
                if r in reps and reps[r][0] != rest:
                    sys.exit(f"repetition {r} differs between the parts ({path})")
                fields = {k: [x.strip() for x in v.split(",") if x.strip()]
                          for k, v in FIELD.findall(rest)}
                reps[r] = (rest, fields)
    return reps


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("logs", nargs="+")
    ap.add_argument("--reps", type=int, help="require repetitions 0..N-1")
    a = ap.parse_args()
    reps = parse(a.logs)
    if not reps:
        sys.exit("no repetition lines found")
    if a.reps is not None:
        missing = sorted(set(range(a.reps)) - set(reps))
        if missing:
            sys.exit(f"{len(missing)} repetitions missing, the first {missing[:10]}")
        reps = {r: v for r, v in reps.items() if r < a.reps}
    n = len(reps)
    d = len(next(iter(reps.values()))[0].split("]")[0].split(",")) - 1
    print(f"{n} repetitions ({min(reps)}..{max(reps)}), d = {d}")
    ols = [float(w) for _, f in reps.values() for w in f.get("olswidth", [])]
    ols_med = statistics.median(ols) if ols else None
    if ols_med is not None:
        print(f"median OLS slope width {ols_med:.4g} (over {len(ols) // d} repetitions)")
    for v, name in enumerate(NAMES):
        key = f"v{v}missed"
        if not all(key in f for _, f in reps.values()):
            continue
        cover = [sum(1 for _, f in reps.values() if str(j) not in f[key])
                 for j in range(d + 1)]
        pooled = sum(cover[:d]) / (n * d)
        line = (f"{name}: slopes {pooled:.3f} (min {min(cover[:d]) / n:.3f}), "
                f"intercept {cover[d] / n:.3f}, per term {cover}")
        widths = [float(w) for _, f in reps.values() for w in f.get(f"v{v}width", [])]
        if widths:
            med = statistics.median(widths)
            line += f", median slope width {med:.4g} (over {len(widths) // d} repetitions)"
            if ols_med:
                line += f" = {med / ols_med:.2f} x OLS"
        print(line)
    off = sum(1 for _, f in reps.values() if f.get("scales_off"))
    print(f"repetitions with a released feature scale off by more than 2x: {off}")


if __name__ == "__main__":
    main()
