//! The sufficient-statistics path (`suffstats=on`) against the data passes
//! (`suffstats=off`) on seeded fits, for every Frank–Wolfe variant whose gradient is an
//! exact full mean gradient; mirror descent and objective perturbation
//! use [`fit_on_off_auto`] and [`assert_same_release`] from their own tests.
//!
//! Tolerance. The two paths compute the same gradient (2/n)Σ x̃_i(⟨x̃_i, w⟩ − ỹ_i) in a
//! different summation order, so each gradient entry differs by a few ulps of the sums'
//! magnitudes (≈ 1e−15 relative at these n, d). A Frank–Wolfe iterate over a polytope
//! depends on the gradient only through the selected vertex, and with continuous noise a
//! rounding-level near-tie between two scores has probability ≈ 1e−13: the weights are
//! then bit-for-bit equal, which the polytope tests assert. Where the update is continuous
//! in the gradient (ℓ2-ball LMO, mirror steps), T contractive steps carry at most
//! T·(a few ulps) of relative difference: ≤ 1e−12 at T ≤ 10³, so relative 1e−9 on the
//! weights leaves three orders of magnitude of margin while a wrong gradient (any real
//! difference) fails it by many orders.

use super::*;
use crate::constraints::{L1Ball, L2Ball, Simplex};
use crate::noise::rng_from_seed;
use crate::test_support::{bounded_data, FitSeeded};
use rand::RngCore;

/// Fits two configurations of one algorithm (`suffstats` on, then off) with the same
/// seed; returns each report with the generator's next 64-bit draw after the fit (equal
/// draws: the fits consumed the same randomness).
pub(crate) fn fit_both(
    on: &dyn PrivateAlgorithm,
    off: &dyn PrivateAlgorithm,
    p: &Problem,
    budget: Budget,
    seed: u64,
) -> [(FitReport, u64); 2] {
    [on, off].map(|alg| {
        let mut rng = rng_from_seed(seed);
        let r = alg.fit(p, budget, &mut rng, &mut NoObserver).unwrap();
        (r, rng.next_u64())
    })
}

/// [`fit_both`] of `alg(On)` and `alg(Off)`, after checking that `alg(Auto)` chooses the
/// statistics on this problem and releases exactly what `alg(On)` releases.
pub(crate) fn fit_on_off_auto<A: PrivateAlgorithm>(
    alg: impl Fn(SuffStats) -> A,
    p: &Problem,
    budget: Budget,
    seed: u64,
) -> [(FitReport, u64); 2] {
    let both = fit_both(&alg(SuffStats::On), &alg(SuffStats::Off), p, budget, seed);
    let auto = alg(SuffStats::Auto).fit_seeded(p, budget, seed);
    assert_eq!(
        auto.hyperparameters["suffstats"], "on",
        "auto chose the passes"
    );
    assert_eq!(auto.weights, both[0].0.weights);
    both
}

/// The two fits of [`fit_both`] released the same thing: weights within relative `rel`
/// of max|w| (0: bit-for-bit), the same randomness consumed, the same trace, privacy
/// spent, notes and hyperparameters (but `suffstats`, which is `on` / `off`).
pub(crate) fn assert_same_release(both: &[(FitReport, u64); 2], rel: f64) {
    let [(on, next_on), (off, next_off)] = both;
    assert_eq!(
        next_on, next_off,
        "the two paths consumed different randomness"
    );
    assert_eq!(on.hyperparameters["suffstats"], "on");
    assert_eq!(off.hyperparameters["suffstats"], "off");
    let scale = off.weights.iter().fold(0.0f64, |m, w| m.max(w.abs()));
    assert!(scale > 0.0, "a zero fit would not test anything");
    assert_eq!(on.weights.len(), off.weights.len());
    for (a, b) in on.weights.iter().zip(&off.weights) {
        assert!(
            (a - b).abs() <= rel * scale,
            "weights differ beyond {rel:e}: {:?} vs {:?}",
            on.weights,
            off.weights
        );
    }
    assert_eq!(on.trace, off.trace);
    assert_eq!(on.privacy, off.privacy);
    assert_eq!(on.notes, off.notes);
    let strip = |r: &FitReport| {
        let mut h = r.hyperparameters.clone();
        h.remove("suffstats");
        h
    };
    assert_eq!(strip(on), strip(off));
}

