//! The model file (`format: heavydp-model/2`; `/1` files still load), predictions and
//! evaluation metrics.
//!
//! `/2` adds `intercept` (prediction = ⟨x, w⟩ + intercept on raw columns), `preprocessing`
//! (the released centres and scales, the scaled-unit weights and how the intercept was
//! learned; its privacy cost is in `privacy.phases`) and, for `--algorithm auto`,
//! `selected` (what the rule picked and why). A `/1` file reads with intercept 0.

use crate::algorithms::FitReport;
use crate::data::Dataset;
use crate::linalg::{dot, norm2};
use crate::loss::{Loss, LossKind};
use crate::preprocess::Standardization;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use thiserror::Error;

/// The format tag written into every model file.
pub const FORMAT: &str = "heavydp-model/2";
/// The status of every model file an algorithm wrote (`heavydp fit --help`): the fit ran
/// to its end. It depends on public quantities only (whether an inner solver met its
/// tolerance depends on the data, so it is no status); files of earlier versions say
/// `max_iterations` or `converged`, read as `completed`. The intercept-only model has
/// no status.
pub const STATUS_COMPLETED: &str = "completed";
/// The first model format (intercept 0, no preprocessing), still accepted by
/// [`ModelFile::read`] (docs/model-file.md).
pub const FORMAT_V1: &str = "heavydp-model/1";

/// Writes `bytes` to `path` atomically (temporary file in the same folder, then rename),
/// so a failure never leaves a half-written file. The CLI writes every output file with it
/// and the Python binding its model files.
pub fn write_atomic(path: &str, bytes: &[u8]) -> Result<(), String> {
    let p = std::path::Path::new(path);
    let dir = p
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."));
    if !dir.is_dir() {
        return Err(format!(
            "{path}: the folder {} does not exist",
            dir.display()
        ));
    }
    let tmp = dir.join(format!(
        ".{}.tmp{}",
        p.file_name().and_then(|s| s.to_str()).unwrap_or("out"),
        std::process::id()
    ));
    let res = (|| -> std::io::Result<()> {
        let mut f = std::fs::File::create(&tmp)?;
        std::io::Write::write_all(&mut f, bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, p)
    })();
    if let Err(e) = res {
        let _ = std::fs::remove_file(&tmp);
        return Err(format!("{path}: cannot write: {e}"));
    }
    Ok(())
}

/// Errors reading or using a model file.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum ModelError {
    #[error("{path}: cannot read the model file: {reason}")]
    Io { path: String, reason: String },
    #[error("{path}: not a heavydp model file: {reason}")]
    Invalid { path: String, reason: String },
    #[error("{path}: unsupported model format '{found}' (expected '{FORMAT}' or '{FORMAT_V1}')")]
    Format { path: String, found: String },
    #[error("{path}: truth has {found} coefficients but the model has d = {expected}")]
    TruthShape {
        path: String,
        found: usize,
        expected: usize,
    },
}

/// A fitted model as stored on disk (CONTRACT "Model file").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelFile {
    pub format: String,
    pub algorithm: String,
    pub loss: String,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub loss_parameters: BTreeMap<String, f64>,
    pub domain: serde_json::Value,
    pub features: Vec<String>,
    pub target: String,
    pub weights: Vec<f64>,
    /// The intercept (0 in `/1` files and with `--intercept none`).
    #[serde(default)]
    pub intercept: f64,
    pub privacy: serde_json::Value,
    pub hyperparameters: BTreeMap<String, serde_json::Value>,
    pub n: usize,
    pub d: usize,
    // No `seed`: a released file must not carry the noise seed (with it, anyone can
    // re-run the fit on candidate datasets and recognise the one that reproduces the
    // weights; docs/privacy.md). Files written before still load: serde ignores the key.
    pub heavydp_version: String,
    #[serde(default)]
    pub status: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Raw-unit winsorisation bounds [lo, hi] per feature (`/2`, scaled fits): `predict`
    /// clamps each column to them before the linear model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub feature_bounds: Option<Vec<[f64; 2]>>,
    /// Raw-unit range [lo, hi] of a regression's predictions (privately scaled target):
    /// `predict` and `evaluate` clamp every prediction to it. Post-processing of the
    /// released target centre and scale ([`crate::preprocess::Standardization::target_bounds`]);
    /// the intercept-only regression's released clip range
    /// ([`crate::preprocess::private_mean_intercept_of`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_bounds: Option<[f64; 2]>,
    /// Released centres / scales and the scaled-unit model (`/2`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preprocessing: Option<serde_json::Value>,
    /// What `--algorithm auto` picked and why (`/2`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selected: Option<serde_json::Value>,
    /// Confidence intervals of the coefficients and the intercept (`--intervals LEVEL`;
    /// [`crate::inference`]): post-processing of the released values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intervals: Option<crate::inference::Intervals>,
}

