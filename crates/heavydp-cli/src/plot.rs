//! The experiment figure: a 900 × 600 PNG drawn with `plotters`' bitmap backend and an
//! embedded font (Noto Sans Regular from the `ttf-noto-sans` crate, Apache-2.0), so it
//! renders on a machine without system fonts.
//!
//! Layout, like the paper's panels: x = the varied axis (ε, n, s\* or the subsample
//! share), y = the metric (one panel per metric), one line with markers per
//! (method, series value), error bars ± one standard error of the mean, a legend, the
//! ID and description as title. The y-axis is logarithmic when the x-axis is a sample
//! size (error vs n decays like a power of n) and every mean is positive; otherwise
//! linear (e.g. the logistic excess risk over w\* can be negative, spec H25).

use heavydp::experiments::{Plan, ResultRow, Results};
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::prelude::*;
use std::path::Path;
use std::sync::Once;

const FONT: &str = "sans-serif";
const SIZE: (u32, u32) = (900, 600);
const COLORS: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

static FONT_ONCE: Once = Once::new();

fn register_font() -> Result<(), String> {
    let mut ok = true;
    FONT_ONCE.call_once(|| {
        ok =
            plotters::style::register_font(FONT, FontStyle::Normal, ttf_noto_sans::REGULAR).is_ok();
    });
    if ok {
        Ok(())
    } else {
        Err("the embedded font could not be loaded".into())
    }
}

/// One curve: label, (x, mean, standard error) points sorted by x.
struct Curve {
    label: String,
    method: usize,
    points: Vec<(f64, f64, f64)>,
}

fn axis_value(r: &ResultRow, name: &str) -> Option<f64> {
    r.setting.iter().find(|(k, _)| *k == name).map(|(_, v)| *v)
}

fn series_label(name: &str, v: f64) -> String {
    match name {
        "epsilon" => format!("ε = {v}"),
        "s_star" => format!("s* = {v}"),
        "zeta" => format!("ζ = {v}"),
        _ => format!("{name} = {v}"),
    }
}

fn curves(plan: &Plan, results: &Results, metric: &str) -> Vec<Curve> {
    let mut out: Vec<Curve> = Vec::new();
    let series_values: Vec<Option<f64>> = match plan.series_axis {
        Some(s) => plan
            .axes
            .iter()
            .find(|a| a.name == s)
            .map(|a| a.values.iter().map(|v| Some(*v)).collect())
            .unwrap_or_default(),
        None => vec![None],
    };
    for (mi, m) in plan.methods.iter().enumerate() {
        for sv in &series_values {
            let mut pts: Vec<(f64, f64, f64)> = results
                .rows
                .iter()
                .filter(|r| r.method == m.label && r.metric == metric)
                .filter(|r| match (sv, plan.series_axis) {
                    (Some(v), Some(s)) => axis_value(r, s) == Some(*v),
                    _ => true,
                })
                .filter_map(|r| {
                    let x = axis_value(r, plan.x_axis)?;
                    r.summary.mean.is_finite().then(|| {
                        let se = r.summary.std_error();
                        (x, r.summary.mean, if se.is_finite() { se } else { 0.0 })
                    })
                })
                .collect();
            pts.sort_by(|a, b| a.0.total_cmp(&b.0));
            let label = match (sv, plan.series_axis) {
                (Some(v), Some(s)) if plan.methods.len() > 1 => {
                    format!("{}, {}", m.label, series_label(s, *v))
                }
                (Some(v), Some(s)) => series_label(s, *v),
                _ => m.label.clone(),
            };
            out.push(Curve {
                label,
                method: mi,
                points: pts,
            });
        }
    }
    out
}

fn x_label(name: &str) -> &'static str {
    match name {
        "epsilon" => "privacy parameter ε",
        "n" => "sample size n",
        "s_star" => "sparsity s*",
        "subsample_pct" => "subsample size (% of the dataset)",
        "d" => "dimension d",
        _ => "setting",
    }
}

fn metric_label(name: &str) -> &'static str {
    match name {
        "excess_risk" => "excess risk L(w) − L(w*)",
        "l2_error" => "ℓ2 error ||w − w*||",
        _ => "value",
    }
}

/// Whether a metric panel uses a log y-axis (see the module docs).
fn log_y(plan: &Plan, cs: &[Curve]) -> bool {
    matches!(plan.x_axis, "n" | "subsample_pct")
        && cs.iter().any(|c| !c.points.is_empty())
        && cs.iter().all(|c| c.points.iter().all(|p| p.1 > 0.0))
}

