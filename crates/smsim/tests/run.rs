//! `smsim run`, `explain`, `kernels` and `compare` end to end: the reports a user reads,
//! as snapshots, and their exit statuses.

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

/// `smsim run KERNEL --trace` into a temporary file named after `tag` (removed first):
/// the exit code, stderr, the trace's path (left for the caller to remove) and the
/// trace as JSON.
fn run_traced(kernel: &str, tag: &str) -> (i32, String, PathBuf, serde_json::Value) {
    let path = std::env::temp_dir().join(format!("smsim-{tag}-{}.json", std::process::id()));
    std::fs::remove_file(&path).ok();
    let (code, _, err) = smsim(&["run", kernel, "--trace", path.to_str().unwrap()]);
    let trace = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{e}: {err}"));
    let v = serde_json::from_str(&trace).unwrap();
    (code, err, path, v)
}

#[test]
fn run_reports_a_kernel_file() {
    let (code, out, err) = smsim(&["run", "examples/mbarrier_pingpong.smk"]);
    assert_eq!(code, 0, "{err}");
    insta::assert_snapshot!(out);
}

#[test]
fn run_reports_a_builtin_kernel_with_overrides() {
    let (code, out, err) = smsim(&[
        "run",
        "gemm-mainloop/static-v1",
        "-p",
        "M=128",
        "-p",
        "N=256",
        "-p",
        "K=512",
        "--set",
        "lat_hbm=700",
        "--seed",
        "3",
    ]);
    assert_eq!(code, 0, "{err}");
    insta::assert_snapshot!(out);
}

