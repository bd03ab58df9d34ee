"""heavydp.spark: fits of a PySpark DataFrame (local mode, several partitions) against
the in-memory fit, the privacy of the partitioning, and the error messages.

Skipped (with the reason) only when PySpark or Java is not available."""

import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import heavydp

pyspark = pytest.importorskip("pyspark", reason="PySpark is not installed (pip install heavydp[spark])")
pytest.importorskip("pyarrow", reason="pyarrow is not installed (pip install heavydp[spark])")


def _java_ok():
    java = shutil.which("java")
    if java is None:
        return False
    r = subprocess.run([java, "-version"], capture_output=True, text=True)
    return r.returncode == 0


if not _java_ok():
    pytest.skip("Java 17+ is not available: the Spark tests need a JVM", allow_module_level=True)

import heavydp.spark as hs  # noqa: E402
from heavydp import _core  # noqa: E402

PARTITIONS = 3
# The Spark fit adds the same per-row terms as the in-memory fit, grouped by batch
# instead of by block: released values agree up to the reassociation of the sums.
TOL = 1e-9


@pytest.fixture(scope="module")
def spark():
    from pyspark.sql import SparkSession

    # the Python workers run this interpreter (the one with heavydp and pyarrow)
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    s = (
        SparkSession.builder.master("local[2]")
        .appName("heavydp-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "3")
        .config("spark.sql.execution.arrow.maxRecordsPerBatch", "500")
        .config("spark.driver.memory", "1g")
        # a short-lived test JVM on 2 cores: the quick (C1) JIT compiler alone and the serial
        # collector spend far less CPU on compiler and GC threads than they cost in speed
        # (this file: about 60 instead of about 90 CPU-seconds, 45 instead of 52-59 s)
        .config("spark.driver.extraJavaOptions", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
        .getOrCreate()
    )
    s.sparkContext.setLogLevel("ERROR")
    yield s
    s.stop()


def frame(spark, X, y, ids=None, partitions=PARTITIONS):
    import pandas as pd

    d = X.shape[1]
    pdf = pd.DataFrame(X, columns=[f"x{j}" for j in range(1, d + 1)])
    pdf["y"] = y
    if ids is not None:
        pdf["id"] = ids
    return spark.createDataFrame(pdf).repartition(partitions)


@pytest.fixture(scope="module")
def lin():
    X, y, _ = heavydp.simulate("hu-linear-lognormal", 3000, 5, random_state=3)
    return X, y


@pytest.fixture(scope="module")
def sparse():
    X, y, _ = heavydp.simulate("tian-sparse-student", 3000, 8, sparsity=2, random_state=4)
    return X, y


def in_memory(X, y, **kw):
    return heavydp.PrivateRegressor(**kw).fit(X, y)


# the algorithm alone (no private preprocessing); the defaults are tested below
PLAIN = dict(scale="none", fit_intercept=False)
CASES = {
    "ht-frank-wolfe": dict(algorithm="ht-frank-wolfe", epsilon=1.0, params={"T": 6}, **PLAIN),
    "dp-iht-huber": dict(
        algorithm="dp-iht-huber", epsilon=1.0, delta=1e-5, sparsity=2, radius=3.0, params={"T": 5}, **PLAIN
    ),
    "clipped-gd": dict(algorithm="clipped-gd", epsilon=1.0, delta=1e-5, params={"T": 4, "M": 2}, **PLAIN),
}


@pytest.mark.parametrize("name", list(CASES))
def test_equivalence_with_the_in_memory_fit(spark, lin, sparse, name):
    X, y = sparse if name == "dp-iht-huber" else lin
    kw = CASES[name]
    # rows shuffled across 3 partitions; the ids say which row is which
    ids = np.arange(len(y))
    got = hs.fit(frame(spark, X, y, ids=ids), target="y", id_col="id", random_state=21, **kw)
    params = dict(kw.get("params", {}))
    if name != "clipped-gd":
        params["chunking"] = "keyed"
    want = in_memory(X, y, random_state=21, **{**kw, "params": params})
    assert np.any(want.coef_ != 0)
    np.testing.assert_allclose(got.coef_, want.coef_, rtol=TOL, atol=TOL)
    assert got.privacy_ == want.privacy_
    h_got, h_want = dict(got.hyperparameters_), dict(want.hyperparameters_)
    assert h_got == h_want
    assert got.model_["n"] == len(y) and got.model_["features"] == [f"x{j}" for j in range(1, X.shape[1] + 1)]
    # the model predicts like any heavydp model
    np.testing.assert_allclose(got.predict(X[:10]), X[:10] @ got.coef_, rtol=1e-12)


def test_public_scales_are_applied_by_the_executors(spark, lin, tmp_path):
    X, y = lin
    cols = {f"x{j + 1}": {"centre": float(np.median(X[:, j])), "scale": 0.7 + 0.1 * j} for j in range(X.shape[1])}
    cols["y"] = {"centre": 0.25, "scale": 1.5}
    path = tmp_path / "scales.json"
    path.write_text(json.dumps({"columns": cols}))
    kw = dict(CASES["ht-frank-wolfe"], scale=f"public:{path}")
    got = hs.fit(frame(spark, X, y, ids=np.arange(len(y))), id_col="id", random_state=8, **kw)
    want = in_memory(X, y, random_state=8, **{**kw, "params": {"T": 6, "chunking": "keyed"}})
    assert got.model_["preprocessing"]["scale"] == want.model_["preprocessing"]["scale"]
    np.testing.assert_allclose(got.coef_, want.coef_, rtol=TOL, atol=TOL)
    # the unscaled fit differs: the transform did reach the executors
    plain = hs.fit(
        frame(spark, X, y, ids=np.arange(len(y))), id_col="id", random_state=8, **CASES["ht-frank-wolfe"]
    )
    assert not np.allclose(plain.coef_, got.coef_)


def test_ids_from_the_partition_order_when_no_id_column(spark, lin):
    X, y = lin
    df = frame(spark, X, y, partitions=1)  # one partition: zipWithIndex = input order
    kw = CASES["ht-frank-wolfe"]
    got = hs.fit(df, random_state=5, **kw)
    want = in_memory(X, y, random_state=5, **{**kw, "params": {"T": 6, "chunking": "keyed"}})
    np.testing.assert_allclose(got.coef_, want.coef_, rtol=TOL, atol=TOL)


# --- privacy of the partitioning -----------------------------------------------------


def chunk_request(key, n, m, T, index, d, radius=1e18):
    """The JSON SumRequest of one chunk's clipped-gradient sum (what the driver sends)."""
    return json.dumps(
        {
            "kernel": {"kernel": "clipped_gradient", "loss": {"name": "squared"}, "radius": radius},
            "rows": {"rows": "chunk", "key": key, "n": n, "m": m, "chunks": T, "index": index},
            "d": d,
            "transform": None,
        }
    )


def chunk_sizes(spark, X, y, ids, key, T):
    """Rows per chunk as the executors count them (one batch_sum per chunk)."""
    n, d = X.shape
    m = n // T
    counts = []
    for index in range(T):
        run = hs._make_pass(
            frame(spark, X, y, ids=ids).select(*[f"x{j}" for j in range(1, d + 1)], "y", spark_col("id")),
            [f"x{j}" for j in range(1, d + 1)],
            "y",
            d,
        )
        parts, rows, _ = run(chunk_request(key, n, m, T, index, d), np.zeros(d))
        counts.append((rows, parts.reshape(-1, d).sum(axis=0)))
    return counts, m


def gaussian_rows(rng, n, d):
    """n rows of d standard normal features (drawn first), a standard normal target, and
    the ids 0..n-1: the data of the chunking tests, whose values do not matter."""
    return rng.normal(size=(n, d)), rng.normal(size=n), np.arange(n)


def spark_col(name):
    from pyspark.sql import functions as F

    return F.col(name).cast("long").alias(hs._ID)


def test_every_row_in_exactly_one_chunk_of_public_size(spark):
    rng = np.random.default_rng(0)
    n, d, T, key = 1003, 2, 4, 123456789
    X, y, ids = gaussian_rows(rng, n, d)
    counts, m = chunk_sizes(spark, X, y, ids, key, T)
    assert [c for c, _ in counts] == [m] * T  # ⌊n/T⌋ rows each, n - T*m unused
    # no row in two chunks: the executor's rule, asked row by row, puts every row in at
    # most one chunk, and T*m rows in one
    X1 = np.ones((n, 1))
    in_chunk = np.zeros(n, dtype=int)
    for i in range(n):
        for index in range(T):
            req = chunk_request(key, n, m, T, index, 1, radius=1e9)
            _, r, _ = _core.batch_sum(req, np.zeros(1), [X1[i : i + 1, 0].copy()], np.ones(1), np.array([i]))
            in_chunk[i] += r
    assert in_chunk.max() == 1 and in_chunk.sum() == T * m


def test_chunks_do_not_depend_on_the_values(spark):
    rng = np.random.default_rng(1)
    n, d, T, key = 900, 2, 3, 42
    X, y, ids = gaussian_rows(rng, n, d)
    base, _ = chunk_sizes(spark, X, y, ids, key, T)
    # permute the values while the ids stay: the chunks keep their ids, so each chunk's
    # sum is the sum of the same ids' new values
    perm = rng.permutation(n)
    moved, m = chunk_sizes(spark, X[perm], y[perm], ids, key, T)
    assert [c for c, _ in moved] == [c for c, _ in base] == [m] * T
    # each chunk's members by id (the executor's rule, asked row by row)
    members = []
    for index in range(T):
        req = chunk_request(key, n, m, T, index, 1)
        sel = []
        for i in range(n):
            _, r, _ = _core.batch_sum(req, np.zeros(1), [np.ones(1)], np.ones(1), np.array([i]))
            if r:
                sel.append(i)
        members.append(sel)
    # squared loss (a - y)^2 at w = 0: the gradient of row i is -2 y_i x_i, unclipped at
    # R = 1e18
    for (rows_b, sum_b), (rows_m, sum_m), sel in zip(base, moved, members):
        np.testing.assert_allclose(sum_b, -2 * (y[sel, None] * X[sel]).sum(axis=0), rtol=1e-10)
        np.testing.assert_allclose(
            sum_m, -2 * (y[perm][sel, None] * X[perm][sel]).sum(axis=0), rtol=1e-10
        )


# --- errors: the CLI's messages ------------------------------------------------------


def test_null_non_numeric_and_missing_target(spark, lin):
    from pyspark.sql import functions as F

    X, y = lin
    df = frame(spark, X[:200], y[:200])
    with pytest.raises(ValueError, match="target column 'z' is not in the header"):
        hs.fit(df, target="z", **CASES["clipped-gd"])
    with pytest.raises(ValueError, match="column 'x1'.*not a number"):
        hs.fit(df.withColumn("x1", F.lit("a")), **CASES["clipped-gd"])
    # the CLI names the data row and the column: here the first row's id
    first = int(np.argmax(X[:200, 0] > 1.0))
    with_null = df.withColumn("x2", F.when(F.col("x1") > 1.0, None).otherwise(F.col("x2")))
    with pytest.raises(ValueError, match="column 'x2': not a number"):
        hs.fit(with_null, **CASES["clipped-gd"])
    with_ids = frame(spark, X[:200], y[:200], ids=np.arange(200))
    with_nan = with_ids.withColumn("y", F.when(F.col("x1") > 1.0, float("nan")).otherwise(F.col("y")))
    with pytest.raises(ValueError, match=f"data row id = {first}, column 'y': NaN or infinite"):
        hs.fit(with_nan, id_col="id", **CASES["clipped-gd"])


def test_budget_overspend_and_unsupported_options(spark, lin):
    X, y = lin
    df = frame(spark, X[:300], y[:300])
    b = heavydp.Budget(1.5, 1e-4)
    hs.fit(df, budget=b, random_state=1, **CASES["clipped-gd"])
    assert b.spent[0] == pytest.approx(1.0)
    with pytest.raises(ValueError, match="exceed|overspen|budget"):
        hs.fit(df, budget=b, random_state=1, **CASES["clipped-gd"])
    assert b.spent[0] == pytest.approx(1.0)  # nothing charged by the refused fit
    with pytest.raises(ValueError, match="supports .*clipped-gd"):
        hs.fit(df, algorithm="adassp", epsilon=1.0)
    with pytest.raises(ValueError, match="chunking=keyed"):
        hs.fit(df, algorithm="ht-frank-wolfe", epsilon=1.0, params={"chunking": "shuffle"})
    bad = frame(spark, X[:300], y[:300], ids=np.r_[0, np.arange(299)])  # 0 twice, 299 missing
    with pytest.raises(ValueError, match="exactly once"):
        hs.fit(bad, id_col="id", **CASES["ht-frank-wolfe"])


# --- the private preprocessing on Spark (the defaults) -------------------------------


@pytest.fixture(scope="module")
def small():
    # three raw-unit columns (scales 1, 100 and 1e-3, offsets) so that the private
    # scaling has something to find; 2 000 rows
    X, y, _ = heavydp.simulate("hu-linear-lognormal", 2000, 3, random_state=6)
    X = X * np.array([1.0, 100.0, 1e-3]) + np.array([0.0, 1990.0, 5.0])
    return X, 3.0 * y + 40.0


def _same_release(got, want):
    """The released values of two fits: the scales and the privacy report exactly (the
    histograms are integer counts: the same utilities and draws), the weights and
    intercept up to the reassociation of the sums."""
    assert got.privacy_ == want.privacy_
    pg, pw = got.model_["preprocessing"], want.model_["preprocessing"]
    for key in ("scale", "intercept", "centres", "scales", "target_centre", "target_scale", "intercept_method"):
        assert pg.get(key) == pw.get(key), key
    assert dict(got.hyperparameters_) == dict(want.hyperparameters_)
    np.testing.assert_allclose(got.coef_, want.coef_, rtol=TOL, atol=TOL)
    np.testing.assert_allclose(got.intercept_, want.intercept_, rtol=TOL, atol=TOL)


DEFAULTS = {
    "clipped-gd": dict(algorithm="clipped-gd", epsilon=2.0, params={"T": 3}),
    "dp-iht-huber": dict(algorithm="dp-iht-huber", epsilon=2.0, sparsity=2, params={"T": 3}),
}


@pytest.mark.parametrize("name", list(DEFAULTS))
def test_private_scale_and_intercept_equal_the_in_memory_fit(spark, small, name):
    X, y = small
    kw = DEFAULTS[name]
    got = hs.fit(frame(spark, X, y, ids=np.arange(len(y))), id_col="id", random_state=13, **kw)
    params = dict(kw["params"], **({"chunking": "keyed"} if name == "dp-iht-huber" else {}))
    want = in_memory(X, y, random_state=13, **{**kw, "params": params})
    assert want.model_["preprocessing"]["scale"] == "private"
    assert want.model_["preprocessing"]["intercept"] == "private"
    _same_release(got, want)
    # the scales did their work: the raw-unit model predicts on the raw scale
    assert abs(np.mean(got.predict(X)) - np.mean(y)) < 0.5 * np.std(y)


def test_logistic_and_intercept_only_fits(spark, small):
    X, y = small
    labels = (y > np.median(y)).astype(float)
    df = frame(spark, X, labels, ids=np.arange(len(y)))
    kw = dict(algorithm="clipped-gd", epsilon=2.0, params={"T": 3})
    got = hs.fit(df, id_col="id", loss="logistic", random_state=3, **kw)
    want = heavydp.PrivateClassifier(random_state=3, **kw).fit(X, labels)
    assert isinstance(got, heavydp.PrivateClassifier)
    _same_release(got, want)
    assert list(got.classes_) == [0, 1]
    # a label other than 0/1/-1: the CLI's message
    with pytest.raises(ValueError, match="y: logistic loss needs labels"):
        hs.fit(frame(spark, X, labels * 2.0), loss="logistic", **kw)
    # auto at a small n*epsilon (100): the private intercept alone (scaled target)
    got = hs.fit(frame(spark, X, y, ids=np.arange(len(y))), id_col="id", epsilon=0.05, random_state=4)
    want = in_memory(X, y, epsilon=0.05, random_state=4)
    assert got.model_["selected"]["algorithm"] == "intercept-only"
    _same_release(got, want)
    # n*epsilon = 20 < 56.2: the uncertified private median is refused, as in memory
    with pytest.raises(ValueError, match=r"auto: .*n·ε = 20\.0 < 56\.2"):
        hs.fit(frame(spark, X, y, ids=np.arange(len(y))), id_col="id", epsilon=0.01, random_state=4)
    with pytest.raises(ValueError, match=r"auto: .*n·ε = 20\.0 < 56\.2"):
        in_memory(X, y, epsilon=0.01, random_state=4)


# --- stable chunk membership and the Budget charge (docs/privacy.md, guarantees 1, 4) ---


def _reshuffled_ids(df):
    """df with a column "rid" = a row number over a fresh random order at every
    evaluation (a nondeterministic id, as zipWithIndex after a recomputation)."""
    import random

    from pyspark.sql import Window
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    noise = F.udf(lambda: random.random(), T.DoubleType()).asNondeterministic()
    w = Window.orderBy("r")
    return df.withColumn("r", noise()).withColumn("rid", F.row_number().over(w) - 1).drop("r")


def test_chunked_fit_reads_stable_ids_or_refuses(spark, lin):
    X, y = lin
    df = _reshuffled_ids(frame(spark, X[:600], y[:600]))
    kw = dict(algorithm="ht-frank-wolfe", epsilon=1.0, scale="none", fit_intercept=False, params={"T": 3})
    # unmaterialised, every pass reads other (id, row) pairs: refused before any release
    est = heavydp.PrivateRegressor(**{**kw, "params": {"T": 3, "chunking": "keyed"}})
    opts = est._options()
    raw, names, n = hs._validated_frame(df, "y", ["x1", "x2", "x3", "x4", "x5"], "rid")
    with pytest.raises(ValueError, match="chunk membership is not stable; refused before any release"):
        _core.fit_distributed(n, len(names), names, "y", hs._make_pass(raw, names, "y", len(names)), seed=1, **opts)
    # heavydp.spark.fit materialises the rows with their ids once: the fit runs
    got = hs.fit(df, id_col="rid", random_state=1, **kw)
    assert got.privacy_["epsilon"] <= 1.0 and got.model_["n"] == 600


def test_budget_charge_covers_the_spark_fit(spark, small):
    X, y = small
    df = frame(spark, X, y, ids=np.arange(len(y)))
    # epsilon = 4: 2 000 rows pass the public scaling check (at epsilon = 1 the fit would
    # be the pure intercept alone)
    kw = dict(algorithm="ht-frank-wolfe", epsilon=4.0, params={"T": 2})
    # pure algorithm, delta=None, private scaling: the scaling spends delta
    pure = heavydp.Budget(10.0, 0.0)
    with pytest.raises(ValueError, match=r"may spend delta .* pass delta=0 for a pure fit"):
        hs.fit(df, id_col="id", budget=pure, random_state=2, **kw)
    assert pure.spent == (0.0, 0.0)
    b = heavydp.Budget(10.0, 1e-2)
    got = hs.fit(df, id_col="id", budget=b, random_state=2, **kw)
    assert got.privacy_["delta"] > 0
    assert b.spent[0] >= got.privacy_["epsilon"] and b.spent[1] >= got.privacy_["delta"]
    # delta=0: a pure fit that the pure budget accepts
    got = hs.fit(df, id_col="id", budget=pure, random_state=2, delta=0.0, **kw)
    assert got.privacy_["model"] == "pure" and pure.spent[1] == 0.0


def test_default_fit_passes_and_verbose_progress(spark, capfd):
    # a default regression fit at d = 20 reads the DataFrame 1 (validation) + 4 (the
    # private scaling, one pass per stage) + T (clipped-gd's gradients, T <= 45) + 1
    # (the private intercept, which also reads the private fit check's sum and
    # histograms) times
    X, y, _ = heavydp.simulate("hu-linear-lognormal", 20000, 20, random_state=5)
    df = frame(spark, X, y, ids=np.arange(len(y)))
    capfd.readouterr()
    got = hs.fit(df, id_col="id", random_state=1, verbose=True)
    err = capfd.readouterr().err
    assert got.model_["selected"]["algorithm"] == "clipped-gd"
    assert got.model_["preprocessing"]["scale"] == "private"
    assert got.model_["preprocessing"]["intercept"] == "private"
    assert got.model_["preprocessing"]["fit_check"]["kept"] is True
    T = int(got.hyperparameters_["T"])
    assert T <= 45
    assert f"distributed fit: {4 + T + 1} passes over the rows (4 private scaling, {T} algorithm, 1 intercept)" in got.notes_
    assert got.n_passes_ == 1 + 4 + T + 1 <= 51
    assert f"heavydp.spark.fit: {got.n_passes_} passes over the DataFrame (validation: 1; the fit: {4 + T + 1})" in got.notes_
    # verbose: every pass of the fit on stderr with its phase, and the algorithm's steps
    assert err.count("heavydp.spark: pass ") == 4 + T + 1, err
    assert err.count("(private scaling)") == 4 and err.count("(algorithm)") == T and err.count("(intercept)") == 1
    assert err.count("(fit check)") == 0
    assert f"the algorithm runs {T} steps" in err
    # the same release as the quiet in-memory fit (a second Spark fit would cost another
    # 51 jobs)
    _same_release(got, in_memory(X, y, random_state=1))
