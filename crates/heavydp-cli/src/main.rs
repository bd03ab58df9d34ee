//! The `heavydp` command-line tool. See CONTRACT.md for the user-facing names.

mod audit;
mod demo;
mod experiment;
mod plot;

use clap::{Args, Parser, Subcommand};
use heavydp::algorithms::Observer;
use heavydp::data::{self, scenarios};
use heavydp::model::{self, ModelFile};
use heavydp::noise::make_rng;
use heavydp::privacy::Budget;
use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::path::Path;

#[derive(Parser)]
#[command(
    name = "heavydp",
    version,
    about = "Differentially private optimisation and estimation on heavy-tailed, high-dimensional data",
    long_about = "Differentially private optimisation and estimation on heavy-tailed, high-dimensional data.\n\n\
Neighbouring datasets differ in one record replaced; n is public. Results go to stdout as JSON unless --out names a file."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Simulate heavy-tailed data, fit private models and the non-private floor, print their errors.
    Demo {
        /// Seed of the ChaCha20 generator (data and noise); default 7.
        #[arg(long, default_value_t = 7)]
        seed: u64,
    },
    /// List every algorithm (name, privacy model, when to use it, paper, losses, domains), then `auto` and `intercept-only` with their rule.
    Algorithms {
        /// Print a JSON array with the parameters of each algorithm.
        #[arg(long)]
        json: bool,
    },
    /// Write a synthetic dataset from the papers' generators.
    #[command(long_about = SIMULATE_HELP)]
    Simulate(SimulateArgs),
    /// Fit a private model and write the model file (JSON; stdout unless --out FILE).
    #[command(long_about = FIT_HELP)]
    Fit(FitArgs),
    /// Predictions of a model on a CSV file (one `prediction` per row).
    Predict {
        /// Model file written by `heavydp fit` (heavydp-model/1 or /2).
        #[arg(long)]
        model: String,
        /// CSV file with a header row holding (at least) the model's feature columns.
        #[arg(long)]
        data: String,
        /// Output CSV; '-' or no --out writes to stdout [default: stdout].
        #[arg(long)]
        out: Option<String>,
    },
    /// Metrics of a model on a CSV file (JSON): mse, mae, risk; with --truth also excess_risk, l2_error, support_recall.
    Evaluate {
        /// Model file written by `heavydp fit`.
        #[arg(long)]
        model: String,
        /// CSV file with the model's feature columns and its target column.
        #[arg(long)]
        data: String,
        /// truth.json of `heavydp simulate` (its w_star) for the excess risk and support recall [default: none].
        #[arg(long)]
        truth: Option<String>,
    },
    /// Private mean of the numeric columns of a CSV file (JSON with the mean and the privacy spent).
    #[command(long_about = MEAN_HELP)]
    Mean(MeanArgs),
    /// Reproduce a paper experiment (figure panel): results.csv, ID.png, summary.json; --list for the IDs.
    #[command(long_about = experiment::EXPERIMENT_HELP)]
    Experiment(experiment::ExperimentArgs),
    /// Empirical privacy audit: a 95% lower bound on the epsilon a target spends; --list for the targets.
    #[command(long_about = audit::AUDIT_HELP)]
    Audit(audit::AuditArgs),
}

const FIT_HELP: &str = "Fit a private model and write the model file (JSON, format heavydp-model/2; docs/model-file.md).\n\n\
The whole budget (epsilon, delta) covers everything released: by default a share (--preprocess-share, 0.2) \
buys private column centres/scales and the private intercept, 0.05 of epsilon the private fit check \
(the model falls back to the intercept alone, or the base rate for the logistic loss, when a released \
comparison of in-sample squared errors or log-losses says it predicts worse; docs/privacy.md; a logistic \
model's check takes 120/(n*epsilon) of epsilon where that is more, at most 0.5, and below n*epsilon = 240, \
where it could not see a bad model, the model is the base rate alone), the rest the algorithm. Notes (defaults chosen, \
delta defaulted to n^-1.1, degenerate settings) go to stderr and into the model's \"notes\".\n\n\
The model's \"status\" says how the fit ended; it depends on public quantities only:\n\
  completed              the fit ran to its end (every fit that returns a model). Whether an inner solver met\n\
                         its tolerance depends on the data and is not reported. Model files of earlier versions\n\
                         say \"max_iterations\" or \"converged\" (read as \"completed\") or \"tolerance_not_reached\"\n\
                         (kept as written)\n\n\
Pick an algorithm with `heavydp algorithms` (\"use when\") or --algorithm auto; docs/guide.md walks through a fit \
of one's own data.";

