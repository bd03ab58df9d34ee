//! `heavydp._core`: the thin PyO3 layer under the Python package `heavydp`
//! (`python/heavydp`). Every algorithm, mechanism and accountant is the Rust core's:
//! this module converts arguments, lends NumPy memory to the core, releases the GIL
//! during fits, and maps errors to Python exceptions with the CLI's messages.
//!
//! Memory: a C-contiguous float64 feature matrix is never copied by `predict` and
//! `private_mean` (read in place). `fit` lends it read-only: the algorithms that read
//! through the lazy standardisation (`PrivateAlgorithm::reads_mapped_features`, among
//! them `clipped-gd`, the `auto` choice) fit without a copy; the others get one
//! standardised copy. With `in_place=True` (`copy_X=False`) the caller's writable array
//! is standardised in place instead (overwritten, never copied).

use heavydp::algorithms::row_sums::{self, ExternalRowSums, Partials, SumRequest};
use heavydp::algorithms::{Observer, ParamMap};
use heavydp::data::{self, Dataset, FeatureBuffer};
use heavydp::estimators::private_mean as pm;
use heavydp::model::ModelFile;
use heavydp::pipeline::{self, FitOptions};
use heavydp::preprocess::{InterceptMode, ScaleMode};
use heavydp::privacy::{self, Accountant, Budget, Cost, PrivacyLedger, PrivacyModel};
use numpy::{
    PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods,
};
use pyo3::exceptions::{PyKeyboardInterrupt, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

fn value_error(e: impl ToString) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// A NumPy array's memory lent to a [`Dataset`] for the duration of one call.
///
/// Safety: built only from an array borrowed through rust-numpy's borrow tracking
/// (`readwrite()` for `writable`, `readonly()` otherwise) that stays borrowed, on the
/// calling thread, until the dataset holding this buffer is dropped (the calls below
/// drop the dataset before returning). A read-only buffer is never written:
/// `as_mut_slice` refuses it, and the dataset asks `writable()` before any in-place
/// step (a fit on one reads the standardised values through a lazy map, or copies).
struct NumpyBuffer {
    ptr: *mut f64,
    len: usize,
    writable: bool,
}

// SAFETY: the pointer is used by one dataset at a time; see the type's documentation.
unsafe impl Send for NumpyBuffer {}
// SAFETY: shared access only reads (rayon workers read the features concurrently).
unsafe impl Sync for NumpyBuffer {}

impl FeatureBuffer for NumpyBuffer {
    fn as_slice(&self) -> &[f64] {
        // SAFETY: ptr/len describe a live, contiguous, borrowed float64 buffer.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
    fn as_mut_slice(&mut self) -> &mut [f64] {
        assert!(
            self.writable,
            "heavydp internal error: a read-only array would be written"
        );
        // SAFETY: as above, and the borrow is exclusive (readwrite).
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }
    fn writable(&self) -> bool {
        self.writable
    }
}

/// The (n, d) of a 2-D feature array, checked to be C-contiguous.
fn shape2(x: &Bound<'_, PyArray2<f64>>) -> PyResult<(usize, usize)> {
    if !x.is_c_contiguous() {
        return Err(PyTypeError::new_err(
            "X must be a C-contiguous float64 array (heavydp.as_features converts)",
        ));
    }
    let s = x.shape();
    Ok((s[0], s[1]))
}

/// The payload of the unwind that ends an interrupted fit.
struct Interrupted;

/// Observer of a fit running on a helper thread: unwinds (without the panic hook's
/// message) at the next iteration once the calling thread saw Ctrl-C; with `verbose`,
/// reports the fit's progress on stderr ([`Verbose`]).
struct InterruptObserver<'a> {
    stop: &'a AtomicBool,
    verbose: Option<Verbose>,
}

/// The progress lines of a `verbose=True` fit, on stderr: the time to the algorithm's
/// start (the plan, the private scaling), its planned steps, the step reached with the
/// time left (at most one line per [`Verbose::EVERY`], and at the last step), and the
/// total time. Only the step counts (a function of n, d and the options) and clock
/// times: nothing computed from the data.
struct Verbose {
    start: Instant,
    /// (algorithm start, planned steps).
    steps: Option<(Instant, usize)>,
    last: Instant,
}

impl Verbose {
    const EVERY: Duration = Duration::from_secs(2);

    fn new() -> Self {
        let now = Instant::now();
        Verbose {
            start: now,
            steps: None,
            last: now,
        }
    }
}

impl Observer for InterruptObserver<'_> {
    fn on_start(&mut self, total: usize) {
        if let Some(v) = &mut self.verbose {
            let now = Instant::now();
            eprintln!(
                "heavydp: preprocessing done after {:.1} s; the algorithm runs {total} steps",
                (now - v.start).as_secs_f64()
            );
            v.steps = Some((now, total));
            v.last = now;
        }
    }
    fn on_iteration(&mut self, iteration: usize) {
        if self.stop.load(Ordering::Relaxed) {
            std::panic::resume_unwind(Box::new(Interrupted));
        }
        if let Some(v) = &mut self.verbose {
            if let Some((begun, total)) = v.steps {
                let now = Instant::now();
                if iteration > 0 && (now - v.last >= Verbose::EVERY || iteration == total) {
                    let spent = (now - begun).as_secs_f64();
                    let left = spent * total.saturating_sub(iteration) as f64 / iteration as f64;
                    eprintln!(
                        "heavydp: step {iteration}/{total} after {spent:.1} s, about {left:.0} s left"
                    );
                    v.last = now;
                }
            }
        }
    }
    fn on_finish(&mut self) {
        if let Some(v) = &self.verbose {
            eprintln!(
                "heavydp: algorithm done after {:.1} s (the intercept follows)",
                v.start.elapsed().as_secs_f64()
            );
        }
    }
}

