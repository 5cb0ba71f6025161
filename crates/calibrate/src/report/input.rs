//! The validation runs a report reads: the scored file (with Nsight Compute's ratios for
//! the committed one) and every run of the same kernels the rankings read.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::schema::Measurement;

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

/// A validation file's measurement and name (workspace-relative or absolute, gzipped or
/// not), and its GPU from `env` (an `.env.txt`; by default the one beside the file).
fn read_validation(
    rel: &str,
    env: Option<&str>,
) -> Result<(Measurement, String, PathBuf, Option<String>), String> {
    let path = crate::datafile::plain_name(&crate::workspace_path(rel));
    let text = crate::datafile::read_text(&path)?;
    let measurement =
        Measurement::from_json(&text).map_err(|e| format!("{}: {e}", path.display()))?;
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
    Ok((measurement, file, path, gpu))
}

impl ValidationInput {
    /// The committed validation runs: [`crate::VALIDATION_DATA`] scored, with its Nsight
    /// Compute ratios, and every run of [`crate::VALIDATION_RUNS`] read by the rankings.
    pub fn committed() -> Result<Self, String> {
        // VALIDATION_RUNS[0] is VALIDATION_DATA with the `.env.txt` beside it: `load`'s run.
        let mut v = Self::load(crate::VALIDATION_DATA)?;
        for (file, env) in &crate::VALIDATION_RUNS[1..] {
            let (m, name, _, gpu) = read_validation(file, Some(env))?;
            v.runs.push(ValidationRun::of(&name, gpu, &m));
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
            let (m, name, _, gpu) = read_validation(f, None)?;
            v.runs.push(ValidationRun::of(&name, gpu, &m));
        }
        Ok(v)
    }

    /// Reads a validation measurement file (workspace-relative or absolute); the committed
    /// one ([`crate::VALIDATION_DATA`]) comes with its Nsight Compute ratios. Its rankings
    /// read this one run.
    pub fn load(rel: &str) -> Result<Self, String> {
        let (measurement, file, path, gpu) = read_validation(rel, None)?;
        let committed = Path::new(crate::VALIDATION_DATA).file_name();
        let ncu_csv = if path.file_name() == committed {
            let ncu_path = crate::workspace_path(crate::VALIDATION_NCU);
            Some(crate::datafile::read_text(&ncu_path)?)
        } else {
            None
        };
        Ok(ValidationInput {
            runs: vec![ValidationRun::of(&file, gpu, &measurement)],
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
