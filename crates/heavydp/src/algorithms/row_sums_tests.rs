use super::*;
use crate::algorithms::iht::DpIhtHuber;
use crate::algorithms::{
    frank_wolfe::HtFrankWolfe, private_gd, Chunking, NoObserver, PrivateAlgorithm, Problem,
};
use crate::constraints::{L1Ball, L2Ball, SparseBall};
use crate::noise::rng_from_seed;
use crate::privacy::Budget;
use crate::test_support::{bits, hu_lognormal};

#[test]
fn keyed_permutation_is_a_bijection_and_depends_on_the_key() {
    for n in [1u64, 2, 3, 7, 64, 100, 1000, 4097] {
        for key in [0u64, 1, 0xDEAD_BEEF] {
            let p = KeyedPermutation::new(n, key);
            let mut seen = vec![false; n as usize];
            for i in 0..n {
                let v = p.apply(i);
                assert!(v < n && !seen[v as usize], "n = {n}, key = {key}");
                seen[v as usize] = true;
            }
        }
    }
    let (a, b) = (
        KeyedPermutation::new(1000, 1),
        KeyedPermutation::new(1000, 2),
    );
    let differ = (0..1000).filter(|&i| a.apply(i) != b.apply(i)).count();
    assert!(differ > 900, "{differ}");
    let fixed = (0..1000).filter(|&i| a.apply(i) == i).count();
    assert!(fixed < 20, "{fixed}");
}

#[test]
fn keyed_chunks_are_disjoint_of_size_m_and_match_the_per_row_rule() {
    let (n, t) = (1003, 7);
    let chunks = Chunks::new("test", n, t, Chunking::Keyed, &mut rng_from_seed(5)).unwrap();
    let m = chunks.m();
    assert_eq!(m, n / t);
    let perm = *chunks.keyed().unwrap();
    let mut owner = vec![None; n];
    for c in 0..t {
        let rows = chunks.chunk(c);
        assert_eq!(rows.len(), m);
        for &i in rows {
            assert!(owner[i].is_none(), "row {i} in two chunks");
            owner[i] = Some(c);
        }
    }
    // the per-row rule (what an executor computes) gives the same chunks, and exactly
    // n − T·m rows are unused
    for (i, o) in owner.iter().enumerate() {
        assert_eq!(Chunks::keyed_chunk_of(&perm, m, t, i as u64), *o);
    }
    assert_eq!(owner.iter().filter(|o| o.is_none()).count(), n - t * m);
    // the key comes from the generator: same seed, same chunks; another seed, others
    let again = Chunks::new("test", n, t, Chunking::Keyed, &mut rng_from_seed(5)).unwrap();
    assert_eq!(again.chunk(3), chunks.chunk(3));
    let other = Chunks::new("test", n, t, Chunking::Keyed, &mut rng_from_seed(6)).unwrap();
    assert_ne!(other.chunk(3), chunks.chunk(3));
}

/// The local sums are the kernels the algorithms called before the seam, bit for bit.
#[test]
fn local_row_sums_are_the_old_kernels_bit_for_bit() {
    let (data, _) = hu_lognormal(3000, 6, 1);
    let d = data.d();
    let w: Vec<f64> = (0..d).map(|j| 0.1 * j as f64 - 0.2).collect();
    let chunks = Chunks::new(
        "test",
        data.n(),
        4,
        Chunking::Shuffle,
        &mut rng_from_seed(2),
    )
    .unwrap();
    let mut sums = LocalRowSums::new(&data);
    let mut got = vec![0.0; d];
    let mut old = vec![0.0; d];
    // clipped-gd: clipped_row_sum with the per-sample gradient closure
    let loss = LossKind::Squared;
    let k = Kernel::ClippedGradient {
        loss,
        radius: 1.5,
        intercept: None,
    };
    sums.sum(&k, Selection::All, &w, &mut got).unwrap();
    let row = |i: usize, out: &mut [f64]| {
        data.read_row(i, out);
        let r = loss.derivative(dot(out, &w), data.y()[i]);
        out.iter_mut().for_each(|o| *o *= r);
    };
    clipped_row_sum(data.n(), d, 1.5, row, &mut old);
    assert_eq!(bits(&got), bits(&old));
    // ht-frank-wolfe: (s/m)·psi sums = gradient_of
    let est = CatoniGiulini::new(2.5, 1.0).unwrap();
    let k = Kernel::CatoniPsi {
        loss,
        scale: 2.5,
        beta: 1.0,
    };
    let sel = Selection::Chunk {
        chunks: &chunks,
        index: 1,
    };
    sums.sum(&k, sel, &w, &mut got).unwrap();
    est.scale_by_s_over_m(chunks.m(), &mut got);
    let rows = chunks.chunk(1);
    est.gradient_of(
        &loss,
        &data,
        data.y(),
        rows,
        &w,
        &mut old,
        &mut RobustWorkspace::new(),
    );
    assert_eq!(bits(&got), bits(&old));
    // dp-iht-huber: clipped_weighted_sum with the Huber weight
    let k = Kernel::ClippedHuber {
        k: 1.2,
        tau: 0.7,
        y_clip: Some(3.0),
    };
    sums.sum(&k, sel, &w, &mut got).unwrap();
    let weight = |margin: f64, _, y: f64| (y.clamp(-3.0, 3.0) - margin).clamp(-0.7, 0.7);
    clipped_weighted_sum(
        &data,
        data.y(),
        rows,
        &support_of(&w),
        1.2,
        weight,
        &mut old,
    );
    assert_eq!(bits(&got), bits(&old));
}

