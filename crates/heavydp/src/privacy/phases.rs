//! Sequential phases of one fit: preprocessing releases, the algorithm, the intercept.
//!
//! A fit with private preprocessing is an adaptive sequence of mechanisms whose later
//! steps read the earlier releases (the algorithm runs on data standardised with the
//! released centres and scales; the intercept reads the released weights). Each phase
//! keeps its own [`super::PrivacyLedger`] with the accountant that suits it (zCDP for many
//! quantiles, parallel composition for chunked algorithms, …), and the phases compose by
//! **basic sequential composition** (Dwork & Roth Thm 3.16, which holds adaptively): the
//! total is (Σ εᵢ, Σ δᵢ), every addition rounded up.
//!
//! [`PhasedLedger`] is the one place where a fit's budget is split. A phase gets at most
//! what is left ([`PhasedLedger::remaining`]); its spent (ε, δ) is recorded only if the
//! running total stays within the budget ([`PhasedLedger::record`] refuses otherwise), and
//! the phase's own ledger has already refused any release beyond the phase's budget
//! *before* it ran. So the total written into the model file is never more than the
//! user's `--epsilon` / `--delta`.

use super::{add_up, Budget, PrivacyError, PrivacyModel, PrivacySpent};
use serde::Serialize;

/// One completed phase: its name and what its ledger certified.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Phase {
    pub name: String,
    pub spent: PrivacySpent,
}

/// Splits one budget over sequential phases; see the module documentation.
#[derive(Debug, Clone)]
pub struct PhasedLedger {
    budget: Budget,
    phases: Vec<Phase>,
    epsilon: f64,
    delta: f64,
}

/// `a − b` rounded down, then lowered until `add_up(b, result) ≤ a` (0 when b ≥ a; ∞
/// stays ∞): what is left of a budget `a` after spending `b`, safe to spend on top of it.
pub fn sub_down(a: f64, b: f64) -> f64 {
    if a.is_infinite() {
        return a;
    }
    let mut r = (a - b).max(0.0);
    while r > 0.0 && add_up(b, r) > a {
        r = r.next_down();
    }
    r
}

impl PhasedLedger {
    /// A ledger for `budget` with nothing spent.
    pub fn new(budget: Budget) -> Self {
        PhasedLedger {
            budget,
            phases: Vec::new(),
            epsilon: 0.0,
            delta: 0.0,
        }
    }

    /// The user's budget.
    pub fn budget(&self) -> Budget {
        self.budget
    }

    /// Total (ε, δ) spent by the recorded phases (rounded up).
    pub fn spent(&self) -> (f64, f64) {
        (self.epsilon, self.delta)
    }

    /// The recorded phases, in order.
    pub fn phases(&self) -> &[Phase] {
        &self.phases
    }

    /// What is left: (ε − spent, δ − spent), rounded down so that adding it back (rounded
    /// up) never exceeds the budget. ε = ∞ stays ∞.
    pub fn remaining(&self) -> Budget {
        Budget {
            epsilon: sub_down(self.budget.epsilon, self.epsilon),
            delta: sub_down(self.budget.delta, self.delta),
        }
    }

    /// A share `fraction` ∈ (0, 1] of the whole budget for the next phase, capped by what
    /// is left (rounded down). With ε = ∞ the share is ∞ (δ still split).
    pub fn share(&self, fraction: f64) -> Budget {
        let rem = self.remaining();
        let eps = if self.budget.epsilon.is_infinite() {
            f64::INFINITY
        } else {
            (self.budget.epsilon * fraction)
                .next_down()
                .min(rem.epsilon)
        };
        Budget {
            epsilon: eps.max(0.0),
            delta: (self.budget.delta * fraction)
                .next_down()
                .min(rem.delta)
                .max(0.0),
        }
    }

