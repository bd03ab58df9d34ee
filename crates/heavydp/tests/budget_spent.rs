//! The spent-ε table of `docs/privacy.md`, regenerated and compared by this test.
//!
//! Fits every private algorithm of [`heavydp::algorithms::catalogue`] with its default
//! parameters at ε = 1 and its default δ = n^−1.1 on a 10 000-row simulated set, and
//! checks that what the ledger certifies is between 0.98 and 1.0 of ε and never more than
//! δ. The Markdown table of the results lives in `docs/privacy.md` between the markers
//! `<!-- spent-table:begin -->` / `<!-- spent-table:end -->`; the test fails when the file
//! differs from the generated table, and rewrites it when run with `HEAVYDP_UPDATE_DOCS=1`.

use heavydp::algorithms::{build, catalogue, ParamMap, Problem};
use heavydp::constraints::{ConstraintSet, DomainSpec};
use heavydp::data::scenarios::simulate;
use heavydp::data::Dataset;
use heavydp::loss::LossKind;
use heavydp::noise::rng_from_seed;
use heavydp::privacy::Budget;
use heavydp::test_support::FitSeeded;
use std::collections::BTreeMap;
use std::path::PathBuf;

const N: usize = 10_000;
const EPSILON: f64 = 1.0;

/// How an algorithm is exercised: scenario, dimension, loss, domain and the parameters
/// that have no default (the public bound of the bounded family).
struct Setup {
    scenario: &'static str,
    d: usize,
    loss: &'static str,
    domain: DomainSpec,
    params: &'static [(&'static str, &'static str)],
}

impl Setup {
    /// The s of a sparse domain.
    fn sparsity(&self) -> Option<usize> {
        match self.domain {
            DomainSpec::Sparse { s, .. } => Some(s),
            _ => None,
        }
    }
}

fn setup(name: &str) -> Setup {
    let dense = |loss, domain| Setup {
        scenario: "hu-linear-lognormal",
        d: 20,
        loss,
        domain,
        params: &[],
    };
    let l1 = DomainSpec::L1Ball { radius: 1.0 };
    let l2 = DomainSpec::L2Ball { radius: 1.0 };
    let sparse = DomainSpec::Sparse { s: 5, radius: 1.0 };
    match name {
        "dp-frank-wolfe" | "dp-frank-wolfe-gaussian" => Setup {
            params: &[("bound", "2")],
            ..dense("squared", l1)
        },
        "adassp" => Setup {
            params: &[("bound", "2")],
            ..dense("squared", DomainSpec::Unconstrained)
        },
        "noisy-mirror-descent" | "objective-perturbation" => Setup {
            params: &[("bound", "2")],
            ..dense("squared", l2)
        },
        "ht-frank-wolfe" | "ht-lasso" => dense("squared", l1),
        "clipped-gd" | "iterative-updating-gd" => Setup {
            scenario: "hu-linear-student",
            ..dense("squared", l2)
        },
        "l1-regression-expmech" => Setup {
            scenario: "hu-linear-student",
            d: 2,
            ..dense("absolute", l2)
        },
        "ht-sparse-linreg" | "ht-sparse-opt" => Setup {
            scenario: "hu-sparse-lognormal-noise",
            d: 50,
            ..dense("squared", sparse)
        },
        "dp-slr" => Setup {
            scenario: "tian-sparse-student",
            d: 50,
            params: &[("bound", "4")],
            ..dense("squared", sparse)
        },
        "dp-iht-huber" => Setup {
            scenario: "tian-sparse-student",
            d: 50,
            ..dense("huber", sparse)
        },
        "dp-iht-l1" => Setup {
            scenario: "tian-sparse-student",
            d: 50,
            ..dense("absolute", sparse)
        },
        other => panic!("no setup for '{other}': add one to tests/budget_spent.rs"),
    }
}

/// The setting that selects the papers' printed constants (docs/privacy.md §8, "The noise
/// spends the budget"), for the table's "before (papers' constants)" column; `None` where
/// the default calibration is the papers' own.
fn previous(name: &str) -> Option<(&'static str, &'static str)> {
    match name {
        "dp-frank-wolfe-gaussian"
        | "noisy-mirror-descent"
        | "ht-lasso"
        | "ht-sparse-linreg"
        | "ht-sparse-opt"
        | "dp-iht-huber"
        | "dp-iht-l1"
        | "dp-slr" => Some(("calibration", "paper")),
        "objective-perturbation" => Some(("calibration", "replace-one")),
        "clipped-gd" | "iterative-updating-gd" => Some(("rho_rule", "eq15")),
        _ => None,
    }
}