/// The loss parameters written into a model file (`tau` of Huber, `c` of biweight).
pub fn loss_parameters(loss: &LossKind) -> BTreeMap<String, f64> {
    let mut m = BTreeMap::new();
    match loss {
        LossKind::Huber { tau } => {
            m.insert("tau".to_string(), *tau);
        }
        LossKind::Biweight { c } => {
            m.insert("c".to_string(), *c);
        }
        _ => {}
    }
    m
}

/// What `--algorithm auto` picked, or what the scaling fallback ran, and why: the
/// model file's `selected`.
#[derive(Debug, Clone, PartialEq)]
pub struct Selection {
    /// The algorithm that ran (`intercept-only` included).
    pub algorithm: String,
    pub reason: String,
    pub params: crate::algorithms::ParamMap,
}

/// What a fit learned before the algorithm ran: the model file's `preprocessing`, with
/// the released centres and scales and the scaled-unit model that [`ModelFile::from_fit`]
/// adds.
#[derive(Debug, Clone, PartialEq)]
pub struct Preprocessing {
    /// `--scale`: `private`, `none` or `public`.
    pub scale: String,
    /// `--intercept private`.
    pub private_intercept: bool,
    /// The file of `--scale public:FILE.json`.
    pub source: Option<String>,
    /// How the private intercept was learned.
    pub intercept_method: Option<String>,
    /// The private fit check's released statistic, threshold and decision
    /// ([`crate::preprocess::fit_check`]): `preprocessing.fit_check`.
    pub fit_check: Option<crate::preprocess::fit_check::FitCheck>,
}

/// A fit's released values and choices, in the units the algorithm saw: what
/// [`ModelFile::from_fit`] maps back to raw columns and writes.
pub struct FitRecord<'a> {
    /// The model file's `algorithm`: what `--algorithm` asked for when `selected` says
    /// what ran, else the algorithm that ran.
    pub algorithm: String,
    pub selected: Option<Selection>,
    pub loss: &'a LossKind,
    /// The domain's description (`{"kind": "none"}` for the intercept alone).
    pub domain: serde_json::Value,
    /// The data's names and shape.
    pub data: &'a Dataset,
    /// The released standardisation the algorithm's data went through.
    pub standardization: &'a Standardization,
    /// `None`: nothing was learned before the fit (`--scale none --intercept none`).
    pub preprocessing: Option<Preprocessing>,
    pub scaled_weights: Vec<f64>,
    pub scaled_intercept: f64,
    /// The ledger's summary (`privacy.phases` lists every phase).
    pub privacy: serde_json::Value,
    pub hyperparameters: BTreeMap<String, serde_json::Value>,
    pub status: Option<String>,
    pub notes: Vec<String>,
    pub intervals: Option<crate::inference::Intervals>,
    /// The released raw-unit range that bounds every prediction (a regression on a
    /// privately scaled target, or the intercept-only regression's clipped-mean range).
    pub target_bounds: Option<[f64; 2]>,
}

