//! Exact Euclidean projection onto the convex hull of finitely many points by Wolfe's
//! minimum-norm-point algorithm (P. Wolfe, "Finding the nearest point in a polytope",
//! Math. Programming 11, 1976).
//!
//! The projection of z onto conv{v_1, …, v_k} is z + x*, x* the point of minimum norm in
//! conv{v_i − z}. Wolfe's active-set method terminates finitely with x* the affine
//! minimiser over the optimal face, so — unlike a first-order method — its answer is
//! exact up to rounding. The inner solver of objective perturbation needs this: its
//! stopping rule (gradient-mapping norm ≤ 1e−10·L) is only meaningful with an exact
//! projection.
//!
//! Affine minimisers are computed by Householder least squares on the vertex differences
//! v_i − v_base, which do not depend on z (well conditioned even when z is far away).

use crate::linalg::dot;

/// conv{v_1, …, v_k} ⊂ ℝ^d (row-major k × d vertex list) with an exact projection.
#[derive(Debug, Clone, PartialEq)]
pub struct HullProjector {
    d: usize,
    vertices: Vec<f64>,
}

impl HullProjector {
    /// A projector onto the hull of the rows of `vertices` (k × d, k ≥ 1).
    pub fn new(d: usize, vertices: Vec<f64>) -> Self {
        assert!(
            d > 0 && !vertices.is_empty() && vertices.len() % d == 0,
            "vertex list shape"
        );
        HullProjector { d, vertices }
    }

    /// Number of vertices.
    pub fn num_vertices(&self) -> usize {
        self.vertices.len() / self.d
    }

    fn v(&self, i: usize) -> &[f64] {
        &self.vertices[i * self.d..(i + 1) * self.d]
    }

    /// Σ λ_i v_{s_i}.
    fn combo(&self, s: &[usize], lam: &[f64], out: &mut [f64]) {
        out.iter_mut().for_each(|o| *o = 0.0);
        for (&i, &l) in s.iter().zip(lam) {
            crate::linalg::axpy(l, self.v(i), out);
        }
    }

    /// Projects `z` onto the hull in place. Returns the barycentric support (vertex indices
    /// and weights) of the answer.
    pub fn project(&self, z: &mut [f64]) -> (Vec<usize>, Vec<f64>) {
        let d = self.d;
        let k = self.num_vertices();
        // Start at the vertex nearest to z.
        let dist2 = |i: usize| -> f64 {
            self.v(i)
                .iter()
                .zip(z.iter())
                .map(|(a, b)| (a - b) * (a - b))
                .sum()
        };
        let mut j0 = 0;
        let mut best = dist2(0);
        for i in 1..k {
            let di = dist2(i);
            if di < best {
                best = di;
                j0 = i;
            }
        }
        let mut s = vec![j0];
        let mut lam = vec![1.0];
        let mut q = self.v(j0).to_vec(); // current point of the hull
        let mut x = vec![0.0; d]; // q − z
        let max_major = 20 * (k + d) + 100;
        let mut last_norm = f64::INFINITY;
        for _ in 0..max_major {
            for ((xi, qi), zi) in x.iter_mut().zip(&q).zip(z.iter()) {
                *xi = qi - zi;
            }
            let xnorm = crate::linalg::norm2(&x);
            // Exact arithmetic decreases ‖x‖ strictly every major cycle; stop on a stall.
            if xnorm == 0.0 || xnorm >= last_norm {
                break;
            }
            last_norm = xnorm;
            // Most violated vertex: minimises ⟨v_j − z, x⟩, i.e. maximises ⟨x, q − v_j⟩.
            let mut jbest = usize::MAX;
            let mut gap = 0.0;
            let mut scale = 0.0f64;
            let mut diff = vec![0.0; d];
            for j in 0..k {
                for ((df, qi), vj) in diff.iter_mut().zip(&q).zip(self.v(j)) {
                    *df = qi - vj;
                }
                scale = scale.max(crate::linalg::norm2(&diff));
                let g = dot(&x, &diff);
                if g > gap {
                    gap = g;
                    jbest = j;
                }
            }
            if jbest == usize::MAX || gap <= 1e-13 * xnorm * scale || s.contains(&jbest) {
                break;
            }
            s.push(jbest);
            lam.push(0.0);
            // Minor cycle: move to the affine minimiser of the active set, dropping vertices
            // whose weight would become non-positive.
            let mut ok = false;
            for _ in 0..=d + 1 {
                let alpha = match self.affine_minimiser(&s, z) {
                    Some(a) => a,
                    None => {
                        // Affinely dependent active set (rounding): drop the newest vertex and stop.
                        s.pop();
                        lam.pop();
                        break;
                    }
                };
                if alpha.iter().all(|a| *a > 0.0) {
                    lam = alpha;
                    ok = true;
                    break;
                }
                // Line search from lam toward alpha until the first weight hits zero.
                // (Some α_i ≤ 0 exists here, so `drop` is set.)
                let mut theta = f64::INFINITY;
                let mut drop = 0;
                for (i, (&a, &l)) in alpha.iter().zip(&lam).enumerate() {
                    if a <= 0.0 {
                        let t = if l - a > 0.0 { l / (l - a) } else { 0.0 };
                        if t < theta {
                            theta = t;
                            drop = i;
                        }
                    }
                }
                let theta = theta.min(1.0);
                for (l, a) in lam.iter_mut().zip(&alpha) {
                    *l = theta * a + (1.0 - theta) * *l;
                }
                lam[drop] = 0.0;
                let mut i = 0;
                while i < s.len() {
                    if lam[i] <= 0.0 {
                        s.remove(i);
                        lam.remove(i);
                    } else {
                        i += 1;
                    }
                }
                let total: f64 = lam.iter().sum();
                lam.iter_mut().for_each(|l| *l /= total);
                if s.len() <= 1 {
                    lam = vec![1.0; s.len()];
                    ok = true;
                    break;
                }
            }
            self.combo(&s, &lam, &mut q);
            if !ok {
                break;
            }
        }
        self.combo(&s, &lam, &mut q);
        z.copy_from_slice(&q);
        (s, lam)
    }

