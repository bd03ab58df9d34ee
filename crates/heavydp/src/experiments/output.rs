//! `results.csv` and `summary.json`.

use super::{Plan, Results};
use crate::data::format_float;
use serde_json::{json, Value};

/// `results.csv`: a column for every varied parameter (in [`Plan::axes`] order), then
/// `method`, `metric`, `mean`, `std`, `reps`; one row per (setting, method, metric).
pub fn results_csv(plan: &Plan, results: &Results) -> String {
    let mut s = String::new();
    for a in &plan.axes {
        s.push_str(a.name);
        s.push(',');
    }
    s.push_str("method,metric,mean,std,reps\n");
    for r in &results.rows {
        for (_, v) in &r.setting {
            s.push_str(&format_float(*v));
            s.push(',');
        }
        s.push_str(&csv_field(&r.method));
        s.push(',');
        s.push_str(&csv_field(&r.metric));
        s.push(',');
        s.push_str(&num(r.summary.mean));
        s.push(',');
        s.push_str(&num(r.summary.std));
        s.push(',');
        s.push_str(&r.summary.reps.to_string());
        s.push('\n');
    }
    s
}

/// The `results.csv` of the hand-written experiments (`wangxu-rate`, `zhao-mean-tails`,
/// `tian-table-genomics`): the header `columns` (the setting columns, then
/// `method,metric,mean,std,reps`), then per row of `rows` one line per metric,
/// `{setting and method cells},{metric},{value},{std},{reps}`. `cells(row)` gives the
/// leading cells (already joined and quoted as the experiment writes them), the number of
/// repetitions and the (metric, value, std) triples.
pub(crate) fn metric_lines_csv<R, M: std::fmt::Display>(
    columns: &str,
    rows: &[R],
    cells: impl Fn(&R) -> (String, usize, Vec<(M, f64, f64)>),
) -> String {
    let mut s = format!("{columns}\n");
    for row in rows {
        let (lead, reps, metrics) = cells(row);
        for (metric, v, sd) in metrics {
            s.push_str(&format!("{lead},{metric},{v},{sd},{reps}\n"));
        }
    }
    s
}

fn num(v: f64) -> String {
    if v.is_finite() {
        format_float(v)
    } else {
        "NaN".to_string()
    }
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn finite_or_null(v: f64) -> Value {
    if v.is_finite() {
        json!(v)
    } else {
        Value::Null
    }
}

/// `summary.json`: what was run (id, paper, description, grid, fixed settings, methods,
/// hyperparameter choices — flagging project choices and any use of the paper's printed
/// s = ⌊nε⌋ / k = c₂nε —, the resolved hyperparameters per setting), the base seed and
/// every repetition's derived seed, timings, failures and the library version. `extra`
/// (e.g. the CLI's thread count and file names) is merged in at the top level.
pub fn summary_json(plan: &Plan, results: &Results, extra: Value) -> Value {
    let settings: Vec<Value> = plan
        .settings
        .iter()
        .map(|s| {
            let mut o = serde_json::Map::new();
            o.insert("key".into(), json!(s.key()));
            for (k, v) in &s.values {
                o.insert((*k).into(), json!(v));
            }
            o.insert("epsilon".into(), json!(s.epsilon));
            if let Some(n) = s.n {
                o.insert("n".into(), json!(n));
            }
            if let Some(d) = s.d {
                o.insert("d".into(), json!(d));
            }
            if let Some(k) = s.sparsity {
                o.insert("s_star".into(), json!(k));
            }
            if let Some(f) = s.fraction {
                o.insert("fraction".into(), json!(f));
            }
            Value::Object(o)
        })
        .collect();
    // H20/H21: flag the printed s = ⌊nε⌋ (Algorithm 1) or k = c₂nε (Algorithm 5), asked
    // for through parameters or reported by a fit as its preset.
    let printed = plan.uses_printed_settings()
        || results.resolved.iter().any(|h| {
            plan.methods.iter().any(|m| {
                m.label == h.method
                    && matches!(m.algorithm.as_str(), "ht-frank-wolfe" | "ht-sparse-opt")
            }) && (h.hyperparameters.get("preset") == Some(&json!("paper")))
        });
    let mut v = json!({
        "format": "heavydp-experiment/1",
        "id": plan.id,
        "paper": plan.paper,
        "description": plan.description,
        "data_note": plan.data_note,
        "quick": plan.options.quick,
        "options": {
            "preset": plan.options.preset,
            "eval": plan.options.eval,
        },
        "grid": {
            "axes": plan.axes,
            "x_axis": plan.x_axis,
            "series_axis": plan.series_axis,
            "settings": settings,
        },
        "fixed": plan.fixed,
        "source": plan.source,
        "loss": plan.loss.name(),
        "eval_l2_penalty": plan.eval_l2_penalty,
        "methods": plan.methods,
        "metrics": plan.metrics,
        "hyperparameters": {
            "choices": plan.choices,
            "project_choices": plan.choices.iter().filter(|c| c.project_choice).map(|c| c.name.clone()).collect::<Vec<_>>(),
            "printed_settings_used": printed,
            "printed_settings_note": if printed {
                "the paper's printed hyperparameters were used (preset=paper): Algorithm 1's s = floor(n eps) makes the exponential mechanism almost uniform (spec H20); Algorithm 5's k = c2 n eps swamps the signal (spec H21)"
            } else {
                "the printed s = floor(n eps) (Algorithm 1) and k = c2 n eps (Algorithm 5) were NOT used; the theory values were (spec H20, H21)"
            },
            "resolved": results.resolved,
        },
        "real_data": results.real_data,
        "reps": results.reps,
        "seeds": {
            "base_seed": results.base_seed,
            "derivation": "rep_seed = derive_seed(base_seed, [id, setting key, rep]); data = derive_seed(rep_seed, ['data']) (real data: ['subsample']); method noise = derive_seed(rep_seed, ['method', label]); evaluation sample = derive_seed(rep_seed, ['eval']); heavydp::noise::derive_seed, ChaCha20 generators",
            "per_setting": results.seeds,
        },
        "timings": results.timings,
        "failures": results.failures,
        "results": results.rows.iter().map(|r| json!({
            "setting": r.setting_key,
            "method": r.method,
            "metric": r.metric,
            "mean": finite_or_null(r.summary.mean),
            "std": finite_or_null(r.summary.std),
            "std_error": finite_or_null(r.summary.std_error()),
            "reps": r.summary.reps,
        })).collect::<Vec<_>>(),
        "heavydp_version": crate::VERSION,
    });
    if let (Value::Object(o), Value::Object(e)) = (&mut v, extra) {
        for (k, val) in e {
            o.insert(k, val);
        }
    }
    v
}
