//! Non-private floors and test metrics of the real-data benchmark (`real-benchmark`),
//! implemented here in plain Rust (no linear-algebra crate): a Cholesky solver, ridge /
//! OLS with intercept on standardised columns, Lasso by cyclic coordinate descent with
//! K-fold cross-validation over a λ path, L2-penalised logistic regression with an
//! unpenalised intercept by Newton–IRLS (penalty chosen by K-fold cross-validation), and
//! the metrics MSE (the model's [`crate::model::mse`]), log-loss and AUC.
//!
//! These are **non-private** reference fits: they read the training split freely (means,
//! standard deviations, cross-validation). They are only ever compared with, never fed
//! into, a private fit.

use crate::model::mse;

/// Solves `a · x = b` for a symmetric positive-definite `a` (k × k, row-major) by
/// Cholesky; `None` when `a` is not numerically positive definite.
pub fn cholesky_solve(a: &[f64], b: &[f64], k: usize) -> Option<Vec<f64>> {
    debug_assert_eq!(a.len(), k * k);
    let mut l = vec![0.0; k * k];
    for i in 0..k {
        for j in 0..=i {
            let mut s = a[i * k + j];
            for p in 0..j {
                s -= l[i * k + p] * l[j * k + p];
            }
            if i == j {
                if s <= 0.0 || !s.is_finite() {
                    return None;
                }
                l[i * k + i] = s.sqrt();
            } else {
                l[i * k + j] = s / l[j * k + j];
            }
        }
    }
    // L z = b
    let mut z = b.to_vec();
    for i in 0..k {
        let mut s = z[i];
        for p in 0..i {
            s -= l[i * k + p] * z[p];
        }
        z[i] = s / l[i * k + i];
    }
    // Lᵀ x = z
    for i in (0..k).rev() {
        let mut s = z[i];
        for p in i + 1..k {
            s -= l[p * k + i] * z[p];
        }
        z[i] = s / l[i * k + i];
    }
    Some(z)
}

/// Column means and standard deviations of `x` (n × d) — the floors' **non-private**
/// standardisation, computed on the training split. A constant column gets sd 0 (and is
/// then mapped to 0).
#[derive(Debug, Clone, PartialEq)]
pub struct Standardizer {
    pub mean: Vec<f64>,
    pub sd: Vec<f64>,
}

impl Standardizer {
    pub fn fit(x: &[f64], n: usize, d: usize) -> Self {
        let mut mean = vec![0.0; d];
        for row in x.chunks(d).take(n) {
            for (m, v) in mean.iter_mut().zip(row) {
                *m += v;
            }
        }
        mean.iter_mut().for_each(|m| *m /= n as f64);
        let mut var = vec![0.0; d];
        for row in x.chunks(d).take(n) {
            for ((s, v), m) in var.iter_mut().zip(row).zip(&mean) {
                *s += (v - m) * (v - m);
            }
        }
        let sd = var
            .into_iter()
            .map(|s| {
                let s = (s / n as f64).sqrt();
                if s.is_finite() && s > 1e-12 {
                    s
                } else {
                    0.0
                }
            })
            .collect();
        Standardizer { mean, sd }
    }

    /// `(x − mean) / sd` (0 for constant columns).
    pub fn apply(&self, x: &[f64]) -> Vec<f64> {
        let d = self.mean.len();
        let mut out = x.to_vec();
        for row in out.chunks_mut(d) {
            for ((v, m), s) in row.iter_mut().zip(&self.mean).zip(&self.sd) {
                *v = if *s > 0.0 { (*v - m) / s } else { 0.0 };
            }
        }
        out
    }
}

/// An affine model ⟨x, w⟩ + b in **raw** units.
#[derive(Debug, Clone, PartialEq)]
pub struct Affine {
    pub w: Vec<f64>,
    pub b: f64,
}

impl Affine {
    pub fn margins(&self, x: &[f64]) -> Vec<f64> {
        let d = self.w.len();
        x.chunks(d)
            .map(|r| r.iter().zip(&self.w).map(|(a, b)| a * b).sum::<f64>() + self.b)
            .collect()
    }

