"""heavydp on Apache Spark: private fits of a PySpark DataFrame (``pip install heavydp[spark]``).

:func:`fit` runs ``clipped-gd``, ``ht-frank-wolfe``, ``dp-iht-huber``, ``intercept-only``
or ``auto`` on a DataFrame that need not fit on one machine, with the estimators'
defaults (private scaling, private intercept). What runs where (``docs/distributed.md``):

* the driver runs the whole private fit in the Rust core -- the plan, the noise, the
  mechanisms, the privacy ledger and the model file, by the in-memory fit's code;
* every data pass is one Spark job: the private scaling's grid histograms, the
  algorithm's per-iteration sums, the intercept's sums. The iterate w is broadcast,
  each executor runs the Rust kernel (``heavydp._core.batch_sum``) on its Arrow batches
  (``mapInArrow``; the float64 columns are read in place) and returns one partial
  result and one row count per batch; the driver adds them in a fixed order
  (partition, batch). Rows never leave the executors.

Chunk membership (``ht-frank-wolfe``, ``dp-iht-huber``) is ``chunking=keyed``: a keyed
permutation of the row ids 0..n-1, its key drawn from the fit's noise generator,
evaluated per row on the executors -- a public function of the row id, never of the
values. With the same ``random_state`` an in-memory fit with ``params={"chunking":
"keyed"}`` on the rows in id order releases the same values: the scales exactly
(integer counts), the weights and intercept up to the reassociation of the sums
(relative differences of the order of 1e-12).

Chunk t is read only at pass t, so a record must keep its id across passes (parallel
composition needs disjoint chunks). For the chunked algorithms the rows with their ids
are therefore *materialised* once before the first pass -- ``DataFrame.checkpoint``
when the SparkContext has a checkpoint directory, else ``localCheckpoint`` (a lost
block then fails the job instead of being recomputed) -- never merely persisted (a
persisted block that is lost is recomputed, and ``zipWithIndex`` ids may then change).
Every pass also returns a fingerprint of the (id, values) pairs it read (never
released): when a pass reads other pairs than the first, the fit is refused before
anything is released. Ids must not depend on the values (``id_col`` must be a
stored, stable row number, not e.g. a rank of a value column).
"""

import sys

import numpy as np

from . import _core
from ._estimators import PrivateRegressor, _seed_of

__all__ = ["fit", "ALGORITHMS"]

#: The algorithms a Spark fit supports (their data passes are row sums).
ALGORITHMS = tuple(_core.distributed_algorithms())

#: The algorithms that read T disjoint chunks (they need ``chunking=keyed``).
_CHUNKED = tuple(_core.chunked_algorithms())

_PATH = "DataFrame"
_ID = "__heavydp_row_id"


def _numeric_type(dt):
    from pyspark.sql import types as T

    return isinstance(dt, T.NumericType)


#: The CLI's message for a logistic target with another value (``LossError::BadLabel``).
_BAD_LABEL = (
    "logistic loss needs labels in {-1, +1} or {0, 1}: the target column holds another value"
    " (recode it to 0/1 or -1/+1)"
)


def _materialised(frame):
    """``frame`` computed once and stored, with its lineage cut: a checkpoint (to the
    SparkContext's checkpoint directory) when there is one, else a local checkpoint
    (executor storage; losing a block fails the job rather than recomputing it)."""
    sc = frame.sparkSession.sparkContext
    if sc.getCheckpointDir():
        return frame.checkpoint(eager=True)
    return frame.localCheckpoint(eager=True)


