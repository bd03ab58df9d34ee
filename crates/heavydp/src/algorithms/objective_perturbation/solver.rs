//! The inner solver of objective perturbation: accelerated projected gradient (FISTA,
//! Beck & Teboulle 2009) with backtracking and gradient-based adaptive restart
//! (O'Donoghue & Candès 2015) for
//!
//! ```text
//! J(θ) = L(θ; D) + (ζ/2)‖θ − θ₀‖² + (μ₀/2)‖θ‖² + ⟨b, θ⟩   over θ ∈ C,
//! ```
//!
//! run until the gradient-mapping norm ‖G_β(θ)‖ = β‖θ − P_C(θ − ∇J(θ)/β)‖ is at most the
//! tolerance (spec Talwar §6: 1e−10·L). β is the solver's smoothness estimate: it starts at
//! a secant estimate and only grows (doubling) when the descent test fails, so it is at
//! least every curvature the run has seen. The solver returns P_C(θ − ∇J(θ)/β) of the final
//! iterate (feasible, and within (1 + Lip/β)·‖G‖/(ζ + μ₀) of the minimiser).
//!
//! Descent test: for convex J, ⟨∇J(x) − ∇J(y), x − y⟩ ≤ (β/2)‖x − y‖² implies
//! J(x) ≤ J(y) + ⟨∇J(y), x − y⟩ + (β/2)‖x − y‖², and needs no function values (which lose
//! digits to cancellation near the optimum). For the squared loss J is quadratic and the
//! exact form ½⟨∇J(x) − ∇J(y), x − y⟩ ≤ (β/2)‖x − y‖² is used.
//!
//! Gradients: with `suffstats` the squared loss uses the Gram matrix X̃ᵀX̃/n and X̃ᵀỹ/n of
//! the clipped data ([`SecondMoments`]: formed once in O(nd²), cache-tiled and parallel over
//! tiles, reading the data clipped on the fly — no clipped copy), then O(d²) per gradient;
//! without it (and for the logistic loss) full passes over a clipped copy
//! ([`crate::loss::mean_gradient`]). Both compute the same gradient up to floating-point
//! summation order. Since the squared loss's gradient is affine, the gradient at the
//! extrapolated point is a combination of two known gradients on both paths. All
//! arithmetic has a fixed order, so results do not depend on the thread count.
//!
//! The solver is deterministic post-processing of (clipped data, b); its diagnostics
//! (iterations, achieved gradient-mapping norm, β) depend on the data and are recorded only
//! as solver diagnostics, never printed.

use crate::algorithms::clip_for;
use crate::constraints::hull::HullProjector;
use crate::constraints::ConstraintSet;
use crate::data::Dataset;
use crate::linalg::{dot, SecondMoments};
use crate::loss::LossKind;
use crate::loss::{mean_gradient_of, GradientWorkspace};
use std::borrow::Cow;

/// The perturbed, regularised empirical risk J of objective perturbation (see the module
/// docs), on `data` clipped at `bound`.
#[derive(Clone, Copy)]
pub struct PerturbedErm<'a> {
    pub data: &'a Dataset,
    /// The public bound B the records are read clipped at (features, and the response
    /// unless the loss is logistic: [`clip_for`]); ∞ when `data` is already clipped.
    pub bound: f64,
    /// Squared loss: the Gram-matrix path (see the module docs); ignored for other losses.
    pub suffstats: bool,
    pub loss: LossKind,
    pub domain: &'a dyn ConstraintSet,
    /// The linear perturbation b (zeros for the non-private problem).
    pub b: &'a [f64],
    /// ζ, weight of (ζ/2)‖θ − θ₀‖².
    pub zeta: f64,
    /// θ₀ ∈ C.
    pub theta0: &'a [f64],
    /// μ₀, weight of the data-independent ridge (μ₀/2)‖θ‖².
    pub mu0: f64,
}

/// Stopping rule of the inner solver.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SolverSettings {
    /// Target gradient-mapping norm (absolute).
    pub tolerance: f64,
    /// Maximum number of accelerated iterations.
    pub max_iter: usize,
}

/// What the inner solver achieved (data-dependent diagnostics).
#[derive(Debug, Clone, PartialEq)]
pub struct SolverOutcome {
    /// The returned point P_C(θ_K − ∇J(θ_K)/β).
    pub theta: Vec<f64>,
    /// Accelerated iterations run.
    pub iterations: usize,
    /// Gradient evaluations (including backtracking and restarts).
    pub gradient_evaluations: usize,
    /// ‖G_β(θ_K)‖ at the final iterate.
    pub gradient_mapping: f64,
    /// The final smoothness estimate β.
    pub smoothness: f64,
    /// Whether `gradient_mapping ≤ tolerance`.
    pub converged: bool,
}