    /// Maps a model fitted on standardised columns back to raw units.
    fn from_standardised(st: &Standardizer, w_s: &[f64], b_s: f64) -> Affine {
        let mut b = b_s;
        let w: Vec<f64> = w_s
            .iter()
            .zip(&st.sd)
            .zip(&st.mean)
            .map(|((w, s), m)| {
                if *s > 0.0 {
                    b -= w * m / s;
                    w / s
                } else {
                    0.0
                }
            })
            .collect();
        Affine { w, b }
    }
}

/// Ridge regression with an unpenalised intercept on standardised columns: minimises
/// (1/n)‖y − b − X̃w‖² + λ‖w‖² (λ = 0: OLS when XᵀX is non-singular). Returns the model
/// in raw units.
pub fn ridge(x: &[f64], y: &[f64], d: usize, lambda: f64) -> Option<Affine> {
    let n = y.len();
    let st = Standardizer::fit(x, n, d);
    let xs = st.apply(x);
    let ybar = y.iter().sum::<f64>() / n as f64;
    let mut a = vec![0.0; d * d];
    let mut rhs = vec![0.0; d];
    for (row, yi) in xs.chunks(d).zip(y) {
        let r = yi - ybar;
        for i in 0..d {
            rhs[i] += row[i] * r;
            for j in 0..=i {
                a[i * d + j] += row[i] * row[j];
            }
        }
    }
    for i in 0..d {
        for j in 0..i {
            a[j * d + i] = a[i * d + j];
        }
        // a constant (all-zero) column keeps weight 0 through a unit diagonal
        a[i * d + i] += lambda * n as f64 + if st.sd[i] > 0.0 { 0.0 } else { 1.0 };
    }
    let w = cholesky_solve(&a, &rhs, d)?;
    Some(Affine::from_standardised(&st, &w, ybar))
}

/// Lasso on already standardised, centred data by cyclic coordinate descent (with an
/// active-set loop): minimises (1/2n)‖y − Xw‖² + λ‖w‖₁, starting from `w`.
pub fn lasso_cd(x: &[f64], y: &[f64], d: usize, lambda: f64, w: &mut [f64], tol: f64) {
    let n = y.len();
    let nf = n as f64;
    let col_sq: Vec<f64> = (0..d)
        .map(|j| x.chunks(d).map(|r| r[j] * r[j]).sum::<f64>() / nf)
        .collect();
    let mut resid: Vec<f64> = y
        .iter()
        .zip(x.chunks(d))
        .map(|(yi, r)| yi - r.iter().zip(w.iter()).map(|(a, b)| a * b).sum::<f64>())
        .collect();
    let soft = |z: f64, t: f64| {
        if z > t {
            z - t
        } else if z < -t {
            z + t
        } else {
            0.0
        }
    };
    // one coordinate update; returns |change|
    let update = |j: usize, w: &mut [f64], resid: &mut [f64]| -> f64 {
        if col_sq[j] == 0.0 {
            return 0.0;
        }
        let mut rho = 0.0;
        for (r, row) in resid.iter().zip(x.chunks(d)) {
            rho += row[j] * r;
        }
        let new = soft(rho / nf + col_sq[j] * w[j], lambda) / col_sq[j];
        let delta = new - w[j];
        if delta != 0.0 {
            for (r, row) in resid.iter_mut().zip(x.chunks(d)) {
                *r -= delta * row[j];
            }
            w[j] = new;
        }
        delta.abs() * col_sq[j].sqrt()
    };
    for _outer in 0..100 {
        // full sweep
        let mut max_change = 0.0f64;
        for j in 0..d {
            max_change = max_change.max(update(j, w, &mut resid));
        }
        if max_change < tol {
            return;
        }
        // active-set sweeps until converged
        let active: Vec<usize> = (0..d).filter(|&j| w[j] != 0.0).collect();
        for _ in 0..1000 {
            let mut mc = 0.0f64;
            for &j in &active {
                mc = mc.max(update(j, w, &mut resid));
            }
            if mc < tol {
                break;
            }
        }
    }
}

