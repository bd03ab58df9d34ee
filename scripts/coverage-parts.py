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

A cell that takes longer than one working session is kept between sessions in
`docs/benchmark-results/inference-coverage/` (one file a cell, its `rep` lines only):

    python3 scripts/coverage-parts.py STORE part1.log part2.log --store STORE --todo 200

`--store FILE` writes the merged `rep` lines, sorted, to FILE (through a temporary file,
so a failed run leaves it as it was); `--todo N` prints the ranges of repetitions
0..N-1 still missing and, for each, the `HEAVYDP_PROBE_FIRST` and repetition count of a
part that runs it, starting at the stored repetition before it (run twice, it checks
that the build of the new part gives the same line as the stored one).

`--misses` adds, for the shipped interval (v2), where its misses fall: each term's
estimate error over the repetitions (median and the 10 % / 90 % quantiles) and, for every
missed (repetition, term), that repetition's error beside the term's median.

    python3 scripts/coverage-parts.py STORE --reps 200 --misses
"""
import argparse
import os
import re
import statistics
import sys

NAMES = ["basic (1 batch)", "2 batches, unit slope", "2 batches, secant (shipped)",
         "3 batches, secant"]
REP = re.compile(r"^rep (\d+): (.*)$")
ERR = re.compile(r"^err \[([^\]]*)\]")
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
                err = ERR.match(rest)
                if not err:
                    sys.exit(f"repetition {r} has no err list ({path})")
                fields["err"] = [float(x.strip().strip('"')) for x in err.group(1).split(",")]
                reps[r] = (rest, fields)
    return reps


def ranges(numbers):
    """[(first, last)] of the runs of consecutive numbers in a sorted list."""
    out = []
    for k in numbers:
        if out and out[-1][1] == k - 1:
            out[-1][1] = k
        else:
            out.append([k, k])
    return [tuple(r) for r in out]


def store(reps, path):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        for r in sorted(reps):
            f.write(f"rep {r}: {reps[r][0]}\n")
    os.replace(tmp, path)
    print(f"stored {len(reps)} repetitions in {path}")


def misses(reps, d):
    """Where the shipped interval (v2) misses: per term, the error's spread and the
    errors of the missed repetitions."""
    errs = {r: f["err"] for r, (_, f) in reps.items()}
    total = 0
    for j in range(d + 1):
        col = sorted(e[j] for e in errs.values())
        q = statistics.quantiles(col, n=10)
        missed = sorted(r for r, (_, f) in reps.items() if str(j) in f.get("v2missed", []))
        total += len(missed)
        name = "intercept" if j == d else f"slope {j}"
        line = (f"  {name}: error median {statistics.median(col):+.3f}, "
                f"10-90 % [{q[0]:+.3f}, {q[-1]:+.3f}]; {len(missed)} missed")
        if missed:
            line += ": " + ", ".join(f"rep {r} {errs[r][j]:+.3f}" for r in missed)
        print(line)
    print(f"shipped interval: {total} misses in all")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("logs", nargs="+")
    ap.add_argument("--reps", type=int, help="require repetitions 0..N-1")
    ap.add_argument("--store", help="write the merged rep lines to this file")
    ap.add_argument("--todo", type=int, help="print the missing ranges of 0..N-1")
    ap.add_argument("--misses", action="store_true",
                    help="where the shipped interval misses (errors per term)")
    a = ap.parse_args()
    reps = parse([p for p in a.logs if os.path.exists(p) or p != a.store])
    if not reps:
        sys.exit("no repetition lines found")
    if a.store:
        store(reps, a.store)
    if a.todo is not None:
        todo = ranges(sorted(set(range(a.todo)) - set(reps)))
        parts = []
        for f, l in todo:
            start = f - 1 if f - 1 in reps else f  # re-run the stored one before it
            parts.append(f"{f}..{l} (HEAVYDP_PROBE_FIRST={start}, "
                         f"HEAVYDP_PROBE=...,{l - start + 1})")
        print("missing: " + (", ".join(parts) or "none"))
    if a.reps is not None:
        missing = sorted(set(range(a.reps)) - set(reps))
        if missing:
            sys.exit(f"{len(missing)} repetitions missing, the first {missing[:10]}")
        reps = {r: v for r, v in reps.items() if r < a.reps}
    n = len(reps)
    d = len(next(iter(reps.values()))[1]["err"]) - 1
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
    if a.misses:
        misses(reps, d)


if __name__ == "__main__":
    main()