#[test]
fn run_json_carries_the_seed_and_the_states() {
    let (code, out, _) = smsim(&["run", "examples/ffma_chain.smk", "--json", "--seed", "9"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["seed"], 9);
    let states = &v["roles"][0]["states"];
    let total: u64 = states
        .as_object()
        .unwrap()
        .values()
        .map(|x| x.as_u64().unwrap())
        .sum();
    let lifetimes: u64 = v["warps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["finished"].as_u64().unwrap() - w["started"].as_u64().unwrap())
        .sum();
    assert_eq!(total, lifetimes);
}

#[test]
fn a_runtime_deadlock_names_the_waiting_warp() {
    let (code, out, err) = smsim(&["run", "examples/runtime/deadlock.smk"]);
    assert_eq!(code, 1);
    assert!(out.is_empty());
    insta::assert_snapshot!(err);
}

#[test]
fn bad_arguments_are_explained() {
    let (code, _, err) = smsim(&["run", "examples/ffma_chain.smk", "--set", "lat_fmaa=3"]);
    assert_eq!(code, 2);
    assert!(err.contains("did you mean lat_fma"), "{err}");
    let (code, _, err) = smsim(&["run", "no-such-family/ws"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("neither a kernel file nor a built-in kernel"),
        "{err}"
    );
    // An unknown parameter is a usage error, as an unknown --set is.
    let (code, _, err) = smsim(&["run", "gemm-mainloop/ws", "-p", "PIPEZ=2"]);
    assert_eq!(code, 2);
    assert!(err.contains("PIPEZ"), "{err}");
    let (code, _, err) = smsim(&["run", "examples/ffma_chain.smk", "--policy", "fifo"]);
    assert_eq!(code, 2);
    assert!(err.contains("gto, lrr, oldest or two-level"), "{err}");
    // Zero CTAs is refused, not run as one.
    for cmd in ["run", "compare"] {
        let what = if cmd == "run" {
            "examples/ffma_chain.smk"
        } else {
            "gemm-mainloop"
        };
        let (code, _, err) = smsim(&[cmd, what, "--max-ctas", "0"]);
        assert_eq!(code, 2, "{cmd}");
        assert!(err.contains("0 is not in 1.."), "{err}");
    }
}

#[test]
fn explain_knows_every_state() {
    for s in sim_core::WarpState::ALL {
        let (code, out, _) = smsim(&["explain", s.name()]);
        assert_eq!(code, 0);
        assert!(out.contains("causes:") && out.contains("fixes:"));
    }
    let (code, _, err) = smsim(&["explain", "stalled_on_vibes"]);
    assert_eq!(code, 2);
    assert!(err.contains("long_scoreboard"));
    insta::assert_snapshot!(smsim(&["explain", "gmma"]).1);
}

#[test]
fn kernels_emits_files_that_check_accepts() {
    let (code, out, _) = smsim(&["kernels", "--emit", "gemm-mainloop/ws", "-p", "K=256"]);
    assert_eq!(code, 0);
    let path = std::env::temp_dir().join(format!("smsim-emit-{}.smk", std::process::id()));
    std::fs::write(&path, out).unwrap();
    let (code, _, err) = smsim(&["check", path.to_str().unwrap()]);
    std::fs::remove_file(&path).ok();
    assert_eq!(code, 0, "{err}");
}

#[test]
fn trace_writes_a_chrome_timeline_and_never_overwrites() {
    let (code, err, path, v) = run_traced("examples/ffma_chain.smk", "trace");
    assert_eq!(code, 0, "{err}");
    let events = v["traceEvents"].as_array().unwrap();
    // Every slice of warp 0 together covers its whole life.
    let (_, json, _) = smsim(&["run", "examples/ffma_chain.smk", "--json"]);
    let r: serde_json::Value = serde_json::from_str(&json).unwrap();
    let life =
        r["warps"][0]["finished"].as_u64().unwrap() - r["warps"][0]["started"].as_u64().unwrap();
    let covered: u64 = events
        .iter()
        .filter(|e| e["cat"] == "warp" && e["tid"] == 0 && e["pid"] == 0)
        .map(|e| e["dur"].as_u64().unwrap())
        .sum();
    assert_eq!(covered, life);
    assert!(events.iter().any(|e| e["name"] == "wait"));
    // Each slice names the instruction the report charges its state to, and each warp's
    // thread its role.
    let role = &r["roles"][0];
    for e in events.iter().filter(|e| e["cat"] == "warp") {
        let pc = e["args"]["pc"].as_u64().unwrap() as usize;
        assert_eq!(
            e["args"]["instruction"], role["per_pc"][pc]["instruction"],
            "{e}"
        );
    }
    assert!(events.iter().any(|e| e["name"] == "thread_name"
        && e["tid"] == 0
        && e["args"]["name"] == format!("warp 0 ({})", role["name"].as_str().unwrap())));
    let (code, _, err) = smsim(&[
        "run",
        "examples/ffma_chain.smk",
        "--trace",
        path.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("does not overwrite"));
    std::fs::remove_file(&path).ok();
}

/// A trace names mbarrier phases by the declared name and index, on the CTA's barrier
/// thread (events number mbarriers across declarations: `empty[0]` follows `full`'s).
#[test]
fn a_trace_names_mbarriers_as_declared() {
    let (code, err, path, v) = run_traced("examples/gemm_ws.smk", "mbar-trace");
    std::fs::remove_file(&path).ok();
    assert_eq!(code, 0, "{err}");
    let phases: Vec<&str> = v["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["cat"] == "barrier")
        .filter_map(|e| e["name"].as_str())
        .collect();
    for name in [
        "full[0] completes a phase (1 so far)",
        "empty[0] completes a phase (1 so far)",
    ] {
        assert!(
            phases.contains(&name),
            "{name} not in {:?}",
            &phases[..phases.len().min(8)]
        );
    }
}

/// A run that deadlocks still writes its trace, up to the cycle of the deadlock: the
/// blocked warp's last slice is its wait at the barrier.
#[test]
fn a_deadlocked_runs_trace_ends_at_the_deadlock() {
    let kernel = std::env::temp_dir().join(format!("smsim-stuck-{}.smk", std::process::id()));
    // Warp 0 waits at a barrier warp 1 never reaches; warp 1 runs 50 FFMAs and exits.
    std::fs::write(
        &kernel,
        "kernel stuck\nlaunch cta_threads=64 regs=32 smem=0 grid=1\nparam N=1\nrole main warps=0..1\n  if warp < N\n    BAR.SYNC 0\n  loop i 0..50\n    FFMA R1, R1, R2, R3\n  EXIT\n",
    )
    .unwrap();
    let (code, err, path, v) = run_traced(kernel.to_str().unwrap(), "stuck-trace");
    assert_eq!(code, 1, "{err}");
    let cycle: u64 = err
        .split("(cycle ")
        .nth(1)
        .and_then(|s| s.split(')').next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("a deadlock's cycle: {err}"));
    std::fs::remove_file(&path).ok();
    std::fs::remove_file(&kernel).ok();
    let warp0: Vec<&serde_json::Value> = v["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["cat"] == "warp" && e["tid"] == 0)
        .collect();
    let last = warp0.last().unwrap();
    assert_eq!(last["name"], "barrier");
    assert_eq!(last["args"]["instruction"], "BAR.SYNC 0");
    // The slice points at the instruction's line in the kernel file.
    assert_eq!(last["args"]["line"], 6);
    let end = last["ts"].as_u64().unwrap() + last["dur"].as_u64().unwrap();
    assert_eq!(end, cycle);
    // Warp 0's slices cover its whole life to there: it issued its BAR.SYNC first, at
    // cycle 0, and waited from the next cycle on while warp 1 ran its FFMAs.
    let covered: u64 = warp0.iter().map(|e| e["dur"].as_u64().unwrap()).sum();
    assert_eq!(covered, cycle);
    assert_eq!(last["ts"], 1);
}

#[test]
fn warm_l2_starts_a_buffer_in_l2_and_names_a_missing_one() {
    let json = |extra: &[&str]| {
        let mut args = vec!["run", "examples/gemm_ws.smk", "--json"];
        args.extend_from_slice(extra);
        let (code, out, err) = smsim(&args);
        assert_eq!(code, 0, "{err}");
        serde_json::from_str::<serde_json::Value>(&out).unwrap()
    };
    let cold = json(&[]);
    let warm = json(&["--warm-l2", "A", "--warm-l2", "B"]);
    let hbm = |v: &serde_json::Value| v["memory"]["requests_hbm"].as_u64().unwrap();
    // The copies of A and B find their lines in L2: none of their reads goes to HBM.
    assert!(hbm(&cold) > 0);
    assert_eq!(hbm(&warm), 0, "{}", warm["memory"]);
    assert_eq!(warm["warm_l2"], serde_json::json!(["A", "B"]));
    assert!(warm["cycles"].as_u64() <= cold["cycles"].as_u64());
    let (code, _, err) = smsim(&["run", "examples/gemm_ws.smk", "--warm-l2", "Z"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("no buffer `Z` to start in L2; the kernel's buffers: A, B, C"),
        "{err}"
    );
}

#[test]
fn a_builtin_kernel_runs_on_its_familys_profile_unless_told_otherwise() {
    // The Blackwell family's kernels need the B200's tensor memory: no --profile needed.
    let (code, out, err) = smsim(&["run", "blackwell-matmul/ws", "-p", "M=256"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("smsim run: kernel bw_matmul_ws on profile b200,"),
        "{out}"
    );
    // A profile named on the command line wins, and its refusal says what to use.
    let (code, _, err) = smsim(&["run", "blackwell-matmul/ws", "--profile", "h100"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("h100 profile has no tensor memory") && err.contains("b200"),
        "{err}"
    );
    // A Hopper family and a kernel file keep the H100's.
    let (code, out, err) = smsim(&["run", "latency-hiding/chase"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("on profile h100,"), "{out}");
}

/// Each warp's slices tile its life exactly: from its start to the cycle `--json` says
/// it finished, no further (the idle warps of `gemm-mainloop/ws` exit at once and finish
/// at cycle 1; saxpy's warps drain their stores after EXIT, and the drain ends with the
/// warp, not with its CTA).
#[test]
fn a_traces_warps_end_where_they_finished() {
    for (kernel, tag) in [
        ("gemm-mainloop/ws", "finish-ws"),
        ("examples/saxpy.smk", "finish-saxpy"),
    ] {
        let (code, err, path, v) = run_traced(kernel, tag);
        std::fs::remove_file(&path).ok();
        assert_eq!(code, 0, "{err}");
        let (_, json, _) = smsim(&["run", kernel, "--json"]);
        let r: serde_json::Value = serde_json::from_str(&json).unwrap();
        let events = v["traceEvents"].as_array().unwrap();
        let mut checked = 0;
        for w in r["warps"].as_array().unwrap() {
            let mut slices: Vec<(u64, u64)> = events
                .iter()
                .filter(|e| e["cat"] == "warp" && e["pid"] == w["cta"] && e["tid"] == w["warp"])
                .map(|e| {
                    let ts = e["ts"].as_u64().unwrap();
                    (ts, ts + e["dur"].as_u64().unwrap())
                })
                .collect();
            slices.sort();
            let (start, finish) = (
                w["started"].as_u64().unwrap(),
                w["finished"].as_u64().unwrap(),
            );
            assert_eq!(slices.first().unwrap().0, start, "{kernel} {w}");
            assert_eq!(slices.last().unwrap().1, finish, "{kernel} {w}");
            for pair in slices.windows(2) {
                assert_eq!(pair[0].1, pair[1].0, "{kernel}: a gap or overlap in {w}");
            }
            checked += 1;
        }
        assert!(checked >= 8, "{kernel}: {checked} warps");
    }
    // The idle warps of the warp-specialized GEMM: one cycle, their EXIT.
    let (_, json, _) = smsim(&["run", "gemm-mainloop/ws", "--json"]);
    let r: serde_json::Value = serde_json::from_str(&json).unwrap();
    let idle: Vec<&serde_json::Value> = r["warps"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["role"] == "idle")
        .collect();
    assert!(!idle.is_empty());
    assert!(idle.iter().all(|w| w["finished"] == 1), "{idle:?}");
}

/// Each instruction in `--json`'s `per_pc` names its line of the kernel text: for a
/// kernel file, the file's line holding that instruction; for a built-in kernel, the
/// line of its `smsim kernels --emit` text.
#[test]
fn per_pc_names_each_instructions_source_line() {
    let check = |target: &str, text: &str| {
        let (code, out, err) = smsim(&["run", target, "--json"]);
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let mut named = 0;
        for role in v["roles"].as_array().unwrap() {
            for p in role["per_pc"].as_array().unwrap() {
                let line = p["line"].as_u64().unwrap() as usize;
                let instr = p["instruction"].as_str().unwrap();
                let mnemonic = instr.split_whitespace().next().unwrap();
                if mnemonic == "EXIT" && !lines[line - 1].contains("EXIT") {
                    continue; // a role's implicit EXIT: the line of its last statement
                }
                assert!(
                    lines[line - 1].trim_start().starts_with(mnemonic),
                    "{target}: {instr} at line {line}: {:?}",
                    lines[line - 1]
                );
                named += 1;
            }
        }
        assert!(named > 10, "{target}: only {named} instructions checked");
    };
    let file = repo().join("examples/gemm_ws.smk");
    check(
        file.to_str().unwrap(),
        &std::fs::read_to_string(&file).unwrap(),
    );
    let (_, emitted, _) = smsim(&["kernels", "--emit", "gemm-mainloop/ws"]);
    check("gemm-mainloop/ws", &emitted);
}
