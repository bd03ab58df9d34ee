//! The statistics of the audit: the regularized incomplete beta function, its inverse,
//! one-sided Clopper–Pearson bounds, the Wilson score bounds used to *choose* an event,
//! and the threshold test that turns two samples of a scalar statistic into a lower
//! bound on ε.
//!
//! # Clopper–Pearson
//!
//! For k successes in n Bernoulli(p) trials, the one-sided 1 − α Clopper–Pearson bounds
//! are the beta quantiles
//!
//! ```text
//! p_lo = B⁻¹(α; k, n − k + 1)        (0 when k = 0)      P(p ≥ p_lo) ≥ 1 − α
//! p_hi = B⁻¹(1 − α; k + 1, n − k)    (1 when k = n)      P(p ≤ p_hi) ≥ 1 − α
//! ```
//!
//! [`beta_inc`] evaluates I_x(a, b) by the continued fraction of Numerical Recipes
//! (modified Lentz, evaluated on the side of (a + 1)/(a + b + 2) where it converges
//! fast) with the prefactor in log space (`libm::lgamma`); [`beta_inc_inv`] inverts it by
//! bisection to full double precision. The bounds are returned on the conservative
//! side of the bisection bracket (the lower bound from below, the upper from above),
//! and k = 0 / k = n use the closed forms 1 − α^{1/n} and α^{1/n}.
//!
//! # Threshold test (split-sample)
//!
//! Given N statistics from D and N from D′, the first ⌊f·N⌋ trials of each side (the
//! *selection part*, f = 0.3 in the audit) choose one event S among {T > t} and {T ≤ t}
//! for every threshold t at a value of the selection part, in both orderings (D against
//! D′ and D′ against D): the one maximizing ln((w_lo(S|P) − δ)/w_hi(S|Q)) with Wilson
//! score bounds at z = 4 (cheap, closed form, and conservative enough that the choice
//! prefers events with many counts over lucky tails; any selection rule is valid
//! because the other part is untouched). The remaining trials (the *evaluation part*)
//! then give
//!
//! ```text
//! ε_lb = ln((p_lo(S|P) − δ) / p_hi(S|Q))       (0 when p_lo ≤ δ; never below 0)
//! δ_lb = max(0, p_lo(S|P) − e^ε · p_hi(S|Q))   (hockey-stick divergence H_{e^ε}(P‖Q))
//! ```
//!
//! with the two Clopper–Pearson bounds at α/2 each (union bound: both hold with
//! probability ≥ 1 − α = 95 %). If the mechanism is (ε, δ)-DP then
//! P(S|P) ≤ e^ε P(S|Q) + δ for every S, so with probability ≥ 95 % the true ε is ≥ ε_lb
//! and the true hockey-stick divergence at e^ε is ≥ δ_lb. Because the event is chosen on
//! independent trials, no multiple-comparison correction is needed.

use serde::Serialize;

/// ln Γ(x) − ((x − ½) ln x − x + ½ ln 2π), the Stirling remainder, for x ≥ 10
/// (asymptotic series; the first omitted term is below 1e-16 at x = 10).
fn stirling_remainder(x: f64) -> f64 {
    let r = 1.0 / x;
    let r2 = r * r;
    r * (1.0 / 12.0
        - r2 * (1.0 / 360.0
            - r2 * (1.0 / 1260.0
                - r2 * (1.0 / 1680.0
                    - r2 * (1.0 / 1188.0 - r2 * (691.0 / 360_360.0 - r2 / 156.0))))))
}

/// ln B(a, b) = ln Γ(a) + ln Γ(b) − ln Γ(a + b), arranged as R's `lbeta` does so that the
/// large terms cancel analytically (a plain sum of `lgamma`s loses ≈ lgamma(a + b)·2⁻⁵³).
fn ln_beta(a: f64, b: f64) -> f64 {
    const HALF_LN_2PI: f64 = 0.918_938_533_204_672_7;
    let (p, q) = if a < b { (a, b) } else { (b, a) };
    let s = p + q;
    if p >= 10.0 {
        let corr = stirling_remainder(p) + stirling_remainder(q) - stirling_remainder(s);
        -0.5 * q.ln() + HALF_LN_2PI + corr + (p - 0.5) * (p / s).ln() + q * (-p / s).ln_1p()
    } else if q >= 10.0 {
        let corr = stirling_remainder(q) - stirling_remainder(s);
        libm::lgamma(p) + corr + p - p * s.ln() + (q - 0.5) * (-p / s).ln_1p()
    } else {
        libm::lgamma(p) + libm::lgamma(q) - libm::lgamma(s)
    }
}