const MEAN_HELP: &str = "Private mean of every numeric column of a CSV file (header row required).\n\n\
Prints JSON {\"estimator\", \"columns\", \"n\", \"mean\": [...], \"privacy\": {...}, \"hyperparameters\", \"notes\"} \
(or writes it to --out). Estimators (--estimator):\n\
  clip                 Zhao et al. Alg. 2: l2 clipping to radius R + Gaussian noise; rho-zCDP (needs --delta > 0 for the (eps, delta) report)\n\
  iterative-updating   Zhao et al. Alg. 3: noisy group means + iterative centre updates; (eps, delta)-DP (--param accounting=shuffle is UNPROVEN, spec Z7)\n\
  catoni               coordinate-wise Catoni-Giulini means + Laplace noise (Hu et al. spec A.5); pure eps-DP\n\
  sparse-peeling       s-sparse mean: Catoni-Giulini means + Peeling (Hu et al. spec E.1); (eps, delta)-DP, needs --param s=S\n\n\
Defaults come from public quantities only (n, d, eps, delta and the declared moment bounds --param p=, M=, tau=); \
`heavydp mean --list` prints every estimator's parameters with default and source.";

#[derive(Args)]
struct MeanArgs {
    /// Estimator (required): clip, iterative-updating, catoni, sparse-peeling.
    #[arg(long)]
    estimator: Option<String>,
    /// CSV file with a header row (required); the mean of every column (or of --columns) is estimated.
    #[arg(long)]
    data: Option<String>,
    /// Comma-separated column names to use, e.g. --columns wage,education [default: every column].
    #[arg(long, value_delimiter = ',')]
    columns: Vec<String>,
    /// Privacy budget epsilon (required; > 0, or 'inf' for the non-private estimate).
    #[arg(long, allow_hyphen_values = true)]
    epsilon: Option<String>,
    /// Privacy budget delta in [0, 1); clip and iterative-updating need delta > 0, sparse-peeling defaults to n^-1.1 [default: 0].
    #[arg(long, allow_hyphen_values = true)]
    delta: Option<String>,
    /// Estimator parameter KEY=VALUE (repeatable), in the data's units; `--list` shows each one's default [default: none given].
    #[arg(long = "param")]
    params: Vec<String>,
    /// Column scaling before the estimator: 'none' (raw columns), 'private' (DP quartiles: also reports each column's private centre, IQR and robust sd in \"scales\", a file `fit --scale public:` reads), or 'public:FILE.json' (declared centres/scales, or ranges {\"min\", \"max\"} that bound the column; no privacy cost). With scaling, --param values are in robust standard deviations [default: none].
    #[arg(long, default_value = "none")]
    scale: String,
    /// Fraction of epsilon (and delta) spent on the private quartiles of --scale private [default: 0.2].
    #[arg(long)]
    preprocess_share: Option<String>,
    /// Seed of the ChaCha20 noise generator (reproducible output, for tests): keep it secret, since anyone who knows it can re-run the release on candidate datasets; it is never written into the output [default: OS entropy].
    #[arg(long)]
    seed: Option<u64>,
    /// Write the JSON here; '-' or no --out writes to stdout [default: stdout].
    #[arg(long)]
    out: Option<String>,
    /// List the estimators and their parameters (JSON).
    #[arg(long)]
    list: bool,
}