/// The λ path of [`lasso_cv`]: `k` values log-spaced from λ_max = max_j |⟨x_j, y⟩|/n (where
/// w = 0) down to `ratio`·λ_max.
fn lambda_path(x: &[f64], y: &[f64], d: usize, k: usize, ratio: f64) -> Vec<f64> {
    let n = y.len() as f64;
    let mut lmax = 0.0f64;
    for j in 0..d {
        let c: f64 = x.chunks(d).zip(y).map(|(r, yi)| r[j] * yi).sum::<f64>() / n;
        lmax = lmax.max(c.abs());
    }
    let lmax = lmax.max(1e-12);
    (0..k)
        .map(|i| lmax * ratio.powf(i as f64 / (k - 1).max(1) as f64))
        .collect()
}

/// Fold of row i (0..folds) for a fixed, data-independent assignment (i mod folds).
fn fold_of(i: usize, folds: usize) -> usize {
    i % folds
}

fn split_rows(
    x: &[f64],
    y: &[f64],
    d: usize,
    keep: impl Fn(usize) -> bool,
) -> (Vec<f64>, Vec<f64>) {
    let mut xo = Vec::new();
    let mut yo = Vec::new();
    for (i, (r, yi)) in x.chunks(d).zip(y).enumerate() {
        if keep(i) {
            xo.extend_from_slice(r);
            yo.push(*yi);
        }
    }
    (xo, yo)
}

/// Lasso path fit on raw (x, y): standardises x and centres y, returns one raw-unit
/// model per λ of `path` (warm starts along the path).
fn lasso_path_fit(x: &[f64], y: &[f64], d: usize, path: &[f64]) -> Vec<Affine> {
    let n = y.len();
    let st = Standardizer::fit(x, n, d);
    let xs = st.apply(x);
    let ybar = y.iter().sum::<f64>() / n as f64;
    let yc: Vec<f64> = y.iter().map(|v| v - ybar).collect();
    let mut w = vec![0.0; d];
    path.iter()
        .map(|&l| {
            lasso_cd(&xs, &yc, d, l, &mut w, 1e-6);
            Affine::from_standardised(&st, &w, ybar)
        })
        .collect()
}

/// LassoCV: the λ path (30 values down to 10⁻³·λ_max, computed on the standardised
/// training data), `folds`-fold cross-validation (rows assigned by index, i mod folds; the
/// caller's rows are already in a random order), the λ of least mean validation MSE, and
/// the refit on all the data. Returns the model and the chosen λ.
pub fn lasso_cv(x: &[f64], y: &[f64], d: usize, folds: usize) -> (Affine, f64) {
    let n = y.len();
    let st = Standardizer::fit(x, n, d);
    let xs = st.apply(x);
    let ybar = y.iter().sum::<f64>() / n as f64;
    let yc: Vec<f64> = y.iter().map(|v| v - ybar).collect();
    let path = lambda_path(&xs, &yc, d, 30, 1e-3);
    let mut cv = vec![0.0; path.len()];
    for f in 0..folds {
        let (xt, yt) = split_rows(x, y, d, |i| fold_of(i, folds) != f);
        let (xv, yv) = split_rows(x, y, d, |i| fold_of(i, folds) == f);
        if yt.is_empty() || yv.is_empty() {
            continue;
        }
        for (k, m) in lasso_path_fit(&xt, &yt, d, &path).iter().enumerate() {
            cv[k] += mse(&m.margins(&xv), &yv) * yv.len() as f64;
        }
    }
    let best = (0..path.len())
        .min_by(|&a, &b| cv[a].total_cmp(&cv[b]))
        .unwrap_or(0);
    let fit = lasso_path_fit(x, y, d, &path[..=best]);
    (fit.into_iter().last().expect("non-empty path"), path[best])
}

fn sigmoid(m: f64) -> f64 {
    if m >= 0.0 {
        1.0 / (1.0 + (-m).exp())
    } else {
        let e = m.exp();
        e / (1.0 + e)
    }
}

/// L2-penalised logistic regression with an unpenalised intercept on already
/// standardised columns, labels in {0, 1}: minimises
/// (1/n) Σ log(1 + e^{−ỹ_i m_i}) + (λ/2)‖w‖² (ỹ = 2y − 1, m = b + ⟨x, w⟩) by Newton's
/// method with step halving, from `theta` = (w, b). Returns the final objective. When
/// d > n and λ > 0 the Newton system is solved through the n × n Woodbury form.
pub fn logistic_newton(x: &[f64], y: &[f64], d: usize, lambda: f64, theta: &mut [f64]) -> f64 {
    logistic_newton_with(x, y, d, lambda, theta, d > y.len() && lambda > 0.0)
}

