use super::refit::Refit;
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
    let e = run("adahuber", 0.95).unwrap_err().to_string();
    assert!(e.contains("adahuber has no confidence intervals"), "{e}");
    assert!(e.contains("adassp") && e.contains("clipped-gd"), "{e}");
    let run_with = |alg: &str, f: &dyn Fn(&mut FitOptions)| {
        let mut o = FitOptions::new(alg, 1.0);
        o.intervals = Some(0.95);
        f(&mut o);
        pipeline::fit(data.clone(), &o, &mut rng_from_seed(1), &mut NoObserver).map(|_| ())
    };
    let e = run_with("clipped-gd", &|o| o.loss = Some("huber".into()))
        .unwrap_err()
        .to_string();
    assert!(e.contains("squared loss only"), "{e}");
    let e = run_with("clipped-gd", &|o| {
        o.scale = crate::preprocess::ScaleMode::None
    })
    .unwrap_err()
    .to_string();
    assert!(e.contains("scaled columns only"), "{e}");
    // the same refusals before any data are read
    let mut o = FitOptions::new("clipped-gd", 1.0);
    o.intervals = Some(0.95);
    o.loss = Some("logistic".into());
    assert!(pipeline::precheck(&o)
        .unwrap_err()
        .to_string()
        .contains("squared loss only"));
    for bad in [0.0, 1.0, 95.0, f64::NAN] {
        let e = run("adassp", bad).unwrap_err().to_string();
        assert!(e.contains("confidence level in (0, 1)"), "{e}");
    }
    assert!(supports("adassp") && supports("clipped-gd") && !supports("adahuber"));
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

/// `clipped-gd` with its pipeline defaults (R = 2·2·√d, 45 heavy-ball steps, the l2 ball
/// of radius √d) on already-standardised data (x ~ N(0, I_3), y = xβ + t₃/2: the residual's
/// robust sd 0.57 is below the bootstrap world's 1, as on a scaled target): n = 1 000,
/// ε = 0.5, where the privacy noise of the gradients is about 14 times the sampling
/// noise (it falls as 1/n, the sampling noise as 1/√n: a smaller n makes the blind twin
/// below easier to catch, and the test half as long as at n = 2 000). The refitting bootstrap covers ≥ 88 % of the 120 (fit, coefficient) pairs; a
/// wrong twin that refits without the privacy noise (ε = ∞) covers < 60 %.
#[test]
fn clipped_gd_coverage_at_small_scale_needs_the_privacy_noise() {
    use crate::algorithms::private_gd::{GradientEstimator, PrivateGd};
    use crate::constraints::L2Ball;
    let beta = [1.0, -0.5, 0.0];
    let d = beta.len();
    let params =
        crate::params::ParamMap::from([("R".to_string(), format!("{}", 4.0 * (d as f64).sqrt()))]);
    let alg = PrivateGd::from_params(GradientEstimator::Clip, &params).unwrap();
    let dom = L2Ball {
        d,
        radius: (d as f64).sqrt(),
    };
    let budget = Budget::new(0.5, 1000f64.powf(-1.1)).unwrap();
    // RECENTRE's batches of 100 refits: the refits of one batch of 200
    let boot = Bootstrap {
        level: 0.95,
        replicates: REFIT_REPLICATES / RECENTRE.batches,
        seed: SEED,
    };
    let st = Standardization::identity(d);
    let (mut good, mut wrong, mut total) = (0, 0, 0);
    let mut widths = (0.0, 0.0);
    for rep in 0..40u64 {
        let mut data = t3_data(1000, &beta, 0.0, 500 + rep);
        let m: Vec<f64> = (0..data.n())
            .map(|i| (0..d).map(|j| data.row(i)[j] * beta[j]).sum())
            .collect();
        for (y, m) in data.y_mut().iter_mut().zip(m) {
            *y = m + (*y - m) / 2.0;
        }
        let problem = Problem::new(&data, LossKind::Squared, &dom);
        let report = alg
            .fit(&problem, budget, &mut rng_from_seed(rep), &mut NoObserver)
            .unwrap();
        let (alg, dom) = (&alg, &dom);
        let refit_at = |b: Budget| {
            move |sim: Dataset, rng: &mut dyn rand::RngCore| {
                let p = Problem::new(&sim, LossKind::Squared, dom);
                alg.fit(&p, b, rng, &mut NoObserver)
                    .map(|r| (r.weights, 0.0))
                    .map_err(|e| e.to_string())
            }
        };
        let ci = |b: Budget| {
            refit_intervals(
                (&report.weights, 0.0),
                &InterceptInput::None,
                &st,
                &names(d),
                data.n(),
                boot,
                RECENTRE,
                &mut refit_at(b),
            )
            .unwrap()
        };
        let iv = ci(budget);
        let iv_blind = ci(Budget::non_private());
        assert!(iv.intercept.is_none() && iv.replicates == boot.replicates);
        good += covered(&iv, &beta);
        wrong += covered(&iv_blind, &beta);
        total += d;
        widths.0 += iv.coefficients[0].upper - iv.coefficients[0].lower;
        widths.1 += iv_blind.coefficients[0].upper - iv_blind.coefficients[0].lower;
    }
    let (good, wrong) = (good as f64 / total as f64, wrong as f64 / total as f64);
    println!("coverage {good}, blind twin {wrong}, mean widths {widths:?} / 40");
    assert!(good >= 0.88, "coverage {good}");
    assert!(wrong < 0.60, "the blind twin covers {wrong}");
}