/// Runs `job` on a helper thread (in a `threads`-thread rayon pool, or the global pool
/// the CLI uses when `None`) with the GIL released; the calling thread waits and checks
/// for Python signals every 50 ms. On Ctrl-C the fit stops at its next iteration and
/// `KeyboardInterrupt` is raised.
fn run_interruptible<T: Send>(
    py: Python<'_>,
    threads: Option<usize>,
    verbose: bool,
    job: impl FnOnce(&mut dyn Observer) -> Result<T, String> + Send,
) -> PyResult<T> {
    let pool = match threads {
        None => None,
        Some(0) => return Err(PyValueError::new_err("n_jobs must be at least 1 (or None)")),
        Some(k) => Some(
            rayon::ThreadPoolBuilder::new()
                .num_threads(k)
                .build()
                .map_err(|e| PyRuntimeError::new_err(e.to_string()))?,
        ),
    };
    let stop = AtomicBool::new(false);
    let outcome = py.detach(|| {
        std::thread::scope(|s| {
            let (tx, rx) = mpsc::channel();
            let stop = &stop;
            let handle = std::thread::Builder::new()
                .name("heavydp-fit".into())
                .stack_size(16 << 20)
                .spawn_scoped(s, move || {
                    let mut obs = InterruptObserver {
                        stop,
                        verbose: verbose.then(Verbose::new),
                    };
                    let r = match &pool {
                        Some(p) => p.install(|| job(&mut obs)),
                        None => job(&mut obs),
                    };
                    let _ = tx.send(());
                    r
                })
                .map_err(|e| e.to_string());
            let handle = match handle {
                Ok(h) => h,
                Err(e) => return Err(Err(e)),
            };
            let mut signal: Option<PyErr> = None;
            loop {
                match rx.recv_timeout(Duration::from_millis(50)) {
                    Ok(()) | Err(mpsc::RecvTimeoutError::Disconnected) => break,
                    Err(mpsc::RecvTimeoutError::Timeout) => {
                        if signal.is_none() {
                            if let Err(e) = Python::attach(|py| py.check_signals()) {
                                signal = Some(e);
                                stop.store(true, Ordering::Relaxed);
                            }
                        }
                    }
                }
            }
            match handle.join() {
                Ok(r) => match signal {
                    // interrupted after the last iteration: the fit completed, but the
                    // user asked to stop; honour the signal
                    Some(e) => Err(Ok(e)),
                    None => Ok(r),
                },
                Err(payload) => {
                    if payload.is::<Interrupted>() {
                        Err(Ok(signal.unwrap_or_else(|| {
                            PyKeyboardInterrupt::new_err("fit interrupted")
                        })))
                    } else {
                        let msg = payload
                            .downcast_ref::<String>()
                            .cloned()
                            .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                            .unwrap_or_else(|| "panic".into());
                        Err(Err(format!("heavydp internal error: {msg}")))
                    }
                }
            }
        })
    });
    match outcome {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(msg)) => Err(value_error(msg)),
        Err(Ok(pyerr)) => Err(pyerr),
        Err(Err(msg)) => Err(PyRuntimeError::new_err(msg)),
    }
}

