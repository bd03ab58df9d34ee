//! Potentials Ψ (mirror maps) of noisy mirror descent and their mirror steps
//! (spec `talwar-thakurta-zhang-geometry.md` §3.1–§3.4 and the constants table §3.8).
//!
//! A mirror step from θ_t with (noisy) gradient v and step size η is the Bregman
//! projection of the dual point z = ∇Ψ(θ_t) − η v (spec §2, A1):
//!
//! ```text
//! θ_{t+1} = argmin_{θ ∈ C}  Ψ(θ) − ⟨z, θ⟩
//! ```
//!
//! | potential | set | Ψ | step | ‖Q‖₂ | G_Q | ΔΨ |
//! |---|---|---|---|---|---|---|
//! | [`EuclideanPotential`] | any convex C | ½‖θ − θ₀‖² | Π_C(θ − ηv) | 1 | E‖g‖₂ | ½ max_C ‖θ − θ₀‖² |
//! | [`QNormPotential`] | ℓ1 ball, radius r | c‖θ‖²_q | dual soft-threshold + root finding | r | r√(2 ln 2p) | c r² |
//! | [`EntropyPotential`] | simplex | Σ θᵢ ln θᵢ + ln p | exponentiated gradient | 1 | √(2 ln 2p) | ln p |
//! | [`LiftedEntropyPotential`] | polytope conv{v₁ … v_k} | entropy of the weights w, θ = Vw | exponentiated gradient on Vᵀv | max‖vᵢ‖₂ | ‖C‖₂√(2 ln 2k) | ln k |
//!
//! Every step is post-processing of the released noisy gradient, so how exactly it is
//! solved never affects privacy — only utility. The q-norm, entropy and lifted-entropy
//! steps allocate nothing; the Euclidean step is one projection onto C (in place and O(p)
//! for the ℓ2 ball).

use crate::constraints::{expected_gaussian_norm, ConstraintSet, Polytope};
use crate::linalg::norm_inf;

/// The public constants a potential contributes to the Theorem 3.2 defaults (spec §3.8).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Geometry {
    /// ‖Q‖₂: the ℓ2 radius of the symmetric body Q w.r.t. whose norm Ψ is 1-strongly convex.
    pub q_radius: f64,
    /// G_Q: (an upper bound on) the Gaussian width of Q.
    pub gaussian_width: f64,
    /// ΔΨ = max_C Ψ − min_C Ψ (the range of the potential on C; spec A4).
    pub delta_psi: f64,
}

/// A potential together with the mirror-descent state it needs (the primal iterate, a
/// dual point or log-weights).
pub trait MirrorMap {
    /// The name recorded in model files (`potential = …`).
    fn name(&self) -> &'static str;
    /// Public constants for the default T and η.
    fn geometry(&self) -> Geometry;
    /// Resets the state to θ₁ = argmin_C Ψ and writes θ₁ into `theta`.
    fn reset(&mut self, theta: &mut [f64]);
    /// One mirror step: on entry `theta` is θ_t (the iterate of the last `reset`/`step`),
    /// on exit θ_{t+1} = argmin_C Ψ(θ) − ⟨∇Ψ(θ_t) − η v, θ⟩.
    fn step(&mut self, v: &[f64], eta: f64, theta: &mut [f64]);
}

// ------------------------------------------------------------------ Euclidean

/// Ψ(θ) = ½‖θ − θ₀‖², θ₀ = the domain's centre ([`ConstraintSet::start`]); the mirror
/// step is projected gradient descent θ ← Π_C(θ − ηv) (spec §3.1). Q = unit ℓ2 ball.
pub struct EuclideanPotential<'a> {
    domain: &'a dyn ConstraintSet,
    center: Vec<f64>,
    delta_psi: f64,
}