impl ModelFile {
    /// The model file of a fit (`pipeline::fit`): the scaled-unit model mapped back to raw
    /// columns by the released standardisation (post-processing), the released centres
    /// and scales in `preprocessing`, and a note when a raw-unit value is not finite.
    pub fn from_fit(fit: FitRecord<'_>) -> ModelFile {
        let loss_parameters = loss_parameters(fit.loss);
        let st = fit.standardization;
        let (weights, intercept) = st.unscale(&fit.scaled_weights, fit.scaled_intercept);
        let feature_bounds = st.raw_bounds();
        let target_bounds = fit.target_bounds;
        let preprocessing = fit.preprocessing.map(|p| {
            let (centres, scales): (Vec<f64>, Vec<f64>) =
                st.features.iter().map(|c| (c.centre, c.scale)).unzip();
            let mut m = serde_json::Map::new();
            m.insert("scale".into(), p.scale.into());
            m.insert(
                "intercept".into(),
                if p.private_intercept {
                    "private"
                } else {
                    "none"
                }
                .into(),
            );
            if let Some(source) = p.source {
                m.insert("source".into(), source.into());
            }
            if let Some(how) = p.intercept_method {
                m.insert("intercept_method".into(), how.into());
            }
            if let Some(c) = p.fit_check {
                m.insert(
                    "fit_check".into(),
                    serde_json::json!({
                        "statistic": c.statistic,
                        "threshold": c.threshold,
                        "kept": c.kept,
                    }),
                );
            }
            m.insert("centres".into(), serde_json::json!(centres));
            m.insert("scales".into(), serde_json::json!(scales));
            m.insert("target_centre".into(), serde_json::json!(st.target.centre));
            m.insert("target_scale".into(), serde_json::json!(st.target.scale));
            m.insert(
                "scaled_weights".into(),
                serde_json::json!(fit.scaled_weights),
            );
            m.insert(
                "scaled_intercept".into(),
                serde_json::json!(fit.scaled_intercept),
            );
            serde_json::Value::Object(m)
        });
        let mut model = ModelFile {
            format: FORMAT.to_string(),
            algorithm: fit.algorithm,
            loss: fit.loss.name().to_string(),
            loss_parameters,
            domain: fit.domain,
            features: fit.data.feature_names().to_vec(),
            target: fit.data.target_name().to_string(),
            weights,
            intercept,
            privacy: fit.privacy,
            hyperparameters: fit.hyperparameters,
            n: fit.data.n(),
            d: fit.data.d(),
            heavydp_version: crate::VERSION.to_string(),
            status: fit.status,
            notes: fit.notes,
            feature_bounds,
            preprocessing,
            selected: fit.selected.map(|s| {
                serde_json::json!({"algorithm": s.algorithm, "reason": s.reason, "params": s.params})
            }),
            intervals: fit.intervals,
            target_bounds,
        };
        if model.weights.iter().any(|w| !w.is_finite()) || !model.intercept.is_finite() {
            // Public: the scales and weights are released values.
            model
                .notes
                .push("a weight is not finite after mapping back to raw units".into());
        }
        model
    }

    /// Assembles the model file of a fit.
    pub fn from_report(
        algorithm: &str,
        loss: &LossKind,
        domain: serde_json::Value,
        data: &Dataset,
        report: &FitReport,
    ) -> ModelFile {
        let loss_parameters = loss_parameters(loss);
        ModelFile {
            format: FORMAT.to_string(),
            algorithm: algorithm.to_string(),
            loss: loss.name().to_string(),
            loss_parameters,
            domain,
            features: data.feature_names().to_vec(),
            target: data.target_name().to_string(),
            weights: report.weights.clone(),
            intercept: 0.0,
            privacy: serde_json::to_value(&report.privacy).expect("serialisable"),
            hyperparameters: report.hyperparameters.clone(),
            n: data.n(),
            d: data.d(),
            heavydp_version: crate::VERSION.to_string(),
            status: Some(STATUS_COMPLETED.to_string()),
            notes: report.notes.clone(),
            feature_bounds: None,
            target_bounds: None,
            preprocessing: None,
            selected: None,
            intervals: None,
        }
    }

    /// Reads and checks a model file.
    pub fn read(path: &str) -> Result<ModelFile, ModelError> {
        let text = std::fs::read_to_string(path).map_err(|e| ModelError::Io {
            path: path.into(),
            reason: e.to_string(),
        })?;
        ModelFile::parse(&text, path)
    }

