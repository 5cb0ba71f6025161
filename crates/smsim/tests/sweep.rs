//! `smsim sweep`, `plot`, `sensitivity` and `tune` end to end through the binary.

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

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

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("smsim-cli-sweep-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // A stale directory of an earlier process with the same id may hold this
    // name's outputs (`name.png` beside a chart stem): smsim refuses to overwrite
    // them, so every file the name starts is removed.
    for e in std::fs::read_dir(&dir).unwrap().flatten() {
        if e.file_name().to_string_lossy().starts_with(name) {
            let _ = std::fs::remove_file(e.path());
        }
    }
    dir.join(name)
}

#[test]
fn a_command_line_sweep_matches_smsim_run_and_plots() {
    let out = tmp("cli.jsonl");
    let o = out.to_str().unwrap();
    let (code, _, err) = smsim(&[
        "sweep",
        "gemm-mainloop/ws,gemm-mainloop/static-v2",
        "--param",
        "PIPE=2..3",
        "--param",
        "K=512",
        "--set",
        "lat_hbm=500,900",
        "--max-ctas",
        "1",
        "--out",
        o,
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("8 points (8 run now, 0 already in the file, 0 failed)"),
        "{err}"
    );
    let rows: Vec<serde_json::Value> = std::fs::read_to_string(&out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // Point 7: static-v2, PIPE=3, lat_hbm=900.
    let r = &rows[7];
    assert_eq!(r["kernel"], "gemm-mainloop/static-v2");
    assert_eq!(r["param.PIPE"], 3);
    assert_eq!(r["set.lat_hbm"], 900.0);
    let (code, json, err) = smsim(&[
        "run",
        "gemm-mainloop/static-v2",
        "-p",
        "PIPE=3",
        "-p",
        "K=512",
        "--set",
        "lat_hbm=900",
        "--max-ctas",
        "1",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let run: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(r["cycles"].as_f64(), run["cycles"].as_f64());
    assert_eq!(r["tflops"].as_f64(), run["tflops"].as_f64());
    assert_eq!(r["ipc"].as_f64(), run["ipc"].as_f64());

    // Rerun: nothing to do.
    let (code, _, err) = smsim(&[
        "sweep",
        "gemm-mainloop/ws,gemm-mainloop/static-v2",
        "--param",
        "PIPE=2..3",
        "--param",
        "K=512",
        "--set",
        "lat_hbm=500,900",
        "--max-ctas",
        "1",
        "--out",
        o,
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("(0 run now, 8 already in the file"), "{err}");

    let stem = tmp("cli-chart");
    let (code, text, err) = smsim(&[
        "plot",
        o,
        "--x",
        "lat_hbm",
        "--y",
        "cycles",
        "--out",
        stem.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let want = format!("    lat_hbm = 900        cycles {}", run["cycles"]);
    assert!(text.contains("  gemm-mainloop/static-v2 PIPE=3:"), "{text}");
    assert!(text.contains(&want), "{want} not in\n{text}");
    for ext in ["png", "svg"] {
        let f = PathBuf::from(format!("{}.{ext}", stem.display()));
        assert!(std::fs::metadata(&f).unwrap().len() > 1000);
    }
    // Charts are not overwritten.
    let (code, _, err) = smsim(&["plot", o, "--x", "lat_hbm", "--out", stem.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(err.contains("exists"), "{err}");
}

#[test]
fn bad_sweeps_fail_with_their_reason() {
    let spec = tmp("bad.toml");
    std::fs::write(
        &spec,
        "kernels = [\"gemm-mainloop/ws\"]\n[set]\nlat_hmb = [1, 2]\n",
    )
    .unwrap();
    let (code, _, err) = smsim(&["sweep", spec.to_str().unwrap(), "--out", "x.csv"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("bad.toml:3:1: error: profile `h100` has no parameter `lat_hmb`"),
        "{err}"
    );
    assert!(err.contains("did you mean lat_hbm?"), "{err}");
    let (code, _, err) = smsim(&["sweep", "gemm-mainloop/ws", "--out", "/nonexistent/x.csv"]);
    assert_eq!(code, 1);
    assert!(err.contains("cannot write"), "{err}");
    let (code, _, err) = smsim(&["sweep", "gemm-mainloop/ws", "--shard", "3/3"]);
    assert_eq!(code, 2);
    assert!(err.contains("I runs from 0 to N-1"), "{err}");
    let (code, _, err) = smsim(&[
        "sweep",
        "merge",
        tmp("m.csv").to_str().unwrap(),
        "nothing.csv",
    ]);
    assert_eq!(code, 1);
    assert!(err.contains("nothing.csv"), "{err}");
}