/// `clipped-gd`'s sum, read a span of rows at a time, is the per-row
/// [`clipped_row_sum`] bit for bit: over several blocks of rows, through a column map,
/// with and without the intercept's constant feature, for a smooth and a bounded loss,
/// and with rows whose gradient overflows (they count as the zero vector).
#[test]
fn the_clipped_gradient_sum_is_the_per_row_sum_bit_for_bit() {
    let (base, _) = hu_lognormal(90_001, 6, 3);
    let d = base.d();
    let mut x = base.x().to_vec();
    x[17 * d..18 * d].iter_mut().for_each(|v| *v = 1e200);
    x[50_000 * d] = -1e300;
    let mut y = base.y().to_vec();
    y[18] = 1e300;
    let raw = Dataset::from_rows(x, y, d).unwrap();
    let mut mapped = raw.clone();
    mapped.map_lazily(ColumnMap {
        centre: (0..d).map(|j| 0.3 * j as f64).collect(),
        scale: (0..d).map(|j| 0.5 + j as f64).collect(),
        bound: 4.0,
    });
    for data in [&raw, &mapped] {
        for loss in [LossKind::Squared, LossKind::Huber { tau: 0.8 }] {
            for intercept in [None, Some(0.75)] {
                let width = d + usize::from(intercept.is_some());
                assert!(data.n() > 2 * block_rows(width), "several blocks");
                let w: Vec<f64> = (0..width).map(|j| 0.2 * j as f64 - 0.3).collect();
                let k = Kernel::ClippedGradient {
                    loss,
                    radius: 2.5,
                    intercept,
                };
                let mut got = vec![0.0; width];
                LocalRowSums::new(data)
                    .sum(&k, Selection::All, &w, &mut got)
                    .unwrap();
                let row = |i: usize, out: &mut [f64]| {
                    data.read_row(i, &mut out[..d]);
                    let mut margin = dot(&out[..d], &w[..d]);
                    if let Some(u) = intercept {
                        out[d] = u;
                        margin += u * w[d];
                    }
                    let r = loss.derivative(margin, data.y()[i]);
                    out.iter_mut().for_each(|o| *o *= r);
                };
                let mut old = vec![0.0; width];
                clipped_row_sum(data.n(), width, 2.5, row, &mut old);
                assert!(got.iter().all(|v| v.is_finite()));
                assert_eq!(bits(&got), bits(&old), "{loss:?}, intercept {intercept:?}");
            }
        }
    }
}

