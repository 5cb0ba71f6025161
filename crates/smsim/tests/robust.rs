//! What the command line promises whatever happens around it (issue 29): a reader that
//! closes the pipe early ends smsim quietly; the exit status says whose mistake it was;
//! the printed report survives a trace that cannot be written, and no half-written file
//! is left behind.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn smsim() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_smsim"));
    c.current_dir(repo());
    c
}

/// Runs `smsim ARGS`; returns (exit code, stdout, stderr).
fn run(args: &[&str]) -> (i32, String, String) {
    let o = smsim().args(args).output().expect("smsim runs");
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8(o.stdout).unwrap(),
        String::from_utf8(o.stderr).unwrap(),
    )
}

/// A fresh empty directory for one test's files.
fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("smsim-{tag}-{}", std::process::id()));
    std::fs::remove_dir_all(&d).ok();
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `smsim ARGS | head -c 0`: the reader is gone before smsim writes a byte. The command
/// ends quietly, with status 0 and nothing on stderr (it used to panic with "failed
/// printing to stdout: Broken pipe", status 101).
#[test]
fn a_closed_pipe_ends_quietly() {
    for args in [
        &["run", "singe-viscosity/data-parallel", "--json"][..],
        &["kernels", "--emit", "fa3-forward/fa3"][..],
        &["run", "examples/gemm_ws.smk"][..],
        &["profile"][..],
        &["explain", "all"][..],
    ] {
        let mut child = smsim()
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let mut err = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(0), "{args:?}: {err}");
        assert_eq!(err, "", "{args:?}");
    }
    // A reader that takes the first bytes and goes (`| head -c 10`): the same.
    let mut child = smsim()
        .args(["run", "singe-viscosity/data-parallel", "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 10];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert_eq!(child.wait().unwrap().code(), Some(0), "{err}");
    assert_eq!(&first[..], b"{\n  \"kerne");
    assert_eq!(err, "");
}

/// A stdout that cannot take the report (a full disk) is a failure, said on stderr.
#[test]
fn a_full_stdout_is_a_failure() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        return; // not Linux
    };
    let o = smsim()
        .args(["run", "examples/ffma_chain.smk"])
        .stdout(full)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(o.stderr).unwrap(),
        "error: writing to stdout: No space left on device (os error 28)\n"
    );
}

/// 0 success, 1 the kernel or the run failed, 2 the command line is wrong: the same
/// kind of mistake gets the same status in every subcommand.
#[test]
fn exit_statuses_say_whose_mistake() {
    let usage: &[&[&str]] = &[
        &["run", "examples/ffma_chain.smk", "--set", "lat_fmaa=3"],
        &["run", "examples/ffma_chain.smk", "--param", "NN=3"],
        &["run", "gemm-mainloop/ws", "--param", "PIPEZ=2"],
        &["run", "examples/ffma_chain.smk", "--profile", "a100"],
        &["run", "examples/ffma_chain.smk", "--seed", "x"],
        &["run", "examples/ffma_chain.smk", "--no-such-option"],
        &["check", "examples/saxpy.smk", "--param", "TILE=8"],
        &["compare", "gemm-mainloop", "--param", "PIPEZ=2"],
        &["compare", "gemm-mainloop", "--set", "lat_fmaa=3"],
        &[
            "kernels",
            "--emit",
            "gemm-mainloop/ws",
            "--param",
            "PIPEZ=2",
        ],
        &["profile", "a100"],
        &["explain", "stalled_on_vibes"],
        &["no-such-command"],
    ];
    for args in usage {
        let (code, out, err) = run(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?}: {out}");
        assert!(err.starts_with("error: "), "{args:?}: {err}");
    }
    let failed: &[&[&str]] = &[
        &["run", "examples/no_such_kernel.smk"],
        &["run", "no-such-family/ws"],
        &["run", "examples/broken/undefined_buffer.smk"],
        &["run", "examples/runtime/deadlock.smk"],
        &["check", "examples/broken/undefined_buffer.smk"],
        &["compare", "no-such-family"],
        &["kernels", "--emit", "gemm-mainloop/no-such-schedule"],
    ];
    for args in failed {
        let (code, _, err) = run(args);
        assert_eq!(code, 1, "{args:?}: {err}");
        assert!(!err.is_empty(), "{args:?}");
    }
}

/// A trace that cannot be finished (here the file-size limit, as a full disk would)
/// loses nothing else: the report is printed whole first, the failure is said after
/// it, and neither the trace nor its temporary is left behind.
#[test]
fn a_failed_trace_keeps_the_report_and_leaves_no_file() {
    let dir = scratch("trace-fails");
    let trace = dir.join("t.json");
    let (code, report, err) = run(&["run", "gemm-mainloop/ws"]);
    assert_eq!(code, 0, "{err}");
    // The shell ignores SIGXFSZ, so that a write past `ulimit -f` (512-byte blocks in
    // a POSIX shell) fails with EFBIG instead of killing smsim.
    let script = format!(
        "trap '' XFSZ; ulimit -f 16; exec \"$0\" run gemm-mainloop/ws --trace '{}'",
        trace.display()
    );
    let o = Command::new("sh")
        .args(["-c", &script, env!("CARGO_BIN_EXE_smsim")])
        .current_dir(repo())
        .output()
        .unwrap();
    let err = String::from_utf8(o.stderr).unwrap();
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert_eq!(String::from_utf8(o.stdout).unwrap(), report);
    assert!(
        err.starts_with(&format!(
            "error: the trace {} is not written: ",
            trace.display()
        )) && err.ends_with("(the report above is complete)\n"),
        "{err}"
    );
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
    std::fs::remove_dir_all(&dir).ok();
}