fn logistic_newton_with(
    x: &[f64],
    y: &[f64],
    d: usize,
    lambda: f64,
    theta: &mut [f64],
    woodbury: bool,
) -> f64 {
    let n = y.len();
    let nf = n as f64;
    let k = d + 1;
    let objective = |th: &[f64]| -> f64 {
        let mut s = 0.0;
        for (r, yi) in x.chunks(d).zip(y) {
            let m = r.iter().zip(th).map(|(a, b)| a * b).sum::<f64>() + th[d];
            let z = if *yi > 0.5 { m } else { -m };
            // log(1 + e^{-z}), stable
            s += if z > 0.0 {
                (-z).exp().ln_1p()
            } else {
                -z + z.exp().ln_1p()
            };
        }
        s / nf + 0.5 * lambda * th[..d].iter().map(|w| w * w).sum::<f64>()
    };
    // X Xᵀ for the Woodbury form
    let gram: Vec<f64> = if woodbury {
        let mut g = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..=i {
                let v: f64 = x[i * d..(i + 1) * d]
                    .iter()
                    .zip(&x[j * d..(j + 1) * d])
                    .map(|(a, b)| a * b)
                    .sum();
                g[i * n + j] = v;
                g[j * n + i] = v;
            }
        }
        g
    } else {
        Vec::new()
    };
    let mut f = objective(theta);
    for _ in 0..100 {
        let mut g = vec![0.0; k];
        let mut wts = vec![0.0; n];
        for ((r, yi), wt) in x.chunks(d).zip(y).zip(wts.iter_mut()) {
            let m = r.iter().zip(theta.iter()).map(|(a, b)| a * b).sum::<f64>() + theta[d];
            let p = sigmoid(m);
            let gi = p - yi;
            *wt = (p * (1.0 - p)).max(1e-12) / nf;
            for i in 0..d {
                g[i] += gi * r[i] / nf;
            }
            g[d] += gi / nf;
        }
        for i in 0..d {
            g[i] += lambda * theta[i];
        }
        let gnorm = g.iter().map(|v| v * v).sum::<f64>().sqrt();
        if gnorm < 1e-9 {
            break;
        }
        let step = if woodbury {
            woodbury_step(x, d, &gram, &wts, lambda, &g)
        } else {
            dense_step(x, d, &wts, lambda, &g)
        };
        let Some(step) = step else {
            break;
        };
        let mut t = 1.0;
        let mut improved = false;
        for _ in 0..40 {
            let cand: Vec<f64> = theta.iter().zip(&step).map(|(a, s)| a - t * s).collect();
            let fc = objective(&cand);
            if fc <= f {
                theta.copy_from_slice(&cand);
                improved = f - fc > 1e-15 * f.abs().max(1.0);
                f = fc;
                break;
            }
            t *= 0.5;
        }
        if !improved {
            break;
        }
    }
    f
}

/// Tiny ridge on the intercept's diagonal entry (keeps the system positive definite).
const INTERCEPT_JITTER: f64 = 1e-10;

/// The Newton step H⁻¹g with H = [XᵀDX + λI, XᵀD1; 1ᵀDX, 1ᵀD1] formed densely.
fn dense_step(x: &[f64], d: usize, wts: &[f64], lambda: f64, g: &[f64]) -> Option<Vec<f64>> {
    let k = d + 1;
    let mut h = vec![0.0; k * k];
    for (r, wi) in x.chunks(d).zip(wts) {
        for i in 0..d {
            let a = wi * r[i];
            if a != 0.0 {
                for j in 0..=i {
                    h[i * k + j] += a * r[j];
                }
            }
        }
        for j in 0..d {
            h[d * k + j] += wi * r[j];
        }
        h[d * k + d] += wi;
    }
    for i in 0..d {
        h[i * k + i] += lambda;
    }
    h[d * k + d] += INTERCEPT_JITTER;
    for i in 0..k {
        for j in 0..i {
            h[j * k + i] = h[i * k + j];
        }
    }
    cholesky_solve(&h, g, k)
}