/// A stand-in for Spark: the rows as column batches of uneven sizes, the partial sums
/// of each batch from [`batch_sum`] (after a JSON round trip of the request).
fn batched_pass<'a>(data: &'a Dataset, ids: Vec<i64>, sizes: &'a [usize]) -> Box<Pass<'a>> {
    let d = data.d();
    let cols: Vec<Vec<f64>> = (0..d)
        .map(|j| (0..data.n()).map(|i| data.row(i)[j]).collect())
        .collect();
    Box::new(move |req: &SumRequest, w: &[f64]| {
        let req: SumRequest = serde_json::from_str(&serde_json::to_string(req).unwrap()).unwrap();
        let mut partials = Vec::new();
        let mut rows = 0;
        let mut fingerprint = 0u64;
        let mut start = 0;
        let mut b = 0;
        while start < data.n() {
            let end = (start + sizes[b % sizes.len()]).min(data.n());
            let c: Vec<&[f64]> = cols.iter().map(|c| &c[start..end]).collect();
            let (p, r) = batch_sum(&req, w, &c, &data.y()[start..end], &ids[start..end])?;
            partials.extend(p);
            rows += r;
            fingerprint = fingerprint.wrapping_add(batch_fingerprint(
                &c,
                &data.y()[start..end],
                &ids[start..end],
            ));
            start = end;
            b += 1;
        }
        Ok(Partials {
            partials,
            rows,
            fingerprint: Some(fingerprint),
        })
    })
}

fn close(a: &[f64], b: &[f64], tol: f64) -> bool {
    a.iter()
        .zip(b)
        .all(|(x, y)| (x - y).abs() <= tol * (1.0 + y.abs()))
}

/// A fit whose sums are computed batch by batch elsewhere releases the same values as
/// the in-memory fit with the same seed and keyed chunking, up to the reassociation of
/// the sums (the noise draws are the same).
#[test]
fn external_fits_equal_local_fits_up_to_reassociation() {
    let (data, _) = hu_lognormal(4000, 5, 3);
    let (n, d) = (data.n(), data.d());
    let remote = Dataset::remote(n, d, data.feature_names().to_vec(), "y".into()).unwrap();
    let ids: Vec<i64> = (0..n as i64).collect();
    let sizes = [700, 333, 1024];
    let l1 = L1Ball { d, radius: 1.0 };
    let l2 = L2Ball { d, radius: 2.0 };
    let sparse = SparseBall {
        d,
        s: 2,
        radius: 2.0,
    };
    let params = crate::test_support::params;
    let keyed = params(&[("chunking", "keyed")]);
    type Case<'a> = (
        Box<dyn PrivateAlgorithm>,
        LossKind,
        &'a dyn crate::constraints::ConstraintSet,
        Budget,
    );
    let cases: Vec<Case> = vec![
        (
            Box::new(HtFrankWolfe::from_params(&keyed).unwrap()),
            LossKind::Squared,
            &l1,
            Budget::pure(1.0).unwrap(),
        ),
        (
            Box::new(DpIhtHuber::from_params(&keyed).unwrap()),
            LossKind::Huber { tau: 1.0 },
            &sparse,
            Budget::new(1.0, 1e-5).unwrap(),
        ),
        (
            Box::new(
                private_gd::PrivateGd::from_params(
                    private_gd::GradientEstimator::Clip,
                    &params(&[("T", "5")]),
                )
                .unwrap(),
            ),
            LossKind::Squared,
            &l2,
            Budget::new(1.0, 1e-5).unwrap(),
        ),
    ];
    // `alg.fit_with_sums` over the rows sent in batches with keys `ids` (seed 9, as the
    // local fits)
    let fit_external = |alg: &dyn PrivateAlgorithm, problem: &Problem, ids, budget| {
        let mut ext = ExternalRowSums::new(n, d, batched_pass(&data, ids, &sizes));
        alg.fit_with_sums(
            problem,
            &mut ext,
            budget,
            &mut rng_from_seed(9),
            &mut NoObserver,
        )
    };
    for (alg, loss, domain, budget) in cases {
        let local = Problem {
            data: &data,
            loss,
            domain,
        };
        let want = alg
            .fit(&local, budget, &mut rng_from_seed(9), &mut NoObserver)
            .unwrap();
        let problem = Problem {
            data: &remote,
            loss,
            domain,
        };
        let got = fit_external(alg.as_ref(), &problem, ids.clone(), budget).unwrap();
        assert!(
            close(&got.weights, &want.weights, 1e-9),
            "{}: {:?} vs {:?}",
            alg.name(),
            got.weights,
            want.weights
        );
        assert_eq!(got.privacy, want.privacy, "{}", alg.name());
        assert_ne!(want.weights, vec![0.0; d]);
    }
    // ids that are not 0..n−1 once each are refused (a chunk then has the wrong size)
    let alg = HtFrankWolfe::from_params(&keyed).unwrap();
    let problem = Problem {
        data: &remote,
        loss: LossKind::Squared,
        domain: &l1,
    };
    let mut dup = ids.clone();
    dup[1] = 0;
    let pure = Budget::pure(1.0).unwrap();
    let e = fit_external(&alg, &problem, dup, pure).unwrap_err();
    assert!(e.to_string().contains("exactly once"));
    // an unkeyed chunking cannot be distributed
    let e = fit_external(&HtFrankWolfe::default(), &problem, ids, pure).unwrap_err();
    assert!(e.to_string().contains("chunking=keyed"));
}

