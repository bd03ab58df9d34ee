//! Per-sample losses of linear models, ℓ(w; x, y) = f(⟨w, x⟩, y).
//!
//! Every loss here is a function of the margin a = ⟨w, x⟩ and the response y,
//! so its gradient is `f'(a, y) · x` ("residual form"): hot loops compute one
//! scalar per row and never build a d-vector per row.
//!
//! | loss (`--loss`) | f(a, y) | f'(a, y) | sup f'' | convex | source |
//! |---|---|---|---|---|---|
//! | `squared` | (a − y)² (no ½) | 2(a − y) | 2 | yes | Hu et al. §6; CONTRACT |
//! | `logistic` | ln(1 + e^{−y a}), y ∈ {−1, +1} | −y σ(−y a) | 1/4 | yes | Hu et al. §6 |
//! | `huber` (τ) | ½r² if \|r\| ≤ τ, τ\|r\| − ½τ² else; r = a − y | clamp(r, −τ, τ) | 1 (not C²) | yes | Tian et al. §2 |
//! | `absolute` | \|a − y\| | sign(a − y) | — | yes | Tian et al. §3; Wang & Xu |
//! | `biweight` (c) | (c²/6)(1 − (1 − (r/c)²)³) if \|r\| ≤ c, c²/6 else | r(1 − (r/c)²)² on \|r\| ≤ c | — | no | Hu et al. §B (Tukey) |
//!
//! Logistic labels: {0, 1} are mapped to {−1, +1} by [`LossKind::prepare_labels`].
//!
//! [`mean_gradient`] and [`mean_loss`]: the deterministic parallel passes of a loss over
//! the rows (built on the kernels of [`crate::linalg`]).

mod passes;

pub use passes::{mean_gradient, mean_gradient_of, mean_loss, mean_loss_of, GradientWorkspace};

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Errors of loss construction and label checks.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum LossError {
    #[error("unknown loss '{0}' (expected one of: squared, logistic, huber, absolute, biweight)")]
    Unknown(String),
    #[error("{loss} loss needs --param {param}=VALUE > 0; got {value}")]
    BadParameter {
        loss: &'static str,
        param: &'static str,
        value: f64,
    },
    /// No row and no value is named: which row holds the odd label is data.
    #[error("logistic loss needs labels in {{-1, +1}} or {{0, 1}}: the target column holds another value (recode it to 0/1 or -1/+1)")]
    BadLabel,
}

/// A per-sample loss in residual form. See the module documentation.
pub trait Loss: Send + Sync {
    /// f(a, y).
    fn value(&self, margin: f64, y: f64) -> f64;
    /// ∂f/∂a at (a, y) (a subgradient where f is not differentiable).
    fn derivative(&self, margin: f64, y: f64) -> f64;
    /// sup over a, y of ∂²f/∂a², when f is convex and its derivative Lipschitz.
    fn curvature_bound(&self) -> Option<f64>;
    /// sup |∂f/∂a| over |a| ≤ `margin_bound`, |y| ≤ `y_bound`.
    fn derivative_bound(&self, margin_bound: f64, y_bound: f64) -> f64;
    /// Whether f is convex in a.
    fn is_convex(&self) -> bool;
    /// Whether f is twice continuously differentiable in a (needed by objective perturbation).
    fn is_c2(&self) -> bool;
    /// ∂²f/∂a² at (a, y), for C² losses (used by second-order inner solvers).
    fn second_derivative(&self, margin: f64, y: f64) -> f64;

    /// Per-sample gradient f'(⟨w, x⟩, y)·x written into `out`.
    fn gradient(&self, x: &[f64], y: f64, w: &[f64], out: &mut [f64]) {
        let r = self.derivative(crate::linalg::dot(x, w), y);
        for (o, xi) in out.iter_mut().zip(x) {
            *o = r * xi;
        }
    }
}

/// The losses of the CONTRACT, as a value.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "name", rename_all = "lowercase")]
pub enum LossKind {
    Squared,
    Logistic,
    Huber { tau: f64 },
    Absolute,
    Biweight { c: f64 },
}

impl LossKind {
    /// Parses a CONTRACT loss name; `tau` / `c` come from `--param` (defaults 1.0 / 4.685).
    pub fn parse(name: &str, tau: Option<f64>, c: Option<f64>) -> Result<Self, LossError> {
        let k = match name {
            "squared" => LossKind::Squared,
            "logistic" => LossKind::Logistic,
            "huber" => LossKind::Huber {
                tau: tau.unwrap_or(1.0),
            },
            "absolute" => LossKind::Absolute,
            "biweight" => LossKind::Biweight {
                c: c.unwrap_or(4.685),
            },
            other => return Err(LossError::Unknown(other.to_string())),
        };
        k.validate()?;
        Ok(k)
    }

