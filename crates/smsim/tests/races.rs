//! The runtime race checker on the command line (issue 29): `smsim check --races` runs
//! the kernel with the checker on, prints each hazard naming both instructions, and
//! exits 1 when there is one; `smsim run` always checks and prints them after its
//! report (and under `races` in JSON); without `--races`, `check` stays static.

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs `smsim ARGS`; returns (exit code, stdout, stderr).
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

/// `text` written to a fresh file of this test's; its path.
fn kernel_file(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("smsim-races-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(format!("{name}.smk"));
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

/// gemm_ws on one CTA and 8 K blocks, with `from` replaced by `to`.
fn gemm_ws(from: &str, to: &str) -> String {
    let text = std::fs::read_to_string(repo().join("examples/gemm_ws.smk")).unwrap();
    assert!(text.contains(from));
    text.replacen("grid=132", "grid=1", 1)
        .replacen("KT=64", "KT=8", 1)
        .replacen(from, to, 1)
}

/// A consumer whose wait's parity passes at once, before the copy has landed.
const WRONG_PARITY: &str = "kernel wrong_parity
launch cta_threads=64 regs=32 smem=4096 grid=1
buffer A size=1MiB
shared s size=4096
mbarrier full[1] count=1
role producer warps=0..0
  SYNCS.ARRIVE.TRANS64.EXPECT_TX full[0], bytes=4096
  UTMALDG s[0], A[0], bytes=4096, bar=full[0]
  EXIT
role consumer warps=1..1
  NANOSLEEP 20
  SYNCS.PHASECHK.TRANS64.TRYWAIT full[0], parity=1
  LDS R0, s[lane * 4]
  EXIT
";

#[test]
fn check_races_finds_an_accumulator_read_early_and_exits_1() {
    let racy = kernel_file("acc", &gemm_ws("  WARPGROUP.DEPBAR.LE gsb0, 0\n", ""));
    // Statically the kernel is fine...
    let (code, _, _) = smsim(&["check", &racy]);
    assert_eq!(code, 0);
    // ...but its run reads the accumulator before the wait.
    let (code, out, err) = smsim(&["check", "--races", &racy]);
    assert_eq!(code, 1, "{err}");
    assert!(
        out.contains("Races: 1 hazard found by the runtime race checker\n  accumulator before wait (256 times, first at cycle "),
        "{out}"
    );
    assert!(
        out.contains("`STG.E.128 C[(((cta * 8 + warp - 4) * 32 + c) * 32 + lane) * 16], R24` (line 53, warp 4 of role consumer) uses R24..R151 while `HGMMA.64x256x16.F32.BF16 R24, sA[(k % PIPE) * 16384 + (warpgroup - 1) * 8192], sB[(k % PIPE) * 32768]` (line 45, warp 4 of role consumer) accumulates into them"),
        "{out}"
    );
    // The correct kernel's run has none.
    let correct = kernel_file("correct", &gemm_ws("param PIPE=4", "param PIPE=4"));
    let (code, out, err) = smsim(&["check", "--races", &correct]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("\nRaces: none in a run of "), "{out}");
}

#[test]
fn run_reports_a_read_before_fill_after_its_report_and_in_json() {
    let racy = kernel_file("parity", WRONG_PARITY);
    let (code, out, err) = smsim(&["run", &racy, "--quiet"]);
    assert_eq!(code, 0, "{err}");
    let races = out
        .split("\nRaces: ")
        .nth(1)
        .unwrap_or_else(|| panic!("{out}"));
    assert!(
        races.starts_with(
            "1 hazard found by the runtime race checker\n  read before fill (once, first at cycle "
        ),
        "{races}"
    );
    assert!(
        races.contains("`LDS R0, s[lane * 4]` (line 13, warp 1 of role consumer) reads s[0..4096] before the phase of full[0] that `UTMALDG s[0], A[0], bytes=4096, bar=full[0]` (line 8, warp 0 of role producer) fills it for has completed"),
        "{races}"
    );
    let (code, out, _) = smsim(&["run", &racy, "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let h = &v["races"][0];
    assert_eq!(h["kind"], "read_before_fill");
    assert_eq!(h["stage"], "full[0]");
    assert_eq!(h["what"], "s[0..4096]");
    assert_eq!(h["racing"]["line"], 13);
    assert_eq!(h["with"]["line"], 8);
    // The corrected parity waits for the copy: no section, no key.
    let fixed = kernel_file("fixed", &WRONG_PARITY.replace("parity=1", "parity=0"));
    let (code, out, _) = smsim(&["run", &fixed, "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v.get("races").is_none(), "{out}");
}
