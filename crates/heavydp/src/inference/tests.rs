use super::*;
use crate::algorithms::adassp::AdaSsp;
use crate::algorithms::{NoObserver, PrivateAlgorithm, Problem};
use crate::constraints::Unconstrained;
use crate::data::Dataset;
use crate::loss::LossKind;
use crate::pipeline::{self, FitOptions};
use crate::privacy::Budget;
use rand_distr::{Distribution, StudentT};

/// y = α + xβ + t₃ noise, x ~ N(0, I_d).
fn t3_data(n: usize, beta: &[f64], alpha: f64, seed: u64) -> Dataset {
    let d = beta.len();
    let mut rng = rng_from_seed(seed);
    let t = StudentT::new(3.0).unwrap();
    let x: Vec<f64> = (0..n * d).map(|_| gaussian(1.0, &mut rng)).collect();
    let y = (0..n)
        .map(|i| {
            let m: f64 = (0..d).map(|j| x[i * d + j] * beta[j]).sum();
            alpha + m + t.sample(&mut rng)
        })
        .collect();
    Dataset::from_rows(x, y, d).unwrap()
}

fn names(d: usize) -> Vec<String> {
    (1..=d).map(|j| format!("x{j}")).collect()
}

fn covered(iv: &Intervals, beta: &[f64]) -> usize {
    iv.coefficients
        .iter()
        .zip(beta)
        .filter(|(t, b)| t.lower <= **b && **b <= t.upper)
        .count()
}

/// Coverage of 95 % intervals over seeded `adassp` fits on raw t₃ data (n = 20 000,
/// d = 3, ε = 0.3, bound = 4: the ridge is off, and the privacy noise of θ̃ is about 3×
/// the sampling noise), for the method and for a wrong twin that ignores the privacy
/// noise (every σ set to 0): the method covers ≥ 90 % of the 180 (fit, coefficient)
/// pairs, the twin < 75 %.
#[test]
fn coverage_at_small_scale_needs_the_privacy_noise() {
    let beta = [1.0, -0.5, 0.0];
    let d = beta.len();
    let alg = AdaSsp {
        bound: Some(4.0),
        bound_x: None,
        bound_y: None,
        fail_prob: 0.05,
    };
    let boot = Bootstrap {
        level: 0.95,
        replicates: 500,
        seed: SEED,
    };
    let st = Standardization::identity(d);
    let (mut good, mut wrong, mut total) = (0, 0, 0);
    for rep in 0..60u64 {
        let data = t3_data(20_000, &beta, 0.0, 1000 + rep);
        let dom = Unconstrained { d };
        let problem = Problem::new(&data, LossKind::Squared, &dom);
        let mut rng = rng_from_seed(rep);
        let report = alg
            .fit(
                &problem,
                Budget::new(0.3, 1e-6).unwrap(),
                &mut rng,
                &mut NoObserver,
            )
            .unwrap();
        let ssp = report.released.as_ref().unwrap();
        let iv = ssp_intervals(
            ssp,
            &report.weights,
            &InterceptInput::None,
            &st,
            &names(d),
            boot,
        );
        let mut blind = (**ssp).clone();
        blind.plan.mech_min.sigma = 0.0;
        blind.plan.mech_xx.sigma = 0.0;
        blind.plan.mech_xy.sigma = 0.0;
        let iv_blind = ssp_intervals(
            &blind,
            &report.weights,
            &InterceptInput::None,
            &st,
            &names(d),
            boot,
        );
        assert_eq!(ssp.ridge_used, 0.0, "the identified regime");
        good += covered(&iv, &beta);
        wrong += covered(&iv_blind, &beta);
        total += d;
    }
    let (good, wrong) = (good as f64 / total as f64, wrong as f64 / total as f64);
    assert!(good >= 0.90, "coverage {good}");
    assert!(wrong < 0.75, "the blind twin covers {wrong}");
}

/// The whole pipeline (private scales, `adassp`, private intercept) with and without
/// `--intervals`: the same seed gives bit-identical weights, intercept, privacy record
/// and preprocessing; the intervals hold every coefficient and the intercept, each
/// around its estimate.
#[test]
fn intervals_change_no_released_value_and_spend_no_budget() {
    let beta = [1.0, -0.5, 0.0];
    let data = t3_data(4000, &beta, 2.0, 7);
    let fit = |intervals: Option<f64>| {
        let mut o = FitOptions::new("adassp", 1.0);
        o.intervals = intervals;
        let mut rng = rng_from_seed(11);
        pipeline::fit(data.clone(), &o, &mut rng, &mut NoObserver)
            .unwrap()
            .model
    };
    let plain = fit(None);
    let with = fit(Some(0.9));
    assert!(plain.intervals.is_none());
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&plain.weights), bits(&with.weights));
    assert_eq!(plain.intercept.to_bits(), with.intercept.to_bits());
    assert_eq!(plain.privacy, with.privacy);
    assert_eq!(plain.preprocessing, with.preprocessing);
    assert_eq!(plain.hyperparameters, with.hyperparameters);
    let iv = with.intervals.unwrap();
    assert_eq!(iv.level, 0.9);
    assert_eq!(iv.coefficients.len(), 3);
    for (t, w) in iv.coefficients.iter().zip(&with.weights) {
        assert_eq!(t.estimate, *w);
        assert!(t.lower < t.estimate && t.estimate < t.upper, "{t:?}");
        assert!(t.std_error > 0.0);
    }
    let b = iv.intercept.clone().unwrap();
    assert_eq!(b.estimate, with.intercept);
    assert!(b.lower < b.estimate && b.estimate < b.upper);
    // the file round-trips
    let text = serde_json::to_string(&iv).unwrap();
    let back: Intervals = serde_json::from_str(&text).unwrap();
    assert_eq!(back.coefficients, iv.coefficients);
    // an unbounded side is null in the file and reads back as infinite
    let open = Term {
        name: "x".into(),
        estimate: 0.5,
        std_error: f64::INFINITY,
        lower: f64::NEG_INFINITY,
        upper: f64::INFINITY,
    };
    let text = serde_json::to_string(&open).unwrap();
    assert!(text.contains("\"lower\":null"), "{text}");
    assert_eq!(serde_json::from_str::<Term>(&text).unwrap(), open);
}

