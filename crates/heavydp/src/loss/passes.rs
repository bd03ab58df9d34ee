//! The full-gradient / risk passes of a loss over a row-major design matrix.
//!
//! The passes read the matrix once per call, in parallel over fixed row blocks (rayon,
//! [`block_rows`]), each block writing its own partial sum; partials are then added in
//! block order. The block size depends only on `d`, so results are bit-identical for
//! any number of threads and on every machine.

use super::Loss;
use crate::linalg::{axpy, block_rows, dot};
use crate::linalg::{RawRows, Rows};
use rayon::prelude::*;

/// Reusable buffers for the gradient pass (one partial gradient per row block), so
/// iterations allocate nothing.
#[derive(Debug, Default, Clone)]
pub struct GradientWorkspace {
    partials: Vec<f64>,
    partial_loss: Vec<f64>,
}

impl GradientWorkspace {
    pub fn new() -> Self {
        Self::default()
    }
}

/// Mean gradient (1/m) Σ f'(⟨x_i, w⟩, y_i) x_i over the rows of `x` (row-major, `d`
/// columns) and `y`, written into `grad`; returns the mean loss (1/m) Σ f(⟨x_i, w⟩, y_i).
/// An empty row set gives a zero gradient and zero loss.
pub fn mean_gradient<L: Loss + ?Sized>(
    loss: &L,
    x: &[f64],
    y: &[f64],
    d: usize,
    w: &[f64],
    grad: &mut [f64],
    ws: &mut GradientWorkspace,
) -> f64 {
    debug_assert_eq!(x.len(), y.len() * d);
    mean_gradient_of(loss, &RawRows { x, d }, y, w, grad, ws)
}

/// [`mean_gradient`] over any [`Rows`] (a dataset is read through its lazy
/// standardisation when it has one: the same values, the same sums).
pub fn mean_gradient_of<L: Loss + ?Sized, R: Rows + ?Sized>(
    loss: &L,
    x: &R,
    y: &[f64],
    w: &[f64],
    grad: &mut [f64],
    ws: &mut GradientWorkspace,
) -> f64 {
    let (m, d) = (y.len(), x.width());
    debug_assert_eq!(w.len(), d);
    grad.iter_mut().for_each(|g| *g = 0.0);
    if m == 0 {
        return 0.0;
    }
    let br = block_rows(d);
    let nb = m.div_ceil(br);
    ws.partials.resize(nb * d, 0.0);
    ws.partial_loss.resize(nb, 0.0);
    ws.partials
        .par_chunks_mut(d)
        .zip(ws.partial_loss.par_iter_mut())
        .zip(y.par_chunks(br))
        .enumerate()
        .for_each_init(
            || vec![0.0; d],
            |scratch, (b, ((acc, lacc), yb))| {
                acc.iter_mut().for_each(|a| *a = 0.0);
                let mut l = 0.0;
                for (k, &yi) in yb.iter().enumerate() {
                    let row = x.get(b * br + k, scratch);
                    let a = dot(row, w);
                    l += loss.value(a, yi);
                    let r = loss.derivative(a, yi);
                    if r != 0.0 {
                        axpy(r, row, acc);
                    }
                }
                *lacc = l;
            },
        );
    let mut total = 0.0;
    for (p, l) in ws.partials.chunks_exact(d).zip(&ws.partial_loss) {
        for (g, pi) in grad.iter_mut().zip(p) {
            *g += pi;
        }
        total += l;
    }
    let inv = 1.0 / m as f64;
    grad.iter_mut().for_each(|g| *g *= inv);
    total * inv
}

/// Mean loss (1/m) Σ f(⟨x_i, w⟩, y_i) (deterministic block order).
pub fn mean_loss<L: Loss + ?Sized>(loss: &L, x: &[f64], y: &[f64], d: usize, w: &[f64]) -> f64 {
    mean_loss_of(loss, &RawRows { x, d }, y, w)
}

/// [`mean_loss`] over any [`Rows`].
pub fn mean_loss_of<L: Loss + ?Sized, R: Rows + ?Sized>(
    loss: &L,
    x: &R,
    y: &[f64],
    w: &[f64],
) -> f64 {
    let (m, d) = (y.len(), x.width());
    if m == 0 {
        return 0.0;
    }
    let br = block_rows(d);
    let partial: Vec<f64> = y
        .par_chunks(br)
        .enumerate()
        .map_init(
            || vec![0.0; d],
            |scratch, (b, yb)| {
                yb.iter()
                    .enumerate()
                    .map(|(k, &yi)| loss.value(dot(x.get(b * br + k, scratch), w), yi))
                    .sum::<f64>()
            },
        )
        .collect();
    partial.iter().sum::<f64>() / m as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loss::LossKind;

    #[test]
    fn gradient_pass_matches_naive_and_is_thread_count_independent() {
        let (n, d) = (3000, 7);
        let x: Vec<f64> = (0..n * d)
            .map(|i| ((i * 7919) % 1000) as f64 / 500.0 - 1.0)
            .collect();
        let y: Vec<f64> = (0..n)
            .map(|i| if i % 3 == 0 { 1.0 } else { -1.0 })
            .collect();
        let w: Vec<f64> = (0..d).map(|j| 0.1 * j as f64 - 0.3).collect();
        for loss in [LossKind::Squared, LossKind::Logistic] {
            let mut g = vec![0.0; d];
            let mut ws = GradientWorkspace::new();
            let l = mean_gradient(&loss, &x, &y, d, &w, &mut g, &mut ws);
            let mut gn = vec![0.0; d];
            let mut ln = 0.0;
            for i in 0..n {
                let row = &x[i * d..(i + 1) * d];
                let a: f64 = row.iter().zip(&w).map(|(p, q)| p * q).sum();
                ln += loss.value(a, y[i]);
                for j in 0..d {
                    gn[j] += loss.derivative(a, y[i]) * row[j];
                }
            }
            for j in 0..d {
                assert!((g[j] - gn[j] / n as f64).abs() < 1e-12);
            }
            assert!((l - ln / n as f64).abs() < 1e-12);
            assert!((mean_loss(&loss, &x, &y, d, &w) - l).abs() < 1e-12);
            // Same result on a one-thread pool.
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(1)
                .build()
                .unwrap();
            let mut g1 = vec![0.0; d];
            let l1 = pool.install(|| {
                mean_gradient(&loss, &x, &y, d, &w, &mut g1, &mut GradientWorkspace::new())
            });
            assert_eq!(g, g1);
            assert_eq!(l, l1);
        }
    }
}
