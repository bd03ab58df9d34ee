//! Real datasets of Figs. 3–4: location, non-private standardisation, the reference
//! w\* (non-private Frank–Wolfe on the full data) and data-independent subsamples.

use super::{ExperimentError, RealDataInfo, DATA_DIR_ENV};
use crate::algorithms::{self, key, NoObserver, ParamMap, Problem};
use crate::constraints::L1Ball;
use crate::data::{read_csv, Dataset};
use crate::loss::LossKind;
use crate::noise::rng_from_seed;
use crate::privacy::Budget;
use rand::seq::index::sample;
use rand::RngCore;
use std::path::{Path, PathBuf};

/// The project's real-data folder, relative to the library crate's manifest.
const DEFAULT_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/real");

/// The folder holding the real datasets: the explicit option, else `$HEAVYDP_DATA_DIR`,
/// else the project's `data/real/`.
pub fn data_dir(explicit: Option<&Path>) -> Result<PathBuf, ExperimentError> {
    if let Some(p) = explicit {
        return Ok(p.to_path_buf());
    }
    if let Some(p) = std::env::var_os(DATA_DIR_ENV) {
        if !p.is_empty() {
            return Ok(PathBuf::from(p));
        }
    }
    let d = PathBuf::from(DEFAULT_DIR);
    if d.is_dir() {
        Ok(d)
    } else {
        Err(ExperimentError::RealData(format!(
            "the real-data folder was not found: set {DATA_DIR_ENV} to the folder holding the project's data/real/ files"
        )))
    }
}

/// A standardised real dataset with its reference w\*.
pub(crate) struct RealData {
    pub data: Dataset,
    pub w_star: Vec<f64>,
    pub info: RealDataInfo,
}

/// Loads `file`, standardises it (features; and the response when the loss is squared)
/// to mean 0 / variance 1 on the full data — the paper's **non-private** preprocessing —
/// prepares logistic labels, and fits the reference w\* by non-private Frank–Wolfe over
/// the unit ℓ1 ball with `reference_t` iterations.
pub(crate) fn load(
    file: &str,
    dir: &Path,
    loss: LossKind,
    reference_t: usize,
    seed: u64,
) -> Result<RealData, ExperimentError> {
    let path = dir.join(file);
    if !path.is_file() {
        return Err(ExperimentError::RealData(format!(
            "real dataset {} not found (set {DATA_DIR_ENV} to the folder holding {file})",
            path.display()
        )));
    }
    let path_s = std::fs::canonicalize(&path)
        .unwrap_or(path.clone())
        .to_string_lossy()
        .to_string();
    let raw = read_csv(&path_s, "y")?;
    let (n, d) = (raw.n(), raw.d());
    let mut x = raw.x().to_vec();
    let mut y = raw.y().to_vec();
    let mut constant = Vec::new();
    for j in 0..d {
        let (m, sd) = mean_sd((0..n).map(|i| x[i * d + j]), n);
        let ok = sd > 0.0 && sd.is_finite();
        if !ok {
            constant.push(raw.feature_names()[j].clone());
        }
        for i in 0..n {
            let v = &mut x[i * d + j];
            *v = if ok { (*v - m) / sd } else { 0.0 };
        }
    }
    let mut preprocessing = vec![format!(
        "features standardised to mean 0 / variance 1 with the full-data mean and standard deviation (non-private){}",
        if constant.is_empty() {
            String::new()
        } else {
            format!("; {} constant feature(s) set to 0", constant.len())
        }
    )];
    match loss {
        LossKind::Logistic => {
            loss.prepare_labels(&mut y)
                .map_err(|e| ExperimentError::RealData(format!("{path_s}: {e}")))?;
            preprocessing.push("labels {0, 1} mapped to {-1, +1}".into());
        }
        _ => {
            let (m, sd) = mean_sd(y.iter().copied(), n);
            if !(sd > 0.0 && sd.is_finite()) {
                return Err(ExperimentError::RealData(format!(
                    "{path_s}: the response is constant"
                )));
            }
            y.iter_mut().for_each(|v| *v = (*v - m) / sd);
            preprocessing
                .push("response standardised to mean 0 / variance 1 (non-private)".to_string());
        }
    }
    let data = Dataset::new(
        x,
        y,
        d,
        raw.feature_names().to_vec(),
        raw.target_name().to_string(),
    )?;
    // Reference w*: non-private Frank–Wolfe on the full standardised data.
    let mut params = ParamMap::new();
    params.insert(key::T.into(), reference_t.to_string());
    let fw = algorithms::build("frank-wolfe", &params)?;
    let domain = L1Ball { d, radius: 1.0 };
    let problem = Problem {
        data: &data,
        loss,
        domain: &domain,
    };
    let report = fw.fit(
        &problem,
        Budget::non_private(),
        &mut rng_from_seed(seed),
        &mut NoObserver,
    )?;
    let w_star = report.weights;
    let reference_risk = algorithms::empirical_risk(&loss, &data, &w_star);
    Ok(RealData {
        data,
        w_star,
        info: RealDataInfo {
            file: file.to_string(),
            path: path_s,
            n,
            d,
            constant_features: constant,
            preprocessing,
            reference_t,
            reference_risk,
        },
    })
}

/// Mean and population standard deviation (two passes).
fn mean_sd(v: impl Iterator<Item = f64> + Clone, n: usize) -> (f64, f64) {
    let nf = n as f64;
    let m = v.clone().sum::<f64>() / nf;
    let var = v.map(|a| (a - m) * (a - m)).sum::<f64>() / nf;
    (m, var.sqrt())
}

/// Size of a `fraction` subsample of `n` rows: round(fraction · n), at least 1.
pub(crate) fn subsample_size(n: usize, fraction: f64) -> usize {
    ((fraction * n as f64).round() as usize).clamp(1, n)
}

/// A subsample of `m` rows drawn without replacement by a data-independent index draw
/// (rows kept in file order).
pub(crate) fn subsample(data: &Dataset, m: usize, rng: &mut dyn RngCore) -> Dataset {
    if m >= data.n() {
        return data.clone();
    }
    let mut idx = sample(rng, data.n(), m).into_vec();
    idx.sort_unstable();
    data.select_rows(&idx)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subsample_sizes() {
        assert_eq!(subsample_size(2019, 0.2), 404);
        assert_eq!(subsample_size(252, 1.0), 252);
        assert_eq!(subsample_size(3, 0.01), 1);
    }

    #[test]
    fn missing_file_names_the_variable() {
        let e = load(
            "nope.csv",
            Path::new("/nonexistent"),
            LossKind::Squared,
            10,
            1,
        )
        .err()
        .unwrap();
        assert!(e.to_string().contains(DATA_DIR_ENV), "{e}");
    }
}
