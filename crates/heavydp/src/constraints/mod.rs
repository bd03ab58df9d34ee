//! Constraint sets: Euclidean projection, linear minimisation oracle (LMO), and —
//! for polytopes — vertex scoring.
//!
//! | `--domain` | set | LMO | vertices | source |
//! |---|---|---|---|---|
//! | `l1-ball` | {‖w‖₁ ≤ r} | −r·sign(g_j) e_j, j = argmax \|g_j\| | 2d, implicit (±r e_j) | Talwar §7 |
//! | `l2-ball` | {‖w‖₂ ≤ r} | −r g/‖g‖₂ | — | Talwar §7 |
//! | `simplex` | {w ≥ 0, Σw = 1} | e_j, j = argmin g_j | d, implicit | Talwar §7 |
//! | `polytope` | conv{v_1, …, v_k} from a vertex CSV | argmin_i ⟨v_i, g⟩ | k, explicit | Talwar Fact 5.3 |
//! | `sparse` | {‖w‖₀ ≤ s, ‖w‖₂ ≤ r} (not convex) | −r·top_s(g)/‖top_s(g)‖₂ | — | Hu Alg. 3, Tian |
//!
//! Vertex order (used for ties, which are broken by the smallest index, a
//! data-independent rule): l1 ball (+r e_1, −r e_1, +r e_2, −r e_2, …); simplex e_1, …, e_d;
//! polytope: file order. The LMO of a polytope is *defined* as the first minimiser of
//! its vertex scores, so a private vertex selection with zero noise returns exactly the
//! LMO's vertex.

pub mod hull;

use crate::linalg::{dot, norm2};
use serde_json::json;
use thiserror::Error;

/// Errors of domain construction.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum DomainError {
    #[error("unknown domain '{0}' (expected one of: l1-ball, l2-ball, simplex, polytope, sparse, unconstrained)")]
    Unknown(String),
    #[error("--radius must be a finite number > 0; got {0}")]
    BadRadius(f64),
    #[error("the sparse domain needs --sparsity S with 1 <= S <= d (d = {d}); got {s}")]
    BadSparsity { s: usize, d: usize },
    #[error("the polytope domain needs --param vertices=FILE.csv")]
    MissingVertices,
    #[error("vertex file {path}: {reason}")]
    BadVertices { path: String, reason: String },
}

/// A closed constraint set in ℝ^d.
pub trait ConstraintSet: Send + Sync {
    /// Dimension d.
    fn dim(&self) -> usize;
    /// Whether `w` lies in the set up to `tol`.
    fn contains(&self, w: &[f64], tol: f64) -> bool;
    /// Euclidean projection of `v` onto the set, in place.
    fn project(&self, v: &mut [f64]);
    /// A minimiser of ⟨s, g⟩ over the set, written into `out`.
    fn lmo(&self, g: &[f64], out: &mut [f64]);
    /// ‖C‖₁ = max_{w∈C} ‖w‖₁.
    fn l1_radius(&self) -> f64;
    /// ‖C‖₂ = max_{w∈C} ‖w‖₂.
    fn l2_radius(&self) -> f64;
    /// max_{u,v∈C} ‖u − v‖₁. The default, 2‖C‖₁, is exact for every set symmetric about
    /// the origin (C = −C: the ℓ1, ℓ2 and sparse balls, ℝ^d), where u = −v attains it;
    /// for any other set it is still an upper bound (‖u − v‖₁ ≤ ‖u‖₁ + ‖v‖₁), so a
    /// sensitivity built on it stays valid, only looser: other sets override it.
    fn l1_diameter(&self) -> f64 {
        2.0 * self.l1_radius()
    }
    /// An upper bound on the Gaussian width E sup_{w∈C} ⟨g, w⟩ (data-independent).
    fn gaussian_width(&self) -> f64;
    /// The starting point of the iterative algorithms (centre / argmin of the potential).
    fn start(&self) -> Vec<f64>;
    /// Whether the set is convex.
    fn is_convex(&self) -> bool {
        true
    }
    /// The set as a polytope with enumerable vertices, if it is one.
    fn as_polytope(&self) -> Option<&dyn Polytope> {
        None
    }
    /// JSON description for model files.
    fn describe(&self) -> serde_json::Value;
}