/// Continued fraction of I_x(a, b) (Numerical Recipes `betacf`, modified Lentz).
fn beta_cf(a: f64, b: f64, x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    const EPS: f64 = 1e-16;
    const MAX_ITER: usize = 1_000_000;
    /// The modified Lentz guard: a denominator closer to 0 than TINY becomes TINY.
    fn guarded(v: f64) -> f64 {
        if v.abs() < TINY {
            TINY
        } else {
            v
        }
    }
    /// One Lentz step with partial numerator aa: updates C and D and returns the factor
    /// Δ = C·D that multiplies the convergent h.
    fn step(aa: f64, c: &mut f64, d: &mut f64) -> f64 {
        *d = 1.0 / guarded(1.0 + aa * *d);
        *c = guarded(1.0 + aa / *c);
        *d * *c
    }
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 / guarded(1.0 - qab * x / qap);
    let mut h = d;
    for m in 1..=MAX_ITER {
        let m = m as f64;
        let m2 = 2.0 * m;
        // even step
        h *= step(m * (b - m) * x / ((qam + m2) * (a + m2)), &mut c, &mut d);
        // odd step
        let del = step(
            -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)),
            &mut c,
            &mut d,
        );
        h *= del;
        if (del - 1.0).abs() < EPS {
            break;
        }
    }
    h
}

/// The regularized incomplete beta function I_x(a, b) = P(Beta(a, b) ≤ x), for a, b > 0
/// and x ∈ [0, 1] (clamped). Relative accuracy ≈ 1e-14 away from the far tails.
pub fn beta_inc(x: f64, a: f64, b: f64) -> f64 {
    assert!(a > 0.0 && b > 0.0, "beta_inc needs a, b > 0");
    if x.is_nan() {
        return f64::NAN;
    }
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let ln_front = a * x.ln() + b * (-x).ln_1p() - ln_beta(a, b);
    if x < (a + 1.0) / (a + b + 2.0) {
        (ln_front.exp() * beta_cf(a, b, x) / a).clamp(0.0, 1.0)
    } else {
        (1.0 - ln_front.exp() * beta_cf(b, a, 1.0 - x) / b).clamp(0.0, 1.0)
    }
}

/// Which end of the final bisection bracket [`beta_inc_inv`] returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The largest x found with I_x(a, b) ≤ q (a value never above the true quantile).
    Below,
    /// The smallest x found with I_x(a, b) ≥ q (a value never below the true quantile).
    Above,
}

