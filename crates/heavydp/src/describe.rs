//! Private description of columns: means, and centres and scales, as `heavydp mean`
//! releases them (the describe step of a describe-then-fit workflow).
//!
//! The mean estimators of [`crate::estimators::private_mean`] take their defaults (clip
//! radius R, moment bounds M and τ) in the data's units, and those defaults are set for
//! unit-scale data: on a column in dollars the `catoni` estimate of a wage is off by an
//! order of magnitude. `--scale` puts each column on a unit scale first, exactly as
//! [`crate::pipeline::fit`] does for a fit:
//!
//! | `--scale` | what happens | privacy |
//! |---|---|---|
//! | `none` (default) | the estimator sees the raw columns (the plain `mean`, bit for bit) | the estimator's |
//! | `private` | the private quartiles of every column ([`crate::preprocess::private_quartiles`], five releases per column), centre c = their midpoint and scale s = IQR/1.349; the estimator runs on x̃ = clamp((x − c)/s, ±10) and the mean is c + s·m̃ | a share f (`--preprocess-share`, default 0.2) of ε and δ for the quartiles, the rest for the estimator, composed sequentially ([`PhasedLedger`]) |
//! | `public:FILE.json` | declared centres and scales, or ranges [a, b] (a declared range is a **bound**: the column is clamped to it) | the estimator's: declared values cost nothing |
//!
//! With `private` the output also carries the released quartiles, centre, IQR and the
//! robust standard deviation IQR/1.349 of every column (`scales`), in the format that
//! `fit --scale public:FILE.json` reads: reusing them in a fit is post-processing and
//! costs nothing more than the `mean` run already spent.
//!
//! Estimator parameters (`R`, `M`, `tau`, …) are in scaled units (robust standard
//! deviations) when `--scale` is not `none`.
//!
//! # Privacy
//!
//! Standardising with released or declared centres and scales and clamping to released
//! or declared bounds is a fixed row-wise map, so replace-one neighbours stay replace-one
//! neighbours and the estimator's guarantee holds conditionally on the quartiles; the
//! two phases compose by basic sequential composition. The map back c + s·m̃ is
//! post-processing. Nothing here reads a data value outside a mechanism.

use crate::estimators::private_mean::{self, MeanReport};
use crate::preprocess::{self, ColumnScale, PreprocessError, ScaleMode, WINSOR_BOUND};
use crate::privacy::{Budget, PhasedLedger};
use crate::{algorithms::ParamMap, data::Dataset};
use rand::RngCore;
use rayon::prelude::*;

/// What `heavydp mean` needs besides the data and the generator.
#[derive(Debug, Clone)]
pub struct DescribeOptions {
    /// A `heavydp mean --estimator` name.
    pub estimator: String,
    pub budget: Budget,
    pub params: ParamMap,
    pub scale: ScaleMode,
    /// Fraction of ε and δ for the private quartiles; `None` =
    /// [`preprocess::DEFAULT_PREPROCESS_SHARE`].
    pub preprocess_share: Option<f64>,
}

/// One column's released (or declared) location and spread.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ColumnSummary {
    /// The private quartiles [q₀.₂₅, q₀.₇₅] (`private` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quartiles: Option<[f64; 2]>,
    /// The centre c of the standardisation (the quartiles' midpoint for `private`).
    pub centre: f64,
    /// The scale s: IQR/1.349 (a robust standard deviation; 1 when the IQR is 0), or the
    /// declared scale.
    pub scale: f64,
    /// The interquartile range (`private` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub iqr: Option<f64>,
    /// The declared range the column was clamped to (`public` ranges only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub range: Option<[f64; 2]>,
}

/// The released mean, the per-column summaries and the composed privacy.
#[derive(Debug, Clone)]
pub struct DescribeOutcome {
    /// The estimator's report, its `mean` mapped back to raw units.
    pub report: MeanReport,
    /// Per column, `None` with `--scale none`.
    pub scales: Option<Vec<ColumnSummary>>,
    /// The model-file style `privacy` object (phases listed when there are two).
    pub privacy: serde_json::Value,
}

