"""scikit-learn estimators over ``heavydp._core`` (the Rust pipeline of ``heavydp fit``)."""

import json
import textwrap
import numbers

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_is_fitted, validate_data

from . import _core


def as_features(X):
    """``(array, names)``: X as a C-contiguous float64 2-D array and its column names.

    A C-contiguous float64 ndarray is returned as is (no copy); anything else is
    converted once. DataFrame column names become the names; otherwise ``None``.
    """
    names = None
    cols = getattr(X, "columns", None)
    if cols is not None:
        names = [str(c) for c in cols]
    x = np.ascontiguousarray(X, dtype=np.float64)
    if x.ndim != 2:
        raise ValueError(f"X must be 2-dimensional (n, d); got {x.ndim} dimension(s)")
    return x, names


def _seed_of(random_state):
    """None -> OS entropy; an int -> the CLI's --seed; a RandomState/Generator -> one draw."""
    if random_state is None:
        return None
    if isinstance(random_state, (bool, np.bool_)):
        raise TypeError("random_state must be None, an int >= 0 or a numpy RandomState/Generator")
    if isinstance(random_state, numbers.Integral):
        if random_state < 0 or random_state >= 2**64:
            raise ValueError(f"random_state must be in [0, 2^64); got {random_state}")
        return int(random_state)
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(0, 2**63 - 1, dtype=np.int64))
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(0, 2**63 - 1))
    raise TypeError("random_state must be None, an int >= 0 or a numpy RandomState/Generator")


def _param_value(v):
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    if isinstance(v, numbers.Integral):
        return str(int(v))
    if isinstance(v, numbers.Real):
        return repr(float(v))
    if isinstance(v, str):
        return v
    raise TypeError(f"parameter values must be numbers or strings; got {type(v).__name__}")


def _params_to_str(params):
    if params is None:
        return {}
    if not isinstance(params, dict):
        raise TypeError(f"params must be a dict; got {type(params).__name__}")
    return {str(k): _param_value(v) for k, v in params.items()}


def _check_budget(budget):
    if budget is not None and not isinstance(budget, Budget):
        raise TypeError(f"budget must be a heavydp.Budget or None; got {type(budget).__name__}")


def _opt_float(name, v):
    if v is None:
        return None
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real):
        raise TypeError(f"{name} must be a number or None; got {type(v).__name__}")
    return float(v)


def _opt_str(name, v):
    if v is None:
        return None
    if not isinstance(v, str):
        raise TypeError(f"{name} must be a string or None; got {type(v).__name__}")
    return v


class Budget:
    """A privacy budget shared by several fits and means.

    Pass it as ``budget=`` to :class:`PrivateRegressor`, :class:`PrivateClassifier`,
    :func:`heavydp.private_mean` or :func:`heavydp.spark.fit`. Each fit charges its
    planned (epsilon, delta) to the budget *before* it reads the data: the budget the
    fit's own ledger gets (one function of the core, ``pipeline::planned_privacy``),
    so the charge is never less than what the model's ``privacy`` reports. A fit
    that may spend delta (an (epsilon, delta) algorithm; a pure one with
    ``delta=None`` and private scaling, whose scaling uses the default delta n^-1.1)
    is refused by a Budget with delta = 0, with the reason and what to pass. When the
    charge would overspend, a ValueError is raised and the fit does not run.
    Composition is basic (epsilons and deltas add), with the arithmetic rounded up,
    and every charge is recorded (see :attr:`ledger`). A charged fit that then fails
    keeps its charge (conservative). A negative, NaN or infinite charge is refused
    (see :meth:`charge`).

    Parameters
    ----------
    epsilon : float
        Total epsilon (> 0).
    delta : float, default 0.0
        Total delta, in [0, 1).
    """

    def __init__(self, epsilon, delta=0.0):
        self._core = _core.Budget(float(epsilon), float(delta))

    @property
    def total(self):
        """The total (epsilon, delta)."""
        return self._core.total

    @property
    def spent(self):
        """(epsilon, delta) charged so far (rounded up)."""
        return self._core.spent

    @property
    def remaining(self):
        """(epsilon, delta) still available (rounded down)."""
        return self._core.remaining

    @property
    def ledger(self):
        """The ledger: totals, accountant and every charge (a dict)."""
        return json.loads(self._core.summary_json())

    def charge(self, epsilon, delta=0.0, label="manual charge"):
        """Charges (epsilon, delta) for a release made elsewhere; ValueError on
        overspend, and on a cost that is negative, NaN, or infinite (epsilon) or
        outside [0, 1) (delta): a negative charge would refund budget and a NaN one
        would disable every later refusal. A refused charge changes nothing."""
        self._core.charge(str(label), float(epsilon), float(delta))

    def __repr__(self):
        (e, d), (se, sd) = self.total, self.spent
        return f"Budget(epsilon={e!r}, delta={d!r}; spent epsilon={se!r}, delta={sd!r})"

    def __deepcopy__(self, memo):
        # clone()/deepcopy of an estimator share the budget (it is an account, not a
        # hyperparameter value)
        return self