#[test]
fn intervals_refused_for_algorithms_without_them_and_bad_levels() {
    let data = t3_data(500, &[1.0, 0.0], 0.0, 3);
    let run = |alg: &str, level: f64| {
        let mut o = FitOptions::new(alg, 1.0);
        o.intervals = Some(level);
        let mut rng = rng_from_seed(1);
        pipeline::fit(data.clone(), &o, &mut rng, &mut NoObserver).map(|_| ())
    };
    let e = run("clipped-gd", 0.95).unwrap_err().to_string();
    assert!(e.contains("clipped-gd has no confidence intervals"), "{e}");
    assert!(e.contains("adassp"), "{e}");
    for bad in [0.0, 1.0, 95.0, f64::NAN] {
        let e = run("adassp", bad).unwrap_err().to_string();
        assert!(e.contains("confidence level in (0, 1)"), "{e}");
    }
    assert!(supports("adassp") && !supports("clipped-gd"));
}

/// Honest when the noise swamps the fit: at n·ε = 4 000 the intervals are several times
/// wider than at n·ε = 10⁵ (and unbounded when the ridge is on); at n·ε = 150 the fit is
/// the intercept alone and refuses intervals.
#[test]
fn intervals_widen_when_the_noise_swamps_the_fit() {
    let beta = [1.0, -0.5];
    let width = |n: usize, eps: f64, seed: u64| {
        let data = t3_data(n, &beta, 0.0, seed);
        let mut o = FitOptions::new("adassp", eps);
        o.intervals = Some(0.95);
        let mut rng = rng_from_seed(seed);
        let m = pipeline::fit(data, &o, &mut rng, &mut NoObserver)
            .unwrap()
            .model;
        let iv = m.intervals.unwrap();
        let c = covered(&iv, &beta);
        let w: f64 = iv
            .coefficients
            .iter()
            .map(|t| t.upper - t.lower)
            .sum::<f64>()
            / 2.0;
        (w, c)
    };
    // at n·ε = 150 the private scaling cannot support a 2-dimensional fit: the model
    // would be the intercept alone, and --intervals is refused before any release
    let data = t3_data(300, &beta, 0.0, 5);
    let mut o = FitOptions::new("adassp", 0.5);
    o.intervals = Some(0.95);
    let e = pipeline::fit(data, &o, &mut rng_from_seed(5), &mut NoObserver)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("the intercept-only model has no intervals"),
        "{e}"
    );
    let (wide, c) = width(4_000, 1.0, 5);
    let (narrow, c2) = width(50_000, 2.0, 6);
    assert!(narrow < 0.2, "{narrow}");
    assert!(wide > 4.0 * narrow, "width {wide} against {narrow}");
    assert_eq!((c, c2), (2, 2));
}

#[test]
fn quantiles_and_standard_error_of_replicates() {
    let mut r: Vec<f64> = (0..1000).map(|i| i as f64).collect();
    let (lo, hi, sd) = summarise(&mut r, 0.05);
    assert_eq!((lo, hi), (25.0, 974.0));
    assert!((sd - 288.8194).abs() < 1e-3);
    // a non-finite replicate can only widen
    let mut r: Vec<f64> = (0..10).map(|i| i as f64).collect();
    r[3] = f64::NAN;
    let (lo, hi, sd) = summarise(&mut r, 0.2);
    // the NaN is -inf on the low side: rank 1 of (-inf, 0, 1, 2, 4, ...) is 0
    assert_eq!(lo, 0.0);
    assert_eq!(hi, 9.0);
    assert!(sd.is_infinite());
}

#[test]
fn intercept_noise_matches_the_release() {
    // preprocess::private_intercept: C = intercept_clip(n, ε), Laplace scale 2C/(n ε)
    let InterceptInput::ClippedMean {
        clip,
        laplace_scale,
        ..
    } = InterceptInput::clipped_mean(0.5, 10_000, 0.04)
    else {
        panic!()
    };
    let eps = calibration_target(0.04);
    assert_eq!(clip, ((10_000.0 * eps).sqrt() / 2.0).clamp(1.0, 50.0));
    assert_eq!(laplace_scale, 2.0 * clip / (10_000.0 * eps));
    let InterceptInput::ClippedMean { laplace_scale, .. } =
        InterceptInput::clipped_mean(0.5, 100, f64::INFINITY)
    else {
        panic!()
    };
    assert_eq!(laplace_scale, 0.0);
}