def _validated_frame(df, target, features, id_col, labels=False, persist=False, materialise=False):
    """The (features + target + id) DataFrame of doubles, with the CLI's checks;
    persisted (MEMORY_AND_DISK) by the check job when ``persist``, for the passes;
    materialised first (:func:`_materialised`) when ``materialise`` (the chunked
    algorithms: the ids must not change between passes)."""
    from pyspark.sql import functions as F

    columns = list(df.columns)
    if target not in columns:
        raise ValueError(
            f"{_PATH}: target column '{target}' is not in the header (use --target to name the response column)"
        )
    if features is None:
        features = [c for c in columns if c not in (target, id_col)]
    else:
        features = [str(c) for c in features]
        for c in features:
            if c not in columns:
                raise ValueError(f"{_PATH}: missing column '{c}' required by the model")
    if not features:
        raise ValueError(f"{_PATH}: there are no feature columns (only the target '{target}')")
    types = dict(df.dtypes)
    schema = {f.name: f.dataType for f in df.schema.fields}
    for c in features + [target]:
        if not _numeric_type(schema[c]):
            raise ValueError(f"{_PATH}: column '{c}' ({types[c]}): not a number")
    if id_col is not None:
        if id_col not in columns:
            raise ValueError(f"{_PATH}: id column '{id_col}' is not in the header")
        from pyspark.sql import types as T

        if not isinstance(schema[id_col], T.IntegralType):
            raise ValueError(f"{_PATH}: id column '{id_col}' ({types[id_col]}): not an integer")
    # the rows with their ids 0..n-1: the id column, or the DataFrame's partition order
    # (zipWithIndex). Chunked fits materialise them once (the ids of a recomputed
    # partition may change); every pass's fingerprint is compared with the first's.
    # Nulls are kept here so that the check below can name them.
    cols = [F.col(c).cast("double").alias(c) for c in features + [target]]
    if id_col is None:
        from pyspark.sql import types as T

        indexed = df.select(*cols).rdd.zipWithIndex().map(lambda r: (*r[0], r[1]))
        schema = T.StructType(
            [T.StructField(c, T.DoubleType(), True) for c in features + [target]]
            + [T.StructField(_ID, T.LongType(), False)]
        )
        frame = df.sparkSession.createDataFrame(indexed, schema)
    else:
        frame = df.select(*cols, F.col(id_col).cast("long").alias(_ID))
    if materialise:
        frame = _materialised(frame)
    elif persist:
        from pyspark import StorageLevel

        frame = frame.persist(StorageLevel.MEMORY_AND_DISK)
    try:
        n = _check_frame(frame, features, target, id_col, labels)
    except Exception:
        if persist or materialise:
            frame.unpersist()
        raise
    return frame, features, n


def _check_frame(frame, features, target, id_col, labels):
    """The CLI's checks of the values, in one job; returns n."""
    from pyspark.sql import functions as F

    # one job: nulls (the CLI's "not a number" of an empty cell) and NaN/inf, each with
    # the first row that has one (as the CLI names the data row), the labels, the ids
    idc = F.col(_ID)
    checks = []
    for c in features + [target]:
        col = F.col(c)
        checks.append(F.min(F.when(col.isNull(), idc)).alias(f"null:{c}"))
        checks.append(F.min(F.when(F.isnan(col) | (F.abs(col) == float("inf")), idc)).alias(f"nonfinite:{c}"))
    if labels:
        checks.append(F.sum(F.when(~F.col(target).isin(0.0, 1.0, -1.0), 1).otherwise(0)).alias("bad_labels"))
    checks.append(F.count(F.lit(1)).alias("n"))
    if id_col is not None:
        checks += [
            F.min(idc).alias("id_min"),
            F.max(idc).alias("id_max"),
            F.countDistinct(idc).alias("id_distinct"),
            F.sum(F.when(idc.isNull(), 1).otherwise(0)).alias("id_null"),
        ]
    row = frame.agg(*checks).collect()[0].asDict()
    n = int(row["n"])
    if n == 0:
        raise ValueError(f"{_PATH}: the file has a header but no data rows")

    def where(i):
        return f"data row {id_col} = {i}" if id_col is not None else f"data row {i} (zipWithIndex, from 0)"

    for c in features + [target]:
        if row[f"null:{c}"] is not None:
            raise ValueError(f"{_PATH}: {where(row[f'null:{c}'])}, column '{c}': not a number (a value is null)")
        if row[f"nonfinite:{c}"] is not None:
            raise ValueError(
                f"{_PATH}: {where(row[f'nonfinite:{c}'])}, column '{c}': NaN or infinite values are not allowed"
            )
    if labels and row["bad_labels"]:
        raise ValueError(f"{target}: {_BAD_LABEL}")
    if id_col is not None and not (
        row["id_null"] == 0
        and row["id_min"] == 0
        and row["id_max"] == n - 1
        and row["id_distinct"] == n
    ):
        raise ValueError(
            f"{_PATH}: the id column '{id_col}' must hold each of 0..n-1 exactly once (n = {n})"
        )
    return n


#: The phase of a pass, from its request's kernel (public: the kernel's name).
_PHASES = {
    "stage_histograms": "private scaling",
    "clipped_gradient": "algorithm",
    "catoni_psi": "algorithm",
    "clipped_huber": "algorithm",
    "fit_check_reads": "fit check",
    "logistic_check_reads": "fit check",
    "clipped_residual_and_check_reads": "intercept",
}