_COMMON_DOC = """
    Parameters
    ----------
    algorithm : str, default "auto"
        Any name of :func:`heavydp.algorithms` (e.g. ``"clipped-gd"``,
        ``"dp-frank-wolfe"``, ``"ht-sparse-linreg"``), ``"auto"`` (a public rule of
        n, d, epsilon and the task: the private intercept alone when n*epsilon < 2*d,
        otherwise clipped-gd on privately standardised columns) or
        ``"intercept-only"``.
    epsilon : float, default 1.0
        Privacy budget epsilon (> 0). ``float("inf")`` runs the same code without noise
        and reproduces the non-private algorithm exactly.
    delta : float or None, default None
        Privacy budget delta in [0, 1). None: n^-1.1 for (epsilon, delta)/zCDP
        algorithms (a note is added to ``notes_``), 0 for pure ones.
    loss : str or None, default None
        The loss (``squared``, ``huber``, ``absolute``, ``logistic``, ...); None: the
        algorithm's default. {loss_note}
    domain : str or None, default None
        The constraint set (``l1-ball``, ``l2-ball``, ``sparse``, ``unconstrained``,
        ...); None: the algorithm's default.
    radius : float or None, default None
        The domain's radius (``--radius``).
    sparsity : int or None, default None
        The sparsity s of sparse domains/algorithms (``--sparsity``).
    fit_intercept : bool, default True
        Learn the intercept under DP (part of the preprocessing share of the budget).
        False: the model has no intercept (``--intercept none``).
    scale : str, default "private"
        ``"private"``: centres and scales of the columns are learned under DP and the
        algorithm runs on standardised (winsorised) columns; ``"none"``: the raw
        columns; ``"public:FILE.json"``: public centres/scales from a file.
    preprocess_share : float or None, default None
        Fraction of epsilon and delta for the private scales and intercept (in (0, 1));
        None: the library default.
    random_state : int, numpy RandomState/Generator or None, default None
        None: noise seeded from the OS. An int K: the same ChaCha20 stream as the CLI's
        ``--seed K`` (bit-identical weights for the same data and parameters). A seed
        is for tests and reproduction: keep it secret (anyone who knows it can re-run
        the fit on candidate datasets and recognise the one that reproduces the
        weights); it is never written into ``model_`` or a saved file, and a seeded
        finite-epsilon fit says so in ``notes_``.
    params : dict or None, default None
        Algorithm hyperparameters (the CLI's ``--param KEY=VALUE``), e.g.
        ``{{"bound": 5, "T": 200}}``; see ``heavydp.algorithms()`` for each algorithm's.
    budget : Budget or None, default None
        A :class:`Budget` charged before each fit with the fit's planned (epsilon,
        delta) -- the budget its own ledger gets, so never less than ``privacy_``
        reports. A Budget without delta refuses a fit that may spend delta (an
        (epsilon, delta) algorithm, or a pure one with ``delta=None`` and
        ``scale="private"``, whose scaling uses the default delta): pass ``delta=0``
        for a pure fit.
    n_jobs : int or None, default None
        Threads of the fit. None: the global rayon pool, as the CLI (all cores, or the
        ``RAYON_NUM_THREADS`` environment variable); k: a pool of k threads. The GIL is
        released during the fit, and Ctrl-C interrupts it (KeyboardInterrupt).
    copy_X : bool, default True
        True: X is never written. A C-contiguous float64 X is read in place: the
        algorithms that read through the lazy standardisation (``clipped-gd`` -- the
        ``auto`` choice --, ``iterative-updating-gd``, ``adassp``, ``dp-iht-huber``,
        ``dp-iht-l1``, ``dp-slr``, ``ht-sparse-linreg``) fit with no copy; the others
        copy X once, standardised (peak memory about twice X). False: a C-contiguous,
        writable float64 X is standardised in place and *overwritten* (no copy for any
        algorithm; like scikit-learn's ``copy_X=False``). Other inputs (float32,
        Fortran order, ...) are converted once either way.
    intervals : float or None, default None
        A confidence level (e.g. 0.95): the fit also computes confidence intervals of
        every coefficient and the intercept (the CLI's ``--intervals``), from released
        values only (no privacy cost, the same weights); see ``conf_int`` and
        ``summary``. Algorithms with ``intervals: True`` in :func:`heavydp.algorithms`
        (``adassp``); any other algorithm is an error.
    verbose : bool, default False
        Print the fit's progress on stderr: when the preprocessing (plan, private
        scaling) is done, the algorithm's planned steps, the step reached with an
        estimate of the time left (every 2 s), and, for ``heavydp.spark.fit``, each pass
        over the DataFrame with its kind and time. Only step and pass counts and clock
        times are printed, nothing computed from the data; ``notes_`` is unchanged.

    Attributes
    ----------
    coef_ : ndarray of shape {coef_shape}
        The weights in the units of the raw columns.
    intercept_ : {intercept_type}
        The intercept (0 when ``fit_intercept=False``).
    n_features_in_ : int
        Number of features seen by ``fit``.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Column names of a DataFrame X (only then).
    privacy_ : dict
        What the fit spent: ``epsilon``, ``delta``, ``rho`` (zCDP), ``model``,
        ``accountant``, ``budget_epsilon``/``budget_delta`` and every charge
        (``ledger``, and ``phases`` per preprocessing/algorithm/intercept/check phase;
        ``model_["preprocessing"]["fit_check"]`` has the private fit check's released
        statistic and whether the fitted model was kept).
    hyperparameters_ : dict
        Every hyperparameter actually used (defaults resolved).
    notes_ : list of str
        Public remarks of the fit (defaults applied, caps, the auto choice).
    model_ : dict
        The whole model file (``heavydp-model/2``), as ``save`` writes it.
"""


