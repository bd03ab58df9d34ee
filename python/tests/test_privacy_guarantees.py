"""The guarantees of docs/privacy.md that the Python layer must keep: the Budget charge
covers what a fit spends (and a pure Budget refuses a fit that spends delta), bad
charges are refused, the classifier's label set is public (single-class labels fit like
their neighbours), and no released file carries the noise seed."""

import json
import math
import re

import numpy as np
import pytest

import heavydp

# algorithms whose default domain is sparse (they need a sparsity)
SPARSE = {"ht-sparse-linreg", "ht-sparse-opt", "dp-slr", "dp-iht-huber", "dp-iht-l1", "adahuber"}


@pytest.fixture(scope="module")
def data():
    X, y, _ = heavydp.simulate("hu-linear-lognormal", 2000, 3, random_state=4)
    return X, y


def _catalogue():
    names = [a["name"] for a in heavydp.algorithms()]
    return names + [x for x in ("auto", "intercept-only") if x not in names]


def _kwargs(name, params_of):
    kw = dict(algorithm=name, epsilon=1.0, random_state=7)
    params = {}
    p = params_of.get(name, set())
    if "bound" in p:
        params["bound"] = 5
    if "T" in p:
        params["T"] = 3
    if name == "adahuber":
        params["lambda"] = 0.1
    if name in SPARSE:
        kw["sparsity"] = 2
    if params:
        kw["params"] = params
    return kw


def _cases():
    params_of = {a["name"]: {p["name"] for p in a.get("parameters", [])} for a in heavydp.algorithms()}
    privacy_of = {a["name"]: a.get("privacy") for a in heavydp.algorithms()}
    out = []
    for name in _catalogue():
        for delta in (None, 1e-6):
            for scale in ("private", "none"):
                out.append((name, delta, scale, _kwargs(name, params_of), privacy_of.get(name)))
    return out


@pytest.mark.parametrize(
    "name,delta,scale,kw,privacy", _cases(), ids=lambda v: str(v) if not isinstance(v, dict) else ""
)
def test_budget_charge_covers_what_the_fit_spends(data, name, delta, scale, kw, privacy):
    """Guarantee 1: the Budget's recorded spend >= the model's privacy (epsilon and delta),
    equal to the fit's own ledger budget; a pure Budget refuses a fit that spends delta."""
    X, y = data
    kw = dict(kw, delta=delta, scale=scale)
    if privacy == "none":
        # not private: no finite budget pays for it, and the fit says so
        b = heavydp.Budget(100.0, 0.5)
        with pytest.raises(ValueError, match="is not private"):
            heavydp.PrivateRegressor(budget=b, **kw).fit(X, y)
        assert b.spent == (0.0, 0.0)
        est = heavydp.PrivateRegressor(**kw).fit(X, y)
        assert any("NOT differentially private" in n for n in est.notes_)
        assert any("NOT differentially private" in n for n in est.model_["notes"])
        return
    b = heavydp.Budget(100.0, 0.5)
    est = heavydp.PrivateRegressor(budget=b, **kw).fit(X, y)
    p = est.privacy_
    spent_e, spent_d = b.spent
    assert spent_e >= p["epsilon"] and spent_d >= p["delta"], (b.spent, p)
    # the charge is the fit's whole budget (a one-phase summary reports its phase's
    # share, at most that)
    assert spent_e == kw["epsilon"]
    assert spent_e >= p["budget_epsilon"] and spent_d >= p["budget_delta"]
    assert p["epsilon"] <= 1.0
    pure = heavydp.Budget(100.0, 0.0)
    if p["budget_delta"] > 0:
        with pytest.raises(ValueError, match=r"may spend delta = .*pass delta=0 for a pure fit"):
            heavydp.PrivateRegressor(budget=pure, **kw).fit(X, y)
        assert pure.spent == (0.0, 0.0)
    else:
        assert p["delta"] == 0.0
        heavydp.PrivateRegressor(budget=pure, **kw).fit(X, y)
        assert pure.spent == (1.0, 0.0)


def test_a_pure_algorithm_with_default_delta_is_refused_by_a_pure_budget(data):
    """The reproduced hole: ht-frank-wolfe, delta=None, scale="private" spends delta on
    the scaling; Budget(1, 0) must refuse it, and delta=0 makes it pure."""
    X, y = data
    b = heavydp.Budget(1.0, 0.0)
    est = heavydp.PrivateRegressor(algorithm="ht-frank-wolfe", epsilon=1.0, budget=b, random_state=1)
    with pytest.raises(ValueError) as e:
        est.fit(X, y)
    msg = str(e.value)
    assert "may spend delta" in msg and "private scaling" in msg and "delta=0" in msg, msg
    assert b.spent == (0.0, 0.0)
    est.set_params(delta=0.0).fit(X, y)
    assert est.privacy_["model"] == "pure" and b.spent == (1.0, 0.0)


