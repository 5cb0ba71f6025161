//! `smsim check` end to end: the binary's output for every example, its exit status,
//! and its errors.

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

struct Out {
    code: i32,
    stdout: String,
    stderr: String,
}

/// Runs `smsim ARGS` from the repository root, so paths print as `examples/...`.
fn smsim(args: &[&str]) -> Out {
    let o = Command::new(env!("CARGO_BIN_EXE_smsim"))
        .args(args)
        .current_dir(repo())
        .output()
        .expect("smsim runs");
    Out {
        code: o.status.code().unwrap_or(-1),
        stdout: String::from_utf8(o.stdout).unwrap(),
        stderr: String::from_utf8(o.stderr).unwrap(),
    }
}

fn smk_files(dir: &str) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(repo().join(dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "smk"))
        .map(|p| format!("{dir}/{}", p.file_name().unwrap().to_string_lossy()))
        .collect();
    v.sort();
    v
}

fn stem(path: &str) -> String {
    Path::new(path)
        .file_stem()
        .unwrap()
        .to_string_lossy()
        .to_string()
}

/// The format-gap examples declare predicates and warm buffers; `check` shows both.
#[test]
fn check_describes_gap_examples() {
    for file in smk_files("examples/gaps") {
        let out = smsim(&["check", &file]);
        assert_eq!(out.code, 0, "{file}: {}", out.stderr);
        insta::assert_snapshot!(format!("check__gaps__{}", stem(&file)), out.stdout);
    }
}

#[test]
fn check_describes_every_example() {
    for file in smk_files("examples") {
        let out = smsim(&["check", &file]);
        assert_eq!(out.code, 0, "{file}: {}", out.stderr);
        assert!(out.stderr.is_empty(), "{file}: {}", out.stderr);
        insta::assert_snapshot!(format!("check__{}", stem(&file)), out.stdout);
    }
}

#[test]
fn check_rejects_every_broken_example() {
    for file in smk_files("examples/broken") {
        let out = smsim(&["check", &file]);
        assert_eq!(out.code, 1, "{file} should be rejected");
        assert!(out.stdout.is_empty());
        insta::assert_snapshot!(format!("broken__{}", stem(&file)), out.stderr);
    }
}

#[test]
fn gemm_ws_occupancy_is_one_cta_bound_by_registers_and_shared_memory() {
    let out = smsim(&["check", "examples/gemm_ws.smk"]);
    assert!(out.stdout.contains(
        "=> 1 CTA per SM, limited by registers and shared memory; 12 active warps of 64 (18.8% occupancy)"
    ));
}

#[test]
fn params_override_defaults_and_are_validated() {
    let out = smsim(&["check", "examples/ffma_chain.smk", "--param", "N=4096"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("params   N=4096"));
    assert!(out.stdout.contains("i 0..N (4096)"));

    // saxpy's buffers hold 16 tiles a CTA; 32 reach past them.
    let out = smsim(&["check", "examples/saxpy.smk", "-p", "TILES=32"]);
    assert_eq!(out.code, 1);
    assert!(
        out.stderr.contains("but buffer `X` has 17301504 bytes"),
        "{}",
        out.stderr
    );

    // An unknown parameter is the command line's mistake (exit 2), like an unknown --set.
    let out = smsim(&["check", "examples/saxpy.smk", "--param", "TILE=8"]);
    assert_eq!(out.code, 2);
    assert_eq!(
        out.stderr,
        "error: --param: kernel `saxpy` has no parameter `TILE` (it has: TILES)\n"
    );

    let out = smsim(&["check", "examples/saxpy.smk", "--param", "TILES"]);
    assert_eq!(out.code, 2, "clap rejects a malformed --param");
    assert!(
        out.stderr.contains("`TILES` is not NAME=VALUE"),
        "{}",
        out.stderr
    );
}

#[test]
fn json_output() {
    let out = smsim(&["check", "examples/gemm_ws.smk", "--json"]);
    assert_eq!(out.code, 0);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["ok"], true);
    assert_eq!(v["kernel"], "gemm_ws");
    assert_eq!(v["occupancy"]["ctas_per_sm"], 1);
    assert_eq!(v["occupancy"]["limiter"], "Registers");
    assert_eq!(v["roles"][2]["name"], "consumer");
    assert_eq!(v["roles"][2]["regs"], 232);
    assert_eq!(v["roles"][2]["loops"][0]["trips"], 64);

    let out = smsim(&["check", "examples/broken/undefined_buffer.smk", "--json"]);
    assert_eq!(out.code, 1);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["ok"], false);
    assert_eq!(v["errors"][0]["line"], 8);
    assert_eq!(v["errors"][0]["col"], 13);
    assert_eq!(
        v["errors"][0]["message"],
        "no buffer, shared region or mbarrier is named `Xs`"
    );
}

#[test]
fn missing_and_unreadable_files() {
    let out = smsim(&["check", "examples/no_such_kernel.smk"]);
    assert_eq!(out.code, 1);
    assert_eq!(
        out.stderr,
        "error: examples/no_such_kernel.smk: no such file\n"
    );
    let out = smsim(&["check", "examples"]);
    assert_eq!(out.code, 1);
    assert!(
        out.stderr.starts_with("error: examples: cannot read:"),
        "{}",
        out.stderr
    );
}

#[test]
fn unknown_profile() {
    let out = smsim(&["check", "examples/saxpy.smk", "--profile", "a100"]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.starts_with("error: "), "{}", out.stderr);
    assert!(out.stderr.contains("`a100`"), "{}", out.stderr);
    assert!(
        out.stderr.contains("h100"),
        "names the known profiles: {}",
        out.stderr
    );
}