/// A privacy budget shared across fits and means: a basic-composition
/// [`PrivacyLedger`] (ε's and δ's add, rounded up). Each fit charges its whole (ε, δ)
/// before it reads the data; a charge that would overspend is refused and the fit does
/// not run.
#[pyclass(module = "heavydp._core", name = "Budget")]
struct PyBudget {
    ledger: PrivacyLedger,
}

#[pymethods]
impl PyBudget {
    #[new]
    #[pyo3(signature = (epsilon, delta = 0.0))]
    fn new(epsilon: f64, delta: f64) -> PyResult<Self> {
        let b = Budget::new(epsilon, delta).map_err(value_error)?;
        Ok(PyBudget {
            ledger: PrivacyLedger::new(b, Accountant::Basic),
        })
    }

    /// Charges (ε, δ) for `release`; raises ValueError (nothing charged) on overspend.
    fn charge(&mut self, release: &str, epsilon: f64, delta: f64) -> PyResult<()> {
        charge(&mut self.ledger, release, epsilon, delta)
    }

    /// (ε, δ) spent so far, rounded up.
    #[getter]
    fn spent(&self) -> (f64, f64) {
        self.ledger.spent()
    }

    /// The total (ε, δ).
    #[getter]
    fn total(&self) -> (f64, f64) {
        let b = self.ledger.budget();
        (b.epsilon, b.delta)
    }

    /// (ε, δ) that can still be charged (rounded down).
    #[getter]
    fn remaining(&self) -> (f64, f64) {
        let b = self.ledger.budget();
        let (e, d) = self.ledger.spent();
        (sub_down(b.epsilon, e), sub_down(b.delta, d))
    }

    /// The ledger as JSON (same shape as a model file's `privacy` object).
    fn summary_json(&self) -> PyResult<String> {
        serde_json::to_string(&self.ledger.summary(PrivacyModel::Approx))
            .map_err(|e| PyRuntimeError::new_err(e.to_string()))
    }
}

/// Largest r with add_up(b, r) ≤ a (what is left of a after b, rounded down).
fn sub_down(a: f64, b: f64) -> f64 {
    if a.is_infinite() {
        return a;
    }
    let mut r = (a - b).max(0.0);
    while r > 0.0 && privacy::add_up(b, r) > a {
        r = r.next_down();
    }
    r
}

/// Charges (ε, δ) to `ledger`: the core ledger refuses a negative, NaN or (under a
/// finite budget) infinite cost, and any overspend, and then changes nothing.
fn charge(ledger: &mut PrivacyLedger, release: &str, epsilon: f64, delta: f64) -> PyResult<()> {
    // δ = 0 exactly is a pure charge; anything else (NaN included) is checked as δ
    let cost = if delta == 0.0 {
        Cost::Pure { epsilon }
    } else {
        Cost::Approx { epsilon, delta }
    };
    ledger.charge(release, cost).map_err(value_error)
}

/// Builds the pipeline's options with the CLI's checks and messages (flag names as in
/// the CLI; the Python layer maps them to its parameter names).
#[allow(clippy::too_many_arguments)]
fn fit_options(
    algorithm: &str,
    epsilon: f64,
    delta: Option<f64>,
    loss: Option<String>,
    domain: Option<String>,
    radius: Option<f64>,
    sparsity: Option<usize>,
    params: BTreeMap<String, String>,
    intercept: &str,
    scale: &str,
    preprocess_share: Option<f64>,
    seed: Option<u64>,
    intervals: Option<f64>,
) -> Result<FitOptions, String> {
    Budget::new(epsilon, delta.unwrap_or(0.0)).map_err(|e| e.to_string())?;
    let intercept = match intercept {
        "private" => InterceptMode::Private,
        "none" => InterceptMode::None,
        other => {
            return Err(format!(
                "--intercept must be 'private' or 'none'; got '{other}'"
            ))
        }
    };
    let opts = FitOptions {
        algorithm: algorithm.to_string(),
        loss,
        domain,
        radius: radius.map(pipeline::RadiusOpt::Value),
        sparsity,
        params: params.into_iter().collect::<ParamMap>(),
        epsilon,
        delta,
        intercept,
        scale: ScaleMode::parse(scale)?,
        preprocess_share,
        seed,
        intervals,
    };
    pipeline::precheck(&opts)?;
    Ok(opts)
}