/// Projection onto the domain: the domain's own (exact) projection, or Wolfe's exact
/// hull projection for explicit vertex polytopes (whose built-in projection is iterative).
enum Projector<'a> {
    Set(&'a dyn ConstraintSet),
    Hull(HullProjector),
}

impl Projector<'_> {
    fn new(domain: &dyn ConstraintSet) -> Projector<'_> {
        let kind = domain.describe()["kind"].as_str().unwrap_or("").to_string();
        match domain.as_polytope() {
            Some(p) if kind == "polytope" => {
                let d = domain.dim();
                let k = p.num_vertices();
                let mut v = vec![0.0; k * d];
                for i in 0..k {
                    p.vertex(i, &mut v[i * d..(i + 1) * d]);
                }
                Projector::Hull(HullProjector::new(d, v))
            }
            _ => Projector::Set(domain),
        }
    }
    fn project(&self, v: &mut [f64]) {
        match self {
            Projector::Set(s) => s.project(v),
            Projector::Hull(h) => {
                h.project(v);
            }
        }
    }
}

/// The data part of J and its gradient.
enum DataTerm<'a> {
    /// Squared loss (a − y)²: ∇ = 2(Gθ − c), G = X̃ᵀX̃/n, c = X̃ᵀỹ/n.
    Quadratic(SecondMoments),
    /// Any GLM loss by full gradient passes over the clipped data.
    Passes {
        loss: LossKind,
        data: Cow<'a, Dataset>,
        ws: GradientWorkspace,
    },
}

/// `data` clipped at `bound` for `loss` (borrowed when the bound is ∞).
fn clipped<'a>(data: &'a Dataset, loss: &LossKind, bound: f64) -> Cow<'a, Dataset> {
    if bound.is_finite() {
        Cow::Owned(clip_for(data, loss, bound))
    } else {
        Cow::Borrowed(data)
    }
}

impl DataTerm<'_> {
    fn new<'a>(data: &'a Dataset, loss: LossKind, bound: f64, suffstats: bool) -> DataTerm<'a> {
        match loss {
            LossKind::Squared if suffstats => {
                DataTerm::Quadratic(SecondMoments::of(data, data.y(), bound, bound))
            }
            _ => DataTerm::Passes {
                loss,
                data: clipped(data, &loss, bound),
                ws: GradientWorkspace::new(),
            },
        }
    }

    fn grad(&mut self, theta: &[f64], out: &mut [f64]) {
        match self {
            DataTerm::Quadratic(m) => {
                m.gram_times(theta, out);
                for (o, c) in out.iter_mut().zip(&m.xty) {
                    *o = 2.0 * (*o - c);
                }
            }
            DataTerm::Passes { loss, data, ws } => {
                mean_gradient_of(loss, &**data, data.y(), theta, out, ws);
            }
        }
    }
}

struct Objective<'a> {
    term: DataTerm<'a>,
    b: &'a [f64],
    zeta: f64,
    theta0: &'a [f64],
    mu0: f64,
    evaluations: usize,
}

impl Objective<'_> {
    fn grad(&mut self, theta: &[f64], out: &mut [f64]) {
        self.evaluations += 1;
        self.term.grad(theta, out);
        for (((o, bi), t), t0) in out.iter_mut().zip(self.b).zip(theta).zip(self.theta0) {
            *o += bi + self.zeta * (t - t0) + self.mu0 * t;
        }
    }
}

fn sub(a: &[f64], b: &[f64]) -> Vec<f64> {
    a.iter().zip(b).map(|(x, y)| x - y).collect()
}