/// The preprocessing kernels on batches equal the in-memory sources: the scaling's
/// grid histograms give the sorted columns' ranks at every grid point (so the same
/// releases, bit for bit), and the intercept's sums are the in-memory sums up to
/// reassociation (the counts exactly).
#[test]
fn preprocessing_kernels_on_batches_equal_the_in_memory_sources() {
    use crate::preprocess::quantile::{Grid1D, LinearGrid, OctaveGrid, SignedOctaveGrid};
    use crate::preprocess::{
        private_quartiles_of, InterceptSource, LocalColumns, Residuals, ScalingSource,
    };
    let (base, _) = hu_lognormal(2500, 4, 8);
    let (n, d) = (base.n(), base.d());
    // ties and a signed zero: a dummy column and an integer response
    let x: Vec<f64> = (0..n)
        .flat_map(|i| {
            let mut r = base.row(i).to_vec();
            r[1] = if i % 3 == 0 { -0.0 } else { 1.0 };
            r
        })
        .collect();
    let y: Vec<f64> = base.y().iter().map(|v| v.round()).collect();
    let data = Dataset::from_rows(x, y, d).unwrap();
    let ids: Vec<i64> = (0..n as i64).collect();
    let sizes = [700, 333, 1024];
    let mut ext = ExternalRowSums::new(n, d, batched_pass(&data, ids, &sizes));
    let mut local = LocalColumns::new(&data);
    let maps = [
        StageMap::SignedOctave,
        StageMap::Snap { half_width: 8.0 },
        StageMap::SpreadOctave { c0: 0.75 },
        StageMap::Shift {
            c0: -0.5,
            half_width: 2.0,
        },
        StageMap::Binary,
    ];
    let grid_values = |map: StageMap| -> Vec<f64> {
        let lin = |h: f64| LinearGrid {
            half_width: h,
            steps: 2048,
        };
        let values = |g: &dyn Fn(usize) -> f64, len: usize| (0..len).map(g).collect();
        match map {
            StageMap::SignedOctave => {
                values(&|i| SignedOctaveGrid.value(i), SignedOctaveGrid.len())
            }
            StageMap::SpreadOctave { .. } => values(&|i| OctaveGrid.value(i), OctaveGrid.len()),
            StageMap::Snap { half_width } | StageMap::Shift { half_width, .. } => {
                let g = lin(half_width);
                values(&|i| g.value(i), g.len())
            }
            StageMap::Binary => vec![-1.0, 0.0, 1.0],
        }
    };
    ext.prefetch(
        &(0..=d)
            .map(|j| (j, StageMap::SignedOctave))
            .collect::<Vec<_>>(),
    )
    .unwrap();
    for j in 0..=d {
        for map in maps {
            let values = grid_values(map);
            let a: Vec<(usize, usize)> = {
                let c = local.counts(j, map).unwrap();
                values
                    .iter()
                    .enumerate()
                    .map(|(i, g)| c.ranks(i, *g))
                    .collect()
            };
            let c = ext.counts(j, map).unwrap();
            assert_eq!(c.len(), n);
            let b: Vec<(usize, usize)> = values
                .iter()
                .enumerate()
                .map(|(i, g)| c.ranks(i, *g))
                .collect();
            assert_eq!(a, b, "column {j}, {map:?}");
        }
    }
    // the whole scaling: the same releases with the same seed
    let budget = Budget::new(0.5, 1e-6).unwrap();
    let features: Vec<usize> = (0..d).collect();
    let want = private_quartiles_of(
        &mut LocalColumns::new(&data),
        &features,
        Some(d),
        budget,
        &mut rng_from_seed(4),
    )
    .unwrap();
    // (a source that counts its passes: one per stage of the scaling, all columns in it)
    let passes = std::cell::Cell::new(0);
    let mut inner = batched_pass(&data, (0..n as i64).collect(), &sizes);
    let counting: Box<Pass> = Box::new(|req: &SumRequest, w: &[f64]| {
        passes.set(passes.get() + 1);
        inner(req, w)
    });
    let mut fresh = ExternalRowSums::new(n, d, counting);
    let got = private_quartiles_of(
        &mut fresh,
        &features,
        Some(d),
        budget,
        &mut rng_from_seed(4),
    )
    .unwrap();
    assert_eq!(format!("{got:?}"), format!("{want:?}"));
    drop(fresh);
    // (one per stage of the scaling, all columns in it; the binary gate's counts come
    // with the first stage's)
    assert_eq!(passes.get(), 4);
    // the intercept's sums at some weights (no standardisation here)
    let w: Vec<f64> = (0..d).map(|j| 0.3 - 0.2 * j as f64).collect();
    let margins = data.margins(&w);
    let mut mem = Residuals::new(&margins, data.y());
    let mut far = ext.intercept_source(&w);
    assert_eq!(far.rows(), n);
    let (a, b) = (
        mem.clipped_residual_sum(1.5).unwrap(),
        far.clipped_residual_sum(1.5).unwrap(),
    );
    assert!((a - b).abs() <= 1e-9 * (1.0 + a.abs()), "{a} vs {b}");
    let (a, b) = (
        mem.logistic_scores().unwrap(),
        far.logistic_scores().unwrap(),
    );
    assert_eq!(a.len(), 513);
    assert!(a
        .iter()
        .zip(&b)
        .all(|(x, y)| (x - y).abs() <= 1e-9 * (1.0 + x.abs())));
    assert_eq!(mem.positives().unwrap(), far.positives().unwrap());
    let grid = crate::preprocess::quantile::PublicGrid;
    let ra: Vec<(usize, usize)> = {
        let c = mem.residual_counts().unwrap();
        (0..grid.len())
            .step_by(7)
            .map(|i| c.ranks(i, grid.value(i)))
            .collect()
    };
    let c = far.residual_counts().unwrap();
    let rb: Vec<(usize, usize)> = (0..grid.len())
        .step_by(7)
        .map(|i| c.ranks(i, grid.value(i)))
        .collect();
    assert_eq!(ra, rb);
}