/// The fit's options as keyword arguments with the CLI's meaning (the dict of
/// `_PrivateBase._options`); a missing key takes the CLI's default.
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
struct OptionArgs {
    algorithm: String,
    epsilon: f64,
    #[pyo3(default)]
    delta: Option<f64>,
    #[pyo3(default)]
    loss: Option<String>,
    #[pyo3(default)]
    domain: Option<String>,
    #[pyo3(default)]
    radius: Option<f64>,
    #[pyo3(default)]
    sparsity: Option<usize>,
    #[pyo3(default)]
    params: BTreeMap<String, String>,
    #[pyo3(default = "private".to_string())]
    intercept: String,
    #[pyo3(default = "private".to_string())]
    scale: String,
    #[pyo3(default)]
    preprocess_share: Option<f64>,
    #[pyo3(default)]
    intervals: Option<f64>,
}

impl OptionArgs {
    /// The options of the keyword arguments `kw`, with the CLI's checks ([`fit_options`]).
    fn parse(
        kw: Option<&Bound<'_, pyo3::types::PyDict>>,
        seed: Option<u64>,
    ) -> PyResult<FitOptions> {
        let kw = kw.ok_or_else(|| PyTypeError::new_err("algorithm and epsilon are required"))?;
        let a: OptionArgs = kw.extract()?;
        fit_options(
            &a.algorithm,
            a.epsilon,
            a.delta,
            a.loss,
            a.domain,
            a.radius,
            a.sparsity,
            a.params,
            &a.intercept,
            &a.scale,
            a.preprocess_share,
            seed,
            a.intervals,
        )
        .map_err(value_error)
    }
}

/// Charges the whole (ε, δ) a fit with `opts` on n × d data may spend to `budget`,
/// before it touches the data: [`pipeline::planned_privacy`], the budget the fit's own
/// ledger then gets (a non-private algorithm: ε = ∞, which only an infinite budget
/// accepts). A budget without δ refuses a fit that may spend δ, saying why.
fn charge_fit(
    budget: Option<&Bound<'_, PyBudget>>,
    opts: &FitOptions,
    n: usize,
    d: usize,
    release: &str,
) -> PyResult<()> {
    let Some(b) = budget else { return Ok(()) };
    let plan = pipeline::planned_privacy(opts, n, d).map_err(value_error)?;
    let total = b.borrow().ledger.budget();
    let (ce, cd) = (plan.budget.epsilon, plan.budget.delta);
    let algorithm = &plan.algorithm;
    if ce.is_infinite() && !total.is_non_private() {
        let why = if plan.model == PrivacyModel::None {
            format!("{algorithm} is not private (privacy model 'none')")
        } else {
            "epsilon = inf is the non-private run".to_string()
        };
        return Err(PyValueError::new_err(format!(
            "privacy budget exceeded: {release}: {why}, which a Budget with a finite epsilon cannot pay for"
        )));
    }
    if cd > 0.0 && total.delta == 0.0 {
        let why = if opts.delta.is_some() {
            "the delta the estimator was given".to_string()
        } else if plan.model == PrivacyModel::Pure {
            format!("{algorithm} is pure, but with delta=None and scale=\"private\" the private scaling uses the default delta = n^-1.1")
        } else {
            format!("{algorithm} is (epsilon, delta)-DP and delta=None means the default n^-1.1")
        };
        return Err(PyValueError::new_err(format!(
            "{release}: this fit may spend delta = {cd:e} ({why}), but the Budget has delta = 0 (pure); pass delta=0 for a pure fit (a pure algorithm, or scale=\"none\"), or use a Budget with a delta"
        )));
    }
    charge(&mut b.borrow_mut().ledger, release, ce, cd)
}

/// Checks the options without data (the CLI's checks before reading a file): keyword
/// arguments `algorithm`, `epsilon`, `delta`, `loss`, `domain`, `radius`, `sparsity`,
/// `params`, `intercept` (default "private"), `scale` (default "private"),
/// `preprocess_share`.
#[pyfunction]
#[pyo3(signature = (**options))]
fn precheck(options: Option<&Bound<'_, pyo3::types::PyDict>>) -> PyResult<()> {
    OptionArgs::parse(options, None).map(|_| ())
}