    /// Records a completed phase. Refuses (and records nothing) when the total would
    /// exceed the budget; a phase run on [`PhasedLedger::remaining`] or
    /// [`PhasedLedger::share`] never is.
    pub fn record(&mut self, name: &str, spent: PrivacySpent) -> Result<(), PrivacyError> {
        let (e, d) = if spent.model == PrivacyModel::None {
            (0.0, 0.0)
        } else {
            (spent.epsilon, spent.delta)
        };
        // a negative or NaN phase total would refund budget or disable the refusal below
        if !(e >= 0.0 && (0.0..=1.0).contains(&d)) {
            return Err(PrivacyError::InvalidCost {
                release: name.to_string(),
                reason: format!(
                    "a phase's epsilon must be >= 0 and its delta in [0, 1] (not NaN); got epsilon {e}, delta {d}"
                ),
            });
        }
        let ne = add_up(self.epsilon, e);
        let nd = add_up(self.delta, d);
        // written so that a NaN total refuses
        let within = ne <= self.budget.epsilon && nd <= self.budget.delta;
        if !(self.budget.is_non_private() || within) {
            return Err(PrivacyError::BudgetExceeded {
                release: name.to_string(),
                would_epsilon: ne,
                would_delta: nd,
                budget_epsilon: self.budget.epsilon,
                budget_delta: self.budget.delta,
            });
        }
        self.epsilon = ne;
        self.delta = nd;
        self.phases.push(Phase {
            name: name.to_string(),
            spent,
        });
        Ok(())
    }

    /// The privacy model of the composition: `none` for ε = ∞ or when a phase is not
    /// private, `pure` when every phase is pure, otherwise `approx` (a zCDP phase enters
    /// through its (ε, δ) conversion).
    pub fn model(&self) -> PrivacyModel {
        if self.budget.is_non_private()
            || self
                .phases
                .iter()
                .all(|p| p.spent.model == PrivacyModel::None)
        {
            PrivacyModel::None
        } else if self
            .phases
            .iter()
            .all(|p| p.spent.model == PrivacyModel::Pure)
        {
            PrivacyModel::Pure
        } else {
            PrivacyModel::Approx
        }
    }

