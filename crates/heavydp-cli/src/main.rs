//! The `heavydp` command-line tool. See CONTRACT.md for the user-facing names.

mod audit;
mod demo;
mod experiment;
mod plot;

use clap::{Args, Parser, Subcommand};
use heavydp::algorithms::{self, Observer, ParamMap};
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
    /// List every algorithm: name, paper, privacy model, losses, domains.
    Algorithms {
        /// Print a JSON array with the parameters of each algorithm.
        #[arg(long)]
        json: bool,
    },
    /// Write a synthetic dataset from the papers' generators.
    #[command(long_about = SIMULATE_HELP)]
    Simulate(SimulateArgs),
    /// Fit a private model and write the model file.
    Fit(FitArgs),
    /// Predictions of a model on a CSV file (one `prediction` per row).
    Predict {
        #[arg(long)]
        model: String,
        #[arg(long)]
        data: String,
        /// Output CSV (default: stdout).
        #[arg(long)]
        out: Option<String>,
    },
    /// Metrics of a model on a CSV file (JSON): mse, mae, risk; with --truth also excess_risk, l2_error, support_recall.
    Evaluate {
        #[arg(long)]
        model: String,
        #[arg(long)]
        data: String,
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
    /// Estimator: clip, iterative-updating, catoni, sparse-peeling.
    #[arg(long)]
    estimator: Option<String>,
    /// CSV file; the mean of every column is estimated.
    #[arg(long)]
    data: Option<String>,
    /// Privacy budget epsilon (> 0, or 'inf' for the non-private estimate).
    #[arg(long, allow_hyphen_values = true)]
    epsilon: Option<String>,
    /// Privacy budget delta in [0, 1) (default 0).
    #[arg(long, allow_hyphen_values = true)]
    delta: Option<String>,
    /// Estimator parameter KEY=VALUE (repeatable).
    #[arg(long = "param")]
    params: Vec<String>,
    #[arg(long)]
    seed: Option<u64>,
    /// Write the JSON here instead of stdout.
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
    #[arg(long)]
    scenario: String,
    #[arg(long)]
    n: usize,
    #[arg(long)]
    d: usize,
    #[arg(long)]
    sparsity: Option<usize>,
    /// Scenario parameter KEY=VALUE (repeatable).
    #[arg(long = "param")]
    params: Vec<String>,
    #[arg(long)]
    seed: Option<u64>,
    #[arg(long)]
    out: String,
    #[arg(long)]
    truth: Option<String>,
}

#[derive(Args)]
struct FitArgs {
    #[arg(long)]
    algorithm: String,
    #[arg(long)]
    data: String,
    #[arg(long, default_value = "y")]
    target: String,
    /// Privacy budget epsilon (> 0, or 'inf' for the non-private run).
    #[arg(long, allow_hyphen_values = true)]
    epsilon: String,
    /// Privacy budget delta in [0, 1); default n^-1.1 for (epsilon, delta) algorithms (said on stderr), 0 for pure ones. An explicit 0 for an (epsilon, delta) algorithm is an error.
    #[arg(long, allow_hyphen_values = true)]
    delta: Option<String>,
    /// Intercept: 'private' (learned under DP, charged to the budget) or 'none'.
    #[arg(long, default_value = "private")]
    intercept: String,
    /// Column scaling: 'private' (DP quantiles), 'none' (raw columns), or 'public:FILE.json' (declared centres/scales, no privacy cost).
    #[arg(long, default_value = "private")]
    scale: String,
    /// Fraction of epsilon (and delta) spent on private scaling and the intercept [default: 0.1].
    #[arg(long)]
    preprocess_share: Option<String>,
    #[arg(long)]
    loss: Option<String>,
    #[arg(long)]
    domain: Option<String>,
    #[arg(long, allow_hyphen_values = true)]
    radius: Option<String>,
    #[arg(long)]
    sparsity: Option<usize>,
    /// Hyperparameter KEY=VALUE (repeatable); see `heavydp algorithms --json`.
    #[arg(long = "param")]
    params: Vec<String>,
    /// Seed of the ChaCha20 noise generator (reproducible output); default: OS entropy.
    #[arg(long)]
    seed: Option<u64>,
    /// Model file to write; '-' or no --out prints the model to stdout.
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

/// Parses repeated `KEY=VALUE` flags; a key given twice is an error.
pub fn parse_params(raw: &[String]) -> Result<ParamMap, String> {
    let mut m = ParamMap::new();
    for p in raw {
        let (k, v) = p
            .split_once('=')
            .ok_or_else(|| format!("--param '{p}': expected KEY=VALUE"))?;
        let (k, v) = (k.trim(), v.trim());
        if k.is_empty() || v.is_empty() {
            return Err(format!("--param '{p}': expected KEY=VALUE"));
        }
        if m.insert(k.to_string(), v.to_string()).is_some() {
            return Err(format!("--param {k} is given more than once"));
        }
    }
    Ok(m)
}

use heavydp::pipeline::parse_number;

/// Writes `bytes` to `path` atomically (temporary file in the same folder, then rename),
/// so a failure never leaves a half-written file.
pub fn write_atomic(path: &str, bytes: &[u8]) -> Result<(), String> {
    let p = Path::new(path);
    let dir = p
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    if !dir.is_dir() {
        return Err(format!(
            "{path}: the folder {} does not exist",
            dir.display()
        ));
    }
    let tmp = dir.join(format!(
        ".{}.tmp{}",
        p.file_name().and_then(|s| s.to_str()).unwrap_or("out"),
        std::process::id()
    ));
    let res = (|| -> std::io::Result<()> {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, p)
    })();
    if let Err(e) = res {
        let _ = std::fs::remove_file(&tmp);
        return Err(format!("{path}: cannot write: {e}"));
    }
    Ok(())
}