class _PrivateBase(BaseEstimator):
    _task = None  # "regression" | "classification"

    def __init__(
        self,
        algorithm="auto",
        epsilon=1.0,
        delta=None,
        loss=None,
        domain=None,
        radius=None,
        sparsity=None,
        fit_intercept=True,
        scale="private",
        preprocess_share=None,
        random_state=None,
        params=None,
        budget=None,
        n_jobs=None,
        copy_X=True,
        intervals=None,
        verbose=False,
    ):
        self.algorithm = algorithm
        self.epsilon = epsilon
        self.delta = delta
        self.loss = loss
        self.domain = domain
        self.radius = radius
        self.sparsity = sparsity
        self.fit_intercept = fit_intercept
        self.scale = scale
        self.preprocess_share = preprocess_share
        self.random_state = random_state
        self.params = params
        self.budget = budget
        self.n_jobs = n_jobs
        self.copy_X = copy_X
        self.intervals = intervals
        self.verbose = verbose

    def _private_tags(self, tags):
        # Private fits add noise by design: scores are below the thresholds sklearn's
        # generic checks expect of exact estimators.
        if tags.regressor_tags is not None:
            tags.regressor_tags.poor_score = True
        if tags.classifier_tags is not None:
            tags.classifier_tags.poor_score = True
            tags.classifier_tags.multi_class = False
        tags.non_deterministic = self.random_state is None
        return tags

    # --- helpers -----------------------------------------------------------------
    def _loss_for_fit(self):
        return _opt_str("loss", self.loss)

    def _options(self):
        if not isinstance(self.algorithm, str):
            raise TypeError(f"algorithm must be a string; got {type(self.algorithm).__name__}")
        eps = _opt_float("epsilon", self.epsilon)
        if eps is None:
            raise TypeError("epsilon must be a number; got None")
        sparsity = self.sparsity
        if sparsity is not None:
            if isinstance(sparsity, (bool, np.bool_)) or not isinstance(sparsity, numbers.Integral):
                raise TypeError(f"sparsity must be an int or None; got {type(sparsity).__name__}")
            if sparsity < 0:
                raise ValueError(f"sparsity must be >= 0; got {sparsity}")
            sparsity = int(sparsity)
        if not isinstance(self.fit_intercept, (bool, np.bool_)):
            raise TypeError(f"fit_intercept must be True or False; got {self.fit_intercept!r}")
        if not isinstance(self.scale, str):
            raise TypeError(f"scale must be a string; got {type(self.scale).__name__}")
        if self.n_jobs is not None and (
            isinstance(self.n_jobs, bool) or not isinstance(self.n_jobs, numbers.Integral)
        ):
            raise TypeError(f"n_jobs must be an int or None; got {type(self.n_jobs).__name__}")
        _check_budget(self.budget)
        if not isinstance(self.verbose, (bool, np.bool_)):
            raise TypeError(f"verbose must be True or False; got {self.verbose!r}")
        return dict(
            algorithm=self.algorithm,
            epsilon=eps,
            delta=_opt_float("delta", self.delta),
            loss=self._loss_for_fit(),
            domain=_opt_str("domain", self.domain),
            radius=_opt_float("radius", self.radius),
            sparsity=sparsity,
            params=_params_to_str(self.params),
            intercept="private" if self.fit_intercept else "none",
            scale=self.scale,
            preprocess_share=_opt_float("preprocess_share", self.preprocess_share),
            intervals=_opt_float("intervals", self.intervals),
        )

    def _fit_arrays(self, X, y, target):
        opts = self._options()
        # the CLI's checks of names and flags come before the data
        _core.precheck(**opts)
        seed = _seed_of(self.random_state)
        x = X if (X.dtype == np.float64 and X.flags.c_contiguous) else np.ascontiguousarray(X, np.float64)
        in_place = (not self.copy_X) and x.flags.writeable
        n_jobs = self.n_jobs
        if n_jobs is not None and n_jobs < 0:
            n_jobs = None  # scikit-learn's -1: all cores (the global pool)
        text, messages = _core.fit(
            x,
            np.ascontiguousarray(y, dtype=np.float64),
            list(self._names),
            target,
            seed=seed,
            in_place=in_place,
            n_jobs=n_jobs,
            budget=None if self.budget is None else self.budget._core,
            release=f"{type(self).__name__}.fit ({self.algorithm})",
            verbose=bool(self.verbose),
            **opts,
        )
        self._set_model(text, list(messages))
        return self

    def _set_model(self, text, messages):
        m = json.loads(text)
        self._model_json = text
        self.model_ = m
        w = np.asarray(m["weights"], dtype=np.float64)
        self.privacy_ = m["privacy"]
        self.hyperparameters_ = m.get("hyperparameters", {})
        self.notes_ = messages + list(m.get("notes") or [])
        self.n_features_in_ = int(m["d"])
        self._names = list(m["features"])
        if self._task == "classification":
            self.coef_ = w.reshape(1, -1)
            self.intercept_ = np.array([float(m["intercept"])])
        else:
            self.coef_ = w
            self.intercept_ = float(m["intercept"])

    def _feature_names(self, d):
        names = getattr(self, "feature_names_in_", None)
        if names is not None:
            return [str(c) for c in names]
        return [f"x{j}" for j in range(1, d + 1)]

    def _prepare(self, X, y):
        X, y = validate_data(
            self, X, y, dtype=np.float64, order="C", y_numeric=self._task == "regression",
            copy=False,
        )
        self._names = self._feature_names(X.shape[1])
        return X, y

    def _validated(self, X):
        check_is_fitted(self, "model_")
        return validate_data(self, X, reset=False, dtype=np.float64, order="C")

    def _raw_predict(self, X):
        X = self._validated(X)
        return _core.predict(self._model_json, X)

    def save(self, path):
        """Writes the model in the CLI's model-file format (``heavydp-model/2``):
        ``heavydp predict --model PATH`` and :func:`heavydp.load` read it. The file
        never holds ``random_state`` (a released noise seed would let anyone re-run the
        fit on candidate datasets)."""
        check_is_fitted(self, "model_")
        _core.write_model(self._model_json, str(path))


