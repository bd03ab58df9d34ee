#!/usr/bin/env python3
"""Opt-in scale run of heavydp.spark (docs/distributed.md): a Parquet file at
least 3x the memory the Spark driver may use, fitted in Spark local mode with the data
streamed from disk (persist=False), and the fit's accuracy against the simulated truth.

    .venv/bin/python scripts/spark-scale-run.py [--rows 10000000] [--driver-memory 512m]
                                                [--dir /tmp/heavydp-scale]
                                                [--algorithm auto|dp-iht-huber|clipped-gd]

Data: x ~ N(0, I_20), y = <x, w*> + Student t (3 d.o.f.), w* 5-sparse with
||w*||_2 = 1; columns x1..x20, y and the row id. Reports wall time, the peak resident
memory of the driver (the JVM, which in local mode also hosts the executors, and the
Python process that runs the Rust core) and ||w - w*||_2.
"""

import argparse
import os
import pathlib
import sys
import threading
import time

import numpy as np


def write_data(path, n, d, seed, chunk=500_000):
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    w = np.zeros(d)
    support = rng.choice(d, 5, replace=False)
    w[support] = rng.normal(size=5)
    w /= np.linalg.norm(w)
    if path.exists():
        return w
    path.mkdir(parents=True)
    for k, start in enumerate(range(0, n, chunk)):
        m = min(chunk, n - start)
        X = rng.normal(size=(m, d))
        y = X @ w + rng.standard_t(3, size=m)
        cols = {f"x{j + 1}": X[:, j] for j in range(d)}
        cols["y"] = y
        cols["row_id"] = np.arange(start, start + m, dtype=np.int64)
        pq.write_table(
            pa.table(cols), path / f"part-{k:05d}.parquet", compression="snappy", row_group_size=50_000
        )
    return w


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--d", type=int, default=20)
    ap.add_argument("--driver-memory", default="512m")
    ap.add_argument("--dir", default="/tmp/heavydp-scale")
    ap.add_argument("--algorithm", default="dp-iht-huber")
    args = ap.parse_args()

    import psutil

    os.environ["PYSPARK_PYTHON"] = sys.executable
    data = pathlib.Path(args.dir) / f"n{args.rows}-d{args.d}.parquet"
    t0 = time.time()
    w_star = write_data(data, args.rows, args.d, seed=2026)
    size = sum(f.stat().st_size for f in data.glob("*.parquet"))
    print(f"data: {data} {size / 2**30:.2f} GiB on disk ({args.rows} x {args.d + 2}); written in {time.time() - t0:.0f} s")

    from pyspark.sql import SparkSession

    import heavydp.spark as hs

    spark = (
        SparkSession.builder.master("local[2]")
        .config("spark.driver.memory", args.driver_memory)
        .config("spark.ui.enabled", "false")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    limit = spark.sparkContext.getConf().get("spark.driver.memory")
    me = psutil.Process()
    peak = {"jvm": 0, "python": 0}
    stop = threading.Event()

    def sample():
        while not stop.is_set():
            peak["python"] = max(peak["python"], me.memory_info().rss)
            for c in me.children(recursive=True):
                try:
                    if "java" in c.name():
                        peak["jvm"] = max(peak["jvm"], c.memory_info().rss)
                except psutil.Error:
                    pass
            time.sleep(0.2)

    threading.Thread(target=sample, daemon=True).start()
    df = spark.read.parquet(str(data))
    t1 = time.time()
    params = {}
    kw = dict(epsilon=1.0, delta=1e-6)
    if args.algorithm == "dp-iht-huber":
        kw.update(sparsity=5, radius=2.0)
    elif args.algorithm == "clipped-gd":
        params["T"] = 5
    if args.algorithm == "auto":
        # the default fit: every option at its default (private scaling and intercept,
        # auto's choice), epsilon = 1; each pass reported on stderr
        est = hs.fit(df, target="y", id_col="row_id", random_state=1, persist=False,
                     epsilon=1.0, verbose=True)
    else:
        # the algorithm alone on raw columns (the data are centred and of unit scale)
        est = hs.fit(df, target="y", algorithm=args.algorithm, id_col="row_id", random_state=1,
                     params=params, persist=False, scale="none", fit_intercept=False, **kw)
    wall = time.time() - t1
    stop.set()
    err = float(np.linalg.norm(est.coef_ - w_star))
    print(f"algorithm: {args.algorithm} ({(est.model_.get('selected') or {}).get('algorithm', est.model_['algorithm'])}), T = {est.hyperparameters_.get('T')}, epsilon = {est.privacy_['epsilon']}, delta = {est.privacy_['delta']}")
    limit_bytes = int(limit[:-1]) * {"k": 2**10, "m": 2**20, "g": 2**30}[limit[-1].lower()]
    print(f"driver memory limit (spark.driver.memory): {limit}; data on disk / limit = {size / limit_bytes:.1f}x")
    print(f"wall time of the fit: {wall:.0f} s")
    print(f"passes over the DataFrame: {est.n_passes_} ({wall / est.n_passes_:.1f} s a pass)")
    for note in est.notes_:
        print(f"note: {note}")
    print(f"peak RSS: JVM (driver + local executors) {peak['jvm'] / 2**20:.0f} MiB, Python driver (Rust core) {peak['python'] / 2**20:.0f} MiB")
    print(f"||w - w*||_2 = {err:.4f} (||w*||_2 = 1)")
    spark.stop()


if __name__ == "__main__":
    main()