/// The q-quantile of Beta(a, b): the x ∈ [0, 1] with I_x(a, b) = q, by bisection until
/// the bracket cannot shrink (≤ 1100 halvings, reaching adjacent doubles even for
/// quantiles near 1e-300). `side` picks the end of the bracket.
pub fn beta_inc_inv(q: f64, a: f64, b: f64, side: Side) -> f64 {
    assert!((0.0..=1.0).contains(&q), "beta_inc_inv needs q in [0, 1]");
    let (mut lo, mut hi) = (0.0_f64, 1.0_f64);
    for _ in 0..1100 {
        // Bisect in the middle while the bracket is wide, geometrically near 0 so tiny
        // quantiles are found to full relative precision.
        let mid = if lo == 0.0 && hi < 1e-3 {
            hi * 0.5
        } else if lo > 0.0 && hi / lo > 4.0 {
            (lo * hi).sqrt()
        } else {
            lo + 0.5 * (hi - lo)
        };
        if mid <= lo || mid >= hi {
            break;
        }
        if beta_inc(mid, a, b) < q {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    match side {
        Side::Below => lo,
        Side::Above => hi,
    }
}

/// One-sided 1 − α Clopper–Pearson lower bound on p from k successes in n trials.
pub fn clopper_pearson_lower(k: u64, n: u64, alpha: f64) -> f64 {
    assert!(k <= n && n > 0, "need 0 <= k <= n, n > 0");
    assert!(alpha > 0.0 && alpha < 1.0, "alpha must be in (0, 1)");
    if k == 0 {
        return 0.0;
    }
    if k == n {
        // P(all n succeed) = p^n = α.
        return (alpha.ln() / n as f64).exp().next_down().max(0.0);
    }
    beta_inc_inv(alpha, k as f64, (n - k + 1) as f64, Side::Below)
}

/// One-sided 1 − α Clopper–Pearson upper bound on p from k successes in n trials.
pub fn clopper_pearson_upper(k: u64, n: u64, alpha: f64) -> f64 {
    assert!(k <= n && n > 0, "need 0 <= k <= n, n > 0");
    assert!(alpha > 0.0 && alpha < 1.0, "alpha must be in (0, 1)");
    if k == n {
        return 1.0;
    }
    if k == 0 {
        // P(no success) = (1 − p)^n = α.
        return (-(alpha.ln() / n as f64).exp_m1()).next_up().min(1.0);
    }
    beta_inc_inv(1.0 - alpha, (k + 1) as f64, (n - k) as f64, Side::Above)
}

/// Wilson score lower bound (one-sided, normal quantile z).
pub fn wilson_lower(k: u64, n: u64, z: f64) -> f64 {
    let (n, p) = (n as f64, k as f64 / n as f64);
    let z2 = z * z;
    let centre = p + z2 / (2.0 * n);
    let half = z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    ((centre - half) / (1.0 + z2 / n)).max(0.0)
}

/// Wilson score upper bound (one-sided, normal quantile z).
pub fn wilson_upper(k: u64, n: u64, z: f64) -> f64 {
    let (n, p) = (n as f64, k as f64 / n as f64);
    let z2 = z * z;
    let centre = p + z2 / (2.0 * n);
    let half = z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    ((centre + half) / (1.0 + z2 / n)).min(1.0)
}

/// ln((p_lo − δ)/p_hi), with 0 when p_lo ≤ δ and never below 0 (ε ≥ 0 is known).
pub fn epsilon_from_bounds(p_lo: f64, p_hi: f64, delta: f64) -> f64 {
    let num = p_lo - delta;
    if num <= 0.0 || p_hi <= 0.0 {
        return 0.0;
    }
    (num / p_hi).ln().max(0.0)
}

/// Which of the two datasets plays P (the numerator) in an event's ratio.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Ordering {
    /// P(S | D) against P(S | D′).
    #[serde(rename = "D vs D'")]
    DOverDPrime,
    /// P(S | D′) against P(S | D).
    #[serde(rename = "D' vs D")]
    DPrimeOverD,
}

/// The direction of a threshold event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Direction {
    /// S = {T > t}.
    #[serde(rename = "statistic > threshold")]
    Above,
    /// S = {T ≤ t}.
    #[serde(rename = "statistic <= threshold")]
    AtMost,
}

/// One event S of the threshold family.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Event {
    pub threshold: f64,
    pub direction: Direction,
    pub ordering: Ordering,
}

impl Event {
    /// Whether the statistic `t` is in S.
    pub fn contains(&self, t: f64) -> bool {
        match self.direction {
            Direction::Above => t > self.threshold,
            Direction::AtMost => t <= self.threshold,
        }
    }
}

/// The outcome of [`threshold_test`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ThresholdTest {
    /// The event chosen on the selection part (`None` when the selection part has no
    /// event with a positive estimate, e.g. identical samples).
    pub event: Option<Event>,
    /// Trials per dataset used to choose the event.
    pub selection_trials: usize,
    /// Trials per dataset used for the bound.
    pub evaluation_trials: usize,
    /// Evaluation-part count of S under P (numerator dataset).
    pub count_p: u64,
    /// Evaluation-part count of S under Q.
    pub count_q: u64,
    /// Clopper–Pearson lower bound on P(S | P) at α/2.
    pub p_lower: f64,
    /// Clopper–Pearson upper bound on P(S | Q) at α/2.
    pub q_upper: f64,
    /// The lower bound on ε (confidence 1 − α).
    pub epsilon_lower_bound: f64,
    /// The lower bound on the hockey-stick divergence H_{e^ε}(P‖Q) at the claimed ε.
    pub hockey_stick_lower_bound: f64,
}

/// Normal quantile of the Wilson selection score (deliberately conservative: with
/// thousands of candidate thresholds, z = 1.96 chases noise in the tails).
const Z_SELECT: f64 = 4.0;

