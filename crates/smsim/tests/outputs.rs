//! Outputs are never lost (issue 29): a chart that cannot be written whole (here the
//! file-size limit, as a full disk would) leaves neither a truncated file nor a
//! temporary, and an existing chart is kept as it was.

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A fresh empty directory for one test's files.
fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("smsim-outputs-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `smsim ARGS` under `ulimit -f BLOCKS` (512-byte blocks; the shell ignores SIGXFSZ,
/// so a write past it fails with EFBIG instead of killing smsim), or without a limit.
fn smsim(blocks: Option<u32>, args: &[&str]) -> (i32, String, String) {
    let limit = blocks.map_or(String::new(), |b| format!("ulimit -f {b}; "));
    let o = Command::new("sh")
        .arg("-c")
        .arg(format!("trap '' XFSZ; {limit}exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_smsim"))
        .args(args)
        .current_dir(repo())
        .output()
        .unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8(o.stdout).unwrap(),
        String::from_utf8(o.stderr).unwrap(),
    )
}

/// The names in `d`, sorted.
fn names(d: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    v.sort();
    v
}

#[test]
fn a_chart_that_cannot_be_written_whole_leaves_nothing_and_keeps_the_old_one() {
    let dir = scratch("chart");
    let results = dir.join("r.jsonl");
    let r = results.to_str().unwrap();
    let sweep = [
        "sweep",
        "elementwise-add/warp-specialized",
        "--set",
        "lat_hbm=500,900",
        "--max-ctas",
        "1",
        "--out",
        r,
        "--plot",
    ];
    let (code, _, err) = smsim(None, &sweep);
    assert_eq!(code, 0, "{err}");
    let charts = [
        "r-time_us-vs-lat_hbm.png",
        "r-time_us-vs-lat_hbm.svg",
        "r.jsonl",
    ];
    assert_eq!(names(&dir), charts);
    // 4 blocks (2 KiB) hold neither drawing: `plot` fails, says which, leaves nothing.
    let stem = dir.join("c");
    let s = stem.to_str().unwrap();
    let (code, _, err) = smsim(Some(4), &["plot", r, "--x", "lat_hbm", "--out", s]);
    assert_eq!(code, 1, "{err}");
    assert!(err.starts_with(&format!("error: {s}.svg: ")), "{err}");
    assert_eq!(names(&dir), charts);
    // `sweep --plot` replaces its drawings; one that fails (30 blocks hold the results,
    // not the drawing) keeps the old ones as they were.
    let before = std::fs::read(dir.join(charts[1])).unwrap();
    let (code, _, err) = smsim(Some(30), &sweep);
    assert_eq!(code, 1, "{err}");
    assert_eq!(std::fs::read(dir.join(charts[1])).unwrap(), before);
    assert_eq!(names(&dir), charts);
    std::fs::remove_dir_all(&dir).unwrap();
}
