//! The experiment registry: ID → [`Plan`] (spec §X.3).

use super::{
    thin, Axis, Choice, DomainKind, EvalSample, ExperimentError, ExperimentInfo, MethodSpec, Plan,
    PlanOptions, Preset, Setting, Source, HU_PAPER,
};
use crate::algorithms::ParamMap;
use crate::loss::LossKind;
use serde_json::json;
use std::collections::BTreeMap;

/// ε grid of panels (a) and of the real-data panels.
const EPS_GRID: [f64; 6] = [0.5, 1.0, 1.5, 2.0, 2.5, 3.0];
/// d grid of Figs. 1, 2, 5, 6.
const D_DENSE: [f64; 3] = [200.0, 400.0, 800.0];
/// d grid of Figs. 7–11.
const D_SPARSE: [f64; 3] = [1000.0, 2000.0, 4000.0];
/// d grid of every `--quick` run (spec: d ≤ 400).
const D_QUICK: [f64; 3] = [100.0, 200.0, 400.0];
/// s\* grid of the sparse (c) panels.
const S_GRID: [f64; 5] = [10.0, 20.0, 30.0, 40.0, 50.0];
/// Subsample shares (percent) of the real-data panels.
const PCT_GRID: [f64; 5] = [20.0, 40.0, 60.0, 80.0, 100.0];
/// Iterations of the real-data reference w\* (non-private Frank–Wolfe).
const REFERENCE_T: usize = 2000;
const REFERENCE_T_QUICK: usize = 500;
/// λ_reg of the ℓ2-regularised logistic regression of Figs. 10–11 (spec H19).
const LAMBDA_REG: f64 = 0.01;

/// Every experiment ID, in paper and figure order.
pub fn ids() -> Vec<String> {
    let mut v = hu_ids();
    v.extend(super::tian::ids());
    v.push(super::genomics::ID.to_string());
    v.push(super::zhao::MEAN_TAILS_ID.to_string());
    v.push(super::zhao::RISK_ID.to_string());
    v.push(super::wangxu::ID.to_string());
    v.push(super::benchmark::ID.to_string());
    v.push(super::inference_coverage::ID.to_string());
    v
}

/// Whether `id` is a table experiment (its own runner, not a [`Plan`]).
pub fn is_table(id: &str) -> bool {
    id == super::genomics::ID
        || id == super::zhao::MEAN_TAILS_ID
        || id == super::wangxu::ID
        || id == super::benchmark::ID
        || id == super::inference_coverage::ID
}

/// The `hu-fig*` IDs.
fn hu_ids() -> Vec<String> {
    let mut v = Vec::new();
    for fig in 1..=11 {
        let panels: &[&str] = match fig {
            3 | 4 => &["a", "b"],
            _ => &["a", "b", "c"],
        };
        for p in panels {
            v.push(format!("hu-fig{fig}{p}"));
        }
    }
    v
}

/// The `--list` rows: id, paper, description and (real-data panels) which shipped
/// dataset replaces the paper's and how it is preprocessed.
pub fn list() -> Vec<ExperimentInfo> {
    ids()
        .into_iter()
        .map(|id| {
            if id == super::genomics::ID {
                return super::genomics::info();
            }
            if id == super::wangxu::ID {
                return super::wangxu::info();
            }
            if id == super::benchmark::ID {
                return super::benchmark::info();
            }
            if id == super::inference_coverage::ID {
                return super::inference_coverage::info();
            }
            if let Some(i) = super::zhao::info(&id) {
                return i;
            }
            let p = plan(&id, &PlanOptions::default()).expect("every registered ID has a plan");
            ExperimentInfo {
                id: p.id,
                paper: p.paper,
                description: p.description,
                data_note: p.data_note,
            }
        })
        .collect()
}

fn range(step: f64, k: usize) -> Vec<f64> {
    (1..=k).map(|i| i as f64 * step).collect()
}

/// One figure's fixed ingredients.
struct Family {
    fig: u32,
    algorithm: &'static str,
    alg_text: &'static str,
    what: &'static str,
    loss: LossKind,
    scenario: &'static str,
    sparse: bool,
    /// Fixed n of panel (a) (and of the sparse (c) panels).
    n_fixed: usize,
    /// n grid of panel (b) (and of the dense (c) panels).
    n_grid: Vec<f64>,
    d_grid: [f64; 3],
    /// Fixed d of the dense (c) panels.
    d_c: usize,
    /// `--quick`: cap on n (keeps every quick run under two minutes on two cores).
    quick_n_cap: Option<usize>,
    extra: Vec<(&'static str, &'static str)>,
    l2_penalty: f64,
}