/// A short description of the figure for `summary.json`.
pub fn describe(plan: &Plan, results: &Results) -> serde_json::Value {
    let panels: Vec<serde_json::Value> = plan
        .metrics
        .iter()
        .map(|m| {
            let cs = curves(plan, results, m);
            serde_json::json!({
                "metric": m,
                "x": plan.x_axis,
                "y_scale": if log_y(plan, &cs) { "log" } else { "linear" },
                "curves": cs.iter().map(|c| c.label.clone()).collect::<Vec<_>>(),
                "error_bars": "plus/minus one standard error of the mean",
            })
        })
        .collect();
    serde_json::json!({"size": [SIZE.0, SIZE.1], "panels": panels})
}

/// Splits a title into lines of at most `width` characters at spaces.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut cur = String::new();
    for w in text.split(' ') {
        if !cur.is_empty() && cur.chars().count() + 1 + w.chars().count() > width {
            lines.push(std::mem::take(&mut cur));
        }
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(w);
    }
    if !cur.is_empty() {
        lines.push(cur);
    }
    lines
}

fn fmt_tick(v: f64) -> String {
    let a = v.abs();
    if a < 1e-10 {
        "0".into()
    } else if !(1e-3..1e4).contains(&a) {
        format!("{v:.1e}")
    } else if a >= 100.0 {
        format!("{v:.0}")
    } else {
        let s = format!("{v:.4}");
        let s = s.trim_end_matches('0').trim_end_matches('.');
        s.to_string()
    }
}

/// Tick marks of a log axis on [lo, hi]: powers of ten, or 1-2-5 / 1…9 multiples of
/// them when the range spans too few decades for at least four ticks.
fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let mut best = Vec::new();
    for mantissas in [
        &[1.0][..],
        &[1.0, 2.0, 5.0],
        &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0],
    ] {
        let mut t = Vec::new();
        let mut e = lo.log10().floor() as i32;
        while 10f64.powi(e) <= hi {
            for m in mantissas {
                let v = m * 10f64.powi(e);
                if v >= lo && v <= hi {
                    t.push(v);
                }
            }
            e += 1;
        }
        best = t;
        if best.len() >= 4 {
            break;
        }
    }
    best
}

fn fmt_x(name: &str, v: f64) -> String {
    match name {
        "n" if v >= 1000.0 => format!("{}k", v / 1000.0),
        _ => fmt_tick(v),
    }
}

