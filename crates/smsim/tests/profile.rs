//! `smsim profile`: every parameter of a profile with its value, unit, meaning and
//! source, as a snapshot; the JSON form; the refusals.

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs `smsim ARGS` from the repository root; returns (exit code, stdout, stderr).
fn smsim(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_smsim"))
        .args(args)
        .current_dir(repo())
        .output()
        .expect("smsim runs");
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8(o.stdout).unwrap(),
        String::from_utf8(o.stderr).unwrap(),
    )
}

#[test]
fn profile_prints_every_parameter_of_the_h100() {
    let (code, out, err) = smsim(&["profile"]);
    assert_eq!(code, 0, "{err}");
    // Every parameter the engine reads is there, once, with its unit and source.
    for name in sim_core::profile::Timing::NAMES {
        assert_eq!(
            out.matches(&format!("\n  {name} = ")).count(),
            1,
            "{name} in\n{out}"
        );
    }
    insta::assert_snapshot!(out);
}

#[test]
fn profile_takes_a_name_a_file_and_overrides() {
    let (code, out, err) = smsim(&["profile", "b200", "--set", "lat_hbm=700"]);
    assert_eq!(code, 0, "{err}");
    let head = format!(
        "profile b200: NVIDIA B200 (sm_100); not validated; {} parameters\n",
        sim_core::profile::Timing::NAMES.len()
    );
    assert!(out.starts_with(&head), "{out}");
    assert!(out.contains("  overrides: lat_hbm=700\n"), "{out}");
    assert!(out.contains("  lat_hbm = 700 cycles\n"), "{out}");
    assert!(
        out.contains("source: --set 700 for this run (profile said: "),
        "{out}"
    );
    // A profile file reads as the built-in it copies.
    let (code, file_out, err) = smsim(&["profile", "crates/sim-core/profiles/h100.toml"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(file_out, smsim(&["profile", "h100"]).1);
}

#[test]
fn profile_json_describes_each_parameter() {
    let (code, out, err) = smsim(&["profile", "h100", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let params = v["params"].as_array().unwrap();
    assert_eq!(params.len(), sim_core::profile::Timing::NAMES.len());
    let profile = sim_core::Profile::builtin("h100").unwrap();
    for p in params {
        let name = p["name"].as_str().unwrap();
        assert_eq!(
            p["value"].as_f64(),
            profile.file.params.get(name).map(|e| e.value)
        );
        assert_eq!(p["source"].as_str(), profile.source(name), "{name}");
        for field in ["group", "unit", "meaning"] {
            assert!(!p[field].as_str().unwrap().is_empty(), "{name}: {field}");
        }
    }
    let l2 = params.iter().find(|p| p["name"] == "l2_bytes").unwrap();
    assert_eq!(l2["unit"], "bytes");
    // the fit's flag (every benchmark in band), as the profile file carries it
    assert_eq!(v["validated"], profile.file.validated);
}

#[test]
fn profile_refuses_what_is_not_a_profile() {
    let (code, _, err) = smsim(&["profile", "a100"]);
    assert_eq!(code, 2);
    assert_eq!(
        err,
        "error: no built-in profile or file `a100` (built in: h100, b200, h200)\n"
    );
    let (code, _, err) = smsim(&["profile", "h100", "--set", "lat_hbmm=3"]);
    assert_eq!(code, 2);
    assert!(err.contains("did you mean lat_hbm?"), "{err}");
    // A file that is not a profile: its TOML error, named.
    let (code, _, err) = smsim(&["profile", "examples/saxpy.smk"]);
    assert_eq!(code, 2);
    assert!(
        err.starts_with("error: examples/saxpy.smk: the profile is not valid TOML"),
        "{err}"
    );
}