/// The whole private fit (`heavydp fit`). Returns (model JSON, notes). `x` must be a
/// C-contiguous float64 (n, d) array; it is copied once, or used and overwritten in
/// place when `in_place` (then it must be writable). `seed` gives the CLI's `--seed`
/// stream; `None` seeds from the OS. The options are [`precheck`]'s keyword arguments.
#[pyfunction]
#[pyo3(signature = (x, y, feature_names, target, seed=None, in_place=false, n_jobs=None,
    budget=None, release="fit", verbose=false, **options))]
#[allow(clippy::too_many_arguments)]
fn fit(
    py: Python<'_>,
    x: &Bound<'_, PyArray2<f64>>,
    y: PyReadonlyArray1<'_, f64>,
    feature_names: Vec<String>,
    target: String,
    seed: Option<u64>,
    in_place: bool,
    n_jobs: Option<usize>,
    budget: Option<&Bound<'_, PyBudget>>,
    release: &str,
    verbose: bool,
    options: Option<&Bound<'_, pyo3::types::PyDict>>,
) -> PyResult<(String, Vec<String>)> {
    let opts = OptionArgs::parse(options, seed)?;
    let (n, d) = shape2(x)?;
    let y = y.as_slice().map_err(value_error)?.to_vec();
    if y.len() != n {
        return Err(PyValueError::new_err(format!(
            "X has {n} rows but y has {} values",
            y.len()
        )));
    }
    // Borrow (and keep borrowed until the fit returned) before building the dataset:
    // read-write for `copy_X=False` (standardised in place), read-only otherwise (read
    // through the lazy standardisation; see `PrivateAlgorithm::reads_mapped_features`).
    let mut rw = if in_place {
        Some(x.try_readwrite().map_err(|e| {
            PyValueError::new_err(format!("copy_X=False needs a writable array: {e}"))
        })?)
    } else {
        None
    };
    let ro = if in_place {
        None
    } else {
        Some(x.try_readonly().map_err(value_error)?)
    };
    let buf = match (&mut rw, &ro) {
        (Some(a), _) => {
            let s = a.as_slice_mut().map_err(value_error)?;
            NumpyBuffer {
                ptr: s.as_mut_ptr(),
                len: s.len(),
                writable: true,
            }
        }
        (None, Some(r)) => {
            let s = r.as_slice().map_err(value_error)?;
            NumpyBuffer {
                ptr: s.as_ptr() as *mut f64,
                len: s.len(),
                writable: false,
            }
        }
        (None, None) => unreachable!("one of the two borrows is taken above"),
    };
    let ds =
        Dataset::from_buffer(Box::new(buf), y, d, feature_names, target).map_err(value_error)?;
    charge_fit(budget, &opts, n, d, release)?;
    let out = run_interruptible(py, n_jobs, verbose, move |obs| {
        let mut rng = heavydp::noise::make_rng(seed);
        pipeline::fit(ds, &opts, &mut rng, obs).map_err(String::from)
    })?;
    drop(rw);
    drop(ro);
    let text = serde_json::to_string_pretty(&out.model)
        .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    Ok((text, out.messages))
}

// ------------------------------------------------------------ distributed fits (Spark)

/// The executor kernel of a distributed fit (`heavydp.spark`, `docs/distributed.md`):
/// the partial sum of the request's kernel at iterate `w` over one batch — the feature
/// columns (float64 arrays of one length each, read in place: the Arrow buffers of a
/// Spark batch), the response `y` and the row ids. Returns (partial d-vector, rows
/// selected, fingerprint of the batch's (id, row) pairs: [`row_sums::batch_fingerprint`],
/// never released, only compared between passes). The GIL is released while it runs.
#[pyfunction]
fn batch_sum<'py>(
    py: Python<'py>,
    request_json: &str,
    w: PyReadonlyArray1<'py, f64>,
    columns: Vec<PyReadonlyArray1<'py, f64>>,
    y: PyReadonlyArray1<'py, f64>,
    ids: PyReadonlyArray1<'py, i64>,
) -> PyResult<(Bound<'py, PyArray1<f64>>, u64, u64)> {
    let req: SumRequest = serde_json::from_str(request_json)
        .map_err(|e| value_error(format!("invalid sum request: {e}")))?;
    let w = w.as_slice().map_err(value_error)?;
    let cols = columns
        .iter()
        .map(|c| c.as_slice().map_err(value_error))
        .collect::<PyResult<Vec<&[f64]>>>()?;
    let y = y.as_slice().map_err(value_error)?;
    let ids = ids.as_slice().map_err(value_error)?;
    let (sum, rows, fingerprint) = py
        .detach(|| {
            row_sums::batch_sum(&req, w, &cols, y, ids)
                .map(|(s, r)| (s, r, row_sums::batch_fingerprint(&cols, y, ids)))
        })
        .map_err(value_error)?;
    Ok((PyArray1::from_vec(py, sum), rows, fingerprint))
}