/// A trace path whose directory does not exist is refused before the run (status 2),
/// and an existing file is never replaced, however the run ends.
#[test]
fn trace_paths_are_checked_before_the_run() {
    let (code, out, err) = run(&[
        "run",
        "examples/ffma_chain.smk",
        "--trace",
        "/nonexistent-smsim-dir/t.json",
    ]);
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert_eq!(
        err,
        "error: cannot write /nonexistent-smsim-dir/t.json: no directory /nonexistent-smsim-dir\n"
    );
    let dir = scratch("trace-exists");
    let trace = dir.join("t.json");
    std::fs::write(&trace, "mine").unwrap();
    let (code, out, err) = run(&[
        "run",
        "examples/ffma_chain.smk",
        "--trace",
        trace.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert!(
        err.contains("exists; smsim does not overwrite files"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&trace).unwrap(), "mine");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
    std::fs::remove_dir_all(&dir).ok();
}

/// A kernel whose four warps run a dependent FFMA chain about forever (10^9 trips).
fn endless_kernel(dir: &Path) -> PathBuf {
    let path = dir.join("endless.smk");
    std::fs::write(
        &path,
        "kernel endless\nlaunch cta_threads=128 regs=32 smem=0 grid=1\nparam N=1000000000\nrole main warps=0..3\n  loop i 0..N\n    FFMA R1, R1, R2, R3\n  EXIT\n",
    )
    .unwrap();
    path
}

/// Sends SIGINT (what Ctrl-C sends) to a child.
fn interrupt(child: &std::process::Child) {
    let ok = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(ok.success());
}

/// A run longer than a second says how far it got on stderr; Ctrl-C stops it, and its
/// report so far is printed, marked partial, with status 130.
#[test]
fn a_long_run_shows_progress_and_ctrl_c_reports_it() {
    let dir = scratch("endless");
    let kernel = endless_kernel(&dir);
    let mut child = smsim()
        .args(["run", kernel.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The first progress line comes after a second, however fast the host.
    let mut err = child.stderr.take().unwrap();
    let mut first = Vec::new();
    let mut byte = [0u8; 1];
    while err.read(&mut byte).unwrap() == 1 && byte[0] != b'\n' {
        first.push(byte[0]);
    }
    let first = String::from_utf8(first).unwrap();
    assert!(
        // (The critical path's record sees CTAs finish: it counts them.)
        first.starts_with("smsim: ")
            && first.contains(" cycles simulated so far (0 of 1 CTAs done), "),
        "{first}"
    );
    interrupt(&child);
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    let mut rest = String::new();
    err.read_to_string(&mut rest).unwrap();
    assert_eq!(child.wait().unwrap().code(), Some(130), "{rest}");
    assert!(
        out.starts_with("PARTIAL: Ctrl-C stopped the run at cycle "),
        "{out}"
    );
    assert!(
        out.contains("\nWarp State: role main (4 warps per CTA"),
        "{out}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// `--quiet` and `--json` say no progress; Ctrl-C's partial result in JSON says so.
#[test]
fn quiet_and_json_runs_say_no_progress() {
    let dir = scratch("endless-quiet");
    let kernel = endless_kernel(&dir);
    for flag in ["--quiet", "--json"] {
        let child = smsim()
            .args(["run", kernel.to_str().unwrap(), flag])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(2500));
        interrupt(&child);
        let o = child.wait_with_output().unwrap();
        assert_eq!(o.status.code(), Some(130), "{flag}");
        assert_eq!(String::from_utf8(o.stderr).unwrap(), "", "{flag}");
        let out = String::from_utf8(o.stdout).unwrap();
        if flag == "--json" {
            let v: serde_json::Value = serde_json::from_str(&out).unwrap();
            assert_eq!(v["partial"], true);
            assert!(v["cycles"].as_u64().unwrap() > 0);
        } else {
            assert!(out.starts_with("PARTIAL: "), "{out}");
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// The watchdog's message names the option that moves it.
#[test]
fn the_watchdog_names_max_cycles() {
    let dir = scratch("endless-watchdog");
    let kernel = endless_kernel(&dir);
    let (code, out, err) = run(&["run", kernel.to_str().unwrap(), "--max-cycles", "20000"]);
    assert_eq!(code, 1);
    assert!(out.is_empty());
    assert!(
        err.starts_with(
            "error: watchdog: the run passed 20000 cycles (raise it with --max-cycles)"
        ),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// Without `--max-cycles` the watchdog is sized to the kernel (at least a million
/// cycles): a warp asleep for 100 ms (176 M cycles) meets it at 1,000,000, and the
/// message says where that bound came from.
#[test]
fn the_default_watchdog_is_sized_to_the_kernel() {
    let dir = scratch("nap");
    let kernel = dir.join("nap.smk");
    std::fs::write(
        &kernel,
        "kernel nap\nlaunch cta_threads=32 regs=32 smem=0 grid=1\nrole main warps=0..0\n  NANOSLEEP 100000000\n  EXIT\n",
    )
    .unwrap();
    let (code, out, err) = run(&["run", kernel.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(out.is_empty());
    assert!(
        err.starts_with(
            "error: watchdog: the run passed 1000000 cycles (raise it with --max-cycles)"
        ),
        "{err}"
    );
    assert!(err.ends_with("note: the watchdog's default for this kernel: 64 times its longest warp's instructions at the profile's worst latency, for every wave (at least 1,000,000 cycles)\n"), "{err}");
    // Named, the bound is the one given, and the note is left out.
    let (code, _, err) = run(&["run", kernel.to_str().unwrap(), "--max-cycles", "200000000"]);
    assert_eq!(code, 0, "{err}");
    std::fs::remove_dir_all(&dir).ok();
}
