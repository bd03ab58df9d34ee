//! Samplers: the streaming exponential mechanism over a candidate set (Gumbel-max,
//! spec §4) and the uncertified Metropolis random walk of spec §6 (`net=mcmc`).

use super::kernel::TruncatedScore;
use super::net::{CandidateSet, CANDIDATE_BLOCK};
use crate::constraints::ConstraintSet;
use crate::data::Dataset;
use crate::mechanisms::Mechanism;
use crate::noise;
use crate::privacy::Cost;
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use rayon::prelude::*;

/// How candidate j is keyed: `Exponential { coef }` gives key_j = −coef·S_j + G_j with
/// G_j i.i.d. standard Gumbel (so P(j) ∝ exp(−coef·S_j)); `Argmin` gives key_j = −S_j
/// (ε = ∞, no random draws).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Selection {
    Exponential { coef: f64 },
    Argmin,
}

/// The winner of a selection over a candidate set.
#[derive(Debug, Clone, PartialEq)]
pub struct Selected {
    /// Its index in the candidate set.
    pub index: u64,
    /// Its coordinates.
    pub point: Vec<f64>,
}

/// Selects one candidate of `net` with key_j as in [`Selection`], S_j = Σ_i ψ_θ(ι|y_i −
/// ⟨x_i, w_j⟩|) computed by `score`. Streaming: candidates are generated, scored and
/// keyed block by block ([`CANDIDATE_BLOCK`] per block, in parallel over blocks); block b
/// draws its Gumbel variables from `ChaCha20Rng::from_seed(key)` on stream b, in
/// candidate order. The block winners are reduced in block order (largest key, the
/// smallest index on ties), so the result does not depend on the number of threads.
/// Scores are never exponentiated; every S_j is finite (each per-record term is clamped),
/// and a NaN key (impossible, but guarded) never wins.
pub fn select(
    net: &dyn CandidateSet,
    score: &TruncatedScore,
    data: &Dataset,
    selection: Selection,
    key: [u8; 32],
) -> Selected {
    select_with_progress(net, score, data, selection, key, &mut |_| {})
}

/// Candidate blocks scored per progress report of [`select_with_progress`].
pub const PROGRESS_ROUND_BLOCKS: u64 = 64;

/// The number of candidate blocks of a set of `n_candidates` ([`CANDIDATE_BLOCK`] each):
/// the total that [`select_with_progress`] counts to.
pub fn candidate_blocks(n_candidates: u64) -> u64 {
    n_candidates.div_ceil(CANDIDATE_BLOCK as u64)
}

/// As [`select`], calling `progress(blocks_done)` after each round of
/// [`PROGRESS_ROUND_BLOCKS`] blocks (public counts only). The rounds run in order and
/// the winners are reduced in block order as in [`select`], so the result is the same.
pub fn select_with_progress(
    net: &dyn CandidateSet,
    score: &TruncatedScore,
    data: &Dataset,
    selection: Selection,
    key: [u8; 32],
    progress: &mut dyn FnMut(u64),
) -> Selected {
    let d = net.dim();
    let n = net.count();
    assert!(n > 0, "exponential mechanism over an empty candidate set");
    let bs = CANDIDATE_BLOCK as u64;
    let blocks = n.div_ceil(bs);
    let mut winners: Vec<(f64, u64)> = Vec::with_capacity(blocks as usize);
    let mut done = 0u64;
    while done < blocks {
        let round_end = (done + PROGRESS_ROUND_BLOCKS).min(blocks);
        let round: Vec<(f64, u64)> = (done..round_end)
            .into_par_iter()
            .map(|b| {
                let start = b * bs;
                let m = (n - start).min(bs) as usize;
                let mut cands = vec![0.0; m * d];
                net.fill(start, &mut cands);
                let mut s = vec![0.0; m];
                score.sums(data, &cands, &mut s);
                let mut rng = match selection {
                    Selection::Exponential { .. } => {
                        let mut r = ChaCha20Rng::from_seed(key);
                        r.set_stream(b);
                        Some(r)
                    }
                    Selection::Argmin => None,
                };
                let mut best = (f64::NEG_INFINITY, u64::MAX);
                for (j, sj) in s.iter().enumerate() {
                    let k = match (selection, rng.as_mut()) {
                        (Selection::Exponential { coef }, Some(r)) => -coef * sj + noise::gumbel(r),
                        _ => -sj,
                    };
                    let k = if k.is_nan() { f64::NEG_INFINITY } else { k };
                    if best.1 == u64::MAX || k > best.0 {
                        best = (k, start + j as u64);
                    }
                }
                best
            })
            .collect();
        winners.extend(round);
        done = round_end;
        progress(done);
    }
    let mut best = winners[0];
    for w in &winners[1..] {
        if w.0 > best.0 {
            best = *w;
        }
    }
    Selected {
        index: best.1,
        point: net.point(best.1),
    }
}

/// The exponential mechanism of Wang & Xu Alg. 1/2 (spec §5 step 3) over a finite,
/// data-independent candidate set: outputs candidate j with probability
/// ∝ exp(−ε·S_j/(2·κ·L)), L = log θ (the per-record range of ψ), κ = 1 for the tight
/// sensitivity Δ_u = log θ/(nι), κ = 2 for the paper's 2 log θ/(nι). Pure ε-DP.
///
/// The coefficient ([`coefficient`]) is a hair below ε/(2κ log θ), so that the
/// floating-point rounding of the sums cannot push the privacy loss above the ε charged.
/// ε = ∞ gives the exact argmin of S (no draws).
pub struct NetExponentialMechanism<'a> {
    pub net: &'a dyn CandidateSet,
    pub score: TruncatedScore,
    /// ε.
    pub epsilon: f64,
    /// κ ∈ {1, 2}: Δ_u = κ·log θ/(nι).
    pub kappa: f64,
}