impl<'a> EuclideanPotential<'a> {
    /// The potential centred at `domain.start()`. ΔΨ = ½ max_C ‖θ − θ₀‖², the maximum over
    /// the vertices for a polytope, ½(‖C‖₂ + ‖θ₀‖₂)² otherwise (= r²/2 for a centred ball).
    pub fn new(domain: &'a dyn ConstraintSet) -> Self {
        let center = domain.start();
        let max_sq = match domain.as_polytope() {
            Some(p) => {
                let mut v = vec![0.0; center.len()];
                (0..p.num_vertices())
                    .map(|i| {
                        p.vertex(i, &mut v);
                        v.iter()
                            .zip(&center)
                            .map(|(a, b)| (a - b) * (a - b))
                            .sum::<f64>()
                    })
                    .fold(0.0, f64::max)
            }
            None => {
                let r = domain.l2_radius() + crate::linalg::norm2(&center);
                r * r
            }
        };
        EuclideanPotential {
            domain,
            center,
            delta_psi: 0.5 * max_sq,
        }
    }

    /// Ψ(θ) = ½‖θ − θ₀‖².
    pub fn value(&self, theta: &[f64]) -> f64 {
        0.5 * theta
            .iter()
            .zip(&self.center)
            .map(|(a, b)| (a - b) * (a - b))
            .sum::<f64>()
    }
}

impl MirrorMap for EuclideanPotential<'_> {
    fn name(&self) -> &'static str {
        "euclidean"
    }
    fn geometry(&self) -> Geometry {
        Geometry {
            q_radius: 1.0,
            gaussian_width: expected_gaussian_norm(self.center.len()),
            delta_psi: self.delta_psi,
        }
    }
    fn reset(&mut self, theta: &mut [f64]) {
        theta.copy_from_slice(&self.center);
    }
    fn step(&mut self, v: &[f64], eta: f64, theta: &mut [f64]) {
        for (t, g) in theta.iter_mut().zip(v) {
            *t -= eta * g;
        }
        self.domain.project(theta);
    }
}

// ------------------------------------------------------------------ q-norm (l1 ball)

/// The constant c of the ℓ1-ball q-norm potential (spec §13 A5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QNormScale {
    /// c = e²·2^{2/q−2}/(2(q−1)r²), i.e. Ψ = e²/(2(q−1))·‖θ‖²_{Q,q}: 1-strongly convex
    /// w.r.t. ‖·‖_Q = ‖·‖₁/r, as Theorem 3.2 assumes (default).
    Normalized,
    /// The printed c = 2^{2/q−2}/(4(q−1)r²) (Fact 3.4 as printed; only 1/(2e²)-strongly convex
    /// w.r.t. ‖·‖_Q).
    Paper,
}

impl QNormScale {
    /// The `--param qnorm_scale` word.
    pub fn as_str(self) -> &'static str {
        match self {
            QNormScale::Normalized => "normalized",
            QNormScale::Paper => "paper",
        }
    }
}

/// Ψ(θ) = c‖θ‖²_q on the ℓ1 ball {‖θ‖₁ ≤ r} in ℝ^p (spec §3.3, Fact 3.4 with the closed
/// form ‖θ‖_{Q,q} = 2^{1/q−1}‖θ‖_q/r of the 2p-vertex polytope), with
/// q = ln(2p)/(ln(2p) − 1) (Claim 3.5), or q = 2 when 2p < 8 (spec A6).
///
/// Mirror maps: ∇Ψ(θ)_j = 2c‖θ‖_q^{2−q} sign(θ_j)|θ_j|^{q−1} and
/// ∇Ψ*(z)_j = (1/(2c))‖z‖_{q*}^{2−q*} sign(z_j)|z_j|^{q*−1}, q* = q/(q − 1). Both are
/// positively 1-homogeneous; they are evaluated after dividing by the ∞-norm, with powers
/// taken as exp(s·ln x) (q* ≈ ln 2p can be 10–15, spec §3.3 numerics).
///
/// Bregman projection onto the ball: by the KKT conditions ∇Ψ(θ) = S_λ(z) (soft
/// threshold), so θ = ∇Ψ*(S_λ(z)) with the λ ≥ 0 at which ‖θ‖₁ = r (λ = 0 when the
/// unconstrained minimiser is inside). λ ↦ ‖∇Ψ*(S_λ(z))‖₁ is continuous and non-increasing
/// on [0, ‖z‖_∞]; the root is found by Newton's method safeguarded by bisection, to
/// relative accuracy 1e−14, then θ (and the dual point) are rescaled exactly onto the
/// boundary.
#[derive(Debug, Clone)]
pub struct QNormPotential {
    /// Radius r of the ℓ1 ball.
    pub radius: f64,
    /// The exponent q ∈ (1, 2].
    pub q: f64,
    /// The dual exponent q* = q/(q − 1) ≥ 2.
    pub q_star: f64,
    /// The constant c of Ψ(θ) = c‖θ‖²_q.
    pub c: f64,
    /// Which constant c is.
    pub scale: QNormScale,
    /// ∇Ψ(θ_t) (the dual point of the current iterate).
    dual: Vec<f64>,
}

