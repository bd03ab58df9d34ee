"""heavydp: differentially private regression and classification for heavy-tailed data.

A Python package over the heavydp Rust core (the same algorithms, mechanisms and
privacy accountant as the ``heavydp`` command-line tool; nothing is re-implemented in
Python).

* :class:`PrivateRegressor`, :class:`PrivateClassifier` -- scikit-learn estimators
  running ``heavydp fit`` (``clone``, ``Pipeline``, ``GridSearchCV`` work; note that
  every fit spends privacy budget).
* :func:`private_mean` -- private means of the columns (``heavydp mean``).
* :func:`algorithms`, :func:`mean_estimators` -- the catalogues
  (``heavydp algorithms --json``, ``heavydp mean --list``).
* :func:`simulate` -- the papers' synthetic scenarios (``heavydp simulate``).
* :class:`Budget` -- a privacy budget shared across fits.
* :func:`load` / ``est.save(path)`` -- the CLI's model file (``heavydp-model/2``).

Data: NumPy arrays, pandas DataFrames/Series (column names become feature names), or
anything ``numpy.asarray`` accepts. A C-contiguous float64 array is read in place;
anything else (float32, int, Fortran order, DataFrames with mixed blocks) is converted
once to a C-contiguous float64 array.
"""

import json as _json

from . import _core
from ._estimators import (
    Budget,
    PrivateClassifier,
    PrivateRegressor,
    as_features,
    load,
)

__version__ = _core.__version__
MODEL_FORMAT = _core.MODEL_FORMAT

__all__ = [
    "Budget",
    "PrivateClassifier",
    "PrivateRegressor",
    "algorithms",
    "as_features",
    "default_delta",
    "load",
    "mean_estimators",
    "private_mean",
    "simulate",
]


def algorithms():
    """Every algorithm of the catalogue, then ``auto`` and ``intercept-only``
    (``heavydp algorithms --json``).

    Returns a list of dicts with keys ``name``, ``paper``, ``use_when``, ``privacy``
    (``pure``, ``approx``, ``zcdp``, ``none``), ``losses``, ``domains``, ``parameters``
    (each with its ``name``, ``default``, ``meaning`` and ``source``),
    ``scaled_defaults``, ``intervals``, ``distributed`` (runs in ``heavydp.spark.fit``)
    and ``rule`` (what ``auto`` and ``intercept-only`` do; ``None`` for the others). Any
    ``name`` is a valid ``algorithm=`` of the estimators.
    """
    return _json.loads(_core.algorithms_json())


def mean_estimators():
    """The private mean estimators and their parameters (``heavydp mean --list``)."""
    return _json.loads(_core.mean_estimators_json())


def default_delta(n):
    """The default delta = n^-1.1 used when ``delta=None`` for an (epsilon, delta) algorithm."""
    return _core.default_delta(int(n))


def private_mean(
    X,
    estimator,
    epsilon,
    delta=0.0,
    random_state=None,
    budget=None,
    scale="none",
    preprocess_share=None,
    **params,
):
    """A differentially private mean of every column of ``X`` (``heavydp mean``).

    Parameters
    ----------
    X : array-like or DataFrame of shape (n, d)
        The records (one per row). A C-contiguous float64 array is read in place.
    estimator : str
        One of ``clip``, ``iterative-updating``, ``catoni``, ``sparse-peeling``
        (see :func:`mean_estimators` for their parameters).
    epsilon : float
        The privacy budget epsilon (> 0; ``float('inf')`` for the non-private mean).
    delta : float, default 0.0
        The privacy budget delta (in [0, 1)); the (epsilon, delta) estimators need > 0.
    random_state : int or None
        An int gives the CLI's ``--seed`` stream (ChaCha20); None seeds from the OS.
        Keep a seed secret (anyone who knows it can re-run the release on candidate
        datasets); it is never part of the result, and a seeded finite-epsilon release
        says so in ``notes``.
    budget : Budget or None
        Charged (epsilon, delta) before the release; raises ValueError when it would
        be overspent (then nothing is computed).
    scale : {"none", "private"} or "public:FILE.json", default "none"
        Column scaling before the estimator (``heavydp mean --scale``): ``"private"``
        spends ``preprocess_share`` of the budget on each column's private quartiles and
        returns them in ``scales``; a public file declares centres/scales or ranges
        (a range bounds its column). With scaling, ``params`` are in robust standard
        deviations and a missing ``tau`` / ``M`` is 1.
    preprocess_share : float or None
        Share of epsilon and delta for ``scale="private"`` (default 0.2).
    **params
        The estimator's parameters (the CLI's ``--param KEY=VALUE``), e.g. ``tau=3``.

    Returns
    -------
    dict with ``mean`` (ndarray of shape (d,)), ``columns`` (names), ``privacy`` (what
    was spent: epsilon, delta, accountant, every charge and, with private scaling, the
    two phases), ``hyperparameters``, ``notes`` and ``scales`` (None without scaling;
    otherwise ``{column: {centre, scale, iqr, quartiles}}``, the format
    ``scale="public:FILE.json"`` of the estimators reads when saved as ``{"scales": ...}``).
    """
    from ._estimators import _check_budget, _params_to_str, _seed_of, as_features

    x, names = as_features(X)
    _check_budget(budget)
    mean, privacy, hyper, notes, scales = _core.private_mean(
        x,
        str(estimator),
        float(epsilon),
        float(delta),
        _params_to_str(params),
        _seed_of(random_state),
        None if budget is None else budget._core,
        f"private_mean ({estimator})",
        str(scale),
        None if preprocess_share is None else float(preprocess_share),
        [str(n) for n in names] if names is not None else [],
    )
    return {
        "mean": mean,
        "columns": names,
        "privacy": _json.loads(privacy),
        "hyperparameters": _json.loads(hyper),
        "notes": list(notes),
        "scales": _json.loads(scales),
    }


def simulate(scenario, n, d, sparsity=None, random_state=None, **params):
    """Synthetic data of one of the papers' scenarios (``heavydp simulate``).

    Returns ``(X, y, w_star)``: X of shape (n, d), y of shape (n,) and the true weight
    vector. The same ``random_state`` as the CLI's ``--seed`` gives the same data.
    Scenario parameters (e.g. ``zeta`` for ``tian-sparse-student``) are keywords.
    """
    from ._estimators import _seed_of

    x, y, w_star, _names, _target = _core.simulate(
        str(scenario),
        int(n),
        int(d),
        None if sparsity is None else int(sparsity),
        {str(k): float(v) for k, v in params.items()},
        _seed_of(random_state),
    )
    return x, y, w_star
