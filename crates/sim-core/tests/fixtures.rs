//! Engine behaviour pinned by kernel-text fixtures: each `tests/fixtures/NAME.smk` runs
//! on the h100 profile (seed 1, the default policy) and its Warp State table per role
//! and instruction is compared with `tests/fixtures/NAME.snap` beside it, an insta
//! snapshot. A change in what a fixture does shows as a diff of its table in review;
//! re-bless deliberately with `INSTA_UPDATE=always cargo test -p sim-core --test
//! fixtures` (or `cargo insta review`) and read the diff.
//!
//! (In the spirit of rust-analyzer's `check(fixture, expect)` and cranelift's
//! filetests; the hand-derived cycle counts stay in `tests/engine.rs`.)

use std::fmt::Write;

use sim_core::result::SimError;
use sim_core::{Profile, RunConfig, RunResult};

/// The Warp State table of a run, as the fixture snapshots hold it.
fn table(r: &RunResult) -> String {
    let mut out = String::new();
    writeln!(
        out,
        "{} cycles, {} instructions, {} CTA(s) on the SM",
        r.cycles, r.instructions, r.ctas_simulated
    )
    .unwrap();
    for role in &r.roles {
        writeln!(
            out,
            "\nrole {} ({} warps simulated): {} instructions",
            role.name, role.warps_simulated, role.instructions
        )
        .unwrap();
        for (state, cycles) in role.states.ranked() {
            writeln!(
                out,
                "  {:<18} {:>7}  {:>6.2} per issue",
                state.name(),
                cycles,
                role.per_issue(state)
            )
            .unwrap();
        }
        for pc in &role.per_pc {
            writeln!(
                out,
                "  pc {} `{}`: issued {}",
                pc.pc, pc.instruction, pc.issued
            )
            .unwrap();
            for (state, cycles) in pc.states.ranked() {
                if state != sim_core::WarpState::Selected {
                    writeln!(out, "      {:<18} {:>7}", state.name(), cycles).unwrap();
                }
            }
            for w in &pc.waits_on {
                writeln!(
                    out,
                    "      {} waits on {}: {}",
                    w.state.name(),
                    w.on,
                    w.cycles
                )
                .unwrap();
            }
        }
    }
    out
}

/// What a fixture's snapshot holds: its table, or the error the run ends with.
fn outcome(src: &str) -> String {
    let k = isa::parse_kernel(src).unwrap_or_else(|e| panic!("{}", e.render("fixture", src)));
    let p = Profile::builtin("h100").unwrap();
    match sim_core::run(&k, &p, &RunConfig::default()) {
        Ok(r) => table(&r),
        Err(e @ (SimError::Deadlock(_) | SimError::Watchdog(_) | SimError::Fault(_))) => {
            format!("the run fails:\n{e}")
        }
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn fixtures_match_their_warp_state_tables() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "smk"))
        .collect();
    names.sort();
    assert!(names.len() >= 8, "{names:?}");
    for path in names {
        let src = std::fs::read_to_string(&path).unwrap();
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        insta::with_settings!({
            snapshot_path => dir.clone(),
            prepend_module_to_snapshot => false,
            omit_expression => true,
            description => format!("tests/fixtures/{name}.smk"),
        }, {
            insta::assert_snapshot!(name, outcome(&src));
        });
    }
}

/// A few of the tables' numbers, derived by hand: the fixtures pin what the engine
/// does, these say why the numbers are right.
#[test]
fn fixture_tables_agree_with_hand_derived_counts() {
    let p = Profile::builtin("h100").unwrap();
    let run = |name: &str| {
        let path = format!("{}/tests/fixtures/{name}.smk", env!("CARGO_MANIFEST_DIR"));
        let k = isa::parse_kernel(&std::fs::read_to_string(path).unwrap()).unwrap();
        sim_core::run(&k, &p, &RunConfig::default()).unwrap()
    };
    use sim_core::WarpState::*;
    // Eight dependent FFMAs: seven waits of the FMA latency less the issue cycle.
    let chain = run("ffma_chain");
    let lat = p.t.lat_fma as u64;
    assert_eq!(chain.roles[0].states.get(Wait), 7 * (lat - 1));
    assert_eq!(chain.cycles, 7 * lat + 2);
    // Warps 0 and 4 alternate on sub-partition 0: each waits one cycle per issue of the
    // other, but for the last issue of whichever ends first (9 issues each).
    let shared = run("shared_subpartition");
    assert_eq!(shared.issued_per_subpartition[0], 18);
    assert_eq!(shared.roles[0].states.get(NotSelected), 9 + 8);
    // The fast warp waits at the barrier while the slow one sleeps.
    let bar = run("named_barrier");
    let fast = bar.role("fast").unwrap();
    let slow = bar.role("slow").unwrap();
    assert!(fast.states.get(Barrier) >= slow.states.get(Sleeping));
}