/// Result of evaluating the projection's root function at λ.
struct RootEval {
    /// ‖∇Ψ*(S_λ(z))‖₁.
    value: f64,
    /// Its derivative in λ (≤ 0).
    slope: f64,
}

impl QNormPotential {
    /// q for the ℓ1 ball in dimension p (k = 2p vertices): ln k/(ln k − 1), or 2 if k < 8.
    pub fn exponent(p: usize) -> f64 {
        let k = 2.0 * p as f64;
        if k < 8.0 {
            2.0
        } else {
            let l = k.ln();
            l / (l - 1.0)
        }
    }

    /// The potential for the ℓ1 ball of radius `radius` in dimension `p`.
    pub fn new(p: usize, radius: f64, scale: QNormScale) -> Self {
        let q = Self::exponent(p);
        let q_star = q / (q - 1.0);
        let paper = (2.0f64).powf(2.0 / q - 2.0) / (4.0 * (q - 1.0) * radius * radius);
        let c = match scale {
            QNormScale::Paper => paper,
            QNormScale::Normalized => 2.0 * std::f64::consts::E * std::f64::consts::E * paper,
        };
        QNormPotential {
            radius,
            q,
            q_star,
            c,
            scale,
            dual: vec![0.0; p],
        }
    }

    /// Ψ(θ) = c‖θ‖²_q.
    pub fn value(&self, theta: &[f64]) -> f64 {
        let m = norm_inf(theta);
        if m == 0.0 {
            return 0.0;
        }
        let s: f64 = theta.iter().map(|x| pow_unit(x.abs() / m, self.q)).sum();
        self.c * m * m * s.powf(2.0 / self.q)
    }

    /// ∇Ψ(θ), written into `out`.
    pub fn gradient(&self, theta: &[f64], out: &mut [f64]) {
        let m = norm_inf(theta);
        if m == 0.0 {
            out.iter_mut().for_each(|o| *o = 0.0);
            return;
        }
        let s: f64 = theta.iter().map(|x| pow_unit(x.abs() / m, self.q)).sum();
        let k = 2.0 * self.c * m * s.powf((2.0 - self.q) / self.q);
        for (o, x) in out.iter_mut().zip(theta) {
            *o = k * x.signum() * pow_unit(x.abs() / m, self.q - 1.0);
        }
    }

    /// ∇Ψ*(z) (the unconstrained minimiser of Ψ(θ) − ⟨z, θ⟩), written into `out`.
    pub fn conjugate_gradient(&self, z: &[f64], out: &mut [f64]) {
        let m = norm_inf(z);
        self.write_primal(z, 0.0, m, 1.0, out);
    }

