//! Sweeps end to end through the library: rows against single runs, determinism over
//! jobs, shards, interruption and resume, refusal of another spec's file, failing
//! points.

use std::path::{Path, PathBuf};

use experiments::metrics::Cell;
use experiments::runner::{self, Options, Quiet};
use experiments::table::{Format, Table};
use experiments::{Plan, expand, spec};
use sim_core::RunConfig;
use sim_core::scheduler::Policy;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// 2 schedules x PIPE 2, 3 x lat_hbm 500, 800 = 8 points, 2 seeds each; one CTA and a
/// short K so that the debug build runs it in a second or two.
const SMALL: &str = r#"
title = "test"
kernels = ["gemm-mainloop/ws", "gemm-mainloop/static-v1"]
seeds = [1, 2]
max_ctas = 1
[param]
PIPE = "2..3"
K = [512]
[set]
lat_hbm = [500, 800]
"#;

fn plan(text: &str) -> Plan {
    let s = spec::parse(text, &repo()).expect("the spec parses");
    expand(&s).expect("the spec expands")
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("smsim-sweep-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    let _ = std::fs::remove_file(&p);
    p
}

fn sweep(plan: &Plan, out: &Path, opts: Options) -> runner::Outcome {
    runner::run_sweep(plan, out, &opts, &Quiet).expect("the sweep runs")
}

fn jobs(n: usize) -> Options {
    Options {
        jobs: n,
        ..Options::default()
    }
}

fn cell(t: &Table, row: usize, col: &str) -> Cell {
    t.rows[row][t.column(col).unwrap()].clone()
}

#[test]
fn rows_are_exact_against_single_runs() {
    let p = plan(SMALL);
    assert_eq!(p.points.len(), 8);
    let out = tmp("exact.csv");
    let o = sweep(&p, &out, jobs(2));
    assert_eq!((o.total, o.ran, o.failed, o.interrupted), (8, 8, 0, false));
    let t = Table::read(&out).unwrap();
    assert_eq!(t.rows.len(), 8);
    // Point 5: static-v1 (the second kernel), PIPE=2, lat_hbm=800 (the last axis
    // varies fastest).
    assert_eq!(
        cell(&t, 5, "kernel"),
        Cell::Text("gemm-mainloop/static-v1".into())
    );
    assert_eq!(cell(&t, 5, "param.PIPE"), Cell::Int(2));
    assert_eq!(cell(&t, 5, "set.lat_hbm"), Cell::Float(800.0));
    let kernel = traces::builtin_with(
        "gemm-mainloop/static-v1",
        &[("PIPE".into(), 2), ("K".into(), 512)],
    )
    .unwrap();
    let mut prof = sim_core::Profile::builtin("h100").unwrap();
    prof.set("lat_hbm", 800.0).unwrap();
    let runs: Vec<_> = [1, 2]
        .iter()
        .map(|&seed| {
            let cfg = RunConfig {
                seed,
                policy: Policy::TwoLevel,
                max_ctas: Some(1),
                ..RunConfig::default()
            };
            sim_core::run(&kernel, &prof, &cfg).unwrap()
        })
        .collect();
    let c: Vec<f64> = runs.iter().map(|r| r.cycles as f64).collect();
    assert_eq!(cell(&t, 5, "cycles"), Cell::Float((c[0] + c[1]) / 2.0));
    assert_eq!(cell(&t, 5, "cycles_min"), Cell::Float(c[0].min(c[1])));
    assert_eq!(cell(&t, 5, "cycles_max"), Cell::Float(c[0].max(c[1])));
    let tf = (runs[0].tflops.unwrap() + runs[1].tflops.unwrap()) / 2.0;
    assert_eq!(cell(&t, 5, "tflops").as_f64(), Some(tf));
    let tensor = (runs[0].unit("tensor") + runs[1].unit("tensor")) / 2.0;
    assert_eq!(cell(&t, 5, "unit.tensor").as_f64(), Some(tensor));
    let role = runs[0].roles[0].name.clone();
    let share = |r: &sim_core::RunResult| {
        let s = &r.role(&role).unwrap().states;
        s.get(sim_core::WarpState::Selected) as f64 / s.total() as f64
    };
    assert_eq!(
        cell(&t, 5, &format!("role.{role}.selected")).as_f64(),
        Some((share(&runs[0]) + share(&runs[1])) / 2.0)
    );
    // The units the metrics name are those a run reports.
    let units: Vec<&str> = runs[0].units.iter().map(|u| u.unit.as_str()).collect();
    assert_eq!(units, experiments::metrics::UNITS);
}

#[test]
fn the_file_does_not_depend_on_jobs_and_shards_merge_to_it() {
    let p = plan(SMALL);
    let one = tmp("jobs1.jsonl");
    let two = tmp("jobs2.jsonl");
    sweep(&p, &one, jobs(1));
    sweep(&p, &two, jobs(2));
    let a = std::fs::read(&one).unwrap();
    assert_eq!(a, std::fs::read(&two).unwrap());
    assert_eq!(a.iter().filter(|&&b| b == b'\n').count(), 8);

    let shards: Vec<PathBuf> = (0..3)
        .map(|i| {
            let s = tmp(&format!("shard{i}.jsonl"));
            let o = sweep(
                &p,
                &s,
                Options {
                    shard: Some((i, 3)),
                    ..jobs(2)
                },
            );
            assert_eq!(o.total, [3, 3, 2][i]);
            s
        })
        .collect();
    let merged = tmp("merged.jsonl");
    assert_eq!(runner::merge(&merged, &shards, false), Ok(8));
    assert_eq!(std::fs::read(&merged).unwrap(), a);
    // Two of three shards do not cover the sweep; a shard twice covers a point twice.
    let e = runner::merge(&tmp("m2.jsonl"), &shards[..2], false).unwrap_err();
    assert!(e.contains("2 of 8 points missing (first: 2, 5)"), "{e}");
    let twice = [shards[0].clone(), shards[0].clone()];
    let e = runner::merge(&tmp("m3.jsonl"), &twice, false).unwrap_err();
    assert!(e.contains("point 0 is in more than one shard"), "{e}");
    // The merge does not overwrite.
    assert!(runner::merge(&merged, &shards, false).is_err());
}

#[test]
fn an_interrupted_sweep_resumes_to_the_same_file() {
    let p = plan(SMALL);
    let whole = tmp("whole.csv");
    sweep(&p, &whole, jobs(2));
    let cut = tmp("cut.csv");
    let o = sweep(
        &p,
        &cut,
        Options {
            stop_after: Some(3),
            ..jobs(1)
        },
    );
    assert!(o.interrupted);
    assert_eq!(o.ran, 3);
    // The stopped file is valid: a header and three whole rows.
    assert_eq!(Table::read(&cut).unwrap().rows.len(), 3);
    // A kill mid-row leaves a partial line: it is dropped and its point reruns.
    let mut text = std::fs::read_to_string(&cut).unwrap();
    text.push_str("7,8,deadbeef,gemm-mainl");
    std::fs::write(&cut, text).unwrap();
    let o = sweep(&p, &cut, jobs(2));
    assert_eq!((o.resumed, o.ran, o.interrupted), (3, 5, false));
    assert_eq!(
        std::fs::read_to_string(&cut).unwrap(),
        std::fs::read_to_string(&whole).unwrap()
    );
    // Run again: nothing to do, nothing changes.
    let o = sweep(&p, &cut, jobs(2));
    assert_eq!((o.resumed, o.ran), (8, 0));
    assert_eq!(std::fs::read(&cut).unwrap(), std::fs::read(&whole).unwrap());
}

#[test]
fn another_specs_file_is_refused_and_kept() {
    let out = tmp("changed.jsonl");
    sweep(&plan(SMALL), &out, jobs(2));
    let before = std::fs::read(&out).unwrap();
    let changed = plan(&SMALL.replace("[500, 800]", "[500, 900]"));
    let e = runner::run_sweep(&changed, &out, &jobs(2), &Quiet).unwrap_err();
    assert!(e.contains("holds results of another spec"), "{e}");
    assert_eq!(std::fs::read(&out).unwrap(), before);
    // With --force it starts afresh.
    let o = sweep(
        &changed,
        &out,
        Options {
            force: true,
            ..jobs(2)
        },
    );
    assert_eq!(o.ran, 8);
    // A CSV whose columns differ (another axis) is refused too.
    let csv = tmp("changed.csv");
    sweep(&plan(SMALL), &csv, jobs(2));
    let e = runner::run_sweep(
        &plan(&SMALL.replace("K = [512]", "")),
        &csv,
        &jobs(2),
        &Quiet,
    )
    .unwrap_err();
    assert!(e.contains("other columns"), "{e}");
}

#[test]
fn failing_points_are_rows_with_their_error() {
    let p = plan(
        r#"
kernels = ["gemm-mainloop/ws"]
max_ctas = 1
[[point]]
param = { PIPE = 2, K = 512 }
[[point]]
param = { PIPE = 5, K = 512 }
[[point]]
kernel = "examples/runtime/deadlock.smk"
"#,
    );
    assert_eq!(p.points.len(), 3);
    let out = tmp("failing.jsonl");
    let o = sweep(&p, &out, jobs(2));
    assert_eq!((o.ran, o.failed), (3, 2));
    let t = Table::read(&out).unwrap();
    assert_eq!(cell(&t, 0, "error"), Cell::Null);
    assert!(cell(&t, 0, "cycles").as_f64().unwrap() > 0.0);
    let e1 = cell(&t, 1, "error").label();
    assert!(e1.contains("PIPE=5 is out of range 1..=4"), "{e1}");
    assert_eq!(cell(&t, 1, "cycles"), Cell::Null);
    let e2 = cell(&t, 2, "error").label();
    assert!(
        e2.starts_with("seed 1: ") && e2.contains("deadlock"),
        "{e2}"
    );
    // The deadlock file has no PIPE: its column is empty.
    assert_eq!(cell(&t, 2, "param.PIPE"), Cell::Null);
}

#[test]
fn an_unwritable_output_fails_before_any_point_runs() {
    let p = plan(SMALL);
    let e =
        runner::run_sweep(&p, Path::new("/nonexistent-dir/x.csv"), &jobs(1), &Quiet).unwrap_err();
    assert!(e.contains("cannot write"), "{e}");
    let e = runner::run_sweep(&p, &tmp("x.txt"), &jobs(1), &Quiet).unwrap_err();
    assert!(e.contains(".jsonl or .csv"), "{e}");
    assert_eq!(Format::of(Path::new("a.jsonl")), Ok(Format::JsonLines));
}

#[test]
fn spec_errors_name_the_line_and_the_nearest_names() {
    let text = "kernels = [\"gemm-mainloop/ws\"]\n[param]\nPIPES = [2]\n";
    let s = spec::parse(text, &repo()).unwrap();
    let e = expand(&s).unwrap_err().render("s.toml", text);
    assert!(
        e.starts_with("s.toml:3:1: error: kernel `gemm-mainloop/ws` has no parameter `PIPES`"),
        "{e}"
    );
    assert!(e.contains("did you mean PIPE?"), "{e}");
    let text = "kernels = [\"gemm-mainloop/ws\"]\n[set]\nlat_hmb = [2]\n";
    let e = expand(&spec::parse(text, &repo()).unwrap())
        .unwrap_err()
        .render("s.toml", text);
    assert!(
        e.contains("s.toml:3:1:") && e.contains("did you mean lat_hbm?"),
        "{e}"
    );
    let text = "kernels = \"gemm-mainlop\"\n";
    let e = expand(&spec::parse(text, &repo()).unwrap())
        .unwrap_err()
        .render("s.toml", text);
    assert!(
        e.contains("s.toml:1:11:") && e.contains("did you mean gemm-mainloop?"),
        "{e}"
    );
    let text = "kernels = \"gemm-mainloop\"\npolicy = \"gtoo\"\n";
    let e = expand(&spec::parse(text, &repo()).unwrap())
        .unwrap_err()
        .render("s.toml", text);
    assert!(
        e.contains("s.toml:2:10:") && e.contains("no scheduling policy"),
        "{e}"
    );
}
