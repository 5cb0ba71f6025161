//! The library snapshot: every library kernel (every family and schedule at its default
//! parameters, on the profile its family targets) under every scheduling policy, summed
//! up in a line or two of text: cycles, instructions and each role's warp-state shares.
//! Any change in any result shows in review as a changed line of
//! `snapshots/snapshot__library.snap`; a change meant to change results is re-blessed
//! with `cargo insta review` (or `INSTA_UPDATE=always`), a change meant to change nothing
//! must leave it as it is.

use sim_core::scheduler::Policy;
use sim_core::{Profile, RunConfig, RunResult};

/// One run's summary: `cycles instructions` on the first line, then a line per role
/// with the role's instructions and every warp state that holds at least 0.1% of the
/// role's warp-cycles, largest first (shares to 0.1%, so that a shift of a few cycles
/// in a short kernel shows and noise-free rounding keeps long ones stable).
fn summary(r: &RunResult) -> String {
    let mut s = format!("cycles={} instructions={}", r.cycles, r.instructions);
    for role in r.roles.iter().filter(|ro| ro.states.total() > 0) {
        let total = role.states.total() as f64;
        let shares: Vec<String> = role
            .states
            .ranked()
            .into_iter()
            .filter(|(_, c)| *c as f64 / total >= 0.0005)
            .map(|(st, c)| format!("{} {:.1}", st.name(), 100.0 * c as f64 / total))
            .collect();
        s.push_str(&format!(
            "\n    {} x{} instr={}: {}",
            role.name,
            role.warps_simulated,
            role.instructions,
            shares.join(", ")
        ));
    }
    s
}

#[test]
fn library() {
    let mut out = String::new();
    for f in traces::families() {
        let profile = Profile::builtin(f.profile).expect("a built-in profile");
        for sch in f.schedules {
            let k = traces::generate(f.name, sch.name, &[]).expect("a library kernel builds");
            // The policies' runs side by side (debug builds simulate slowly).
            let lines: Vec<String> = std::thread::scope(|s| {
                let runs: Vec<_> = Policy::ALL
                    .iter()
                    .map(|&policy| {
                        let (k, profile) = (&k, &profile);
                        s.spawn(move || {
                            let cfg = RunConfig {
                                policy,
                                ..Default::default()
                            };
                            match sim_core::run(k, profile, &cfg) {
                                Ok(r) => summary(&r),
                                Err(e) => format!("ERROR {e}"),
                            }
                        })
                    })
                    .collect();
                runs.into_iter()
                    .map(|h| h.join().expect("a run does not panic"))
                    .collect()
            });
            for (policy, line) in Policy::ALL.iter().zip(lines) {
                out.push_str(&format!(
                    "{}/{} {} [{}] {line}\n",
                    f.name,
                    sch.name,
                    policy.name(),
                    f.profile
                ));
            }
        }
    }
    insta::assert_snapshot!("library", out);
}