/// The intercept's pass reads all the fit check needs when asked to
/// (`prefetch_check_reads`): the reads are bit for bit those of their own kernel's pass,
/// the check then makes no pass of its own, a check at another clip (or without the
/// prefetch) makes its own pass, and the histograms are the in-memory ones.
#[test]
fn the_intercept_pass_reads_the_fit_checks_sums_and_histograms() {
    use crate::preprocess::fit_check::{CheckReads, CheckSource};
    use crate::preprocess::InterceptSource;
    let (data, _) = hu_lognormal(3000, 4, 5);
    let (n, d) = (data.n(), data.d());
    let sizes = [700, 333, 1024];
    let w: Vec<f64> = (0..d).map(|j| 0.2 - 0.1 * j as f64).collect();
    let (c, c_check) = (1.5, 2.25);
    let run = |prefetch: bool, check_clip: f64| {
        let mut ext =
            ExternalRowSums::new(n, d, batched_pass(&data, (0..n as i64).collect(), &sizes));
        if prefetch {
            ext.prefetch_check_reads(c_check);
        }
        let r = ext.intercept_source(&w).clipped_residual_sum(c).unwrap();
        let s = ext.check_source(&w).check_reads(check_clip).unwrap();
        (r.to_bits(), s, ext.passes())
    };
    let (r0, s0, p0) = run(false, c_check);
    assert_eq!(p0, (0, 0, 1, 1));
    let (r1, s1, p1) = run(true, c_check);
    assert_eq!(r1, r0);
    assert_eq!(s1, s0, "the combined pass's reads are the separate pass's");
    assert_eq!(p1, (0, 0, 1, 0));
    // the check asks at another clip: its own pass, at that clip
    let (r2, s2, p2) = run(true, 3.0);
    let (_, s3, _) = run(false, 3.0);
    assert_eq!((r2, &s2), (r0, &s3));
    assert_eq!(p2, (0, 0, 1, 1));
    // the in-memory reads: the same counts (the sum up to its order of addition)
    let local = CheckReads::of(&data.margins(&w), data.y(), c_check);
    assert_eq!(local.responses, s0.responses);
    assert_eq!(local.residuals, s0.residuals);
    assert_eq!(local.responses.iter().sum::<f64>(), n as f64);
    assert!((local.response_sum - s0.response_sum).abs() < 1e-9 * n as f64);
}