/// A distributed fit (`heavydp.spark.fit`): the whole private fit of [`fit`] on n
/// external rows of d features, whose every data pass (the private scaling's
/// histograms, the algorithm's sums, the intercept's) is one call of
/// `pass_fn(request_json, w)` returning (the batches' partial results concatenated,
/// rows read, the wrapping sum of the batches' fingerprints mod 2^64) in a fixed order (it runs one Spark job; the GIL is taken for the call). Noise,
/// mechanisms, the ledger and the model file are the core's, as in [`fit`].
/// Returns (model JSON, notes). The options are [`precheck`]'s keyword arguments.
#[pyfunction]
#[pyo3(signature = (n, d, feature_names, target, pass_fn, seed=None, budget=None,
    release="fit", verbose=false, **options))]
#[allow(clippy::too_many_arguments)]
fn fit_distributed(
    py: Python<'_>,
    n: usize,
    d: usize,
    feature_names: Vec<String>,
    target: String,
    pass_fn: Py<PyAny>,
    seed: Option<u64>,
    budget: Option<&Bound<'_, PyBudget>>,
    release: &str,
    verbose: bool,
    options: Option<&Bound<'_, pyo3::types::PyDict>>,
) -> PyResult<(String, Vec<String>)> {
    let opts = OptionArgs::parse(options, seed)?;
    let ds = Dataset::remote(n, d, feature_names, target).map_err(value_error)?;
    charge_fit(budget, &opts, n, d, release)?;
    // the first Python exception of a pass (a failed Spark job, Ctrl-C), re-raised as is
    let raised: std::sync::Arc<std::sync::Mutex<Option<PyErr>>> = Default::default();
    let slot = raised.clone();
    let out = run_interruptible(py, None, verbose, move |obs| {
        let pass = move |req: &SumRequest, w: &[f64]| -> Result<Partials, String> {
            Python::attach(|py| {
                let call = || -> PyResult<Partials> {
                    let text = serde_json::to_string(req)
                        .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
                    let res = pass_fn.call1(py, (text, PyArray1::from_slice(py, w)))?;
                    let (parts, rows, fingerprint): (PyReadonlyArray1<'_, f64>, u64, u64) =
                        res.extract(py)?;
                    Ok(Partials {
                        partials: parts.as_slice().map_err(value_error)?.to_vec(),
                        rows,
                        fingerprint: Some(fingerprint),
                    })
                };
                call().map_err(|e| {
                    let msg = e.to_string();
                    slot.lock().expect("unpoisoned").get_or_insert(e);
                    msg
                })
            })
        };
        let mut sums = ExternalRowSums::new(n, d, Box::new(pass));
        let mut rng = heavydp::noise::make_rng(seed);
        pipeline::fit_external(ds, &opts, &mut sums, &mut rng, obs).map_err(String::from)
    });
    let out = match out {
        Ok(o) => o,
        Err(e) => {
            return Err(raised.lock().expect("unpoisoned").take().unwrap_or(e));
        }
    };
    let text = serde_json::to_string_pretty(&out.model)
        .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    Ok((text, out.messages))
}

/// The algorithms a distributed fit supports.
#[pyfunction]
fn distributed_algorithms() -> Vec<&'static str> {
    pipeline::DISTRIBUTED_ALGORITHMS.to_vec()
}

/// The distributed algorithms that read disjoint chunks (a Spark fit needs
/// `chunking=keyed`): the registry's `chunked` descriptors.
#[pyfunction]
fn chunked_algorithms() -> Vec<&'static str> {
    heavydp::algorithms::registry::chunked_names()
}

fn model_from_json(text: &str) -> PyResult<ModelFile> {
    serde_json::from_str(text).map_err(|e| value_error(format!("invalid model: {e}")))
}