/// Rows that may stay below 0.98 of ε, with the reason (printed in the table).
fn exception(_name: &str) -> Option<&'static str> {
    None
}

struct Row {
    name: &'static str,
    privacy: &'static str,
    setup: String,
    delta: f64,
    spent_epsilon: f64,
    spent_delta: f64,
    seconds: f64,
    /// The default noise calibration (hyperparameter `calibration` or `rho_rule`).
    calibration: String,
    /// (setting, spent ε) with the pre-issue-20 calibration.
    before: Option<(String, f64)>,
    note: String,
}

/// One setting made concrete: its data (seed 1, labels prepared for the loss), w*, loss,
/// domain and parameters.
struct Instance {
    data: Dataset,
    w_star: Vec<f64>,
    loss: LossKind,
    domain: Box<dyn ConstraintSet>,
    params: ParamMap,
}

fn instance(name: &str) -> Instance {
    let s = setup(name);
    let (mut data, truth) = simulate(
        s.scenario,
        N,
        s.d,
        s.sparsity(),
        &BTreeMap::new(),
        &mut rng_from_seed(1),
    )
    .unwrap();
    let loss = LossKind::parse(s.loss, None, None).unwrap();
    loss.prepare_labels(data.y_mut()).unwrap();
    let params = heavydp::params::param_map(s.params);
    Instance {
        data,
        w_star: truth.w_star,
        loss,
        domain: s.domain.build(s.d).unwrap(),
        params,
    }
}

fn fit(name: &'static str, privacy: &'static str) -> Row {
    let Instance {
        data,
        loss,
        domain,
        params,
        ..
    } = instance(name);
    let alg = build(name, &params).unwrap();
    let before_alg = previous(name).map(|(k, v)| {
        let mut p = params.clone();
        p.insert(k.to_string(), v.to_string());
        (format!("{k}={v}"), build(name, &p).unwrap())
    });
    let delta = (N as f64).powf(-1.1);
    let budget = if privacy == "pure" {
        Budget::pure(EPSILON).unwrap()
    } else {
        Budget::new(EPSILON, delta).unwrap()
    };
    let problem = Problem::new(&data, loss, domain.as_ref());
    let t0 = std::time::Instant::now();
    let report = alg
        .try_fit_seeded(&problem, budget, 2)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let seconds = t0.elapsed().as_secs_f64();
    let before = before_alg.map(|(setting, a)| {
        let r = a
            .try_fit_seeded(&problem, budget, 2)
            .unwrap_or_else(|e| panic!("{name} {setting}: {e}"));
        (setting, r.privacy.epsilon)
    });
    let h = &report.hyperparameters;
    let calibration = ["calibration", "rho_rule"]
        .iter()
        .find_map(|k| {
            h.get(*k)
                .and_then(|v| v.as_str())
                .map(|v| format!("{k}={v}"))
        })
        .unwrap_or_else(|| "—".into());
    let s = setup(name);
    let mut desc = format!("{} d={} {} {}", s.scenario, s.d, s.loss, s.domain.name());
    if let Some(k) = s.sparsity() {
        desc.push_str(&format!(" s={k}"));
    }
    for (k, v) in s.params {
        desc.push_str(&format!(" {k}={v}"));
    }
    Row {
        name,
        privacy,
        setup: desc,
        delta: budget.delta,
        spent_epsilon: report.privacy.epsilon,
        spent_delta: report.privacy.delta,
        seconds,
        calibration,
        before,
        note: exception(name).unwrap_or("").to_string(),
    }
}

fn table(rows: &[Row]) -> String {
    let mut t = String::from(
        "| algorithm | privacy | data (n = 10 000) | budget δ | default calibration | spent ε / ε | spent δ | before (papers' constants) | note |\n|---|---|---|---|---|---|---|---|---|\n",
    );
    for r in rows {
        t.push_str(&format!(
            "| `{}` | {} | {} | {} | {} | {:.4} | {} | {} | {} |\n",
            r.name,
            r.privacy,
            r.setup,
            if r.delta > 0.0 {
                format!("{:.3e}", r.delta)
            } else {
                "0".into()
            },
            r.calibration,
            r.spent_epsilon / EPSILON,
            if r.spent_delta > 0.0 {
                format!("{:.3e}", r.spent_delta)
            } else {
                "0".into()
            },
            match &r.before {
                Some((setting, e)) => format!("{:.4} (`{setting}`)", e / EPSILON),
                None => "unchanged".into(),
            },
            r.note
        ));
    }
    t
}

