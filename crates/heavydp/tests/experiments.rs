//! The experiment registry and runner: grid sizes of every ID, seed derivation,
//! determinism across thread counts, the CSV layout, the evaluation paths (closed form,
//! fresh logistic sample, real data) and failure bookkeeping. Runs use the Talwar
//! Frank–Wolfe algorithms as stand-ins on small grids, so they are fast.

use heavydp::algorithms::ParamMap;
use heavydp::experiments::{
    self, DomainKind, MethodSpec, Plan, PlanOptions, Preset, Results, Setting,
};
use heavydp::loss::LossKind;
use heavydp::noise::derive_seed;
use heavydp::test_support::{on_threads, params};
use std::collections::BTreeMap;

/// The unit ℓ1 ball of the hand-built methods.
const L1: DomainKind = DomainKind::L1Ball { radius: 1.0 };

fn opts(quick: bool) -> PlanOptions {
    PlanOptions {
        quick,
        ..Default::default()
    }
}

fn no_progress(_: usize, _: usize) {}

/// (full grid size, methods) per ID; every `--quick` grid is 3 × 3 (3 for the one-axis
/// (c) panels of Figs. 1, 2, 5, 6).
fn expected(id: &str) -> (usize, usize) {
    let fig: u32 = id
        .trim_start_matches("hu-fig")
        .trim_end_matches(['a', 'b', 'c'])
        .parse()
        .unwrap();
    let panel = id.chars().last().unwrap();
    match (fig, panel) {
        (3 | 4, _) => (30, 1),
        (1 | 2 | 5, 'a') | (6, 'a') => (18, 1),
        (1 | 2 | 5, 'b') => (27, 1),
        (1 | 2 | 5, 'c') => (9, 2),
        (6, 'b') => (15, 1),
        (6, 'c') => (5, 2),
        (_, 'a') => (18, 1),
        _ => (15, 1),
    }
}

#[test]
fn every_id_has_the_documented_grid() {
    let ids = experiments::ids();
    assert_eq!(ids.len(), 45);
    assert_eq!(ids.first().unwrap(), "hu-fig1a");
    assert_eq!(ids[30], "hu-fig11c");
    assert_eq!(ids[31], "tian-fig1a");
    assert_eq!(ids[39], "tian-table-genomics");
    assert_eq!(
        &ids[40..],
        [
            "zhao-mean-tails",
            "zhao-risk",
            "wangxu-rate",
            "real-benchmark",
            "inference-coverage"
        ]
    );
    for id in ids.iter().filter(|i| i.starts_with("hu-")) {
        let (full, methods) = expected(id);
        let p = experiments::plan(id, &opts(false)).unwrap();
        assert_eq!(p.settings.len(), full, "{id}");
        assert_eq!(p.methods.len(), methods, "{id}");
        let grid: usize = p.axes.iter().map(|a| a.values.len()).product();
        assert_eq!(grid, full, "{id}: axes vs settings");
        let q = experiments::plan(id, &opts(true)).unwrap();
        let quick = if p.axes.len() == 1 { 3 } else { 9 };
        assert_eq!(q.settings.len(), quick, "{id} --quick");
        assert!(
            q.settings.iter().all(|s| s.d.is_none_or(|d| d <= 400)),
            "{id}: --quick has d > 400"
        );
        // the keys are unique (they name seeds)
        let mut keys: Vec<String> = p.settings.iter().map(|s| s.key()).collect();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), full, "{id}");
        // every varied parameter is a column, x and series axes are among them
        assert!(p.axes.iter().any(|a| a.name == p.x_axis), "{id}");
        if let Some(s) = p.series_axis {
            assert!(p.axes.iter().any(|a| a.name == s), "{id}");
        }
        let sparse = matches!(
            id.as_str(),
            x if ["hu-fig7", "hu-fig8", "hu-fig9", "hu-fig10", "hu-fig11"]
                .iter()
                .any(|f| x.starts_with(f) && x.len() == f.len() + 1)
        );
        assert_eq!(p.metrics.contains(&"l2_error"), sparse, "{id}");
    }
}

