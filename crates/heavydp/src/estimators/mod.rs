//! Robust mean / gradient estimators: the plug point for heavy tails.
//!
//! An estimator turns per-sample vectors (gradients, or raw records for a mean) of a
//! chunk of m samples into one robust estimate whose replace-one sensitivity is known
//! in advance, so that a mechanism can be calibrated to it before any data are read.
//! None of them is private by itself.
//!
//! | estimator | module / type | paper | sensitivity (replace-one, chunk of m) | status |
//! |---|---|---|---|---|
//! | Catoni–Giulini smoothed truncation (φ, Ψ, C^) | [`catoni`] / [`CatoniGiulini`] | Hu, Ni, Xiao & Wang, eqs. (1)–(5); spec §A | ℓ∞: 4√2·s/(3m) | implemented |
//! | coordinate shrinkage | — | Hu et al. Alg. 2–3 (spec B.5) | via the truncation level K | planned |
//! | ℓ2 clipping (Algorithm 2) | [`clip`] / [`clip::clip_l2`], [`clip::clipped_row_sum`] | Zhao et al. Alg. 2, Lemma 4; spec Zhao §3 | ℓ2: 2R/m | implemented |
//! | iterative updating (Algorithm 3, Estimate (27)) | [`iterative_updating`] / [`iterative_updating::noisy_group_means`], [`iterative_updating::refine`] | Zhao et al. Alg. 3, Lemmas 6–8; spec Zhao §4–§5 | each group mean ℓ2: 2R/m (disjoint groups) | implemented |
//!
//! The private mean estimators behind `heavydp mean` (`clip`, `iterative-updating`,
//! `catoni`, `sparse-peeling`) are in [`private_mean`]: they add the calibrated noise and
//! charge a [`crate::privacy::PrivacyLedger`].

use thiserror::Error;

pub mod catoni;
pub mod clip;
pub mod iterative_updating;
pub mod private_mean;

pub use catoni::{phi, psi, psi_gradient, CatoniGiulini, PsiBeta, RobustWorkspace, PHI_BOUND};

/// Errors of estimator construction. Messages name the parameter and the requirement;
/// they never contain data values.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum EstimatorError {
    /// A parameter is outside its valid range.
    #[error("estimator parameter {name} must be {requirement} (got {value})")]
    BadParameter {
        /// The parameter's name as the user sets it.
        name: &'static str,
        /// What the value must satisfy.
        requirement: &'static str,
        /// The rejected value (a parameter, not data).
        value: f64,
    },
    /// A request the estimator cannot serve (e.g. an exact solver outside its range).
    #[error("{0}")]
    Unsupported(String),
}
