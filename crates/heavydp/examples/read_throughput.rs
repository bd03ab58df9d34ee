//! Input throughput (docs/performance.md, "Input formats"): reads each file given on the command line
//! with `heavydp::io::read_dataset` (format by extension, target `y`) and prints the
//! time, MB/s of file size and MB/s of the matrix filled (n × (d + 1) doubles).
//! `cargo run --release -p heavydp --example read_throughput -- FILE...`
fn main() {
    for path in std::env::args().skip(1) {
        let bytes = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0) as f64;
        let t = std::time::Instant::now();
        let ds =
            heavydp::io::read_dataset(&path, Some("y"), None).unwrap_or_else(|e| panic!("{e}"));
        let s = t.elapsed().as_secs_f64();
        let matrix = (ds.n() * (ds.d() + 1) * 8) as f64;
        println!(
            "{path}: n = {}, d = {}, {:.3} s, file {:.0} MB/s, matrix {:.0} MB/s",
            ds.n(),
            ds.d(),
            s,
            bytes / s / 1e6,
            matrix / s / 1e6
        );
    }
}