#[test]
fn list_names_the_replaced_datasets() {
    let l = experiments::list();
    assert_eq!(l.len(), 45);
    for e in &l {
        let real = [
            "hu-fig3a",
            "hu-fig3b",
            "hu-fig4a",
            "hu-fig4b",
            "tian-table-genomics",
        ]
        .contains(&e.id.as_str());
        assert_eq!(e.data_note.is_some(), real, "{}", e.id);
        if real {
            let note = e.data_note.as_ref().unwrap();
            assert!(note.contains("replaces"), "{note}");
            assert!(note.contains("non-private"), "{note}");
        }
    }
    assert!(l[6]
        .data_note
        .as_ref()
        .unwrap()
        .contains("flights_arr_delay"));
    assert!(l[9].data_note.as_ref().unwrap().contains("pd_speech_pd"));
}

#[test]
fn methods_and_options() {
    let p = experiments::plan("hu-fig1c", &opts(false)).unwrap();
    assert_eq!(p.methods[0].algorithm, "ht-frank-wolfe");
    assert_eq!(p.methods[1].algorithm, "frank-wolfe");
    assert_eq!(p.methods[1].t_from.as_deref(), Some("ht-frank-wolfe"));
    assert!(!p.uses_printed_settings());
    let both = PlanOptions::from_params(false, &params(&[("preset", "both")])).unwrap();
    assert_eq!(both.preset, Preset::Both);
    let p = experiments::plan("hu-fig1c", &both).unwrap();
    assert_eq!(p.methods.len(), 4);
    assert!(p.uses_printed_settings());
    let p = experiments::plan("hu-fig10a", &opts(false)).unwrap();
    assert_eq!(p.methods[0].params.get("lambda_reg").unwrap(), "0.01");
    assert_eq!(p.eval_l2_penalty, 0.01);
    assert!(PlanOptions::from_params(false, &params(&[("preset", "x")])).is_err());
    assert!(PlanOptions::from_params(false, &params(&[("nope", "1")])).is_err());
    let e = experiments::plan("hu-fig12a", &opts(false)).unwrap_err();
    assert!(e.to_string().contains("--list"), "{e}");
}

/// A small private-vs-non-private plan on the lognormal linear scenario with the
/// Talwar Frank–Wolfe algorithms as stand-ins.
fn small_linear_plan() -> Plan {
    let mut p = experiments::plan("hu-fig1c", &opts(true)).unwrap();
    p.settings = [300.0, 600.0]
        .iter()
        .map(|&n| Setting {
            values: vec![("n", n)],
            epsilon: 1.0,
            n: Some(n as usize),
            d: Some(8),
            sparsity: None,
            fraction: None,
            scenario_params: BTreeMap::new(),
        })
        .collect();
    p.axes[0].values = vec![300.0, 600.0];
    p.methods = vec![
        MethodSpec::new(
            "dp-fw",
            "dp-frank-wolfe",
            LossKind::Squared,
            L1,
            params(&[("bound", "5"), ("T", "10")]),
        ),
        MethodSpec {
            t_from: Some("dp-fw".into()),
            ..MethodSpec::new("fw", "frank-wolfe", LossKind::Squared, L1, ParamMap::new())
        },
    ];
    p
}

fn run_with_threads(plan: &Plan, reps: usize, seed: u64, threads: usize) -> Results {
    on_threads(threads, || experiments::run(plan, reps, seed, &no_progress)).unwrap()
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    let plan = small_linear_plan();
    let a = run_with_threads(&plan, 3, 11, 1);
    let b = run_with_threads(&plan, 3, 11, 2);
    assert_eq!(a.rows, b.rows);
    assert_eq!(a.seeds, b.seeds);
    assert_eq!(a.resolved, b.resolved);
    // another base seed changes the numbers
    let c = run_with_threads(&plan, 3, 12, 2);
    assert_ne!(a.rows[0].summary.values, c.rows[0].summary.values);
}

#[test]
fn seeds_are_derived_from_id_setting_and_repetition() {
    let plan = small_linear_plan();
    let r = run_with_threads(&plan, 2, 5, 2);
    assert_eq!(r.seeds.len(), 2);
    for (s, st) in r.seeds.iter().zip(&plan.settings) {
        assert_eq!(s.setting, st.key());
        for (rep, seed) in s.rep_seeds.iter().enumerate() {
            assert_eq!(
                *seed,
                derive_seed(5, &["hu-fig1c", &st.key(), &rep.to_string()])
            );
        }
    }
    assert_eq!(plan.settings[0].key(), "n=300");
}