/// The best event of the selection samples `sel_d`, `sel_dp` by the Wilson score
/// estimate ln((w_lo(S|P) − δ)/w_hi(S|Q)); `None` if no event has a positive score.
pub fn select_event(sel_d: &[f64], sel_dp: &[f64], delta: f64) -> Option<Event> {
    if sel_d.is_empty() || sel_dp.is_empty() {
        return None;
    }
    let mut a: Vec<f64> = sel_d.to_vec();
    let mut b: Vec<f64> = sel_dp.to_vec();
    a.sort_by(f64::total_cmp);
    b.sort_by(f64::total_cmp);
    let mut values: Vec<f64> = a.iter().chain(b.iter()).copied().collect();
    values.sort_by(f64::total_cmp);
    values.dedup();
    let (na, nb) = (a.len() as u64, b.len() as u64);
    let mut best: Option<(f64, Event)> = None;
    let (mut ia, mut ib) = (0usize, 0usize);
    for &t in &values {
        // counts of values <= t (sorted, monotone pointers)
        while ia < a.len() && a[ia] <= t {
            ia += 1;
        }
        while ib < b.len() && b[ib] <= t {
            ib += 1;
        }
        let (le_a, le_b) = (ia as u64, ib as u64);
        let (gt_a, gt_b) = (na - le_a, nb - le_b);
        let candidates = [
            (Direction::Above, Ordering::DOverDPrime, gt_a, na, gt_b, nb),
            (Direction::Above, Ordering::DPrimeOverD, gt_b, nb, gt_a, na),
            (Direction::AtMost, Ordering::DOverDPrime, le_a, na, le_b, nb),
            (Direction::AtMost, Ordering::DPrimeOverD, le_b, nb, le_a, na),
        ];
        for (direction, ordering, kp, np, kq, nq) in candidates {
            let score = epsilon_from_bounds(
                wilson_lower(kp, np, Z_SELECT),
                wilson_upper(kq, nq, Z_SELECT),
                delta,
            );
            if score > 0.0 && best.is_none_or(|(s, _)| score > s) {
                best = Some((
                    score,
                    Event {
                        threshold: t,
                        direction,
                        ordering,
                    },
                ));
            }
        }
    }
    best.map(|(_, e)| e)
}

/// The split-sample threshold test (see the module docs): `d` and `dp` are the
/// statistics of the trials on D and D′ in trial order; the first
/// `⌊len·selection_fraction⌋` of each choose the event, the rest bound it.
/// `alpha` is the total error probability (0.05 for 95 % confidence), `delta` the
/// claimed δ and `epsilon` the claimed ε (for the hockey-stick bound).
pub fn threshold_test(
    d: &[f64],
    dp: &[f64],
    epsilon: f64,
    delta: f64,
    alpha: f64,
    selection_fraction: f64,
) -> ThresholdTest {
    assert_eq!(d.len(), dp.len(), "the two samples must have equal size");
    let n = d.len();
    let n_sel = ((n as f64 * selection_fraction) as usize).clamp(1, n.saturating_sub(1).max(1));
    let n_eval = n - n_sel;
    let event = if n_eval == 0 {
        None
    } else {
        select_event(&d[..n_sel], &dp[..n_sel], delta)
    };
    let mut out = ThresholdTest {
        event,
        selection_trials: n_sel,
        evaluation_trials: n_eval,
        count_p: 0,
        count_q: 0,
        p_lower: 0.0,
        q_upper: 1.0,
        epsilon_lower_bound: 0.0,
        hockey_stick_lower_bound: 0.0,
    };
    let Some(ev) = event else {
        return out;
    };
    let (p, q) = match ev.ordering {
        Ordering::DOverDPrime => (&d[n_sel..], &dp[n_sel..]),
        Ordering::DPrimeOverD => (&dp[n_sel..], &d[n_sel..]),
    };
    let kp = p.iter().filter(|&&t| ev.contains(t)).count() as u64;
    let kq = q.iter().filter(|&&t| ev.contains(t)).count() as u64;
    let ne = n_eval as u64;
    let p_lo = clopper_pearson_lower(kp, ne, alpha / 2.0);
    let q_hi = clopper_pearson_upper(kq, ne, alpha / 2.0);
    out.count_p = kp;
    out.count_q = kq;
    out.p_lower = p_lo;
    out.q_upper = q_hi;
    out.epsilon_lower_bound = epsilon_from_bounds(p_lo, q_hi, delta);
    out.hockey_stick_lower_bound = (p_lo - epsilon.exp() * q_hi).max(0.0);
    out
}

#[cfg(test)]
// Reference values are printed to 17 significant digits, as the reference tool gives them.
#[allow(clippy::excessive_precision)]
mod tests {
    use super::*;

    fn rel(a: f64, b: f64) -> f64 {
        ((a - b) / b).abs()
    }