    /// Bregman projection: on entry `z` is a dual point; on exit `theta` =
    /// argmin_{‖θ‖₁ ≤ r} Ψ(θ) − ⟨z, θ⟩ and `z` = ∇Ψ(theta) (the soft-thresholded dual
    /// point). Returns the multiplier λ ≥ 0 of the constraint.
    pub fn bregman_project(&self, z: &mut [f64], theta: &mut [f64]) -> f64 {
        let m = norm_inf(z);
        let r = self.radius;
        if m == 0.0 {
            theta.iter_mut().for_each(|t| *t = 0.0);
            return 0.0;
        }
        let at0 = self.eval(z, 0.0, m);
        if at0.value <= r {
            self.write_primal(z, 0.0, m, 1.0, theta);
            return 0.0;
        }
        // f(λ) = ‖∇Ψ*(S_λ z)‖₁ − r: f(0) > 0, f(m) = −r < 0, continuous, non-increasing.
        let (mut lo, mut hi) = (0.0f64, m);
        let mut lambda = newton(0.0, at0.value - r, at0.slope, lo, hi);
        let mut last = None;
        for _ in 0..200 {
            let e = self.eval(z, lambda, m);
            let f = e.value - r;
            if f.abs() <= 1e-14 * r {
                last = Some((lambda, e.value));
                break;
            }
            if f > 0.0 {
                lo = lambda;
            } else {
                hi = lambda;
            }
            if hi - lo <= 1e-15 * m {
                break;
            }
            lambda = newton(lambda, f, e.slope, lo, hi);
        }
        let (lambda, value) = match last {
            Some(x) => x,
            None => (hi, self.eval(z, hi, m).value),
        };
        // Rescale onto the boundary (∇Ψ, ∇Ψ* are 1-homogeneous, so the dual scales too).
        let s = if value > 0.0 { r / value } else { 1.0 };
        self.write_primal(z, lambda, m, s, theta);
        for zj in z.iter_mut() {
            *zj = s * zj.signum() * (zj.abs() - lambda).max(0.0);
        }
        lambda
    }

    /// ‖∇Ψ*(S_λ(z))‖₁ and its derivative in λ, with m = ‖z‖_∞ > λ.
    fn eval(&self, z: &[f64], lambda: f64, m: f64) -> RootEval {
        let big_m = m - lambda;
        let qs = self.q_star;
        let (mut p, mut s, mut rr) = (0.0, 0.0, 0.0);
        for zj in z {
            let u = zj.abs() - lambda;
            if u > 0.0 {
                let a = (u / big_m).min(1.0);
                let la = a.ln();
                let a1 = ((qs - 1.0) * la).exp(); // a^{q*−1}
                p += a1;
                s += a1 * a;
                rr += ((qs - 2.0) * la).exp(); // a^{q*−2}
            }
        }
        // ‖θ‖₁ = (M/(2c)) S^{(2−q*)/q*} P;
        // d/dλ = −(1/(2c)) [ (2−q*) S^{(2−2q*)/q*} P² + (q*−1) S^{(2−q*)/q*} R ].
        let s_pow = s.powf((2.0 - qs) / qs);
        let value = big_m / (2.0 * self.c) * s_pow * p;
        let slope = -((2.0 - qs) * s.powf((2.0 - 2.0 * qs) / qs) * p * p + (qs - 1.0) * s_pow * rr)
            / (2.0 * self.c);
        RootEval { value, slope }
    }

    /// theta = scale · ∇Ψ*(S_λ(z)), m = ‖z‖_∞.
    fn write_primal(&self, z: &[f64], lambda: f64, m: f64, scale: f64, theta: &mut [f64]) {
        let big_m = m - lambda;
        if big_m <= 0.0 {
            theta.iter_mut().for_each(|t| *t = 0.0);
            return;
        }
        let qs = self.q_star;
        let s: f64 = z
            .iter()
            .map(|zj| {
                let u = zj.abs() - lambda;
                if u > 0.0 {
                    pow_unit((u / big_m).min(1.0), qs)
                } else {
                    0.0
                }
            })
            .sum();
        let k = scale * big_m / (2.0 * self.c) * s.powf((2.0 - qs) / qs);
        for (t, zj) in theta.iter_mut().zip(z) {
            let u = zj.abs() - lambda;
            *t = if u > 0.0 {
                k * zj.signum() * pow_unit((u / big_m).min(1.0), qs - 1.0)
            } else {
                0.0
            };
        }
    }
}

/// x^e for x ∈ [0, 1] and e > 0, computed as exp(e·ln x) (0 at x = 0).
#[inline]
fn pow_unit(x: f64, e: f64) -> f64 {
    if x <= 0.0 {
        0.0
    } else {
        (e * x.ln()).exp()
    }
}

/// A Newton step from x for a decreasing function with value f and slope `slope`,
/// replaced by the bracket midpoint when it leaves (lo, hi) or the slope is unusable.
#[inline]
fn newton(x: f64, f: f64, slope: f64, lo: f64, hi: f64) -> f64 {
    let n = x - f / slope;
    if slope < 0.0 && n.is_finite() && n > lo && n < hi {
        n
    } else {
        0.5 * (lo + hi)
    }
}

