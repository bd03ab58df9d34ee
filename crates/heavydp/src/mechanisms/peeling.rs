//! Peeling: private top-s selection with noisy values (Hu et al. Alg. 4, from Cai,
//! Wang & Zhang 2021, Lemma 3.3). The one implementation used by every IHT-style
//! algorithm in heavydp (`ht-sparse-linreg`, `ht-sparse-opt`, and the Tian et al.
//! family) and by the `sparse-peeling` mean.
//!
//! Spec: `spec/hu2021-high-dim-heavy-tailed.md` §E (and its "Reviewed" validity check).
//!
//! # Algorithm
//!
//! ```text
//! b = 2·λ'·√(3·s·ln(1/δ)) / ε,   λ' = widened(λ) = λ(1 + 2⁻⁴⁰)   (Laplace scale)
//! S = ∅
//! repeat s times:                               (s report-noisy-max rounds)
//!     j* = argmax_{j ∉ S} ( |v_j| + Lap(b) ),  fresh noise every round;  S ← S ∪ {j*}
//! return v_j + Lap(b) for j ∈ S, 0 elsewhere
//! ```
//!
//! # Floating-point safety
//!
//! Neither the selection nor the released values use floating-point noise. The input is
//! snapped to the public grid g = 2^(⌊log₂λ⌋−40) (per coordinate: ṽ_j = round(v_j/g),
//! clamped to ±2¹¹⁰), so every coordinate moves by ≤ g/2 and the integer ℓ∞ sensitivity
//! is ≤ λ/g + 1 ≤ λ'/g. The Laplace noise is exact discrete Laplace noise of scale
//! ⌈b/g⌉ grid units ([`crate::noise::exact::ExactRng::discrete_laplace`]); a selection round
//! releases argmax_j (|ṽ_j| + Z_j) (first index on ties; drawn lazily but exactly by
//! [`crate::noise::exact::ExactRng::noisy_argmax`]) and a value is g·(ṽ_j + Z). The
//! report-noisy-max argument holds verbatim for integer scores with discrete Laplace noise
//! and a fixed tie-breaking order, so the per-step costs below hold with λ' in place of λ.
//! Calibrating b at λ' keeps every certified ε (and every refusal) exactly as in real
//! arithmetic with λ.
//!
//! # Privacy
//!
//! If every neighbouring pair has ‖v(D) − v(D')‖_∞ ≤ λ, each selection round is
//! (2λ'/b)-DP (the |v_j| may move in opposite directions) and each released value is
//! (λ'/b)-DP. The 2s steps compose — by the best of basic composition, advanced
//! composition (slack δ) and zCDP (ρ = 5ε²/(24 ln(1/δ))) — to (ε, δ) **only when**
//! ε ≤ 0.418·ln(1/δ) or s ≤ (4/3)·ln(1/δ) (spec §E, Reviewed). [`Peeling::new`]
//! certifies the composition numerically and refuses (ε, δ, s) for which it does not
//! close, with the certified value in the error. The charge is (ε, δ).
//!
//! With ε = ∞ the scale is 0: the exact top-s by |v_j| (ties by smallest index) with
//! exact values, and no random draw — the non-private hard-thresholding step.
//!
//! # Parameters
//!
//! | name | symbol | meaning |
//! |---|---|---|
//! | `s` | s | number of coordinates kept |
//! | `lambda` | λ | ℓ∞ sensitivity of the input vector (the caller's proof) |
//! | `epsilon`, `delta` | ε, δ | the budget of this call |

use super::Mechanism;
use crate::noise::exact::ExactRng;
use crate::noise::snap::{widened, Grid, Spread};
use crate::privacy::{
    advanced_composition, div_up, mul_up, pure_to_zcdp, up, zcdp_to_approx, Cost, PrivacyError,
};
use rand::RngCore;

/// The Peeling mechanism. Construct with [`Peeling::new`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Peeling {
    /// Number of coordinates selected.
    pub s: usize,
    /// ℓ∞ sensitivity λ of the input vector.
    pub lambda: f64,
    /// ε of the whole call.
    pub epsilon: f64,
    /// δ of the whole call.
    pub delta: f64,
    /// Laplace scale b = 2λ'√(3 s ln(1/δ))/ε with λ' = widened(λ) (0 when ε = ∞).
    pub scale: f64,
}