/// Draws the figure into `path` (PNG).
pub fn render(plan: &Plan, results: &Results, path: &Path) -> Result<(), String> {
    let title = format!("{}: {}", plan.id, plan.description);
    let (root, body) = canvas(path, &title)?;
    let panels = body.split_evenly((1, plan.metrics.len().max(1)));
    for (pi, metric) in plan.metrics.iter().enumerate() {
        let cs = curves(plan, results, metric);
        let (mut x0, mut x1) = (f64::INFINITY, f64::NEG_INFINITY);
        let (mut y0, mut y1) = (f64::INFINITY, f64::NEG_INFINITY);
        let mut y_pos_min = f64::INFINITY;
        for c in &cs {
            for &(x, m, se) in &c.points {
                x0 = x0.min(x);
                x1 = x1.max(x);
                y0 = y0.min(m - se);
                y1 = y1.max(m + se);
                if m > 0.0 {
                    y_pos_min = y_pos_min.min(if m - se > 0.0 { m - se } else { m });
                }
            }
        }
        let area = &panels[pi];
        if !x0.is_finite() {
            area.draw(&Text::new(
                format!("{metric}: no successful repetitions"),
                (60, 60),
                (FONT, 16).into_font(),
            ))
            .map_err(|e| e.to_string())?;
            continue;
        }
        let xpad = if x1 > x0 {
            0.05 * (x1 - x0)
        } else {
            0.5 * x0.abs().max(1.0)
        };
        let xr = (x0 - xpad)..(x1 + xpad);
        let log = log_y(plan, &cs);
        if log {
            // at least a factor 4 between the ends, so the log ticks are readable
            let (mut lo, mut hi) = (y_pos_min / 1.25, y1 * 1.25);
            if hi / lo < 4.0 {
                let widen = (4.0 * lo / hi).sqrt();
                lo /= widen;
                hi *= widen;
            }
            let ticks = log_ticks(lo, hi);
            draw_panel(
                area,
                plan,
                metric,
                &cs,
                xr,
                (lo..hi).log_scale().with_key_points(ticks),
                lo,
                true,
            )?;
        } else {
            let span = if y1 > y0 { y1 - y0 } else { y0.abs().max(1e-3) };
            let (lo, hi) = (y0 - 0.08 * span, y1 + 0.15 * span);
            draw_panel(area, plan, metric, &cs, xr, lo..hi, lo, false)?;
        }
    }
    root.present().map_err(|e| e.to_string())?;
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn draw_panel<DB, Y>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    plan: &Plan,
    metric: &str,
    cs: &[Curve],
    xr: std::ops::Range<f64>,
    yr: Y,
    y_floor: f64,
    log: bool,
) -> Result<(), String>
where
    DB: DrawingBackend,
    Y: AsRangedCoord<Value = f64>,
    Y::CoordDescType: ValueFormatter<f64>,
{
    let mut chart = ChartBuilder::on(area)
        .margin(12)
        .x_label_area_size(42)
        .y_label_area_size(68)
        .build_cartesian_2d(xr, yr)
        .map_err(|e| e.to_string())?;
    let x_name = plan.x_axis;
    let x_fmt = |v: &f64| fmt_x(x_name, *v);
    let y_fmt = |v: &f64| fmt_tick(*v);
    let mut mesh = chart.configure_mesh();
    mesh.x_desc(x_label(plan.x_axis))
        .y_desc(if log {
            format!("{} (log scale)", metric_label(metric))
        } else {
            metric_label(metric).to_string()
        })
        .y_labels(if log { 14 } else { 10 })
        .x_label_formatter(&x_fmt)
        .y_label_formatter(&y_fmt);
    draw_faint_mesh(&mut mesh)?;
    for (ci, c) in cs.iter().enumerate() {
        if c.points.is_empty() {
            continue;
        }
        let color = COLORS[ci % COLORS.len()];
        let style = draw_curve_line(&mut chart, &c.points, &c.label, color)?;
        chart
            .draw_series(c.points.iter().map(|&(x, m, se)| {
                let lo = if log { (m - se).max(y_floor) } else { m - se };
                ErrorBar::new_vertical(
                    x,
                    lo,
                    m,
                    m + se,
                    ShapeStyle::from(&color).stroke_width(1),
                    8,
                )
            }))
            .map_err(|e| e.to_string())?;
        let filled = ShapeStyle::from(&color).filled();
        match c.method % 4 {
            0 => chart.draw_series(c.points.iter().map(|p| Circle::new((p.0, p.1), 4, filled))),
            1 => chart.draw_series(
                c.points
                    .iter()
                    .map(|p| TriangleMarker::new((p.0, p.1), 6, filled)),
            ),
            2 => chart.draw_series(c.points.iter().map(|p| {
                EmptyElement::at((p.0, p.1)) + Rectangle::new([(-4, -4), (4, 4)], filled)
            })),
            _ => chart.draw_series(c.points.iter().map(|p| Cross::new((p.0, p.1), 5, style))),
        }
        .map_err(|e| e.to_string())?;
    }
    draw_legend(&mut chart, SeriesLabelPosition::UpperRight, 15)?;
    Ok(())
}

