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
//! b = the smallest scale whose 2s steps certify (ε, δ)   (Laplace scale; `calibration=exact`)
//!   | 2·λ'·√(3·s·ln(1/δ)) / ε                           (printed; `calibration=paper`)
//!   λ' = widened(λ) = λ(1 + 2⁻⁴⁰)
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
//! ε ≤ 0.418·ln(1/δ) or s ≤ (4/3)·ln(1/δ) (spec §E, Reviewed) — and otherwise to much
//! less than ε (0.571ε at s = 5, ε = 1, δ = 10⁻⁵; 0.255ε at s = 1), so the printed scale
//! spends noise for nothing.
//!
//! **Calibration.** [`Peeling::new`] (`calibration=exact`, the default)
//! solves by bisection ([`peeling_exact_scale`]) for the smallest b at which that
//! best-of-three composition ([`peeling_certified_epsilon`]) certifies ε at δ: the certified
//! ε is then within a relative 1e-12 of ε, and b is about half the printed one for
//! s ≤ 40 (0.54× at s = 5, δ = 10⁻⁵). Basic composition alone closes at b = 3sλ'/ε, so
//! every (ε, δ, s) is accepted. `calibration=paper` ([`PeelingCalibration::Paper`]) keeps the
//! printed b and refuses (ε, δ, s) for which it does not close, with the certified value in
//! the error. Either way the charge ([`Peeling::epsilon`], δ) is what the scale certifies at
//! the true λ, never the nominal budget.
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

/// How Peeling's Laplace scale b is chosen from the budget (ε, δ).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PeelingCalibration {
    /// The smallest b whose best-of(basic, advanced, zCDP) composition of the 2s steps
    /// certifies ε (bisection; default).
    Exact,
    /// The printed b = 2λ'√(3 s ln(1/δ))/ε (Hu et al. Alg. 4, Cai et al. Lemma 3.3). It
    /// certifies less than ε (about 0.57ε at s = 5, δ = 10⁻⁵), and is refused when it
    /// certifies more; the charge is what it certifies.
    Paper,
}

impl PeelingCalibration {
    /// The `--param calibration` value.
    pub fn name(self) -> &'static str {
        match self {
            PeelingCalibration::Exact => "exact",
            PeelingCalibration::Paper => "paper",
        }
    }
}

/// The Peeling mechanism. Construct with [`Peeling::new`] (exact calibration),
/// [`Peeling::calibrated`] or [`Peeling::with_scale`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Peeling {
    /// Number of coordinates selected.
    pub s: usize,
    /// ℓ∞ sensitivity λ of the input vector.
    pub lambda: f64,
    /// ε of the whole call: what the 2s steps certify at δ (≤ the budget asked for); the
    /// charge. ∞ when the scale is 0.
    pub epsilon: f64,
    /// δ of the whole call.
    pub delta: f64,
    /// Laplace scale b (0 when ε = ∞).
    pub scale: f64,
}

/// The ε certified at δ for the 2s steps of Peeling with Laplace scale `scale` (> 0) at
/// sensitivity λ: the smallest of basic composition, advanced composition with slack δ and
/// zCDP composition converted at δ. Rounded up. Non-increasing in `scale`.
pub fn peeling_certified_epsilon(s: usize, lambda: f64, scale: f64, delta: f64) -> f64 {
    if scale == 0.0 {
        return f64::INFINITY;
    }
    let lw = widened(lambda);
    let (e_sel, e_val) = (div_up(2.0 * lw, scale), div_up(lw, scale));
    let sf = s as f64;
    let basic = up(mul_up(sf, e_sel) + mul_up(sf, e_val));
    let advanced = advanced_composition(2 * s, e_sel, 0.0, delta).0;
    let rho = up(mul_up(sf, pure_to_zcdp(e_sel)) + mul_up(sf, pure_to_zcdp(e_val)));
    let zcdp = zcdp_to_approx(rho, delta);
    basic.min(advanced).min(zcdp)
}

/// The printed scale b = 2λ'√(3 s ln(1/δ))/ε.
pub fn peeling_paper_scale(s: usize, lambda: f64, epsilon: f64, delta: f64) -> f64 {
    2.0 * widened(lambda) * (3.0 * s as f64 * (-delta.ln())).sqrt() / epsilon
}