const SIMULATE_HELP: &str = "Write a synthetic dataset from the papers' generators (CSV: features x1..xd, then y).\n\n\
Scenarios (distribution parameters are standard deviations unless 'variance' is said):\n\
  hu-linear-lognormal          x ~ Lognormal(0, variance 0.6); y = <w*, x> + N(0, variance 0.1); w* = g/||g||_1\n\
  hu-logistic-lognormal        x ~ Lognormal(0, variance 0.6); y = sign(<x, w*>) in {-1, +1}\n\
  hu-linear-student            x ~ Student t (10 d.o.f.); y = <w*, x> + N(0, variance 0.1)\n\
  hu-sparse-lognormal-noise    x ~ N(0, variance 5); noise Lognormal(0, variance 0.5); s*-sparse unit-l2 w*\n\
  hu-sparse-loglogistic-noise  x ~ N(0, variance 5); noise log-logistic c = 0.1\n\
  hu-sparse-loggamma-noise     x ~ N(0, variance 5); noise log-gamma c = 0.5\n\
  hu-sparse-logistic-gaussian  x ~ N(0, variance 5); y = sign(<x, w*> + logistic(0, scale 0.5))\n\
  hu-sparse-logistic-laplace   x ~ Laplace(0, scale 5); y = sign(<x, w*> + log-gamma(c = 0.5))\n\
  tian-sparse-student          x ~ N(0, I); y = <b*, x> + Student t (nu = 3 for --param zeta=1 [default], 1.75 for zeta=0.5);\n\
                               b* has s* entries beta_scale * N(0, 1) (--param beta_scale=1)\n\n\
Hu's sparse truth: N(0, 100^2) entries on a random support of size s* (default 20), scaled to ||w*||_2 = 1.\n\
Tian's default s* = 5. Noises are not centred (as in the paper). truth.json holds w_star, loss and domain.";

#[derive(Args)]
struct SimulateArgs {
    /// Scenario name (required; the list is above).
    #[arg(long)]
    scenario: String,
    /// Number of records (required).
    #[arg(long)]
    n: usize,
    /// Number of features (required).
    #[arg(long)]
    d: usize,
    /// Support size s* of the true coefficient vector [default: 20 for hu-sparse-*, 5 for tian-*; dense scenarios ignore it].
    #[arg(long)]
    sparsity: Option<usize>,
    /// Scenario parameter KEY=VALUE (repeatable), e.g. zeta=0.5, beta_scale=2 [default: none given].
    #[arg(long = "param")]
    params: Vec<String>,
    /// Seed of the ChaCha20 generator (reproducible data) [default: OS entropy].
    #[arg(long)]
    seed: Option<u64>,
    /// Output file (required), its format by extension: .csv, .parquet, .arrow/.ipc/.feather (Arrow IPC) or .npy (columns x1..xd, y); '-' writes CSV to stdout.
    #[arg(long)]
    out: String,
    /// Also write the truth (w_star, loss, domain, parameters) as JSON to this file [default: not written].
    #[arg(long)]
    truth: Option<String>,
}

#[derive(Args)]
struct FitArgs {
    /// Algorithm (required): 'auto' (public rule of n, d, epsilon and the loss), 'intercept-only', or a name of `heavydp algorithms` (see its "use when" column).
    #[arg(long)]
    algorithm: String,
    /// Data file (required): CSV with a header row, or .parquet, .arrow/.ipc/.feather, .npy by extension; every column except --target is a feature.
    #[arg(long)]
    data: String,
    /// Name of the response column.
    #[arg(long, default_value = "y")]
    target: String,
    /// Privacy budget epsilon (required; > 0, or 'inf' for the non-private run).
    #[arg(long, allow_hyphen_values = true)]
    epsilon: String,
    /// Privacy budget delta in [0, 1) [default: n^-1.1 for (epsilon, delta) algorithms (said on stderr), 0 for pure ones]. An explicit 0 for an (epsilon, delta) algorithm is an error.
    #[arg(long, allow_hyphen_values = true)]
    delta: Option<String>,
    /// Intercept: 'private' (learned under DP, charged to the budget) or 'none'.
    #[arg(long, default_value = "private")]
    intercept: String,
    /// Column scaling: 'private' (DP quantiles), 'none' (raw columns), or 'public:FILE.json' (declared centres/scales, no privacy cost).
    #[arg(long, default_value = "private")]
    scale: String,
    /// Fraction of epsilon (and delta) spent on private scaling and the intercept [default: 0.2; 1 for the intercept-only model; 0 with --scale and --intercept both off].
    #[arg(long)]
    preprocess_share: Option<String>,
    /// Loss: squared, logistic (labels in {-1, +1} or {0, 1}), huber, absolute, biweight [default: the algorithm's default loss, squared for most].
    #[arg(long)]
    loss: Option<String>,
    /// Constraint set: l1-ball, l2-ball, simplex, polytope, sparse, unconstrained [default: the algorithm's default domain].
    #[arg(long)]
    domain: Option<String>,
    /// Radius of the l1/l2 ball (or sparse set) of the coefficients, in scaled units unless --scale none: a number or 'auto' (sqrt(d) for clipped-gd, whose ball is only a projection; 1 for the others, whose noise grows with the radius) [default: auto on scaled columns, 1 with --scale none].
    #[arg(long, allow_hyphen_values = true)]
    radius: Option<String>,
    /// Number s of non-zero coefficients; required with --domain sparse (the ht-sparse-*, dp-iht-*, dp-slr, adahuber algorithms) [default: none].
    #[arg(long)]
    sparsity: Option<usize>,
    /// Hyperparameter KEY=VALUE (repeatable); `heavydp algorithms --json` lists each one's default and meaning [default: none given].
    #[arg(long = "param")]
    params: Vec<String>,
    /// Seed of the ChaCha20 noise generator (reproducible output, for tests): keep it secret, since anyone who knows it can re-run the fit on candidate datasets; it is never written into the model file [default: OS entropy].
    #[arg(long)]
    seed: Option<u64>,
    /// Confidence intervals at this level (e.g. 0.95) for every coefficient and the intercept, written as `intervals` into the model file: post-processing of the released values (no privacy cost, the same weights); algorithms with `intervals: true` in `heavydp algorithms --json` [default: none].
    #[arg(long)]
    intervals: Option<String>,
    /// Model file to write; '-' or no --out prints the model to stdout [default: stdout].
    #[arg(long)]
    out: Option<String>,
}

