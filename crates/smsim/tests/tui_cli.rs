//! `smsim tui` as a newcomer meets it from the command line, without a terminal: a
//! stdout that is not a terminal is refused with a pointer to `--render`; kernel and
//! option errors come as `smsim run` prints them, with its exit statuses, before the
//! terminal is touched; a deadlocked run opens at its deadlock.

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs `smsim ARGS` with stdout and stderr piped; returns (exit code, stdout, stderr).
fn smsim(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_smsim"))
        .current_dir(repo())
        .args(args)
        .output()
        .expect("smsim runs");
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8(o.stdout).unwrap(),
        String::from_utf8(o.stderr).unwrap(),
    )
}

#[test]
fn a_stdout_that_is_not_a_terminal_is_refused_naming_render() {
    let (code, out, err) = smsim(&["tui", "gemm-mainloop/ws"]);
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains("not a terminal") && err.contains("--render COLSxROWS"),
        "{err}"
    );
}

#[test]
fn kernel_and_option_errors_come_as_smsim_run_says_them() {
    for (what, args) in [
        ("a syntax error", &["examples/broken/syntax_error.smk"][..]),
        (
            "a kernel the checker refuses",
            &["examples/broken/too_much_smem.smk"][..],
        ),
        ("no such file", &["examples/nope.smk"][..]),
        ("no such built-in kernel", &["gemm-mainloop/nope"][..]),
        (
            "an unknown --param",
            &["gemm-mainloop/ws", "--param", "NOPE=1"][..],
        ),
        (
            "an unknown --set",
            &["gemm-mainloop/ws", "--set", "nope=1"][..],
        ),
        (
            "no such profile",
            &["gemm-mainloop/ws", "--profile", "h999"][..],
        ),
    ] {
        let run: Vec<&str> = ["run"].iter().chain(args).copied().collect();
        let (run_code, _, run_err) = smsim(&run);
        assert_ne!(run_code, 0, "{what}: smsim run fails");
        // Interactive (a piped stdout: the kernel's error still comes first), and
        // with --render.
        let tui: Vec<&str> = ["tui"].iter().chain(args).copied().collect();
        let render: Vec<&str> = tui.iter().copied().chain(["--render", "80x24"]).collect();
        for cmd in [tui, render] {
            let (code, out, err) = smsim(&cmd);
            assert_eq!(
                (code, err.as_str()),
                (run_code, run_err.as_str()),
                "{what}: {cmd:?}"
            );
            assert!(
                out.is_empty(),
                "{what}: nothing on stdout, no escape codes: {out:?}"
            );
        }
    }
}

#[test]
fn a_deadlocked_kernel_opens_at_the_deadlock() {
    // Warp 0 issues BAR.SYNC at cycle 0 and warp 1 EXIT; warp 1 leaves at cycle 1 and
    // from then on nothing can move: `smsim run` says the deadlock is at cycle 1.
    let file = "examples/runtime/deadlock.smk";
    let (code, _, err) = smsim(&["run", file]);
    assert_eq!(code, 1);
    assert!(
        err.contains("deadlock: no warp can make progress (cycle 1)"),
        "{err}"
    );
    let (code, frame, err) = smsim(&["tui", file, "--render", "100x24"]);
    assert_eq!(code, 0, "{err}");
    assert!(frame.contains("2 cycles, DEADLOCK"), "{frame}");
    assert!(
        frame.contains("cursor 1 "),
        "the cursor opens at the deadlock:\n{frame}"
    );
    // The blocked warp is marked and selected; the report is in the detail pane.
    assert!(frame.contains("> !c0 w0"), "{frame}");
    assert!(
        frame.contains("deadlock: no warp can make progress (cycle 1)"),
        "{frame}"
    );
    assert!(frame.contains("! c0 w0 (main) at `BAR.SYNC 0`"), "{frame}");
}

/// `--render-first` draws the frame the terminal shows first: a run that ends before
/// its first frame is due (every library kernel at its defaults) whole, as `--render`.
#[test]
fn render_first_of_a_short_run_is_the_complete_frame() {
    let args = [
        "tui",
        "gemm-mainloop/ws",
        "--render",
        "120x40",
        "--at",
        "2000",
    ];
    let (code, whole, err) = smsim(&args);
    assert_eq!(code, 0, "{err}");
    let first: Vec<&str> = args.iter().copied().chain(["--render-first"]).collect();
    let (code, frame, err) = smsim(&first);
    assert_eq!(code, 0, "{err}");
    assert_eq!(frame, whole);
    assert!(frame.contains("68571 cycles, finished"), "{frame}");
}