    /// Parses and checks the text of a model file (`path` is used in messages); what
    /// [`ModelFile::read`] does after reading the file, and what `tests/fuzz.rs` feeds.
    pub fn parse(text: &str, path: &str) -> Result<ModelFile, ModelError> {
        let mut m: ModelFile = serde_json::from_str(text).map_err(|e| ModelError::Invalid {
            path: path.into(),
            reason: e.to_string(),
        })?;
        // files of earlier versions name the normal end of a fit "max_iterations" or (a
        // data-dependent bit then) "converged": both read as "completed"; an older
        // "tolerance_not_reached" is kept as written
        if matches!(m.status.as_deref(), Some("max_iterations" | "converged")) {
            m.status = Some(STATUS_COMPLETED.to_string());
        }
        if m.format != FORMAT && m.format != FORMAT_V1 {
            return Err(ModelError::Format {
                path: path.into(),
                found: m.format,
            });
        }
        if m.weights.len() != m.features.len() || m.weights.len() != m.d {
            return Err(ModelError::Invalid {
                path: path.into(),
                reason: "weights, features and d disagree".into(),
            });
        }
        if m.feature_bounds.as_ref().is_some_and(|b| {
            b.len() != m.d
                || b.iter()
                    .any(|[lo, hi]| lo.partial_cmp(hi).is_none_or(|o| o.is_gt()))
        }) {
            return Err(ModelError::Invalid {
                path: path.into(),
                reason: "feature_bounds must hold d pairs [lo, hi] with lo <= hi".into(),
            });
        }
        if m.target_bounds
            .is_some_and(|[lo, hi]| lo.partial_cmp(&hi).is_none_or(|o| o.is_gt()))
        {
            return Err(ModelError::Invalid {
                path: path.into(),
                reason: "target_bounds must be a pair [lo, hi] with lo <= hi".into(),
            });
        }
        if m.weights.iter().any(|w| !w.is_finite()) || !m.intercept.is_finite() {
            return Err(ModelError::Invalid {
                path: path.into(),
                reason: "non-finite weight".into(),
            });
        }
        m.loss_kind().map_err(|e| ModelError::Invalid {
            path: path.into(),
            reason: e.to_string(),
        })?;
        Ok(m)
    }

    /// The loss as a [`LossKind`].
    pub fn loss_kind(&self) -> Result<LossKind, crate::loss::LossError> {
        LossKind::parse(
            &self.loss,
            self.loss_parameters.get("tau").copied(),
            self.loss_parameters.get("c").copied(),
        )
    }

    /// Predictions for each row of `data` (features in model order): the regression value
    /// (clamped to `target_bounds` when present), or P(y = 1) for the logistic loss.
    pub fn predict(&self, data: &Dataset) -> Vec<f64> {
        let loss = self.loss_kind().unwrap_or(LossKind::Squared);
        let bounds = self.prediction_bounds(&loss);
        self.margins(data)
            .into_iter()
            .map(|m| loss.predict(clamp_to(m, bounds)))
            .collect()
    }

    /// The range every prediction is clamped to: `target_bounds` for a regression loss
    /// (a logistic margin is not in the target's units).
    fn prediction_bounds(&self, loss: &LossKind) -> Option<[f64; 2]> {
        self.target_bounds
            .filter(|_| !matches!(loss, LossKind::Logistic))
    }

    /// ⟨clamp(x), w⟩ + intercept for every row (`feature_bounds` applied when present).
    pub fn margins(&self, data: &Dataset) -> Vec<f64> {
        match &self.feature_bounds {
            None => data
                .margins(&self.weights)
                .into_iter()
                .map(|m| m + self.intercept)
                .collect(),
            Some(b) => (0..data.n())
                .map(|i| {
                    data.row(i)
                        .iter()
                        .zip(b)
                        .zip(&self.weights)
                        .map(|((x, [lo, hi]), w)| x.clamp(*lo, *hi) * w)
                        .sum::<f64>()
                        + self.intercept
                })
                .collect(),
        }
    }

    /// The metrics of this model on `data` (features in model order, response prepared
    /// for the loss), intercept and feature bounds included.
    pub fn evaluate(&self, data: &Dataset, w_star: Option<&[f64]>) -> Metrics {
        let loss = self.loss_kind().unwrap_or(LossKind::Squared);
        let bounds = self.prediction_bounds(&loss);
        match &self.feature_bounds {
            None => evaluate_bounded(&loss, data, &self.weights, self.intercept, bounds, w_star),
            Some(b) => {
                let mut x = data.x().to_vec();
                for row in x.chunks_mut(data.d()) {
                    for (v, [lo, hi]) in row.iter_mut().zip(b) {
                        *v = v.clamp(*lo, *hi);
                    }
                }
                let clamped = Dataset::new(
                    x,
                    data.y().to_vec(),
                    data.d(),
                    data.feature_names().to_vec(),
                    data.target_name().to_string(),
                )
                .expect("same shape");
                evaluate_bounded(
                    &loss,
                    &clamped,
                    &self.weights,
                    self.intercept,
                    bounds,
                    w_star,
                )
            }
        }
    }
}

