//! The validation runs a report reads: the scored file (with Nsight Compute's ratios for
//! the committed one) and every run of the same kernels the rankings read.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::schema::{Benchmark, Measurement};

/// A repetition counts as spread out when its CTAs ended more than this many times its
/// benchmark's median end spread apart (the median over the benchmark's repetitions of
/// `extra.cta_spread[i].end_ns`) ...
pub const SPREAD_OUT_FACTOR: f64 = 4.0;
/// ... and more than this many nanoseconds beyond that median. The H100's `b_shared`
/// PIPE 2 launches run in one of two modes (data/gemm_l2, run-20261128T0516Z): in step,
/// their CTAs within 0.4 to 2.9k cycles of each other to the end (0.2 to 1.6 us at 1.8
/// GHz), or spread out, 3 to 10k cycles apart by k-step 8 and 15 to 40% faster; the
/// twins run the first. On the H200 (data/gemm_l2, run-20261128T1021Z-h200), whose 48
/// gemm kernels' repetitions all ran in one mode each, the widest repetition is 3.9 times
/// its kernel's median end spread and 1.7 us beyond it, so neither bound alone would do.
pub const SPREAD_OUT_MIN_NS: f64 = 2000.0;

/// A repetition of a validation kernel set aside: it ran spread out while most of its
/// kernel's repetitions ran together (`spread_out_reps`).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct SetAside {
    pub bench: String,
    /// The repetition's index in `reps`.
    pub rep: usize,
    /// Its value, and the benchmark's median before and after it was set aside.
    pub value: f64,
    pub median_before: f64,
    pub median_after: f64,
    /// Its CTAs' end spread and the benchmark's median end spread, in ns.
    pub end_ns: f64,
    pub median_end_ns: f64,
}

/// The repetitions of `b` that ran spread out: their CTAs' end spread (`extra.cta_spread`,
/// one `{start_ns, end_ns}` per repetition, as the collector records the gemm-mainloop
/// kernels since 2026-11-28) more than [`SPREAD_OUT_FACTOR`] times the median over the
/// repetitions and more than [`SPREAD_OUT_MIN_NS`] beyond it (so at most half of them: the
/// kept ones are the kernel's usual mode); with the end spreads and their median. None
/// when the benchmark has no spreads or they do not match its repetitions one to one.
fn spread_out_reps(b: &Benchmark) -> Option<(Vec<f64>, f64, Vec<usize>)> {
    let spread = b.extra.get("cta_spread")?.as_array()?;
    let ends: Vec<f64> = spread
        .iter()
        .filter_map(|s| s.get("end_ns").and_then(|e| e.as_f64()))
        .collect();
    if ends.len() != b.reps.len() {
        return None;
    }
    let med = crate::schema::median(&ends)?;
    let gone = ends
        .iter()
        .enumerate()
        .filter(|(_, e)| **e > SPREAD_OUT_FACTOR * med && **e > med + SPREAD_OUT_MIN_NS)
        .map(|(i, _)| i)
        .collect();
    Some((ends, med, gone))
}

/// Sets aside every benchmark's spread-out repetitions (`spread_out_reps`): the
/// benchmark's median becomes the median of the others (its `reps` keep every value, as
/// measured). Returns what was set aside.
pub fn set_aside_spread_out(m: &mut Measurement) -> Vec<SetAside> {
    let mut out = Vec::new();
    for b in &mut m.benchmarks {
        let Some((ends, median_end_ns, gone)) = spread_out_reps(b) else {
            continue;
        };
        if gone.is_empty() {
            continue;
        }
        let kept: Vec<f64> = (0..b.reps.len())
            .filter(|i| !gone.contains(i))
            .map(|i| b.reps[i])
            .collect();
        let Some(after) = crate::schema::median(&kept) else {
            continue;
        };
        for &i in &gone {
            out.push(SetAside {
                bench: b.name.clone(),
                rep: i,
                value: b.reps[i],
                median_before: b.median,
                median_after: after,
                end_ns: ends[i],
                median_end_ns,
            });
        }
        b.median = after;
    }
    out
}

/// The validation measurements a report scores: the file's measurement, its name as the
/// report cites it, and Nsight Compute's warp-state ratios for the same kernels (the CSV
/// committed beside the committed file; none for another file).
pub struct ValidationInput {
    /// The validation kernels' measurement file.
    pub measurement: Measurement,
    /// Its file name, as the report cites it.
    pub file: String,
    /// The Nsight Compute CSV taken on the same kernels, if any.
    pub ncu_csv: Option<String>,
    /// Every run of the validation kernels the rankings read, this measurement's first.
    pub runs: Vec<ValidationRun>,
    /// The repetitions set aside as spread out, in every run read (`spread_out_reps`):
    /// run file, and the repetition.
    pub set_aside: Vec<(String, SetAside)>,
}