#[test]
fn rows_csv_and_summary() {
    let plan = small_linear_plan();
    let r = run_with_threads(&plan, 2, 1, 2);
    assert!(r.failures.is_empty(), "{:?}", r.failures);
    // one row per setting x method x metric, repetitions counted
    assert_eq!(r.rows.len(), 2 * 2);
    for row in &r.rows {
        assert_eq!(row.summary.reps, 2);
        assert_eq!(row.summary.values.len(), 2);
        assert!(row.summary.mean.is_finite() && row.summary.std >= 0.0);
        // closed-form population excess risk is a quadratic form: >= 0
        assert!(row.summary.values.iter().all(|v| *v >= 0.0), "{row:?}");
    }
    // the non-private baseline ran with the private run's T
    let fw = r.resolved.iter().find(|h| h.method == "fw").unwrap();
    assert_eq!(fw.hyperparameters["T"], serde_json::json!(10));
    let csv = experiments::results_csv(&plan, &r);
    let mut lines = csv.lines();
    assert_eq!(lines.next().unwrap(), "n,method,metric,mean,std,reps");
    let first: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(first.len(), 6);
    assert_eq!(first[0], "300");
    assert_eq!(first[1], "dp-fw");
    assert_eq!(first[2], "excess_risk");
    assert_eq!(first[5], "2");
    assert_eq!(csv.lines().count(), 1 + 4);
    let s = experiments::summary_json(&plan, &r, serde_json::json!({"threads": 2}));
    assert_eq!(s["id"], "hu-fig1c");
    assert_eq!(s["threads"], 2);
    assert_eq!(s["seeds"]["base_seed"], 1);
    assert_eq!(s["hyperparameters"]["printed_settings_used"], false);
    assert!(s["hyperparameters"]["project_choices"]
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c == "non-private baseline"));
    assert_eq!(s["heavydp_version"], heavydp::VERSION);
    assert_eq!(
        s["seeds"]["per_setting"][1]["rep_seeds"][1],
        derive_seed(1, &["hu-fig1c", "n=600", "1"])
    );
}

#[test]
fn logistic_scenarios_use_a_fresh_sample_and_failures_are_recorded() {
    let mut p = experiments::plan("hu-fig2c", &opts(true)).unwrap();
    p.settings.truncate(1);
    p.settings[0].n = Some(400);
    p.settings[0].d = Some(4);
    p.methods = vec![
        MethodSpec::new(
            "fw",
            "frank-wolfe",
            LossKind::Logistic,
            L1,
            params(&[("T", "20")]),
        ),
        // the sparse domain is not accepted by Frank-Wolfe: every fit fails
        MethodSpec::new(
            "fw-sparse",
            "frank-wolfe",
            LossKind::Logistic,
            L1,
            params(&[("T", "0")]),
        ),
    ];
    // T = 0 is rejected when building: the plan itself is invalid
    assert!(experiments::run(&p, 1, 1, &no_progress).is_err());
    p.methods[1].params = ParamMap::new();
    p.methods[1].domain = DomainKind::Sparse { radius: 1.0 };
    p.settings[0].sparsity = Some(2);
    let r = run_with_threads(&p, 2, 3, 2);
    let ok = &r.rows[0];
    assert_eq!(ok.summary.reps, 2);
    assert!(ok.summary.mean.is_finite());
    let bad = &r.rows[1];
    assert_eq!(bad.summary.reps, 0);
    assert!(bad.summary.mean.is_nan());
    assert_eq!(r.failures.len(), 2);
    assert!(
        r.failures[0].error.contains("sparse"),
        "{}",
        r.failures[0].error
    );
    // eval=train gives a different (empirical) number from the same fits
    let mut q = p.clone();
    q.options.eval = experiments::EvalSample::Train;
    let rt = run_with_threads(&q, 2, 3, 1);
    assert_ne!(rt.rows[0].summary.values, ok.summary.values);
}