/// The same step for d > n: A = λI + XᵀDX is inverted by Woodbury,
/// A⁻¹v = (v − Xᵀ(λD⁻¹ + XXᵀ)⁻¹Xv)/λ, and the intercept by the Schur complement.
fn woodbury_step(
    x: &[f64],
    d: usize,
    gram: &[f64],
    wts: &[f64],
    lambda: f64,
    g: &[f64],
) -> Option<Vec<f64>> {
    let n = wts.len();
    let mut m = gram.to_vec();
    for i in 0..n {
        m[i * n + i] += lambda / wts[i];
    }
    let a_inv = |v: &[f64]| -> Option<Vec<f64>> {
        let xv: Vec<f64> = x
            .chunks(d)
            .map(|r| r.iter().zip(v).map(|(a, b)| a * b).sum())
            .collect();
        let z = cholesky_solve(&m, &xv, n)?;
        let mut out = v.to_vec();
        for (r, zi) in x.chunks(d).zip(&z) {
            for (o, xv) in out.iter_mut().zip(r) {
                *o -= xv * zi;
            }
        }
        out.iter_mut().for_each(|o| *o /= lambda);
        Some(out)
    };
    // u = XᵀD1, c = 1ᵀD1
    let mut u = vec![0.0; d];
    for (r, wi) in x.chunks(d).zip(wts) {
        for (uj, xv) in u.iter_mut().zip(r) {
            *uj += wi * xv;
        }
    }
    let c = wts.iter().sum::<f64>() + INTERCEPT_JITTER;
    let ag = a_inv(&g[..d])?;
    let au = a_inv(&u)?;
    let schur = c - u.iter().zip(&au).map(|(a, b)| a * b).sum::<f64>();
    if schur <= 0.0 || !schur.is_finite() {
        return None;
    }
    let db = (g[d] - u.iter().zip(&ag).map(|(a, b)| a * b).sum::<f64>()) / schur;
    let mut step: Vec<f64> = ag.iter().zip(&au).map(|(a, b)| a - db * b).collect();
    step.push(db);
    Some(step)
}

/// Logistic-regression floor: L2 penalty λ = 1/(C·n) (scikit-learn's
/// `LogisticRegression(C)` objective divided by n) on standardised columns, C chosen by
/// `folds`-fold cross-validated log-loss over {0.01, 0.1, 1, 10}, then refitted on all
/// rows. Labels in {0, 1}. Returns the raw-unit model and the chosen C.
pub fn logistic_cv(x: &[f64], y: &[f64], d: usize, folds: usize) -> (Affine, f64) {
    const CS: [f64; 4] = [0.01, 0.1, 1.0, 10.0];
    let fit = |x: &[f64], y: &[f64], c: f64, warm: &mut Vec<f64>| -> Affine {
        let n = y.len();
        let st = Standardizer::fit(x, n, d);
        let xs = st.apply(x);
        logistic_newton(&xs, y, d, 1.0 / (c * n as f64), warm);
        Affine::from_standardised(&st, &warm[..d], warm[d])
    };
    let mut cv = [0.0; CS.len()];
    for f in 0..folds {
        let (xt, yt) = split_rows(x, y, d, |i| fold_of(i, folds) != f);
        let (xv, yv) = split_rows(x, y, d, |i| fold_of(i, folds) == f);
        if yt.is_empty() || yv.is_empty() {
            continue;
        }
        let mut warm = vec![0.0; d + 1];
        for (k, &c) in CS.iter().enumerate() {
            let m = fit(&xt, &yt, c, &mut warm);
            let p: Vec<f64> = m.margins(&xv).into_iter().map(sigmoid).collect();
            cv[k] += log_loss(&p, &yv) * yv.len() as f64;
        }
    }
    let best = (0..CS.len())
        .min_by(|&a, &b| cv[a].total_cmp(&cv[b]))
        .unwrap_or(0);
    let mut warm = vec![0.0; d + 1];
    for &c in &CS[..=best] {
        // warm start along the C path
        fit(x, y, c, &mut warm);
    }
    (fit(x, y, CS[best], &mut warm), CS[best])
}

/// P(y = 1) of a logistic margin.
pub fn probability(m: f64) -> f64 {
    sigmoid(m)
}

