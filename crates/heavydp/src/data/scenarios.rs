//! The papers' synthetic data generators (`heavydp simulate --scenario NAME`).
//!
//! Parameterisations are those settled in `spec/hu2021-high-dim-heavy-tailed.md` §X.1
//! and `spec/tian-dp-iht-heavy-tailed-response.md` §5.1. Distribution parameters are
//! standard deviations unless a variance is named.
//!
//! | scenario | features x_ij | noise | response | truth w* |
//! |---|---|---|---|---|
//! | `hu-linear-lognormal` | Lognormal(0, σ² = 0.6) | N(0, variance 0.1) | ⟨w*, x⟩ + noise | g/‖g‖₁, g ∼ N(0, I) |
//! | `hu-logistic-lognormal` | Lognormal(0, σ² = 0.6) | none | sign(⟨x, w*⟩) | g/‖g‖₁ |
//! | `hu-linear-student` | Student t, ν = 10 | N(0, variance 0.1) | ⟨w*, x⟩ + noise | g/‖g‖₁ |
//! | `hu-sparse-lognormal-noise` | N(0, variance 5) | Lognormal(0, σ² = 0.5) | ⟨w*, x⟩ + noise | s*-sparse, ‖w*‖₂ = 1 |
//! | `hu-sparse-loglogistic-noise` | N(0, variance 5) | log-logistic c = 0.1 | ⟨w*, x⟩ + noise | s*-sparse, unit ℓ2 |
//! | `hu-sparse-loggamma-noise` | N(0, variance 5) | log-gamma c = 0.5 | ⟨w*, x⟩ + noise | s*-sparse, unit ℓ2 |
//! | `hu-sparse-logistic-gaussian` | N(0, variance 5) | logistic(0, scale 0.5) in the logit | sign(⟨x, w*⟩ + ζ) | s*-sparse, unit ℓ2 |
//! | `hu-sparse-logistic-laplace` | Laplace(0, scale 5) | log-gamma c = 0.5 in the logit | sign(⟨x, w*⟩ + ζ) | s*-sparse, unit ℓ2 |
//! | `tian-sparse-student` | N(0, I) | Student t, ν = 1.75 (`zeta=0.5`) or 3 (`zeta=1`, default) | ⟨β*, x⟩ + noise | s* entries c·N(0,1), c = `beta_scale` (1) |
//!
//! Hu's sparse truth: u with i.i.d. N(0, 100²) entries, d − s* uniformly random entries
//! zeroed, w* = u/max(1, ‖u‖₂). Noises are not centred (as printed in the paper).
//! Logistic labels are ±1 (sign(0) = +1). Default s*: 20 for Hu's sparse scenarios,
//! 5 for Tian's (the papers' experiment defaults).

use super::{DataError, Dataset};
use rand::seq::index::sample;
use rand::RngCore;
use rand_distr::{Distribution, Gamma, LogNormal, Normal, StudentT};
use serde::Serialize;
use std::collections::BTreeMap;

/// A noise sampler.
type NoiseFn = Box<dyn FnMut(&mut dyn RngCore) -> f64>;

/// Every scenario name of the CONTRACT.
pub const SCENARIOS: &[&str] = &[
    "hu-linear-lognormal",
    "hu-logistic-lognormal",
    "hu-linear-student",
    "hu-sparse-lognormal-noise",
    "hu-sparse-loglogistic-noise",
    "hu-sparse-loggamma-noise",
    "hu-sparse-logistic-gaussian",
    "hu-sparse-logistic-laplace",
    "tian-sparse-student",
];

/// The true parameter and the problem it belongs to (`truth.json`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Truth {
    pub scenario: String,
    pub w_star: Vec<f64>,
    pub loss: &'static str,
    pub domain: serde_json::Value,
    pub n: usize,
    pub d: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sparsity: Option<usize>,
    pub parameters: BTreeMap<String, f64>,
}

