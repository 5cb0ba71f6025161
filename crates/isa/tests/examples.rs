//! The kernels shipped in examples/: every good one validates and prints back to
//! itself; every broken one fails with the diagnostics in tests/snapshots.

use std::path::{Path, PathBuf};

use isa::{parse_kernel, validate};

fn examples_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

fn smk_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "smk"))
        .collect();
    files.sort();
    files
}

/// The diagnostics a file gets, rendered as `smsim check` prints them.
fn diagnostics(path: &Path) -> String {
    let src = std::fs::read_to_string(path).unwrap();
    let name = format!(
        "examples/broken/{}",
        path.file_name().unwrap().to_string_lossy()
    );
    let diags = match parse_kernel(&src) {
        Err(d) => vec![d],
        Ok(k) => validate(&k),
    };
    diags
        .iter()
        .map(|d| d.render(&name, &src))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn every_example_is_valid() {
    let files = smk_files(&examples_dir());
    assert!(files.len() >= 4, "examples/ holds the example kernels");
    for path in files {
        let src = std::fs::read_to_string(&path).unwrap();
        let k = parse_kernel(&src)
            .unwrap_or_else(|d| panic!("{}", d.render(&path.display().to_string(), &src)));
        let diags = validate(&k);
        let shown: Vec<String> = diags
            .iter()
            .map(|d| d.render(&path.display().to_string(), &src))
            .collect();
        assert!(diags.is_empty(), "{}", shown.join("\n"));
    }
}

#[test]
fn every_example_round_trips_through_the_printer() {
    for path in smk_files(&examples_dir()) {
        let k = parse_kernel(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let printed = k.to_string();
        let again = parse_kernel(&printed).unwrap_or_else(|d| {
            panic!(
                "{} printed text does not parse:\n{}",
                path.display(),
                d.render("printed", &printed)
            )
        });
        assert_eq!(again, k, "{}:\n{printed}", path.display());
        // Printing is a fixed point.
        assert_eq!(again.to_string(), printed);
    }
}

#[test]
fn the_required_examples_exist() {
    for name in ["saxpy", "mbarrier_pingpong", "gemm_ws", "ffma_chain"] {
        assert!(
            examples_dir().join(format!("{name}.smk")).exists(),
            "examples/{name}.smk"
        );
    }
}

#[test]
fn every_broken_example_fails_with_its_diagnostics() {
    let files = smk_files(&examples_dir().join("broken"));
    assert!(files.len() >= 7);
    for path in files {
        let out = diagnostics(&path);
        assert!(!out.is_empty(), "{} should not be accepted", path.display());
        let stem = path.file_stem().unwrap().to_string_lossy().to_string();
        insta::assert_snapshot!(format!("broken__{stem}"), out);
    }
}