fn family(fig: u32) -> Option<Family> {
    let lognormal_lin = "linear regression, lognormal features";
    Some(match fig {
        1 | 2 => Family {
            fig,
            algorithm: "ht-frank-wolfe",
            alg_text: "Algorithm 1 (ht-frank-wolfe)",
            what: if fig == 1 {
                lognormal_lin
            } else {
                "logistic regression, lognormal features, no noise"
            },
            loss: if fig == 1 {
                LossKind::Squared
            } else {
                LossKind::Logistic
            },
            scenario: if fig == 1 {
                "hu-linear-lognormal"
            } else {
                "hu-logistic-lognormal"
            },
            sparse: false,
            n_fixed: 10_000,
            n_grid: range(10_000.0, 9),
            d_grid: D_DENSE,
            d_c: 400,
            quick_n_cap: None,
            extra: vec![],
            l2_penalty: 0.0,
        },
        5 | 6 => Family {
            fig,
            algorithm: "ht-lasso",
            alg_text: "Algorithm 2 (ht-lasso)",
            what: if fig == 5 {
                lognormal_lin
            } else {
                "linear regression, Student t(10) features"
            },
            loss: LossKind::Squared,
            scenario: if fig == 5 {
                "hu-linear-lognormal"
            } else {
                "hu-linear-student"
            },
            sparse: false,
            n_fixed: if fig == 5 { 10_000 } else { 100_000 },
            n_grid: if fig == 5 {
                range(10_000.0, 9)
            } else {
                range(20_000.0, 5)
            },
            d_grid: D_DENSE,
            d_c: 200,
            quick_n_cap: if fig == 6 { Some(50_000) } else { None },
            extra: vec![],
            l2_penalty: 0.0,
        },
        7..=9 => Family {
            fig,
            algorithm: "ht-sparse-linreg",
            alg_text: "Algorithm 3 (ht-sparse-linreg)",
            what: match fig {
                7 => "sparse linear regression, N(0,5) features, lognormal noise",
                8 => "sparse linear regression, N(0,5) features, log-logistic noise",
                _ => "sparse linear regression, N(0,5) features, log-gamma noise",
            },
            loss: LossKind::Squared,
            scenario: match fig {
                7 => "hu-sparse-lognormal-noise",
                8 => "hu-sparse-loglogistic-noise",
                _ => "hu-sparse-loggamma-noise",
            },
            sparse: true,
            n_fixed: 50_000,
            n_grid: range(10_000.0, 5),
            d_grid: D_SPARSE,
            d_c: 0,
            quick_n_cap: None,
            extra: vec![],
            l2_penalty: 0.0,
        },
        10 | 11 => Family {
            fig,
            algorithm: "ht-sparse-opt",
            alg_text: "Algorithm 5 (ht-sparse-opt)",
            what: if fig == 10 {
                "l2-regularised sparse logistic regression, N(0,5) features, logistic noise"
            } else {
                "l2-regularised sparse logistic regression, Laplace(5) features, log-gamma noise"
            },
            loss: LossKind::Logistic,
            scenario: if fig == 10 {
                "hu-sparse-logistic-gaussian"
            } else {
                "hu-sparse-logistic-laplace"
            },
            sparse: true,
            n_fixed: 8_000,
            n_grid: range(2_000.0, 6)[1..].to_vec(),
            d_grid: D_SPARSE,
            d_c: 0,
            quick_n_cap: None,
            extra: vec![("lambda_reg", "0.01")],
            l2_penalty: LAMBDA_REG,
        },
        _ => return None,
    })
}

