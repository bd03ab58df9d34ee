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

/// The output pasted into docs/guide.md is the script's output on the whole wage data
/// (seeded fits, so the same on every machine): a change that moves a figure of the
/// worked example fails here until the guide is pasted again
/// (`HEAVYDP=target/release/heavydp scripts/guide_example.sh data/real/cps1988_wage.csv y 1 1`).
#[test]
fn guide_pastes_the_scripts_current_output() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let guide = std::fs::read_to_string(root.join("docs/guide.md")).expect("docs/guide.md");
    let marker = "<!-- output of scripts/guide_example.sh, pasted -->\n```text\n";
    let start = guide.find(marker).expect("the guide's pasted output") + marker.len();
    let end = start
        + guide[start..]
            .find("```\n")
            .expect("the end of the pasted output");
    let o = std::process::Command::new("sh")
        .arg(root.join("scripts/guide_example.sh"))
        .args(["data/real/cps1988_wage.csv", "y", "1", "1"])
        .env("HEAVYDP", assert_cmd::cargo::cargo_bin("heavydp"))
        .current_dir(&root)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        guide[start..end].trim_end(),
        out.trim_end(),
        "docs/guide.md's pasted output is not the script's"
    );
}