fn main() {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Demo { seed } => demo::run(seed),
        Command::Algorithms { json } => cmd_algorithms(json),
        Command::Simulate(a) => cmd_simulate(a),
        Command::Fit(a) => cmd_fit(a),
        Command::Predict { model, data, out } => cmd_predict(&model, &data, out.as_deref()),
        Command::Evaluate { model, data, truth } => cmd_evaluate(&model, &data, truth.as_deref()),
        Command::Mean(a) => cmd_mean(a),
        Command::Experiment(a) => experiment::run(a),
        Command::Audit(a) => audit::run(a),
    };
    if let Err(msg) = result {
        eprintln!("error: {msg}");
        std::process::exit(2);
    }
}

use heavydp::pipeline::parse_number;
pub use heavydp::pipeline::parse_params;

pub use heavydp::model::write_atomic;

fn cmd_algorithms(json: bool) -> Result<(), String> {
    let listing = heavydp::pipeline::algorithms_listing();
    if json {
        let text = serde_json::to_string_pretty(&listing).map_err(|e| e.to_string())?;
        return emit(format!("{text}\n").as_bytes());
    }
    let entries = listing.as_array().map(Vec::as_slice).unwrap_or_default();
    let text = |v: &serde_json::Value| v.as_str().unwrap_or_default().to_string();
    let words = |v: &serde_json::Value| {
        v.as_array()
            .map(|a| a.iter().map(text).collect::<Vec<_>>().join(", "))
            .unwrap_or_default()
    };
    let rows: Vec<[String; 6]> = entries
        .iter()
        .map(|a| {
            // `auto` and `intercept-only` show their rule where the others say when to use them
            let use_when = if a["rule"].is_string() {
                text(&a["rule"])
            } else {
                text(&a["use_when"])
            };
            [
                text(&a["name"]),
                text(&a["privacy"]),
                use_when,
                text(&a["paper"]),
                words(&a["losses"]),
                words(&a["domains"]),
            ]
        })
        .collect();
    let name_width = rows.iter().map(|r| r[0].len()).max().unwrap_or(4);
    emit(
        table(
            &["name", "privacy", "use when", "paper", "losses", "domains"],
            &[name_width, 7, 30, 28, 17, 17],
            &rows,
        )
        .as_bytes(),
    )
}

/// Splits `text` into lines of at most `width` characters, breaking after spaces (a word
/// longer than `width` is cut).
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut lines = Vec::new();
    let mut cur = String::new();
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let mut word: Vec<char> = word.chars().collect();
        loop {
            let cur_len = cur.chars().count();
            let need = if cur.is_empty() {
                word.len()
            } else {
                cur_len + 1 + word.len()
            };
            if need <= width {
                if !cur.is_empty() {
                    cur.push(' ');
                }
                cur.extend(word.iter());
                break;
            }
            if !cur.is_empty() {
                lines.push(std::mem::take(&mut cur));
                continue;
            }
            // a word longer than a line: cut it
            let rest = word.split_off(width);
            lines.push(word.into_iter().collect());
            word = rest;
        }
    }
    if !cur.is_empty() || lines.is_empty() {
        lines.push(cur);
    }
    lines
}

