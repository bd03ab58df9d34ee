//! One machine, 10⁹ cells. `ht-frank-wolfe`, `dp-iht-huber` and
//! `clipped-gd` fitted on n = 10⁶ rows × d = 10³ features (8 GB of float64) read from a
//! Parquet file, with the wall time, the peak memory and the time split (read /
//! preprocessing / algorithm) of each. Opt-in (about 10 minutes and 10 GB of memory):
//!
//! ```text
//! HEAVYDP_BILLION_DIR=/big/disk cargo test --release -p heavydp --test integration billion:: -- --ignored --nocapture
//! ```
//!
//! The Parquet file (`tian-sparse-student`, seed 1, about 8 GB) is written on the first
//! run and reused. Figures of a run are in `docs/performance.md`.

use heavydp::algorithms::Observer;
use heavydp::data::scenarios;
use heavydp::io;
use heavydp::noise::rng_from_seed;
use heavydp::pipeline::{self, FitOptions};
use std::time::Instant;

const N: usize = 1_000_000;
const D: usize = 1_000;

/// The process's peak resident set (VmHWM), in bytes.
fn peak_rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

/// Resets VmHWM to the current resident set (Linux ≥ 4.0), so each fit's peak is its own.
fn reset_peak() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// Records when the algorithm starts (after the private preprocessing).
struct Clock {
    started: Option<Instant>,
}
impl Observer for Clock {
    fn on_start(&mut self, _total: usize) {
        self.started.get_or_insert_with(Instant::now);
    }
}

#[test]
#[ignore = "10⁹ cells (8 GB): run by hand, see the module docs"]
fn billion_cells_from_parquet() {
    let dir = std::env::var("HEAVYDP_BILLION_DIR").unwrap_or_else(|_| "/tmp".into());
    let path = format!("{dir}/heavydp-billion-{N}x{D}.parquet");
    let truth_path = format!("{path}.truth.json");
    if !std::path::Path::new(&path).exists() {
        let t = Instant::now();
        let (ds, truth) = scenarios::simulate(
            "tian-sparse-student",
            N,
            D,
            None,
            &Default::default(),
            &mut rng_from_seed(1),
        )
        .unwrap();
        let tmp = format!("{path}.part");
        let f = std::io::BufWriter::new(std::fs::File::create(&tmp).unwrap());
        io::write_dataset(&ds, io::Format::Parquet, f, &tmp).unwrap();
        std::fs::write(&truth_path, serde_json::to_string(&truth.w_star).unwrap()).unwrap();
        std::fs::rename(&tmp, &path).unwrap();
        eprintln!("wrote {path} in {:.1} s", t.elapsed().as_secs_f64());
    }
    let w_star: Vec<f64> =
        serde_json::from_str(&std::fs::read_to_string(&truth_path).unwrap()).unwrap();
    let matrix = (N * D * 8) as f64;
    for (name, params) in [
        ("ht-frank-wolfe", vec![]),
        ("dp-iht-huber", vec![]),
        // T = 20 full passes (the default, Theorem 4's T, is capped at 10 000 passes)
        ("clipped-gd", vec![("T", "20")]),
    ] {
        reset_peak();
        let t0 = Instant::now();
        let ds = io::read_dataset(&path, Some("y"), None).unwrap();
        let read = t0.elapsed().as_secs_f64();
        let mut opts = FitOptions::new(name, 1.0);
        opts.seed = Some(7);
        opts.sparsity = Some(w_star.iter().filter(|w| **w != 0.0).count().max(1));
        for (k, v) in params {
            opts.params.insert(k.into(), v.into());
        }
        let mut clock = Clock { started: None };
        let t1 = Instant::now();
        let out = pipeline::fit(ds, &opts, &mut rng_from_seed(7), &mut clock).unwrap();
        let total_fit = t1.elapsed().as_secs_f64();
        let pre = clock
            .started
            .map_or(0.0, |s| s.duration_since(t1).as_secs_f64());
        let err = heavydp::linalg::dist2(&out.model.weights, &w_star);
        let peak = peak_rss() as f64;
        println!(
            "{}",
            serde_json::json!({
                "algorithm": name, "n": N, "d": D,
                "wall_s": read + total_fit, "read_s": read, "preprocess_s": pre,
                "algorithm_s": total_fit - pre,
                "peak_rss_gb": peak / 1e9, "peak_over_matrix": peak / matrix,
                "l2_error_vs_truth": err,
                "w_star_norm": w_star.iter().map(|w| w * w).sum::<f64>().sqrt(),
            })
        );
        assert!(out.model.weights.iter().all(|w| w.is_finite()));
    }
}