fn budget() -> Budget {
    Budget::new(1.0, 1e-5).unwrap()
}

#[test]
fn dp_frank_wolfe_paths_agree_bit_for_bit_on_polytopes() {
    // bound 0.6 clips most of the uniform(-1, 1) features and responses.
    let (data, _) = bounded_data(3000, 7, 5);
    let l1 = L1Ball { d: 7, radius: 1.0 };
    let simplex = Simplex { d: 7 };
    for (domain, seed) in [(&l1 as &dyn ConstraintSet, 1), (&simplex, 2)] {
        let p = Problem::new(&data, LossKind::Squared, domain);
        let alg = |s| DpFrankWolfe {
            bound: 0.6,
            t: Some(60),
            suffstats: s,
            ..Default::default()
        };
        // auto: 8d <= n and 2(T-1) >= d, so the statistics.
        let both = fit_on_off_auto(alg, &p, budget(), seed);
        assert_same_release(&both, 0.0);
    }
}

#[test]
fn frank_wolfe_and_gaussian_variant_paths_agree() {
    let (data, _) = bounded_data(2500, 6, 9);
    let l1 = L1Ball { d: 6, radius: 1.0 };
    let l2 = L2Ball { d: 6, radius: 0.8 };
    // Polytope: identical vertex choices, so identical weights; l2 ball: the LMO is
    // continuous in the gradient (see the module docs for the tolerance).
    for (domain, rel) in [(&l1 as &dyn ConstraintSet, 0.0), (&l2, 1e-9)] {
        let p = Problem::new(&data, LossKind::Squared, domain);
        let fw = |s| FrankWolfe {
            bound: Some(0.5),
            t: Some(80),
            step: StepRule::Standard,
            suffstats: s,
        };
        let both = fit_both(&fw(SuffStats::On), &fw(SuffStats::Off), &p, budget(), 3);
        assert_same_release(&both, rel);
        let gauss = |s| DpFrankWolfeGaussian {
            bound: 0.5,
            t: Some(40),
            suffstats: s,
            ..Default::default()
        };
        let on = gauss(SuffStats::On);
        let both = fit_both(&on, &gauss(SuffStats::Off), &p, budget(), 4);
        assert_same_release(&both, if rel == 0.0 { 0.0 } else { 1e-9 });
    }
    // Without a bound (frank-wolfe's bound is optional) nothing is clipped.
    let p = Problem::new(&data, LossKind::Squared, &l2);
    let fw = |s| FrankWolfe {
        suffstats: s,
        t: Some(30),
        ..Default::default()
    };
    let both = fit_both(&fw(SuffStats::On), &fw(SuffStats::Off), &p, budget(), 5);
    assert_same_release(&both, 1e-9);
}

#[test]
fn ht_lasso_paths_agree_bit_for_bit() {
    // Lognormal-like heavy tails so that the shrinkage at K bites.
    let (data, _) = bounded_data(4000, 8, 12);
    let (x, y): (Vec<f64>, Vec<f64>) = (
        data.x().iter().map(|v| v.powi(3) * 4.0).collect(),
        data.y().iter().map(|v| v * 3.0).collect(),
    );
    let data = Dataset::from_rows(x, y, 8).unwrap();
    let domain = L1Ball { d: 8, radius: 1.0 };
    let p = Problem::new(&data, LossKind::Squared, &domain);
    let alg = |s| HtLasso {
        t: Some(50),
        k: Some(1.5),
        suffstats: s,
        ..Default::default()
    };
    let both = fit_both(&alg(SuffStats::On), &alg(SuffStats::Off), &p, budget(), 21);
    assert_same_release(&both, 0.0);
    // Non-private: the exact argmax, still the same path.
    let np = Budget::non_private();
    let both = fit_both(&alg(SuffStats::On), &alg(SuffStats::Off), &p, np, 22);
    assert_same_release(&both, 0.0);
}

