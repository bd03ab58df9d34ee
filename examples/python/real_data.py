# %% [markdown]
# # heavydp from Python on real heavy-tailed data
#
# A notebook-style script (run it with `python examples/python/real_data.py`, or cell by
# cell in Jupyter / VS Code): fit private models with pandas and scikit-learn idioms and
# compare them with scikit-learn's non-private fits on held-out data.
#
# Data: `cps1988_wage.csv` (Current Population Survey 1988, weekly wages: y kurtosis 165)
# and `cells_ps.csv` (cell segmentation quality, binary) from the project's real data
# folder `../shared/data/real` (set HEAVYDP_REAL_DATA to use another folder).

# %%
import os
import pathlib

import numpy as np
import pandas as pd
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.metrics import mean_squared_error, r2_score
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import heavydp

ROOT = pathlib.Path(__file__).resolve().parents[2]
DATA = pathlib.Path(os.environ.get("HEAVYDP_REAL_DATA", ROOT.parent / "shared" / "data" / "real"))

# %% [markdown]
# ## Regression: weekly wages
# One row is one person; the response `y` is the weekly wage (heavy right tail).
# A DataFrame keeps its column names: they become the model's feature names.

# %%
wages = pd.read_csv(DATA / "cps1988_wage.csv")
X, y = wages.drop(columns="y"), wages["y"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0)
print(f"cps1988: n = {len(X_train)} training rows, d = {X.shape[1]} features")

# %% [markdown]
# One budget for the whole analysis: every fit charges it before it reads the data
# and a fit that would overspend is refused.

# %%
budget = heavydp.Budget(epsilon=3.0, delta=1e-5)

private = heavydp.PrivateRegressor(epsilon=1.0, delta=2e-6, random_state=1, budget=budget)
private.fit(X_train, y_train)
baseline = LinearRegression().fit(X_train, y_train)

for name, model in [("heavydp, epsilon = 1", private), ("scikit-learn, non-private", baseline)]:
    pred = model.predict(X_test)
    print(f"{name:28s} test R^2 = {r2_score(y_test, pred):6.3f}   "
          f"RMSE = {mean_squared_error(y_test, pred) ** 0.5:8.1f}")
print("constant (mean) predictor    test R^2 =  0.000 by definition")
print()
print(pd.DataFrame({"heavydp": private.coef_, "scikit-learn": baseline.coef_},
                   index=private.feature_names_in_).round(2))
print("intercepts:", round(private.intercept_, 2), round(baseline.intercept_, 2))
print()
print("privacy spent:", {k: private.privacy_[k] for k in ("epsilon", "delta", "accountant")})
for note in private.notes_:
    print("note:", note)

# %% [markdown]
# Same data, a heavy-tailed response: the Huber loss with a private IHT algorithm.
# (Each fit spends its own epsilon from the shared budget.)

# %%
huber = heavydp.PrivateRegressor(algorithm="dp-iht-huber", epsilon=1.0, delta=2e-6, sparsity=4,
                                 radius=10.0, random_state=2, budget=budget)
huber.fit(X_train, y_train)
print(f"dp-iht-huber, epsilon = 1     test R^2 = {r2_score(y_test, huber.predict(X_test)):6.3f}")
print("budget:", budget)

# %% [markdown]
# ## Classification: cell segmentation quality

# %%
cells = pd.read_csv(DATA / "cells_ps.csv")
Xc, yc = cells.drop(columns="y"), cells["y"]
Xc_train, Xc_test, yc_train, yc_test = train_test_split(Xc, yc, test_size=0.3, random_state=0)
clf = heavydp.PrivateClassifier(epsilon=1.0, delta=2e-6, random_state=3,
                                budget=budget).fit(Xc_train, yc_train)
ref = make_pipeline(StandardScaler(), LogisticRegression(max_iter=5000)).fit(Xc_train, yc_train)
majority = max(np.mean(yc_test == c) for c in np.unique(yc_train))
print(f"cells: heavydp epsilon = 1 accuracy {clf.score(Xc_test, yc_test):.3f}; "
      f"scikit-learn non-private {ref.score(Xc_test, yc_test):.3f}; majority class {majority:.3f}")

# %% [markdown]
# The budget is now spent: one more fit is refused before it touches the data.

# %%
try:
    heavydp.PrivateRegressor(epsilon=0.5, delta=2e-6, budget=budget).fit(X_train, y_train)
except ValueError as e:
    print("refused:", e)
print("ledger:", [(c["release"], c["cost"]) for c in budget.ledger["ledger"]])

# %% [markdown]
# The model file is the CLI's: `heavydp predict --model wages.json --data ...` reads it.

# %%
private.save("wages-model.json")
again = heavydp.load("wages-model.json")
assert np.array_equal(again.predict(X_test), private.predict(X_test))
os.remove("wages-model.json")