/// Mean log-loss of probabilities `p` against labels in {0, 1}; p clipped to
/// [10⁻¹⁵, 1 − 10⁻¹⁵] (as scikit-learn).
pub fn log_loss(p: &[f64], y: &[f64]) -> f64 {
    const E: f64 = 1e-15;
    p.iter()
        .zip(y)
        .map(|(p, t)| {
            let p = p.clamp(E, 1.0 - E);
            if *t > 0.5 {
                -p.ln()
            } else {
                -(1.0 - p).ln()
            }
        })
        .sum::<f64>()
        / y.len() as f64
}

/// Area under the ROC curve of `score` against labels in {0, 1} (Mann–Whitney, ties
/// counted ½); NaN when one class is missing.
pub fn auc(score: &[f64], y: &[f64]) -> f64 {
    let mut idx: Vec<usize> = (0..y.len()).collect();
    idx.sort_by(|&a, &b| score[a].total_cmp(&score[b]));
    // average ranks (1-based) over ties
    let mut rank_sum_pos = 0.0;
    let mut i = 0;
    while i < idx.len() {
        let mut j = i;
        while j + 1 < idx.len() && score[idx[j + 1]] == score[idx[i]] {
            j += 1;
        }
        let avg = (i + j) as f64 / 2.0 + 1.0;
        for &k in &idx[i..=j] {
            if y[k] > 0.5 {
                rank_sum_pos += avg;
            }
        }
        i = j + 1;
    }
    let pos = y.iter().filter(|v| **v > 0.5).count() as f64;
    let neg = y.len() as f64 - pos;
    if pos == 0.0 || neg == 0.0 {
        return f64::NAN;
    }
    (rank_sum_pos - pos * (pos + 1.0) / 2.0) / (pos * neg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::noise::rng_from_seed;
    use rand::Rng;

    /// n × d features, row-major, each uniform on [−1, 1): the design of the
    /// logistic-floor tests.
    fn uniform_features(rng: &mut impl Rng, n: usize, d: usize) -> Vec<f64> {
        (0..n * d)
            .map(|_| rng.random::<f64>() * 2.0 - 1.0)
            .collect()
    }

    #[test]
    fn cholesky_solves_a_known_system() {
        // A = [[4, 2], [2, 3]], b = [2, 1] → x = [0.5, 0]
        let x = cholesky_solve(&[4.0, 2.0, 2.0, 3.0], &[2.0, 1.0], 2).unwrap();
        assert!((x[0] - 0.5).abs() < 1e-14 && x[1].abs() < 1e-14, "{x:?}");
        // 3x3: A = L Lᵀ with L = [[2,0,0],[1,3,0],[-1,2,1]]; x = [1, -2, 3]
        let l = [2.0, 0.0, 0.0, 1.0, 3.0, 0.0, -1.0, 2.0, 1.0];
        let mut a = [0.0; 9];
        for i in 0..3 {
            for j in 0..3 {
                a[i * 3 + j] = (0..3).map(|p| l[i * 3 + p] * l[j * 3 + p]).sum();
            }
        }
        let xt = [1.0, -2.0, 3.0];
        let b: Vec<f64> = (0..3)
            .map(|i| (0..3).map(|j| a[i * 3 + j] * xt[j]).sum())
            .collect();
        let x = cholesky_solve(&a, &b, 3).unwrap();
        for (u, v) in x.iter().zip(xt) {
            assert!((u - v).abs() < 1e-12, "{x:?}");
        }
        assert!(cholesky_solve(&[1.0, 2.0, 2.0, 1.0], &[1.0, 1.0], 2).is_none());
    }

    #[test]
    fn ols_recovers_an_exact_affine_relation() {
        let mut rng = rng_from_seed(3);
        let (n, d) = (200, 3);
        let x: Vec<f64> = (0..n * d)
            .map(|i| rng.random::<f64>() * (1.0 + (i % d) as f64 * 100.0))
            .collect();
        let y: Vec<f64> = x
            .chunks(d)
            .map(|r| 7.0 + 2.0 * r[0] - 0.5 * r[1] + 0.01 * r[2])
            .collect();
        let m = ridge(&x, &y, d, 0.0).unwrap();
        assert!((m.b - 7.0).abs() < 1e-8, "{m:?}");
        for (w, t) in m.w.iter().zip([2.0, -0.5, 0.01]) {
            assert!((w - t).abs() < 1e-9, "{m:?}");
        }
    }

    #[test]
    fn ridge_matches_the_closed_form_with_one_feature() {
        // one standardised feature: w_s = cov(x̃, y) / (1 + λ); raw w = w_s / sd
        let x = [1.0, 2.0, 3.0, 4.0];
        let y = [1.0, 3.0, 2.0, 6.0];
        let lambda = 0.5;
        let m = ridge(&x, &y, 1, lambda).unwrap();
        let (mx, my) = (2.5, 3.0);
        let sd = (x.iter().map(|v| (v - mx) * (v - mx)).sum::<f64>() / 4.0).sqrt();
        let cov = x
            .iter()
            .zip(&y)
            .map(|(a, b)| (a - mx) / sd * (b - my))
            .sum::<f64>()
            / 4.0;
        let w = cov / (1.0 + lambda) / sd;
        assert!((m.w[0] - w).abs() < 1e-12, "{m:?} vs {w}");
        assert!((m.b - (my - w * mx)).abs() < 1e-12);
    }

    #[test]
    fn lasso_is_soft_thresholding_on_an_orthonormal_design() {
        // columns orthogonal with (1/n)‖x_j‖² = 1: w_j = S(⟨x_j, y⟩/n, λ)
        let n = 4;
        let x = [
            1.0, 1.0, //
            1.0, -1.0, //
            -1.0, 1.0, //
            -1.0, -1.0,
        ];
        let y = [3.0, 1.0, -1.0, -2.6];
        let c: Vec<f64> = (0..2)
            .map(|j| (0..n).map(|i| x[i * 2 + j] * y[i]).sum::<f64>() / n as f64)
            .collect();
        for lambda in [0.0, 0.3, 0.9, 5.0] {
            let mut w = vec![0.0; 2];
            lasso_cd(&x, &y, 2, lambda, &mut w, 1e-12);
            for j in 0..2 {
                let t = c[j].signum() * (c[j].abs() - lambda).max(0.0);
                assert!((w[j] - t).abs() < 1e-10, "λ={lambda}: {w:?} vs c={c:?}");
            }
        }
    }

    #[test]
    fn lasso_cv_finds_a_sparse_signal_with_d_above_n() {
        let mut rng = rng_from_seed(5);
        let (n, d) = (60, 300);
        let x: Vec<f64> = (0..n * d).map(|_| rng.random::<f64>() - 0.5).collect();
        let y: Vec<f64> = x
            .chunks(d)
            .map(|r| 1.0 + 4.0 * r[0] - 3.0 * r[5] + 0.05 * (rng.random::<f64>() - 0.5))
            .collect();
        let (m, _) = lasso_cv(&x, &y, d, 5);
        let const_mse = mse(&vec![1.0; n], &y);
        assert!(mse(&m.margins(&x), &y) < 0.1 * const_mse);
        assert!(
            (m.w[0] - 4.0).abs() < 0.6 && (m.w[5] + 3.0).abs() < 0.6,
            "{:?}",
            &m.w[..6]
        );
    }

    #[test]
    fn logistic_matches_the_two_group_log_odds() {
        // one binary feature, no penalty: the MLE fits each group's empirical log-odds
        // b = logit(p0), b + w = logit(p1)
        let mut x = Vec::new();
        let mut y = Vec::new();
        for (xv, ones, zeros) in [(0.0, 3, 7), (1.0, 8, 2)] {
            for k in 0..ones + zeros {
                x.push(xv);
                y.push(if k < ones { 1.0 } else { 0.0 });
            }
        }
        let mut th = vec![0.0; 2];
        logistic_newton(&x, &y, 1, 0.0, &mut th);
        let logit = |p: f64| (p / (1.0 - p)).ln();
        assert!((th[1] - logit(0.3)).abs() < 1e-7, "{th:?}");
        assert!((th[0] + th[1] - logit(0.8)).abs() < 1e-7, "{th:?}");
    }

    #[test]
    fn penalised_logistic_has_zero_gradient() {
        let mut rng = rng_from_seed(9);
        let (n, d, lambda) = (300, 4, 0.05);
        let x = uniform_features(&mut rng, n, d);
        let y: Vec<f64> = x
            .chunks(d)
            .map(|r| {
                let p = sigmoid(2.0 * r[0] - r[1] + 0.5);
                if rng.random::<f64>() < p {
                    1.0
                } else {
                    0.0
                }
            })
            .collect();
        let mut th = vec![0.0; d + 1];
        logistic_newton(&x, &y, d, lambda, &mut th);
        let mut g = vec![0.0; d + 1];
        for (r, yi) in x.chunks(d).zip(&y) {
            let m = r.iter().zip(&th).map(|(a, b)| a * b).sum::<f64>() + th[d];
            let e = sigmoid(m) - yi;
            for j in 0..d {
                g[j] += e * r[j] / n as f64;
            }
            g[d] += e / n as f64;
        }
        for j in 0..d {
            g[j] += lambda * th[j];
        }
        assert!(g.iter().all(|v| v.abs() < 1e-8), "{g:?}");
        // and the CV floor beats the class frequency on these data
        let (m, _) = logistic_cv(&x, &y, d, 5);
        let p: Vec<f64> = m.margins(&x).into_iter().map(sigmoid).collect();
        let freq = y.iter().sum::<f64>() / n as f64;
        assert!(log_loss(&p, &y) < log_loss(&vec![freq; n], &y) - 0.05);
    }

    #[test]
    fn woodbury_and_dense_newton_agree_when_d_exceeds_n() {
        let mut rng = rng_from_seed(11);
        let (n, d, lambda) = (30, 80, 0.02);
        let x = uniform_features(&mut rng, n, d);
        let y: Vec<f64> = (0..n)
            .map(|i| if x[i * d] + 0.3 > 0.0 { 1.0 } else { 0.0 })
            .collect();
        let mut a = vec![0.0; d + 1];
        let mut b = vec![0.0; d + 1];
        let fa = logistic_newton_with(&x, &y, d, lambda, &mut a, false);
        let fb = logistic_newton_with(&x, &y, d, lambda, &mut b, true);
        assert!((fa - fb).abs() < 1e-10, "{fa} vs {fb}");
        for (u, v) in a.iter().zip(&b) {
            assert!((u - v).abs() < 1e-6, "{u} vs {v}");
        }
    }

    #[test]
    fn metrics_match_hand_computations() {
        assert!((mse(&[1.0, 2.0], &[0.0, 4.0]) - 2.5).abs() < 1e-15);
        let ll = log_loss(&[0.8, 0.4], &[1.0, 0.0]);
        assert!((ll - (-(0.8f64).ln() - (0.6f64).ln()) / 2.0).abs() < 1e-15);
        assert!(log_loss(&[0.0], &[1.0]).is_finite());
        // perfect ranking, reversed ranking, all tied
        assert_eq!(auc(&[0.1, 0.2, 0.8, 0.9], &[0.0, 0.0, 1.0, 1.0]), 1.0);
        assert_eq!(auc(&[0.9, 0.8, 0.2, 0.1], &[0.0, 0.0, 1.0, 1.0]), 0.0);
        assert_eq!(auc(&[0.5; 4], &[0.0, 1.0, 0.0, 1.0]), 0.5);
        // scores 0.1(0) 0.4(1) 0.35(0) 0.8(1): pairs (pos > neg): 0.4>0.1, 0.4>0.35, 0.8>both = 4/4
        assert_eq!(auc(&[0.1, 0.4, 0.35, 0.8], &[0.0, 1.0, 0.0, 1.0]), 1.0);
        // one discordant pair of four
        assert_eq!(auc(&[0.1, 0.3, 0.35, 0.8], &[0.0, 1.0, 0.0, 1.0]), 0.75);
        assert!(auc(&[0.1, 0.2], &[1.0, 1.0]).is_nan());
    }

    #[test]
    fn standardised_fit_maps_back_to_raw_units() {
        let st = Standardizer::fit(&[1.0, 5.0, 3.0, 5.0], 2, 2);
        assert_eq!(st.mean, vec![2.0, 5.0]);
        assert_eq!(st.sd, vec![1.0, 0.0]);
        let a = Affine::from_standardised(&st, &[2.0, 7.0], 1.0);
        // 1 + 2·(x0 − 2)/1, the constant column dropped
        assert_eq!(a.w, vec![2.0, 0.0]);
        assert_eq!(a.b, -3.0);
    }
}
