//! The fit and the report against the committed data (no GPU).

use calibrate::{
    BUILTIN_PROFILE, Measurement, PRIMARY_DATA, REPORT_DIR, VALIDATION_DATA, workspace_path,
};
use sim_core::Profile;

fn data() -> Measurement {
    calibrate::load_data(PRIMARY_DATA).unwrap()
}

/// What the built-in fit reads: every benchmark at its median over the committed GPUs.
fn median() -> Measurement {
    calibrate::across::median_data(&workspace_path(calibrate::DATA_DIR), None)
        .unwrap()
        .0
}

/// Every microbenchmark twin and every validation twin is a valid kernel.
#[test]
fn twins_validate() {
    let mut n = 0;
    for t in calibrate::twins::micro_twins() {
        let Some(text) = t.kernel_text() else {
            continue;
        };
        let k = isa::parse_kernel(&text).unwrap_or_else(|e| panic!("{}: {e:?}\n{text}", t.bench));
        let errs = isa::validate::validate(&k);
        assert!(errs.is_empty(), "{}: {errs:?}\n{text}", t.bench);
        n += 1;
    }
    let vt = calibrate::datafile::read_text(&workspace_path(VALIDATION_DATA)).unwrap();
    let vm = Measurement::from_json(&vt).unwrap();
    let cases = calibrate::validation::cases(&vm);
    assert_eq!(cases.len(), 88);
    for (c, _) in &cases {
        let text = calibrate::validation::twin_text(c, 4).unwrap();
        let k = isa::parse_kernel(&text).unwrap_or_else(|e| panic!("{}: {e:?}\n{text}", c.bench));
        let errs = isa::validate::validate(&k);
        assert!(errs.is_empty(), "{}: {errs:?}\n{text}", c.bench);
    }
    assert!(n > 100, "{n} twins");
}

/// The latency-hiding twin follows the SASS: ~14 integer instructions and a branch per
/// iteration, the load's destination is not the FFMAs' register.
#[test]
fn latency_hiding_twin_follows_the_sass() {
    let body = calibrate::validation::sass_timed_loop("vh_chase_l1_k4").unwrap();
    let ffma = body.iter().filter(|s| s.starts_with("FFMA")).count();
    assert_eq!(ffma, 4, "{body:?}");
    let ldg: Vec<&String> = body.iter().filter(|s| s.starts_with("LDG")).collect();
    assert_eq!(ldg.len(), 1);
    let other = body.len() - ffma - 1;
    assert!(
        (13..=18).contains(&other),
        "{other} other instructions: {body:?}"
    );
    assert!(body.last().unwrap().contains("BRA"));
}

/// Every microbenchmark has a twin or a stated reason why not.
#[test]
fn every_benchmark_is_twinned_or_explained() {
    let m = data();
    let twins: Vec<String> = calibrate::twins::micro_twins()
        .into_iter()
        .map(|t| t.bench)
        .collect();
    for b in &m.benchmarks {
        assert!(
            twins.contains(&b.name) || calibrate::twins::untwinned(&b.name).is_some(),
            "{} has neither a twin nor a reason",
            b.name
        );
    }
}

/// The committed report is what the code computes from the committed data and profile.
#[test]
fn committed_report_matches() {
    let p = Profile::builtin("h100").unwrap();
    let r = calibrate::report::run(
        &median(),
        &calibrate::across::median_data_name(None),
        &calibrate::report::committed_spreads().unwrap(),
        &p,
        &workspace_path(REPORT_DIR),
        true,
    );
    assert!(r.is_ok(), "{}", r.unwrap_err());
}

/// The fit to the median over GPUs of the committed data reproduces the committed
/// built-in profile (slow in debug: CI runs it in release through .ci/run).
#[test]
#[ignore]
fn fit_reproduces_the_committed_profile() {
    let prior = Profile::from_toml(calibrate::H100_PRIORS).unwrap();
    let name = calibrate::across::median_data_name(None);
    let mut told = Vec::new();
    let r = calibrate::fit::fit_with(&median(), &prior, &name, 4, &mut |p| {
        told.push((p.step, p.item, p.items));
    })
    .unwrap();
    // Progress comes step by step, each step's items in order, each step told.
    assert!(told.windows(2).all(|w| w[0] < w[1]), "{told:?}");
    let steps: std::collections::BTreeSet<usize> = told.iter().map(|t| t.0).collect();
    assert_eq!(steps.len(), calibrate::fit::STEPS, "{told:?}");
    assert!(told.iter().all(|&(_, i, n)| i >= 1 && i <= n), "{told:?}");
    let committed = std::fs::read_to_string(workspace_path(BUILTIN_PROFILE)).unwrap();
    let fresh = calibrate::fit::finished_toml(&r);
    let c = Profile::from_toml(&committed).unwrap();
    let f = Profile::from_toml(&fresh).unwrap();
    for name in sim_core::profile::Timing::NAMES {
        let (a, b) = (c.file.params[*name].value, f.file.params[*name].value);
        assert!(
            (a - b).abs() <= 1.0_f64.max(a.abs() * 0.005),
            "{name}: committed {a}, fit {b}"
        );
    }
}