/// Refuses a `--param` key the scenario does not have (only `tian-sparse-student` has
/// parameters: `zeta` and `beta_scale`).
fn check_params(name: &str, params: &BTreeMap<String, f64>) -> Result<(), DataError> {
    let allowed: &[&str] = if name == "tian-sparse-student" {
        &["zeta", "beta_scale"]
    } else {
        &[]
    };
    match params.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(k) => Err(bad(
            name,
            format!(
                "unknown parameter '{k}' (this scenario accepts: {})",
                if allowed.is_empty() {
                    "none".to_string()
                } else {
                    allowed.join(", ")
                }
            ),
        )),
        None => Ok(()),
    }
}

fn bad(scenario: &str, reason: impl Into<String>) -> DataError {
    DataError::BadScenario {
        scenario: scenario.to_string(),
        reason: reason.into(),
    }
}

/// ln Γ(c, 1) evaluated stably for small shapes: for c < 1, Γ_c = Γ_{c+1} · U^{1/c}.
fn log_gamma_variate<R: RngCore + ?Sized>(c: f64, rng: &mut R) -> f64 {
    let g = Gamma::new(c + 1.0, 1.0).expect("shape > 0");
    let v: f64 = g.sample(rng);
    v.ln() + crate::noise::open01(rng).ln() / c
}

fn dense_truth<R: RngCore + ?Sized>(d: usize, rng: &mut R) -> Vec<f64> {
    let nrm = Normal::new(0.0, 1.0).unwrap();
    loop {
        let g: Vec<f64> = (0..d).map(|_| nrm.sample(rng)).collect();
        let l1: f64 = g.iter().map(|v| v.abs()).sum();
        if l1 > 0.0 {
            return g.into_iter().map(|v| v / l1).collect();
        }
    }
}

fn sparse_support<R: RngCore + ?Sized>(d: usize, s: usize, rng: &mut R) -> Vec<usize> {
    let mut idx = sample(rng, d, s).into_vec();
    idx.sort_unstable();
    idx
}

/// Generates `n` records of scenario `name` in dimension `d`. `sparsity` is s* for the
/// sparse scenarios (ignored otherwise); `params` holds `--param` values
/// (`zeta`, `beta_scale` for `tian-sparse-student`). Unknown parameters are an error.
pub fn simulate(
    name: &str,
    n: usize,
    d: usize,
    sparsity: Option<usize>,
    params: &BTreeMap<String, f64>,
    rng: &mut dyn RngCore,
) -> Result<(Dataset, Truth), DataError> {
    if !SCENARIOS.contains(&name) {
        return Err(DataError::UnknownScenario(name.to_string()));
    }
    if n == 0 {
        return Err(bad(name, "--n must be at least 1"));
    }
    if d == 0 {
        return Err(bad(name, "--d must be at least 1"));
    }
    check_params(name, params)?;
    let sparse = name.starts_with("hu-sparse") || name == "tian-sparse-student";
    let s = if sparse {
        let s = sparsity.unwrap_or(if name == "tian-sparse-student" { 5 } else { 20 });
        if s == 0 || s > d {
            return Err(bad(
                name,
                format!("--sparsity must be in 1..=d (d = {d}); got {s}"),
            ));
        }
        Some(s)
    } else {
        None
    };

    let mut used = BTreeMap::new();
    // Truth.
    let w_star: Vec<f64> = match name {
        "hu-linear-lognormal" | "hu-logistic-lognormal" | "hu-linear-student" => {
            dense_truth(d, rng)
        }
        "tian-sparse-student" => {
            let c = params.get("beta_scale").copied().unwrap_or(1.0);
            if !(c.is_finite() && c > 0.0) {
                return Err(bad(name, "beta_scale must be > 0"));
            }
            used.insert("beta_scale".to_string(), c);
            let nrm = Normal::new(0.0, 1.0).unwrap();
            let mut w = vec![0.0; d];
            for j in sparse_support(d, s.unwrap(), rng) {
                w[j] = c * nrm.sample(rng);
            }
            w
        }
        _ => {
            let nrm = Normal::new(0.0, 100.0).unwrap();
            let mut w = vec![0.0; d];
            for j in sparse_support(d, s.unwrap(), rng) {
                w[j] = nrm.sample(rng);
            }
            let l2 = crate::linalg::norm2(&w);
            if l2 > 1.0 {
                w.iter_mut().for_each(|v| *v /= l2);
            }
            w
        }
    };

    let data = records(name, n, d, &w_star, params, &mut used, rng)?;
    let logistic = name.contains("logistic-") || name == "hu-logistic-lognormal";
    // The logit-noise scenarios are logistic too.
    let loss = if logistic || name.starts_with("hu-sparse-logistic") {
        "logistic"
    } else if name == "tian-sparse-student" {
        "huber"
    } else {
        "squared"
    };
    let domain = if sparse {
        serde_json::json!({"kind": "sparse", "s": s.unwrap(), "radius": crate::linalg::norm2(&w_star).max(1.0)})
    } else {
        serde_json::json!({"kind": "l1-ball", "radius": 1.0})
    };
    Ok((
        data,
        Truth {
            scenario: name.to_string(),
            w_star,
            loss,
            domain,
            n,
            d,
            sparsity: s,
            parameters: used,
        },
    ))
}