/// Mean squared error of predictions `pred` against `y` (summed in row order): with
/// [`ModelFile::predict`], a model's test error in the demo, the benchmark and the tests.
pub fn mse(pred: &[f64], y: &[f64]) -> f64 {
    pred.iter()
        .zip(y)
        .map(|(p, t)| (p - t) * (p - t))
        .sum::<f64>()
        / y.len() as f64
}

/// Evaluation metrics (`heavydp evaluate`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Metrics {
    pub n: usize,
    pub mse: f64,
    pub mae: f64,
    pub risk: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub accuracy: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub excess_risk: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub l2_error: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub support_recall: Option<f64>,
}

/// Computes the metrics of weights `w` on `data` (features in model order, the response
/// prepared for `loss` — ±1 labels for logistic), optionally against a true parameter.
///
/// * `mse`, `mae`: of the prediction (regression value, or P(y = 1) against the 0/1 label);
/// * `risk`: mean loss; `excess_risk` = risk(w) − risk(w*) on the same data;
/// * `l2_error` = ‖w − w*‖₂; `support_recall` = |supp w ∩ supp w*| / |supp w*| when w* has
///   zeros; `accuracy`: share of correct signs for the logistic loss.
pub fn evaluate(loss: &LossKind, data: &Dataset, w: &[f64], w_star: Option<&[f64]>) -> Metrics {
    evaluate_affine(loss, data, w, 0.0, w_star)
}

/// As [`evaluate`], for the affine model ⟨x, w⟩ + b (the truth w* has no intercept: the
/// excess risk compares with ⟨x, w*⟩).
pub fn evaluate_affine(
    loss: &LossKind,
    data: &Dataset,
    w: &[f64],
    b: f64,
    w_star: Option<&[f64]>,
) -> Metrics {
    evaluate_bounded(loss, data, w, b, None, w_star)
}

/// x clamped to [lo, hi] (unchanged without bounds).
fn clamp_to(x: f64, bounds: Option<[f64; 2]>) -> f64 {
    match bounds {
        Some([lo, hi]) => x.clamp(lo, hi),
        None => x,
    }
}