/// A polytope whose vertices can be scored against a direction without being
/// materialised.
pub trait Polytope: ConstraintSet {
    /// Number of vertices k.
    fn num_vertices(&self) -> usize;
    /// `scores[i] = ⟨v_i, g⟩` for every vertex (in vertex order).
    fn vertex_scores(&self, g: &[f64], scores: &mut [f64]);
    /// w ← (1 − μ) w + μ v_i.
    fn move_toward_vertex(&self, w: &mut [f64], i: usize, mu: f64);
    /// Writes vertex i into `out`.
    fn vertex(&self, i: usize, out: &mut [f64]);
}

fn first_argmin(scores: &[f64]) -> usize {
    crate::mechanisms::argmin(scores).expect("a polytope has at least one vertex")
}

// ---------------------------------------------------------------- l1 ball

/// {w : ‖w‖₁ ≤ r}, with 2d implicit vertices ±r e_j.
#[derive(Debug, Clone, PartialEq)]
pub struct L1Ball {
    pub d: usize,
    pub radius: f64,
}

/// Euclidean projection onto {‖w‖₁ ≤ r} (Duchi et al. 2008, sort-based, O(d log d)).
pub fn project_l1_ball(v: &mut [f64], r: f64) {
    let l1: f64 = v.iter().map(|x| x.abs()).sum();
    if l1 <= r {
        return;
    }
    let mut u: Vec<f64> = v.iter().map(|x| x.abs()).collect();
    u.sort_unstable_by(|a, b| b.partial_cmp(a).unwrap());
    let mut cum = 0.0;
    let mut theta = 0.0;
    for (i, &ui) in u.iter().enumerate() {
        cum += ui;
        let t = (cum - r) / (i + 1) as f64;
        if ui - t > 0.0 {
            theta = t;
        } else {
            break;
        }
    }
    for x in v.iter_mut() {
        *x = x.signum() * (x.abs() - theta).max(0.0);
    }
}

impl ConstraintSet for L1Ball {
    fn dim(&self) -> usize {
        self.d
    }
    fn contains(&self, w: &[f64], tol: f64) -> bool {
        crate::linalg::norm1(w) <= self.radius + tol
    }
    fn project(&self, v: &mut [f64]) {
        project_l1_ball(v, self.radius)
    }
    fn lmo(&self, g: &[f64], out: &mut [f64]) {
        let mut scores = vec![0.0; 2 * self.d];
        self.vertex_scores(g, &mut scores);
        self.vertex(first_argmin(&scores), out);
    }
    fn l1_radius(&self) -> f64 {
        self.radius
    }
    fn l2_radius(&self) -> f64 {
        self.radius
    }
    fn gaussian_width(&self) -> f64 {
        self.radius * (2.0 * (2.0 * self.d as f64).ln()).sqrt()
    }
    fn start(&self) -> Vec<f64> {
        vec![0.0; self.d]
    }
    fn as_polytope(&self) -> Option<&dyn Polytope> {
        Some(self)
    }
    fn describe(&self) -> serde_json::Value {
        json!({"kind": "l1-ball", "radius": self.radius})
    }
}

impl Polytope for L1Ball {
    fn num_vertices(&self) -> usize {
        2 * self.d
    }
    fn vertex_scores(&self, g: &[f64], scores: &mut [f64]) {
        for (j, gj) in g.iter().enumerate() {
            scores[2 * j] = self.radius * gj;
            scores[2 * j + 1] = -self.radius * gj;
        }
    }
    fn move_toward_vertex(&self, w: &mut [f64], i: usize, mu: f64) {
        w.iter_mut().for_each(|x| *x *= 1.0 - mu);
        let s = if i % 2 == 0 {
            self.radius
        } else {
            -self.radius
        };
        w[i / 2] += mu * s;
    }
    fn vertex(&self, i: usize, out: &mut [f64]) {
        out.iter_mut().for_each(|x| *x = 0.0);
        out[i / 2] = if i % 2 == 0 {
            self.radius
        } else {
            -self.radius
        };
    }
}