@pytest.mark.parametrize(
    "eps,delta",
    [(-5.0, 0.0), (float("nan"), 0.0), (float("inf"), 0.0), (float("-inf"), 0.0),
     (0.1, -1e-6), (0.1, float("nan")), (0.1, 1.0), (0.1, float("inf")), (float("nan"), 1e-9)],
)
def test_bad_charges_are_refused_and_change_nothing(eps, delta):
    """Guarantee 2: negative, NaN and infinite costs are refused; the budget is unchanged
    and still refuses an overspend (checked with `not (spent <= total)` so NaN fails)."""
    b = heavydp.Budget(1.0, 1e-6)
    b.charge(0.25, label="first")
    before = (b.spent, b.remaining, json.dumps(b.ledger))
    with pytest.raises(ValueError):
        b.charge(eps, delta)
    assert (b.spent, b.remaining, json.dumps(b.ledger)) == before
    # five refunds cannot make room for more than the budget
    for _ in range(5):
        with pytest.raises(ValueError):
            b.charge(-1.0)
    with pytest.raises(ValueError):
        b.charge(1.0)
    spent_e, spent_d = b.spent
    assert spent_e <= 1.0 and spent_d <= 1e-6
    assert not math.isnan(spent_e) and not math.isnan(spent_d)


def _masked(text):
    return re.sub(r"[-+]?\d[\d.eE+-]*", "#", text)


@pytest.mark.parametrize("algorithm", ["auto", "clipped-gd", "intercept-only"])
def test_classifier_on_neighbouring_single_class_labels(algorithm, capfd):
    """Guarantee 3: all-zero labels and the same labels with one flipped both fit (the
    private base rate where there is nothing else), with the same notes and stderr
    once the numbers are masked."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((3000, 3))
    y0 = np.zeros(len(X))
    y1 = y0.copy()
    y1[17] = 1.0
    seen = []
    for y in (y0, y1):
        capfd.readouterr()
        try:
            est = heavydp.PrivateClassifier(algorithm=algorithm, epsilon=1.0, random_state=3).fit(X, y)
            outcome = ("fitted", list(est.classes_), [_masked(n) for n in est.notes_])
        except Exception as e:  # the same data-free error for both, or a failure below
            outcome = ("error", type(e).__name__, _masked(str(e)))
        err = capfd.readouterr()
        seen.append((outcome, _masked(err.out), _masked(err.err)))
    assert seen[0] == seen[1], seen
    assert seen[0][0][0] == "fitted" and seen[0][0][1] == [0, 1]


def test_classifier_public_classes():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((2000, 2))
    # declared labels, one of them absent
    est = heavydp.PrivateClassifier(classes=["no", "yes"], epsilon=1.0, random_state=2)
    est.fit(X, np.array(["no"] * len(X)))
    assert list(est.classes_) == ["no", "yes"]
    assert set(est.predict(X)) <= {"no", "yes"}
    with pytest.raises(ValueError, match="not one of classes"):
        est.fit(X, np.array(["no"] * (len(X) - 1) + ["maybe"]))
    with pytest.raises(ValueError, match="two distinct labels"):
        heavydp.PrivateClassifier(classes=[1, 1]).fit(X, np.zeros(len(X)))
    # the default [0, 1]: all ones fit too
    est = heavydp.PrivateClassifier(epsilon=1.0, random_state=2).fit(X, np.ones(len(X)))
    assert list(est.classes_) == [0, 1]


SEED = 918273645


def test_no_released_file_contains_the_seed(data, tmp_path):
    """Guarantee 5: the seed is in no model, saved file or mean output; a seeded private
    fit says the seed must stay secret; load() does not reuse an old file's seed."""
    X, y = data
    est = heavydp.PrivateRegressor(epsilon=1.0, random_state=SEED).fit(X, y)
    assert "seed" not in est.model_
    assert any("keep the seed secret" in n for n in est.notes_)
    path = tmp_path / "m.json"
    est.save(path)
    text = path.read_text()
    assert str(SEED) not in text and '"seed"' not in text
    res = heavydp.private_mean(X, "catoni", 1.0, random_state=SEED)
    blob = json.dumps({k: v for k, v in res.items() if k != "mean"}, default=str)
    assert str(SEED) not in blob and "seed" not in res
    assert any("keep the seed secret" in n for n in res["notes"])
    # an older file with a seed loads; the seed is not reused
    old = json.loads(text)
    old["seed"] = 7
    (tmp_path / "old.json").write_text(json.dumps(old))
    back = heavydp.load(tmp_path / "old.json")
    assert back.random_state is None
    np.testing.assert_array_equal(back.predict(X[:5]), est.predict(X[:5]))
    back.save(tmp_path / "again.json")
    assert '"seed"' not in (tmp_path / "again.json").read_text()