/// A run of 16 waves (one 32-warp CTA at a time, its shared memory the SM's): its
/// first frame is due once the first wave is done and a quarter of a million state
/// changes are in, about 7 of its 16 CTAs. `--render-first` prints it, marked as a run
/// still simulating with its estimated length, the same bytes every time.
#[test]
fn render_first_of_a_long_run_is_its_first_partial_frame() {
    let kernel = "kernel waves16
launch cta_threads=1024 regs=32 smem=196608 grid=2112
param N=600
role main warps=0..31
  loop i 0..N
    FFMA R1, R1, R2, 0.5
  EXIT
";
    let file = std::env::temp_dir().join(format!("smsim-waves16-{}.smk", std::process::id()));
    std::fs::write(&file, kernel).unwrap();
    let path = file.to_str().unwrap();
    let args = ["tui", path, "--render", "100x30", "--render-first"];
    let (code, frame, err) = smsim(&args);
    let (again, frame2, _) = smsim(&args);
    let (whole_code, whole, _) = smsim(&args[..4]);
    std::fs::remove_file(&file).unwrap();
    assert_eq!((code, again, whole_code), (0, 0, 0), "{err}");
    assert_eq!(
        frame, frame2,
        "the first frame is the run's own, not the clock's"
    );
    let title = frame.lines().next().unwrap();
    assert!(title.starts_with(" PARTIAL, simulating: cycle "), "{frame}");
    assert!(title.contains("/16 CTAs │"), "{frame}");
    assert!(frame.contains(" of ~"), "{frame}");
    assert!(frame.contains('·'), "cycles not simulated yet: {frame}");
    assert!(whole.contains("cycles, finished"), "{whole}");
    assert!(!whole.contains("simulating"), "{whole}");
}

#[test]
fn bad_frame_sizes_and_keys_are_usage_errors() {
    for (args, says) in [
        (&["--render", "30x10"][..], "a frame is at least 40x12"),
        (&["--render", "big"][..], "is not COLSxROWS"),
        (
            &["--render", "80x24", "--keys", "<Nope>"][..],
            "unknown key `<Nope>`",
        ),
        (&["--render", "80x24", "--zoom", "0"][..], "is not a zoom"),
        (&["--render-first"][..], "--render <COLSxROWS>"),
    ] {
        let cmd: Vec<&str> = ["tui", "gemm-mainloop/ws"]
            .iter()
            .chain(args)
            .copied()
            .collect();
        let (code, out, err) = smsim(&cmd);
        assert_eq!(code, 2, "{cmd:?}: {err}");
        assert!(out.is_empty());
        assert!(err.contains(says), "{cmd:?}: {err}");
    }
}

/// The words of a shell command line: spaces split, double quotes group.
fn words(line: &str) -> Vec<String> {
    let (mut out, mut cur, mut quoted) = (Vec::new(), String::new(), false);
    for c in line.chars() {
        match c {
            '"' => quoted = !quoted,
            ' ' if !quoted => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            _ => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// README.md's example frame (`$ smsim tui --compare ... --render ...` and what it
/// prints) is what smsim prints today: a newcomer who runs it sees the README's frame.
/// An engine change that moves it fails here: rerun the command and paste its output
/// (and check the paragraph under it still describes it).
#[test]
fn the_readmes_frame_is_what_smsim_prints() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let at = readme
        .find("\n$ smsim tui --compare ")
        .expect("README.md shows a `smsim tui --compare` frame");
    let rest = &readme[at + 3..];
    let (line, rest) = rest.split_once('\n').unwrap();
    let shown = &rest[..rest.find("```").expect("the frame's block ends")];
    let args = words(line);
    assert_eq!(args[0], "smsim");
    let args: Vec<&str> = args[1..].iter().map(String::as_str).collect();
    assert!(args.contains(&"--render"), "{line}");
    let (code, frame, err) = smsim(&args);
    assert_eq!(code, 0, "{err}");
    assert!(
        frame == shown,
        "README.md's frame is stale: `{line}` now prints\n{frame}"
    );
}
