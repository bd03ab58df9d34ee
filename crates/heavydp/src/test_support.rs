//! Shared fixtures for the tests of this crate: the unit tests (`crate::test_support`)
//! and the integration tests under `tests/` (`heavydp::test_support`) use the same
//! generators and fit helpers instead of copying their set-up.
//!
//! Hidden from the documentation and not part of the stable API: the helpers panic on
//! errors, which is what a test wants and a caller does not.

use crate::algorithms::{FitError, FitReport, NoObserver, PrivateAlgorithm, Problem};
use crate::constraints::{ConstraintSet, SparseBall};
use crate::data::scenarios::simulate;
use crate::data::Dataset;
use crate::loss::LossKind;
use crate::noise::{rng_from_seed, HeavyRng};
use crate::privacy::Budget;
use rand::Rng;
use std::collections::BTreeMap;

/// The Catoni–Giulini robust gradient RG(w, rows) of `loss` on row-major `x` (n × d)
/// and `y`, into a fresh vector with fresh buffers.
pub fn robust_gradient(
    est: &crate::estimators::catoni::CatoniGiulini,
    loss: &LossKind,
    (x, y, d): (&[f64], &[f64], usize),
    rows: &[usize],
    w: &[f64],
) -> Vec<f64> {
    let mut g = vec![0.0; d];
    let mut ws = crate::estimators::catoni::RobustWorkspace::new();
    est.gradient_with(loss, x, y, d, rows, w, &mut g, &mut ws);
    g
}

/// Bounded synthetic regression: x ~ U[-1, 1]^d, y = <x, w*> + N(0, 0.1²) clipped to
/// [-1, 1], with ‖w*‖₁ = 0.8. Returns the data and w*.
pub fn bounded_data(n: usize, d: usize, seed: u64) -> (Dataset, Vec<f64>) {
    let mut rng = rng_from_seed(seed);
    let mut w_star: Vec<f64> = (0..d)
        .map(|j| if j % 3 == 0 { 1.0 } else { -0.5 })
        .collect();
    let l1: f64 = w_star.iter().map(|v| v.abs()).sum();
    w_star.iter_mut().for_each(|v| *v *= 0.8 / l1);
    let x: Vec<f64> = (0..n * d).map(|_| rng.random_range(-1.0..1.0)).collect();
    let y: Vec<f64> = (0..n)
        .map(|i| {
            (crate::linalg::dot(&x[i * d..(i + 1) * d], &w_star)
                + crate::noise::gaussian(0.1, &mut rng))
            .clamp(-1.0, 1.0)
        })
        .collect();
    (Dataset::from_rows(x, y, d).unwrap(), w_star)
}

/// Bounded logistic data: x ~ U[-1, 1]^d, P(y = +1) = sigmoid(<x, w>) with
/// w = (1.5, −1, 1.5, …), labels ±1.
pub fn logistic_data(n: usize, d: usize, seed: u64) -> Dataset {
    let mut rng = rng_from_seed(seed);
    let w: Vec<f64> = (0..d)
        .map(|j| if j % 2 == 0 { 1.5 } else { -1.0 })
        .collect();
    let x: Vec<f64> = (0..n * d).map(|_| rng.random_range(-1.0..1.0)).collect();
    let y: Vec<f64> = (0..n)
        .map(|i| {
            let p = crate::loss::sigmoid(crate::linalg::dot(&x[i * d..(i + 1) * d], &w));
            if rng.random::<f64>() < p {
                1.0
            } else {
                -1.0
            }
        })
        .collect();
    Dataset::from_rows(x, y, d).unwrap()
}

/// The `hu-linear-lognormal` scenario (Hu et al.): the data and w*.
pub fn hu_lognormal(n: usize, d: usize, seed: u64) -> (Dataset, Vec<f64>) {
    let mut rng = rng_from_seed(seed);
    let (data, truth) = simulate(
        "hu-linear-lognormal",
        n,
        d,
        None,
        &BTreeMap::new(),
        &mut rng,
    )
    .unwrap();
    (data, truth.w_star)
}