#[test]
fn real_data_panels_standardise_and_subsample() {
    let mut p = experiments::plan("hu-fig4a", &opts(true)).unwrap();
    p.settings.retain(|s| s.epsilon == 0.5);
    p.methods[0].algorithm = "frank-wolfe".into();
    p.methods[0].params = params(&[("T", "5")]);
    let r = run_with_threads(&p, 2, 1, 2);
    let info = r.real_data.as_ref().unwrap();
    assert_eq!((info.n, info.d), (2019, 56));
    assert!(info.preprocessing[0].contains("non-private"));
    assert_eq!(r.rows.len(), 3);
    for row in &r.rows {
        assert_eq!(row.summary.reps, 2);
        assert!(row.summary.mean.is_finite(), "{row:?}");
    }
    // the full-data subsample is the same in both repetitions: no randomness in FW
    let full = r
        .rows
        .iter()
        .find(|x| x.setting_key.ends_with("=100"))
        .unwrap();
    assert_eq!(full.summary.values[0], full.summary.values[1]);
    assert_eq!(full.summary.std, 0.0);
}

/// The Hu et al. algorithms the panels run are deterministic given the seed whatever
/// the thread count too (small settings of hu-fig1a, hu-fig5c, hu-fig7a, hu-fig10a).
#[test]
fn hu_algorithms_do_not_depend_on_the_thread_count() {
    for (id, n, d, s) in [
        ("hu-fig1a", 600, 10, None),
        ("hu-fig5c", 600, 10, None),
        ("hu-fig7a", 800, 30, Some(3)),
        ("hu-fig10a", 800, 30, Some(3)),
    ] {
        let mut p = experiments::plan(id, &opts(true)).unwrap();
        p.settings.truncate(2);
        for st in &mut p.settings {
            st.n = Some(n);
            st.d = Some(d);
            if s.is_some() {
                st.sparsity = s;
            }
        }
        let a = run_with_threads(&p, 2, 9, 1);
        let b = run_with_threads(&p, 2, 9, 2);
        assert!(a.failures.is_empty(), "{id}: {:?}", a.failures);
        assert_eq!(a.rows, b.rows, "{id}");
        assert!(a.rows.iter().all(|r| r.summary.mean.is_finite()), "{id}");
    }
}

#[test]
fn tian_panels_grid_methods_and_a_run() {
    // Fig. 1: DP-IHT-H, DP-SLR (paper and theory profiles) and adaHuber; Fig. 2: DP-IHT-L
    // and DP-IHT-H; one curve per ζ; ℓ2 error only.
    for id in experiments::ids()
        .iter()
        .filter(|i| i.starts_with("tian-fig"))
    {
        let p = experiments::plan(id, &opts(false)).unwrap();
        let q = experiments::plan(id, &opts(true)).unwrap();
        let full = if id.ends_with('a') { 8 } else { 10 };
        assert_eq!(p.settings.len(), full, "{id}");
        assert_eq!(q.settings.len(), 6, "{id}");
        assert_eq!(p.series_axis, Some("zeta"));
        assert_eq!(p.metrics, vec!["l2_error"]);
        let methods: Vec<&str> = p.methods.iter().map(|m| m.algorithm.as_str()).collect();
        if id.starts_with("tian-fig1") {
            assert_eq!(
                methods,
                [
                    "dp-iht-huber",
                    "dp-slr",
                    "dp-iht-huber",
                    "dp-slr",
                    "adahuber"
                ]
            );
        } else {
            assert_eq!(
                methods,
                ["dp-iht-l1", "dp-iht-huber", "dp-iht-l1", "dp-iht-huber"]
            );
        }
        let one = experiments::plan(
            id,
            &PlanOptions::from_params(true, &params(&[("preset", "theory")])).unwrap(),
        )
        .unwrap();
        assert_eq!(
            one.methods.len(),
            if id.starts_with("tian-fig1") { 3 } else { 2 }
        );
        assert!(experiments::plan(
            id,
            &PlanOptions::from_params(true, &params(&[("preset", "heavydp")])).unwrap()
        )
        .is_err());
    }
    // A small run: the data follow ζ, DP-SLR gets bound = ln d, every fit succeeds.
    let mut plan = experiments::plan("tian-fig2d", &opts(true)).unwrap();
    for s in &mut plan.settings {
        s.n = Some(3000);
        s.d = Some(40);
    }
    let r = experiments::run(&plan, 2, 3, &no_progress).unwrap();
    assert!(r.failures.is_empty(), "{:?}", r.failures);
    assert!(r
        .rows
        .iter()
        .all(|row| row.summary.mean.is_finite() && row.summary.reps == 2));
    let mut fig1 = experiments::plan("tian-fig1b", &opts(true)).unwrap();
    fig1.settings.truncate(1);
    fig1.settings[0].n = Some(2000);
    let r = experiments::run(&fig1, 1, 3, &no_progress).unwrap();
    assert!(r.failures.is_empty(), "{:?}", r.failures);
    let slr = r
        .resolved
        .iter()
        .find(|h| h.method == "dp-slr (preset=paper)")
        .unwrap();
    assert_eq!(slr.hyperparameters["bound"], (100f64).ln());
}

