//! `heavydp audit`: list the audit targets, or run one and print its JSON report (see
//! `heavydp::audit` for the method).

use clap::Args;
use heavydp::audit::{self, AuditError};

pub const AUDIT_HELP: &str = "Empirical privacy audit of a mechanism or algorithm.\n\n\
The target runs --trials times on each of two built-in neighbouring datasets D and D' (one record replaced); \
a scalar statistic of each release is compared by a threshold test: the event {statistic > t} or {statistic <= t} \
is chosen on the first 30% of the trials, and one-sided Clopper-Pearson bounds on the remaining 70% give \
epsilon_lower_bound = ln((p_lo(S|P) - delta) / p_hi(S|Q)) with 95% confidence. passed = (epsilon_lower_bound <= --epsilon).\n\n\
A failure is evidence of a privacy bug; a pass is not a proof (the bound is a lower bound). Every target NAME has a \
deliberately broken twin NAME-broken (sensitivity halved, a noise draw skipped, or the algorithm run at c times the \
claimed epsilon) that the audit must flag.\n\n\
--delta defaults to 0 for pure-DP targets and 1e-5 for (epsilon, delta) and zCDP targets (the Gaussian mechanism is \
calibrated to and audited at its (epsilon, delta) conversion). Trial i on D uses the seed derive_seed(--seed, [NAME, \"D\", i]), \
so the report does not depend on the number of threads. Run `heavydp audit --list` for the targets.";

#[derive(Args)]
pub struct AuditArgs {
    /// List every target (name, kind, privacy model, default trials, the twin's defect).
    #[arg(long)]
    list: bool,
    /// With --list: print a JSON array with each target's release, neighbours and statistic.
    #[arg(long)]
    json: bool,
    /// Target name (a mechanism, mean estimator or --algorithm name, or NAME-broken).
    #[arg(long)]
    target: Option<String>,
    /// Claimed epsilon (finite, > 0).
    #[arg(long, allow_hyphen_values = true)]
    epsilon: Option<String>,
    /// Claimed delta in [0, 1) (default: 0 for pure targets, 1e-5 otherwise).
    #[arg(long, allow_hyphen_values = true)]
    delta: Option<String>,
    /// Runs on each of D and D' (default: the target's, see --list).
    #[arg(long, allow_hyphen_values = true)]
    trials: Option<String>,
    /// Base seed of the per-trial seeds.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

fn number(flag: &str, v: &str) -> Result<f64, String> {
    v.trim()
        .parse::<f64>()
        .map_err(|_| format!("{flag} must be a number; got '{v}'"))
}

fn cmd_list(json: bool) -> Result<(), String> {
    let rows: Vec<_> = audit::targets().iter().map(|t| t.listing()).collect();
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&rows).map_err(|e| e.to_string())?
        );
        return Ok(());
    }
    println!(
        "{:<32} {:<15} {:<8} {:>8}  defect of the twin",
        "target", "kind", "privacy", "trials"
    );
    for r in rows {
        let kind = serde_json::to_value(r.kind)
            .ok()
            .and_then(|v| v.as_str().map(String::from))
            .unwrap_or_default();
        println!(
            "{:<32} {:<15} {:<8} {:>8}  {}",
            r.name,
            kind,
            r.privacy,
            r.default_trials,
            r.defect.as_deref().unwrap_or("-")
        );
    }
    Ok(())
}

pub fn run(a: AuditArgs) -> Result<(), String> {
    if a.list {
        if a.target.is_some() {
            return Err("give either --list or --target NAME, not both".into());
        }
        return cmd_list(a.json);
    }
    if a.json {
        return Err("--json applies only to --list".into());
    }
    let name = a
        .target
        .ok_or("missing --target NAME (run `heavydp audit --list` for the list)")?;
    let target = audit::target(&name).map_err(|e| e.to_string())?;
    let epsilon = match &a.epsilon {
        Some(e) => number("--epsilon", e)?,
        None => return Err("missing --epsilon E (the claimed epsilon)".into()),
    };
    let delta = match &a.delta {
        Some(d) => Some(number("--delta", d)?),
        None => None,
    };
    let trials = match &a.trials {
        None => target.default_trials(),
        Some(t) => t
            .trim()
            .parse::<usize>()
            .map_err(|_| format!("--trials must be a whole number >= 2; got '{t}'"))?,
    };
    let spin = crate::Spinner::start(format!(
        "auditing {name}: {trials} trials on each of D and D'"
    ));
    let report = audit::run_audit(&target, epsilon, delta, trials, a.seed);
    drop(spin);
    let report = report.map_err(|e: AuditError| e.to_string())?;
    println!(
        "{}",
        serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?
    );
    Ok(())
}