/// Why a private mean refuses its options or fails: one-line messages that name flags,
/// files and columns, never a data value (the CLI prints them, Python raises them).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DescribeError {
    #[error("--preprocess-share applies only with --scale private (nothing else is learned privately before the mean)")]
    ShareNeedsPrivateScale,
    #[error("--param KEY=auto needs scaled columns (--scale private or public:FILE.json): the value is in robust standard deviations")]
    AutoNeedsScaledColumns,
    #[error(transparent)]
    Estimator(#[from] crate::params::FitError),
    #[error(transparent)]
    Preprocess(#[from] PreprocessError),
    #[error(transparent)]
    Privacy(#[from] crate::privacy::PrivacyError),
}

impl From<DescribeError> for String {
    fn from(e: DescribeError) -> String {
        e.to_string()
    }
}

/// The private mean of the columns of `data` (features only), with the scaling of
/// `opts.scale`; see the module documentation.
pub fn describe<R: RngCore>(
    data: &Dataset,
    opts: &DescribeOptions,
    rng: &mut R,
) -> Result<DescribeOutcome, DescribeError> {
    let (n, d) = (data.n(), data.d());
    let share = opts
        .preprocess_share
        .unwrap_or(preprocess::DEFAULT_PREPROCESS_SHARE);
    if !(share > 0.0 && share < 1.0) {
        return Err(PreprocessError::BadShare(share).into());
    }
    if opts.preprocess_share.is_some() && !matches!(opts.scale, ScaleMode::Private) {
        return Err(DescribeError::ShareNeedsPrivateScale);
    }
    let mut ledger = PhasedLedger::new(opts.budget);
    // 1. centres, scales and clamp bounds (scaled units) per column
    let (summaries, clamp): (Option<Vec<ColumnSummary>>, Vec<[f64; 2]>) = match &opts.scale {
        ScaleMode::None => (None, Vec::new()),
        ScaleMode::Public(p) => {
            let scales = p.lookup(data.feature_names())?;
            let mut clamp = Vec::with_capacity(d);
            let summaries = data
                .feature_names()
                .iter()
                .zip(&scales)
                .map(|(name, c)| {
                    let range = p.ranges.get(name).copied();
                    clamp.push(match range {
                        Some([a, b]) => [(a - c.centre) / c.scale, (b - c.centre) / c.scale],
                        None => [-WINSOR_BOUND, WINSOR_BOUND],
                    });
                    ColumnSummary {
                        quartiles: None,
                        centre: c.centre,
                        scale: c.scale,
                        iqr: None,
                        range,
                    }
                })
                .collect();
            (Some(summaries), clamp)
        }
        ScaleMode::Private => {
            let (quartiles, spent) = preprocess::private_quartiles(
                data,
                false,
                ledger.share(share),
                rng as &mut dyn RngCore,
            )?;
            ledger.record("preprocessing", spent)?;
            let summaries = quartiles
                .into_iter()
                .map(|q| {
                    let c = preprocess::scale_from_quantiles(q);
                    ColumnSummary {
                        quartiles: Some(q),
                        centre: c.centre,
                        scale: c.scale,
                        iqr: Some(q[1] - q[0]),
                        range: None,
                    }
                })
                .collect();
            (Some(summaries), vec![[-WINSOR_BOUND, WINSOR_BOUND]; d])
        }
    };
    // 2. the estimator, on the raw or the standardised columns; on scaled columns a
    //    missing moment bound is `auto`: 1, the unit robust scale (the estimators'
    //    unit-scale default, true by construction on standardised columns)
    let mut params = opts.params.clone();
    let mut auto_note = None;
    if summaries.is_some() {
        let key = match opts.estimator.as_str() {
            "catoni" | "sparse-peeling" => "tau",
            _ => "M",
        };
        let given = params.get(key).map(String::as_str);
        if given.is_none() || given == Some("auto") {
            params.insert(key.into(), "1".into());
            auto_note = Some(format!(
                "{key} = auto = 1: the moment bound of columns standardised to a unit robust scale (clamped at ±{WINSOR_BOUND})"
            ));
        }
    } else if params.values().any(|v| v == "auto") {
        return Err(DescribeError::AutoNeedsScaledColumns);
    }
    let budget = if opts.budget.is_non_private() {
        opts.budget
    } else {
        ledger.remaining()
    };
    let mut report = match &summaries {
        None => private_mean::private_mean(&opts.estimator, data.x(), n, d, budget, &params, rng),
        Some(s) => {
            let cols: Vec<ColumnScale> = s
                .iter()
                .map(|c| ColumnScale {
                    centre: c.centre,
                    scale: c.scale,
                })
                .collect();
            let mut x = data.x().to_vec();
            x.par_chunks_mut(d.max(1) * 1024).for_each(|block| {
                for row in block.chunks_mut(d.max(1)) {
                    for ((v, c), b) in row.iter_mut().zip(&cols).zip(&clamp) {
                        *v = ((*v - c.centre) / c.scale).clamp(b[0], b[1]);
                    }
                }
            });
            private_mean::private_mean(&opts.estimator, &x, n, d, budget, &params, rng)
        }
    }?;
    ledger.record("estimator", report.privacy.clone())?;
    report.notes.extend(auto_note);
    if let Some(s) = &summaries {
        for (m, c) in report.mean.iter_mut().zip(s) {
            *m = c.centre + c.scale * *m;
        }
        for (name, c) in data.feature_names().iter().zip(s) {
            if c.iqr == Some(0.0) {
                report.notes.push(format!(
                    "column '{name}': its private IQR is 0 (an atom at the centre): scale 1 is used, in the column's units"
                ));
            }
        }
    }
    let privacy = ledger.summary_json("estimator");
    Ok(DescribeOutcome {
        report,
        scales: summaries,
        privacy,
    })
}

/// The `scales` object of `heavydp mean`'s output: `{NAME: {centre, scale, …}}`, which
/// `fit --scale public:FILE.json` reads back.
pub fn scales_json(names: &[String], scales: &[ColumnSummary]) -> serde_json::Value {
    serde_json::Value::Object(
        names
            .iter()
            .zip(scales)
            .map(|(n, s)| (n.clone(), serde_json::to_value(s).expect("serialisable")))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::noise::{gaussian, rng_from_seed};
    use crate::preprocess::PublicScales;

    /// n rows of two columns: N(500, 100²) (a wage-like offset column) and N(−3, 0.5²).
    fn two_columns(n: usize, seed: u64) -> Dataset {
        let mut rng = rng_from_seed(seed);
        let mut x = Vec::with_capacity(2 * n);
        for _ in 0..n {
            x.push(500.0 + gaussian(100.0, &mut rng));
            x.push(-3.0 + gaussian(0.5, &mut rng));
        }
        Dataset::new(x, vec![0.0; n], 2, vec!["a".into(), "b".into()], "y".into()).unwrap()
    }

    fn opts(estimator: &str, epsilon: f64, scale: ScaleMode) -> DescribeOptions {
        DescribeOptions {
            estimator: estimator.into(),
            budget: if epsilon.is_infinite() {
                Budget::non_private()
            } else {
                Budget::new(epsilon, 0.0).unwrap()
            },
            params: ParamMap::new(),
            scale,
            preprocess_share: None,
        }
    }

    #[test]
    fn scale_none_is_the_estimator_alone_bit_for_bit() {
        let data = two_columns(2000, 1);
        let o = opts("catoni", 1.0, ScaleMode::None);
        let a = describe(&data, &o, &mut rng_from_seed(7)).unwrap();
        let b = private_mean::private_mean(
            "catoni",
            data.x(),
            data.n(),
            2,
            o.budget,
            &ParamMap::new(),
            &mut rng_from_seed(7),
        )
        .unwrap();
        assert_eq!(a.report.mean, b.mean);
        assert!(a.scales.is_none());
        assert_eq!(a.privacy, serde_json::to_value(&b.privacy).unwrap());
    }

    #[test]
    fn private_scale_recovers_means_and_quartiles_within_budget() {
        let n = 20_000;
        let data = two_columns(n, 2);
        for est in ["catoni", "clip"] {
            let mut o = opts(est, 1.0, ScaleMode::Private);
            if est == "clip" {
                o.budget = Budget::new(1.0, 1e-6).unwrap();
            }
            let out = describe(&data, &o, &mut rng_from_seed(3)).unwrap();
            // the raw-unit means: within a few standard errors plus the noise
            assert!(
                (out.report.mean[0] - 500.0).abs() < 5.0,
                "{est}: {:?}",
                out.report.mean
            );
            assert!(
                (out.report.mean[1] + 3.0).abs() < 0.05,
                "{est}: {:?}",
                out.report.mean
            );
            let s = out.scales.as_ref().unwrap();
            // N(μ, σ²) quartiles μ ± 0.6745σ; scale = IQR/1.349 ≈ σ
            let q = s[0].quartiles.unwrap();
            assert!(
                (q[0] - (500.0 - 67.45)).abs() < 6.0 && (q[1] - (500.0 + 67.45)).abs() < 6.0,
                "{q:?}"
            );
            assert!((s[0].scale / 100.0 - 1.0).abs() < 0.1, "{:?}", s[0]);
            assert!((s[1].scale / 0.5 - 1.0).abs() < 0.1, "{:?}", s[1]);
            assert_eq!(s[0].iqr, Some(q[1] - q[0]));
            // two phases, the total within the budget
            let p = &out.privacy;
            assert_eq!(p["phases"].as_array().unwrap().len(), 2, "{p}");
            assert!(p["epsilon"].as_f64().unwrap() <= 1.0);
            assert!(p["delta"].as_f64().unwrap() <= o.budget.delta);
            assert!(out.report.notes.iter().any(|m| m.contains("= auto = 1")));
        }
    }

    #[test]
    fn raw_catoni_is_biased_and_scaling_fixes_it() {
        // the issue-19 case: τ = 1 on a column of scale 100 shrinks the estimate
        let data = two_columns(5000, 4);
        let raw = describe(
            &data,
            &opts("catoni", f64::INFINITY, ScaleMode::None),
            &mut rng_from_seed(1),
        )
        .unwrap();
        let scaled = describe(
            &data,
            &opts("catoni", f64::INFINITY, ScaleMode::Private),
            &mut rng_from_seed(1),
        )
        .unwrap();
        assert!(
            (raw.report.mean[0] - 500.0).abs() > 100.0,
            "{:?}",
            raw.report.mean
        );
        assert!(
            (scaled.report.mean[0] - 500.0).abs() < 5.0,
            "{:?}",
            scaled.report.mean
        );
    }

    fn public(json: &str, tag: &str) -> PublicScales {
        let path = std::env::temp_dir().join(format!(
            "heavydp-describe-{tag}-{}.json",
            std::process::id()
        ));
        std::fs::write(&path, json).unwrap();
        let p = PublicScales::read(path.to_str().unwrap()).unwrap();
        std::fs::remove_file(&path).ok();
        p
    }

    #[test]
    fn a_declared_range_bounds_the_column() {
        // column a ~ N(500, 100²) declared in [450, 550]: the non-private estimate is the
        // mean of the clamped column, which lies inside the range
        let data = two_columns(4000, 5);
        let p = public(
            r#"{"columns": {"a": {"min": 450, "max": 550}, "b": {"centre": -3, "scale": 0.5}}}"#,
            "range",
        );
        let mut o = opts("clip", f64::INFINITY, ScaleMode::Public(p));
        // a radius that clips nothing: the estimate is the plain mean of the clamped data
        o.params.insert("R".into(), "1e9".into());
        let out = describe(&data, &o, &mut rng_from_seed(1)).unwrap();
        let clamped: f64 = (0..data.n())
            .map(|i| data.x()[2 * i].clamp(450.0, 550.0))
            .sum::<f64>()
            / data.n() as f64;
        assert!(
            (out.report.mean[0] - clamped).abs() < 1e-9,
            "{} vs {clamped}",
            out.report.mean[0]
        );
        let raw_b: f64 = (0..data.n()).map(|i| data.x()[2 * i + 1]).sum::<f64>() / data.n() as f64;
        assert!((out.report.mean[1] - raw_b).abs() < 1e-9);
        let s = out.scales.unwrap();
        assert_eq!(s[0].range, Some([450.0, 550.0]));
        assert_eq!(s[1].range, None);
        // declared scales cost nothing: one phase
        assert!(out.privacy.get("phases").is_none());
    }

    #[test]
    fn released_scales_are_a_public_scale_file_for_a_fit() {
        let data = two_columns(3000, 6);
        let out = describe(
            &data,
            &opts("catoni", 2.0, ScaleMode::Private),
            &mut rng_from_seed(9),
        )
        .unwrap();
        let s = out.scales.unwrap();
        let json = serde_json::json!({"format": "heavydp-mean/1", "columns": ["a", "b"], "scales": scales_json(data.feature_names(), &s)});
        let p = public(&json.to_string(), "reuse");
        let back = p.lookup(data.feature_names()).unwrap();
        for (b, c) in back.iter().zip(&s) {
            assert_eq!((b.centre, b.scale), (c.centre, c.scale));
        }
    }

    #[test]
    fn auto_needs_scaled_columns_and_shares_are_checked() {
        let data = two_columns(200, 7);
        let mut o = opts("catoni", 1.0, ScaleMode::None);
        o.params.insert("tau".into(), "auto".into());
        let e = describe(&data, &o, &mut rng_from_seed(1)).unwrap_err();
        assert_eq!(e, DescribeError::AutoNeedsScaledColumns);
        assert!(e.to_string().contains("needs scaled columns"), "{e}");
        let mut o = opts("catoni", 1.0, ScaleMode::Private);
        o.preprocess_share = Some(1.0);
        let e = describe(&data, &o, &mut rng_from_seed(1)).unwrap_err();
        assert!(e.to_string().contains("--preprocess-share"), "{e}");
        let mut o = opts("catoni", 1.0, ScaleMode::None);
        o.preprocess_share = Some(0.3);
        let e = describe(&data, &o, &mut rng_from_seed(1)).unwrap_err();
        assert_eq!(e, DescribeError::ShareNeedsPrivateScale);
        assert!(
            e.to_string().contains("applies only with --scale private"),
            "{e}"
        );
    }
}
