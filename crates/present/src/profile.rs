//! A GPU profile for a reader: every parameter with its value, unit, meaning and
//! source (what `smsim profile` prints), grouped as the profile declares them.

use std::fmt::Write as _;

use serde::Serialize;
use sim_core::Profile;
use sim_core::profile::{ParamDoc, Timing};

use crate::units::{bytes, wrap};

/// Lines are wrapped to this width (the indented meaning and source).
const WIDTH: usize = 92;

/// One parameter of a profile: its description and this profile's value and source.
#[derive(Clone, Debug, Serialize)]
pub struct ParamRow {
    /// The parameter's name, as in profile files and `--set`.
    pub name: &'static str,
    /// The part of the SM it belongs to.
    pub group: &'static str,
    /// Its value in this profile (after any `--set`).
    pub value: f64,
    /// What the value counts.
    pub unit: &'static str,
    /// What it means and how the engine uses it.
    pub meaning: &'static str,
    /// Where this profile's value came from.
    pub source: String,
}

/// A profile described: its identity and every parameter, in declaration order.
#[derive(Clone, Debug, Serialize)]
pub struct ProfileTable {
    /// The profile's name (`h100`, `b200`, or a file's).
    pub name: String,
    /// The GPU it models.
    pub gpu: String,
    /// Whether its parameters were fitted to measurements of that GPU.
    pub validated: bool,
    /// What the profile says of itself.
    pub note: String,
    /// Parameters overridden for this run (`--set`), in order.
    pub overrides: Vec<(String, f64)>,
    /// Every parameter.
    pub params: Vec<ParamRow>,
}

/// Every parameter of `p` with its description.
pub fn table(p: &Profile) -> ProfileTable {
    let params = Timing::PARAMS
        .iter()
        .map(|d: &ParamDoc| ParamRow {
            name: d.name,
            group: d.group,
            value: p.file.params.get(d.name).map_or(f64::NAN, |e| e.value),
            unit: d.unit,
            meaning: d.meaning(),
            source: p.source(d.name).unwrap_or("").to_string(),
        })
        .collect();
    ProfileTable {
        name: p.name().to_string(),
        gpu: p.file.gpu.clone(),
        validated: p.file.validated,
        note: p.file.note.clone(),
        overrides: p.overrides.clone(),
        params,
    }
}

/// A value with its unit, and where it helps, the same in a reader's terms: `52428800
/// bytes (50 MiB)`, `733184 (mask 0xb3000)`.
fn value(r: &ParamRow) -> String {
    match r.unit {
        "bytes" if r.value >= 1024.0 && r.value.fract() == 0.0 => {
            format!("{} bytes ({})", r.value, bytes(r.value as u64))
        }
        "bit mask" if r.value.fract() == 0.0 => format!("{} (mask {:#x})", r.value, r.value as u64),
        "probability" | "ratio" => r.value.to_string(),
        unit => format!("{} {unit}", r.value),
    }
}

/// The table as `smsim profile` prints it: a header, then each group's parameters,
/// each with its value and unit, its meaning and its source.
pub fn render(t: &ProfileTable) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "profile {}: {}; {}; {} parameters",
        t.name,
        t.gpu,
        if t.validated {
            "validated"
        } else {
            "not validated"
        },
        t.params.len()
    );
    o.push_str(&wrap(&format!("note: {}", t.note), WIDTH, "  "));
    if !t.overrides.is_empty() {
        let s: Vec<String> = t
            .overrides
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        let _ = writeln!(o, "  overrides: {}", s.join(", "));
    }
    let mut group = "";
    for r in &t.params {
        if r.group != group {
            group = r.group;
            let _ = writeln!(o, "\n{group}");
        }
        let _ = writeln!(o, "  {} = {}", r.name, value(r));
        o.push_str(&wrap(r.meaning, WIDTH, "      "));
        o.push_str(&wrap(&format!("source: {}", r.source), WIDTH, "      "));
    }
    o
}
