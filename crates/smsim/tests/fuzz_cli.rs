//! The command line fuzzed (issue 29): argument lists drawn from valid and invalid
//! pieces (subcommands, kernels, options, edge numbers, garbage) and profile files with
//! a value changed to an edge, a line dropped or the text cut short. Whatever smsim is
//! given, it ends with status 0, 1 or 2 within its time (or, a long run, says its
//! progress), says an error on stderr (or as JSON with `"ok": false`) when it fails,
//! and never panics or aborts.
//!
//! CI runs `SMSIM_FUZZ_CASES` cases (default 80) from `SMSIM_FUZZ_SEED` (default 1);
//! more, offline: `SMSIM_FUZZ_CASES=5000 cargo test -p smsim --test fuzz_cli`, for at
//! most `SMSIM_FUZZ_SECONDS` if set. On another machine (the test binary carried
//! there), `SMSIM_BIN` names the smsim binary and `SMSIM_FUZZ_ROOT` the repository.
//! The cases run are said on stderr (`--nocapture`).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn repo() -> PathBuf {
    match std::env::var_os("SMSIM_FUZZ_ROOT") {
        Some(r) => PathBuf::from(r),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."),
    }
}

/// The binary under test: `SMSIM_BIN`, else the one cargo built.
fn smsim_bin() -> PathBuf {
    std::env::var_os("SMSIM_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_smsim")))
}

/// xorshift64*: the cases are the same for a seed on every host.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len())]
    }
}

const KERNELS: &[&str] = &[
    "examples/ffma_chain.smk",
    "examples/saxpy.smk",
    "examples/mbarrier_pingpong.smk",
    "examples/cp_async.smk",
    "examples/runtime/deadlock.smk",
    "examples/broken/syntax_error.smk",
    "examples/broken/undefined_buffer.smk",
    "examples/no_such.smk",
    "latency-hiding/chase",
    "elementwise-add/ws",
    "gemm-mainloop/nope",
    "nope/ws",
    "examples",
    "",
];
const NUMBERS: &[&str] = &[
    "0",
    "1",
    "-1",
    "2",
    "0.5",
    "700",
    "4294967295",
    "4294967296",
    "18446744073709551615",
    "9223372036854775807",
    "-9223372036854775808",
    "1e300",
    "1e-300",
    "nan",
    "inf",
    "-inf",
    "0x10",
    "",
    "x",
];
const SET_NAMES: &[&str] = &[
    "lat_hbm",
    "lat_fma",
    "lsu_queue_depth",
    "mio_queue_depth",
    "tensor_queue_depth",
    "l2_bytes",
    "l1_ways",
    "clock_mhz",
    "sm_count",
    "smem_bytes_per_clk",
    "hbm_tail_probability",
    "max_warps_per_sm",
    "lat_hbmm",
    "",
];
const PARAM_NAMES: &[&str] = &["N", "TILES", "K", "PIPE", "STAGES", "NN", ""];
const GARBAGE: &[&str] = &[
    "--", "-", "--json=1", "-p", "--set", "=", "\u{e9}", "--help",
];

/// One argument list.
fn argv(rng: &mut Rng, profile_file: &str) -> Vec<String> {
    let sub = rng.pick(&[
        "run", "run", "run", "check", "check", "compare", "kernels", "profile", "explain",
    ]);
    let mut a = vec![sub.to_string()];
    match sub {
        "explain" => a.push(
            rng.pick(&["gmma", "all", "long_scoreboard", "x", ""])
                .into(),
        ),
        "profile" => a.push(
            rng.pick(&["h100", "b200", "a100", profile_file, "examples/saxpy.smk"])
                .into(),
        ),
        "compare" => a.push(
            rng.pick(&["latency-hiding", "elementwise-add", "nope", ""])
                .into(),
        ),
        "kernels" => {
            if rng.below(2) == 0 {
                a.push("--emit".into());
                a.push(
                    rng.pick(&["elementwise-add/ws", "latency-hiding/chase", "nope/x", "x"])
                        .into(),
                );
            }
        }
        "check" => {
            a.push(rng.pick(KERNELS).into());
            // (The race checker's run, half the time.)
            if rng.below(2) == 0 {
                a.push("--races".into());
            }
        }
        _ => a.push(rng.pick(KERNELS).into()),
    }
    for _ in 0..rng.below(4) {
        match rng.below(10) {
            0 | 1 => {
                a.push("--set".into());
                a.push(format!("{}={}", rng.pick(SET_NAMES), rng.pick(NUMBERS)));
            }
            2 | 3 => {
                a.push("--param".into());
                a.push(format!("{}={}", rng.pick(PARAM_NAMES), rng.pick(NUMBERS)));
            }
            4 => {
                a.push(rng.pick(&["--max-ctas", "--max-cycles", "--seed"]).into());
                a.push(rng.pick(NUMBERS).into());
            }
            5 => {
                a.push("--profile".into());
                a.push(rng.pick(&["h100", "b200", "a100", profile_file]).into());
            }
            6 => {
                a.push("--policy".into());
                a.push(
                    rng.pick(&["gto", "lrr", "oldest", "two-level", "fifo"])
                        .into(),
                );
            }
            7 => a.push(rng.pick(&["--json", "--quiet", "--json"]).into()),
            8 => {
                a.push("--warm-l2".into());
                a.push(rng.pick(&["A", "X", "Z", ""]).into());
            }
            _ => a.push(rng.pick(GARBAGE).into()),
        }
    }
    a
}