/// The pipeline with `clipped-gd` (and `auto`, which picks it here) with and without
/// `--intervals`: bit-identical released values and privacy record; finite intervals
/// around each estimate, by the refitting method.
#[test]
fn clipped_gd_intervals_change_no_released_value_and_spend_no_budget() {
    let beta = [1.0, -0.5, 0.0];
    let data = t3_data(6000, &beta, 2.0, 8);
    for alg in ["clipped-gd", "auto"] {
        let fit = |intervals: Option<f64>| {
            let mut o = FitOptions::new(alg, 1.0);
            o.intervals = intervals;
            // (one seeded draw: the coverage check below is a sanity check of one fit,
            // which misses 2 of 3 slopes at 1 seed of the 6 tried, 12–17)
            let mut rng = rng_from_seed(13);
            let out = pipeline::fit(data.clone(), &o, &mut rng, &mut NoObserver).unwrap();
            // stderr says what the world assumes of the features, with the alternative
            let said = out
                .messages
                .iter()
                .any(|m| m.contains(REFIT_FEATURES_NOTE) && m.contains("--algorithm adassp"));
            assert_eq!(said, intervals.is_some(), "{:?}", out.messages);
            out.model
        };
        let plain = fit(None);
        let with = fit(Some(0.95));
        assert!(with.intervals.as_ref().unwrap().notes[0] == REFIT_FEATURES_NOTE);
        if alg == "auto" {
            assert_eq!(with.selected.as_ref().unwrap()["algorithm"], "clipped-gd");
        }
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&plain.weights), bits(&with.weights));
        assert_eq!(plain.intercept.to_bits(), with.intercept.to_bits());
        assert_eq!(plain.privacy, with.privacy);
        assert_eq!(plain.preprocessing, with.preprocessing);
        assert_eq!(plain.hyperparameters, with.hyperparameters);
        let iv = with.intervals.unwrap();
        assert_eq!(iv.method, REFIT_METHOD);
        assert_eq!(iv.replicates, REFIT_REPLICATES);
        for t in iv.coefficients.iter().chain(iv.intercept.as_ref()) {
            assert!(t.lower < t.estimate && t.estimate < t.upper, "{t:?}");
            assert!(t.std_error.is_finite() && t.std_error > 0.0);
        }
        assert!(covered(&iv, &beta) >= 2, "{iv:?}");
    }
}