/// The data of the robust-gradient timings (`crates/heavydp-bench/benches/robust_gradient.rs`,
/// `examples/bench_peers.rs`): n × d row-major features ±exp(0.8 Z) with a random sign,
/// w*_j = 1/(j + 1) and y = ⟨x, w*⟩ + N(0, 1). Returns (x, y).
pub fn signed_lognormal_regression(n: usize, d: usize, seed: u64) -> (Vec<f64>, Vec<f64>) {
    use crate::noise::gaussian;
    let mut rng = rng_from_seed(seed);
    let x: Vec<f64> = (0..n * d)
        .map(|_| {
            let v = (0.8 * gaussian(1.0, &mut rng)).exp();
            if gaussian(1.0, &mut rng) < 0.0 {
                -v
            } else {
                v
            }
        })
        .collect();
    let w_star: Vec<f64> = (0..d).map(|j| 1.0 / (j + 1) as f64).collect();
    let y: Vec<f64> = x
        .chunks_exact(d)
        .map(|row| crate::linalg::dot(row, &w_star) + gaussian(1.0, &mut rng))
        .collect();
    (x, y)
}

/// Population excess risk of the squared loss for Lognormal(0, σ² = 0.6) features and
/// independent centred noise: (w − w*)ᵀ E\[xxᵀ\] (w − w*).
pub fn lognormal_excess(w: &[f64], w_star: &[f64]) -> f64 {
    let mu = 0.3f64.exp();
    let var = (0.6f64.exp() - 1.0) * 0.6f64.exp();
    let diff: Vec<f64> = w.iter().zip(w_star).map(|(a, b)| a - b).collect();
    let s: f64 = diff.iter().sum();
    var * crate::linalg::dot(&diff, &diff) + mu * mu * s * s
}

/// Σ_i min{1, R/‖x_i‖₂}·x_i over the rows of the row-major n×d `x`, written out row by
/// row: the reference for the clipped sums and means.
pub fn hand_clipped_sum(x: &[f64], d: usize, radius: f64) -> Vec<f64> {
    let mut hand = vec![0.0; d];
    for row in x.chunks(d) {
        let nrm = row.iter().map(|v| v * v).sum::<f64>().sqrt();
        let s = (radius / nrm).min(1.0);
        for (h, v) in hand.iter_mut().zip(row) {
            *h += s * v;
        }
    }
    hand
}

/// The one-line way for a test to state a problem (a struct literal takes five).
impl<'a> Problem<'a> {
    #[doc(hidden)]
    pub fn new(data: &'a Dataset, loss: LossKind, domain: &'a dyn ConstraintSet) -> Self {
        Problem { data, loss, domain }
    }
}

/// Generated data (with the w* it was drawn from) and the constraint set a test fits it
/// over: owns both, which a [`Problem`] only borrows; `problem` lends them.
pub struct Setup<C> {
    pub data: Dataset,
    pub w_star: Vec<f64>,
    pub domain: C,
}

impl<C: ConstraintSet> Setup<C> {
    /// `(data, w*)` as the generators return them, over `domain`.
    pub fn new((data, w_star): (Dataset, Vec<f64>), domain: C) -> Self {
        Setup {
            data,
            w_star,
            domain,
        }
    }

    /// The problem of fitting `loss` on the data over the domain.
    pub fn problem(&self, loss: LossKind) -> Problem<'_> {
        Problem::new(&self.data, loss, &self.domain)
    }
}

/// The s-sparse ball {‖w‖₀ ≤ s, ‖w‖₂ ≤ radius} in R^d, in one line.
pub fn sparse_ball(d: usize, s: usize, radius: f64) -> SparseBall {
    SparseBall { d, s, radius }
}

/// Fitting with a seeded generator and no observer: what nearly every test does.
pub trait FitSeeded {
    /// `fit` with `rng_from_seed(seed)` and `NoObserver`, the error kept.
    fn try_fit_seeded(&self, p: &Problem, budget: Budget, seed: u64)
        -> Result<FitReport, FitError>;
    /// `fit` with `rng_from_seed(seed)` and `NoObserver`; panics with the error.
    #[track_caller]
    fn fit_seeded(&self, p: &Problem, budget: Budget, seed: u64) -> FitReport {
        self.try_fit_seeded(p, budget, seed).unwrap()
    }
}

impl<A: PrivateAlgorithm + ?Sized> FitSeeded for A {
    fn try_fit_seeded(
        &self,
        p: &Problem,
        budget: Budget,
        seed: u64,
    ) -> Result<FitReport, FitError> {
        self.fit(p, budget, &mut rng_from_seed(seed), &mut NoObserver)
    }
}