#[test]
fn every_private_algorithm_spends_its_budget() {
    let mut rows = Vec::new();
    for info in catalogue() {
        if info.privacy == "none" {
            // Non-private algorithms (frank-wolfe, adahuber) have no ledger to fill.
            continue;
        }
        let r = fit(info.name, info.privacy);
        eprintln!(
            "{:<26} spent eps {:.4}  delta {:.3e} / {:.3e}  ({:.1} s)",
            r.name, r.spent_epsilon, r.spent_delta, r.delta, r.seconds
        );
        rows.push(r);
    }
    let mut failures = Vec::new();
    for r in &rows {
        let ratio = r.spent_epsilon / EPSILON;
        if ratio > 1.0 || r.spent_delta > r.delta {
            failures.push(format!(
                "{}: spent ({}, {}) exceeds the budget",
                r.name, r.spent_epsilon, r.spent_delta
            ));
        }
        if ratio < 0.98 && exception(r.name).is_none() {
            failures.push(format!("{}: spends only {ratio:.4} of epsilon", r.name));
        }
    }
    let generated = table(&rows);
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/privacy.md");
    let doc = std::fs::read_to_string(&path).unwrap();
    let (begin, end) = ("<!-- spent-table:begin -->\n", "<!-- spent-table:end -->");
    let i = doc
        .find(begin)
        .expect("docs/privacy.md has the begin marker")
        + begin.len();
    let j = doc.find(end).expect("docs/privacy.md has the end marker");
    if doc[i..j] != generated {
        if std::env::var("HEAVYDP_UPDATE_DOCS").as_deref() == Ok("1") {
            let new = format!("{}{}{}", &doc[..i], generated, &doc[j..]);
            std::fs::write(&path, new).unwrap();
        } else {
            failures.push(format!(
                "docs/privacy.md's spent table is out of date (rerun with HEAVYDP_UPDATE_DOCS=1):\n{generated}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// ℓ2 distance of a fit from the truth, averaged over seeds, with and without the
/// pre-issue-20 setting.
fn mean_error(name: &'static str, extra: Option<(&str, &str)>, seeds: u64) -> f64 {
    let Instance {
        data,
        w_star,
        loss,
        domain,
        mut params,
    } = instance(name);
    if let Some((k, v)) = extra {
        params.insert(k.into(), v.into());
    }
    let alg = build(name, &params).unwrap();
    let budget = Budget::new(EPSILON, (N as f64).powf(-1.1)).unwrap();
    let problem = Problem::new(&data, loss, domain.as_ref());
    (0..seeds)
        .map(|seed| {
            let r = alg.fit_seeded(&problem, budget, 100 + seed);
            heavydp::linalg::dist2(&r.weights, &w_star)
        })
        .sum::<f64>()
        / seeds as f64
}

#[test]
fn spending_the_whole_budget_improves_accuracy() {
    // Known truth (the scenario's w*), ε = 1, n = 10 000: the recalibrated default is at
    // least as accurate as the papers' constants (less noise for the same certified
    // budget). Measured (8 seeds) and printed with --nocapture.
    let seeds = 8;
    for name in [
        "dp-iht-huber",
        "dp-iht-l1",
        "ht-sparse-linreg",
        "dp-slr",
        "dp-frank-wolfe-gaussian",
        "noisy-mirror-descent",
        "ht-lasso",
        "clipped-gd",
        "objective-perturbation",
    ] {
        let now = mean_error(name, None, seeds);
        let before = mean_error(name, previous(name), seeds);
        eprintln!("{name:<26} mean l2 error: default {now:.4}, papers' constants {before:.4}");
        // Measured: dp-iht-huber 1.085 vs 1.200, dp-iht-l1 1.070 vs 1.178,
        // dp-frank-wolfe-gaussian 0.276 vs 0.316, noisy-mirror-descent 0.286 vs 0.673,
        // clipped-gd 0.130 vs 0.140. The others (ht-sparse-linreg, dp-slr, ht-lasso,
        // objective-perturbation) differ by less than the seed-to-seed spread at n = 10⁴.
        if [
            "dp-iht-huber",
            "dp-iht-l1",
            "dp-frank-wolfe-gaussian",
            "noisy-mirror-descent",
            "clipped-gd",
        ]
        .contains(&name)
        {
            assert!(
                now < before,
                "{name}: default {now} vs papers' constants {before}"
            );
        }
    }
}