/// The figure of a table experiment (`tian-table-genomics`): grouped bars — one group per
/// method, one bar per metric (e.g. in-sample and leave-one-out MAE) — with ± one
/// standard deviation whiskers.
pub fn render_bars(
    title: &str,
    y_desc: &str,
    methods: &[String],
    metrics: &[&str],
    values: &[Vec<(f64, f64)>],
    path: &Path,
) -> Result<(), String> {
    let (root, body) = canvas(path, title)?;
    let top = values
        .iter()
        .flatten()
        .map(|(m, s)| m + s)
        .filter(|v| v.is_finite())
        .fold(0.0f64, f64::max)
        * 1.15;
    // negative values (e.g. a gain kept below zero) extend the axis below 0
    let bottom = values
        .iter()
        .flatten()
        .map(|(m, s)| m - s)
        .filter(|v| v.is_finite())
        .fold(0.0f64, f64::min)
        * 1.15;
    let k = metrics.len().max(1) as f64;
    let mut chart = ChartBuilder::on(&body)
        .margin(16)
        .x_label_area_size(60)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..methods.len() as f64, bottom..top.max(1e-12))
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(methods.len() * 2 + 1)
        .x_label_formatter(&|x| {
            let i = (*x - 0.5).round();
            if (x - 0.5 - i).abs() < 1e-9 && i >= 0.0 && (i as usize) < methods.len() {
                methods[i as usize].clone()
            } else {
                String::new()
            }
        })
        .y_desc(y_desc)
        .label_style((FONT, 13))
        .axis_desc_style((FONT, 15))
        .draw()
        .map_err(|e| e.to_string())?;
    for (mi, metric) in metrics.iter().enumerate() {
        let color = COLORS[mi % COLORS.len()];
        let bars: Vec<(usize, f64, f64)> = values
            .iter()
            .enumerate()
            .filter_map(|(i, v)| v.get(mi).map(|(m, s)| (i, *m, *s)))
            .filter(|(_, m, _)| m.is_finite())
            .collect();
        let width = 0.8 / k;
        let x_of = |i: usize| i as f64 + 0.1 + width * mi as f64;
        chart
            .draw_series(bars.iter().map(|(i, m, _)| {
                Rectangle::new(
                    [(x_of(*i), 0.0), (x_of(*i) + width * 0.9, *m)],
                    color.filled(),
                )
            }))
            .map_err(|e| e.to_string())?
            .label(metric.to_string())
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 14, y + 5)], color.filled()));
        chart
            .draw_series(bars.iter().filter(|(_, _, s)| *s > 0.0).map(|(i, m, s)| {
                let xc = x_of(*i) + width * 0.45;
                PathElement::new(vec![(xc, m - s), (xc, m + s)], BLACK.stroke_width(2))
            }))
            .map_err(|e| e.to_string())?;
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .label_font((FONT, 14))
        .position(SeriesLabelPosition::UpperRight)
        .draw()
        .map_err(|e| e.to_string())?;
    root.present().map_err(|e| e.to_string())
}

/// A white figure of [`SIZE`] to be written to `path`, titled `title` ([`draw_title`]):
/// the whole area and the area below the title.
#[allow(clippy::type_complexity)]
fn canvas<'a>(
    path: &'a Path,
    title: &str,
) -> Result<
    (
        DrawingArea<BitMapBackend<'a>, plotters::coord::Shift>,
        DrawingArea<BitMapBackend<'a>, plotters::coord::Shift>,
    ),
    String,
> {
    register_font()?;
    let root = BitMapBackend::new(path, SIZE).into_drawing_area();
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let body = draw_title(&root, title)?;
    Ok((root, body))
}

/// Draws the line through a curve's (x, mean) points in `color` with its legend entry
/// (a short line of the same style); returns that style.
fn draw_curve_line<'a, DB, X, Y>(
    chart: &mut ChartContext<'a, DB, Cartesian2d<X, Y>>,
    points: &[(f64, f64, f64)],
    label: &str,
    color: RGBColor,
) -> Result<ShapeStyle, String>
where
    DB: DrawingBackend + 'a,
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    let style = ShapeStyle::from(&color).stroke_width(2);
    chart
        .draw_series(LineSeries::new(points.iter().map(|p| (p.0, p.1)), style))
        .map_err(|e| e.to_string())?
        .label(label)
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 22, y)], style));
    Ok(style)
}

/// The mesh style of the line figures — axis descriptions at 17 px, tick labels at 14 px,
/// no minor lines, faint major lines — then the mesh.
fn draw_faint_mesh<X, Y, DB>(
    mesh: &mut plotters::chart::MeshStyle<'_, '_, X, Y, DB>,
) -> Result<(), String>
where
    X: Ranged + ValueFormatter<X::ValueType>,
    Y: Ranged + ValueFormatter<Y::ValueType>,
    DB: DrawingBackend,
{
    mesh.axis_desc_style((FONT, 17))
        .label_style((FONT, 14))
        .light_line_style(WHITE.mix(0.0))
        .bold_line_style(BLACK.mix(0.12))
        .draw()
        .map_err(|e| e.to_string())
}

/// Draws `title` (wrapped at 100 characters) at the top of `root` and returns the area
/// below it.
fn draw_title<'a>(
    root: &DrawingArea<BitMapBackend<'a>, plotters::coord::Shift>,
    title: &str,
) -> Result<DrawingArea<BitMapBackend<'a>, plotters::coord::Shift>, String> {
    let lines = wrap(title, 100);
    let line_h = 22;
    for (i, l) in lines.iter().enumerate() {
        root.draw(&Text::new(
            l.clone(),
            (12, 6 + line_h * i as i32),
            (FONT, 18).into_font().color(&BLACK),
        ))
        .map_err(|e| e.to_string())?;
    }
    let (_, body) = root.split_vertically((8 + line_h * lines.len() as i32) as u32);
    Ok(body)
}