/// Every twin a fitted parameter moves is one the joint refinement re-runs when it
/// moves that parameter (the twin names it, or the fit's table of twins it moves
/// without naming does): each fitted parameter moved 10% (at least one unit) up and
/// down on the built-in profile, every twin re-run. Slow in debug: CI runs it in
/// release through .ci/run.
#[test]
#[ignore]
fn fitted_parameters_know_their_twins() {
    let p = Profile::builtin("h100").unwrap();
    let twins = calibrate::twins::micro_twins();
    let base: Vec<f64> = twins.iter().map(|t| t.eval(&p).unwrap()).collect();
    let mut missing = Vec::new();
    for name in calibrate::fit::fitted_parameters() {
        let x = p.file.params[name].value;
        let d = (x.abs() * 0.1).round().max(1.0);
        for cand in [x + d, (x - d).max(0.0)] {
            let mut q = p.clone();
            q.set(name, cand).unwrap();
            for (t, b) in twins.iter().zip(&base) {
                let v = t.eval(&q).unwrap();
                if (v - b).abs() > 1e-9 && !calibrate::fit::depends_on(t, name) {
                    missing.push(format!("{name} moves {}", t.bench));
                }
            }
        }
    }
    missing.dedup();
    assert!(missing.is_empty(), "{missing:#?}");
}

/// The primary's HBM copy latencies come pooled from the two `--hbm-launches 64 --clean-flush` files
/// (2048 copies each); a file without one of them, or from another source, is an error.
#[test]
fn hbm_copy_latencies_are_pooled() {
    let m = data();
    let b = m.get("lat.bulk.hbm.4KiB").unwrap();
    assert_eq!(b.reps.len(), 2048);
    // The median of the two files' repetitions together, each file's moved to the median
    // SM by its own landing SM's offset (`placement`) as `load_data` reads it.
    let mut pooled = Vec::new();
    for f in calibrate::HBM_COPY_DATA {
        let mut x =
            Measurement::from_json(&calibrate::datafile::read_text(&workspace_path(f)).unwrap())
                .unwrap();
        let moved = calibrate::placement::normalize(&mut x, false);
        assert!(
            matches!(moved, calibrate::placement::Placement::Moved(_)),
            "{f}"
        );
        pooled.extend(x.get("lat.bulk.hbm.4KiB").unwrap().reps.iter().copied());
    }
    assert_eq!(b.median, calibrate::schema::median(&pooled).unwrap());
    assert_eq!(m.get("lat.bulk.l2.4KiB").unwrap().reps.len(), 16);
    let n = m
        .benchmarks
        .iter()
        .filter(|b| calibrate::is_hbm_copy_latency(&b.name))
        .count();
    assert_eq!(n, 14);

    let text = calibrate::datafile::read_text(&workspace_path(PRIMARY_DATA)).unwrap();
    let primary = Measurement::from_json(&text).unwrap();
    let mut lacking = primary.clone();
    lacking
        .benchmarks
        .retain(|b| b.name != "lat.tma2d.hbm.8KiB");
    let mut p = primary.clone();
    let e = calibrate::pool_hbm_copies(&mut p, &[("lacking".into(), lacking)]).unwrap_err();
    assert!(e.contains("lat.tma2d.hbm.8KiB"), "{e}");
    let mut other = primary.clone();
    for s in &mut other.sources {
        s.hash = "0000000000000000".into();
    }
    let mut p = primary.clone();
    let e = calibrate::pool_hbm_copies(&mut p, &[("other".into(), other)]).unwrap_err();
    assert!(e.contains("another source"), "{e}");
    // pooling the primary with itself keeps the median and doubles the repetitions
    let mut p = primary.clone();
    assert_eq!(
        calibrate::pool_hbm_copies(
            &mut p,
            &[("a".into(), primary.clone()), ("b".into(), primary.clone())]
        ),
        Ok(14)
    );
    let (a, b) = (
        primary.get("lat.tma2d.hbm.16KiB").unwrap(),
        p.get("lat.tma2d.hbm.16KiB").unwrap(),
    );
    assert_eq!((b.reps.len(), b.median), (2 * a.reps.len(), a.median));
}

/// The benchmarks the primary lacks come from the files of `ADDED_DATA`, as measured; one
/// the primary has already, one the file lacks, or one from another source is an error.
#[test]
fn added_benchmarks_join_the_primary() {
    let m = data();
    for (file, benches) in calibrate::ADDED_DATA {
        let x =
            Measurement::from_json(&calibrate::datafile::read_text(&workspace_path(file)).unwrap())
                .unwrap();
        for b in benches {
            assert_eq!(m.get(b).unwrap(), x.get(b).unwrap(), "{b}");
        }
    }
    let text = calibrate::datafile::read_text(&workspace_path(PRIMARY_DATA)).unwrap();
    let primary = Measurement::from_json(&text).unwrap();
    let mut p = primary.clone();
    let e = calibrate::add_benchmarks(&mut p, "self", &primary, &["lat.ffma"]).unwrap_err();
    assert!(e.contains("already"), "{e}");
    let mut lacking = primary.clone();
    lacking.benchmarks.retain(|b| b.name != "lat.ffma");
    let e = calibrate::add_benchmarks(&mut lacking.clone(), "lacking", &lacking, &["lat.ffma"])
        .unwrap_err();
    assert!(e.contains("has no lat.ffma"), "{e}");
    let mut other = primary.clone();
    for s in &mut other.sources {
        s.hash = "0000000000000000".into();
    }
    let e = calibrate::add_benchmarks(&mut lacking, "other", &other, &["lat.ffma"]).unwrap_err();
    assert!(e.contains("another source"), "{e}");
}

/// The committed across-GPU figures (report/across-gpus.md) are what the code computes
/// from the committed collects and profile (`smsim calibrate across` rewrites them).
#[test]
fn committed_across_gpus_matches() {
    let p = Profile::builtin("h100").unwrap();
    let md = calibrate::across::run(
        &workspace_path(calibrate::DATA_DIR),
        &[],
        &p,
        calibrate::across::FittedOn::Committed,
    )
    .unwrap();
    let path = workspace_path(REPORT_DIR).join("across-gpus.md");
    let committed = std::fs::read_to_string(&path).unwrap();
    assert!(
        md == committed,
        "{} is stale: remove it and run `smsim calibrate across --out` it",
        path.display()
    );
}