/// Predictions of a model (JSON) on `x` (C-contiguous float64, columns in the model's
/// order), read in place: the regression value, or P(y = 1) for the logistic loss.
#[pyfunction]
#[pyo3(signature = (model_json, x, margins=false))]
fn predict<'py>(
    py: Python<'py>,
    model_json: &str,
    x: &Bound<'py, PyArray2<f64>>,
    margins: bool,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let m = model_from_json(model_json)?;
    let (n, d) = shape2(x)?;
    if d != m.d {
        return Err(PyValueError::new_err(format!(
            "X has {d} features, but the model was fitted with {}",
            m.d
        )));
    }
    let ro = x.try_readonly().map_err(value_error)?;
    let s = ro.as_slice().map_err(value_error)?;
    let buf = NumpyBuffer {
        ptr: s.as_ptr() as *mut f64,
        len: s.len(),
        writable: false,
    };
    let ds = Dataset::from_buffer(
        Box::new(buf),
        vec![0.0; n],
        d,
        m.features.clone(),
        m.target.clone(),
    )
    .map_err(value_error)?;
    let out = py.detach(move || {
        if margins {
            m.margins(&ds)
        } else {
            m.predict(&ds)
        }
    });
    drop(ro);
    Ok(PyArray1::from_vec(py, out))
}

/// Reads and checks a model file (the CLI's reader); returns its JSON.
#[pyfunction]
fn read_model(path: &str) -> PyResult<String> {
    let m = ModelFile::read(path).map_err(value_error)?;
    serde_json::to_string_pretty(&m).map_err(|e| PyRuntimeError::new_err(e.to_string()))
}

/// Writes a model (JSON) as the CLI writes it (pretty JSON, atomic rename).
#[pyfunction]
fn write_model(model_json: &str, path: &str) -> PyResult<()> {
    let m = model_from_json(model_json)?;
    let text = serde_json::to_vec_pretty(&m).map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    heavydp::model::write_atomic(path, &text).map_err(PyValueError::new_err)
}

/// A private mean of every column of `x` (read in place). Returns (mean, privacy JSON,
/// hyperparameters JSON, notes).
#[pyfunction]
#[pyo3(signature = (x, estimator, epsilon, delta=0.0, params=BTreeMap::new(), seed=None,
    budget=None, release="private_mean", scale="none", preprocess_share=None, names=Vec::new()))]
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
fn private_mean<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f64>,
    estimator: &str,
    epsilon: f64,
    delta: f64,
    params: BTreeMap<String, String>,
    seed: Option<u64>,
    budget: Option<&Bound<'py, PyBudget>>,
    release: &str,
    scale: &str,
    preprocess_share: Option<f64>,
    names: Vec<String>,
) -> PyResult<(
    Bound<'py, PyArray1<f64>>,
    String,
    String,
    Vec<String>,
    String,
)> {
    let scale = ScaleMode::parse(scale).map_err(value_error)?;
    if !pm::mean_estimator_names().contains(&estimator) {
        return Err(PyValueError::new_err(format!(
            "unknown estimator '{estimator}' (one of {})",
            pm::mean_estimator_names().join(", ")
        )));
    }
    let b = Budget::new(epsilon, delta).map_err(value_error)?;
    let params: ParamMap = params.into_iter().collect();
    let s = x.shape();
    let (n, d) = (s[0], s[1]);
    let xs = x.as_slice().map_err(|_| {
        PyTypeError::new_err(
            "X must be a C-contiguous float64 array (heavydp.as_features converts)",
        )
    })?;
    if let Some(i) = xs.iter().position(|v| !v.is_finite()) {
        return Err(PyValueError::new_err(format!(
            "row {}, column {}: NaN or infinite values are not allowed",
            i / d.max(1) + 1,
            i % d.max(1) + 1
        )));
    }
    if let Some(bud) = budget {
        charge(&mut bud.borrow_mut().ledger, release, epsilon, delta)?;
    }
    let names = if names.len() == d {
        names
    } else {
        (1..=d).map(|j| format!("x{j}")).collect()
    };
    // The features are lent read-only: `describe` reads them (its scaled copy is its own).
    let buf = NumpyBuffer {
        ptr: xs.as_ptr() as *mut f64,
        len: xs.len(),
        writable: false,
    };
    let ds = Dataset::from_buffer(Box::new(buf), vec![0.0; n], d, names, "y".into())
        .map_err(value_error)?;
    let opts = heavydp::describe::DescribeOptions {
        estimator: estimator.to_string(),
        budget: b,
        params,
        scale,
        preprocess_share,
    };
    let out = py
        .detach(move || {
            let mut rng = heavydp::noise::make_rng(seed);
            let out = heavydp::describe::describe(&ds, &opts, &mut rng);
            let scales = out
                .as_ref()
                .ok()
                .and_then(|o| o.scales.as_ref())
                .map(|s| heavydp::describe::scales_json(ds.feature_names(), s));
            out.map(|o| (o, scales))
        })
        .map_err(value_error)?;
    let (mut out, scales) = out;
    if seed.is_some() && epsilon.is_finite() {
        out.report.notes.push(pipeline::SEEDED_NOTE.to_string());
    }
    let privacy = serde_json::to_string(&out.privacy).map_err(value_error)?;
    let hyper = serde_json::to_string(&out.report.hyperparameters).map_err(value_error)?;
    let scales = serde_json::to_string(&scales).map_err(value_error)?;
    Ok((
        PyArray1::from_vec(py, out.report.mean),
        privacy,
        hyper,
        out.report.notes,
        scales,
    ))
}