class PrivateRegressor(RegressorMixin, _PrivateBase):
    __doc__ = (
        """Differentially private linear regression (``heavydp fit``) as a scikit-learn regressor.

    Fits ``y ~ <x, coef_> + intercept_`` with one of heavydp's private algorithms,
    spending at most (epsilon, delta): the privacy accounting is the Rust core's and is
    reported in ``privacy_``. Same seed, data and parameters as the CLI give
    bit-identical weights. With private scaling, a fit whose model would be the private
    median of the responses at n*epsilon < 56.2 (too few rows to locate even the median
    on the public grid) raises ValueError, whatever the algorithm: declare the target's
    range with ``scale="public:FILE.json"`` or give a larger epsilon.

    Examples
    --------
    >>> import heavydp
    >>> X, y, w = heavydp.simulate("hu-linear-lognormal", 5000, 5, random_state=1)
    >>> est = heavydp.PrivateRegressor(epsilon=1.0, random_state=7).fit(X, y)
    >>> est.privacy_["epsilon"] <= 1.0
    True
"""
        + _COMMON_DOC.format(
            loss_note="Regression losses: squared, huber, absolute, biweight, ...",
            coef_shape="(n_features_in_,)",
            intercept_type="float",
        )
    )
    _task = "regression"

    def __sklearn_tags__(self):
        return self._private_tags(super().__sklearn_tags__())

    def fit(self, X, y):
        """Fits on X (n, d) and y (n,); a DataFrame's column names are kept
        (``feature_names_in_``) and a Series' name becomes the target name."""
        target = str(getattr(y, "name", None) or "y")
        X, y = self._prepare(X, y)
        return self._fit_arrays(X, y, target)

    def predict(self, X):
        """Predicted values <clip(x), coef_> + intercept_ (features clipped to the
        model's bounds when it was fitted on privately scaled columns)."""
        return self._raw_predict(X)

    def _intervals(self, alpha=None):
        check_is_fitted(self, "model_")
        iv = self.model_.get("intervals")
        if iv is None:
            raise ValueError(
                "the model has no confidence intervals: fit with intervals=0.95 (or another "
                "level) and an algorithm with intervals (heavydp.algorithms(), field "
                "'intervals': adassp, and clipped-gd with the squared loss on scaled columns, "
                "which algorithm='auto' picks)"
            )
        if alpha is not None:
            level = 1.0 - float(alpha)
            if abs(level - float(iv["level"])) > 1e-9:
                raise ValueError(
                    f"the model's intervals are at level {iv['level']}; conf_int(alpha={alpha}) "
                    f"needs a fit with intervals={level:g}"
                )
        return iv

    def _terms(self, iv):
        terms = []
        if iv.get("intercept") is not None:
            terms.append(iv["intercept"])
        terms.extend(iv["coefficients"])
        return terms

    def conf_int(self, alpha=0.05):
        """Confidence intervals, statsmodels-style: an array of shape (k, 2) with
        rows [lower, upper], the intercept first (when it has one) and then the
        coefficients in column order. ``alpha`` must match the fit's ``intervals``
        level (1 - alpha); the names of the rows are in ``summary()``.

        The intervals cover sampling *and* privacy noise, for the parameter of the
        clipped, privately standardised problem mapped to raw units (see ``summary()``
        and ``docs/inference.md``)."""
        iv = self._intervals(alpha)
        return np.array(
            [[_bound(t["lower"], -np.inf), _bound(t["upper"], np.inf)] for t in self._terms(iv)],
            dtype=np.float64,
        )

    def summary(self):
        """A statsmodels-like table of the fit: coefficient, standard error and the
        confidence interval of the intercept and each coefficient, with a note on what
        the intervals cover. Needs a fit with ``intervals=LEVEL``."""
        iv = self._intervals()
        return RegressionSummary(self.model_, iv, self._terms(iv))