fn cmd_algorithms(json: bool) -> Result<(), String> {
    let cat = algorithms::catalogue();
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&cat).map_err(|e| e.to_string())?
        );
        return Ok(());
    }
    println!(
        "{:<26} {:<36} {:<8} {:<28} domains",
        "name", "paper", "privacy", "losses"
    );
    for a in cat {
        println!(
            "{:<26} {:<36} {:<8} {:<28} {}",
            a.name,
            a.paper,
            a.privacy,
            a.losses.join(","),
            a.domains.join(",")
        );
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
    let mut buf = Vec::with_capacity(a.n * (a.d + 1) * 20);
    data::write_csv(&ds, &mut buf).map_err(|e| e.to_string())?;
    let truth_json = serde_json::to_vec_pretty(&serde_json::json!({
        "scenario": truth.scenario, "w_star": truth.w_star, "loss": truth.loss, "domain": truth.domain,
        "n": truth.n, "d": truth.d, "sparsity": truth.sparsity, "parameters": truth.parameters, "seed": a.seed,
    }))
    .map_err(|e| e.to_string())?;
    if let Some(t) = &a.truth {
        // check the truth folder before writing anything
        let dir = Path::new(t)
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        if !dir.is_dir() {
            return Err(format!("{t}: the folder {} does not exist", dir.display()));
        }
    }
    write_atomic(&a.out, &buf)?;
    if let Some(t) = &a.truth {
        write_atomic(t, &truth_json)?;
    }
    Ok(())
}

/// A progress bar on stderr, drawn only when stderr is a terminal.
struct Progress(Option<indicatif::ProgressBar>);

impl Progress {
    fn new() -> Self {
        Progress(None)
    }
}

impl Observer for Progress {
    fn on_start(&mut self, total: usize) {
        if std::io::stderr().is_terminal() && total > 0 {
            let pb = indicatif::ProgressBar::new(total as u64);
            pb.set_style(
                indicatif::ProgressStyle::with_template(
                    "{spinner} iterations {pos}/{len} [{bar:30}] {eta}",
                )
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
            );
            self.0 = Some(pb);
        }
    }
    fn on_iteration(&mut self, it: usize) {
        if let Some(pb) = &self.0 {
            pb.set_position(it as u64);
        }
    }
    fn on_finish(&mut self) {
        if let Some(pb) = self.0.take() {
            pb.finish_and_clear();
        }
    }
}