/// A profile file: h100's with one value changed to an edge, a line dropped, or the
/// text cut short.
fn profile_text(rng: &mut Rng, h100: &str) -> String {
    let lines: Vec<&str> = h100.lines().collect();
    let params: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].contains("= { value = "))
        .collect();
    let i = params[rng.below(params.len())];
    match rng.below(4) {
        0 | 1 => {
            let (name, rest) = lines[i].split_once(" = { value = ").unwrap();
            let (_, tail) = rest.split_once(',').unwrap();
            let v = rng.pick(&[
                "0",
                "-1",
                "1e300",
                "4294967295",
                "0.5",
                "nan",
                "inf",
                "\"x\"",
                "1e18",
            ]);
            let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
            out[i] = format!("{name} = {{ value = {v},{tail}");
            out.join("\n")
        }
        2 => {
            let mut out: Vec<&str> = lines.clone();
            out.remove(i);
            out.join("\n")
        }
        _ => {
            let cut = rng.below(h100.len());
            h100.char_indices()
                .take_while(|(b, _)| *b < cut)
                .map(|(_, c)| c)
                .collect()
        }
    }
}

/// Runs one argument list; the failure to report, if any.
fn check_one(args: &[String]) -> Option<String> {
    let mut child = Command::new(smsim_bin())
        .args(args)
        .current_dir(repo())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("smsim runs");
    // Read both pipes on threads so that a large output cannot block the child.
    let mut out_pipe = child.stdout.take().unwrap();
    let mut err_pipe = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut s = Vec::new();
        out_pipe.read_to_end(&mut s).ok();
        s
    });
    let err = std::thread::spawn(move || {
        let mut s = Vec::new();
        err_pipe.read_to_end(&mut s).ok();
        s
    });
    let started = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break Some(s);
        }
        if started.elapsed() > Duration::from_secs(60) {
            child.kill().ok();
            child.wait().ok();
            break None;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let out = String::from_utf8_lossy(&out.join().unwrap()).to_string();
    let err = String::from_utf8_lossy(&err.join().unwrap()).to_string();
    let Some(status) = status else {
        // A long run that says how far it got (a loop of 2^32 trips asked for with
        // `--param`) is bounded and reported, not a hang: only silence is one.
        if err.contains("cycles simulated so far") {
            return None;
        }
        return Some("no end within 60 s, and no progress said".into());
    };
    let code = status.code();
    if !matches!(code, Some(0..=2)) {
        return Some(format!(
            "status {code:?}: {}",
            err.lines().take(3).collect::<Vec<_>>().join(" | ")
        ));
    }
    if err.contains("panicked") || err.contains("RUST_BACKTRACE") {
        return Some(format!(
            "a panic: {}",
            err.lines().take(3).collect::<Vec<_>>().join(" | ")
        ));
    }
    if code != Some(0) && err.trim().is_empty() && !out.contains("\"ok\": false") {
        return Some(format!("status {code:?} with nothing said"));
    }
    None
}

#[test]
fn the_command_line_survives_what_it_is_given() {
    let cases: usize = std::env::var("SMSIM_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(80);
    let seed: u64 = std::env::var("SMSIM_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    let h100 = std::fs::read_to_string(repo().join("crates/sim-core/profiles/h100.toml")).unwrap();
    let dir = std::env::temp_dir().join(format!("smsim-fuzz-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let profile = dir.join("p.toml");
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let limit = std::env::var("SMSIM_FUZZ_SECONDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .map(Duration::from_secs);
    let started = Instant::now();
    let mut failures = Vec::new();
    let mut ran = 0;
    for case in 0..cases {
        if limit.is_some_and(|l| started.elapsed() >= l) {
            break;
        }
        ran += 1;
        std::fs::write(&profile, profile_text(&mut rng, &h100)).unwrap();
        let args = argv(&mut rng, profile.to_str().unwrap());
        if let Some(why) = check_one(&args) {
            let kept = dir.join(format!("case-{case}.toml"));
            std::fs::copy(&profile, &kept).ok();
            failures.push(format!(
                "case {case}: smsim {args:?}: {why} (profile file kept at {})",
                kept.display()
            ));
        }
    }
    eprintln!(
        "fuzz_cli seed {seed}: {ran} cases in {:.1} s, {} failed",
        started.elapsed().as_secs_f64(),
        failures.len()
    );
    if failures.is_empty() {
        std::fs::remove_dir_all(&dir).ok();
    }
    assert!(
        failures.is_empty(),
        "{} of {ran} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
