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
//! <!-- paper map: generated from the algorithm registry; regenerate with HEAVYDP_BLESS=1 cargo test --workspace --test integration -- registry:: -->
//! | paper | algorithm | CLI name | privacy | Rust type |
//! |---|---|---|---|---|
//! | Talwar, Thakurta & Zhang, Alg. 3 | Frank–Wolfe (non-private) | `frank-wolfe` | none | [`algorithms::frank_wolfe::FrankWolfe`] |
//! | Talwar, Thakurta & Zhang, Alg. 4 | private Frank–Wolfe over a polytope (Laplace report-noisy-min) | `dp-frank-wolfe` | approx | [`algorithms::frank_wolfe::DpFrankWolfe`] |
//! | Talwar, Thakurta & Zhang, Alg. 5 | private Frank–Wolfe, Gaussian gradient noise | `dp-frank-wolfe-gaussian` | approx | [`algorithms::frank_wolfe::DpFrankWolfeGaussian`] |
//! | Talwar, Thakurta & Zhang, Alg. 1 + App. A | noisy mirror descent (l2 / l1 / simplex / polytope potentials) | `noisy-mirror-descent` | approx | [`algorithms::mirror_descent::NoisyMirrorDescent`] |
//! | Talwar, Thakurta & Zhang, Alg. 2 | objective perturbation | `objective-perturbation` | approx | [`algorithms::objective_perturbation::ObjectivePerturbation`] |
//! | Hu, Ni, Xiao & Wang, Alg. 1 | heavy-tailed DP Frank–Wolfe (Catoni–Giulini robust gradient + exponential mechanism), pure ε-DP | `ht-frank-wolfe` | pure | [`algorithms::frank_wolfe::HtFrankWolfe`] |
//! | Hu, Ni, Xiao & Wang, Alg. 2 | heavy-tailed private LASSO (shrinkage + DP Frank–Wolfe) | `ht-lasso` | approx | [`algorithms::frank_wolfe::HtLasso`] |
//! | Hu, Ni, Xiao & Wang, Alg. 3 | truncated DP-IHT with Peeling | `ht-sparse-linreg` | approx | [`algorithms::iht::HtSparseLinreg`] |
//! | Hu, Ni, Xiao & Wang, Alg. 5 | robust-gradient IHT with Peeling (sparse regression / logistic / mean) | `ht-sparse-opt` | approx | [`algorithms::iht::HtSparseOpt`] |
//! | Tian, Ding, Tao, Xiang & Wang, Alg. 1 | DP-IHT-H: Huber-loss IHT with Peeling, data split into T chunks | `dp-iht-huber` | approx | [`algorithms::iht::DpIhtHuber`] |
//! | Tian, Ding, Tao, Xiang & Wang, Alg. 3 | DP-IHT-L: absolute-loss IHT with Peeling | `dp-iht-l1` | approx | [`algorithms::iht::DpIhtL1`] |
//! | Cai, Wang & Zhang, DP-SLR, baseline of Tian et al. §6 | private sparse least squares (bounded data) | `dp-slr` | approx | [`algorithms::iht::DpSlr`] |
//! | Sun, Zhou & Fan, adaHuber, baseline of Tian et al. §6 | adaptive Huber lasso, cross-validated, tuning-free τ (non-private) | `adahuber` | none | [`algorithms::adaptive_huber::AdaHuber`] |
//! | Wang & Xu, Algs. 1–2 | exponential mechanism over a data-independent net with a truncated loss (θ = 2 or θ ∈ (1, 2)), streamed; (ε, δ)-DP with the floating-point sampler's δ = (1 + e^ε)N·2⁻⁵⁰ | `l1-regression-expmech` | approx | [`algorithms::l1_expmech::L1RegressionExpMech`] |
//! | Zhao, Wu, Liu, Wang, Fan & Li, Alg. 1 + Alg. 2 | private projected GD with the clipping mean | `clipped-gd` | zcdp | [`algorithms::private_gd::PrivateGd`] |
//! | Zhao, Wu, Liu, Wang, Fan & Li, Alg. 1 + Alg. 3 | private projected GD with the iterative-updating mean | `iterative-updating-gd` | approx | [`algorithms::private_gd::PrivateGd`] |
//! | Wang, Alg. 2 | AdaSSP: perturbed sufficient statistics XᵀX, Xᵀy and a privately chosen ridge (bounded data: `--param bound=B` or `bound_x=`/`bound_y=`), zCDP-calibrated | `adassp` | zcdp | [`algorithms::adassp::AdaSsp`] |
//! <!-- end of the generated paper map -->
//!
//! Hu, Ni, Xiao & Wang's Alg. 4 (Tian et al.'s Alg. 2), Peeling, is the mechanism
//! [`mechanisms::Peeling`] inside the sparse algorithms; `docs/papers.md` maps the
//! papers' other parts (estimators, nets, accountants, experiments).
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