/// `heavydp algorithms --json`.
#[pyfunction]
fn algorithms_json() -> PyResult<String> {
    serde_json::to_string(&pipeline::algorithms_listing()).map_err(value_error)
}

/// `heavydp mean --list`.
#[pyfunction]
fn mean_estimators_json() -> PyResult<String> {
    serde_json::to_string(&pm::mean_estimator_info()).map_err(value_error)
}

/// `heavydp simulate`: returns (X (n, d), y, w_star, feature names, target, truth JSON).
#[pyfunction]
#[pyo3(signature = (scenario, n, d, sparsity=None, params=BTreeMap::new(), seed=None))]
#[allow(clippy::type_complexity)]
fn simulate<'py>(
    py: Python<'py>,
    scenario: &str,
    n: usize,
    d: usize,
    sparsity: Option<usize>,
    params: BTreeMap<String, f64>,
    seed: Option<u64>,
) -> PyResult<(
    Bound<'py, PyArray2<f64>>,
    Bound<'py, PyArray1<f64>>,
    Bound<'py, PyArray1<f64>>,
    Vec<String>,
    String,
)> {
    let (ds, truth) = py
        .detach(|| {
            let mut rng = heavydp::noise::make_rng(seed);
            data::scenarios::simulate(scenario, n, d, sparsity, &params, &mut rng)
        })
        .map_err(value_error)?;
    let (n, d) = (ds.n(), ds.d());
    let (x, y, names, target) = ds.into_parts();
    // the vectors move into NumPy: no copy
    let x = PyArray1::from_vec(py, x)
        .reshape([n, d])
        .map_err(value_error)?;
    Ok((
        x,
        PyArray1::from_vec(py, y),
        PyArray1::from_vec(py, truth.w_star),
        names,
        target,
    ))
}

/// The default δ = n^−1.1 the CLI uses when `--delta` is omitted.
#[pyfunction]
fn default_delta(n: usize) -> f64 {
    pipeline::default_delta(n)
}

/// The heavydp library version.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", heavydp::VERSION)?;
    m.add("MODEL_FORMAT", heavydp::model::FORMAT)?;
    m.add_class::<PyBudget>()?;
    m.add_function(wrap_pyfunction!(precheck, m)?)?;
    m.add_function(wrap_pyfunction!(fit, m)?)?;
    m.add_function(wrap_pyfunction!(predict, m)?)?;
    m.add_function(wrap_pyfunction!(read_model, m)?)?;
    m.add_function(wrap_pyfunction!(write_model, m)?)?;
    m.add_function(wrap_pyfunction!(private_mean, m)?)?;
    m.add_function(wrap_pyfunction!(algorithms_json, m)?)?;
    m.add_function(wrap_pyfunction!(mean_estimators_json, m)?)?;
    m.add_function(wrap_pyfunction!(simulate, m)?)?;
    m.add_function(wrap_pyfunction!(default_delta, m)?)?;
    m.add_function(wrap_pyfunction!(batch_sum, m)?)?;
    m.add_function(wrap_pyfunction!(fit_distributed, m)?)?;
    m.add_function(wrap_pyfunction!(distributed_algorithms, m)?)?;
    m.add_function(wrap_pyfunction!(chunked_algorithms, m)?)?;
    Ok(())
}