// ---------------------------------------------------------------- l2 ball

/// {w : ‖w‖₂ ≤ r}.
#[derive(Debug, Clone, PartialEq)]
pub struct L2Ball {
    pub d: usize,
    pub radius: f64,
}

/// E‖g‖₂ for g ∼ N(0, I_d): √2 Γ((d+1)/2)/Γ(d/2).
pub fn expected_gaussian_norm(d: usize) -> f64 {
    let d = d as f64;
    (2f64.ln() / 2.0 + libm::lgamma((d + 1.0) / 2.0) - libm::lgamma(d / 2.0)).exp()
}

impl ConstraintSet for L2Ball {
    fn dim(&self) -> usize {
        self.d
    }
    fn contains(&self, w: &[f64], tol: f64) -> bool {
        norm2(w) <= self.radius + tol
    }
    fn project(&self, v: &mut [f64]) {
        let n = norm2(v);
        if n > self.radius {
            let s = self.radius / n;
            v.iter_mut().for_each(|x| *x *= s);
        }
    }
    fn lmo(&self, g: &[f64], out: &mut [f64]) {
        let n = norm2(g);
        if n == 0.0 {
            out.iter_mut().for_each(|x| *x = 0.0);
            out[0] = self.radius;
        } else {
            for (o, gi) in out.iter_mut().zip(g) {
                *o = -self.radius * gi / n;
            }
        }
    }
    fn l1_radius(&self) -> f64 {
        self.radius * (self.d as f64).sqrt()
    }
    fn l2_radius(&self) -> f64 {
        self.radius
    }
    fn gaussian_width(&self) -> f64 {
        self.radius * expected_gaussian_norm(self.d)
    }
    fn start(&self) -> Vec<f64> {
        vec![0.0; self.d]
    }
    fn describe(&self) -> serde_json::Value {
        json!({"kind": "l2-ball", "radius": self.radius})
    }
}

// ---------------------------------------------------------------- simplex

/// The probability simplex {w ≥ 0, Σ w = 1}, vertices e_1, …, e_d.
#[derive(Debug, Clone, PartialEq)]
pub struct Simplex {
    pub d: usize,
}

/// Euclidean projection onto the probability simplex (sort-based).
pub fn project_simplex(v: &mut [f64]) {
    let mut u = v.to_vec();
    u.sort_unstable_by(|a, b| b.partial_cmp(a).unwrap());
    let mut cum = 0.0;
    let mut theta = 0.0;
    for (i, &ui) in u.iter().enumerate() {
        cum += ui;
        let t = (cum - 1.0) / (i + 1) as f64;
        if ui - t > 0.0 {
            theta = t;
        } else {
            break;
        }
    }
    v.iter_mut().for_each(|x| *x = (*x - theta).max(0.0));
}

impl ConstraintSet for Simplex {
    fn dim(&self) -> usize {
        self.d
    }
    fn contains(&self, w: &[f64], tol: f64) -> bool {
        w.iter().all(|x| *x >= -tol) && (w.iter().sum::<f64>() - 1.0).abs() <= tol
    }
    fn project(&self, v: &mut [f64]) {
        project_simplex(v)
    }
    fn lmo(&self, g: &[f64], out: &mut [f64]) {
        self.vertex(first_argmin(g), out);
    }
    fn l1_radius(&self) -> f64 {
        1.0
    }
    fn l2_radius(&self) -> f64 {
        1.0
    }
    fn l1_diameter(&self) -> f64 {
        2.0
    }
    fn gaussian_width(&self) -> f64 {
        // Q = unit l1 ball (spec Talwar §3.8).
        (2.0 * (2.0 * self.d as f64).ln()).sqrt()
    }
    fn start(&self) -> Vec<f64> {
        vec![1.0 / self.d as f64; self.d]
    }
    fn as_polytope(&self) -> Option<&dyn Polytope> {
        Some(self)
    }
    fn describe(&self) -> serde_json::Value {
        json!({"kind": "simplex"})
    }
}