impl Peeling {
    /// Validates and calibrates. Errors: s = 0, λ ≤ 0, ε ≤ 0, δ ∉ (0, 1), or an
    /// (ε, δ, s) for which the 2s steps do not certify (ε, δ) (spec §E).
    pub fn new(s: usize, lambda: f64, epsilon: f64, delta: f64) -> Result<Self, PrivacyError> {
        let bad = |m: String| Err(PrivacyError::InvalidMechanism(m));
        if s == 0 {
            return bad("peeling: s must be at least 1".into());
        }
        if !(lambda.is_finite() && lambda > 0.0) {
            return bad(format!(
                "peeling: the sensitivity lambda must be finite and > 0, got {lambda}"
            ));
        }
        if epsilon.is_nan() || epsilon <= 0.0 {
            return bad(format!("peeling: epsilon must be > 0, got {epsilon}"));
        }
        if epsilon.is_infinite() {
            return Ok(Peeling {
                s,
                lambda,
                epsilon,
                delta,
                scale: 0.0,
            });
        }
        if !(delta > 0.0 && delta < 1.0) {
            return bad(format!(
                "peeling: delta must be in (0, 1) (the calibration uses ln(1/delta)), got {delta}"
            ));
        }
        let scale = 2.0 * widened(lambda) * (3.0 * s as f64 * (-delta.ln())).sqrt() / epsilon;
        // The exact samplers take up to 2¹⁰⁶ grid units of 2^(⌊log₂λ⌋−40).
        if scale.is_nan() || scale > 2f64.powi(60) * lambda {
            return bad(format!(
                "peeling: the Laplace scale {scale} is more than 2^60 times lambda = {lambda} (epsilon far too small for the exact noise samplers)"
            ));
        }
        let p = Peeling {
            s,
            lambda,
            epsilon,
            delta,
            scale,
        };
        let certified = p.certified_epsilon();
        if certified > epsilon {
            return bad(format!(
                "peeling: with s = {s}, epsilon = {epsilon}, delta = {delta} the 2s composed steps certify only epsilon = {certified:.4} > {epsilon}; Peeling's (epsilon, delta) guarantee needs epsilon <= 0.418*ln(1/delta) or s <= (4/3)*ln(1/delta) (spec Hu §E): use a smaller epsilon per call, a smaller delta or a smaller s"
            ));
        }
        Ok(p)
    }

    /// ε of one selection round, 2λ'/b (rounded up).
    pub fn selection_epsilon(&self) -> f64 {
        div_up(2.0 * widened(self.lambda), self.scale)
    }

    /// ε of one released value, λ'/b (rounded up).
    pub fn value_epsilon(&self) -> f64 {
        div_up(widened(self.lambda), self.scale)
    }

    /// The ε (at this δ) certified for the 2s steps: the smallest of basic composition,
    /// advanced composition with slack δ, and zCDP composition converted at δ. Rounded up.
    pub fn certified_epsilon(&self) -> f64 {
        if self.scale == 0.0 {
            return f64::INFINITY;
        }
        let s = self.s as f64;
        let (e_sel, e_val) = (self.selection_epsilon(), self.value_epsilon());
        let basic = up(mul_up(s, e_sel) + mul_up(s, e_val));
        let advanced = advanced_composition(2 * self.s, e_sel, 0.0, self.delta).0;
        let rho = up(mul_up(s, pure_to_zcdp(e_sel)) + mul_up(s, pure_to_zcdp(e_val)));
        let zcdp = zcdp_to_approx(rho, self.delta);
        basic.min(advanced).min(zcdp)
    }

    /// Runs the selection and returns the chosen index set (ascending) and the released
    /// values in the same order. Used by [`Mechanism::run_uncharged`]. A NaN coordinate is
    /// treated as 0.
    pub fn select<R: RngCore + ?Sized>(&self, v: &[f64], rng: &mut R) -> (Vec<usize>, Vec<f64>) {
        let d = v.len();
        let s = self.s.min(d);
        let clean = |x: f64| if x.is_nan() { 0.0 } else { x };
        if self.scale == 0.0 {
            // Exact top-s by |v_j| (first index on ties) with exact values; no draws.
            let mut chosen = vec![false; d];
            let mut set = Vec::with_capacity(s);
            for _ in 0..s {
                let mut best = (usize::MAX, f64::NEG_INFINITY);
                for (j, &vj) in v.iter().enumerate() {
                    let a = clean(vj).abs();
                    if !chosen[j] && (best.0 == usize::MAX || a > best.1) {
                        best = (j, a);
                    }
                }
                chosen[best.0] = true;
                set.push(best.0);
            }
            set.sort_unstable();
            let values = set.iter().map(|&j| clean(v[j])).collect();
            return (set, values);
        }
        let grid = Grid::new(self.lambda, 1, Spread::PerCoordinate);
        let t = grid.noise_units(self.scale);
        // |ṽ_j| = round(|v_j|/g) (rounding is symmetric), computed once.
        let units: Vec<i128> = v.iter().map(|&x| grid.to_units(clean(x))).collect();
        let mut ex = ExactRng::new(rng);
        let mut chosen = vec![false; d];
        let mut set = Vec::with_capacity(s);
        let scores: Vec<i128> = units.iter().map(|u| u.abs()).collect();
        for _ in 0..s {
            let j = ex
                .noisy_argmax(&scores, |j| !chosen[j], t)
                .expect("s ≤ d leaves a candidate");
            chosen[j] = true;
            set.push(j);
        }
        set.sort_unstable();
        let values = set
            .iter()
            .map(|&j| grid.from_units(units[j] + ex.discrete_laplace(t)))
            .collect();
        (set, values)
    }
}