/// A real-data panel: (file, replaces, description of the file, loss).
fn real_panel(
    fig: u32,
    panel: char,
) -> Option<(&'static str, &'static str, &'static str, LossKind)> {
    Some(match (fig, panel) {
        (3, 'a') => (
            "flights_arr_delay.csv",
            "Blog Feedback (UCI; n = 60,021, d = 281)",
            "NYC 2013 flight arrival delays (nycflights13), n = 327,346, d = 23",
            LossKind::Squared,
        ),
        (3, 'b') => (
            "gss_wages_realrinc.csv",
            "Twitter (UCI; n = 583,249, d = 77)",
            "General Social Survey real income (stevedata/gss_wages), n = 37,230, d = 30",
            LossKind::Squared,
        ),
        (4, 'a') => (
            "cells_ps.csv",
            "Winnipeg crop mapping (UCI; n = 325,834, d = 175)",
            "cell segmentation quality (modeldata/cells, y = poorly segmented), n = 2,019, d = 56",
            LossKind::Logistic,
        ),
        (4, 'b') => (
            "pd_speech_pd.csv",
            "Year Prediction MSD (UCI; n = 515,345, d = 90)",
            "Parkinson's disease speech features (UCI via modeldata/pd_speech), n = 252, d = 751",
            LossKind::Logistic,
        ),
        _ => return None,
    })
}

fn fmt_n(n: f64) -> String {
    let mut m = n as u64;
    let mut k = 0;
    while m >= 10 && m % 10 == 0 {
        m /= 10;
        k += 1;
    }
    if k >= 3 {
        format!("{m}e{k}")
    } else {
        (n as u64).to_string()
    }
}

/// The methods of a panel: the private algorithm (one per preset) and, for the
/// "(c)" panels of Figs. 1, 2, 5, 6, the non-private Frank–Wolfe with the private T.
fn methods(
    algorithm: &str,
    loss: LossKind,
    domain: DomainKind,
    extra: &[(&str, &str)],
    preset: &Preset,
    non_private: bool,
) -> Vec<MethodSpec> {
    let base = crate::params::param_map(extra);
    let variant = |preset: Option<&str>| {
        let mut p = base.clone();
        if let Some(x) = preset {
            p.insert("preset".into(), x.to_string());
        }
        let label = match preset {
            Some(x) => format!("{algorithm} (preset={x})"),
            None => algorithm.to_string(),
        };
        MethodSpec::new(label, algorithm, loss, domain, p)
    };
    let mut out = match preset {
        Preset::Default => vec![variant(None)],
        Preset::Named(x) => vec![variant(Some(x))],
        Preset::Both => vec![variant(Some("theory")), variant(Some("paper"))],
    };
    if non_private {
        let private: Vec<String> = out.iter().map(|m| m.label.clone()).collect();
        for p in &private {
            let label = if private.len() == 1 {
                "frank-wolfe (non-private)".to_string()
            } else {
                format!("frank-wolfe (non-private, T of {p})")
            };
            out.push(MethodSpec {
                t_from: Some(p.clone()),
                ..MethodSpec::new(label, "frank-wolfe", loss, domain, ParamMap::new())
            });
        }
    }
    out
}