impl Polytope for Simplex {
    fn num_vertices(&self) -> usize {
        self.d
    }
    fn vertex_scores(&self, g: &[f64], scores: &mut [f64]) {
        scores.copy_from_slice(g);
    }
    fn move_toward_vertex(&self, w: &mut [f64], i: usize, mu: f64) {
        w.iter_mut().for_each(|x| *x *= 1.0 - mu);
        w[i] += mu;
    }
    fn vertex(&self, i: usize, out: &mut [f64]) {
        out.iter_mut().for_each(|x| *x = 0.0);
        out[i] = 1.0;
    }
}

// ---------------------------------------------------------------- polytope

/// conv{v_1, …, v_k} from an explicit vertex list (row-major k × d).
#[derive(Debug, Clone, PartialEq)]
pub struct VertexPolytope {
    pub d: usize,
    pub vertices: Vec<f64>,
    pub source: String,
}

impl VertexPolytope {
    /// Builds a polytope from vertex rows; every vertex must have d finite coordinates.
    pub fn new(d: usize, vertices: Vec<f64>, source: String) -> Result<Self, DomainError> {
        if vertices.is_empty() || vertices.len() % d != 0 {
            return Err(DomainError::BadVertices {
                path: source,
                reason: format!("expected at least one vertex with {d} coordinates"),
            });
        }
        Ok(VertexPolytope {
            d,
            vertices,
            source,
        })
    }
    /// Reads a vertex CSV: a header row, one vertex per row, d numeric columns.
    pub fn from_csv(path: &str, d: usize) -> Result<Self, DomainError> {
        let data =
            crate::data::read_csv_features(path, None).map_err(|e| DomainError::BadVertices {
                path: path.to_string(),
                reason: e.to_string(),
            })?;
        if data.d() != d {
            return Err(DomainError::BadVertices {
                path: path.to_string(),
                reason: format!(
                    "vertices have {} coordinates but the data have d = {d} features",
                    data.d()
                ),
            });
        }
        Self::new(d, data.x().to_vec(), path.to_string())
    }
    fn v(&self, i: usize) -> &[f64] {
        &self.vertices[i * self.d..(i + 1) * self.d]
    }
}

impl ConstraintSet for VertexPolytope {
    fn dim(&self) -> usize {
        self.d
    }
    fn contains(&self, w: &[f64], tol: f64) -> bool {
        // Distance to the hull by (exact) projection.
        let mut p = w.to_vec();
        self.project(&mut p);
        crate::linalg::dist2(&p, w) <= tol.max(1e-9)
    }
    fn project(&self, v: &mut [f64]) {
        // Exact projection by Wolfe's minimum-norm-point algorithm.
        hull::HullProjector::new(self.d, self.vertices.clone()).project(v);
    }
    fn lmo(&self, g: &[f64], out: &mut [f64]) {
        let mut s = vec![0.0; self.num_vertices()];
        self.vertex_scores(g, &mut s);
        self.vertex(first_argmin(&s), out);
    }
    fn l1_radius(&self) -> f64 {
        (0..self.num_vertices())
            .map(|i| crate::linalg::norm1(self.v(i)))
            .fold(0.0, f64::max)
    }
    fn l2_radius(&self) -> f64 {
        (0..self.num_vertices())
            .map(|i| norm2(self.v(i)))
            .fold(0.0, f64::max)
    }
    fn l1_diameter(&self) -> f64 {
        let k = self.num_vertices();
        let mut m: f64 = 0.0;
        for i in 0..k {
            for j in i + 1..k {
                m = m.max(
                    self.v(i)
                        .iter()
                        .zip(self.v(j))
                        .map(|(a, b)| (a - b).abs())
                        .sum(),
                );
            }
        }
        m
    }
    fn gaussian_width(&self) -> f64 {
        self.l2_radius() * (2.0 * (2.0 * self.num_vertices() as f64).ln()).sqrt()
    }
    fn start(&self) -> Vec<f64> {
        // The vertex centroid.
        let k = self.num_vertices();
        let mut c = vec![0.0; self.d];
        for i in 0..k {
            crate::linalg::axpy(1.0 / k as f64, self.v(i), &mut c);
        }
        c
    }
    fn as_polytope(&self) -> Option<&dyn Polytope> {
        Some(self)
    }
    fn describe(&self) -> serde_json::Value {
        json!({"kind": "polytope", "vertices": self.source, "num_vertices": self.num_vertices()})
    }
}

