//! The cheapest study (3 s in the debug build; the others take 10 s and more there)
//! rerun against their committed results (`smsim sweep --check`):
//! a change in the simulator that moves a study's numbers is seen here, and the study's
//! results and charts are regenerated on purpose (`smsim sweep STUDY --force --plot`).

use std::path::Path;

use experiments::{expand, runner, spec};

fn check(name: &str) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let path = root.join("experiments/studies").join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    let s = spec::parse(&text, path.parent().unwrap()).unwrap();
    let plan = expand(&s).unwrap();
    let out = s
        .base_dir
        .join(s.out.as_ref().expect("a study names its results"));
    let diffs = runner::check(&plan, &out, 0).unwrap();
    assert!(
        diffs.is_empty(),
        "{name}: {} values differ from {}; rerun the study with --force --plot if the change is meant:\n{}",
        diffs.len(),
        out.display(),
        diffs[..diffs.len().min(10)].join("\n")
    );
}

#[test]
fn latency_hiding_matches_its_committed_results() {
    check("003-latency-hiding.toml");
}
