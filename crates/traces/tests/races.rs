//! No false positive of the runtime race checker on the library: every family's every
//! schedule at its default parameters, on the profile its family targets, runs with the
//! checker on and races nothing.

use sim_core::races::RaceCheck;
use sim_core::sink::NoSink;
use sim_core::{Profile, RunConfig};

#[test]
fn every_library_kernel_runs_race_free() {
    let mut found = Vec::new();
    let mut runs = 0;
    for f in traces::families() {
        let profile = Profile::builtin(f.profile).expect("a built-in profile");
        for sch in f.schedules {
            let k = traces::generate(f.name, sch.name, &[]).expect("a library kernel builds");
            let cfg = RunConfig::default();
            let mut sink = RaceCheck::new(NoSink, &k);
            if let Err(e) = sim_core::run_with(&k, &profile, &cfg, cfg.policy.build(), &mut sink) {
                found.push(format!("{}/{}: the run fails: {e}", f.name, sch.name));
            }
            runs += 1;
            for h in sink.hazards() {
                found.push(format!("{}/{}: {h:?}", f.name, sch.name));
            }
        }
    }
    assert!(runs > 0, "no library kernel");
    assert!(found.is_empty(), "{}", found.join("\n"));
}