/// `k` draws of `sample` from a generator seeded with `seed`: the evidence of the
/// sampler tests (distribution and scale checks).
pub fn draws<T>(seed: u64, k: usize, mut sample: impl FnMut(&mut HeavyRng) -> T) -> Vec<T> {
    let mut rng = rng_from_seed(seed);
    (0..k).map(|_| sample(&mut rng)).collect()
}

/// Runs `f` on a fresh pool of `threads` worker threads: how the tests check that a
/// result does not depend on the thread count.
pub fn on_threads<R: Send>(threads: usize, f: impl FnOnce() -> R + Send) -> R {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(f)
}

/// The bit patterns of `v`: for asserting that two runs agree to the last bit.
pub fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// The group means of Zhao et al.'s iterative updating, written out for one column:
/// the rows in the Fisher–Yates order of `rng_from_seed(seed)`, cut into k groups of
/// m = ⌊n/k⌋, each value clipped to [−radius, radius], each group averaged.
pub fn hand_group_means(x: &[f64], k: usize, radius: f64, seed: u64) -> Vec<f64> {
    let n = x.len();
    let mut rng = rng_from_seed(seed);
    let mut order: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        let j = rng.random_range(0..=i);
        order.swap(i, j);
    }
    let m = n / k;
    (0..k)
        .map(|g| {
            order[g * m..(g + 1) * m]
                .iter()
                .map(|&i| x[i].clamp(-radius, radius))
                .sum::<f64>()
                / m as f64
        })
        .collect()
}

/// The r-th largest of {q_i − c} and of {c − q_i}, whichever is larger, with the sign of
/// the step it asks for (+1 up, −1 down): one step of the updating rule, by sorting.
pub fn hand_rank_gap(q: &[f64], r: usize, c: f64) -> (f64, f64) {
    let mut up: Vec<f64> = q.iter().map(|v| v - c).collect();
    up.sort_by(|a, b| b.partial_cmp(a).unwrap());
    let mut down: Vec<f64> = q.iter().map(|v| c - v).collect();
    down.sort_by(|a, b| b.partial_cmp(a).unwrap());
    if up[r - 1] > down[r - 1] {
        (up[r - 1], 1.0)
    } else {
        (down[r - 1], -1.0)
    }
}

/// max_j |a_j − b_j|.
pub fn max_abs_diff(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

/// Σ_j (a_j − b_j)².
pub fn squared_error(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x - y).powi(2)).sum()
}

/// The magic, version 1.0 and the header `dict` padded with spaces and a newline to a
/// multiple of 64 bytes: the start of every .npy file.
pub fn npy_header(dict: &str) -> Vec<u8> {
    let mut dict = dict.to_string();
    while (11 + dict.len()) % 64 != 0 {
        dict.push(' ');
    }
    dict.push('\n');
    let mut b = b"\x93NUMPY\x01\x00".to_vec();
    b.extend((dict.len() as u16).to_le_bytes());
    b.extend(dict.as_bytes());
    b
}

/// A parameter map from (key, value) pairs (the tests' short name).
pub use crate::params::param_map as params;

/// The error `build` (an algorithm's `from_params`) gives for the parameters `kv`;
/// panics when it accepts them.
pub fn refusal<T: std::fmt::Debug>(
    build: impl Fn(&crate::algorithms::ParamMap) -> Result<T, FitError>,
    kv: &[(&str, &str)],
) -> FitError {
    match build(&params(kv)) {
        Ok(t) => panic!("{kv:?} accepted: {t:?}"),
        Err(e) => e,
    }
}

/// A read-only feature loan (as the Python package lends a NumPy array it must not
/// change): writing it panics.
pub struct ReadOnlyLoan(pub Vec<f64>);

impl crate::data::FeatureBuffer for ReadOnlyLoan {
    fn as_slice(&self) -> &[f64] {
        &self.0
    }
    fn as_mut_slice(&mut self) -> &mut [f64] {
        panic!("a read-only loan was written")
    }
    fn writable(&self) -> bool {
        false
    }
}

/// A float64 column of the format fixtures: its name and values (`None` a missing value).
#[cfg(feature = "columnar")]
pub type Column<'a> = (&'a str, Vec<Option<f64>>);