/// Settings of a two-axis grid (outer: `series`, inner: `x`).
fn grid2(
    series: (&'static str, &[f64]),
    x: (&'static str, &[f64]),
    mut make: impl FnMut(f64, f64) -> Setting,
) -> (Vec<Axis>, Vec<Setting>) {
    let mut v = Vec::new();
    for &s in series.1 {
        for &xv in x.1 {
            let mut st = make(s, xv);
            st.values = vec![(series.0, s), (x.0, xv)];
            v.push(st);
        }
    }
    let axis = |(name, values): (&'static str, &[f64])| Axis {
        name,
        values: values.to_vec(),
    };
    (vec![axis(series), axis(x)], v)
}

fn parse_id(id: &str) -> Option<(u32, char)> {
    let rest = id.strip_prefix("hu-fig")?;
    let panel = rest.chars().last()?;
    let fig: u32 = rest[..rest.len() - panel.len_utf8()].parse().ok()?;
    let ok = match fig {
        3 | 4 => matches!(panel, 'a' | 'b'),
        1..=11 => matches!(panel, 'a' | 'b' | 'c'),
        _ => false,
    };
    ok.then_some((fig, panel))
}

/// The plan of experiment `id` (no data are read here).
pub fn plan(id: &str, opts: &PlanOptions) -> Result<Plan, ExperimentError> {
    if id.starts_with("tian-fig") {
        return super::tian::plan(id, opts);
    }
    if id == super::zhao::RISK_ID {
        return super::zhao::risk_plan(opts);
    }
    if is_table(id) {
        return Err(ExperimentError::Invalid {
            id: id.into(),
            reason: "a table experiment with its own runner (experiments::genomics::run_table, zhao::run_mean_tails, wangxu::run_rate, benchmark::run_benchmark), not a figure panel".into(),
        });
    }
    hu_plan(id, opts)
}

/// The plan of a `hu-fig*` panel.
fn hu_plan(id: &str, opts: &PlanOptions) -> Result<Plan, ExperimentError> {
    let (fig, panel) = parse_id(id).ok_or_else(|| ExperimentError::UnknownId(id.to_string()))?;
    let q = opts.quick;
    let mut choices = vec![
        Choice::new(
            "delta",
            "n^-1.1 for (epsilon, delta) methods; 0 for pure-DP methods",
            false,
            "Hu et al. §6; spec §X.1",
        ),
        Choice::new(
            "repetitions",
            "mean and standard deviation over the repetitions (default 20; 5 suggested with --quick)",
            false,
            "spec §X.1: at least 20",
        ),
        Choice::new(
            "grid",
            if q {
                "--quick: first, middle and last point of each axis; d in {100, 200, 400}"
            } else {
                "spec §X.3 project defaults (the paper prints no grid)"
            },
            true,
            "spec §X.3",
        ),
        Choice::new(
            "hyperparameters",
            match &opts.preset {
                Preset::Default => "each algorithm's documented default preset; every other hyperparameter at its documented default (from n, d, epsilon, delta, s*)".to_string(),
                Preset::Named(x) => format!("preset={x} for every ht-* method; the rest at the documented defaults"),
                Preset::Both => "two methods per algorithm: preset=theory and preset=paper".to_string(),
            },
            true,
            "spec §X.2, H19-H21",
        ),
        Choice::new(
            "initial vector",
            "the algorithm's deterministic start: w0 = 0 (the l1-ball centre; the s-sparse 0 for the IHT methods), not the paper's random start (spec §X.1 lists recipes; heavydp's defaults use 0)",
            true,
            "spec §X.1 (the paper says only 'randomly sample')",
        ),
    ];

    if let Some((file, replaces, about, loss)) = real_panel(fig, panel) {
        let eps = if q {
            thin(&EPS_GRID)
        } else {
            EPS_GRID.to_vec()
        };
        let pct = if q {
            thin(&PCT_GRID)
        } else {
            PCT_GRID.to_vec()
        };
        let (axes, settings) = grid2(("epsilon", &eps), ("subsample_pct", &pct), |e, p| Setting {
            values: vec![],
            epsilon: e,
            n: None,
            d: None,
            sparsity: None,
            fraction: Some(p / 100.0),
            scenario_params: BTreeMap::new(),
        });
        let reference_t = if q { REFERENCE_T_QUICK } else { REFERENCE_T };
        let linear = matches!(loss, LossKind::Squared);
        let task = if linear {
            "linear regression"
        } else {
            "logistic regression"
        };
        let description = format!(
            "Fig. {fig}({panel}): Algorithm 1 (ht-frank-wolfe), {task} on real data ({file}): excess empirical risk vs subsample size, one curve per epsilon"
        );
        let data_note = format!(
            "real data: {file} ({about}) replaces the paper's {replaces}; {} standardised to mean 0 / variance 1 on the full data (non-private preprocessing, as in the paper){}",
            if linear { "features and response" } else { "features" },
            if linear { "" } else { "; labels {0, 1} -> {-1, +1}" }
        );
        let mut fixed = BTreeMap::new();
        fixed.insert("dataset".into(), json!(file));
        fixed.insert("loss".into(), json!(loss.name()));
        fixed.insert("domain".into(), json!({"kind": "l1-ball", "radius": 1.0}));
        fixed.insert(
            "delta".into(),
            json!("n^-1.1 (n = subsample size) for (epsilon, delta) methods"),
        );
        choices.push(Choice::new(
            "dataset",
            format!("{file} replaces {replaces}"),
            true,
            "CONTRACT (shipped datasets replace unavailable ones); spec H27",
        ));
        choices.push(Choice::new(
            "preprocessing",
            data_note.clone(),
            true,
            "paper §6 protocol; spec H27 — NOT private: statistics of the full data are used",
        ));
        choices.push(Choice::new(
            "w_star",
            format!("non-private frank-wolfe over the unit l1 ball on the full standardised data, T = {reference_t}"),
            true,
            "paper §6 (w* from non-private Frank-Wolfe); T is a project choice",
        ));
        choices.push(Choice::new(
            "subsamples",
            "seeded, data-independent draw without replacement of round(share * N) rows",
            true,
            "spec §X.3",
        ));
        choices.push(Choice::new(
            "metric",
            "excess empirical risk on the full dataset, L(w) - L(w*)",
            false,
            "paper §6; spec H26",
        ));
        push_alg_choices(&mut choices, "ht-frank-wolfe", &opts.preset);
        let methods = methods(
            "ht-frank-wolfe",
            loss,
            DomainKind::L1Ball { radius: 1.0 },
            &[],
            &opts.preset,
            false,
        );
        return Ok(Plan {
            id: id.to_string(),
            paper: format!("{HU_PAPER}, Fig. {fig}({panel})"),
            description,
            data_note: Some(data_note),
            options: opts.clone(),
            axes,
            x_axis: "subsample_pct",
            series_axis: Some("epsilon"),
            settings,
            methods,
            metrics: vec!["excess_risk"],
            source: Source::Real { file, replaces },
            loss,
            eval_l2_penalty: 0.0,
            fixed,
            choices,
            reference_t: Some(reference_t),
        });
    }

    let f = family(fig).ok_or_else(|| ExperimentError::UnknownId(id.to_string()))?;
    let cap = |n: usize| -> usize {
        match (q, f.quick_n_cap) {
            (true, Some(c)) => n.min(c),
            _ => n,
        }
    };
    let d_grid: Vec<f64> = if q {
        D_QUICK.to_vec()
    } else {
        f.d_grid.to_vec()
    };
    let eps_grid = if q {
        thin(&EPS_GRID)
    } else {
        EPS_GRID.to_vec()
    };
    let n_grid: Vec<f64> = match (q, f.quick_n_cap) {
        // a capped --quick grid: 20 %, 60 % and 100 % of the cap
        (true, Some(c)) if f.n_grid.iter().any(|n| *n > c as f64) => {
            thin(&range(c as f64 / 5.0, 5))
        }
        (true, _) => thin(&f.n_grid),
        (false, _) => f.n_grid.clone(),
    };
    let s_grid = if q { thin(&S_GRID) } else { S_GRID.to_vec() };
    let s_fixed = 20usize;
    let domain = if f.sparse {
        DomainKind::Sparse { radius: 1.0 }
    } else {
        DomainKind::L1Ball { radius: 1.0 }
    };
    let mut fixed = BTreeMap::new();
    fixed.insert("scenario".into(), json!(f.scenario));
    fixed.insert("loss".into(), json!(f.loss.name()));
    fixed.insert(
        "domain".into(),
        if f.sparse {
            json!({"kind": "sparse", "s": "s* of the setting", "radius": 1.0})
        } else {
            json!({"kind": "l1-ball", "radius": 1.0})
        },
    );
    fixed.insert("delta".into(), json!("n^-1.1 for (epsilon, delta) methods"));
    if f.l2_penalty > 0.0 {
        fixed.insert("lambda_reg".into(), json!(f.l2_penalty));
    }
    let sparsity = |s: usize| f.sparse.then_some(s);
    let n_fixed = cap(f.n_fixed);
    if n_fixed != f.n_fixed {
        choices.push(Choice::new(
            "quick n",
            format!(
                "--quick: fixed n = {} instead of the paper's {} (run time)",
                fmt_n(n_fixed as f64),
                fmt_n(f.n_fixed as f64)
            ),
            true,
            "spec §X.3 (--quick must finish in two minutes on two cores)",
        ));
    }
    let (axes, x_axis, series_axis, settings, non_private, fixed_text, x_text): (
        Vec<Axis>,
        &'static str,
        Option<&'static str>,
        Vec<Setting>,
        bool,
        String,
        &str,
    ) = match panel {
        'a' => {
            fixed.insert("n".into(), json!(n_fixed));
            if f.sparse {
                fixed.insert("s_star".into(), json!(s_fixed));
            }
            let (axes, settings) = grid2(("d", &d_grid), ("epsilon", &eps_grid), |d, e| {
                Setting::synthetic(e, n_fixed, d as usize, sparsity(s_fixed))
            });
            (
                axes,
                "epsilon",
                Some("d"),
                settings,
                false,
                if f.sparse {
                    format!("n = {}, s* = {s_fixed}", fmt_n(n_fixed as f64))
                } else {
                    format!("n = {}", fmt_n(n_fixed as f64))
                },
                "epsilon, one curve per d",
            )
        }
        'b' => {
            fixed.insert("epsilon".into(), json!(1.0));
            if f.sparse {
                fixed.insert("s_star".into(), json!(s_fixed));
            }
            let (axes, settings) = grid2(("d", &d_grid), ("n", &n_grid), |d, n| {
                Setting::synthetic(1.0, n as usize, d as usize, sparsity(s_fixed))
            });
            (
                axes,
                "n",
                Some("d"),
                settings,
                false,
                if f.sparse {
                    format!("epsilon = 1, s* = {s_fixed}")
                } else {
                    "epsilon = 1".to_string()
                },
                "n, one curve per d",
            )
        }
        _ if f.sparse => {
            fixed.insert("epsilon".into(), json!(1.0));
            fixed.insert("n".into(), json!(n_fixed));
            let (axes, settings) = grid2(("d", &d_grid), ("s_star", &s_grid), |d, s| {
                Setting::synthetic(1.0, n_fixed, d as usize, Some(s as usize))
            });
            (
                axes,
                "s_star",
                Some("d"),
                settings,
                false,
                format!("epsilon = 1, n = {}", fmt_n(n_fixed as f64)),
                "s*, one curve per d",
            )
        }
        _ => {
            fixed.insert("epsilon".into(), json!(1.0));
            fixed.insert("d".into(), json!(f.d_c));
            let settings = n_grid
                .iter()
                .map(|&n| Setting {
                    values: vec![("n", n)],
                    ..Setting::synthetic(1.0, n as usize, f.d_c, None)
                })
                .collect();
            (
                vec![Axis {
                    name: "n",
                    values: n_grid.clone(),
                }],
                "n",
                None,
                settings,
                true,
                format!("epsilon = 1, d = {}", f.d_c),
                "n, private vs non-private",
            )
        }
    };
    let metrics = if f.sparse {
        vec!["excess_risk", "l2_error"]
    } else {
        vec!["excess_risk"]
    };
    let metric_text = if f.sparse {
        "excess risk and l2 error"
    } else {
        "excess risk"
    };
    let description = format!(
        "Fig. {}({panel}): {}, {}: {metric_text} vs {x_text}; {fixed_text}",
        f.fig, f.alg_text, f.what
    );
    // evaluation choice
    let logistic = matches!(f.loss, LossKind::Logistic);
    let eval_text = match (opts.eval, logistic) {
        (EvalSample::Train, _) => "empirical excess risk on the training sample (eval=train)".to_string(),
        (EvalSample::Fresh, false) => "population excess risk in closed form, (w-w*)' E[xx'] (w-w*), from the known feature law (= the spec's fresh 1e5-record evaluation without its Monte Carlo error)".to_string(),
        (EvalSample::Fresh, true) => format!(
            "empirical excess risk on a fresh sample of {} records from the same generator and w* (generated in blocks of at most {} rows){}",
            super::EVAL_SAMPLE,
            super::EVAL_BLOCK,
            if f.l2_penalty > 0.0 { ", including the l2 penalty (lambda_reg/2)||w||^2" } else { "" }
        ),
    };
    choices.push(Choice::new("evaluation", eval_text, true, "spec H26"));
    if f.sparse {
        choices.push(Choice::new(
            "l2_error",
            "||w - w*||_2",
            false,
            "paper Figs. 7-11 ('error')",
        ));
    }
    if logistic && !f.sparse {
        choices.push(Choice::new(
            "labels",
            "y = sign(<x, w*>) as printed (no Bernoulli draw; separable data), so the excess risk over w* can be negative",
            false,
            "spec H25",
        ));
    }
    if f.l2_penalty > 0.0 {
        choices.push(Choice::new(
            "lambda_reg",
            format!("{}", f.l2_penalty),
            true,
            "spec H19 (the paper does not state the weight)",
        ));
    }
    push_alg_choices(&mut choices, f.algorithm, &opts.preset);
    if non_private {
        choices.push(Choice::new(
            "non-private baseline",
            "frank-wolfe over the same unit l1 ball, exact linear minimisation on the full empirical gradient, T = the private run's T (read from its fit report)",
            true,
            "spec H19",
        ));
    }
    Ok(Plan {
        id: id.to_string(),
        paper: format!("{HU_PAPER}, Fig. {fig}({panel})"),
        description,
        data_note: None,
        options: opts.clone(),
        axes,
        x_axis,
        series_axis,
        settings,
        methods: methods(
            f.algorithm,
            f.loss,
            domain,
            &f.extra,
            &opts.preset,
            non_private,
        ),
        metrics,
        source: Source::Synthetic {
            scenario: f.scenario,
        },
        loss: f.loss,
        eval_l2_penalty: f.l2_penalty,
        fixed,
        choices,
        reference_t: None,
    })
}

/// The constants of the Catoni–Giulini robust gradient that Hu et al. leave open,
/// shared by `ht-frank-wolfe` and `ht-sparse-opt` (spec H19).
fn robust_gradient_constants() -> Choice {
    Choice::new(
        "beta, tau, zeta",
        "beta = 1, tau = 1, zeta = 0.05",
        true,
        "spec H19",
    )
}

/// Hyperparameter choices specific to each algorithm (spec §X.2, H19–H21), as the
/// default presets of the algorithms resolve them.
fn push_alg_choices(choices: &mut Vec<Choice>, algorithm: &str, preset: &Preset) {
    let note = match preset {
        Preset::Default => "",
        _ => " (for the default preset; see 'hyperparameters' and the resolved values)",
    };
    match algorithm {
        "ht-frank-wolfe" => {
            choices.push(Choice::new(
                "s (Algorithm 1 scale)",
                format!("default preset theory: s = sqrt(n eps tau/(T ln(|V| d T/zeta))), NOT the printed s = floor(n eps), which makes the exponential mechanism almost uniform (preset=paper uses it and the summary flags it){note}"),
                true,
                "spec H20",
            ));
            choices.push(robust_gradient_constants());
            choices.push(Choice::new(
                "T, step",
                "T = floor((n eps)^(1/3)), eta_t = 2/(t+2)",
                false,
                "Hu et al. §6 (spec §X.2)",
            ));
        }
        "ht-lasso" => {
            choices.push(Choice::new(
                "T, K",
                format!("default preset paper: T = floor((n eps)^(2/5)), K = (n eps)^(1/4)/T^(1/8){note}"),
                false,
                "Hu et al. §6 (spec §X.2)",
            ));
        }
        "ht-sparse-linreg" => {
            choices.push(Choice::new("c (s = c s*)", "2", true, "spec H19"));
            choices.push(Choice::new(
                "T, K, eta",
                format!("default preset paper: s = c s*, T = floor(ln n), K = (n eps/(s T))^(1/4), eta = 0.5{note}"),
                false,
                "Hu et al. §6 (spec §X.2)",
            ));
        }
        "ht-sparse-opt" => {
            choices.push(robust_gradient_constants());
            choices.push(Choice::new(
                "k (Peeling truncation)",
                format!("default preset heavydp: the proof's k, NOT the printed k = c2 n eps, which swamps the signal (preset=paper uses it and the summary flags it){note}"),
                true,
                "spec H21",
            ));
            choices.push(Choice::new(
                "s, T, eta",
                "s = 2 s*, T = floor(ln n), eta = 0.5",
                false,
                "Hu et al. §6 (spec §X.2)",
            ));
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thin_picks_first_middle_last() {
        assert_eq!(thin(&EPS_GRID), vec![0.5, 1.5, 3.0]);
        assert_eq!(thin(&range(1.0, 9)), vec![1.0, 5.0, 9.0]);
        assert_eq!(thin(&S_GRID), vec![10.0, 30.0, 50.0]);
    }

    #[test]
    fn ids_parse() {
        assert_eq!(hu_ids().len(), 31);
        for id in hu_ids() {
            assert!(parse_id(&id).is_some(), "{id}");
        }
        // + tian-fig1a..2d + tian-table-genomics + zhao-mean-tails, zhao-risk, wangxu-rate,
        // real-benchmark, inference-coverage; every figure ID has a plan, the five tables
        // have none.
        assert_eq!(ids().len(), 45);
        for id in ids() {
            let p = plan(&id, &PlanOptions::default());
            assert_eq!(p.is_ok(), !is_table(&id), "{id}");
        }
        assert_eq!(ids().iter().filter(|i| is_table(i)).count(), 5);
        for bad in ["tian-fig3a", "tian-fig1e", "tian-fig1", "tian-table"] {
            assert!(plan(bad, &PlanOptions::default()).is_err(), "{bad}");
        }
        for bad in [
            "hu-fig3c",
            "hu-fig12a",
            "hu-fig0a",
            "hu-fig1",
            "fig1a",
            "hu-fig1d",
        ] {
            assert!(parse_id(bad).is_none(), "{bad}");
        }
    }
}