/// Draws `n` records (features, then noise and response row by row) of scenario `name`
/// for a given truth `w_star` of length `d`. The generator calls are exactly those
/// [`simulate`] makes after drawing the truth, so `simulate` = truth + `records`.
fn records(
    name: &str,
    n: usize,
    d: usize,
    w_star: &[f64],
    params: &BTreeMap<String, f64>,
    used: &mut BTreeMap<String, f64>,
    rng: &mut dyn RngCore,
) -> Result<Dataset, DataError> {
    // Features.
    let mut x = vec![0.0; n * d];
    match name {
        "hu-linear-lognormal" | "hu-logistic-lognormal" => {
            let ln = LogNormal::new(0.0, 0.6f64.sqrt()).unwrap();
            x.iter_mut().for_each(|v| *v = ln.sample(rng));
        }
        "hu-linear-student" => {
            let t = StudentT::new(10.0).unwrap();
            x.iter_mut().for_each(|v| *v = t.sample(rng));
        }
        "hu-sparse-logistic-laplace" => {
            x.iter_mut()
                .for_each(|v| *v = crate::noise::laplace(5.0, rng));
        }
        "tian-sparse-student" => {
            let nrm = Normal::new(0.0, 1.0).unwrap();
            x.iter_mut().for_each(|v| *v = nrm.sample(rng));
        }
        _ => {
            let nrm = Normal::new(0.0, 5f64.sqrt()).unwrap();
            x.iter_mut().for_each(|v| *v = nrm.sample(rng));
        }
    }

    // Noise and response.
    let mut noise: NoiseFn = match name {
        "hu-linear-lognormal" | "hu-linear-student" => {
            let nrm = Normal::new(0.0, 0.1f64.sqrt()).unwrap();
            Box::new(move |r| nrm.sample(r))
        }
        "hu-logistic-lognormal" => Box::new(|_| 0.0),
        "hu-sparse-lognormal-noise" => {
            let ln = LogNormal::new(0.0, 0.5f64.sqrt()).unwrap();
            Box::new(move |r| ln.sample(r))
        }
        "hu-sparse-loglogistic-noise" => Box::new(|r| {
            // inverse CDF of F(w) = w^c/(1 + w^c), c = 0.1
            let u = crate::noise::open01(r);
            (u / (1.0 - u)).powf(1.0 / 0.1)
        }),
        "hu-sparse-loggamma-noise" | "hu-sparse-logistic-laplace" => {
            Box::new(|r| log_gamma_variate(0.5, r))
        }
        "hu-sparse-logistic-gaussian" => Box::new(|r| {
            let u = crate::noise::open01(r);
            0.5 * (u / (1.0 - u)).ln()
        }),
        "tian-sparse-student" => {
            let zeta = params.get("zeta").copied().unwrap_or(1.0);
            let nu = if zeta == 0.5 {
                1.75
            } else if zeta == 1.0 {
                3.0
            } else {
                return Err(bad(
                    name,
                    "zeta must be 0.5 (Student t, 1.75 d.o.f.) or 1 (3 d.o.f.)",
                ));
            };
            used.insert("zeta".to_string(), zeta);
            used.insert("nu".to_string(), nu);
            let t = StudentT::new(nu).unwrap();
            Box::new(move |r| t.sample(r))
        }
        _ => unreachable!(),
    };
    let logistic = name.contains("logistic-") || name == "hu-logistic-lognormal";
    let mut y = Vec::with_capacity(n);
    for i in 0..n {
        let a = crate::linalg::dot(&x[i * d..(i + 1) * d], w_star);
        let e = noise(rng);
        let z = a + e;
        y.push(if logistic {
            if z >= 0.0 {
                1.0
            } else {
                -1.0
            }
        } else {
            z
        });
    }
    Dataset::from_rows(x, y, d)
}