/// The smallest Laplace scale b (to a relative 1e-13) at which
/// [`peeling_certified_epsilon`] is at most `epsilon`, by bisection. Basic composition
/// alone certifies ε at b = 3sλ'/ε, so the search is bracketed.
pub fn peeling_exact_scale(s: usize, lambda: f64, epsilon: f64, delta: f64) -> f64 {
    let cert = |b: f64| peeling_certified_epsilon(s, lambda, b, delta);
    let mut hi = 3.0 * s as f64 * widened(lambda) / epsilon * (1.0 + 1e-9);
    while cert(hi) > epsilon {
        hi *= 2.0;
    }
    crate::privacy::smallest_certified(cert, epsilon, hi, 1e-3, 1e-13)
}

impl Peeling {
    /// [`Peeling::calibrated`] with [`PeelingCalibration::Exact`]: the smallest Laplace
    /// scale whose composition certifies (ε, δ). Errors: s = 0, λ ≤ 0, ε ≤ 0, δ ∉ (0, 1),
    /// or a scale beyond the exact samplers' range.
    pub fn new(s: usize, lambda: f64, epsilon: f64, delta: f64) -> Result<Self, PrivacyError> {
        Self::calibrated(s, lambda, epsilon, delta, PeelingCalibration::Exact)
    }

    /// Validates and calibrates the scale by `calibration` for the budget (ε, δ). The
    /// resulting [`Peeling::epsilon`] (the charge) is what the scale certifies at the true
    /// λ, never more than ε; with [`PeelingCalibration::Paper`] an (ε, δ, s) for which the
    /// printed scale certifies more than ε is refused (spec §E).
    pub fn calibrated(
        s: usize,
        lambda: f64,
        epsilon: f64,
        delta: f64,
        calibration: PeelingCalibration,
    ) -> Result<Self, PrivacyError> {
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
        let scale = match calibration {
            PeelingCalibration::Exact => peeling_exact_scale(s, lambda, epsilon, delta),
            PeelingCalibration::Paper => peeling_paper_scale(s, lambda, epsilon, delta),
        };
        let p = Self::with_scale(s, lambda, scale, delta)?;
        if p.epsilon > epsilon {
            return bad(format!(
                "peeling: with s = {s}, epsilon = {epsilon}, delta = {delta} the printed scale's 2s composed steps certify only epsilon = {:.4} > {epsilon}; Peeling's printed (epsilon, delta) guarantee needs epsilon <= 0.418*ln(1/delta) or s <= (4/3)*ln(1/delta) (spec Hu §E): use calibration=exact, a smaller epsilon per call, a smaller delta or a smaller s",
                p.epsilon
            ));
        }
        Ok(p)
    }

    /// Peeling with a given Laplace scale b > 0 at sensitivity λ; its ε (the charge) is
    /// what the 2s steps certify at δ ([`peeling_certified_epsilon`]).
    pub fn with_scale(s: usize, lambda: f64, scale: f64, delta: f64) -> Result<Self, PrivacyError> {
        let bad = |m: String| Err(PrivacyError::InvalidMechanism(m));
        if s == 0 || !(lambda.is_finite() && lambda > 0.0) || !(delta > 0.0 && delta < 1.0) {
            return bad(format!(
                "peeling: needs s >= 1, a finite lambda > 0 and delta in (0, 1), got s = {s}, lambda = {lambda}, delta = {delta}"
            ));
        }
        // The exact samplers take up to 2¹⁰⁶ grid units of 2^(⌊log₂λ⌋−40).
        if scale.is_nan() || scale <= 0.0 || scale > 2f64.powi(60) * lambda {
            return bad(format!(
                "peeling: the Laplace scale {scale} is not in (0, 2^60 * lambda], lambda = {lambda} (epsilon far too small for the exact noise samplers)"
            ));
        }
        Ok(Peeling {
            s,
            lambda,
            epsilon: peeling_certified_epsilon(s, lambda, scale, delta),
            delta,
            scale,
        })
    }