impl Polytope for VertexPolytope {
    fn num_vertices(&self) -> usize {
        self.vertices.len() / self.d
    }
    fn vertex_scores(&self, g: &[f64], scores: &mut [f64]) {
        for (i, s) in scores.iter_mut().enumerate() {
            *s = dot(self.v(i), g);
        }
    }
    fn move_toward_vertex(&self, w: &mut [f64], i: usize, mu: f64) {
        for (x, vi) in w.iter_mut().zip(self.v(i)) {
            *x = (1.0 - mu) * *x + mu * vi;
        }
    }
    fn vertex(&self, i: usize, out: &mut [f64]) {
        out.copy_from_slice(self.v(i));
    }
}

// ---------------------------------------------------------------- sparse

/// {w : ‖w‖₀ ≤ s, ‖w‖₂ ≤ r} (not convex). Projection: keep the s largest magnitudes
/// (ties by smallest index), then scale into the ℓ2 ball — the exact Euclidean
/// projection onto this set.
#[derive(Debug, Clone, PartialEq)]
pub struct SparseBall {
    pub d: usize,
    pub s: usize,
    pub radius: f64,
}

/// Indices of the s largest |v_j| (ties: smallest index), sorted ascending.
pub fn top_s_indices(v: &[f64], s: usize) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..v.len()).collect();
    let s = s.min(v.len());
    if s < v.len() {
        idx.select_nth_unstable_by(s, |&a, &b| {
            v[b].abs().partial_cmp(&v[a].abs()).unwrap().then(a.cmp(&b))
        });
        idx.truncate(s);
    }
    idx.sort_unstable();
    idx
}

impl ConstraintSet for SparseBall {
    fn dim(&self) -> usize {
        self.d
    }
    fn contains(&self, w: &[f64], tol: f64) -> bool {
        w.iter().filter(|x| **x != 0.0).count() <= self.s && norm2(w) <= self.radius + tol
    }
    fn project(&self, v: &mut [f64]) {
        let keep = top_s_indices(v, self.s);
        let mut out = vec![0.0; self.d];
        for &j in &keep {
            out[j] = v[j];
        }
        v.copy_from_slice(&out);
        let n = norm2(v);
        if n > self.radius {
            v.iter_mut().for_each(|x| *x *= self.radius / n);
        }
    }
    fn lmo(&self, g: &[f64], out: &mut [f64]) {
        let mut t = g.to_vec();
        let keep = top_s_indices(g, self.s);
        t.iter_mut().for_each(|x| *x = 0.0);
        for &j in &keep {
            t[j] = g[j];
        }
        L2Ball {
            d: self.d,
            radius: self.radius,
        }
        .lmo(&t, out);
    }
    fn l1_radius(&self) -> f64 {
        self.radius * (self.s as f64).sqrt()
    }
    fn l2_radius(&self) -> f64 {
        self.radius
    }
    fn gaussian_width(&self) -> f64 {
        // E‖top_s(g)‖₂ ≤ √(s) · √(2 ln(2d)) (max of the s largest |g_j|)
        self.radius * (self.s as f64 * 2.0 * (2.0 * self.d as f64).ln()).sqrt()
    }
    fn start(&self) -> Vec<f64> {
        vec![0.0; self.d]
    }
    fn is_convex(&self) -> bool {
        false
    }
    fn describe(&self) -> serde_json::Value {
        json!({"kind": "sparse", "s": self.s, "radius": self.radius})
    }
}

// ---------------------------------------------------------------- unconstrained

