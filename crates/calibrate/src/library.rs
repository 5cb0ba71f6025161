//! The validation kernels that are measured twins of library kernels, and their twins:
//! the library's generator at the measured parameters, or, where ptxas compiled the
//! CUDA kernel into another instruction stream than the generator writes, the generator's
//! structure running the SASS. Never read by the fit.
//!
//! - `val.elementwise.*` (`kernels/stream.cu`): TMA streaming, `elementwise-add`
//!   (crates/traces/src/elementwise.rs), its tile loops from the SASS (`stream_twin`).
//! - `val.singe.*` (`kernels/singe.cu`): `singe-viscosity` (crates/traces/src/singe.rs),
//!   data-parallel against warp-specialized with named barriers, both from their SASS
//!   (`singe_twin`).

use sim_core::{Profile, RunConfig, RunResult};

use crate::twins::span;

/// One measured configuration of a library kernel.
#[derive(Clone, Debug, PartialEq)]
pub struct LibraryCase {
    /// The library family (`elementwise-add`, `singe-viscosity`).
    pub family: &'static str,
    /// The benchmark's name.
    pub bench: String,
    /// The family's schedule.
    pub schedule: String,
    /// The generator's parameters as measured.
    pub params: Vec<(String, i64)>,
    /// CTAs.
    pub grid: i64,
}

impl LibraryCase {
    /// A parameter's value (0 when absent).
    pub fn get(&self, name: &str) -> i64 {
        self.params
            .iter()
            .find(|(n, _)| n == name)
            .map_or(0, |p| p.1)
    }

    /// The report's group: one per family and grid (1 CTA, 8, the whole chip).
    pub fn group(&self) -> String {
        let what = match self.family {
            "elementwise-add" => "TMA streaming (elementwise-add)",
            _ => "singe-viscosity",
        };
        match self.grid {
            1 => format!("{what}, 1 CTA"),
            g if g >= 132 => format!("{what}, full chip"),
            g => format!("{what}, {g} CTAs"),
        }
    }

    /// What a ranking compares within: the same family, grid and size (tile, or
    /// species), across schedules and load stages.
    pub fn series(&self) -> (&'static str, i64, i64, i64) {
        match self.family {
            "elementwise-add" => (
                self.family,
                self.get("XBLOCK"),
                self.get("YBLOCK"),
                self.grid,
            ),
            _ => (self.family, self.get("SPECIES"), 0, self.grid),
        }
    }
}

/// Each measured family: its benchmarks' prefix and the generator parameters they record.
const FAMILIES: [(&str, &str, &[&str]); 2] = [
    ("elementwise-add", "val.elementwise.", &ELEMENTWISE),
    (
        "singe-viscosity",
        "val.singe.",
        &["SPECIES", "WARPS", "POINTS"],
    ),
];

/// The generator parameters a `val.elementwise.*` benchmark records.
const ELEMENTWISE: [&str; 7] = [
    "XNUMEL",
    "YNUMEL",
    "XBLOCK",
    "YBLOCK",
    "NUM_LOAD_BUFFERS",
    "NUM_STORE_BUFFERS",
    "COMPUTE_WARPS",
];

/// The library-kernel configurations of a validation measurement, with their medians.
pub fn library_cases(m: &crate::Measurement) -> Vec<(LibraryCase, f64)> {
    m.benchmarks
        .iter()
        .filter_map(|b| {
            let (family, _, names) = FAMILIES.iter().find(|f| b.name.starts_with(f.1))?;
            let g = |k: &str| b.params.get(k).and_then(|v| v.as_i64());
            let params = names
                .iter()
                .map(|n| g(n).map(|v| (n.to_string(), v)))
                .collect::<Option<Vec<_>>>()?;
            Some((
                LibraryCase {
                    family,
                    bench: b.name.clone(),
                    schedule: b.params.get("schedule")?.as_str()?.to_string(),
                    params,
                    grid: g("grid")?,
                },
                b.median,
            ))
        })
        .collect()
}

/// The twin's cycles (first warp's start to the last warp's end of the simulated SM's
/// CTA) and its run: the library kernel with its inputs in L2 as far as they fit (the
/// measured kernel ran after a launch that read them).
pub fn simulate_library(c: &LibraryCase, p: &Profile) -> Result<(f64, RunResult), String> {
    // the kernels as ptxas compiled them (`stream_twin`, `singe_twin`)
    if c.family == "elementwise-add" {
        return crate::stream_twin::simulate_stream(c, p);
    }
    if c.family == "singe-viscosity" {
        return match c.schedule.as_str() {
            "data-parallel" => crate::singe_twin::simulate_singe(c, p),
            _ => crate::singe_twin::simulate_singe_ws(c, p),
        };
    }
    let k = traces::generate(c.family, &c.schedule, &c.params)?;
    let warm: &[&str] = match c.family {
        "elementwise-add" => &["A", "B"],
        _ => &["T", "X", "C"],
    };
    let cfg = RunConfig {
        max_cycles: 400_000_000,
        warm_l2: warm.iter().map(|s| s.to_string()).collect(),
        ..RunConfig::default()
    };
    let r = sim_core::run(&k, p, &cfg).map_err(|e| e.to_string())?;
    Ok((span(&r), r))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(schedule: &str, grid: i64, xb: i64) -> LibraryCase {
        LibraryCase {
            family: "elementwise-add",
            bench: "val.elementwise.x".into(),
            schedule: schedule.into(),
            params: vec![
                ("XNUMEL".into(), grid * xb),
                ("YNUMEL".into(), 1024),
                ("XBLOCK".into(), xb),
                ("YBLOCK".into(), 128),
                ("NUM_LOAD_BUFFERS".into(), 2),
                ("NUM_STORE_BUFFERS".into(), 1),
                ("COMPUTE_WARPS".into(), 4),
            ],
            grid,
        }
    }

    #[test]
    fn groups_follow_the_grid() {
        assert_eq!(
            case("tma-pipelined", 1, 64).group(),
            "TMA streaming (elementwise-add), 1 CTA"
        );
        assert_eq!(
            case("tma-pipelined", 8, 64).group(),
            "TMA streaming (elementwise-add), 8 CTAs"
        );
        assert_eq!(
            case("tma-pipelined", 132, 64).group(),
            "TMA streaming (elementwise-add), full chip"
        );
        assert_eq!(
            case("warp-specialized", 8, 32).series(),
            ("elementwise-add", 32, 128, 8)
        );
    }

    /// The twin is the library kernel: one CTA streaming 8 tiles of 32 KiB takes at least
    /// the time its 512 KiB of loads take at one SM's TMA rate from L2.
    #[test]
    fn twin_runs_the_library_kernel() {
        let p = Profile::builtin("h100").unwrap();
        let c = case("tma-pipelined", 1, 64);
        let (cycles, r) = simulate_library(&c, &p).unwrap();
        let bytes = 2.0 * 8.0 * 32768.0;
        let rate = p.file.params["tma_bytes_per_clk"].value;
        assert!(
            cycles >= bytes / rate,
            "{cycles} cycles for {bytes} B at {rate} B/clk"
        );
        assert_eq!(r.warps.len(), 4);
    }
}