    /// The model file's `privacy` object. With a single phase it is that phase's summary
    /// unchanged (so `--intercept none --scale none` writes exactly what a plain fit
    /// writes); with several, `phase` names the algorithm's phase whose fields (ledger,
    /// accountant, …) stay at the top level, `epsilon` / `delta` / `model` become the
    /// totals, and `phases` lists every phase with what it spent.
    pub fn summary_json(&self, main_phase: &str) -> serde_json::Value {
        if self.phases.len() == 1 {
            return serde_json::to_value(&self.phases[0].spent).expect("serialisable");
        }
        let main = self
            .phases
            .iter()
            .find(|p| p.name == main_phase)
            .or(self.phases.first());
        let mut v = match main {
            Some(p) => serde_json::to_value(&p.spent).expect("serialisable"),
            None => serde_json::json!({}),
        };
        let model = self.model();
        let (eps, delta) = if model == PrivacyModel::None {
            (f64::INFINITY, 0.0)
        } else {
            (self.epsilon, self.delta)
        };
        v["model"] = serde_json::json!(model.as_str());
        v["epsilon"] = serde_json::to_value(eps).expect("f64");
        v["delta"] = serde_json::json!(delta);
        v["budget_epsilon"] = serde_json::to_value(self.budget.epsilon).expect("f64");
        v["budget_delta"] = serde_json::json!(self.budget.delta);
        v["composition"] = serde_json::json!("basic sequential composition of the phases");
        v["releases"] =
            serde_json::json!(self.phases.iter().map(|p| p.spent.releases).sum::<usize>());
        v["phases"] = serde_json::to_value(
            self.phases
                .iter()
                .map(|p| {
                    let mut s = serde_json::to_value(&p.spent).expect("serialisable");
                    s["name"] = serde_json::json!(p.name);
                    s
                })
                .collect::<Vec<_>>(),
        )
        .expect("serialisable");
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::privacy::{Accountant, Cost, PrivacyLedger};

    fn spend(budget: Budget, eps: f64, delta: f64) -> PrivacySpent {
        let mut l = PrivacyLedger::new(budget, Accountant::Basic);
        l.charge(
            "x",
            if delta > 0.0 {
                Cost::Approx {
                    epsilon: eps,
                    delta,
                }
            } else {
                Cost::Pure { epsilon: eps }
            },
        )
        .unwrap();
        l.summary(if delta > 0.0 {
            PrivacyModel::Approx
        } else {
            PrivacyModel::Pure
        })
    }

    #[test]
    fn phases_add_and_never_exceed_the_budget() {
        let b = Budget::new(1.0, 1e-6).unwrap();
        let mut p = PhasedLedger::new(b);
        let pre = p.share(0.1);
        assert!(pre.epsilon <= 0.1 && pre.delta <= 1e-7);
        p.record("preprocessing", spend(pre, pre.epsilon, pre.delta))
            .unwrap();
        let rem = p.remaining();
        assert!(add_up(p.spent().0, rem.epsilon) <= 1.0);
        p.record("algorithm", spend(rem, rem.epsilon, rem.delta))
            .unwrap();
        let (e, d) = p.spent();
        assert!(e <= 1.0 && e > 0.999_999, "e = {e}");
        assert!(d <= 1e-6);
        // nothing left: a further phase is refused and not recorded
        let extra = spend(Budget::pure(1.0).unwrap(), 1e-3, 0.0);
        assert!(p.record("more", extra).is_err());
        assert_eq!(p.phases().len(), 2);
        let j = p.summary_json("algorithm");
        assert_eq!(j["phases"].as_array().unwrap().len(), 2);
        assert_eq!(j["model"], "approx");
        assert!(j["epsilon"].as_f64().unwrap() <= 1.0);
    }

    #[test]
    fn one_phase_writes_the_plain_summary() {
        let b = Budget::pure(1.0).unwrap();
        let mut p = PhasedLedger::new(b);
        let s = spend(b, 0.5, 0.0);
        p.record("algorithm", s.clone()).unwrap();
        assert_eq!(
            p.summary_json("algorithm"),
            serde_json::to_value(&s).unwrap()
        );
        assert_eq!(p.model(), PrivacyModel::Pure);
    }

    #[test]
    fn infinite_budget_is_non_private() {
        let mut p = PhasedLedger::new(Budget::non_private());
        assert!(p.share(0.1).epsilon.is_infinite());
        let mut l = PrivacyLedger::new(Budget::non_private(), Accountant::Basic);
        l.charge("x", Cost::Pure { epsilon: 1.0 }).unwrap();
        p.record("a", l.summary(PrivacyModel::Pure)).unwrap();
        p.record("b", l.summary(PrivacyModel::Pure)).unwrap();
        assert_eq!(p.model(), PrivacyModel::None);
        assert!(p.summary_json("a")["epsilon"].is_null());
    }

    /// A phase whose summary is negative or NaN is refused and recorded nothing; the
    /// totals still refuse an overspend afterwards.
    #[test]
    fn bad_phase_totals_are_refused() {
        let b = Budget::new(1.0, 1e-6).unwrap();
        for (e, d) in [
            (-0.5, 0.0),
            (f64::NAN, 0.0),
            (0.1, f64::NAN),
            (0.1, -1e-7),
            (f64::INFINITY, 0.0),
        ] {
            let mut p = PhasedLedger::new(b);
            p.record("first", spend(b, 0.5, 0.0)).unwrap();
            let mut bad = spend(b, 0.1, 0.0);
            bad.epsilon = e;
            bad.delta = d;
            assert!(p.record("bad", bad).is_err(), "{e} {d}");
            assert_eq!(p.phases().len(), 1);
            assert_eq!(p.spent(), (0.5, 0.0));
            assert!(p.record("more", spend(b, 0.6, 0.0)).is_err());
            assert!(p.spent().0 <= 1.0);
        }
    }
}
