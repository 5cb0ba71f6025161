//! The grammar-aware text fuzzer, bounded for CI: generated kernels, and corrupted ones,
//! never make the parser or the validator panic, get diagnostics inside the text, and
//! print back to the same kernel. (`cargo run --release -p isa --example fuzz_text --
//! SEED CASES SECONDS` runs many more, through the same loop, `isa::textgen::fuzz`.)

use isa::textgen::{FuzzRun, fuzz};

/// A fresh folder for one test's findings.
fn out_dir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("isa-fuzz-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

#[test]
fn generated_kernel_text_keeps_the_parser_s_and_validator_s_promises() {
    let run = FuzzRun {
        seed: 2026,
        cases: 600,
        limit: None,
        out_dir: out_dir("promises"),
    };
    let t = fuzz(&run, |_| None);
    assert_eq!(t.found, 0, "problems written to {}", run.out_dir.display());
    assert_eq!(t.cases, 600);
    assert_eq!(t.parse_errors + t.invalid + t.valid, t.cases);
    // Each path is exercised: the parser's errors, the validator's, and valid kernels.
    assert!(t.parse_errors > 30, "{t:?}");
    assert!(t.invalid > 100, "{t:?}");
    assert!(t.valid > 5, "{t:?}");
}

#[test]
fn a_broken_further_promise_is_counted_and_written_headed_by_its_problem() {
    let run = FuzzRun {
        seed: 7,
        cases: 200,
        limit: None,
        out_dir: out_dir("written"),
    };
    let mut first = None;
    let t = fuzz(&run, |k| {
        first.get_or_insert(k.name.clone());
        Some(format!("kernel {} refused\nsecond line", k.name))
    });
    assert!(t.valid > 0, "{t:?}");
    assert_eq!(t.found, t.valid);
    let files: Vec<_> = std::fs::read_dir(&run.out_dir).unwrap().collect();
    assert_eq!(files.len() as u64, t.found);
    let name = first.unwrap();
    let text = files
        .iter()
        .map(|f| std::fs::read_to_string(f.as_ref().unwrap().path()).unwrap())
        .find(|t| {
            t.starts_with(&format!(
                "# kernel {name} refused\n# second line\nkernel {name}"
            ))
        })
        .unwrap_or_else(|| panic!("no file headed by the first kernel's problem"));
    assert!(isa::parse_kernel(text.split_once("line\n").unwrap().1).is_ok());
    std::fs::remove_dir_all(&run.out_dir).unwrap();
}

#[test]
fn a_time_limit_stops_the_loop() {
    let run = FuzzRun {
        seed: 3,
        cases: u64::MAX,
        limit: Some(std::time::Duration::from_millis(200)),
        out_dir: out_dir("limit"),
    };
    let t = fuzz(&run, |_| None);
    assert!(t.cases > 0 && t.cases < u64::MAX, "{t:?}");
}
