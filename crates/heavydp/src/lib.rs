//! # heavydp
//!
//! Differentially private optimisation and estimation on heavy-tailed,
//! high-dimensional data.
//!
//! ## Tour
//!
//! Top floor first: a module imports only from its own floor or below, never in a circle
//! (checked by `tests/layers.rs`).
//!
//! | floor | module | what it holds |
//! |---|---|---|
//! | 9 | [`experiments`] | the papers' experiments: grids, seeded parallel repetitions, tidy results |
//! | 9 | [`audit`] | empirical privacy audits: worst-case neighbouring pairs, seeded runs, Clopper–Pearson lower bounds on ε; broken twins |
//! | 8 | [`pipeline`] | the whole fit: `auto`, δ's default, private scales → algorithm → private intercept, the model file; `--param` words |
//! | 8 | [`describe`] | `heavydp mean`: private means with private, declared or no scaling; per-column private quartiles, centre and robust sd |
//! | 8 | [`inference`] | confidence intervals from released quantities (post-processing): the parametric bootstrap of `adassp`'s sufficient statistics |
//! | 8 | [`model`] | the model file (`heavydp-model/2`; `/1` still loads), predictions and evaluation metrics |
//! | 7 | [`algorithms`] | the private algorithms and their registry |
//! | 6 | [`preprocess`] | private centres, scales (DP quantiles on a data-free grid) and intercept; data-free bounds |
//! | 5 | [`estimators`] | robust mean / gradient estimators (Catoni–Giulini, ℓ2 clipping, Zhao et al.'s iterative updating) and the private means of `heavydp mean` |
//! | 5 | [`params`] | `--param` maps, typed access, documentation rows, [`params::FitError`] (re-exported by [`algorithms`]) |
//! | 5 | [`constraints`] | ℓ1 ball, ℓ2 ball, simplex, vertex polytope, sparse set: projection, LMO, vertex scores |
//! | 4 | [`mechanisms`] | Laplace, Gaussian, exponential (Gumbel-max), report-noisy-min, Peeling; every release is charged first |
//! | 5 | [`io`] | file formats: CSV, Parquet, Arrow IPC, NumPy `.npy` by extension, read straight into the one matrix; `simulate`'s writers |
//! | 4 | [`data`] | [`data::Dataset`] (n × d row-major, contiguous), the CSV reader, the papers' synthetic scenarios |
//! | 3 | [`noise`] | the ChaCha20 generator and the Laplace / Gaussian / Gumbel samplers |
//! | 2 | [`privacy`] | budgets, composition (basic, advanced, zCDP, parallel), conversions, the [`privacy::PrivacyLedger`] |
//! | 1 | [`loss`] | squared, logistic, Huber, absolute, biweight losses in residual form; deterministic parallel gradient / risk passes |
//! | 1 | [`linalg`] | dense kernels (dot, axpy, norms, margins), small symmetric systems |
//!
//! ## Paper → algorithm map
//!
//! | paper | algorithm | CLI name | module |
//! |---|---|---|---|
//! | Talwar, Thakurta & Zhang, Alg. 3 | Frank–Wolfe (non-private) | `frank-wolfe` | [`algorithms::frank_wolfe`] |
//! | Talwar, Thakurta & Zhang, Alg. 4 | private Frank–Wolfe over a polytope | `dp-frank-wolfe` | [`algorithms::frank_wolfe`] |
//! | Talwar, Thakurta & Zhang, Alg. 5 | private Frank–Wolfe, Gaussian gradient noise | `dp-frank-wolfe-gaussian` | [`algorithms::frank_wolfe`] |
//! | Talwar, Thakurta & Zhang, Alg. 1 + App. A | noisy mirror descent | `noisy-mirror-descent` | [`algorithms::mirror_descent`] |
//! | Talwar, Thakurta & Zhang, Alg. 2 | objective perturbation | `objective-perturbation` | [`algorithms::objective_perturbation`] |
//! | Hu, Ni, Xiao & Wang, Alg. 1 | heavy-tailed DP Frank–Wolfe | `ht-frank-wolfe` | [`algorithms::frank_wolfe`] |
//! | Hu, Ni, Xiao & Wang, Alg. 2 | heavy-tailed private LASSO | `ht-lasso` | [`algorithms::frank_wolfe`] |
//! | Hu, Ni, Xiao & Wang, Alg. 3 | truncated DP-IHT with Peeling | `ht-sparse-linreg` | [`algorithms::iht`] |
//! | Hu, Ni, Xiao & Wang, Alg. 4 | Peeling | — | [`mechanisms::Peeling`] |
//! | Hu, Ni, Xiao & Wang, Alg. 5 | robust-gradient IHT with Peeling | `ht-sparse-opt` | [`algorithms::iht`] |
//! | Wang & Xu, Alg. 1 and 2 | exponential mechanism over a net for ℓ1 regression | `l1-regression-expmech` | [`algorithms::l1_expmech`] |
//! | Tian, Ding, Tao, Xiang & Wang, Alg. 1 | DP-IHT with the Huber loss | `dp-iht-huber` | [`algorithms::iht`] |
//! | Tian, Ding, Tao, Xiang & Wang, Alg. 3 | DP-IHT with the absolute loss | `dp-iht-l1` | [`algorithms::iht`] |
//! | Cai, Wang & Zhang (Tian et al. baseline) | private sparse least squares | `dp-slr` | [`algorithms::iht`] |
//! | Sun, Zhou & Fan (Tian et al. baseline) | adaptive Huber lasso (non-private) | `adahuber` | [`algorithms::adaptive_huber`] |
//! | Zhao, Wu, Liu, Wang, Fan & Li, Alg. 1 + 2 | private GD with the clipping mean | `clipped-gd` | [`algorithms::private_gd`] |
//! | Zhao, Wu, Liu, Wang, Fan & Li, Alg. 1 + 3 | private GD with the iterative-updating mean | `iterative-updating-gd` | [`algorithms::private_gd`] |
//! | Wang (UAI 2018), Alg. 2 | AdaSSP: perturbed sufficient statistics with a privately chosen ridge | `adassp` | [`algorithms::adassp`] |
//!
//! Neighbouring datasets differ in one record replaced; n is public.

#![forbid(unsafe_code)]

pub mod algorithms;
pub mod audit;
pub mod constraints;
pub mod data;
pub mod describe;
pub mod estimators;
pub mod experiments;
pub mod inference;
pub mod io;
pub mod linalg;
pub mod loss;
pub mod mechanisms;
pub mod model;
pub mod noise;
pub mod params;
pub mod pipeline;
pub mod preprocess;
pub mod privacy;
#[doc(hidden)]
pub mod test_support;

/// The crate version written into model files.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