impl MirrorMap for QNormPotential {
    fn name(&self) -> &'static str {
        "qnorm"
    }
    fn geometry(&self) -> Geometry {
        let p = self.dual.len() as f64;
        Geometry {
            q_radius: self.radius,
            gaussian_width: self.radius * (2.0 * (2.0 * p).ln()).sqrt(),
            delta_psi: self.c * self.radius * self.radius,
        }
    }
    fn reset(&mut self, theta: &mut [f64]) {
        self.dual.iter_mut().for_each(|z| *z = 0.0);
        theta.iter_mut().for_each(|t| *t = 0.0);
    }
    fn step(&mut self, v: &[f64], eta: f64, theta: &mut [f64]) {
        for (z, g) in self.dual.iter_mut().zip(v) {
            *z -= eta * g;
        }
        let mut dual = std::mem::take(&mut self.dual);
        self.bregman_project(&mut dual, theta);
        self.dual = dual;
    }
}

// ------------------------------------------------------------------ entropy (simplex)

/// Subtracts log-sum-exp from log-weights (max-subtracted), so exp of them sums to one.
fn normalise_log_weights(lw: &mut [f64]) {
    let m = lw.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let s: f64 = lw.iter().map(|l| (l - m).exp()).sum();
    let lse = m + s.ln();
    lw.iter_mut().for_each(|l| *l -= lse);
}

/// Negative entropy Ψ(θ) = Σ θᵢ ln θᵢ + ln p on the probability simplex (spec §3.4
/// option (b), the default there): 1-strongly convex w.r.t. ‖·‖₁ (Pinsker), Q = unit ℓ1
/// ball. The mirror step is the exponentiated-gradient update
/// θ_{t+1,i} ∝ θ_{t,i} exp(−η vᵢ), kept as normalised log-weights (log-sum-exp with
/// max-subtraction), θ₁ = uniform.
#[derive(Debug, Clone)]
pub struct EntropyPotential {
    log_w: Vec<f64>,
}

impl EntropyPotential {
    /// The potential on the simplex in dimension p.
    pub fn new(p: usize) -> Self {
        EntropyPotential {
            log_w: vec![-(p as f64).ln(); p],
        }
    }

    /// Ψ(θ) = Σ θᵢ ln θᵢ + ln p (0 ln 0 = 0).
    pub fn value(theta: &[f64]) -> f64 {
        theta
            .iter()
            .filter(|t| **t > 0.0)
            .map(|t| t * t.ln())
            .sum::<f64>()
            + (theta.len() as f64).ln()
    }

    /// ln θ_t (normalised log-weights of the current iterate).
    pub fn log_weights(&self) -> &[f64] {
        &self.log_w
    }
}

impl MirrorMap for EntropyPotential {
    fn name(&self) -> &'static str {
        "entropy"
    }
    fn geometry(&self) -> Geometry {
        let p = self.log_w.len() as f64;
        Geometry {
            q_radius: 1.0,
            gaussian_width: (2.0 * (2.0 * p).ln()).sqrt(),
            delta_psi: p.ln(),
        }
    }
    fn reset(&mut self, theta: &mut [f64]) {
        let p = self.log_w.len() as f64;
        self.log_w.iter_mut().for_each(|l| *l = -p.ln());
        theta.iter_mut().for_each(|t| *t = 1.0 / p);
    }
    fn step(&mut self, v: &[f64], eta: f64, theta: &mut [f64]) {
        for (l, g) in self.log_w.iter_mut().zip(v) {
            *l -= eta * g;
        }
        normalise_log_weights(&mut self.log_w);
        for (t, l) in theta.iter_mut().zip(&self.log_w) {
            *t = l.exp();
        }
    }
}

// ------------------------------------------------------------------ lifted entropy (polytope)

/// How θ = Vw is assembled from the weights.
#[derive(Debug, Clone, Copy)]
enum Layout {
    /// ℓ1 ball: vertices (+r e₁, −r e₁, +r e₂, …), so θ_j = r(w_{2j} − w_{2j+1}).
    L1 { radius: f64 },
    /// Simplex: vertices e₁ … e_p, θ = w.
    Simplex,
    /// Explicit vertices: θ = Σᵢ wᵢ vᵢ.
    General,
}