    /// ε of one selection round, 2λ'/b (rounded up).
    pub fn selection_epsilon(&self) -> f64 {
        div_up(2.0 * widened(self.lambda), self.scale)
    }

    /// ε of one released value, λ'/b (rounded up).
    pub fn value_epsilon(&self) -> f64 {
        div_up(widened(self.lambda), self.scale)
    }

    /// The ε (at this δ) certified for the 2s steps ([`peeling_certified_epsilon`]).
    pub fn certified_epsilon(&self) -> f64 {
        peeling_certified_epsilon(self.s, self.lambda, self.scale, self.delta)
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
    use crate::privacy::Cost;
    use crate::privacy::{Accountant, Budget, PrivacyLedger};

    #[test]
    fn paper_scale_matches_the_spec_formula() {
        // b = 2 λ' √(3 s ln(1/δ)) / ε with λ' = λ(1 + 2^-40) (the snapping's widening) —
        // fails if λ (the sensitivity) were halved.
        let delta = 5e4f64.powf(-1.1);
        let p = Peeling::calibrated(40, 0.0164, 1.0, delta, PeelingCalibration::Paper).unwrap();
        let lw = widened(0.0164);
        let expect = 2.0 * lw * (3.0 * 40.0 * (5e4f64.powf(1.1)).ln()).sqrt() / 1.0;
        assert!((p.scale - expect).abs() < 1e-14 * expect);
        // The spec's worked value (X.2, Alg. 3 at n = 5·10⁴): scale ≈ 1.24.
        assert!((p.scale - 1.24).abs() < 0.01, "scale {}", p.scale);
        assert_eq!(p.selection_epsilon(), div_up(2.0 * lw, p.scale));
        assert_eq!(p.value_epsilon(), div_up(lw, p.scale));
        // The charge is what the printed scale certifies, not the nominal ε.
        assert_eq!(p.epsilon, p.certified_epsilon());
        assert!(p.epsilon < 1.0);
        assert_eq!(
            p.cost(),
            Cost::Approx {
                epsilon: p.epsilon,
                delta
            }
        );
    }

    #[test]
    fn the_printed_scale_certifies_far_less_than_its_budget() {
        // Pinned: s = 5, ε = 1, δ = 1e-5 certifies 0.571; s = 1 certifies 0.255.
        let c = |s| {
            Peeling::calibrated(s, 1.0, 1.0, 1e-5, PeelingCalibration::Paper)
                .unwrap()
                .epsilon
        };
        assert!((c(5) - 0.571).abs() < 0.001, "{}", c(5));
        assert!((c(1) - 0.255).abs() < 0.001, "{}", c(1));
    }

    /// The certified ε at scale b, recomputed from the three composition formulas.
    fn by_formula(s: usize, lambda: f64, b: f64, delta: f64) -> f64 {
        let lw = widened(lambda);
        let (e1, e2) = (2.0 * lw / b, lw / b);
        let k = s as f64;
        let basic = k * (e1 + e2);
        let l = (1.0 / delta).ln();
        let advanced = (2.0 * 2.0 * k * l).sqrt() * e1 + 2.0 * k * e1 * e1.exp_m1();
        let rho = k * (e1 * e1 + e2 * e2) / 2.0;
        let zcdp = rho + 2.0 * (rho * l).sqrt();
        basic.min(advanced).min(zcdp)
    }

    #[test]
    fn exact_scale_certifies_the_budget_and_no_smaller_scale_does() {
        for &s in &[1usize, 2, 5, 20, 40, 100, 1000] {
            for &eps in &[0.1, 0.5, 1.0, 3.0, 8.0] {
                for &delta in &[1e-3, 1e-5, 1e4f64.powf(-1.1), 1e-10] {
                    for &lambda in &[1e-3, 0.37, 5.0] {
                        let p = Peeling::new(s, lambda, eps, delta).unwrap();
                        let c = p.certified_epsilon();
                        assert_eq!(p.epsilon, c);
                        assert!(
                            c <= eps && c >= eps * (1.0 - 1e-9),
                            "{s} {eps} {delta}: {c}"
                        );
                        // The formulas agree with the certificate at the solved scale ...
                        let f = by_formula(s, lambda, p.scale, delta);
                        assert!((f / eps - 1.0).abs() < 1e-9, "{s} {eps} {delta}: {f}");
                        // ... a scale 0.1 % smaller certifies more than the budget, and
                        // halving the noise certifies far more.
                        let smaller =
                            peeling_certified_epsilon(s, lambda, p.scale * (1.0 - 1e-3), delta);
                        assert!(smaller > eps, "{s} {eps} {delta}: {smaller}");
                        let half = by_formula(s, lambda, p.scale / 2.0, delta);
                        assert!(half > 1.4 * eps, "{s} {eps} {delta}: {half}");
                        // Never noisier than the printed scale where that one is valid.
                        if let Ok(q) =
                            Peeling::calibrated(s, lambda, eps, delta, PeelingCalibration::Paper)
                        {
                            assert!(p.scale <= q.scale);
                        }
                    }
                }
            }
        }
        // The gain at the Tian defaults (s = 5, δ = 1e-5): 0.571 of the printed noise.
        let e = Peeling::new(5, 1.0, 1.0, 1e-5).unwrap().scale;
        let p = peeling_paper_scale(5, 1.0, 1.0, 1e-5);
        assert!((e / p - 0.571).abs() < 0.005, "{}", e / p);
    }

    #[test]
    fn halving_the_noise_exceeds_the_budget_in_the_ledger() {
        let p = Peeling::new(5, 0.05, 1.0, 1e-5).unwrap();
        let half = Peeling::with_scale(5, 0.05, p.scale / 2.0, 1e-5).unwrap();
        assert!(half.epsilon > 1.0);
        let mut ledger = PrivacyLedger::new(Budget::new(1.0, 1e-5).unwrap(), Accountant::Basic);
        let v = [1.0; 10];
        let mut rng = rng_from_seed(1);
        assert!(release(&mut ledger, "peeling", &half, &v[..], &mut rng).is_err());
        assert!(release(&mut ledger, "peeling", &p, &v[..], &mut rng).is_ok());
    }

    #[test]
    fn validity_check_follows_the_composition() {
        let paper =
            |s, eps, delta| Peeling::calibrated(s, 1.0, eps, delta, PeelingCalibration::Paper);
        // Spec §E: ε = 1, δ = 0.1, s ≥ 4 composes to 1.003ε — refused with the printed scale.
        assert!(paper(4, 1.0, 0.1).is_err());
        // s ≤ (4/3) ln(1/δ) = 3.07: basic composition suffices.
        let p = paper(3, 1.0, 0.1).unwrap();
        assert!(p.certified_epsilon() <= 1.0);
        // ε = 4, δ = 0.01, s = 40 gives ≈ 4.37 — refused.
        let e = paper(40, 4.0, 0.01).unwrap_err().to_string();
        assert!(e.contains("certify only"), "{e}");
        // The exact calibration accepts both, at exactly the budget.
        for (s, eps, delta) in [(4, 1.0, 0.1), (40, 4.0, 0.01)] {
            let p = Peeling::new(s, 1.0, eps, delta).unwrap();
            assert!(p.epsilon <= eps && p.epsilon > eps * (1.0 - 1e-9));
        }
        // Every paper setting passes (δ = n^−1.1, n ≥ 4000, ε ≤ 3).
        for &n in &[4000.0f64, 8000.0, 5e4] {
            for &eps in &[0.5, 1.0, 3.0] {
                for &s in &[2usize, 40, 100] {
                    let p =
                        Peeling::calibrated(s, 0.1, eps, n.powf(-1.1), PeelingCalibration::Paper)
                            .unwrap();
                    assert!(p.certified_epsilon() <= eps);
                }
            }
        }
        // Large s: ≈ 0.913ε + 0.208ε²/L by zCDP.
        let l = 20.0f64;
        let p = paper(1000, 1.0, (-l).exp()).unwrap();
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
        let spent = ledger.spent();
        assert!(
            spent.0 <= 1.0 && spent.0 > 1.0 - 1e-9 && spent.1 == 1e-6,
            "{spent:?}"
        );
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
        (0, -0.6265832743385431),
        (20, 0.6721103734321332),
        (36, -0.01923486944679098),
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