    /// Reference points (x, a, b, I_x(a, b)) of the regularized incomplete beta function:
    /// mpmath (40 digits) `betainc(a, b, 0, x, regularized=True)`, and for the last nine
    /// (the quantiles) bisection of it to the x with I_x(a, b) = q (identical to
    /// scipy.stats.beta.cdf / .ppf). Each point is checked both ways: `beta_inc` at x and
    /// `beta_inc_inv` at I.
    const BETA_REFERENCE: [(f64, f64, f64, f64); 17] = [
        (0.3, 2.0, 3.0, 0.348_299_999_999_999_98),
        (0.5, 10.0, 10.0, 0.5),
        (0.9, 0.5, 0.5, 0.795_167_235_300_866_57),
        (0.01, 1.0, 100.0, 0.633_967_658_726_770_5),
        (0.2, 50.0, 200.0, 0.512_623_768_151_319_09),
        (0.999, 200.0, 1.0, 0.818_648_829_478_635_56),
        (0.45, 1000.0, 1200.0, 0.334_662_342_671_541_32),
        (1e-4, 0.5, 30.0, 0.061_487_458_408_771_382),
        (0.187_086_028_447_398_53, 5.0, 6.0, 0.025),
        (0.812_913_971_552_601_43, 6.0, 5.0, 0.975),
        (0.005_116_196_891_823_701_4, 1.0, 10.0, 0.05),
        (0.037_335_397_604_661_768, 50.0, 951.0, 0.025),
        (0.065_390_487_915_493_645, 51.0, 950.0, 0.975),
        (0.999_442_963_002_052_95, 9999.0, 2.0, 0.025),
        (0.003_682_083_896_865_671_2, 1.0, 1000.0, 0.975),
        (0.045_809_942_198_770_605, 500.0, 9501.0, 0.025),
        (0.010_771_498_202_579_522, 3.0, 7.0, 0.0001),
    ];

    #[test]
    fn beta_inc_matches_reference_values() {
        for (x, a, b, want) in BETA_REFERENCE {
            let got = beta_inc(x, a, b);
            assert!(
                rel(got, want) < 1e-12,
                "I_{x}({a},{b}) = {got}, want {want}"
            );
        }
        assert_eq!(beta_inc(0.0, 2.0, 3.0), 0.0);
        assert_eq!(beta_inc(1.0, 2.0, 3.0), 1.0);
        // closed forms: I_x(1, b) = 1 − (1 − x)^b, I_x(a, 1) = x^a
        for x in [1e-6, 0.1, 0.5, 0.77, 0.999] {
            assert!(rel(beta_inc(x, 1.0, 7.0), -(7.0 * (-x).ln_1p()).exp_m1()) < 1e-13);
            assert!(rel(beta_inc(x, 4.0, 1.0), x.powi(4)) < 1e-13);
            // symmetry I_x(a, b) = 1 − I_{1−x}(b, a)
            let s = beta_inc(x, 3.5, 9.0) + beta_inc(1.0 - x, 9.0, 3.5);
            assert!((s - 1.0).abs() < 1e-14);
        }
    }

    #[test]
    fn beta_quantiles_match_reference_values() {
        for (want, a, b, q) in BETA_REFERENCE {
            for side in [Side::Below, Side::Above] {
                let got = beta_inc_inv(q, a, b, side);
                assert!(
                    rel(got, want) < 1e-11,
                    "ppf({q}; {a}, {b}) = {got}, want {want}"
                );
            }
            assert!(beta_inc_inv(q, a, b, Side::Below) <= beta_inc_inv(q, a, b, Side::Above));
        }
    }

