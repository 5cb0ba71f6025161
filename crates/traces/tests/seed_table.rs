//! The seeds' table (`traces::seeds`): its data hold together (cheap, every build), and
//! the committed table is what the code computes (release: CI runs it through .ci/run).

use traces::seeds::{Unit, figures, ratios};

#[test]
fn every_figure_names_a_kernel_that_builds_and_ratios_name_figures() {
    let mut ids: Vec<&str> = figures().iter().map(|f| f.id).collect();
    ids.sort();
    let n = ids.len();
    ids.dedup();
    assert_eq!(ids.len(), n, "figure ids are unique");
    for f in figures() {
        let params: Vec<(String, i64)> =
            f.params.iter().map(|(k, v)| (k.to_string(), *v)).collect();
        let k = traces::generate(f.family, f.schedule, &params)
            .unwrap_or_else(|e| panic!("{}: {e}", f.id));
        let d = isa::validate::validate(&k);
        assert!(d.is_empty(), "{}: {d:?}", f.id);
        // The kernel declares what the figure measures.
        let w = k.work.as_ref().expect("declared work");
        match f.unit {
            Unit::Tflops => assert!(w.flops.is_some(), "{}", f.id),
            Unit::Tbps => assert!(w.bytes.is_some(), "{}", f.id),
        }
        sim_core::Profile::builtin(f.profile).expect("a built-in profile");
    }
    for r in ratios() {
        for id in [r.over.0, r.over.1] {
            let f = figures().iter().find(|f| f.id == id);
            assert!(f.is_some_and(|f| f.seed == r.seed), "{}: {id}", r.label);
        }
    }
}

/// The committed table is current (about 3 s of CPU in release, minutes in debug).
#[test]
#[ignore]
fn committed_table_is_current() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(traces::seeds::TABLE_PATH);
    let committed = std::fs::read_to_string(&path).expect("the committed table");
    let fresh = traces::seeds::table().to_string();
    assert!(
        committed == fresh,
        "{} is stale: run `cargo run --release -p traces --example seed_table -- --write` and review the change",
        path.display()
    );
}