#[test]
fn genomics_table_protocol_on_a_small_stand_in() {
    // The real file is 11.5 MB with d = 22 282 (minutes with adaHuber's KKT path); the
    // protocol runs here on a small stand-in under the same file name.
    use heavydp::experiments::genomics;
    let dir = std::env::temp_dir().join(format!("heavydp-genomics-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (n, d) = (24usize, 30usize);
    let mut rng = heavydp::noise::rng_from_seed(4);
    let mut text = String::from("y");
    for j in 0..d {
        text.push_str(&format!(",g{j}"));
    }
    text.push('\n');
    for _ in 0..n {
        let x: Vec<f64> = (0..d)
            .map(|_| heavydp::noise::gaussian(1.0, &mut rng))
            .collect();
        let y = 3.0 + 2.0 * x[3] - x[7] + heavydp::noise::laplace(0.3, &mut rng);
        text.push_str(&format!("{y}"));
        for v in x {
            text.push_str(&format!(",{v}"));
        }
        text.push('\n');
    }
    std::fs::write(dir.join(genomics::FILE), text).unwrap();
    let o = PlanOptions {
        quick: false,
        data_dir: Some(dir.clone()),
        ..Default::default()
    };
    let r = genomics::run_table(&o, 2, 1).unwrap();
    assert_eq!((r.n, r.d, r.reps), (n, d, 2));
    let names: Vec<&str> = r.rows.iter().map(|x| x.method.as_str()).collect();
    assert_eq!(
        names,
        [
            "no features (predict the mean)",
            "adaHuber (non-private)",
            "DP-SLR",
            "DP-IHT-H",
            "DP-IHT-L"
        ]
    );
    for row in &r.rows[1..] {
        assert!(
            row.mae_mean.is_finite() && row.loocv_mae_mean.is_finite(),
            "{row:?}"
        );
        assert!(row.size <= 5.0);
    }
    // The non-private fit finds the two real genes and beats the no-feature predictor.
    let ada = &r.rows[1];
    let genes: Vec<&str> = ada.selected.iter().map(|(g, _)| g.as_str()).collect();
    assert!(genes.contains(&"g3") && genes.contains(&"g7"), "{genes:?}");
    assert!(ada.loocv_mae_mean < r.rows[0].loocv_mae_mean);
    let md = genomics::table_markdown(&r);
    assert!(md.contains("| DP-IHT-L |") && md.contains("MAE (leave-one-out)"));
    assert!(genomics::table_csv(&r).lines().count() == 1 + 3 * 5);
    // --quick skips adaHuber's leave-one-out pass.
    let quick = genomics::run_table(&PlanOptions { quick: true, ..o }, 1, 1).unwrap();
    assert!(quick.rows[1].loocv_mae_mean.is_nan());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn zhao_risk_panel_and_a_small_run() {
    let p = experiments::plan("zhao-risk", &opts(false)).unwrap();
    assert_eq!(p.settings.len(), 5);
    assert_eq!(p.x_axis, "n");
    let algs: Vec<&str> = p.methods.iter().map(|m| m.algorithm.as_str()).collect();
    assert_eq!(
        algs,
        ["clipped-gd", "iterative-updating-gd", "ht-frank-wolfe"]
    );
    let mut q = experiments::plan("zhao-risk", &opts(true)).unwrap();
    assert_eq!(q.settings.len(), 3);
    q.settings.truncate(1);
    let r = experiments::run(&q, 2, 5, &no_progress).unwrap();
    assert!(r.failures.is_empty(), "{:?}", r.failures);
    for row in &r.rows {
        assert!(
            row.summary.mean.is_finite() && row.summary.mean >= 0.0,
            "{row:?}"
        );
    }
    // At n = 1000 with the declared M = 5, Theorem 4's T = rho n^2/(d R^2) is below 2: the
    // budget pays for no step and the average is the start point w_0 = 0, whose excess
    // risk is (w*)^T 1.25 I w* >= 1.25/d.
    let t = |m: &str| {
        r.resolved
            .iter()
            .find(|h| h.method == m)
            .unwrap()
            .hyperparameters["T"]
            .as_u64()
            .unwrap()
    };
    assert_eq!(t("clipped-gd"), 1);
    let gd = r.rows.iter().find(|x| x.method == "clipped-gd").unwrap();
    assert!(gd.summary.values.iter().all(|v| *v >= 0.125), "{gd:?}");
}

#[test]
fn zhao_mean_tails_protocol_on_a_small_grid() {
    use heavydp::experiments::zhao;
    let (settings, methods) = zhao::tail_grid(true);
    assert_eq!(settings.len(), 2);
    assert_eq!(methods.len(), 3);
    let (full, _) = zhao::tail_grid(false);
    assert_eq!(full.len(), 16);
    assert!(settings.iter().all(|s| s.n == 10_000 && s.d == 2));
    // --reps below 2000 is refused
    assert!(zhao::run_mean_tails(&opts(true), 100, 1).is_err());
    let mut small = settings.clone();
    for s in &mut small {
        s.n = 400;
        s.d = 4;
        s.delta = 400f64.powf(-1.1);
    }
    let r = zhao::run_tails_grid(small.clone(), &methods, 60, 3, true).unwrap();
    let r2 = zhao::run_tails_grid(small, &methods, 60, 3, true).unwrap();
    for (a, b) in r.rows.iter().zip(&r2.rows) {
        // NaN-aware: bit patterns
        let bits = |r: &zhao::TailRow| {
            let mut v: Vec<u64> = r
                .quantiles
                .iter()
                .flat_map(|q| [q.1.to_bits(), q.2.to_bits(), q.3.to_bits()])
                .collect();
            v.push(r.mean_error.to_bits());
            v.push(r.reps as u64);
            v
        };
        assert_eq!(bits(a), bits(b), "seeded runs repeat");
    }
    assert_eq!(r.rows.len(), 6);
    for row in &r.rows {
        assert_eq!(row.reps, 60, "{}", row.method);
        let q: Vec<f64> = row.quantiles.iter().map(|x| x.1).collect();
        assert!(q.windows(2).all(|w| w[0] <= w[1]), "{q:?}");
        for &(_, v, lo, hi) in &row.quantiles {
            assert!(lo <= v && v <= hi);
        }
    }
    let csv = zhao::tails_csv(&r);
    assert_eq!(csv.lines().count(), 1 + 6 * 6);
    assert!(zhao::tails_markdown(&r).contains("Tail claim"));
    assert_eq!(zhao::tail_verdicts(&r).len(), 2);
}

#[test]
fn wangxu_rate_protocol_on_a_small_grid() {
    use heavydp::experiments::wangxu;
    let (cases, ns, eps) = wangxu::grid(false);
    assert_eq!(cases.len(), 4);
    assert_eq!((ns.len(), eps.len()), (4, 3));
    assert!((cases[0].tau() - 3f64.sqrt()).abs() < 1e-12);
    assert_eq!(cases[1].theory_slope(), -1.0 / 3.0);
    assert!((wangxu::loglog_slope(&[(1.0, 1.0), (100.0, 0.1)]) + 0.5).abs() < 1e-12);
    let r = wangxu::run_rate_grid(&cases[..1], &[300, 3000], &[1.0], 2, 4, 20_000, true).unwrap();
    assert_eq!(r.rows.len(), 2 * 3);
    for row in &r.rows {
        assert_eq!(row.reps, 2, "{row:?}");
        assert!(row.excess_mean.is_finite() && row.l2_mean.is_finite());
    }
    let em: Vec<f64> = r
        .rows
        .iter()
        .filter(|x| x.method == "l1-regression-expmech")
        .map(|x| x.l2_mean)
        .collect();
    assert!(em[1] < em[0], "error falls with n: {em:?}");
    assert_eq!(r.slopes.len(), 3);
    assert_eq!(wangxu::rate_csv(&r).lines().count(), 1 + 2 * 6);
}