/// Where the features' private scales are not certified (n = 10⁴, d = 20, ε = 0.5: a
/// feature release at n·ε₀ ≈ 26.3 < 42.6; measured there, one released scale in 16 is off
/// by more than 10×), every interval of `adassp`, `clipped-gd` and `auto` is unbounded
/// with a note, no refit runs, and the released values are those of the fit without
/// intervals.
#[test]
fn intervals_unbounded_where_the_feature_scales_are_not_certified() {
    let beta: Vec<f64> = (0..20).map(|j| [1.0, -0.5, 0.25, 0.0][j % 4]).collect();
    let data = t3_data(10_000, &beta, 1.0, 21);
    for alg in ["adassp", "clipped-gd", "auto"] {
        let fit = |intervals: Option<f64>| {
            let mut o = FitOptions::new(alg, 0.5);
            o.intervals = intervals;
            pipeline::fit(data.clone(), &o, &mut rng_from_seed(3), &mut NoObserver)
                .unwrap()
                .model
        };
        let plain = fit(None);
        let with = fit(Some(0.95));
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&plain.weights), bits(&with.weights), "{alg}");
        assert_eq!(plain.intercept.to_bits(), with.intercept.to_bits());
        assert_eq!(plain.privacy, with.privacy);
        assert_eq!(plain.preprocessing, with.preprocessing);
        let iv = with.intervals.unwrap();
        let method = if alg == "adassp" {
            METHOD
        } else {
            REFIT_METHOD
        };
        assert_eq!((iv.method.as_str(), iv.replicates), (method, 0), "{alg}");
        assert_eq!(iv.coefficients.len(), 20);
        for t in iv.coefficients.iter().chain(iv.intercept.as_ref()) {
            assert_eq!(
                (t.lower, t.upper),
                (f64::NEG_INFINITY, f64::INFINITY),
                "{t:?}"
            );
            assert!(t.std_error.is_infinite());
        }
        assert!(iv.intercept.is_some());
        assert_eq!(iv.notes.len(), 1);
        assert!(
            iv.notes[0].contains("not certified") && iv.notes[0].contains("26.3"),
            "{:?}",
            iv.notes
        );
    }
}

/// The bootstrap world's residual scale: a Student t₃ divided by [`T3_ROBUST_SD`] has
/// interquartile range 1.349 (the normal's), so robust sd 1.
#[test]
fn t3_robust_sd_constant() {
    // the t₃ cdf: 1/2 + (1/π)(t/(√3(1 + t²/3)) + atan(t/√3))
    let cdf = |t: f64| {
        0.5 + (t / (3f64.sqrt() * (1.0 + t * t / 3.0)) + (t / 3f64.sqrt()).atan())
            / std::f64::consts::PI
    };
    let q = T3_ROBUST_SD * 1.348_979_500_392_163_5 / 2.0;
    assert!((cdf(q) - 0.75).abs() < 1e-8, "{}", cdf(q));
}