impl Mechanism for Peeling {
    type Input = [f64];
    /// The d-vector with the noisy values on the selected set and 0 elsewhere.
    type Output = Vec<f64>;
    fn cost(&self) -> Cost {
        if self.scale == 0.0 {
            return Cost::Pure {
                epsilon: f64::INFINITY,
            };
        }
        Cost::Approx {
            epsilon: self.epsilon,
            delta: self.delta,
        }
    }
    fn run_uncharged<R: RngCore + ?Sized>(&self, v: &[f64], rng: &mut R) -> Vec<f64> {
        let (set, values) = self.select(v, rng);
        let mut out = vec![0.0; v.len()];
        for (j, x) in set.into_iter().zip(values) {
            out[j] = x;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mechanisms::release;
    use crate::noise::rng_from_seed;
    use crate::privacy::{Accountant, Budget, PrivacyLedger};

    #[test]
    fn scale_matches_the_spec_formula() {
        // b = 2 λ' √(3 s ln(1/δ)) / ε with λ' = λ(1 + 2^-40) (the snapping's widening) —
        // fails if λ (the sensitivity) were halved.
        let p = Peeling::new(40, 0.0164, 1.0, 5e4f64.powf(-1.1)).unwrap();
        let lw = widened(0.0164);
        let expect = 2.0 * lw * (3.0 * 40.0 * (5e4f64.powf(1.1)).ln()).sqrt() / 1.0;
        assert!((p.scale - expect).abs() < 1e-14 * expect);
        // The spec's worked value (X.2, Alg. 3 at n = 5·10⁴): scale ≈ 1.24.
        assert!((p.scale - 1.24).abs() < 0.01, "scale {}", p.scale);
        assert_eq!(p.selection_epsilon(), div_up(2.0 * lw, p.scale));
        assert_eq!(p.value_epsilon(), div_up(lw, p.scale));
    }

    #[test]
    fn validity_check_follows_the_composition() {
        // Spec §E: ε = 1, δ = 0.1, s ≥ 4 composes to 1.003ε — refused.
        assert!(Peeling::new(4, 1.0, 1.0, 0.1).is_err());
        // s ≤ (4/3) ln(1/δ) = 3.07: basic composition suffices.
        let p = Peeling::new(3, 1.0, 1.0, 0.1).unwrap();
        assert!(p.certified_epsilon() <= 1.0);
        // ε = 4, δ = 0.01, s = 40 gives ≈ 4.37 — refused.
        let e = Peeling::new(40, 1.0, 4.0, 0.01).unwrap_err().to_string();
        assert!(e.contains("certify only"), "{e}");
        // Every paper setting passes (δ = n^−1.1, n ≥ 4000, ε ≤ 3).
        for &n in &[4000.0f64, 8000.0, 5e4] {
            for &eps in &[0.5, 1.0, 3.0] {
                for &s in &[2usize, 40, 100] {
                    let p = Peeling::new(s, 0.1, eps, n.powf(-1.1)).unwrap();
                    assert!(p.certified_epsilon() <= eps);
                }
            }
        }
        // Large s: ≈ 0.913ε + 0.208ε²/L by zCDP.
        let l = 20.0f64;
        let p = Peeling::new(1000, 1.0, 1.0, (-l).exp()).unwrap();
        let approx = 0.913 + 0.208 / l;
        assert!((p.certified_epsilon() - approx).abs() < 0.01);
    }

    #[test]
    fn bad_inputs_are_rejected() {
        assert!(Peeling::new(0, 1.0, 1.0, 1e-5).is_err());
        assert!(Peeling::new(2, 0.0, 1.0, 1e-5).is_err());
        assert!(Peeling::new(2, f64::NAN, 1.0, 1e-5).is_err());
        assert!(Peeling::new(2, 1.0, 0.0, 1e-5).is_err());
        assert!(Peeling::new(2, 1.0, 1.0, 0.0).is_err());
        assert!(Peeling::new(2, 1.0, 1.0, 1.0).is_err());
        assert!(Peeling::new(2, 1.0, 1e-18, 1e-5).is_err());
    }

    #[test]
    fn infinite_epsilon_is_exact_hard_thresholding() {
        let p = Peeling::new(2, 1.0, f64::INFINITY, 0.0).unwrap();
        let v = [0.1, -3.0, 2.0, f64::NAN, 2.0];
        let mut rng = rng_from_seed(1);
        let out = p.run_uncharged(&v, &mut rng);
        assert_eq!(out, vec![0.0, -3.0, 2.0, 0.0, 0.0]);
        // No randomness consumed.
        let mut fresh = rng_from_seed(1);
        assert_eq!(rng.next_u64(), fresh.next_u64());
    }

    #[test]
    fn selects_the_large_coordinates_and_charges_first() {
        let mut v = vec![0.0; 200];
        for (k, j) in [3usize, 50, 120].iter().enumerate() {
            v[*j] = 10.0 + k as f64;
        }
        let p = Peeling::new(3, 0.05, 1.0, 1e-6).unwrap();
        let mut ledger = PrivacyLedger::new(Budget::new(1.0, 1e-6).unwrap(), Accountant::Basic);
        let mut rng = rng_from_seed(3);
        let out = release(&mut ledger, "peeling", &p, &v, &mut rng).unwrap();
        let support: Vec<usize> = (0..200).filter(|j| out[*j] != 0.0).collect();
        assert_eq!(support, vec![3, 50, 120]);
        assert_eq!(ledger.spent(), (1.0, 1e-6));
        // A second call does not fit the budget and releases nothing.
        assert!(release(&mut ledger, "peeling", &p, &v, &mut rng).is_err());
    }

    #[test]
    fn released_values_have_the_laplace_scale() {
        // Values on the selected set are v_j + Lap(b): E|noise| = b.
        let p = Peeling::new(1, 0.01, 1.0, 1e-3).unwrap();
        let v = [100.0, 0.0, 0.0];
        let mut rng = rng_from_seed(11);
        let k = 20_000;
        let mean_abs: f64 = (0..k)
            .map(|_| (p.run_uncharged(&v, &mut rng)[0] - 100.0).abs())
            .sum::<f64>()
            / k as f64;
        assert!(
            (mean_abs / p.scale - 1.0).abs() < 0.03,
            "{mean_abs} vs {}",
            p.scale
        );
    }

    #[test]
    fn outputs_lie_on_the_public_grid_reproducibly_and_pinned() {
        let p = Peeling::new(3, 0.05, 1.0, 1e-6).unwrap();
        let v: Vec<f64> = (0..40).map(|j| ((j * 7) % 13) as f64 * 0.1 - 0.6).collect();
        let out = p.run_uncharged(&v, &mut rng_from_seed(9));
        assert_eq!(out, p.run_uncharged(&v, &mut rng_from_seed(9)));
        let g = Grid::new(0.05, 1, Spread::PerCoordinate).spacing();
        assert!(out.iter().all(|x| (x / g).fract() == 0.0));
        let got: Vec<(usize, f64)> = out
            .iter()
            .enumerate()
            .filter(|(_, x)| **x != 0.0)
            .map(|(j, x)| (j, *x))
            .collect();
        assert_eq!(got, PINNED_PEELING.to_vec(), "got {got:?}");
    }
    const PINNED_PEELING: [(usize, f64); 3] = [
        (0, -2.216285523310006),
        (12, -1.0771499679767942),
        (37, 0.46265723804384606),
    ];

    #[test]
    fn selection_noise_matches_report_noisy_max() {
        // Two candidates with |v| gap g: P(pick the smaller) = P(L1 − L2 > g) for i.i.d.
        // Lap(b): ½ e^{−g/b}(1 + g/(2b)).
        let p = Peeling::new(1, 0.02, 1.0, 1e-2).unwrap();
        let b = p.scale;
        let g = b;
        let v = [g, 0.0];
        let mut rng = rng_from_seed(5);
        let k = 40_000;
        let wrong = (0..k)
            .filter(|_| p.select(&v, &mut rng).0 == vec![1])
            .count() as f64
            / k as f64;
        let expect = 0.5 * (-1.0f64).exp() * 1.5;
        let se = (expect * (1.0 - expect) / k as f64).sqrt();
        assert!((wrong - expect).abs() < 5.0 * se, "{wrong} vs {expect}");
    }
}