/// The lifted entropic potential of spec §3.2 (the recommended implementation of the
/// Fact-3.4 polytope potential): θ = Vw with w in the simplex Δ_k over the k vertices,
/// Ψ(w) = Σ wᵢ ln wᵢ + ln k, and the exponentiated-gradient step on the lifted
/// gradient s = Vᵀ(g + b): w_{t+1,i} ∝ w_{t,i} exp(−η sᵢ), θ₁ = the vertex centroid.
/// Recorded as `potential = "lifted-entropy"`. Work per step O(k·p) (the vertex scores and
/// θ = Vw), O(p) for the implicit vertices of the ℓ1 ball and the simplex.
pub struct LiftedEntropyPotential<'a> {
    poly: &'a dyn Polytope,
    layout: Layout,
    log_w: Vec<f64>,
    scores: Vec<f64>,
    vertex: Vec<f64>,
}

impl<'a> LiftedEntropyPotential<'a> {
    /// The potential over the vertices of `poly`.
    pub fn new(poly: &'a dyn Polytope) -> Self {
        let k = poly.num_vertices();
        let layout = match poly.describe()["kind"].as_str() {
            Some("l1-ball") => Layout::L1 {
                radius: poly.l1_radius(),
            },
            Some("simplex") => Layout::Simplex,
            _ => Layout::General,
        };
        LiftedEntropyPotential {
            poly,
            layout,
            log_w: vec![-(k as f64).ln(); k],
            scores: vec![0.0; k],
            vertex: vec![0.0; poly.dim()],
        }
    }

    /// The vertex weights w_t of the current iterate.
    pub fn weights(&self) -> Vec<f64> {
        self.log_w.iter().map(|l| l.exp()).collect()
    }

    /// ln w_t.
    pub fn log_weights(&self) -> &[f64] {
        &self.log_w
    }

    /// θ = Vw for w = exp(log_w).
    fn assemble(&mut self, theta: &mut [f64]) {
        match self.layout {
            Layout::L1 { radius } => {
                for (j, t) in theta.iter_mut().enumerate() {
                    *t = radius * (self.log_w[2 * j].exp() - self.log_w[2 * j + 1].exp());
                }
            }
            Layout::Simplex => {
                for (t, l) in theta.iter_mut().zip(&self.log_w) {
                    *t = l.exp();
                }
            }
            Layout::General => {
                theta.iter_mut().for_each(|t| *t = 0.0);
                for i in 0..self.log_w.len() {
                    self.poly.vertex(i, &mut self.vertex);
                    crate::linalg::axpy(self.log_w[i].exp(), &self.vertex, theta);
                }
            }
        }
    }

    /// Assembles θ = Vw through the generic vertex interface (for tests of the fast paths).
    pub fn assemble_generic(&mut self, theta: &mut [f64]) {
        let saved = self.layout;
        self.layout = Layout::General;
        self.assemble(theta);
        self.layout = saved;
    }
}

impl MirrorMap for LiftedEntropyPotential<'_> {
    fn name(&self) -> &'static str {
        "lifted-entropy"
    }
    fn geometry(&self) -> Geometry {
        let k = self.log_w.len() as f64;
        let c2 = self.poly.l2_radius();
        Geometry {
            q_radius: c2,
            gaussian_width: c2 * (2.0 * (2.0 * k).ln()).sqrt(),
            delta_psi: k.ln(),
        }
    }
    fn reset(&mut self, theta: &mut [f64]) {
        let k = self.log_w.len() as f64;
        self.log_w.iter_mut().for_each(|l| *l = -k.ln());
        self.assemble(theta);
    }
    fn step(&mut self, v: &[f64], eta: f64, theta: &mut [f64]) {
        self.poly.vertex_scores(v, &mut self.scores);
        for (l, s) in self.log_w.iter_mut().zip(&self.scores) {
            *l -= eta * s;
        }
        normalise_log_weights(&mut self.log_w);
        self.assemble(theta);
    }
}