/// The exponent's coefficient for n records: P(w) ∝ exp(−coef·S(w)) with
///
/// ```text
/// coef = ε′·(1 − ρ)/(2κ·log θ),   ε′ = calibration_target(ε),   ρ = 1e−12/log θ + 1e−15·n,
/// ```
///
/// i.e. the exponential mechanism with Δ_u = κ log θ/(nι) (the nι cancels), shrunk by the
/// relative floating-point margin ρ of the computed S (kernel module docs) so that the
/// computed scores' sensitivity times the coefficient stays below ε/2 (κ = 1) — the
/// mechanism is ε-DP with the rounding accounted for (up to the usual caveat of
/// continuous noise sampled in floating point).
pub fn coefficient(epsilon: f64, kappa: f64, theta: f64, n: usize) -> f64 {
    let lt = theta.ln();
    let rho = 1e-12 / lt + 1e-15 * n as f64;
    crate::privacy::calibration_target(epsilon) * (1.0 - rho) / (2.0 * kappa * lt)
}

/// The additive δ of the floating-point streaming Gumbel-max sampler over N candidates
/// at ε (docs/privacy.md §5): δ = (1 + e^ε)·N·2⁻⁵⁰, rounded up. The
/// sampler's law is within total variation ≈ N·2⁻⁵⁰ of the exact exponential mechanism,
/// so it is (ε, δ)-DP with this δ. ε = ∞ (exact argmin, no sampling) gives 0; an ε whose
/// e^ε overflows gives ∞ (nothing can be certified).
pub fn sampler_delta(epsilon: f64, n_candidates: u64) -> f64 {
    use crate::privacy::{add_up, mul_up, up};
    if epsilon.is_infinite() {
        return 0.0;
    }
    // N < 2⁵³ in practice; a larger N is rounded up.
    let n = up(n_candidates as f64);
    mul_up(add_up(1.0, up(epsilon.exp())), n * 2f64.powi(-50))
}

impl NetExponentialMechanism<'_> {
    /// The sampling rule for n records: coef = [`coefficient`]`(ε, κ, θ, n)`, or argmin at
    /// ε = ∞.
    pub fn selection(&self, n: usize) -> Selection {
        if self.epsilon.is_infinite() {
            Selection::Argmin
        } else {
            Selection::Exponential {
                coef: coefficient(self.epsilon, self.kappa, self.score.theta(), n),
            }
        }
    }
}

impl Mechanism for NetExponentialMechanism<'_> {
    type Input = Dataset;
    type Output = Selected;
    /// (ε, δ) with δ = [`sampler_delta`]`(ε, N)`: the floating-point Gumbel-max sampler's
    /// additive δ (pure ε at ε = ∞, where the argmin draws nothing).
    fn cost(&self) -> Cost {
        if self.epsilon.is_infinite() {
            return Cost::Pure {
                epsilon: self.epsilon,
            };
        }
        Cost::Approx {
            epsilon: self.epsilon,
            delta: sampler_delta(self.epsilon, self.net.count()),
        }
    }
    fn run_uncharged<R: RngCore + ?Sized>(&self, data: &Dataset, rng: &mut R) -> Selected {
        self.run_with_progress(data, rng, &mut |_| {})
    }
}

impl NetExponentialMechanism<'_> {
    /// [`Mechanism::run_uncharged`] reporting the candidate blocks scored so far to
    /// `progress` (see [`select_with_progress`]); the caller charges the ledger first.
    pub fn run_with_progress<R: RngCore + ?Sized>(
        &self,
        data: &Dataset,
        rng: &mut R,
        progress: &mut dyn FnMut(u64),
    ) -> Selected {
        let selection = self.selection(data.n());
        let mut key = [0u8; 32];
        if matches!(selection, Selection::Exponential { .. }) {
            rng.fill_bytes(&mut key);
        }
        select_with_progress(self.net, &self.score, data, selection, key, progress)
    }
}

/// Settings of the Metropolis random walk.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct McmcSettings {
    /// Number of proposals.
    pub steps: usize,
    /// Standard deviation σ of the Gaussian proposal w' = w + σ·N(0, I_d).
    pub step: f64,
    /// The density's coefficient: target ∝ exp(−coef·S(w)) on W.
    pub coef: f64,
}

/// Metropolis random walk on W targeting the density ∝ exp(−coef·S(w)) with respect to
/// the uniform measure on W (spec §6 `net=mcmc`): start at the domain's centre, propose
/// w' = w + σξ, reject proposals outside W, accept with probability
/// min(1, exp(−coef·(S(w') − S(w)))) (compared in log space). Returns the last state.
/// **Heuristic:** the target is not log-concave and no mixing bound is available, so the
/// output's privacy is uncertified.
pub fn metropolis(
    domain: &dyn ConstraintSet,
    score: &TruncatedScore,
    data: &Dataset,
    settings: McmcSettings,
    rng: &mut dyn RngCore,
    mut on_step: impl FnMut(usize),
) -> Vec<f64> {
    let d = domain.dim();
    let mut w = domain.start();
    let mut s = score.sum_par(data, &w);
    let mut prop = vec![0.0; d];
    for t in 0..settings.steps {
        for (p, wi) in prop.iter_mut().zip(&w) {
            *p = wi + noise::gaussian(settings.step, rng);
        }
        let log_u = noise::open01(rng).ln();
        if domain.contains(&prop, 0.0) {
            let sp = score.sum_par(data, &prop);
            if log_u < -settings.coef * (sp - s) {
                w.copy_from_slice(&prop);
                s = sp;
            }
        }
        on_step(t + 1);
    }
    w
}