/// The logistic fit check's pass on external rows (labels 0/1, read as ±1 by the
/// executors): one pass of its own, counted as the check's, with the in-memory counts.
#[test]
fn the_logistic_check_pass_reads_the_in_memory_histograms() {
    use crate::preprocess::fit_check::{CheckSource, LogisticCheckReads};
    let (data, _) = hu_lognormal(3000, 4, 5);
    let (n, d) = (data.n(), data.d());
    let mut sorted = data.y().to_vec();
    sorted.sort_by(f64::total_cmp);
    let cut = sorted[n / 3];
    let labels: Vec<f64> = data.y().iter().map(|v| f64::from(*v > cut)).collect();
    let data = Dataset::from_rows(data.x().to_vec(), labels, d).unwrap();
    let sizes = [700, 333, 1024];
    let w: Vec<f64> = (0..d).map(|j| 0.8 - 0.5 * j as f64).collect();
    let mut ext = ExternalRowSums::new(n, d, batched_pass(&data, (0..n as i64).collect(), &sizes));
    ext.set_labels(true);
    let s = ext.check_source(&w).logistic_check_reads().unwrap();
    assert_eq!(ext.passes(), (0, 0, 0, 1));
    let local = LogisticCheckReads::of(&data.margins(&w), data.y());
    assert_eq!(s, local);
    let positives = data.y().iter().filter(|v| **v > 0.0).count();
    assert!(positives > n / 10 && positives < 9 * n / 10, "{positives}");
    assert_eq!(s.positives_count(), positives as f64);
    assert_eq!(s.negatives.iter().sum::<f64>(), (n - positives) as f64);
}

/// `intercept = Some(u)`: the sum over (x, u) with the margin ⟨x, w⟩ + u·b is the plain
/// kernel on the data with a constant column u appended, bit for bit (d + 1 values; the
/// clip covers the whole row, so the sensitivity is still 2R).
#[test]
fn the_intercept_coordinate_is_a_constant_column() {
    let (data, _) = hu_lognormal(2000, 5, 3);
    let (n, d) = (data.n(), data.d());
    let u = 4.0;
    let mut x = Vec::with_capacity(n * (d + 1));
    let mut row = vec![0.0; d];
    for i in 0..n {
        data.read_row(i, &mut row);
        x.extend_from_slice(&row);
        x.push(u);
    }
    let wide = Dataset::from_rows(x, data.y().to_vec(), d + 1).unwrap();
    let w: Vec<f64> = (0..=d).map(|j| 0.05 * j as f64 - 0.1).collect();
    for loss in [LossKind::Squared, LossKind::Logistic] {
        let y: Vec<f64> = data
            .y()
            .iter()
            .map(|v| if *v > 0.0 { 1.0 } else { -1.0 })
            .collect();
        let (a, b) = if loss == LossKind::Logistic {
            (
                Dataset::from_rows(data.x().to_vec(), y.clone(), d).unwrap(),
                Dataset::from_rows(wide.x().to_vec(), y, d + 1).unwrap(),
            )
        } else {
            (data.clone(), wide.clone())
        };
        let with = Kernel::ClippedGradient {
            loss,
            radius: 2.0,
            intercept: Some(u),
        };
        let plain = Kernel::ClippedGradient {
            loss,
            radius: 2.0,
            intercept: None,
        };
        assert_eq!(with.out_len(d), d + 1);
        let mut got = vec![0.0; d + 1];
        let mut want = vec![0.0; d + 1];
        LocalRowSums::new(&a)
            .sum(&with, Selection::All, &w, &mut got)
            .unwrap();
        LocalRowSums::new(&b)
            .sum(&plain, Selection::All, &w, &mut want)
            .unwrap();
        assert_eq!(bits(&got), bits(&want), "{loss:?}");
        // every clipped row has norm ≤ R: the sum moves by ≤ 2R when one row is replaced
        let mut one = vec![0.0; d + 1];
        let single = Dataset::from_rows(a.x()[..d].to_vec(), a.y()[..1].to_vec(), d).unwrap();
        LocalRowSums::new(&single)
            .sum(&with, Selection::All, &w, &mut one)
            .unwrap();
        assert!(dot(&one, &one).sqrt() <= 2.0 * (1.0 + 1e-12));
    }
}