    /// Checks the loss parameters.
    pub fn validate(&self) -> Result<(), LossError> {
        match *self {
            LossKind::Huber { tau } if !(tau.is_finite() && tau > 0.0) => {
                Err(LossError::BadParameter {
                    loss: "huber",
                    param: "tau",
                    value: tau,
                })
            }
            LossKind::Biweight { c } if !(c.is_finite() && c > 0.0) => {
                Err(LossError::BadParameter {
                    loss: "biweight",
                    param: "c",
                    value: c,
                })
            }
            _ => Ok(()),
        }
    }

    /// The CONTRACT name.
    pub fn name(&self) -> &'static str {
        match self {
            LossKind::Squared => "squared",
            LossKind::Logistic => "logistic",
            LossKind::Huber { .. } => "huber",
            LossKind::Absolute => "absolute",
            LossKind::Biweight { .. } => "biweight",
        }
    }

    /// For the logistic loss, maps labels {0, 1} to {−1, +1} after checking that every
    /// label is one of −1, 0, +1 (on an error `y` is unchanged). Other losses: unchanged.
    /// The error names neither a row nor a value.
    pub fn prepare_labels(&self, y: &mut [f64]) -> Result<(), LossError> {
        if let LossKind::Logistic = self {
            if y.iter().any(|v| *v != 0.0 && *v != 1.0 && *v != -1.0) {
                return Err(LossError::BadLabel);
            }
            for v in y.iter_mut().filter(|v| **v == 0.0) {
                *v = -1.0;
            }
        }
        Ok(())
    }

    /// The prediction for a margin: the margin itself, or P(y = 1) for the logistic loss.
    pub fn predict(&self, margin: f64) -> f64 {
        match self {
            LossKind::Logistic => sigmoid(margin),
            _ => margin,
        }
    }
}

/// σ(t) = 1/(1 + e^{−t}), evaluated without overflow.
#[inline]
pub fn sigmoid(t: f64) -> f64 {
    if t >= 0.0 {
        1.0 / (1.0 + (-t).exp())
    } else {
        let e = t.exp();
        e / (1.0 + e)
    }
}

/// ln(1 + e^t), evaluated without overflow.
#[inline]
pub fn softplus(t: f64) -> f64 {
    if t > 0.0 {
        t + (-t).exp().ln_1p()
    } else {
        t.exp().ln_1p()
    }
}

/// 16/(25√5): the maximum of |r(1 − (r/c)²)²|/c, attained at r = c/√5.
const BIWEIGHT_PSI_MAX: f64 = 0.286_216_701_119_973_1;

impl Loss for LossKind {
    #[inline]
    fn value(&self, a: f64, y: f64) -> f64 {
        match *self {
            LossKind::Squared => (a - y) * (a - y),
            LossKind::Logistic => softplus(-y * a),
            LossKind::Huber { tau } => {
                let r = (a - y).abs();
                if r <= tau {
                    0.5 * r * r
                } else {
                    tau * r - 0.5 * tau * tau
                }
            }
            LossKind::Absolute => (a - y).abs(),
            LossKind::Biweight { c } => {
                let r = a - y;
                if r.abs() >= c {
                    c * c / 6.0
                } else {
                    let u = 1.0 - (r / c) * (r / c);
                    c * c / 6.0 * (1.0 - u * u * u)
                }
            }
        }
    }

    #[inline]
    fn derivative(&self, a: f64, y: f64) -> f64 {
        match *self {
            LossKind::Squared => 2.0 * (a - y),
            LossKind::Logistic => -y * sigmoid(-y * a),
            LossKind::Huber { tau } => (a - y).clamp(-tau, tau),
            LossKind::Absolute => {
                let r = a - y;
                if r > 0.0 {
                    1.0
                } else if r < 0.0 {
                    -1.0
                } else {
                    0.0
                }
            }
            LossKind::Biweight { c } => {
                let r = a - y;
                if r.abs() >= c {
                    0.0
                } else {
                    let u = 1.0 - (r / c) * (r / c);
                    r * u * u
                }
            }
        }
    }

    fn second_derivative(&self, a: f64, y: f64) -> f64 {
        match *self {
            LossKind::Squared => 2.0,
            LossKind::Logistic => {
                let s = sigmoid(y * a);
                s * (1.0 - s)
            }
            LossKind::Huber { tau } => {
                if (a - y).abs() <= tau {
                    1.0
                } else {
                    0.0
                }
            }
            LossKind::Absolute => 0.0,
            LossKind::Biweight { c } => {
                let r = a - y;
                if r.abs() >= c {
                    0.0
                } else {
                    let q = (r / c) * (r / c);
                    (1.0 - q) * (1.0 - 5.0 * q)
                }
            }
        }
    }

    fn curvature_bound(&self) -> Option<f64> {
        match self {
            LossKind::Squared => Some(2.0),
            LossKind::Logistic => Some(0.25),
            LossKind::Huber { .. } => Some(1.0),
            LossKind::Absolute | LossKind::Biweight { .. } => None,
        }
    }

    fn derivative_bound(&self, margin_bound: f64, y_bound: f64) -> f64 {
        let r = margin_bound + y_bound;
        match *self {
            LossKind::Squared => 2.0 * r,
            LossKind::Logistic => 1.0,
            LossKind::Huber { tau } => tau.min(r),
            LossKind::Absolute => 1.0,
            LossKind::Biweight { c } => (BIWEIGHT_PSI_MAX * c).min(r),
        }
    }

