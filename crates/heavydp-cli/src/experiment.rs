//! `heavydp experiment`: list the paper experiments, or run one and write
//! `DIR/results.csv`, `DIR/ID.png` and `DIR/summary.json` (see `heavydp::experiments`
//! for the protocol).

use crate::{parse_params, plot, write_atomic, Spinner};
use clap::Args;
use heavydp::experiments::{self, PlanOptions};
use std::io::IsTerminal;
use std::path::Path;
use std::time::Instant;

pub const EXPERIMENT_HELP: &str = "Reproduce a paper experiment (one figure panel).\n\n\
Writes DIR/results.csv (one row per setting and method: the varied parameters, method, metric, mean, std, reps), \
DIR/ID.png (the figure: mean with +/- one standard error bars) and DIR/summary.json (grid, fixed settings, \
hyperparameter choices with the project's choices flagged, base seed and every repetition's derived seed, timings, version).\n\n\
Each point is the mean over --reps repetitions (default 20; 5 with --quick). Repetition r of a setting uses the seed \
derive_seed(--seed, [ID, setting, r]); within a repetition all methods see the same data. Results do not depend on --threads.\n\n\
--quick runs a reduced grid (3 points per axis, d <= 400) that finishes in under two minutes on two cores.\n\n\
Options (--param KEY=VALUE):\n  \
preset=default|theory|paper|heavydp|both\n      \
hyperparameter preset of the ht-* algorithms: each algorithm's documented default (default), one named preset \
for all, or both theory and paper as two methods. preset=paper uses the printed settings (e.g. Algorithm 1's \
s = floor(n eps)); the summary flags it. For tian-*: the profile of every private method, paper (eta = 0.01), \
theory (eta = 0.5, T = ceil(ln n)) or both (the default: both drawn).\n  \
eval=fresh|train\n      \
risk in closed form / on a fresh 1e5-record sample (default), or on the training sample.\n\n\
Real-data panels (hu Figs. 3-4, tian-table-genomics) read the project's data/real/ folder, or $HEAVYDP_DATA_DIR.\n\
real-benchmark reads --data-dir DIR (default ../shared/data/real when present): the six real sets, or any folder of \
CSV tables with a response column y (every *.csv, sorted; binary when y is 0/1) such as ../shared/data/suite; it \
writes results.csv, table.md (with a summary over tables, design and confirm halves), real-benchmark.png, \
gain-vs-n.png and summary.json; --reps is its number of 80/20 splits (default 5; 2 with --quick); options \
time_cap=SECONDS (per-fit cap, default 120), tables=a,b (or sets=a,b), methods=a,b, epsilons=e1,e2, \
large_n=N and large_splits=K (K splits on tables with more than N rows, default N = 50000).\n\
tian-table-genomics writes results.md (the paper-style table) beside results.csv.\n\
Run `heavydp experiment --list` for the IDs.";

#[derive(Args)]
pub struct ExperimentArgs {
    /// Experiment ID (e.g. hu-fig1a); see --list.
    id: Option<String>,
    /// List every experiment: ID, description, and which shipped dataset replaces the paper's.
    #[arg(long)]
    list: bool,
    /// Repetitions per setting (default 20; 5 with --quick).
    #[arg(long)]
    reps: Option<usize>,
    /// The reduced grid (3 points per axis, d <= 400).
    #[arg(long)]
    quick: bool,
    /// Worker threads (default: the number of cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Base seed of every repetition's derived seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Experiment option KEY=VALUE (repeatable): preset=default|theory|paper|heavydp|both, eval=fresh|train.
    #[arg(long = "param")]
    params: Vec<String>,
    /// Output folder (created if missing).
    #[arg(long)]
    out: Option<String>,
    /// Folder of tables (real-benchmark: the six real sets or any folder of CSV tables with a
    /// response column y; default ../shared/data/real when present, else $HEAVYDP_DATA_DIR
    /// or the project's data/real).
    #[arg(long = "data-dir")]
    data_dir: Option<String>,
}