    /// Weights α (Σα = 1) of the point of minimum norm in the affine hull of {v_i − z : i ∈ s};
    /// `None` when the points are (numerically) affinely dependent.
    fn affine_minimiser(&self, s: &[usize], z: &[f64]) -> Option<Vec<f64>> {
        let m = s.len();
        if m == 1 {
            return Some(vec![1.0]);
        }
        let d = self.d;
        let r = m - 1;
        if r > d {
            return None;
        }
        let base = self.v(s[0]);
        // Column-major A (d × r): columns v_{s_c} − v_{s_0}; right-hand side −(v_{s_0} − z).
        let mut a = vec![0.0; d * r];
        for c in 0..r {
            let vc = self.v(s[c + 1]);
            for i in 0..d {
                a[c * d + i] = vc[i] - base[i];
            }
        }
        let mut rhs: Vec<f64> = base.iter().zip(z).map(|(b, zi)| zi - b).collect();
        let colmax = (0..r)
            .map(|c| crate::linalg::norm2(&a[c * d..(c + 1) * d]))
            .fold(0.0f64, f64::max);
        // Householder QR, applying the reflections to rhs as we go.
        let mut rdiag = vec![0.0; r];
        for c in 0..r {
            let v: Vec<f64> = {
                let col = &mut a[c * d..(c + 1) * d];
                let norm = crate::linalg::norm2(&col[c..]);
                if norm <= 1e-12 * colmax {
                    return None;
                }
                let alpha = if col[c] > 0.0 { -norm } else { norm };
                col[c] -= alpha;
                rdiag[c] = alpha;
                col[c..].to_vec()
            };
            let vnorm2 = dot(&v, &v);
            if vnorm2 == 0.0 {
                continue;
            }
            // Apply H = I − 2vvᵀ/‖v‖² to the remaining columns and to rhs.
            for c2 in c + 1..r {
                let other = &mut a[c2 * d..(c2 + 1) * d];
                let f = 2.0 * dot(&v, &other[c..]) / vnorm2;
                for (o, vi) in other[c..].iter_mut().zip(&v) {
                    *o -= f * vi;
                }
            }
            let f = 2.0 * dot(&v, &rhs[c..]) / vnorm2;
            for (o, vi) in rhs[c..].iter_mut().zip(&v) {
                *o -= f * vi;
            }
        }
        // Back substitution R β = (Qᵀ rhs)[..r]; R's off-diagonal entries are a[c2*d + c] (c < c2).
        let mut beta = vec![0.0; r];
        for c in (0..r).rev() {
            let mut sum = rhs[c];
            for c2 in c + 1..r {
                sum -= a[c2 * d + c] * beta[c2];
            }
            beta[c] = sum / rdiag[c];
        }
        let mut alpha = Vec::with_capacity(m);
        alpha.push(1.0 - beta.iter().sum::<f64>());
        alpha.extend_from_slice(&beta);
        if alpha.iter().any(|a| !a.is_finite()) {
            return None;
        }
        Some(alpha)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::noise::rng_from_seed;
    use rand::Rng;

    /// KKT check of a projection p of z onto conv(V): ⟨z − p, v_j − p⟩ ≤ tol for every vertex.
    fn kkt_violation(h: &HullProjector, z: &[f64], p: &[f64]) -> f64 {
        let mut worst: f64 = 0.0;
        for j in 0..h.num_vertices() {
            let g: f64 = (0..z.len())
                .map(|i| (z[i] - p[i]) * (h.v(j)[i] - p[i]))
                .sum();
            worst = worst.max(g);
        }
        worst
    }

    #[test]
    fn projection_satisfies_kkt_on_random_polytopes() {
        let mut rng = rng_from_seed(5);
        for trial in 0..2000 {
            let d = 1 + trial % 7;
            let k = 1 + (trial * 7) % 13;
            let verts: Vec<f64> = (0..k * d).map(|_| rng.random_range(-1.0..1.0)).collect();
            let h = HullProjector::new(d, verts);
            let scale = [0.1, 1.0, 5.0, 100.0, 0.5][trial % 5];
            let z: Vec<f64> = (0..d)
                .map(|_| scale * rng.random_range(-1.0..1.0))
                .collect();
            let mut p = z.clone();
            let (s, lam) = h.project(&mut p);
            assert!(lam.iter().all(|l| *l > 0.0) && (lam.iter().sum::<f64>() - 1.0).abs() < 1e-12);
            assert!(s.len() <= d + 1);
            let dist = z
                .iter()
                .zip(&p)
                .map(|(a, b)| (a - b) * (a - b))
                .sum::<f64>()
                .sqrt();
            let v = kkt_violation(&h, &z, &p);
            assert!(
                v <= 1e-11 * (1.0 + dist),
                "trial {trial}: KKT violation {v}"
            );
            // Projecting the answer again changes nothing.
            let mut p2 = p.clone();
            h.project(&mut p2);
            for (a, b) in p.iter().zip(&p2) {
                assert!((a - b).abs() < 1e-12, "trial {trial}");
            }
            // Agrees with the iterative projection of the constraint module.
            let vp =
                crate::constraints::VertexPolytope::new(d, h.vertices.clone(), "t".into()).unwrap();
            let mut p3 = z.clone();
            crate::constraints::ConstraintSet::project(&vp, &mut p3);
            for (a, b) in p.iter().zip(&p3) {
                assert!((a - b).abs() < 1e-5, "trial {trial}: {p:?} vs {p3:?}");
            }
        }
    }

    #[test]
    fn projection_matches_closed_forms() {
        // The l1 ball {±e_j} in d = 3: compare with the sort-based projection.
        let d = 3;
        let mut verts = vec![0.0; 6 * d];
        for j in 0..d {
            verts[(2 * j) * d + j] = 1.0;
            verts[(2 * j + 1) * d + j] = -1.0;
        }
        let h = HullProjector::new(d, verts);
        for z in [
            [2.0, 0.5, -0.3],
            [0.2, 0.1, -0.3],
            [-4.0, 3.0, 1.0],
            [0.0, 0.0, 0.0],
        ] {
            let mut p = z.to_vec();
            h.project(&mut p);
            let mut q = z.to_vec();
            crate::constraints::project_l1_ball(&mut q, 1.0);
            for (a, b) in p.iter().zip(&q) {
                assert!((a - b).abs() < 1e-14, "{z:?}: {p:?} vs {q:?}");
            }
        }
        // A segment in the plane.
        let h = HullProjector::new(2, vec![0.0, 0.0, 2.0, 0.0]);
        let mut p = vec![1.3, 5.0];
        h.project(&mut p);
        assert_eq!(p, vec![1.3, 0.0]);
        let mut p = vec![-1.0, -1.0];
        h.project(&mut p);
        assert_eq!(p, vec![0.0, 0.0]);
    }
}