def _bound(v, default):
    # an unbounded side (noise swamps the fit) is null in the model file
    return default if v is None else float(v)


class RegressionSummary:
    """The table of :meth:`PrivateRegressor.summary` (``str()`` or ``print`` it)."""

    def __init__(self, model, intervals, terms):
        self.model = model
        self.intervals = intervals
        self.terms = terms

    def as_text(self):
        iv = self.intervals
        level = float(iv["level"])
        lo, hi = (1 - level) / 2, 1 - (1 - level) / 2
        m = self.model
        algo = m.get("algorithm", "")
        if m.get("selected"):
            algo = f"{algo} -> {m['selected'].get('algorithm')}"
        priv = m.get("privacy", {})
        width = 78
        names = [str(t["name"]) for t in self.terms]
        nw = max([12] + [len(n) + 2 for n in names])
        lines = [
            f"heavydp private regression ({algo}), n = {m.get('n')}, "
            f"epsilon = {priv.get('epsilon')}, delta = {priv.get('delta')}".center(width),
            "=" * width,
            f"{'':<{nw}}{'coef':>12}{'std err':>12}{f'[{lo:.3g}':>14}{f'{hi:.3g}]':>14}",
            "-" * width,
        ]
        for n, t in zip(names, self.terms):
            se = _bound(t["std_error"], np.inf)
            lower, upper = _bound(t["lower"], -np.inf), _bound(t["upper"], np.inf)
            lines.append(
                f"{n:<{nw}}{t['estimate']:>12.4g}{se:>12.4g}{lower:>14.4g}{upper:>14.4g}"
            )
        lines.append("=" * width)
        notes = [
            f"{level:g} intervals by {iv['method']}; {iv['replicates']} replicates.",
            f"They cover {iv['covers']}.",
        ]
        notes.extend(iv.get("notes") or [])
        for k, note in enumerate(notes, 1):
            lines.extend(textwrap.wrap(f"[{k}] {note}", width))
        return "\n".join(lines)

    def __str__(self):
        return self.as_text()

    def __repr__(self):
        return self.as_text()