/// One curve of [`render_loglog`]: label and (x, y, standard error) points sorted by x.
pub struct LogCurve {
    pub label: String,
    pub points: Vec<(f64, f64, f64)>,
}

/// A log-log figure: `curves` with markers and ± one standard error bars, and dashed
/// reference lines `refs` (e.g. a theory slope).
pub fn render_loglog(
    title: &str,
    x_desc: &str,
    y_desc: &str,
    curves: &[LogCurve],
    refs: &[LogCurve],
    path: &Path,
) -> Result<(), String> {
    let (root, body) = canvas(path, title)?;
    let (mut x0, mut x1, mut y0, mut y1) = (
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::INFINITY,
        f64::NEG_INFINITY,
    );
    for c in curves.iter().chain(refs) {
        for &(x, y, se) in &c.points {
            if x > 0.0 && y > 0.0 {
                x0 = x0.min(x);
                x1 = x1.max(x);
                y0 = y0.min(if y - se > 0.0 { y - se } else { y });
                y1 = y1.max(y + se);
            }
        }
    }
    if !x0.is_finite() {
        body.draw(&Text::new(
            "no positive values to draw".to_string(),
            (60, 60),
            (FONT, 16).into_font(),
        ))
        .map_err(|e| e.to_string())?;
        return root.present().map_err(|e| e.to_string());
    }
    let (xl, xh) = (x0 / 1.3, x1 * 1.3);
    let (yl, yh) = (y0 / 1.5, y1 * 1.5);
    let mut chart = ChartBuilder::on(&body)
        .margin(12)
        .x_label_area_size(42)
        .y_label_area_size(70)
        .build_cartesian_2d(
            (xl..xh).log_scale().with_key_points(log_ticks(xl, xh)),
            (yl..yh).log_scale().with_key_points(log_ticks(yl, yh)),
        )
        .map_err(|e| e.to_string())?;
    let fmt = |v: &f64| fmt_tick(*v);
    let mut mesh = chart.configure_mesh();
    mesh.x_desc(format!("{x_desc} (log scale)"))
        .y_desc(format!("{y_desc} (log scale)"))
        .x_label_formatter(&fmt)
        .y_label_formatter(&fmt);
    draw_faint_mesh(&mut mesh)?;
    for (ci, c) in curves.iter().enumerate() {
        let color = COLORS[ci % COLORS.len()];
        draw_curve_line(&mut chart, &c.points, &c.label, color)?;
        chart
            .draw_series(c.points.iter().map(|&(x, m, se)| {
                ErrorBar::new_vertical(x, (m - se).max(yl), m, m + se, ShapeStyle::from(&color), 8)
            }))
            .map_err(|e| e.to_string())?;
        chart
            .draw_series(
                c.points
                    .iter()
                    .map(|p| Circle::new((p.0, p.1), 4, color.filled())),
            )
            .map_err(|e| e.to_string())?;
    }
    for (ri, r) in refs.iter().enumerate() {
        let color = COLORS[(curves.len() + ri) % COLORS.len()].mix(0.8);
        // dashed: short segments along the line in log space
        let (a, b) = (r.points[0], r.points[r.points.len() - 1]);
        let segs = 24;
        let at = |t: f64| {
            let x = (a.0.ln() + t * (b.0.ln() - a.0.ln())).exp();
            let y = (a.1.ln() + t * (b.1.ln() - a.1.ln())).exp();
            (x, y)
        };
        chart
            .draw_series((0..segs).step_by(2).map(|k| {
                PathElement::new(
                    vec![at(k as f64 / segs as f64), at((k + 1) as f64 / segs as f64)],
                    color.stroke_width(2),
                )
            }))
            .map_err(|e| e.to_string())?
            .label(r.label.clone())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 8, y)], color.stroke_width(2))
            });
    }
    draw_legend(&mut chart, SeriesLabelPosition::LowerLeft, 12)?;
    root.present().map_err(|e| e.to_string())
}