/// A plain-text table whose cells wrap within fixed column widths, so the columns stay
/// aligned whatever the cell lengths.
pub fn table<const K: usize>(
    header: &[&str; K],
    widths: &[usize; K],
    rows: &[[String; K]],
) -> String {
    let mut out = String::new();
    let mut line = |cells: Vec<Vec<String>>| {
        let height = cells.iter().map(Vec::len).max().unwrap_or(1);
        for i in 0..height {
            let mut l = String::new();
            for (k, c) in cells.iter().enumerate() {
                let cell = c.get(i).map(String::as_str).unwrap_or("");
                if k + 1 < K {
                    l.push_str(cell);
                    let pad = widths[k] + 2 - cell.chars().count().min(widths[k]);
                    l.extend(std::iter::repeat_n(' ', pad));
                } else {
                    l.push_str(cell);
                }
            }
            out.push_str(l.trim_end());
            out.push('\n');
        }
    };
    line(header.iter().map(|h| vec![h.to_string()]).collect());
    for r in rows {
        line(r.iter().zip(widths).map(|(c, &w)| wrap(c, w)).collect());
    }
    out
}

/// Writes `bytes` to stdout. A closed pipe (`heavydp predict ... | head`) ends the
/// process quietly with status 0, as Unix filters do.
pub fn emit(bytes: &[u8]) -> Result<(), String> {
    let mut o = std::io::stdout().lock();
    match o.write_all(bytes).and_then(|_| o.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
        Err(e) => Err(format!("cannot write to stdout: {e}")),
    }
}

/// Writes `bytes` to the file `out`, or to stdout when `out` is None or '-'.
pub fn write_output(out: Option<&str>, bytes: &[u8]) -> Result<(), String> {
    match out {
        None | Some("-") => emit(bytes),
        Some(p) => write_atomic(p, bytes),
    }
}

/// Checks, before any work, that the folder of an output file exists ('-' is stdout).
pub fn check_out_folder(out: Option<&str>) -> Result<(), String> {
    let Some(o) = out.filter(|o| *o != "-") else {
        return Ok(());
    };
    let dir = Path::new(o)
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    if !dir.is_dir() {
        return Err(format!("{o}: the folder {} does not exist", dir.display()));
    }
    Ok(())
}

fn cmd_simulate(a: SimulateArgs) -> Result<(), String> {
    let raw = parse_params(&a.params)?;
    let mut params = BTreeMap::new();
    for (k, v) in raw {
        params.insert(k.clone(), parse_number(&format!("--param {k}"), &v)?);
    }
    let mut rng = make_rng(a.seed);
    let (ds, truth) = scenarios::simulate(&a.scenario, a.n, a.d, a.sparsity, &params, &mut rng)
        .map_err(|e| e.to_string())?;
    // the format by the extension of --out (CSV for '-', stdout)
    let format = match a.out.as_str() {
        "-" => heavydp::io::Format::Csv,
        o => heavydp::io::Format::of(o),
    };
    let mut buf = Vec::with_capacity(a.n * (a.d + 1) * 20);
    heavydp::io::write_dataset(&ds, format, &mut buf, &a.out).map_err(|e| e.to_string())?;
    let truth_json = serde_json::to_vec_pretty(&serde_json::json!({
        "scenario": truth.scenario, "w_star": truth.w_star, "loss": truth.loss, "domain": truth.domain,
        "n": truth.n, "d": truth.d, "sparsity": truth.sparsity, "parameters": truth.parameters, "seed": a.seed,
    }))
    .map_err(|e| e.to_string())?;
    // check the truth folder before writing anything
    check_out_folder(a.truth.as_deref())?;
    write_output(Some(&a.out), &buf)?;
    if let Some(t) = &a.truth {
        write_atomic(t, &truth_json)?;
    }
    Ok(())
}

