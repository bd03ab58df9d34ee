//! docs/guide.md's worked example: `scripts/guide_example.sh` runs with the built binary on
//! the first 2 000 rows of the shipped wage data, and prints the table the guide pastes.

use std::path::Path;

#[test]
fn guide_example_script_runs_on_a_subsample() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let data = root.join("data/real/cps1988_wage.csv");
    let text = std::fs::read_to_string(&data).expect("the shipped wage data");
    let dir = tempfile::TempDir::new().unwrap();
    let sub = dir.path().join("cps2k.csv");
    let head: Vec<&str> = text.lines().take(2001).collect();
    std::fs::write(&sub, head.join("\n") + "\n").unwrap();
    let o = std::process::Command::new("sh")
        .arg(root.join("scripts/guide_example.sh"))
        .args([sub.to_str().unwrap(), "y", "1", "1"])
        .env("HEAVYDP", assert_cmd::cargo::cargo_bin("heavydp"))
        .current_dir(&root)
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{out}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(out.contains("n = 2000"), "{out}");
    let rows: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| model"))
        .collect();
    assert_eq!(rows.len(), 5, "{out}");
    let ratio = |r: &str| -> f64 {
        r.trim_end_matches('|')
            .rsplit('|')
            .next()
            .unwrap()
            .trim()
            .parse()
            .unwrap()
    };
    // the mean predictor is the unit; the non-private fit beats it; every ratio is finite
    assert_eq!(ratio(rows[0]), 1.0, "{out}");
    assert!(ratio(rows[1]) < 1.0, "{out}");
    for r in &rows {
        assert!(ratio(r).is_finite() && ratio(r) > 0.0, "{r}");
    }
    assert!(out.contains("note: --algorithm auto"), "{out}");
}