fn cmd_fit(a: FitArgs) -> Result<(), String> {
    use heavydp::pipeline::{self, FitOptions};
    use heavydp::preprocess::{InterceptMode, PublicScales, ScaleMode};
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
    let radius = match &a.radius {
        Some(r) => Some(parse_number("--radius", r)?),
        None => None,
    };
    let intercept = match a.intercept.as_str() {
        "private" => InterceptMode::Private,
        "none" => InterceptMode::None,
        other => {
            return Err(format!(
                "--intercept must be 'private' or 'none'; got '{other}'"
            ))
        }
    };
    let scale = match a.scale.as_str() {
        "private" => ScaleMode::Private,
        "none" => ScaleMode::None,
        other => match other.strip_prefix("public:") {
            Some(path) if !path.is_empty() => {
                ScaleMode::Public(PublicScales::read(path).map_err(|e| e.to_string())?)
            }
            _ => {
                return Err(format!(
                    "--scale must be 'private', 'none' or 'public:FILE.json'; got '{other}'"
                ))
            }
        },
    };
    let preprocess_share = match &a.preprocess_share {
        Some(f) => Some(parse_number("--preprocess-share", f)?),
        None => None,
    };
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
    };
    pipeline::precheck(&opts)?;
    let ds = data::read_csv(&a.data, &a.target).map_err(|e| e.to_string())?;
    let mut rng = make_rng(a.seed);
    let out = pipeline::fit(ds, &opts, &mut rng, &mut Progress::new())?;
    for m in &out.messages {
        eprintln!("note: {m}");
    }
    let text = serde_json::to_vec_pretty(&out.model).map_err(|e| e.to_string())?;
    match &out_path {
        None => {
            let mut o = std::io::stdout().lock();
            o.write_all(&text)
                .and_then(|_| o.write_all(b"\n"))
                .map_err(|e| e.to_string())
        }
        Some(p) => write_atomic(p, &text),
    }
}

fn cmd_mean(a: MeanArgs) -> Result<(), String> {
    use heavydp::estimators::private_mean;
    if a.list {
        println!(
            "{}",
            serde_json::to_string_pretty(&private_mean::mean_estimator_info())
                .map_err(|e| e.to_string())?
        );
        return Ok(());
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
    if let Some(o) = &a.out {
        let dir = Path::new(o)
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        if !dir.is_dir() {
            return Err(format!("{o}: the folder {} does not exist", dir.display()));
        }
    }
    let ds = data::read_csv_features(&data_path, None).map_err(|e| e.to_string())?;
    let mut rng = make_rng(a.seed);
    let report =
        private_mean::private_mean(&name, ds.x(), ds.n(), ds.d(), budget, &params, &mut rng)
            .map_err(|e| e.to_string())?;
    let json = serde_json::json!({
        "format": "heavydp-mean/1",
        "heavydp_version": heavydp::VERSION,
        "estimator": name,
        "columns": ds.feature_names(),
        "n": ds.n(),
        "d": ds.d(),
        "mean": report.mean,
        "privacy": report.privacy,
        "hyperparameters": report.hyperparameters,
        "notes": report.notes,
        "seed": a.seed,
    });
    let text = serde_json::to_string_pretty(&json).map_err(|e| e.to_string())?;
    match &a.out {
        Some(o) => write_atomic(o, format!("{text}\n").as_bytes()),
        None => {
            println!("{text}");
            Ok(())
        }
    }
}

fn load_for_model(m: &ModelFile, data_path: &str) -> Result<data::Dataset, String> {
    data::read_csv_features(data_path, Some(&m.features)).map_err(|e| e.to_string())
}

fn cmd_predict(model_path: &str, data_path: &str, out: Option<&str>) -> Result<(), String> {
    let m = ModelFile::read(model_path).map_err(|e| e.to_string())?;
    let ds = load_for_model(&m, data_path)?;
    let preds = m.predict(&ds);
    let mut s = String::with_capacity(preds.len() * 20 + 16);
    s.push_str("prediction\n");
    for p in preds {
        s.push_str(&data::format_float(p));
        s.push('\n');
    }
    match out {
        Some(o) => write_atomic(o, s.as_bytes()),
        None => std::io::stdout()
            .write_all(s.as_bytes())
            .map_err(|e| e.to_string()),
    }
}

fn cmd_evaluate(model_path: &str, data_path: &str, truth: Option<&str>) -> Result<(), String> {
    let m = ModelFile::read(model_path).map_err(|e| e.to_string())?;
    let loss = m.loss_kind().map_err(|e| e.to_string())?;
    // One read; features reordered to the model's order.
    let mut ds = data::read_csv(data_path, &m.target)
        .and_then(|d| d.select_features(&m.features, data_path))
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
    println!(
        "{}",
        serde_json::to_string_pretty(&metrics).map_err(|e| e.to_string())?
    );
    Ok(())
}