    #[test]
    fn clopper_pearson_bounds() {
        // (k of n, two-sided 95 %): 5 of 10 is the classic (0.187086, 0.812914); the
        // references are the beta quantiles of `beta_quantiles_match_reference_values`.
        for (k, n, lower, upper) in [
            (5, 10, 0.187_086_028_447_398_53, 0.812_913_971_552_601_43),
            (
                50,
                1000,
                0.037_335_397_604_661_768,
                0.065_390_487_915_493_645,
            ),
        ] {
            let (lo, hi) = (
                clopper_pearson_lower(k, n, 0.025),
                clopper_pearson_upper(k, n, 0.025),
            );
            assert!(
                rel(lo, lower) < 1e-11 && rel(hi, upper) < 1e-11,
                "{k}/{n}: [{lo}, {hi}]"
            );
        }
        // edges: closed forms
        let u0 = clopper_pearson_upper(0, 1000, 0.025);
        assert!(rel(u0, 1.0 - 0.025f64.powf(1e-3)) < 1e-12 && u0 >= 1.0 - 0.025f64.powf(1e-3));
        assert!(rel(u0, 0.003_682_083_896_865_671_2) < 1e-11);
        let l1 = clopper_pearson_lower(10000, 10000, 0.025);
        assert!(rel(l1, 0.025f64.powf(1e-4)) < 1e-12);
        assert_eq!(clopper_pearson_lower(0, 10, 0.05), 0.0);
        assert_eq!(clopper_pearson_upper(10, 10, 0.05), 1.0);
        // coverage: the true p lies inside for a binomial quantile grid
        for (k, n) in [(1u64, 7u64), (3, 40), (999, 1000), (1, 1_000_000)] {
            let lo = clopper_pearson_lower(k, n, 0.05);
            let hi = clopper_pearson_upper(k, n, 0.05);
            let ph = k as f64 / n as f64;
            assert!(lo < ph && ph < hi, "{k}/{n}: [{lo}, {hi}]");
            // definition: P(Bin(n, lo) >= k) = α, i.e. I_lo(k, n−k+1) = α
            assert!((beta_inc(lo, k as f64, (n - k + 1) as f64) - 0.05).abs() < 1e-10);
            assert!((beta_inc(hi, (k + 1) as f64, (n - k) as f64) - 0.95).abs() < 1e-10);
        }
    }

    #[test]
    fn tiny_quantiles_keep_relative_precision() {
        // 1 success in 10^7 trials: lower bound ≈ 2.5e-9 (≈ −ln(1 − α)/n for α small).
        let lo = clopper_pearson_lower(1, 10_000_000, 0.025);
        let want = -(1.0f64 - 0.025).ln() / 1e7; // P(≥1) = 1 − (1−p)^n ≈ np
        assert!(rel(lo, want) < 1e-6, "{lo} vs {want}");
        assert!(beta_inc_inv(1e-300, 2.0, 3.0, Side::Above) > 0.0);
    }

    #[test]
    fn wilson_brackets_the_proportion() {
        for (k, n) in [(0u64, 10u64), (3, 10), (10, 10), (500, 1000)] {
            let lo = wilson_lower(k, n, 1.96);
            let hi = wilson_upper(k, n, 1.96);
            let ph = k as f64 / n as f64;
            assert!(lo <= ph && ph <= hi && lo >= 0.0 && hi <= 1.0);
        }
        // Wilson 95 % for 5/10: (0.2366, 0.7634)
        assert!((wilson_lower(5, 10, 1.959_963_984_540_054) - 0.236_593).abs() < 1e-5);
    }

    #[test]
    fn epsilon_from_bounds_edges() {
        assert_eq!(epsilon_from_bounds(0.0, 0.1, 0.0), 0.0);
        assert_eq!(epsilon_from_bounds(0.1, 0.2, 0.0), 0.0);
        assert!((epsilon_from_bounds(0.5, 0.5 / std::f64::consts::E, 0.0) - 1.0).abs() < 1e-15);
        assert_eq!(epsilon_from_bounds(0.01, 0.001, 0.02), 0.0);
    }

    #[test]
    fn threshold_test_separates_and_does_not_invent() {
        // Identical samples: no positive bound.
        let a: Vec<f64> = (0..2000).map(|i| (i % 97) as f64).collect();
        let t = threshold_test(&a, &a, 1.0, 0.0, 0.05, 0.5);
        assert_eq!(t.epsilon_lower_bound, 0.0);
        // Disjoint deterministic samples: large bound ln(p_lo / q_hi) with counts N/2, 0.
        let b: Vec<f64> = vec![1.0; 2000];
        let c: Vec<f64> = vec![0.0; 2000];
        let t = threshold_test(&b, &c, 1.0, 0.0, 0.05, 0.5);
        let ev = t.event.unwrap();
        assert_eq!((t.count_p, t.count_q), (1000, 0));
        let want =
            (clopper_pearson_lower(1000, 1000, 0.025) / clopper_pearson_upper(0, 1000, 0.025)).ln();
        assert!((t.epsilon_lower_bound - want).abs() < 1e-12, "{t:?}");
        assert!(ev.contains(1.0) != ev.contains(0.0));
        assert!(t.hockey_stick_lower_bound > 0.9);
        // δ subtracts: with δ = 1 nothing can be shown.
        let t = threshold_test(&b, &c, 1.0, 0.999_999, 0.05, 0.5);
        assert_eq!(t.epsilon_lower_bound, 0.0);
    }
}