/// All of ℝ^d: the domain of estimators with a closed-form, unconstrained output
/// (`adassp`, whose ridge solution is not projected anywhere). Every radius is ∞ and
/// the projection is the identity; there is no linear minimiser over ℝ^d, so
/// [`ConstraintSet::lmo`] writes −∞·sign(g) (0 where g = 0) — no algorithm that uses an
/// LMO or a radius accepts this domain.
#[derive(Debug, Clone, PartialEq)]
pub struct Unconstrained {
    pub d: usize,
}

impl ConstraintSet for Unconstrained {
    fn dim(&self) -> usize {
        self.d
    }
    fn contains(&self, w: &[f64], _tol: f64) -> bool {
        w.iter().all(|v| v.is_finite())
    }
    fn project(&self, _v: &mut [f64]) {}
    fn lmo(&self, g: &[f64], out: &mut [f64]) {
        for (o, gi) in out.iter_mut().zip(g) {
            *o = if *gi == 0.0 {
                0.0
            } else {
                -gi.signum() * f64::INFINITY
            };
        }
    }
    fn l1_radius(&self) -> f64 {
        f64::INFINITY
    }
    fn l2_radius(&self) -> f64 {
        f64::INFINITY
    }
    fn gaussian_width(&self) -> f64 {
        f64::INFINITY
    }
    fn start(&self) -> Vec<f64> {
        vec![0.0; self.d]
    }
    fn describe(&self) -> serde_json::Value {
        json!({"kind": "unconstrained"})
    }
}

/// A domain as named on the command line.
#[derive(Debug, Clone, PartialEq)]
pub enum DomainSpec {
    L1Ball {
        radius: f64,
    },
    L2Ball {
        radius: f64,
    },
    Simplex,
    Polytope {
        path: String,
    },
    Sparse {
        s: usize,
        radius: f64,
    },
    /// ℝ^d (`--radius` is ignored).
    Unconstrained,
}

impl DomainSpec {
    /// Parses `--domain` with `--radius` (default 1), `--sparsity` and the vertex file.
    pub fn parse(
        name: &str,
        radius: Option<f64>,
        sparsity: Option<usize>,
        vertices: Option<&str>,
    ) -> Result<Self, DomainError> {
        let r = radius.unwrap_or(1.0);
        if !(r.is_finite() && r > 0.0) {
            return Err(DomainError::BadRadius(r));
        }
        Ok(match name {
            "l1-ball" => DomainSpec::L1Ball { radius: r },
            "l2-ball" => DomainSpec::L2Ball { radius: r },
            "simplex" => DomainSpec::Simplex,
            "polytope" => DomainSpec::Polytope {
                path: vertices.ok_or(DomainError::MissingVertices)?.to_string(),
            },
            "sparse" => DomainSpec::Sparse {
                s: sparsity.unwrap_or(0),
                radius: r,
            },
            "unconstrained" => DomainSpec::Unconstrained,
            other => return Err(DomainError::Unknown(other.to_string())),
        })
    }

