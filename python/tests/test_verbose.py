"""verbose=True: the fit's progress on stderr (the preprocessing, the planned steps, the
step reached with the time left); the fitted model and stdout are those of the quiet fit."""

import numpy as np
import pytest

import heavydp


@pytest.fixture(scope="module")
def data():
    X, y, _ = heavydp.simulate("hu-linear-lognormal", 5000, 5, random_state=1)
    return X, y


def test_verbose_reports_progress_on_stderr_only(data, capfd):
    X, y = data
    quiet = heavydp.PrivateRegressor(random_state=3).fit(X, y)
    out, err = capfd.readouterr()
    assert "heavydp:" not in out + err
    loud = heavydp.PrivateRegressor(random_state=3, verbose=True).fit(X, y)
    out, err = capfd.readouterr()
    assert out == ""
    T = int(loud.hyperparameters_["T"])
    assert "heavydp: preprocessing done after" in err, err
    assert f"the algorithm runs {T} steps" in err, err
    assert f"step {T}/{T} after" in err, err  # the last step is always reported
    assert "heavydp: algorithm done after" in err, err
    # the same fit: weights, intercept, notes and privacy report
    np.testing.assert_array_equal(loud.coef_, quiet.coef_)
    assert loud.intercept_ == quiet.intercept_
    assert loud.notes_ == quiet.notes_
    assert loud.privacy_ == quiet.privacy_


def test_verbose_is_a_parameter_and_a_bool(data):
    X, y = data
    est = heavydp.PrivateClassifier(verbose=True)
    assert est.get_params()["verbose"] is True
    assert heavydp.PrivateRegressor().get_params()["verbose"] is False
    with pytest.raises(TypeError, match="verbose must be True or False"):
        heavydp.PrivateRegressor(verbose="yes").fit(X, y)