/// The bias correction on a known shrinking fit: an estimator that returns half the
/// least-squares slope (and intercept) of y = 1 + x + t₃/1.134 (n = 400). The basic interval
/// (one batch) sits around the shrunk estimate and almost never covers the truth;
/// [`RECENTRE`] (re-centred world, secant slope) measures the slope ½ and covers ≥ 85 %
/// of 40 seeded fits, its intervals about twice the basic ones.
#[test]
fn recentring_corrects_a_known_shrinkage() {
    let half_ols = |data: &Dataset| {
        let n = data.n() as f64;
        let (mx, my) = (
            (0..data.n()).map(|i| data.row(i)[0]).sum::<f64>() / n,
            data.y().iter().sum::<f64>() / n,
        );
        let (mut sxy, mut sxx) = (0.0, 0.0);
        for (i, y) in data.y().iter().enumerate() {
            let x = data.row(i)[0] - mx;
            sxy += x * (y - my);
            sxx += x * x;
        }
        let w = sxy / sxx;
        (vec![0.5 * w], 0.5 * (my - w * mx))
    };
    let st = Standardization::identity(1);
    let icpt = InterceptInput::ClippedMean {
        value: 0.0,
        clip: 1.0,
        laplace_scale: 0.0,
    };
    let boot = Bootstrap {
        level: 0.95,
        replicates: REFIT_REPLICATES,
        seed: SEED,
    };
    let plain = Recentre {
        batches: 1,
        secant: false,
    };
    let (mut cov, mut cov_plain, mut ratio) = (0, 0, 0.0);
    for rep in 0..40u64 {
        // residuals of robust sd 1, as the bootstrap world's (target scale 1)
        let mut data = t3_data(400, &[1.0], 1.0, 300 + rep);
        let m: Vec<f64> = (0..400).map(|i| 1.0 + data.row(i)[0]).collect();
        for (y, m) in data.y_mut().iter_mut().zip(m) {
            *y = m + (*y - m) / T3_ROBUST_SD;
        }
        let (w, b) = half_ols(&data);
        let mut refit = |sim: Dataset,
                         _: &mut dyn rand::RngCore|
         -> Result<(Vec<f64>, f64), String> { Ok(half_ols(&sim)) };
        let at = |r: Recentre, refit: &mut Refit| {
            refit_intervals((&w, b), &icpt, &st, &names(1), 400, boot, r, refit).unwrap()
        };
        let (iv, iv_plain) = (at(RECENTRE, &mut refit), at(plain, &mut refit));
        cov += covered(&iv, &[1.0]);
        cov_plain += covered(&iv_plain, &[1.0]);
        let width = |t: &Term| t.upper - t.lower;
        ratio += width(&iv.coefficients[0]) / width(&iv_plain.coefficients[0]) / 40.0;
        assert_eq!(iv.replicates, REFIT_REPLICATES);
    }
    println!("covers {cov}/40, basic {cov_plain}/40, width ratio {ratio}");
    assert!(cov >= 34, "covers {cov}/40");
    assert!(cov_plain <= 8, "the basic interval covers {cov_plain}/40");
    assert!((ratio - 2.0).abs() < 0.3, "width ratio {ratio}");
}

/// One batch is the basic interval; two batches with a known linear map g(θ) = θ/2 give
/// the inverted interval θ̃₁ + (θ̂ − q)/c with c = ½.
#[test]
fn recentred_bounds_invert_the_secant() {
    let reps = |centre: f64| -> Vec<f64> {
        (0..101)
            .map(|i| centre + (i as f64 - 50.0) / 50.0)
            .collect()
    };
    let batch = |world: f64| {
        let r = reps(world / 2.0);
        Batch {
            world: vec![world],
            median: vec![world / 2.0],
            sd: vec![0.58],
            reps: vec![r],
        }
    };
    let est = [1.0];
    let b0 = batch(1.0);
    let basic = recentred_bounds(&est, std::slice::from_ref(&b0), true, 0.1);
    // q_{0.05} = 0.5 − 0.9 = −0.4 (rank 5), q_{0.95} = 0.5 + 0.9 = 1.4 (rank 95)
    let (lo, hi, _) = basic[0];
    assert!(
        (lo - 0.6).abs() < 1e-12 && (hi - 2.4).abs() < 1e-12,
        "{lo} {hi}"
    );
    let b1 = batch(1.5); // θ̃₁ = θ̂ + (θ̂ − m₀) = 1.5
    assert_eq!(slopes(Some(&b0), &b1, true), vec![0.5]);
    assert_eq!(slopes(Some(&b0), &b1, false), vec![1.0]);
    let (lo, hi, _) = recentred_bounds(&est, &[b0, b1], true, 0.1)[0];
    // θ̃₁ + (θ̂ − q)/c: q = 0.75 ∓ 0.9 → 1.5 + (1 − 1.65)·2, 1.5 + (1 + 0.15)·2
    assert!(
        (lo - 0.2).abs() < 1e-12 && (hi - 3.8).abs() < 1e-12,
        "{lo} {hi}"
    );
}