#[test]
fn auto_rule_uses_public_sizes_only_and_other_losses_ignore_the_flag() {
    assert!(SuffStats::auto_rule(800, 100, Some(50)));
    assert!(!SuffStats::auto_rule(799, 100, Some(50)), "8d > n");
    assert!(!SuffStats::auto_rule(800, 100, Some(49)), "2T < d");
    assert!(SuffStats::auto_rule(800, 100, None));
    assert!(!SuffStats::Off.resolve(true, 10_000, 2, Some(100)));
    assert!(SuffStats::On.resolve(true, 10, 20, Some(1)));
    assert!(!SuffStats::On.resolve(false, 10_000, 2, Some(100)));
    // A wide design (8d > n) under auto takes the passes.
    let (data, _) = bounded_data(40, 6, 1);
    let domain = L1Ball { d: 6, radius: 1.0 };
    let p = Problem::new(&data, LossKind::Squared, &domain);
    let alg = DpFrankWolfe {
        bound: 1.0,
        t: Some(10),
        ..Default::default()
    };
    let r = alg.fit_seeded(&p, budget(), 1);
    assert_eq!(r.hyperparameters["suffstats"], "off");
    // The logistic loss has no sufficient statistics: `on` is ignored.
    let mut labels = data.clone();
    labels
        .y_mut()
        .iter_mut()
        .for_each(|v| *v = if *v > 0.0 { 1.0 } else { -1.0 });
    let p = Problem::new(&labels, LossKind::Logistic, &domain);
    let on = DpFrankWolfe {
        suffstats: SuffStats::On,
        ..alg
    };
    assert_eq!(
        on.fit_seeded(&p, budget(), 1).hyperparameters["suffstats"],
        "off"
    );
}

#[test]
fn suffstats_parameter_is_parsed_listed_and_validated() {
    let mut m = ParamMap::new();
    m.insert("bound".into(), "1".into());
    m.insert("suffstats".into(), "on".into());
    assert_eq!(
        DpFrankWolfe::from_params(&m).unwrap().suffstats,
        SuffStats::On
    );
    m.insert("suffstats".into(), "off".into());
    assert_eq!(
        DpFrankWolfeGaussian::from_params(&m).unwrap().suffstats,
        SuffStats::Off
    );
    assert_eq!(
        FrankWolfe::from_params(&m).unwrap().suffstats,
        SuffStats::Off
    );
    m.insert("suffstats".into(), "sometimes".into());
    let err = DpFrankWolfe::from_params(&m).unwrap_err().to_string();
    assert!(
        err.contains("suffstats") && err.contains("auto, on, off"),
        "{err}"
    );
    m.remove("bound");
    m.insert("suffstats".into(), "auto".into());
    assert_eq!(HtLasso::from_params(&m).unwrap().suffstats, SuffStats::Auto);
    for name in [
        "frank-wolfe",
        "dp-frank-wolfe",
        "dp-frank-wolfe-gaussian",
        "ht-lasso",
        "noisy-mirror-descent",
        "objective-perturbation",
    ] {
        let info = crate::algorithms::catalogue()
            .into_iter()
            .find(|i| i.name == name)
            .unwrap();
        let row = info.param("suffstats");
        assert_eq!(row.map(|r| r.default), Some("auto"), "{name}");
    }
}

/// The data of the timings below: hu-linear-lognormal at n = 9·10⁴, d = 200 (seed 1).
fn bench_data() -> (usize, usize, Dataset) {
    let (n, d) = (90_000, 200);
    let params = Default::default();
    let (data, _) = crate::data::scenarios::simulate(
        "hu-linear-lognormal",
        n,
        d,
        None,
        &params,
        &mut rng_from_seed(1),
    )
    .unwrap();
    (n, d, data)
}

