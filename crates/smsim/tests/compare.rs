//! `smsim compare A B ...` over kernel files, built-in schedules and variants, and
//! `smsim run --seeds`.

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

/// A kernel file, a variant of it with another parameter and one with another profile
/// value, and a built-in schedule: one table, each row run on the seeds asked for.
#[test]
fn compare_takes_files_builtins_and_variants() {
    let args = [
        "compare",
        "examples/gemm_ws.smk",
        "examples/gemm_ws.smk@PIPE=2",
        "examples/gemm_ws.smk@lat_hbm=1200",
        "gemm-mainloop/ws@K=1024",
        "--seeds",
        "2",
        "-p",
        "KT=16",
        "--json",
    ];
    // `-p KT=16` applies to every kernel: the built-in has no KT, and its row says so.
    let (code, out, err) = smsim(&args);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v["rows"][0]["error"].is_null());
    let e = v["rows"][3]["error"].as_str().unwrap();
    assert!(e.contains("KT"), "{e}");
    let mut args = args.to_vec();
    args.retain(|a| *a != "-p" && *a != "KT=16");
    let (code, out, err) = smsim(&args);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 4);
    assert_eq!(v["seeds"], serde_json::json!([1, 2]));
    for r in rows {
        assert!(r["error"].is_null(), "{r}");
        assert_eq!(r["cycles_by_seed"].as_array().unwrap().len(), 2);
        assert!(r["diagnosis"]["bounds"]["binding"].is_string());
    }
    let cycles = |i: usize| rows[i]["cycles_mean"].as_f64().unwrap();
    // Two stages cannot cover the copies that four do; a slower HBM costs time.
    assert!(cycles(1) > cycles(0), "{} vs {}", cycles(1), cycles(0));
    assert!(cycles(2) > cycles(0), "{} vs {}", cycles(2), cycles(0));
    // A malformed variant is an error before anything runs.
    let (code, _, err) = smsim(&["compare", "examples/gemm_ws.smk@PIPE"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("`PIPE` in `examples/gemm_ws.smk@PIPE` is not NAME=VALUE"),
        "{err}"
    );
}

/// The text table names the bound and marks ties; HGMMA on the B200 is refused, its
/// rows saying why.
#[test]
fn compare_text_marks_ties_bounds_and_refusals() {
    let (code, out, err) = smsim(&[
        "compare",
        "examples/gemm_ws.smk",
        "examples/gemm_ws.smk@KT=64",
        "--seeds",
        "2",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("tensor pipe"), "{out}");
    assert!(out.contains(" ="), "{out}");
    assert!(out.contains("tie:"), "{out}");
    let (code, out, err) = smsim(&["compare", "examples/gemm_ws.smk", "--profile", "b200"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("FAILED: cannot run this kernel: line 44: role consumer issues WARPGROUP.ARRIVE, a Hopper (sm_90a) warpgroup instruction that the b200 profile's GPU does not have"),
        "{out}"
    );
}

/// `run --seeds 3`: the first seed's report, the three seeds' spread, and in JSON the
/// diagnosis and the spread.
#[test]
fn run_on_several_seeds_reports_their_spread() {
    let (code, out, err) = smsim(&["run", "examples/gemm_ws.smk", "--seeds", "3"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Seeds       3 seeds (1..=3): mean"), "{out}");
    assert!(out.contains("Bound       tensor pipe"), "{out}");
    let (code, out, err) = smsim(&["run", "examples/gemm_ws.smk", "--seeds", "3", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["seeds"]["seeds"], serde_json::json!([1, 2, 3]));
    let c: Vec<u64> = v["seeds"]["cycles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect();
    assert_eq!(c[0], v["cycles"].as_u64().unwrap());
    assert_eq!(v["diagnosis"]["bounds"]["binding"], "tensor");
    let (code, _, err) = smsim(&["run", "examples/gemm_ws.smk", "--seeds", "0"]);
    assert_eq!(code, 2, "{err}");
}