/// Generates `n` fresh records of scenario `name` for an already drawn truth `w_star`
/// (e.g. the [`Truth::w_star`] of an earlier [`simulate`] call): same feature law, noise
/// law and response rule, a new sample. Used for held-out evaluation samples with the
/// same w\* (`heavydp experiment`). `params` are the scenario's `--param` values, as for
/// [`simulate`]; the sparse scenarios take s\* from `w_star` itself.
pub fn generate_records(
    name: &str,
    n: usize,
    w_star: &[f64],
    params: &BTreeMap<String, f64>,
    rng: &mut dyn RngCore,
) -> Result<Dataset, DataError> {
    if !SCENARIOS.contains(&name) {
        return Err(DataError::UnknownScenario(name.to_string()));
    }
    if n == 0 {
        return Err(bad(name, "--n must be at least 1"));
    }
    if w_star.is_empty() {
        return Err(bad(name, "the truth w_star must have at least one entry"));
    }
    if w_star.iter().any(|v| !v.is_finite()) {
        return Err(bad(name, "the truth w_star must be finite"));
    }
    check_params(name, params)?;
    let mut used = BTreeMap::new();
    records(name, n, w_star.len(), w_star, params, &mut used, rng)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::noise::rng_from_seed;

    fn moments(v: &[f64]) -> (f64, f64) {
        let n = v.len() as f64;
        let m = v.iter().sum::<f64>() / n;
        (m, v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / n)
    }

    #[test]
    fn every_scenario_runs_and_is_reproducible() {
        for &s in SCENARIOS {
            let p = BTreeMap::new();
            let (a, ta) = simulate(s, 50, 30, Some(5), &p, &mut rng_from_seed(3)).unwrap();
            let (b, tb) = simulate(s, 50, 30, Some(5), &p, &mut rng_from_seed(3)).unwrap();
            assert_eq!(a, b);
            assert_eq!(ta, tb);
            assert_eq!(a.n(), 50);
            assert_eq!(a.d(), 30);
            if s.contains("sparse") {
                assert_eq!(ta.w_star.iter().filter(|v| **v != 0.0).count(), 5, "{s}");
            } else {
                assert!((crate::linalg::norm1(&ta.w_star) - 1.0).abs() < 1e-12);
            }
            if s.starts_with("hu-sparse") {
                assert!((crate::linalg::norm2(&ta.w_star) - 1.0).abs() < 1e-12);
            }
        }
    }

    #[test]
    fn feature_and_noise_moments_match_the_spec() {
        // 20 000 records of dimension 10 (seed 1)
        let sample = |scenario: &str, s: Option<usize>| {
            let p = BTreeMap::new();
            simulate(scenario, 20_000, 10, s, &p, &mut rng_from_seed(1))
                .unwrap()
                .0
        };
        let a = sample("hu-linear-lognormal", None);
        let (m, v) = moments(a.x());
        // Lognormal(0, variance 0.6): mean e^0.3 = 1.3499, variance 1.4980
        assert!((m - 1.3499).abs() < 0.01, "{m}");
        assert!((v - 1.4980).abs() < 0.05, "{v}");
        let a = sample("hu-linear-student", None);
        let (_, v) = moments(a.x());
        assert!((v - 1.25).abs() < 0.05, "{v}");
        let a = sample("hu-sparse-logistic-laplace", Some(2));
        let (_, v) = moments(a.x());
        assert!((v - 50.0).abs() < 2.0, "{v}");
        assert!(a.y().iter().all(|y| *y == 1.0 || *y == -1.0));
        // log-gamma c = 0.5: mean digamma(0.5) = -1.9635, variance pi^2/2 = 4.9348
        let mut r = rng_from_seed(9);
        let lg: Vec<f64> = (0..200_000)
            .map(|_| log_gamma_variate(0.5, &mut r))
            .collect();
        let (m, v) = moments(&lg);
        assert!((m + 1.9635).abs() < 0.02, "{m}");
        assert!((v - 4.9348).abs() < 0.1, "{v}");
    }

    #[test]
    fn fresh_records_follow_the_given_truth() {
        let p = BTreeMap::new();
        let (_, t) = simulate(
            "hu-logistic-lognormal",
            5,
            6,
            None,
            &p,
            &mut rng_from_seed(2),
        )
        .unwrap();
        let fresh = generate_records(
            "hu-logistic-lognormal",
            500,
            &t.w_star,
            &p,
            &mut rng_from_seed(3),
        )
        .unwrap();
        assert_eq!((fresh.n(), fresh.d()), (500, 6));
        for i in 0..500 {
            let z = crate::linalg::dot(fresh.row(i), &t.w_star);
            assert_eq!(fresh.y()[i], if z >= 0.0 { 1.0 } else { -1.0 });
        }
        // linear: residuals are the N(0, 0.1) noise
        let w = vec![0.5, -0.25, 0.25];
        let lin =
            generate_records("hu-linear-student", 20_000, &w, &p, &mut rng_from_seed(4)).unwrap();
        let r: Vec<f64> = (0..lin.n())
            .map(|i| lin.y()[i] - crate::linalg::dot(lin.row(i), &w))
            .collect();
        let (m, v) = moments(&r);
        assert!(m.abs() < 0.01 && (v - 0.1).abs() < 0.005, "{m} {v}");
        // the same generator state gives the same records
        let a = generate_records(
            "hu-sparse-logistic-laplace",
            50,
            &w,
            &p,
            &mut rng_from_seed(5),
        );
        let b = generate_records(
            "hu-sparse-logistic-laplace",
            50,
            &w,
            &p,
            &mut rng_from_seed(5),
        );
        assert_eq!(a, b);
        assert!(generate_records("nope", 5, &w, &p, &mut rng_from_seed(1)).is_err());
        assert!(generate_records("hu-linear-student", 5, &[], &p, &mut rng_from_seed(1)).is_err());
        assert!(generate_records("hu-linear-student", 0, &w, &p, &mut rng_from_seed(1)).is_err());
    }

    #[test]
    fn bad_parameters_are_rejected() {
        let p = BTreeMap::new();
        let mut r = rng_from_seed(1);
        assert!(matches!(
            simulate("nope", 10, 2, None, &p, &mut r),
            Err(DataError::UnknownScenario(_))
        ));
        assert!(simulate("hu-sparse-lognormal-noise", 10, 2, Some(3), &p, &mut r).is_err());
        let mut q = BTreeMap::new();
        q.insert("zeta".to_string(), 0.7);
        assert!(simulate("tian-sparse-student", 10, 20, None, &q, &mut r).is_err());
        assert!(simulate("hu-linear-lognormal", 10, 20, None, &q, &mut r).is_err());
    }
}