/// A progress bar on stderr, drawn only when stderr is a terminal; it names what runs
/// ("fitting ALGORITHM") and counts the algorithm's steps (iterations, or candidate
/// blocks for l1-regression-expmech), with the estimated time left. When the plan has
/// [`Progress::MANY_STEPS`] steps or more, a note says so on stderr; without a terminal a
/// second note gives the time left once the fit has run [`Progress::ESTIMATE_AFTER`].
struct Progress {
    bar: Option<indicatif::ProgressBar>,
    what: String,
    /// (start, total steps) of a long plan whose time-left note is still due (no terminal)
    pending_estimate: Option<(std::time::Instant, usize)>,
}

impl Progress {
    /// Steps from which a fit's plan is reported as large.
    const MANY_STEPS: usize = 500;
    /// Run time after which a long fit without a terminal prints its time-left note.
    const ESTIMATE_AFTER: std::time::Duration = std::time::Duration::from_secs(10);

    fn new(algorithm: &str) -> Self {
        Progress {
            bar: None,
            what: format!("fitting {algorithm}"),
            pending_estimate: None,
        }
    }
}

impl Observer for Progress {
    fn on_start(&mut self, total: usize) {
        let terminal = std::io::stderr().is_terminal();
        if total >= Self::MANY_STEPS {
            eprintln!(
                "note: {}: {total} steps planned (for gradient methods each step reads every row){}",
                self.what,
                if terminal {
                    "; the bar shows the time left"
                } else {
                    "; the time left follows after the first steps"
                }
            );
            if !terminal {
                self.pending_estimate = Some((std::time::Instant::now(), total));
            }
        }
        if terminal && total > 0 {
            let pb = indicatif::ProgressBar::new(total as u64);
            pb.set_style(
                indicatif::ProgressStyle::with_template(
                    "{spinner} {msg}: step {pos}/{len} [{bar:30}] {elapsed} (eta {eta})",
                )
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
            );
            pb.set_message(self.what.clone());
            self.bar = Some(pb);
        }
    }
    fn on_iteration(&mut self, it: usize) {
        if let Some(pb) = &self.bar {
            pb.set_position(it as u64);
        }
        if let Some((start, total)) = self.pending_estimate {
            let elapsed = start.elapsed();
            if elapsed >= Self::ESTIMATE_AFTER && it > 0 {
                let left = elapsed.as_secs_f64() * (total - it.min(total)) as f64 / it as f64;
                eprintln!(
                    "note: {}: step {it}/{total} after {:.0} s, about {left:.0} s left",
                    self.what,
                    elapsed.as_secs_f64()
                );
                self.pending_estimate = None;
            }
        }
    }
    fn on_finish(&mut self) {
        if let Some(pb) = self.bar.take() {
            pb.finish_and_clear();
        }
    }
}

/// A spinner with the elapsed time on stderr while a long run without a progress callback
/// works (drawn only when stderr is a terminal); cleared when dropped, also on errors.
pub struct Spinner(Option<indicatif::ProgressBar>);

impl Spinner {
    pub fn start(msg: String) -> Spinner {
        Spinner(std::io::stderr().is_terminal().then(|| {
            let pb = indicatif::ProgressBar::new_spinner();
            pb.set_style(
                indicatif::ProgressStyle::with_template("{spinner} {msg} {elapsed}")
                    .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
            );
            pb.set_message(msg);
            pb.enable_steady_tick(std::time::Duration::from_millis(200));
            pb
        }))
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        if let Some(pb) = self.0.take() {
            pb.finish_and_clear();
        }
    }
}