/// As [`evaluate_affine`], with every margin ⟨x, w⟩ + b clamped to `bounds` (a
/// regression model's `target_bounds`) before the metrics.
fn evaluate_bounded(
    loss: &LossKind,
    data: &Dataset,
    w: &[f64],
    b: f64,
    bounds: Option<[f64; 2]>,
    w_star: Option<&[f64]>,
) -> Metrics {
    let n = data.n();
    let d = data.d();
    let logistic = matches!(loss, LossKind::Logistic);
    let mut se = 0.0;
    let mut ae = 0.0;
    let mut risk = 0.0;
    let mut correct = 0usize;
    for i in 0..n {
        let m = clamp_to(dot(data.row(i), w) + b, bounds);
        let y = data.y()[i];
        let (pred, target) = if logistic {
            (loss.predict(m), if y > 0.0 { 1.0 } else { 0.0 })
        } else {
            (m, y)
        };
        se += (pred - target) * (pred - target);
        ae += (pred - target).abs();
        risk += loss.value(m, y);
        if logistic && ((m >= 0.0) == (y > 0.0)) {
            correct += 1;
        }
    }
    let nf = n as f64;
    let mut out = Metrics {
        n,
        mse: se / nf,
        mae: ae / nf,
        risk: risk / nf,
        accuracy: logistic.then(|| correct as f64 / nf),
        excess_risk: None,
        l2_error: None,
        support_recall: None,
    };
    if let Some(ws) = w_star {
        let r_star = crate::loss::mean_loss(loss, data.x(), data.y(), d, ws);
        out.excess_risk = Some(out.risk - r_star);
        let diff: Vec<f64> = w.iter().zip(ws).map(|(a, b)| a - b).collect();
        out.l2_error = Some(norm2(&diff));
        let support: Vec<usize> = (0..d).filter(|&j| ws[j] != 0.0).collect();
        if support.len() < d && !support.is_empty() {
            let hit = support.iter().filter(|&&j| w[j] != 0.0).count();
            out.support_recall = Some(hit as f64 / support.len() as f64);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metrics_by_hand() {
        let data = Dataset::from_rows(vec![1.0, 0.0, 0.0, 1.0], vec![1.0, 3.0], 2).unwrap();
        let m = evaluate(&LossKind::Squared, &data, &[1.0, 1.0], Some(&[1.0, 0.0]));
        // predictions 1, 1: errors 0, 2
        assert_eq!(m.mse, 2.0);
        assert_eq!(m.mae, 1.0);
        assert_eq!(m.risk, 2.0);
        // w* predictions 1, 0: squared errors 0, 9 -> risk 4.5
        assert_eq!(m.excess_risk, Some(2.0 - 4.5));
        assert_eq!(m.l2_error, Some(1.0));
        assert_eq!(m.support_recall, Some(1.0));
        let lab = Dataset::from_rows(vec![1.0, -1.0], vec![1.0, 1.0], 1).unwrap();
        let m = evaluate(&LossKind::Logistic, &lab, &[2.0], None);
        assert_eq!(m.accuracy, Some(0.5));
    }

    fn model(loss: &str, target_bounds: Option<[f64; 2]>) -> ModelFile {
        ModelFile {
            format: FORMAT.into(),
            algorithm: "adassp".into(),
            loss: loss.into(),
            loss_parameters: BTreeMap::new(),
            domain: serde_json::json!({"kind": "unconstrained"}),
            features: vec!["x".into()],
            target: "y".into(),
            weights: vec![1e6],
            intercept: 1.0,
            privacy: serde_json::json!({}),
            hyperparameters: BTreeMap::new(),
            n: 10,
            d: 1,
            heavydp_version: crate::VERSION.into(),
            status: None,
            notes: Vec::new(),
            feature_bounds: Some(vec![[-1.0, 1.0]]),
            target_bounds,
            preprocessing: None,
            selected: None,
            intervals: None,
        }
    }

    #[test]
    fn earlier_status_words_read_as_completed() {
        let text = serde_json::to_string(&model("squared", None)).unwrap();
        for (written, read) in [
            ("completed", Some("completed")),
            ("max_iterations", Some("completed")),
            ("converged", Some("completed")),
            ("tolerance_not_reached", Some("tolerance_not_reached")),
        ] {
            let t = text.replace("\"status\":null", &format!("\"status\":\"{written}\""));
            assert_eq!(ModelFile::parse(&t, "m").unwrap().status.as_deref(), read);
        }
        assert_eq!(ModelFile::parse(&text, "m").unwrap().status, None);
    }

    #[test]
    fn regression_predictions_are_clamped_to_the_target_bounds() {
        // x = 0.5, −3 (clamped to −1), 0: margins 5·10⁵ + 1, −10⁶ + 1, 1
        let data = Dataset::from_rows(vec![0.5, -3.0, 0.0], vec![2.0, 2.0, 2.0], 1).unwrap();
        let m = model("squared", Some([-4.0, 6.0]));
        assert_eq!(m.predict(&data), vec![6.0, -4.0, 1.0]);
        // evaluate scores the clamped predictions: errors 4, 6, 1
        let e = m.evaluate(&data, None);
        assert_eq!(e.mse, (16.0 + 36.0 + 1.0) / 3.0);
        assert_eq!(e.mae, 11.0 / 3.0);
        // without bounds the margins stand
        assert_eq!(model("squared", None).predict(&data)[1], -1e6 + 1.0);
        // a logistic margin is not in the target's units: not clamped
        let p = model("logistic", Some([-4.0, 6.0])).predict(&data);
        assert!(p[0] > 0.999 && p[1] < 0.001);
        // a round trip keeps them; a reversed pair is rejected
        let text = serde_json::to_string(&model("squared", Some([-4.0, 6.0]))).unwrap();
        assert_eq!(
            ModelFile::parse(&text, "m").unwrap().target_bounds,
            Some([-4.0, 6.0])
        );
        let bad = text.replace("[-4.0,6.0]", "[6.0,-4.0]");
        assert!(matches!(
            ModelFile::parse(&bad, "m"),
            Err(ModelError::Invalid { .. })
        ));
    }
}