/// A figure with a log x-axis and a linear y-axis on `y_range`: `curves` (lines with
/// markers and ± `points.2` whiskers; markers cycle through circle, triangle, square,
/// cross) and faint dashed horizontal reference lines at `hlines` — the real-benchmark's
/// gain kept against n.
pub fn render_logx(
    title: &str,
    x_desc: &str,
    y_desc: &str,
    curves: &[LogCurve],
    y_range: (f64, f64),
    hlines: &[f64],
    path: &Path,
) -> Result<(), String> {
    let (root, body) = canvas(path, title)?;
    let (mut x0, mut x1) = (f64::INFINITY, f64::NEG_INFINITY);
    for c in curves {
        for &(x, _, _) in &c.points {
            if x > 0.0 {
                x0 = x0.min(x);
                x1 = x1.max(x);
            }
        }
    }
    if !x0.is_finite() {
        body.draw(&Text::new(
            "no values to draw".to_string(),
            (60, 60),
            (FONT, 16).into_font(),
        ))
        .map_err(|e| e.to_string())?;
        return root.present().map_err(|e| e.to_string());
    }
    let (xl, xh) = (x0 / 1.5, x1 * 1.5);
    let (yl, yh) = y_range;
    let mut chart = ChartBuilder::on(&body)
        .margin(12)
        .x_label_area_size(42)
        .y_label_area_size(60)
        .build_cartesian_2d(
            (xl..xh).log_scale().with_key_points(log_ticks(xl, xh)),
            yl..yh,
        )
        .map_err(|e| e.to_string())?;
    let x_fmt = |v: &f64| fmt_x("n", *v);
    let y_fmt = |v: &f64| fmt_tick(*v);
    let mut mesh = chart.configure_mesh();
    mesh.x_desc(format!("{x_desc} (log scale)"))
        .y_desc(y_desc)
        .x_label_formatter(&x_fmt)
        .y_label_formatter(&y_fmt);
    draw_faint_mesh(&mut mesh)?;
    for &h in hlines {
        let grey = BLACK.mix(0.35);
        let segs = 40;
        let at = |t: f64| (xl * (xh / xl).powf(t), h);
        chart
            .draw_series((0..segs).step_by(2).map(|k| {
                PathElement::new(
                    vec![at(k as f64 / segs as f64), at((k + 1) as f64 / segs as f64)],
                    grey.stroke_width(1),
                )
            }))
            .map_err(|e| e.to_string())?;
    }
    for (ci, c) in curves.iter().enumerate() {
        if c.points.is_empty() {
            continue;
        }
        let color = COLORS[ci % COLORS.len()];
        let style = draw_curve_line(&mut chart, &c.points, &c.label, color)?;
        chart
            .draw_series(c.points.iter().filter(|p| p.2 > 0.0).map(|&(x, m, sd)| {
                ErrorBar::new_vertical(
                    x,
                    (m - sd).max(yl),
                    m,
                    (m + sd).min(yh),
                    ShapeStyle::from(&color),
                    6,
                )
            }))
            .map_err(|e| e.to_string())?;
        let filled = ShapeStyle::from(&color).filled();
        match ci % 4 {
            0 => chart.draw_series(c.points.iter().map(|p| Circle::new((p.0, p.1), 4, filled))),
            1 => chart.draw_series(
                c.points
                    .iter()
                    .map(|p| TriangleMarker::new((p.0, p.1), 6, filled)),
            ),
            2 => chart.draw_series(c.points.iter().map(|p| {
                EmptyElement::at((p.0, p.1)) + Rectangle::new([(-4, -4), (4, 4)], filled)
            })),
            _ => chart.draw_series(c.points.iter().map(|p| Cross::new((p.0, p.1), 5, style))),
        }
        .map_err(|e| e.to_string())?;
    }
    draw_legend(&mut chart, SeriesLabelPosition::UpperLeft, 13)?;
    root.present().map_err(|e| e.to_string())
}

/// The legend of the panel and rate figures: labels in `FONT` at `size`, on a translucent
/// white box with a grey border, at `position`.
fn draw_legend<'a, DB: DrawingBackend + 'a, CT: CoordTranslate>(
    chart: &mut ChartContext<'a, DB, CT>,
    position: SeriesLabelPosition,
    size: u32,
) -> Result<(), String> {
    chart
        .configure_series_labels()
        .position(position)
        .label_font((FONT, size))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.4))
        .draw()
        .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_and_ticks() {
        assert_eq!(wrap("a bb ccc", 4), vec!["a bb", "ccc"]);
        assert_eq!(fmt_tick(0.25), "0.25");
        assert_eq!(fmt_tick(150.0), "150");
        assert_eq!(fmt_x("n", 90000.0), "90k");
        assert_eq!(log_ticks(0.01, 100.0).len(), 5);
        assert_eq!(log_ticks(0.5, 20.0), vec![0.5, 1.0, 2.0, 5.0, 10.0, 20.0]);
        assert_eq!(log_ticks(1.4, 12.0).len(), 9);
    }
}
