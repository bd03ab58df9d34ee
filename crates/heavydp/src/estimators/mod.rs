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
//! | ℓ2 clipping | — | clipped gradient descent | ℓ2: 2C/m | planned |
//! | iterative updating | — | iterative-updating gradient descent | — | planned |

use thiserror::Error;

pub mod catoni;

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
}