impl PerturbedErm<'_> {
    /// J(θ), evaluated directly on the (clipped) data (for tests and reports).
    pub fn objective(&self, theta: &[f64]) -> f64 {
        let data = clipped(self.data, &self.loss, self.bound);
        let risk = crate::loss::mean_loss_of(&self.loss, &*data, data.y(), theta);
        let dist2: f64 = theta
            .iter()
            .zip(self.theta0)
            .map(|(a, b)| (a - b) * (a - b))
            .sum();
        risk + 0.5 * self.zeta * dist2 + 0.5 * self.mu0 * dot(theta, theta) + dot(self.b, theta)
    }

    /// ∇J(θ), evaluated directly on the (clipped) data (for tests).
    pub fn gradient(&self, theta: &[f64]) -> Vec<f64> {
        let d = theta.len();
        let mut g = vec![0.0; d];
        let data = clipped(self.data, &self.loss, self.bound);
        mean_gradient_of(
            &self.loss,
            &*data,
            data.y(),
            theta,
            &mut g,
            &mut GradientWorkspace::new(),
        );
        for (((o, bi), t), t0) in g.iter_mut().zip(self.b).zip(theta).zip(self.theta0) {
            *o += bi + self.zeta * (t - t0) + self.mu0 * t;
        }
        g
    }

    /// Minimises J over the domain from θ₀ (see the module docs).
    pub fn solve(&self, settings: &SolverSettings) -> SolverOutcome {
        let d = self.data.d();
        let proj = Projector::new(self.domain);
        let mut obj = Objective {
            term: DataTerm::new(self.data, self.loss, self.bound, self.suffstats),
            b: self.b,
            zeta: self.zeta,
            theta0: self.theta0,
            mu0: self.mu0,
            evaluations: 0,
        };
        // The squared loss makes J quadratic (whichever path computes its gradient): its
        // gradient is affine. q = ½ then (exact descent test), 1 otherwise (sufficient test).
        let affine = matches!(self.loss, LossKind::Squared);
        let q = if affine { 0.5 } else { 1.0 };

        let mut x = self.theta0.to_vec();
        proj.project(&mut x);
        let mut gx = vec![0.0; d];
        obj.grad(&x, &mut gx);

        // Initial β: curvature along −∇J from a short secant step.
        let mut beta = {
            let gn = crate::linalg::norm2(&gx);
            let mut curv = 0.0;
            if gn > 0.0 {
                let h = 1e-3 * (1.0 + crate::linalg::norm2(&x)) / gn;
                let z: Vec<f64> = x.iter().zip(&gx).map(|(a, g)| a - h * g).collect();
                let mut gz = vec![0.0; d];
                obj.grad(&z, &mut gz);
                let dz = sub(&z, &x);
                let nz = dot(&dz, &dz);
                if nz > 0.0 {
                    curv = 2.0 * q * dot(&sub(&gz, &gx), &dz) / nz;
                }
            }
            let floor = 1e-12 * (1.0 + self.zeta + self.mu0);
            if curv.is_finite() {
                curv.max(self.zeta + self.mu0).max(floor)
            } else {
                1.0
            }
        };

        // Convergence is only declared after at least one step whose β passed the descent
        // test (the secant β may underestimate the curvature).
        let mut gmap = f64::INFINITY;
        let mut out_point = None;

        let mut y = x.clone();
        let mut gy = gx.clone();
        let mut t = 1.0f64;
        let mut xn = vec![0.0; d];
        let mut gn = vec![0.0; d];
        let mut iterations = 0;
        let mut stalls = 0;
        while out_point.is_none() && iterations < settings.max_iter {
            iterations += 1;
            // Backtracking projected gradient step from y.
            loop {
                for ((o, yi), g) in xn.iter_mut().zip(&y).zip(&gy) {
                    *o = yi - g / beta;
                }
                proj.project(&mut xn);
                obj.grad(&xn, &mut gn);
                let dx = sub(&xn, &y);
                let nd2 = dot(&dx, &dx);
                let scale2 = 1.0 + dot(&y, &y);
                if nd2 <= 1e-28 * scale2 {
                    break;
                }
                let lhs = q * dot(&sub(&gn, &gy), &dx);
                if lhs.is_finite() && lhs <= 0.5 * beta * nd2 * (1.0 + 1e-10) {
                    break;
                }
                beta *= 2.0;
                if beta > 1e300 {
                    break;
                }
            }
            // Gradient mapping at the new iterate.
            let mut z: Vec<f64> = xn.iter().zip(&gn).map(|(a, g)| a - g / beta).collect();
            proj.project(&mut z);
            gmap = beta * crate::linalg::norm2(&sub(&xn, &z));
            if gmap <= settings.tolerance {
                x.copy_from_slice(&xn);
                out_point = Some(z);
                break;
            }
            // Adaptive restart when the momentum points uphill.
            let restart = dot(&sub(&y, &xn), &sub(&xn, &x)) > 0.0;
            if xn == x {
                stalls += 1;
                if stalls >= 3 {
                    break;
                }
            } else {
                stalls = 0;
            }
            if restart {
                t = 1.0;
                y.copy_from_slice(&xn);
                gy.copy_from_slice(&gn);
            } else {
                let tn = 0.5 * (1.0 + (1.0 + 4.0 * t * t).sqrt());
                let mom = (t - 1.0) / tn;
                for ((yi, a), b) in y.iter_mut().zip(&xn).zip(&x) {
                    *yi = a + mom * (a - b);
                }
                if affine {
                    for ((g, a), b) in gy.iter_mut().zip(&gn).zip(&gx) {
                        *g = (1.0 + mom) * a - mom * b;
                    }
                } else {
                    obj.grad(&y, &mut gy);
                }
                t = tn;
            }
            x.copy_from_slice(&xn);
            gx.copy_from_slice(&gn);
        }
        let converged = out_point.is_some();
        let theta = out_point.unwrap_or_else(|| {
            let mut z: Vec<f64> = x.iter().zip(&gx).map(|(a, g)| a - g / beta).collect();
            proj.project(&mut z);
            z
        });
        SolverOutcome {
            theta,
            iterations,
            gradient_evaluations: obj.evaluations,
            gradient_mapping: gmap,
            smoothness: beta,
            converged,
        }
    }
}