fn cmd_list() {
    let rows = experiments::list();
    println!("{:<11} description", "id");
    for e in rows {
        println!("{:<11} {}", e.id, e.description);
        if let Some(n) = e.data_note {
            println!("{:<11}   ({n})", "");
        }
    }
    println!(
        "\nPapers: hu-* {}; tian-* {}.\nRun `heavydp experiment ID --quick --out DIR` for a reduced grid.",
        experiments::HU_PAPER,
        experiments::TIAN_PAPER
    );
}

pub fn run(a: ExperimentArgs) -> Result<(), String> {
    if a.list {
        if a.id.is_some() {
            return Err("give either --list or an experiment ID, not both".into());
        }
        cmd_list();
        return Ok(());
    }
    let id =
        a.id.clone()
            .ok_or("missing experiment ID (run `heavydp experiment --list` for the list)")?;
    let params = parse_params(&a.params)?;
    if id == experiments::benchmark::ID {
        return run_benchmark(a, &params);
    }
    if a.data_dir.is_some() {
        return Err(format!(
            "--data-dir applies only to {} (the paper panels read $HEAVYDP_DATA_DIR or the project's data/real)",
            experiments::benchmark::ID
        ));
    }
    let opts = PlanOptions::from_params(a.quick, &params).map_err(|e| e.to_string())?;
    let plan = if experiments::is_table(&id) {
        None
    } else {
        Some(experiments::plan(&id, &opts).map_err(|e| e.to_string())?)
    };
    let out = a
        .out
        .ok_or("missing --out DIR (the folder for results.csv, the figure and summary.json)")?;
    let reps = a.reps.unwrap_or(if id == experiments::zhao::MEAN_TAILS_ID {
        experiments::zhao::MIN_TAIL_REPS
    } else if id == experiments::inference_coverage::ID {
        if a.quick {
            experiments::inference_coverage::QUICK_REPS
        } else {
            experiments::inference_coverage::FULL_REPS
        }
    } else if a.quick {
        5
    } else {
        20
    });
    if reps == 0 {
        return Err("--reps must be at least 1".into());
    }
    let (threads, pool) = threads_and_pool(a.threads)?;
    let dir = output_folder(&out)?;
    let Some(plan) = plan else {
        let run = PaperRun {
            opts: &opts,
            reps,
            seed: a.seed,
            threads,
            pool: &pool,
            dir,
        };
        return match id.as_str() {
            experiments::zhao::MEAN_TAILS_ID => run_tails(&run),
            experiments::wangxu::ID => run_rate(&run),
            experiments::inference_coverage::ID => run_coverage(&run),
            _ => run_table(&run),
        };
    };
    let bar = std::io::stderr().is_terminal().then(|| {
        let pb = indicatif::ProgressBar::new(0);
        pb.set_style(
            indicatif::ProgressStyle::with_template(
                "{spinner} {msg} repetitions {pos}/{len} [{bar:30}] {elapsed} (eta {eta})",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        pb.set_message(id.clone());
        pb
    });
    let progress = |done: usize, total: usize| {
        if let Some(pb) = &bar {
            pb.set_length(total as u64);
            pb.set_position(done as u64);
        }
    };
    let start = Instant::now();
    let results = pool.install(|| experiments::run(&plan, reps, a.seed, &progress));
    if let Some(pb) = &bar {
        pb.finish_and_clear();
    }
    let results = results.map_err(|e| e.to_string())?;
    let wall = start.elapsed().as_secs_f64();

    // Everything is rendered before anything is written; each file is written to a
    // temporary name and renamed, so an error never leaves a half-written file.
    let csv = experiments::results_csv(&plan, &results);
    let png_name = format!("{id}.png");
    let summary = experiments::summary_json(
        &plan,
        &results,
        serde_json::json!({
            "threads": threads,
            "wall_seconds": wall,
            "files": {"results": "results.csv", "figure": png_name, "summary": "summary.json"},
            "figure": plot::describe(&plan, &results),
        }),
    );
    let summary = serde_json::to_vec_pretty(&summary).map_err(|e| e.to_string())?;
    let files = [("results.csv", csv.into_bytes()), ("summary.json", summary)];
    draw_and_write(dir, &id, |png| plot::render(&plan, &results, png), &files)?;
    eprintln!(
        "{id}: {} settings x {} methods x {reps} repetitions in {wall:.1} s on {threads} thread(s){}; wrote {}",
        plan.settings.len(),
        plan.methods.len(),
        if results.failures.is_empty() {
            String::new()
        } else {
            format!("; {} fit(s) failed (see summary.json)", results.failures.len())
        },
        wrote(dir, &["results.csv", &png_name, "summary.json"])
    );
    Ok(())
}

/// `tian-table-genomics`: writes `results.csv`, `results.md` (the paper-style table),
/// `summary.json` and the bar chart `ID.png`; nothing is written when the run fails.
fn run_table(run: &PaperRun) -> Result<(), String> {
    use experiments::genomics;
    let id = genomics::ID;
    let what = "repetitions of 4 methods (each with a leave-one-out pass)";
    let (results, wall) = run.timed(id, what, genomics::run_table)?;
    let summary = genomics::table_summary(&results, run.facts(id, wall, &TABLE_FILES));
    let csv = genomics::table_csv(&results);
    let md = genomics::table_markdown(&results);
    let summary = serde_json::to_vec_pretty(&summary).map_err(|e| e.to_string())?;
    let methods: Vec<String> = results.rows.iter().map(|r| r.method.clone()).collect();
    let values: Vec<Vec<(f64, f64)>> = results
        .rows
        .iter()
        .map(|r| vec![(r.mae_mean, r.mae_std), (r.loocv_mae_mean, r.loocv_mae_std)])
        .collect();
    let title = format!(
        "{id}: MAE on {} (n = {}, d = {}), s* = 5, epsilon = 0.5, profile {}, {} reps (mean ± sd)",
        genomics::FILE,
        results.n,
        results.d,
        results.profile,
        results.reps
    );
    let bars = ["MAE (in-sample)", "MAE (leave-one-out)"];
    let ylabel = "mean absolute error";
    let draw = |png: &Path| plot::render_bars(&title, ylabel, &methods, &bars, &values, png);
    let files = [
        ("results.csv", csv.into_bytes()),
        ("results.md", md.into_bytes()),
        ("summary.json", summary),
    ];
    draw_and_write(run.dir, id, draw, &files)?;
    run.done(id, wall, &TABLE_FILES)
}

/// The paths of `files` in `dir`, joined by the platform's rules (no doubled separator
/// when `--out` ends with '/'), comma-separated.
fn wrote(dir: &Path, files: &[&str]) -> String {
    files
        .iter()
        .map(|f| dir.join(f).display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Writes `files` (name, bytes) and moves the already-drawn figure `png_tmp` to `png_name`;
/// on any error removes the temporary figure and reports it.
fn write_all(
    dir: &Path,
    files: &[(&str, Vec<u8>)],
    png_tmp: &Path,
    png_name: &str,
) -> Result<(), String> {
    let path = |f: &str| dir.join(f).to_string_lossy().to_string();
    let mut res = Ok(());
    for (name, bytes) in files {
        res = res.and_then(|_| write_atomic(&path(name), bytes));
    }
    let res = res.and_then(|_| {
        std::fs::rename(png_tmp, dir.join(png_name))
            .map_err(|e| format!("{}: cannot write: {e}", path(png_name)))
    });
    if res.is_err() {
        let _ = std::fs::remove_file(png_tmp);
    }
    res
}

/// The worker threads (`--threads`, default: every core) and their pool.
fn threads_and_pool(threads: Option<usize>) -> Result<(usize, rayon::ThreadPool), String> {
    let threads = match threads {
        Some(0) => return Err("--threads must be at least 1".into()),
        Some(t) => t,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| format!("cannot start {threads} worker threads: {e}"))?;
    Ok((threads, pool))
}

/// The `--out` folder, created when missing; an error when `out` is a file.
fn output_folder(out: &str) -> Result<&Path, String> {
    let dir = Path::new(out);
    if dir.exists() && !dir.is_dir() {
        return Err(format!("--out {out}: exists and is not a folder"));
    }
    std::fs::create_dir_all(dir)
        .map_err(|e| format!("--out {out}: cannot create the folder: {e}"))?;
    Ok(dir)
}

/// Draws the figure `ID.png` with `draw` (to a temporary file) and then writes `files`
/// ([`write_all`]). Everything is rendered before anything is written; each file is
/// written to a temporary name and renamed, so an error never leaves a half-written file.
fn draw_and_write<E: std::fmt::Display>(
    dir: &Path,
    id: &str,
    draw: impl FnOnce(&Path) -> Result<(), E>,
    files: &[(&str, Vec<u8>)],
) -> Result<(), String> {
    // (the bitmap backend picks the encoder from the extension: keep `.png` last)
    let png_tmp = dir.join(format!(".{id}.tmp{}.png", std::process::id()));
    if let Err(e) = draw(&png_tmp) {
        let _ = std::fs::remove_file(&png_tmp);
        return Err(format!("cannot draw the figure: {e}"));
    }
    write_all(dir, files, &png_tmp, &format!("{id}.png"))
}

/// The run facts of a `summary.json`: threads, wall time and the files written.
fn run_facts(threads: usize, wall: f64, files: serde_json::Value) -> serde_json::Value {
    serde_json::json!({
        "threads": threads,
        "wall_seconds": wall,
        "files": files,
    })
}

/// `results.csv` under the key `results` of `summary.json`.
const RESULTS_FILE: (&str, &str) = ("results", "results.csv");
/// `results.csv` and the paper-style table `results.md`.
const TABLE_FILES: [(&str, &str); 2] = [RESULTS_FILE, ("table", "results.md")];

/// What the runners of the paper panels without a method grid (`tian-table-genomics`,
/// `zhao-mean-tails`, `wangxu-rate`) share: options, repetitions, seed, threads, the
/// output folder.
struct PaperRun<'a> {
    opts: &'a PlanOptions,
    reps: usize,
    seed: u64,
    threads: usize,
    pool: &'a rayon::ThreadPool,
    dir: &'a Path,
}

impl PaperRun<'_> {
    /// Runs the experiment `work(options, repetitions, seed)` on the pool behind a spinner
    /// (after the line "ID: REPS `what` ..." on stderr); returns its results and the wall
    /// time in seconds.
    fn timed<T: Send, E: std::fmt::Display + Send>(
        &self,
        id: &str,
        what: &str,
        work: impl FnOnce(&PlanOptions, usize, u64) -> Result<T, E> + Send,
    ) -> Result<(T, f64), String> {
        eprintln!("{id}: {} {what} ...", self.reps);
        let spin = Spinner::start(format!("{id}: {} repetitions", self.reps));
        let start = Instant::now();
        let (opts, reps, seed) = (self.opts, self.reps, self.seed);
        let results = self
            .pool
            .install(|| work(opts, reps, seed))
            .map_err(|e| e.to_string())?;
        let wall = start.elapsed().as_secs_f64();
        drop(spin);
        Ok((results, wall))
    }

    /// The run facts of `summary.json` ([`run_facts`]) with the files: `data` (key, file
    /// name), the figure `ID.png` and `summary.json`.
    fn facts(&self, id: &str, wall: f64, data: &[(&str, &str)]) -> serde_json::Value {
        let mut files = serde_json::Map::new();
        for (key, name) in data {
            files.insert(key.to_string(), (*name).into());
        }
        files.insert("figure".into(), format!("{id}.png").into());
        files.insert("summary".into(), "summary.json".into());
        run_facts(self.threads, wall, files.into())
    }

    /// The last line on stderr: the time, the threads and the files written (`data`, then
    /// the figure, then `summary.json`).
    fn done(&self, id: &str, wall: f64, data: &[(&str, &str)]) -> Result<(), String> {
        let png_name = format!("{id}.png");
        let mut all: Vec<&str> = data.iter().map(|(_, name)| *name).collect();
        all.extend([png_name.as_str(), "summary.json"]);
        eprintln!(
            "{id}: done in {wall:.1} s on {} thread(s); wrote {}",
            self.threads,
            wrote(self.dir, &all)
        );
        Ok(())
    }
}

/// `zhao-mean-tails`: results.csv, results.md (quantile table and verdicts), summary.json
/// and the grouped-bar figure of the quantiles.
fn run_tails(run: &PaperRun) -> Result<(), String> {
    use experiments::zhao;
    let id = zhao::MEAN_TAILS_ID;
    let (results, wall) = run.timed(id, "repetitions per setting", zhao::run_mean_tails)?;
    let summary = zhao::tails_summary(&results, run.facts(id, wall, &TABLE_FILES));
    let summary = serde_json::to_vec_pretty(&summary).map_err(|e| e.to_string())?;
    // One bar group per estimator with data in the figure's settings (d smallest, n
    // largest, epsilon = 1; both distributions); bars = the quantile levels. The full
    // grid is in results.md.
    let d_min = results.settings.iter().map(|s| s.d).min().unwrap_or(0);
    let n_max = results.settings.iter().map(|s| s.n).max().unwrap_or(0);
    let rows: Vec<&zhao::TailRow> = results
        .rows
        .iter()
        .filter(|r| r.reps > 0 && r.d == d_min && r.n == n_max && r.epsilon == 1.0)
        .collect();
    let groups: Vec<String> = rows
        .iter()
        .map(|r| format!("{}: {}", r.distribution, r.method))
        .collect();
    let values: Vec<Vec<(f64, f64)>> = rows
        .iter()
        .map(|r| {
            r.quantiles
                .iter()
                .map(|&(_, v, lo, hi)| (v, (hi - lo) / 2.0))
                .collect()
        })
        .collect();
    let title = format!(
        "{id}: quantiles of the error ||mu_hat - mu||_2 over {} repetitions, d = {d_min}, n = {n_max}, epsilon = 1 (whiskers: half the 95% interval; full grid in results.md)",
        run.reps
    );
    let bars = ["q50", "q90", "q99", "q99.9"];
    let draw =
        |png: &Path| plot::render_bars(&title, "error quantile", &groups, &bars, &values, png);
    let files = [
        ("results.csv", zhao::tails_csv(&results).into_bytes()),
        ("results.md", zhao::tails_markdown(&results).into_bytes()),
        ("summary.json", summary),
    ];
    draw_and_write(run.dir, id, draw, &files)?;
    run.done(id, wall, &TABLE_FILES)
}

/// `inference-coverage`: results.csv, results.md (the table of `docs/inference.md`),
/// summary.json and a bar figure of the coverages per cell.
fn run_coverage(run: &PaperRun) -> Result<(), String> {
    use experiments::inference_coverage as ic;
    let id = ic::ID;
    let (results, wall) = run.timed(id, "repetitions per cell", ic::run_coverage)?;
    let summary = ic::coverage_summary(&results, run.facts(id, wall, &TABLE_FILES));
    let summary = serde_json::to_vec_pretty(&summary).map_err(|e| e.to_string())?;
    let groups: Vec<String> = results
        .rows
        .iter()
        .map(|r| format!("{} n={} d={} eps={}", r.algorithm, r.n, r.d, r.epsilon))
        .collect();
    let values: Vec<Vec<(f64, f64)>> = results
        .rows
        .iter()
        .map(|r| {
            vec![
                (r.coverage_slopes, 0.0),
                (r.coverage_min_slope, 0.0),
                (r.coverage_intercept, 0.0),
                (r.ols_coverage_slopes, 0.0),
            ]
        })
        .collect();
    let title = format!(
        "{id}: coverage of 95% intervals, {} reps a cell (goal >= 0.93)",
        run.reps
    );
    let bars = ["slopes", "worst slope", "intercept", "OLS slopes"];
    let draw = |png: &Path| plot::render_bars(&title, "coverage", &groups, &bars, &values, png);
    let files = [
        ("results.csv", ic::coverage_csv(&results).into_bytes()),
        ("results.md", ic::coverage_markdown(&results).into_bytes()),
        ("summary.json", summary),
    ];
    draw_and_write(run.dir, id, draw, &files)?;
    run.done(id, wall, &TABLE_FILES)
}

/// `wangxu-rate`: results.csv, summary.json (with the fitted slopes) and the log-log
/// figure with the theory slopes.
fn run_rate(run: &PaperRun) -> Result<(), String> {
    use experiments::wangxu;
    let id = wangxu::ID;
    let (results, wall) = run.timed(id, "repetitions per setting", wangxu::run_rate)?;
    let summary = wangxu::rate_summary(&results, run.facts(id, wall, &[RESULTS_FILE]));
    let summary = serde_json::to_vec_pretty(&summary).map_err(|e| e.to_string())?;
    // Curves: per (case, method); reference lines: the theory slope through the
    // expmech curve's first point.
    let mut curves: Vec<plot::LogCurve> = Vec::new();
    let mut refs: Vec<plot::LogCurve> = Vec::new();
    let (cases, _, _) = wangxu::grid(run.opts.quick);
    for case in &cases {
        for method in ["l1-regression-expmech", "dp-iht-l1", "ht-lasso"] {
            let mut pts: Vec<(f64, f64, f64)> = results
                .rows
                .iter()
                .filter(|r| {
                    r.case == *case && r.method == method && r.reps > 0 && r.excess_mean > 0.0
                })
                .map(|r| {
                    (
                        r.n_epsilon,
                        r.excess_mean,
                        r.excess_std / (r.reps as f64).sqrt(),
                    )
                })
                .collect();
            pts.sort_by(|a, b| a.0.total_cmp(&b.0));
            if pts.is_empty() {
                continue;
            }
            if method == "l1-regression-expmech" {
                let (x0, y0, _) = pts[0];
                let x1 = pts[pts.len() - 1].0;
                let s = case.theory_slope();
                refs.push(plot::LogCurve {
                    label: format!("theory slope {s:.2} (θ={}, d={})", case.theta, case.d),
                    points: vec![(x0, y0, 0.0), (x1, y0 * (x1 / x0).powf(s), 0.0)],
                });
            }
            curves.push(plot::LogCurve {
                label: format!("{method} (θ={}, d={})", case.theta, case.d),
                points: pts,
            });
        }
    }
    let title = format!(
        "{id}: excess population risk vs n·ε (unit l2 ball, Student-t data), {} reps; dashed: theory slopes",
        run.reps
    );
    let ylabel = "excess risk L(w) − L(w*)";
    let draw = |png: &Path| plot::render_loglog(&title, "n·ε", ylabel, &curves, &refs, png);
    let files = [
        ("results.csv", wangxu::rate_csv(&results).into_bytes()),
        ("summary.json", summary),
    ];
    draw_and_write(run.dir, id, draw, &files)?;
    for s in &results.slopes {
        eprintln!(
            "{id}: slope {} ({}) = {:.3} (theory {:.3})",
            s.method,
            format_args!("theta={}, d={}", s.case.theta, s.case.d),
            s.slope,
            s.theory
        );
    }
    run.done(id, wall, &[RESULTS_FILE])
}

/// `real-benchmark`: results.csv, table.md, summary.json and the grouped-bar figure of the
/// gain kept; nothing is written when the run fails.
fn run_benchmark(a: ExperimentArgs, params: &heavydp::algorithms::ParamMap) -> Result<(), String> {
    use experiments::benchmark;
    let id = benchmark::ID;
    let mut opts = benchmark::BenchOptions::new(a.quick, a.seed);
    opts.apply_params(params).map_err(|e| e.to_string())?;
    if let Some(r) = a.reps {
        if r == 0 {
            return Err("--reps must be at least 1".into());
        }
        opts.splits = r;
    }
    let out = a.out.ok_or(
        "missing --out DIR (the folder for results.csv, table.md, the figure and summary.json)",
    )?;
    let data_dir =
        benchmark::data_dir(a.data_dir.as_deref().map(Path::new)).map_err(|e| e.to_string())?;
    opts.resolve(&data_dir).map_err(|e| e.to_string())?;
    let (threads, pool) = threads_and_pool(a.threads)?;
    let dir = output_folder(&out)?;
    eprintln!(
        "{id}: {} dataset(s){}, {} split(s){}, epsilon {:?}, time cap {} s per fit, data from {}",
        opts.sets.len(),
        if opts.generic {
            " (generic folder)"
        } else {
            ""
        },
        opts.splits,
        match opts.large_splits {
            Some(k) if k < opts.splits => format!(" ({k} above {} rows)", opts.large_n),
            _ => String::new(),
        },
        opts.epsilons,
        opts.time_cap,
        data_dir.display()
    );
    let start = Instant::now();
    let progress = |msg: &str| eprintln!("{id}: {msg}");
    // One dataset at a time; the files are rewritten after each, so a long run leaves the
    // finished datasets' results behind.
    let mut results: Option<benchmark::BenchResults> = None;
    let mut wall = 0.0;
    for set in &opts.sets {
        let mut one = opts.clone();
        one.sets = vec![set.clone()];
        let r = pool
            .install(|| benchmark::run_benchmark(&one, &data_dir, &progress))
            .map_err(|e| e.to_string())?;
        let acc = match results.take() {
            None => {
                let mut r = r;
                r.options = opts.clone();
                r
            }
            Some(mut acc) => {
                acc.merge(r);
                acc
            }
        };
        wall = start.elapsed().as_secs_f64();
        write_benchmark(&acc, &opts, threads, wall, dir)?;
        results = Some(acc);
    }
    let results = results.ok_or("no dataset to run")?;
    let png_name = format!("{id}.png");
    eprintln!(
        "{id}: done in {wall:.1} s on {threads} thread(s){}; wrote {out}/results.csv, {out}/table.md, {out}/{png_name}, {out}/{}, {out}/summary.json",
        if results.failures.is_empty() {
            String::new()
        } else {
            format!("; {} fit(s) failed or timed out (see table.md)", results.failures.len())
        },
        benchmark::GAIN_VS_N_FIGURE
    );
    Ok(())
}

/// Renders and writes the benchmark's four files.
fn write_benchmark(
    results: &heavydp::experiments::benchmark::BenchResults,
    opts: &heavydp::experiments::benchmark::BenchOptions,
    threads: usize,
    wall: f64,
    dir: &Path,
) -> Result<(), String> {
    use experiments::benchmark;
    let id = benchmark::ID;
    let png_name = format!("{id}.png");
    let summary = benchmark::summary(
        results,
        run_facts(
            threads,
            wall,
            serde_json::json!({"results": "results.csv", "table": "table.md", "figure": png_name, "gain_vs_n": benchmark::GAIN_VS_N_FIGURE, "summary": "summary.json"}),
        ),
    );
    let summary = serde_json::to_vec_pretty(&summary).map_err(|e| e.to_string())?;
    let (groups, values) = benchmark::figure_groups(results);
    let eps_labels: Vec<String> = opts.epsilons.iter().map(|e| format!("ε = {e}")).collect();
    let eps_refs: Vec<&str> = eps_labels.iter().map(String::as_str).collect();
    let title = format!(
        "{id}: gain kept (err_const − err)/(err_const − err_floor), mean ± sd over {} splits; per dataset: best private default, auto, adassp, intercept-only (bars clamped at {})",
        opts.splits,
        benchmark::FIGURE_FLOOR
    );
    let draw =
        |png: &Path| plot::render_bars(&title, "gain kept", &groups, &eps_refs, &values, png);
    let files = [
        ("results.csv", benchmark::results_csv(results).into_bytes()),
        ("table.md", benchmark::table_markdown(results).into_bytes()),
        ("summary.json", summary),
    ];
    // the second figure: gain kept against n (log x), one curve per method at one ε
    let (e, curves) = benchmark::gain_vs_n(results);
    let curves: Vec<plot::LogCurve> = curves
        .into_iter()
        .map(|(label, points)| plot::LogCurve { label, points })
        .collect();
    let title = format!(
        "{id}: gain kept (MSE) against n on the regression tables, ε = {e}, mean ± sd over splits (clamped to [{}, 1.5]); 0 = the training mean, 1 = the non-private floor",
        benchmark::FIGURE_FLOOR
    );
    let tmp2 = dir.join(format!(".gain-vs-n.tmp{}.png", std::process::id()));
    if let Err(err) = plot::render_logx(
        &title,
        "rows n",
        "gain kept",
        &curves,
        (benchmark::FIGURE_FLOOR - 0.05, 1.55),
        &[0.0, 0.5, 1.0],
        &tmp2,
    ) {
        let _ = std::fs::remove_file(&tmp2);
        return Err(format!("cannot draw the figure: {err}"));
    }
    let res = draw_and_write(dir, id, draw, &files).and_then(|_| {
        std::fs::rename(&tmp2, dir.join(benchmark::GAIN_VS_N_FIGURE)).map_err(|e| {
            format!(
                "{}: cannot write: {e}",
                dir.join(benchmark::GAIN_VS_N_FIGURE).display()
            )
        })
    });
    if res.is_err() {
        let _ = std::fs::remove_file(&tmp2);
    }
    res
}