/// One run of the validation kernels, as the rankings read it.
pub struct ValidationRun {
    /// Its file name.
    pub file: String,
    /// The GPU it ran on (the UUID in its `.env.txt`), when known.
    pub gpu: Option<String>,
    /// Each benchmark's median.
    pub values: BTreeMap<String, f64>,
}

impl ValidationRun {
    fn of(file: &str, gpu: Option<String>, m: &Measurement) -> Self {
        ValidationRun {
            file: file.into(),
            gpu,
            values: m
                .benchmarks
                .iter()
                .map(|b| (b.name.clone(), b.median))
                .collect(),
        }
    }
}

/// A validation file as read: its measurement (spread-out repetitions set aside), name,
/// path, GPU, and what was set aside.
struct ReadRun {
    measurement: Measurement,
    file: String,
    path: PathBuf,
    gpu: Option<String>,
    set_aside: Vec<SetAside>,
}

/// A validation file's measurement and name (workspace-relative or absolute, gzipped or
/// not), and its GPU from `env` (an `.env.txt`; by default the one beside the file).
fn read_validation(rel: &str, env: Option<&str>) -> Result<ReadRun, String> {
    let path = crate::datafile::plain_name(&crate::workspace_path(rel));
    let text = crate::datafile::read_text(&path)?;
    let mut measurement =
        Measurement::from_json(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let set_aside = set_aside_spread_out(&mut measurement);
    let file = path
        .file_name()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_else(|| rel.to_string());
    let env_path = match env {
        Some(e) => crate::workspace_path(e),
        None => path.with_extension("env.txt"),
    };
    let gpu = std::fs::read_to_string(env_path)
        .ok()
        .and_then(|t| crate::across::gpu_uuid(&t));
    Ok(ReadRun {
        measurement,
        file,
        path,
        gpu,
        set_aside,
    })
}

impl ValidationInput {
    /// Adds a run the rankings read, and what it set aside.
    fn add_run(&mut self, r: ReadRun) {
        self.runs
            .push(ValidationRun::of(&r.file, r.gpu, &r.measurement));
        let file = r.file;
        self.set_aside
            .extend(r.set_aside.into_iter().map(|a| (file.clone(), a)));
    }

    /// The committed validation runs: [`crate::VALIDATION_DATA`] scored, with its Nsight
    /// Compute ratios, and every run of [`crate::VALIDATION_RUNS`] read by the rankings.
    pub fn committed() -> Result<Self, String> {
        // VALIDATION_RUNS[0] is VALIDATION_DATA with the `.env.txt` beside it: `load`'s run.
        let mut v = Self::load(crate::VALIDATION_DATA)?;
        for (file, env) in &crate::VALIDATION_RUNS[1..] {
            v.add_run(read_validation(file, Some(env))?);
        }
        Ok(v)
    }

    /// Reads validation measurement files: the first is scored, and the rankings read all
    /// of them (one run per GPU; see [`Ranking`](super::Ranking)).
    pub fn load_runs(files: &[&str]) -> Result<Self, String> {
        let (first, rest) = files
            .split_first()
            .ok_or("no validation measurement file given")?;
        let mut v = Self::load(first)?;
        for f in rest {
            v.add_run(read_validation(f, None)?);
        }
        Ok(v)
    }

    /// Reads a validation measurement file (workspace-relative or absolute); the committed
    /// one ([`crate::VALIDATION_DATA`]) comes with its Nsight Compute ratios. Its rankings
    /// read this one run.
    pub fn load(rel: &str) -> Result<Self, String> {
        let ReadRun {
            measurement,
            file,
            path,
            gpu,
            set_aside,
        } = read_validation(rel, None)?;
        let committed = Path::new(crate::VALIDATION_DATA).file_name();
        let ncu_csv = if path.file_name() == committed {
            let ncu_path = crate::workspace_path(crate::VALIDATION_NCU);
            Some(crate::datafile::read_text(&ncu_path)?)
        } else {
            None
        };
        Ok(ValidationInput {
            runs: vec![ValidationRun::of(&file, gpu, &measurement)],
            set_aside: set_aside.into_iter().map(|a| (file.clone(), a)).collect(),
            measurement,
            file,
            ncu_csv,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The committed runs are one per GPU: five distinct GPUs named by their `.env.txt`,
    /// the scored file first, every run measuring the scored file's kernels.
    #[test]
    fn the_committed_runs_are_five_gpus_of_the_same_kernels() {
        let v = ValidationInput::committed().unwrap();
        assert_eq!(v.runs.len(), crate::VALIDATION_RUNS.len());
        assert_eq!(v.runs[0].file, v.file);
        assert!(v.ncu_csv.is_some());
        let mut gpus: Vec<&str> = v.runs.iter().filter_map(|r| r.gpu.as_deref()).collect();
        gpus.sort();
        gpus.dedup();
        assert_eq!(gpus.len(), v.runs.len(), "one run per GPU: {gpus:?}");
        for r in &v.runs {
            for b in &v.measurement.benchmarks {
                assert!(r.values.contains_key(&b.name), "{}: no {}", r.file, b.name);
            }
        }
    }

    /// The repetitions `spread_out_reps` sets aside (none without matching spreads).
    fn gone(b: &Benchmark) -> Vec<usize> {
        spread_out_reps(b).map_or_else(Vec::new, |(_, _, gone)| gone)
    }

    /// A gemm benchmark with `reps` and one `{start_ns, end_ns}` per repetition.
    fn bench(reps: &[f64], ends: &[f64]) -> Benchmark {
        let spread: Vec<serde_json::Value> = ends
            .iter()
            .map(|e| serde_json::json!({"start_ns": 128, "end_ns": e}))
            .collect();
        Benchmark {
            name: "val.gemm_mainloop.ws.pipe_2.grid_132_b_shared".into(),
            group: "validation".into(),
            unit: "cycles".into(),
            params: BTreeMap::new(),
            reps: reps.to_vec(),
            median: crate::schema::median(reps).unwrap(),
            source: String::new(),
            kernel: String::new(),
            method: String::new(),
            extra: [("cta_spread".to_string(), serde_json::json!(spread))].into(),
        }
    }

    /// A repetition whose CTAs ended 6 us apart, where the others ended within 0.5 us, is
    /// set aside and the median is the others' (101.5, the mean of the middle two of four);
    /// its value stays in `reps`.
    #[test]
    fn a_spread_out_repetition_is_set_aside() {
        let b = bench(
            &[100.0, 101.0, 102.0, 103.0, 70.0],
            &[300.0, 400.0, 350.0, 500.0, 6000.0],
        );
        assert_eq!(gone(&b), vec![4]);
        let mut m = Measurement {
            benchmarks: vec![b],
            ..crate::load_data(crate::VALIDATION_DATA).unwrap()
        };
        let aside = set_aside_spread_out(&mut m);
        assert_eq!(aside.len(), 1);
        assert_eq!((aside[0].rep, aside[0].value), (4, 70.0));
        assert_eq!(
            (aside[0].median_before, aside[0].median_after),
            (101.0, 101.5)
        );
        assert_eq!((aside[0].end_ns, aside[0].median_end_ns), (6000.0, 400.0));
        assert_eq!(m.benchmarks[0].median, 101.5);
        assert_eq!(m.benchmarks[0].reps.len(), 5);
    }

    /// Both bounds must hold: 3.9 times the median and 1.7 us beyond it (the H200's widest,
    /// ws-wait1 PIPE 4), or 5 times it but 1.6 us beyond, stays; so do benchmarks without
    /// spreads or with a spread per repetition missing.
    #[test]
    fn spreads_within_either_bound_stay() {
        let reps = [1.0, 2.0, 3.0, 4.0, 5.0];
        assert!(gone(&bench(&reps, &[480.0, 2240.0, 576.0, 576.0, 500.0])).is_empty());
        assert!(gone(&bench(&reps, &[400.0, 2000.0, 400.0, 350.0, 450.0])).is_empty());
        assert!(gone(&bench(&reps, &[400.0, 9000.0, 400.0, 350.0])).is_empty());
        let mut b = bench(&reps, &[400.0, 9000.0, 400.0, 350.0, 450.0]);
        assert_eq!(gone(&b), vec![1]);
        b.extra.clear();
        assert!(gone(&b).is_empty());
    }

    /// The two H200 runs of the 48 gemm kernels with CTA spreads (data/gemm_l2,
    /// run-20261128T1021Z-h200, and data/h200/gpu-6420e068's validation collect: each
    /// kernel's repetitions in one mode) have none set aside.
    #[test]
    fn the_h200_gemm_runs_set_none_aside() {
        for f in [
            "crates/calibrate/data/gemm_l2/run-20261128T1021Z-h200/h200-20261128T102135Z.json",
            "crates/calibrate/data/h200/gpu-6420e068/val-h200-20261128T124936Z.json",
        ] {
            let mut m = crate::load_data(f).unwrap();
            let with_spread = m
                .benchmarks
                .iter()
                .filter(|b| b.extra.contains_key("cta_spread"))
                .count();
            assert_eq!(with_spread, 48, "{f}");
            assert_eq!(set_aside_spread_out(&mut m), Vec::new(), "{f}");
        }
    }

    /// No file, or a file that is not there, is a clear error naming it.
    #[test]
    fn bad_validation_files_are_named() {
        assert!(ValidationInput::load_runs(&[]).is_err());
        let e = ValidationInput::load_runs(&[crate::VALIDATION_DATA, "no/such/run.json"])
            .err()
            .unwrap();
        assert!(e.contains("run.json"), "{e}");
    }
}