    fn is_convex(&self) -> bool {
        !matches!(self, LossKind::Biweight { .. })
    }

    fn is_c2(&self) -> bool {
        matches!(self, LossKind::Squared | LossKind::Logistic)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn all() -> Vec<LossKind> {
        vec![
            LossKind::Squared,
            LossKind::Logistic,
            LossKind::Huber { tau: 1.3 },
            LossKind::Absolute,
            LossKind::Biweight { c: 2.0 },
        ]
    }

    proptest! {
        #[test]
        fn derivative_matches_finite_differences(a in -5.0f64..5.0, yi in 0usize..2, yc in -3.0f64..3.0) {
            for l in all() {
                let y = if matches!(l, LossKind::Logistic) { [-1.0, 1.0][yi] } else { yc };
                let h = 1e-6;
                let r = a - y;
                // skip kinks
                if matches!(l, LossKind::Absolute) && r.abs() < 1e-3 { continue; }
                if let LossKind::Huber { tau } = l { if (r.abs() - tau).abs() < 1e-3 { continue; } }
                if let LossKind::Biweight { c } = l { if (r.abs() - c).abs() < 1e-3 { continue; } }
                let fd = (l.value(a + h, y) - l.value(a - h, y)) / (2.0 * h);
                prop_assert!((fd - l.derivative(a, y)).abs() < 1e-5 * (1.0 + fd.abs()), "{:?} a={} y={} fd={} d={}", l, a, y, fd, l.derivative(a, y));
                if l.is_c2() || matches!(l, LossKind::Biweight { .. }) {
                    let fd2 = (l.derivative(a + h, y) - l.derivative(a - h, y)) / (2.0 * h);
                    prop_assert!((fd2 - l.second_derivative(a, y)).abs() < 1e-4 * (1.0 + fd2.abs()));
                }
            }
        }

        #[test]
        fn derivative_bound_holds(a in -4.0f64..4.0, y in -2.0f64..2.0) {
            for l in all() {
                let yy = if matches!(l, LossKind::Logistic) { y.signum() } else { y };
                prop_assert!(l.derivative(a, yy).abs() <= l.derivative_bound(4.0, 2.0) + 1e-12);
                if let Some(c) = l.curvature_bound() {
                    prop_assert!(l.second_derivative(a, yy) <= c + 1e-12);
                }
            }
        }

        #[test]
        fn vector_gradient_matches_finite_differences(w in proptest::collection::vec(-1.0f64..1.0, 4), x in proptest::collection::vec(-2.0f64..2.0, 4)) {
            let l = LossKind::Logistic;
            let mut g = vec![0.0; 4];
            l.gradient(&x, 1.0, &w, &mut g);
            for j in 0..4 {
                let h = 1e-6;
                let mut wp = w.clone(); wp[j] += h;
                let mut wm = w.clone(); wm[j] -= h;
                let fd = (l.value(crate::linalg::dot(&x, &wp), 1.0) - l.value(crate::linalg::dot(&x, &wm), 1.0)) / (2.0 * h);
                prop_assert!((fd - g[j]).abs() < 1e-6);
            }
        }
    }

    #[test]
    fn biweight_psi_max_constant() {
        let c = 1.0;
        let r = c / 5f64.sqrt();
        let l = LossKind::Biweight { c };
        assert!((l.derivative(r, 0.0) - BIWEIGHT_PSI_MAX).abs() < 1e-15);
        assert!((BIWEIGHT_PSI_MAX - 16.0 / (25.0 * 5f64.sqrt())).abs() < 1e-16);
    }

    #[test]
    fn logistic_is_stable_at_extremes() {
        let l = LossKind::Logistic;
        assert!((l.value(800.0, -1.0) - 800.0).abs() < 1e-9);
        assert!(l.value(-800.0, -1.0) >= 0.0 && l.value(-800.0, -1.0) < 1e-300);
        assert!((l.derivative(800.0, -1.0) - 1.0).abs() < 1e-15);
    }

    #[test]
    fn labels_and_names() {
        let mut y = vec![0.0, 1.0, -1.0];
        LossKind::Logistic.prepare_labels(&mut y).unwrap();
        assert_eq!(y, vec![-1.0, 1.0, -1.0]);
        let mut bad = vec![0.0, 1.0, 0.5];
        let e = LossKind::Logistic.prepare_labels(&mut bad);
        assert_eq!(e, Err(LossError::BadLabel));
        assert_eq!(bad, vec![0.0, 1.0, 0.5], "unchanged on an error");
        let m = e.unwrap_err().to_string();
        assert!(
            !m.contains("row") && !m.contains("0.5") && !m.contains('3'),
            "{m}"
        );
        assert!(matches!(
            LossKind::parse("hinge", None, None),
            Err(LossError::Unknown(_))
        ));
        assert!(LossKind::parse("huber", Some(-1.0), None).is_err());
    }
}