def _make_pass(frame, features, target, d, verbose=False, counter=None):
    """pass_fn(request_json, w) of ``_core.fit_distributed``: one Spark job. Each call
    adds 1 to ``counter[0]``; with ``verbose`` it prints the pass's number, phase and
    time on stderr."""
    import json
    import time

    import pyarrow as pa
    from pyspark.sql import types as T

    counter = counter if counter is not None else [0]
    started = time.perf_counter()

    sc = frame.sparkSession.sparkContext
    out_schema = T.StructType(
        [
            T.StructField("partition", T.IntegerType(), False),
            T.StructField("batch", T.IntegerType(), False),
            T.StructField("rows", T.LongType(), False),
            T.StructField("fingerprint", T.LongType(), False),
            T.StructField("sums", T.ArrayType(T.DoubleType(), False), False),
        ]
    )

    def run_pass(request_json, w):
        counter[0] += 1
        t0 = time.perf_counter()
        bw = sc.broadcast(np.asarray(w, dtype=np.float64))
        feats, tgt = list(features), target
        kernel = json.loads(request_json)["kernel"]["kernel"]

        def executor(batches):
            from pyspark import TaskContext

            from heavydp import _core as core

            part = TaskContext.get().partitionId()
            wv = bw.value
            schema = pa.schema(
                [
                    ("partition", pa.int32(), False),
                    ("batch", pa.int32(), False),
                    ("rows", pa.int64(), False),
                    ("fingerprint", pa.int64(), False),
                    ("sums", pa.list_(pa.field("element", pa.float64(), False)), False),
                ]
            )

            def record(b, rows, fp, s):
                fp %= 1 << 64
                # the u64 fingerprint as the int64 of the same bits
                fp = fp - (1 << 64) if fp >= (1 << 63) else fp
                return pa.RecordBatch.from_pydict(
                    {"partition": [part], "batch": [b], "rows": [rows], "fingerprint": [fp], "sums": [s.tolist()]},
                    schema=schema,
                )

            # The scaling's histograms are (cell, count) pairs, up to (d + 1) x 4 097 cells
            # a batch (about 1.4 MB at d = 20): one record per batch would bring 10^3 of
            # them to the driver at n = 10^7 (its 512 MiB heap lost them). Counts are whole
            # numbers, exact in float64 and in any order, so a task adds its batches'
            # histograms and sends one record of the non-empty cells; row sums (d + 1
            # floats) go per batch, in the fixed (partition, batch) order.
            counts = kernel == "stage_histograms"
            acc, acc_rows, acc_fp = None, 0, 0
            for b, batch in enumerate(batches):
                if batch.num_rows == 0:
                    continue
                cols = [batch.column(f).to_numpy(zero_copy_only=True) for f in feats]
                y = batch.column(tgt).to_numpy(zero_copy_only=True)
                ids = batch.column(_ID).to_numpy(zero_copy_only=True)
                s, rows, fp = core.batch_sum(request_json, wv, cols, y, ids)
                if counts:
                    s = np.asarray(s, dtype=np.float64)
                    dense = np.bincount(s[0::2].astype(np.int64), weights=s[1::2])
                    if acc is None:
                        acc = dense
                    else:
                        if dense.size > acc.size:
                            acc, dense = dense, acc
                        acc[: dense.size] += dense
                    acc_rows += rows
                    acc_fp += fp
                else:
                    yield record(b, rows, fp, s)
            if acc is not None:
                cells = np.flatnonzero(acc)
                pairs = np.empty(2 * cells.size, dtype=np.float64)
                pairs[0::2], pairs[1::2] = cells, acc[cells]
                yield record(0, acc_rows, acc_fp, pairs)

        try:
            got = frame.mapInArrow(executor, out_schema).collect()
        finally:
            bw.unpersist()
        # the fixed order of the reduction: (partition, batch), whatever the scheduling
        got.sort(key=lambda r: (r["partition"], r["batch"]))
        parts = np.asarray([v for r in got for v in r["sums"]], dtype=np.float64)
        if parts.size == 0:
            parts = np.zeros(0, dtype=np.float64)
        fingerprint = sum(int(r["fingerprint"]) for r in got) % (1 << 64)
        if verbose:
            now = time.perf_counter()
            print(
                f"heavydp.spark: pass {counter[0]} ({_PHASES.get(kernel, 'intercept')}) in"
                f" {now - t0:.1f} s; {now - started:.0f} s since the first pass",
                file=sys.stderr,
                flush=True,
            )
        return parts, int(sum(r["rows"] for r in got)), fingerprint

    return run_pass