class PrivateClassifier(ClassifierMixin, _PrivateBase):
    __doc__ = (
        """Differentially private binary logistic regression (``heavydp fit --loss logistic``).

    The label set is public: ``classes=[negative, positive]`` (mapped to the CLI's 0
    and 1), or, by default, the labels 0 and 1. Neither class needs to occur in y: a y
    of one class (a rare outcome that no record has) fits like any other (the private
    base rate), so whether a class occurs is never revealed by an error. ``predict_proba``
    gives P(class) from the private model.

    Without ``classes`` and with labels other than 0/1 (e.g. -1/+1 or strings), the two
    classes are read from y (scikit-learn's convention): then ``classes_`` reveals which
    labels occur in the data -- not differentially private, and y must hold exactly two
    labels. Pass ``classes`` for a private fit with such labels.
"""
        + _COMMON_DOC.format(
            loss_note="Only ``logistic`` (the default, None) is a classification loss.",
            coef_shape="(1, n_features_in_)",
            intercept_type="ndarray of shape (1,)",
        )
        + """    classes : sequence of two labels or None, default None
        The public label set [negative, positive]; y may hold only these (either may
        be absent from y). None: [0, 1] when every label of y is 0 or 1; otherwise the
        two labels of y (read from the data, see above).
    classes_ : ndarray of shape (2,)
        The two class labels: ``classes`` (or [0, 1]); read from y only in the
        case above (a model loaded from a file: [0, 1], the CLI's labels).
"""
    )
    _task = "classification"

    def __init__(
        self,
        algorithm="auto",
        epsilon=1.0,
        delta=None,
        loss=None,
        domain=None,
        radius=None,
        sparsity=None,
        fit_intercept=True,
        scale="private",
        preprocess_share=None,
        random_state=None,
        params=None,
        budget=None,
        n_jobs=None,
        copy_X=True,
        classes=None,
        verbose=False,
    ):
        super().__init__(
            algorithm=algorithm,
            epsilon=epsilon,
            delta=delta,
            loss=loss,
            domain=domain,
            radius=radius,
            sparsity=sparsity,
            fit_intercept=fit_intercept,
            scale=scale,
            preprocess_share=preprocess_share,
            random_state=random_state,
            params=params,
            budget=budget,
            n_jobs=n_jobs,
            copy_X=copy_X,
            verbose=verbose,
        )
        self.classes = classes

    def __sklearn_tags__(self):
        return self._private_tags(super().__sklearn_tags__())

    def _loss_for_fit(self):
        loss = _opt_str("loss", self.loss)
        if loss not in (None, "logistic"):
            raise ValueError(
                f"PrivateClassifier fits the logistic loss; got loss='{loss}' (use PrivateRegressor)"
            )
        return "logistic"

    def _public_classes(self):
        """The declared label set as an array of two distinct labels, or None."""
        if self.classes is None:
            return None
        classes = np.asarray(self.classes)
        if classes.ndim != 1 or len(classes) != 2 or classes[0] == classes[1]:
            raise ValueError(
                f"classes must be two distinct labels [negative, positive]; got {self.classes!r}"
            )
        return classes

    def fit(self, X, y):
        """Fits on X (n, d) and binary labels y (n,): labels of ``classes`` (default
        0 and 1); either class may be absent."""
        target = str(getattr(y, "name", None) or "y")
        classes = self._public_classes()
        X, y = self._prepare(X, y)
        y = np.asarray(y)
        if classes is None:
            zero_one = y.dtype.kind in "biuf" and bool(np.all((y == 0) | (y == 1)))
            if zero_one:
                # the public default: nothing about the classes is read from y
                classes = np.array([0, 1])
            else:
                # scikit-learn's convention (classes_ reveals the labels that occur)
                kind = type_of_target(y)
                if kind not in ("binary", "multiclass"):
                    raise ValueError(f"Unknown label type: {kind} (PrivateClassifier is binary)")
                found = np.unique(y)
                if kind != "binary" or len(found) != 2:
                    raise ValueError(
                        "Only binary classification is supported. The type of the target "
                        f"is {kind} ({len(found)} classes). Labels other than 0/1 are read "
                        "from y only when it holds exactly two: pass classes=[negative, "
                        "positive] to declare them (either may then be absent)"
                    )
                classes = found
        positive = y == classes[1]
        if not bool(np.all(positive | (y == classes[0]))):
            raise ValueError(
                "y holds a label that is not one of classes = "
                f"[{classes[0]!r}, {classes[1]!r}] (PrivateClassifier is binary)"
            )
        self._fit_arrays(X, positive.astype(np.float64), target)
        self.classes_ = classes
        return self

    def decision_function(self, X):
        """The margin <clip(x), coef_> + intercept_ of every row (log-odds of classes_[1])."""
        X = self._validated(X)
        return _core.predict(self._model_json, X, margins=True)

    def predict_proba(self, X):
        """[P(classes_[0]), P(classes_[1])] for every row, shape (n, 2)."""
        p1 = self._raw_predict(X)
        return np.column_stack([1.0 - p1, p1])

    def predict(self, X):
        """The more probable class of every row (P(classes_[1]) >= 1/2)."""
        p1 = self._raw_predict(X)
        return self.classes_[(p1 >= 0.5).astype(int)]


def load(path):
    """Reads a model file of the CLI (``heavydp fit --out``) or of ``est.save``.

    Returns a fitted :class:`PrivateClassifier` (logistic loss) or
    :class:`PrivateRegressor`, ready for ``predict``; its constructor parameters
    reflect the file (algorithm, epsilon, ...). ``random_state`` stays None: a
    released file carries no noise seed (a ``seed`` field of an older file is
    ignored), so a refit draws fresh noise.
    """
    text = _core.read_model(str(path))
    m = json.loads(text)
    cls = PrivateClassifier if m["loss"] == "logistic" else PrivateRegressor
    priv = m.get("privacy") or {}
    eps = priv.get("budget_epsilon")
    est = cls(
        algorithm=m.get("algorithm", "auto"),
        epsilon=float("inf") if eps is None else eps,
        delta=priv.get("budget_delta"),
        loss=m["loss"],
        fit_intercept=(m.get("preprocessing") or {}).get("intercept", "none") == "private",
    )
    est._set_model(text, [])
    names = list(m["features"])
    if names != [f"x{j}" for j in range(1, len(names) + 1)]:
        est.feature_names_in_ = np.asarray(names, dtype=object)
    if cls is PrivateClassifier:
        est.classes_ = np.array([0, 1])
    return est