/// A Parquet file (in memory) of float64 columns (a column with a `None` is OPTIONAL),
/// and, when `text` names one, a string column after them.
#[cfg(feature = "columnar")]
pub fn parquet_bytes(cols: &[Column<'_>], text: Option<&str>) -> Vec<u8> {
    parquet_bytes_grouped(cols, text, usize::MAX)
}

/// [`parquet_bytes`] written in row groups of at most `group` rows (≥ 1), so that a
/// reader crosses row groups.
#[cfg(feature = "columnar")]
pub fn parquet_bytes_grouped(cols: &[Column<'_>], text: Option<&str>, group: usize) -> Vec<u8> {
    use parquet::basic::{LogicalType, Repetition, Type as Physical};
    use parquet::data_type::{ByteArray, ByteArrayType, DoubleType};
    use parquet::file::properties::WriterProperties;
    use parquet::file::writer::SerializedFileWriter;
    use parquet::schema::types::Type;
    use std::sync::Arc;
    let mut fields: Vec<_> = cols
        .iter()
        .map(|(nm, v)| {
            let rep = if v.iter().any(Option::is_none) {
                Repetition::OPTIONAL
            } else {
                Repetition::REQUIRED
            };
            Arc::new(
                Type::primitive_type_builder(nm, Physical::DOUBLE)
                    .with_repetition(rep)
                    .build()
                    .unwrap(),
            )
        })
        .collect();
    if let Some(t) = text {
        fields.push(Arc::new(
            Type::primitive_type_builder(t, Physical::BYTE_ARRAY)
                .with_logical_type(Some(LogicalType::String))
                .with_repetition(Repetition::REQUIRED)
                .build()
                .unwrap(),
        ));
    }
    let schema = Arc::new(
        Type::group_type_builder("schema")
            .with_fields(fields)
            .build()
            .unwrap(),
    );
    let mut buf = Vec::new();
    let mut w = SerializedFileWriter::new(
        &mut buf,
        schema,
        Arc::new(WriterProperties::builder().build()),
    )
    .unwrap();
    let n = cols.first().map_or(0, |c| c.1.len());
    let mut start = 0;
    while start < n {
        let end = n.min(start.saturating_add(group.max(1)));
        let mut rg = w.next_row_group().unwrap();
        for (_, v) in cols {
            let optional = v.iter().any(Option::is_none);
            let v = &v[start..end];
            let vals: Vec<f64> = v.iter().flatten().copied().collect();
            let def: Vec<i16> = v.iter().map(|c| i16::from(c.is_some())).collect();
            let mut c = rg.next_column().unwrap().unwrap();
            c.typed::<DoubleType>()
                .write_batch(&vals, optional.then_some(&def[..]), None)
                .unwrap();
            c.close().unwrap();
        }
        if text.is_some() {
            let vals: Vec<ByteArray> = (start..end)
                .map(|_| ByteArray::from("12345.678x"))
                .collect();
            let mut c = rg.next_column().unwrap().unwrap();
            c.typed::<ByteArrayType>()
                .write_batch(&vals, None, None)
                .unwrap();
            c.close().unwrap();
        }
        rg.close().unwrap();
        start = end;
    }
    w.close().unwrap();
    buf
}

/// An Arrow IPC file (in memory) of float64 columns (nullable when a value is `None`),
/// and, when `text` names one, a string column after them.
#[cfg(feature = "columnar")]
pub fn arrow_bytes(cols: &[Column<'_>], text: Option<&str>) -> Vec<u8> {
    use arrow_array::{ArrayRef, Float64Array, RecordBatch, StringArray};
    use arrow_schema::{DataType, Field, Schema};
    use std::sync::Arc;
    let n = cols.first().map_or(0, |c| c.1.len());
    let mut fields: Vec<Field> = cols
        .iter()
        .map(|(nm, v)| Field::new(*nm, DataType::Float64, v.iter().any(Option::is_none)))
        .collect();
    let mut arrays: Vec<ArrayRef> = cols
        .iter()
        .map(|(_, v)| Arc::new(Float64Array::from(v.clone())) as ArrayRef)
        .collect();
    if let Some(t) = text {
        fields.push(Field::new(t, DataType::Utf8, false));
        arrays.push(Arc::new(StringArray::from(vec!["12345.678x"; n])));
    }
    let schema = Arc::new(Schema::new(fields));
    let mut buf = Vec::new();
    let mut w = arrow_ipc::writer::FileWriter::try_new(&mut buf, &schema).unwrap();
    if n > 0 {
        w.write(&RecordBatch::try_new(schema.clone(), arrays).unwrap())
            .unwrap();
    }
    w.finish().unwrap();
    drop(w);
    buf
}