    /// The CONTRACT name.
    pub fn name(&self) -> &'static str {
        match self {
            DomainSpec::L1Ball { .. } => "l1-ball",
            DomainSpec::L2Ball { .. } => "l2-ball",
            DomainSpec::Simplex => "simplex",
            DomainSpec::Polytope { .. } => "polytope",
            DomainSpec::Sparse { .. } => "sparse",
            DomainSpec::Unconstrained => "unconstrained",
        }
    }

    /// Builds the set in dimension d.
    pub fn build(&self, d: usize) -> Result<Box<dyn ConstraintSet>, DomainError> {
        Ok(match self {
            DomainSpec::L1Ball { radius } => Box::new(L1Ball { d, radius: *radius }),
            DomainSpec::L2Ball { radius } => Box::new(L2Ball { d, radius: *radius }),
            DomainSpec::Simplex => Box::new(Simplex { d }),
            DomainSpec::Unconstrained => Box::new(Unconstrained { d }),
            DomainSpec::Polytope { path } => Box::new(VertexPolytope::from_csv(path, d)?),
            DomainSpec::Sparse { s, radius } => {
                if *s == 0 || *s > d {
                    return Err(DomainError::BadSparsity { s: *s, d });
                }
                Box::new(SparseBall {
                    d,
                    s: *s,
                    radius: *radius,
                })
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Brute-force check of the projection's variational inequality:
    /// ⟨v − P(v), u − P(v)⟩ ≤ 0 for points u of the set.
    fn check_projection(c: &dyn ConstraintSet, v: &[f64], samples: &[Vec<f64>]) {
        let mut p = v.to_vec();
        c.project(&mut p);
        assert!(c.contains(&p, 1e-9), "projection left the set");
        for u in samples {
            let mut u = u.clone();
            c.project(&mut u); // a point of the set
            let ip: f64 = v
                .iter()
                .zip(&p)
                .zip(&u)
                .map(|((vi, pi), ui)| (vi - pi) * (ui - pi))
                .sum();
            assert!(ip <= 1e-9, "variational inequality violated: {ip}");
        }
    }

    /// The closed-form convex sets the property tests run on: an ℓ1 ball, an ℓ2 ball and
    /// the simplex of ℝ^d.
    fn convex_sets(d: usize) -> Vec<Box<dyn ConstraintSet>> {
        vec![
            Box::new(L1Ball { d, radius: 1.5 }),
            Box::new(L2Ball { d, radius: 0.7 }),
            Box::new(Simplex { d }),
        ]
    }

    proptest! {
        #[test]
        fn projections_are_correct(v in proptest::collection::vec(-3.0f64..3.0, 5), us in proptest::collection::vec(proptest::collection::vec(-2.0f64..2.0, 5), 8)) {
            let mut sets = convex_sets(5);
            sets.push(Box::new(VertexPolytope::new(5, vec![1.,0.,0.,0.,0., 0.,1.,0.,0.,0., -1.,-1.,0.5,0.,0., 0.,0.,0.,2.,1.], "t".into()).unwrap()));
            for c in &sets {
                check_projection(c.as_ref(), &v, &us);
            }
        }

        #[test]
        fn lmo_is_optimal(g in proptest::collection::vec(-3.0f64..3.0, 6), us in proptest::collection::vec(proptest::collection::vec(-2.0f64..2.0, 6), 8)) {
            let mut sets = convex_sets(6);
            sets.push(Box::new(SparseBall { d: 6, s: 2, radius: 1.0 }));
            for c in &sets {
                let mut s = vec![0.0; 6];
                c.lmo(&g, &mut s);
                prop_assert!(c.contains(&s, 1e-9));
                let best = dot(&s, &g);
                for u in &us {
                    let mut u = u.clone();
                    c.project(&mut u);
                    prop_assert!(dot(&u, &g) >= best - 1e-9);
                }
            }
        }

        #[test]
        fn polytope_scores_agree_with_lmo(g in proptest::collection::vec(-3.0f64..3.0, 4)) {
            let l1 = L1Ball { d: 4, radius: 1.3 };
            let mut scores = vec![0.0; 8];
            l1.vertex_scores(&g, &mut scores);
            let mut v = vec![0.0; 4];
            for (i, si) in scores.iter().enumerate() {
                l1.vertex(i, &mut v);
                prop_assert!((dot(&v, &g) - si).abs() < 1e-12);
            }
            // LMO closed form: -r sign(g_j) e_j at j = argmax |g_j|
            let mut s = vec![0.0; 4];
            l1.lmo(&g, &mut s);
            let j = (0..4).max_by(|&a, &b| g[a].abs().partial_cmp(&g[b].abs()).unwrap().then(b.cmp(&a))).unwrap();
            prop_assert!((s[j] + 1.3 * g[j].signum()).abs() < 1e-12);
            let mut w = vec![0.1, -0.2, 0.3, 0.0];
            let mut w2 = w.clone();
            l1.move_toward_vertex(&mut w, 3, 0.25);
            l1.vertex(3, &mut v);
            for k in 0..4 { w2[k] = 0.75 * w2[k] + 0.25 * v[k]; }
            prop_assert_eq!(w, w2);
        }
    }

    #[test]
    fn sparse_projection_keeps_top_s() {
        let c = SparseBall {
            d: 5,
            s: 2,
            radius: 1.0,
        };
        let mut v = vec![0.1, -3.0, 0.5, 2.0, -0.2];
        c.project(&mut v);
        assert_eq!(v[0], 0.0);
        assert_eq!(v[2], 0.0);
        assert!((norm2(&v) - 1.0).abs() < 1e-12);
        assert!((v[1] / v[3] + 1.5).abs() < 1e-12);
    }

    /// The default ℓ1 diameter 2‖C‖₁ of the symmetric sets is attained: u = lmo(−g) and
    /// v = lmo(g) for a direction g that puts both on a far vertex or face.
    #[test]
    fn symmetric_sets_attain_their_l1_diameter() {
        let d = 6;
        let ones = vec![1.0; d];
        let mut e1 = vec![0.0; d];
        e1[0] = 1.0;
        let sets: Vec<(Box<dyn ConstraintSet>, &[f64], f64)> = vec![
            (Box::new(L1Ball { d, radius: 1.5 }), &e1, 3.0),
            (
                Box::new(L2Ball { d, radius: 0.7 }),
                &ones,
                1.4 * 6f64.sqrt(),
            ),
            (
                Box::new(SparseBall {
                    d,
                    s: 2,
                    radius: 1.0,
                }),
                &ones,
                2.0 * 2f64.sqrt(),
            ),
        ];
        for (c, g, want) in &sets {
            let (mut u, mut v) = (vec![0.0; d], vec![0.0; d]);
            let minus_g: Vec<f64> = g.iter().map(|x| -x).collect();
            c.lmo(&minus_g, &mut u);
            c.lmo(g, &mut v);
            let dist: f64 = u.iter().zip(&v).map(|(a, b)| (a - b).abs()).sum();
            assert!((c.l1_diameter() - want).abs() < 1e-12, "{}", c.describe());
            assert!((dist - c.l1_diameter()).abs() < 1e-12, "{}", c.describe());
        }
        let all = Unconstrained { d };
        assert_eq!(all.l1_diameter(), f64::INFINITY);
    }

    #[test]
    fn gaussian_norm_expectation() {
        // d = 1: E|g| = sqrt(2/pi); d = 2: sqrt(pi/2)
        assert!((expected_gaussian_norm(1) - (2.0 / std::f64::consts::PI).sqrt()).abs() < 1e-12);
        assert!((expected_gaussian_norm(2) - (std::f64::consts::PI / 2.0).sqrt()).abs() < 1e-12);
        assert!(expected_gaussian_norm(1000) < 1000f64.sqrt());
    }

    #[test]
    fn unconstrained_domain_is_all_of_rd() {
        let c = DomainSpec::parse("unconstrained", Some(5.0), None, None)
            .unwrap()
            .build(3)
            .unwrap();
        let mut v = vec![1e9, -2.0, 0.0];
        c.project(&mut v);
        assert_eq!(v, vec![1e9, -2.0, 0.0]);
        assert!(c.contains(&v, 0.0) && !c.contains(&[f64::NAN, 0.0, 0.0], 0.0));
        assert_eq!(c.l2_radius(), f64::INFINITY);
        assert_eq!(c.describe()["kind"], "unconstrained");
        assert_eq!(c.start(), vec![0.0; 3]);
        let mut out = vec![0.0; 3];
        c.lmo(&[1.0, -1.0, 0.0], &mut out);
        assert_eq!(out, vec![f64::NEG_INFINITY, f64::INFINITY, 0.0]);
    }

    #[test]
    fn domain_parsing_errors() {
        assert!(matches!(
            DomainSpec::parse("box", None, None, None),
            Err(DomainError::Unknown(_))
        ));
        assert!(matches!(
            DomainSpec::parse("l1-ball", Some(-1.0), None, None),
            Err(DomainError::BadRadius(_))
        ));
        assert!(matches!(
            DomainSpec::parse("polytope", None, None, None),
            Err(DomainError::MissingVertices)
        ));
        let s = DomainSpec::parse("sparse", None, Some(9), None).unwrap();
        assert!(matches!(s.build(4), Err(DomainError::BadSparsity { .. })));
    }
}