def fit(df, target="y", id_col=None, features=None, persist=True, **estimator_params):
    """A private fit of a PySpark DataFrame (``heavydp fit`` on Spark).

    The options and their defaults are :class:`heavydp.PrivateRegressor`'s (the
    estimator is built from ``estimator_params``): ``algorithm="auto"``, private scaling
    and a private intercept, each learned by passes over the DataFrame (grid histograms
    and row sums; ``docs/distributed.md``) with the in-memory mechanisms, so the same
    seed releases the same values as the in-memory fit.

    Parameters
    ----------
    df : pyspark.sql.DataFrame
        The records, one per row: numeric feature columns and the target.
    target : str, default "y"
        The response column (0/1 or -1/+1 labels for ``loss="logistic"``).
    id_col : str or None
        A column holding each of 0..n-1 exactly once: the stable row id that decides
        chunk membership (checked). It must not depend on the values (a stored row
        number, not a rank of a value column). None: ids are given by ``zipWithIndex``
        in the DataFrame's partition order. For the chunked algorithms the rows and
        their ids are materialised once (``checkpoint`` when a checkpoint directory is
        set, else ``localCheckpoint``), so every pass reads the same (id, row) pairs;
        a pass that reads other pairs than the first refuses the fit before any
        release.
    features : list of str or None
        The feature columns (None: every column but the target and the id column).
    persist : bool, default True
        Persist the prepared DataFrame (MEMORY_AND_DISK) across the passes (the
        chunked algorithms materialise it instead, see ``id_col``).
    **estimator_params
        :class:`heavydp.PrivateRegressor`'s parameters (``algorithm``, ``epsilon``,
        ``delta``, ``loss``, ``domain``, ``radius``, ``sparsity``, ``fit_intercept``,
        ``scale``, ``preprocess_share``, ``random_state``, ``params``, ``budget``; the
        CLI's flags). ``algorithm`` is one of ``ALGORITHMS`` (the algorithms whose data
        passes are row sums), ``intercept-only`` or ``auto`` (the in-memory rule: it picks
        ``clipped-gd`` or ``intercept-only``). ``loss="logistic"`` returns a
        :class:`heavydp.PrivateClassifier` (classes 0 and 1). The chunked algorithms use
        ``chunking=keyed`` (the default here; other chunkings are refused).
        ``budget`` is charged the fit's planned (epsilon, delta) before the first pass
        (the same function as the in-memory estimators').

    Returns
    -------
    PrivateRegressor (PrivateClassifier for the logistic loss), fitted (``coef_``,
    ``intercept_``, ``privacy_``, ``model_``, ``predict``, ``save``), with
    ``n_passes_``: the Spark jobs that read the DataFrame (the validation job, the
    materialisation of the chunked algorithms, and one per pass of the fit: 4 for the
    private scaling, one per gradient or chunk of the algorithm, 1 or 2 for the
    intercept, and for the private fit check of a regression none when its reads come
    with the intercept's clipped-mean pass (the default), else 1, of a logistic model 1;
    also in ``notes_``). ``verbose=True`` prints each pass on stderr.
    """
    from ._estimators import PrivateClassifier

    logistic = estimator_params.get("loss") == "logistic"
    if estimator_params.get("classes") is not None:
        raise ValueError(
            "heavydp.spark.fit reads the CLI's labels (0/1 or -1/+1, classes_ = [0, 1]); classes= is not supported"
        )
    est = (PrivateClassifier if logistic else PrivateRegressor)(**estimator_params)
    algorithm = est.algorithm
    if algorithm not in ALGORITHMS + ("auto", "intercept-only"):
        raise ValueError(
            f"--algorithm {algorithm}: a distributed fit supports {', '.join(ALGORITHMS)}, intercept-only and auto (their data passes are row sums)"
        )
    params = dict(est.params or {})
    if algorithm in _CHUNKED:
        chunking = params.setdefault("chunking", "keyed")
        if chunking != "keyed":
            raise ValueError(
                f"{algorithm}: a Spark fit needs chunking=keyed (chunk membership computed per row from the row id); got chunking={chunking}"
            )
    est.set_params(params=params)
    opts = est._options()
    # the CLI's checks of names and flags come before the data
    _core.precheck(**opts)
    budget, random_state = est.budget, est.random_state
    chunked = algorithm in _CHUNKED
    counter = [0]
    frame, names, n = _validated_frame(
        df, str(target), features, id_col, logistic, persist and not chunked, materialise=chunked
    )
    try:
        text, messages = _core.fit_distributed(
            n,
            len(names),
            names,
            str(target),
            _make_pass(frame, names, str(target), len(names), bool(est.verbose), counter),
            seed=_seed_of(random_state),
            budget=None if budget is None else budget._core,
            release=f"heavydp.spark.fit ({algorithm})",
            verbose=bool(est.verbose),
            **opts,
        )
    finally:
        if persist or chunked:
            frame.unpersist()
    # the passes over the DataFrame: the validation job (and the materialisation of
    # the chunked algorithms' rows), then the fit's
    est._set_model(text, list(messages))
    est.n_passes_ = (2 if chunked else 1) + counter[0]
    est.notes_.append(
        f"heavydp.spark.fit: {est.n_passes_} passes over the DataFrame"
        f" ({'validation and materialisation: 2' if chunked else 'validation: 1'}; the fit: {counter[0]})"
    )
    est._names = list(names)
    est.feature_names_in_ = np.asarray(names, dtype=object)
    if logistic:
        est.classes_ = np.array([0, 1])
    return est