fn cmd_fit(a: FitArgs) -> Result<(), String> {
    use heavydp::pipeline::{self, FitOptions};
    use heavydp::preprocess::InterceptMode;
    let params = parse_params(&a.params)?;
    let epsilon = parse_number("--epsilon", &a.epsilon)?;
    let delta = match &a.delta {
        Some(d) => Some(parse_number("--delta", d)?),
        None => None,
    };
    if let Some(d) = delta {
        // ε/δ ranges checked before any file is read
        Budget::new(epsilon, d).map_err(|e| e.to_string())?;
    } else {
        Budget::new(epsilon, 0.0).map_err(|e| e.to_string())?;
    }
    let radius = a
        .radius
        .as_deref()
        .map(pipeline::RadiusOpt::parse)
        .transpose()?;
    let intercept = match a.intercept.as_str() {
        "private" => InterceptMode::Private,
        "none" => InterceptMode::None,
        other => {
            return Err(format!(
                "--intercept must be 'private' or 'none'; got '{other}'"
            ))
        }
    };
    let scale = heavydp::preprocess::ScaleMode::parse(&a.scale)?;
    let preprocess_share = parse_share(a.preprocess_share.as_deref())?;
    let out_path = a.out.clone().filter(|o| o != "-");
    // Check the output folder before any work.
    if let Some(out) = &out_path {
        let dir = Path::new(out)
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        if !dir.is_dir() {
            return Err(format!(
                "{out}: the folder {} does not exist",
                dir.display()
            ));
        }
    }
    let opts = FitOptions {
        algorithm: a.algorithm.clone(),
        loss: a.loss.clone(),
        domain: a.domain.clone(),
        radius,
        sparsity: a.sparsity,
        params,
        epsilon,
        delta,
        intercept,
        scale,
        preprocess_share,
        seed: a.seed,
        intervals: a
            .intervals
            .as_deref()
            .map(|v| pipeline::parse_number("--intervals", v))
            .transpose()?,
    };
    pipeline::precheck(&opts)?;
    let ds =
        heavydp::io::read_dataset(&a.data, Some(&a.target), None).map_err(|e| e.to_string())?;
    let mut rng = make_rng(a.seed);
    let out = pipeline::fit(ds, &opts, &mut rng, &mut Progress::new(&a.algorithm))?;
    for m in &out.messages {
        eprintln!("note: {m}");
    }
    let text = serde_json::to_vec_pretty(&out.model).map_err(|e| e.to_string())?;
    match &out_path {
        None => emit(&[text.as_slice(), b"\n"].concat()),
        Some(p) => write_atomic(p, &text),
    }
}

/// `--preprocess-share F` (fit and mean); the range is checked where it is used.
fn parse_share(v: Option<&str>) -> Result<Option<f64>, String> {
    v.map(|f| parse_number("--preprocess-share", f))
        .transpose()
        .map_err(String::from)
}

fn cmd_mean(a: MeanArgs) -> Result<(), String> {
    use heavydp::estimators::private_mean;
    if a.list {
        let text = serde_json::to_string_pretty(&private_mean::mean_estimator_info())
            .map_err(|e| e.to_string())?;
        return emit(format!("{text}\n").as_bytes());
    }
    let name = a.estimator.ok_or_else(|| {
        format!(
            "missing --estimator (one of {})",
            private_mean::mean_estimator_names().join(", ")
        )
    })?;
    if !private_mean::mean_estimator_names().contains(&name.as_str()) {
        return Err(format!(
            "unknown estimator '{name}' (one of {})",
            private_mean::mean_estimator_names().join(", ")
        ));
    }
    let data_path = a.data.ok_or("missing --data FILE.csv")?;
    let epsilon = parse_number(
        "--epsilon",
        a.epsilon.as_deref().ok_or("missing --epsilon")?,
    )?;
    let delta = match &a.delta {
        Some(d) => parse_number("--delta", d)?,
        None => 0.0,
    };
    let budget = Budget::new(epsilon, delta).map_err(|e| e.to_string())?;
    let params = parse_params(&a.params)?;
    let scale = heavydp::preprocess::ScaleMode::parse(&a.scale)?;
    let preprocess_share = parse_share(a.preprocess_share.as_deref())?;
    check_out_folder(a.out.as_deref())?;
    let ds = heavydp::io::read_dataset(&data_path, None, None).map_err(|e| e.to_string())?;
    let ds = mean_columns(ds, &data_path, &a.columns)?;
    let mut rng = make_rng(a.seed);
    let opts = heavydp::describe::DescribeOptions {
        estimator: name.clone(),
        budget,
        params,
        scale,
        preprocess_share,
    };
    let scale_name = opts.scale.name();
    let out = heavydp::describe::describe(&ds, &opts, &mut rng)?;
    let report = out.report;
    let mut json = serde_json::json!({
        "format": "heavydp-mean/1",
        "heavydp_version": heavydp::VERSION,
        "estimator": name,
        "columns": ds.feature_names(),
        "n": ds.n(),
        "d": ds.d(),
        "mean": report.mean,
        "privacy": out.privacy,
        "hyperparameters": report.hyperparameters,
        "notes": report.notes,
    });
    if let Some(s) = &out.scales {
        json["scale"] = scale_name.into();
        json["scales"] = heavydp::describe::scales_json(ds.feature_names(), s);
    }
    for m in &report.notes {
        eprintln!("note: {m}");
    }
    if a.seed.is_some() && epsilon.is_finite() {
        eprintln!("note: {}", heavydp::pipeline::SEEDED_NOTE);
    }
    let text = serde_json::to_string_pretty(&json).map_err(|e| e.to_string())?;
    write_output(a.out.as_deref(), format!("{text}\n").as_bytes())
}

