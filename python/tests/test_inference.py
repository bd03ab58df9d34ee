"""Confidence intervals: PrivateRegressor(intervals=...), conf_int and summary."""

import numpy as np
import pytest

import heavydp


def _data(n=20000, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 3))
    y = 1.0 + X @ np.array([1.0, -0.5, 0.0]) + rng.standard_t(3, size=n)
    return X, y


def test_intervals_change_no_weight_and_give_a_table():
    X, y = _data()
    plain = heavydp.PrivateRegressor(algorithm="adassp", epsilon=2.0, random_state=4).fit(X, y)
    est = heavydp.PrivateRegressor(
        algorithm="adassp", epsilon=2.0, random_state=4, intervals=0.95
    ).fit(X, y)
    np.testing.assert_array_equal(plain.coef_, est.coef_)
    assert plain.intercept_ == est.intercept_
    assert plain.privacy_ == est.privacy_
    ci = est.conf_int(alpha=0.05)
    assert ci.shape == (4, 2)  # the intercept, then x1..x3
    estimates = np.concatenate([[est.intercept_], est.coef_])
    assert np.all(ci[:, 0] < estimates) and np.all(estimates < ci[:, 1])
    text = str(est.summary())
    for word in ("coef", "std err", "[0.025", "0.975]", "intercept", "x1", "privacy noise"):
        assert word in text, word
    with pytest.raises(ValueError, match="level 0.95"):
        est.conf_int(alpha=0.1)
    with pytest.raises(ValueError, match="no confidence intervals"):
        plain.conf_int()


def test_intervals_refused_for_an_algorithm_without_them():
    X, y = _data(500)
    with pytest.raises(ValueError, match="has no confidence intervals"):
        heavydp.PrivateRegressor(algorithm="adahuber", intervals=0.95, random_state=1).fit(X, y)
    flags = {a["name"]: a["intervals"] for a in heavydp.algorithms()}
    assert flags["adassp"] and flags["clipped-gd"] and not flags["adahuber"]


def test_clipped_gd_intervals_by_auto_refit_bootstrap():
    # what algorithm="auto" picks at n*eps = 20 000 on 3 columns: clipped-gd, whose
    # intervals re-run the private fit on data simulated from released values
    X, y = _data(10000)
    plain = heavydp.PrivateRegressor(epsilon=2.0, random_state=5).fit(X, y)
    est = heavydp.PrivateRegressor(epsilon=2.0, random_state=5, intervals=0.95).fit(X, y)
    assert est.model_["selected"]["algorithm"] == "clipped-gd"
    np.testing.assert_array_equal(plain.coef_, est.coef_)
    assert plain.intercept_ == est.intercept_
    assert plain.privacy_ == est.privacy_
    ci = est.conf_int(alpha=0.05)
    assert ci.shape == (4, 2)
    assert np.all(np.isfinite(ci))
    # coverage is measured by the Rust tests and `heavydp experiment inference-coverage`
    # (one seed says little); here: finite intervals of positive width, in raw units
    assert np.all(ci[:, 0] < ci[:, 1])
    assert abs(est.coef_[0] - 1.0) < 0.2 and abs(est.coef_[1] + 0.5) < 0.2
    text = str(est.summary())
    assert "refitting" in text and "correlation is not released" in text
    # the fit's messages say it too, with the alternative (the plain fit's do not)
    said = [m for m in est.notes_ if m.startswith("--intervals:") and "adassp" in m]
    assert said and "correlation is not released" in said[0]
    assert not any(m.startswith("--intervals:") for m in plain.notes_)
    with pytest.raises(ValueError, match="squared loss only"):
        heavydp.PrivateRegressor(
            algorithm="clipped-gd", loss="huber", intervals=0.95, random_state=1
        ).fit(X, y)


def test_no_falsely_narrow_intervals_when_the_noise_swamps_the_fit():
    # n*eps = 150: the private scaling cannot support a 3-dimensional fit, the model would
    # be the intercept alone, and intervals are refused (a public decision, before any release)
    X, y = _data(300)
    est = heavydp.PrivateRegressor(
        algorithm="adassp", epsilon=0.5, random_state=2, intervals=0.95
    )
    with pytest.raises(ValueError, match="the intercept-only model has no intervals"):
        est.fit(X, y)


def test_unbounded_intervals_where_the_feature_scales_are_not_certified():
    # n = 10^4, d = 20, eps = 0.5: each feature's private scale is released at
    # n*eps0 = 26.3, below the 42.6 that certifies it, so a raw coefficient may be off by
    # orders of magnitude: every interval is unbounded (no refit runs) and the note says why
    rng = np.random.default_rng(3)
    X = rng.standard_normal((10_000, 20))
    y = 1.0 + X @ np.tile([1.0, -0.5, 0.25, 0.0], 5) + rng.standard_t(3, 10_000)
    est = heavydp.PrivateRegressor(epsilon=0.5, random_state=3, intervals=0.95).fit(X, y)
    plain = heavydp.PrivateRegressor(epsilon=0.5, random_state=3).fit(X, y)
    np.testing.assert_array_equal(est.coef_, plain.coef_)
    ci = est.conf_int(alpha=0.05)
    assert ci.shape == (21, 2)
    assert np.all(ci[:, 0] == -np.inf) and np.all(ci[:, 1] == np.inf)
    text = " ".join(str(est.summary()).split())  # the notes are wrapped
    assert "not certified" in text and "26.3" in text