/// The timing behind docs/performance.md ("Sufficient statistics"): the fit alone
/// (no CSV, no preprocessing) of `dp-frank-wolfe`, `ht-lasso`, `noisy-mirror-descent`
/// and `objective-perturbation` with `suffstats` on and off on simulated
/// hu-linear-lognormal data at n = 9·10⁴, d = 200, and the build of G alone. Run with
/// `cargo test --release -p heavydp --lib -- --ignored bench_suffstats --nocapture`.
#[test]
#[ignore]
fn bench_suffstats_fit_times() {
    use crate::algorithms::build;
    use crate::test_support::params;
    use std::time::Instant;
    let (n, d, data) = bench_data();
    let t0 = Instant::now();
    let m = SecondMoments::new(data.x(), data.y(), d, 1.0, 1.0);
    eprintln!(
        "second moments (G, c) at n = {n}, d = {d}: {:.3} s",
        t0.elapsed().as_secs_f64()
    );
    drop(m);
    let l1 = L1Ball { d, radius: 1.0 };
    let l2 = L2Ball { d, radius: 1.0 };
    let budget = Budget::new(1.0, 1e-6).unwrap();
    let time = |label: &str, alg: &dyn PrivateAlgorithm, p: &Problem| {
        let t0 = Instant::now();
        let r = alg
            .fit(p, budget, &mut rng_from_seed(7), &mut NoObserver)
            .unwrap();
        let s = t0.elapsed().as_secs_f64();
        // (objective perturbation solves once: it has no iteration count T)
        let t = r
            .hyperparameters
            .get("T")
            .map_or("-".into(), |t| t.to_string());
        eprintln!(
            "{label}: {s:.3} s (T = {t}, suffstats = {})",
            r.hyperparameters["suffstats"]
        );
        (r, s)
    };
    let report = |name: &str, both: [(FitReport, f64); 2]| {
        let [(on, a), (off, b)] = both;
        let scale = off.weights.iter().fold(0.0f64, |m, w| m.max(w.abs()));
        let diff = on
            .weights
            .iter()
            .zip(&off.weights)
            .fold(0.0f64, |m, (x, y)| m.max((x - y).abs()));
        eprintln!(
            "{name}: speed-up {:.1}x, max |w_on - w_off| / max |w| = {:e}",
            b / a,
            diff / scale
        );
    };
    // (algorithm, its parameters, its domain), built as `heavydp fit --param` builds it
    let p1 = Problem::new(&data, LossKind::Squared, &l1);
    let p2 = Problem::new(&data, LossKind::Squared, &l2);
    let bound = &[("bound", "1")][..];
    for (name, kv, p) in [
        ("dp-frank-wolfe", bound, &p1),
        ("ht-lasso", &[], &p1),
        ("noisy-mirror-descent", bound, &p2),
        ("objective-perturbation", bound, &p2),
    ] {
        let both = ["on", "off"].map(|s| {
            let alg = build(name, &params(&[kv, &[("suffstats", s)][..]].concat())).unwrap();
            time(&format!("{name} {s}"), alg.as_ref(), p)
        });
        report(name, both);
    }
}

/// The build of G and c alone at n = 9·10⁴, d = 200 (three runs): the kernel behind the
/// statistics path's one-off cost.
#[test]
#[ignore]
fn bench_second_moments() {
    let (n, d, data) = bench_data();
    for _ in 0..3 {
        let t0 = std::time::Instant::now();
        let m = SecondMoments::new(data.x(), data.y(), d, 1.0, 1.0);
        eprintln!(
            "second moments at n = {n}, d = {d}: {:.3} s",
            t0.elapsed().as_secs_f64()
        );
        std::hint::black_box(m);
    }
}