/// The columns of `ds` named by `--columns` (none named: every column). Names not in the
/// header are an error that lists them all and the header; a name given twice is an error.
fn mean_columns(ds: data::Dataset, path: &str, wanted: &[String]) -> Result<data::Dataset, String> {
    let wanted: Vec<String> = wanted.iter().map(|c| c.trim().to_string()).collect();
    if wanted.is_empty() {
        return Ok(ds);
    }
    if let Some(e) = wanted.iter().find(|c| c.is_empty()) {
        return Err(format!("--columns: empty column name in '{e}'"));
    }
    for (i, c) in wanted.iter().enumerate() {
        if wanted[..i].contains(c) {
            return Err(format!("--columns: '{c}' is given more than once"));
        }
    }
    let header = ds.feature_names();
    let unknown: Vec<&str> = wanted
        .iter()
        .filter(|c| !header.contains(c))
        .map(String::as_str)
        .collect();
    if !unknown.is_empty() {
        return Err(format!(
            "--columns: no column named {} in {path} (its columns: {})",
            unknown
                .iter()
                .map(|c| format!("'{c}'"))
                .collect::<Vec<_>>()
                .join(", "),
            header.join(", ")
        ));
    }
    ds.select_features(&wanted, path).map_err(|e| e.to_string())
}

fn load_for_model(m: &ModelFile, data_path: &str) -> Result<data::Dataset, String> {
    heavydp::io::read_dataset(data_path, None, Some(&m.features)).map_err(|e| e.to_string())
}

fn cmd_predict(model_path: &str, data_path: &str, out: Option<&str>) -> Result<(), String> {
    check_out_folder(out)?;
    let m = ModelFile::read(model_path).map_err(|e| e.to_string())?;
    let ds = load_for_model(&m, data_path)?;
    let preds = m.predict(&ds);
    let mut s = String::with_capacity(preds.len() * 20 + 16);
    s.push_str("prediction\n");
    for p in preds {
        s.push_str(&data::format_float(p));
        s.push('\n');
    }
    write_output(out, s.as_bytes())
}

fn cmd_evaluate(model_path: &str, data_path: &str, truth: Option<&str>) -> Result<(), String> {
    let m = ModelFile::read(model_path).map_err(|e| e.to_string())?;
    let loss = m.loss_kind().map_err(|e| e.to_string())?;
    // One read, straight into the model's feature order.
    let mut ds = heavydp::io::read_dataset(data_path, Some(&m.target), Some(&m.features))
        .map_err(|e| e.to_string())?;
    loss.prepare_labels(ds.y_mut())
        .map_err(|e| format!("{data_path}: {e}"))?;
    let w_star = match truth {
        None => None,
        Some(t) => {
            let text = std::fs::read_to_string(t)
                .map_err(|e| format!("{t}: cannot read the truth file: {e}"))?;
            let v: serde_json::Value =
                serde_json::from_str(&text).map_err(|e| format!("{t}: not a JSON file: {e}"))?;
            let w: Vec<f64> =
                serde_json::from_value(v.get("w_star").cloned().unwrap_or(serde_json::Value::Null))
                    .map_err(|_| format!("{t}: no numeric array 'w_star'"))?;
            if w.len() != m.d {
                return Err(model::ModelError::TruthShape {
                    path: t.to_string(),
                    found: w.len(),
                    expected: m.d,
                }
                .to_string());
            }
            Some(w)
        }
    };
    let metrics = m.evaluate(&ds, w_star.as_deref());
    let text = serde_json::to_string_pretty(&metrics).map_err(|e| e.to_string())?;
    emit(format!("{text}\n").as_bytes())
}
