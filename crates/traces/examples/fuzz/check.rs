//! Mutated kernels through the engine: what the `fuzz` example and the test that runs a
//! few of its cases share. A case takes a kernel of the corpus (the library's, the
//! examples', the benchmarks'), edits a few of its lines (a number changed, a line
//! deleted, duplicated, moved, or taken from another kernel, an instruction's mnemonic
//! swapped for another's), and runs what still parses and validates. Whatever the
//! engine makes of it, it must not panic, and a run that succeeds keeps the engine's
//! promises: every cycle of every warp accounted once, per warp and per instruction;
//! the same result with a sink attached and without fast-forward; events in order; the
//! same instructions issued under another policy and seed. A deadlock or a fault is
//! reported the same without fast-forward.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;

use sim_core::sink::{Event, VecSink};
use sim_core::{Profile, RunConfig, RunResult, SimError, WarpState};

/// SplitMix64: the cases' own random stream (a case is its seed and number).
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// The kernels mutated: built-in kernels as printed (see below), and the repository's
/// kernel files (the repository this was built in, else `SMSIM_FUZZ_ROOT`, else the
/// current folder: a binary carried to another machine).
pub fn corpus() -> Vec<String> {
    let built_in = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let root = match std::env::var_os("SMSIM_FUZZ_ROOT") {
        Some(r) => std::path::PathBuf::from(r),
        None if built_in.join("examples").is_dir() => built_in,
        None => std::path::PathBuf::from("."),
    };
    let mut srcs = Vec::new();
    for dir in ["examples", "crates/sim-core/benches"] {
        let mut files: Vec<_> = std::fs::read_dir(root.join(dir))
            .expect("the repository's kernel folders")
            .map(|e| e.expect("a folder entry").path())
            .filter(|p| p.extension().is_some_and(|x| x == "smk"))
            .collect();
        files.sort();
        for p in files {
            srcs.push(std::fs::read_to_string(p).expect("a kernel file"));
        }
    }
    // Every built-in kernel at its defaults, and with each parameter at 1, 2 and half
    // its default where the family accepts that (smaller kernels, which finish within
    // a case's cycles, and the generators' other paths).
    for f in traces::families() {
        for s in f.schedules {
            let mut variants = vec![vec![]];
            for p in f.params {
                for v in [1, 2, p.default / 2] {
                    variants.push(vec![(p.name.to_string(), v)]);
                }
            }
            for v in variants {
                if let Ok(k) = traces::generate(f.name, s.name, &v) {
                    srcs.push(k.to_string());
                }
            }
        }
    }
    srcs.dedup();
    srcs
}

/// Numbers a mutation puts in place of one: the edges of counts, sizes and indices.
const NUMBERS: &[&str] = &[
    "0",
    "1",
    "2",
    "3",
    "4",
    "5",
    "7",
    "8",
    "15",
    "16",
    "31",
    "32",
    "33",
    "63",
    "64",
    "65",
    "96",
    "127",
    "128",
    "129",
    "255",
    "256",
    "1024",
    "4096",
    "65536",
    "1000000",
    "4294967296",
    "9223372036854775807",
];

/// One to four line edits of `src`; `donors` give lines to insert.
pub fn mutate(src: &str, donors: &[String], rng: &mut Rng) -> String {
    let mut lines: Vec<String> = src.lines().map(str::to_string).collect();
    for _ in 0..1 + rng.below(4) {
        if lines.is_empty() {
            break;
        }
        let i = rng.below(lines.len());
        match rng.below(7) {
            0 | 1 => {
                // A whole number (not part of a name: R12 stays) replaced.
                let b = lines[i].as_bytes();
                let mut numbers = Vec::new();
                let mut j = 0;
                while j < b.len() {
                    let starts = b[j].is_ascii_digit()
                        && (j == 0 || !(b[j - 1].is_ascii_alphanumeric() || b[j - 1] == b'_'));
                    if starts {
                        let s = j;
                        while j < b.len() && b[j].is_ascii_digit() {
                            j += 1;
                        }
                        numbers.push(s..j);
                    } else {
                        j += 1;
                    }
                }
                if !numbers.is_empty() {
                    let at = numbers[rng.below(numbers.len())].clone();
                    lines[i].replace_range(at, NUMBERS[rng.below(NUMBERS.len())]);
                }
            }
            2 => {
                lines.remove(i);
            }
            3 => {
                let l = lines[i].clone();
                lines.insert(i, l);
            }
            4 => {
                let j = rng.below(lines.len());
                lines.swap(i, j);
            }
            6 => {
                // An instruction's mnemonic (with its modifiers) replaced by another
                // kernel's, its operands kept.
                let donor = &donors[rng.below(donors.len())];
                let mnemonics: Vec<&str> = donor
                    .lines()
                    .filter(|l| l.starts_with("  "))
                    .filter_map(|l| l.split_whitespace().next())
                    .filter(|m| m.chars().next().is_some_and(|c| c.is_ascii_uppercase()))
                    .collect();
                let line = &lines[i];
                let depth = line.len() - line.trim_start().len();
                let body = line.trim_start();
                let is_instruction = body.chars().next().is_some_and(|c| c.is_ascii_uppercase());
                if is_instruction && depth > 0 && !mnemonics.is_empty() {
                    let rest = body.split_once(' ').map_or("", |(_, r)| r);
                    let m = mnemonics[rng.below(mnemonics.len())];
                    lines[i] = format!("{}{m} {rest}", " ".repeat(depth));
                }
            }
            _ => {
                // A body line of another kernel, at this line's depth.
                let donor = &donors[rng.below(donors.len())];
                let body: Vec<&str> = donor.lines().filter(|l| l.starts_with("  ")).collect();
                if !body.is_empty() {
                    let l = body[rng.below(body.len())].trim_start();
                    let depth = (lines[i].len() - lines[i].trim_start().len()).max(2);
                    lines.insert(i, format!("{}{l}", " ".repeat(depth)));
                }
            }
        }
    }
    lines.join("\n") + "\n"
}

/// Profile values a mutation of the profile tries: edges, and what is not a number.
pub const PROFILE_VALUES: &[f64] = &[
    0.0,
    0.5,
    1.0,
    2.0,
    3.0,
    7.0,
    1e3,
    1e6,
    1e9,
    1e12,
    1e15,
    1e18,
    -1.0,
    f64::NAN,
    f64::INFINITY,
];

/// One to three of the profile's parameters set to edge values, as `--set` would;
/// returns those it accepted (the others it must refuse with an error, not a panic).
pub fn tweak_profile(p: &mut Profile, rng: &mut Rng) -> Result<Vec<String>, String> {
    let names = sim_core::profile::Timing::NAMES;
    let mut accepted = Vec::new();
    for _ in 0..1 + rng.below(3) {
        let name = names[rng.below(names.len())];
        let v = PROFILE_VALUES[rng.below(PROFILE_VALUES.len())];
        match catch_unwind(AssertUnwindSafe(|| p.set(name, v))) {
            Ok(Ok(())) => accepted.push(format!("{name}={v}")),
            Ok(Err(_)) => {}
            Err(e) => return Err(format!("--set {name}={v} panicked: {}", message(&*e))),
        }
    }
    Ok(accepted)
}

/// The kernel a source text is, if it parses and validates (None: it does not); Err:
/// the parser or the validator panicked.
pub fn parse_and_validate(src: &str) -> Result<Option<isa::Kernel>, String> {
    catch_unwind(|| {
        isa::parse_kernel(src)
            .ok()
            .filter(|k| isa::validate(k).is_empty())
    })
    .map_err(|e| format!("the parser or validator panicked: {}", message(&*e)))
}

/// A run's settings for a case: a policy and seed, how many CTAs the SM simulates
/// (now and then all the wave has), and now and then some of the kernel's buffers
/// starting in L2 (rarely a name it lacks, which the run must refuse).
pub fn config(k: &isa::Kernel, rng: &mut Rng, max_cycles: u64) -> RunConfig {
    let policy = sim_core::scheduler::Policy::ALL[rng.below(4)];
    let seed = rng.next();
    let max_ctas = match rng.below(8) {
        0 => None,
        n => Some(1 + n as u32 % 3),
    };
    let mut warm_l2 = Vec::new();
    if rng.below(4) == 0 && !k.buffers.is_empty() {
        for _ in 0..1 + rng.below(2) {
            warm_l2.push(k.buffers[rng.below(k.buffers.len())].name.clone());
        }
    }
    if rng.below(32) == 0 {
        warm_l2.push("no_such_buffer".into());
    }
    RunConfig {
        seed,
        policy,
        max_cycles,
        max_ctas,
        warm_l2,
        ..Default::default()
    }
}

/// `config` as `smsim run`'s arguments.
pub fn config_args(cfg: &RunConfig) -> String {
    let mut a = format!("--policy {} --seed {}", cfg.policy.name(), cfg.seed);
    if let Some(n) = cfg.max_ctas {
        a.push_str(&format!(" --max-ctas {n}"));
    }
    for b in &cfg.warm_l2 {
        a.push_str(&format!(" --warm-l2 {b}"));
    }
    a
}

/// What a case found wrong (nothing: it passed), and how its run ended.
pub struct Checked {
    pub problems: Vec<String>,
    pub outcome: &'static str,
}

/// Runs a kernel (parsed and valid) as `smsim run` does, and checks the run's
/// promises. Runs longer than `recheck_below` cycles are not run again without
/// fast-forward (which visits every cycle).
pub fn check(k: &isa::Kernel, p: &Profile, cfg: &RunConfig, recheck_below: u64) -> Checked {
    let mut problems = Vec::new();
    let first = match run_caught(k, p, cfg, "") {
        Ok(r) => r,
        Err(problem) => {
            return Checked {
                problems: vec![problem],
                outcome: "panic",
            };
        }
    };
    let unforwarded = RunConfig {
        fast_forward: false,
        ..cfg.clone()
    };
    match &first {
        Ok(r) => {
            accounting(r, &mut problems);
            if r.cycles < recheck_below {
                same_with_a_sink(k, p, cfg, r, &mut problems);
                same_work_in_another_order(k, p, cfg, r, &mut problems);
                match run_caught(k, p, &unforwarded, "without fast-forward ") {
                    Ok(Ok(b)) if json(&b) == json(r) => {}
                    Ok(Ok(_)) => problems.push("without fast-forward the result differs".into()),
                    Ok(Err(e)) => problems.push(format!("without fast-forward the run fails: {e}")),
                    Err(problem) => problems.push(problem),
                }
            }
        }
        // A deadlock or a fault is the same report, at the same cycle, without
        // fast-forward (the watchdog's cycle is the limit either way).
        Err(e @ (SimError::Deadlock(_) | SimError::Fault(_) | SimError::Invalid(_))) => {
            match run_caught(k, p, &unforwarded, "without fast-forward ") {
                Ok(Err(again)) if again.to_string() == e.to_string() => {}
                Ok(Err(again)) => problems.push(format!(
                    "without fast-forward the run fails otherwise: {again} (with it: {e})"
                )),
                Ok(Ok(_)) => problems.push(format!("without fast-forward the run succeeds ({e})")),
                Err(problem) => problems.push(problem),
            }
        }
        Err(_) => {}
    }
    let outcome = match first {
        Ok(_) => "ran",
        Err(SimError::Deadlock(_)) => "deadlock",
        Err(SimError::Watchdog(_)) => "watchdog",
        Err(_) => "error",
    };
    Checked { problems, outcome }
}

/// The same run under the next policy and another seed, if it finishes too, issues the
/// same instructions: a warp's instruction stream depends on no timing (its loops and
/// ifs on parameters, warps and loop variables alone), only their order does.
fn same_work_in_another_order(
    k: &isa::Kernel,
    p: &Profile,
    cfg: &RunConfig,
    r: &RunResult,
    problems: &mut Vec<String>,
) {
    let all = sim_core::scheduler::Policy::ALL;
    let next = all[(all.iter().position(|&x| x == cfg.policy).unwrap_or(0) + 1) % all.len()];
    let other = RunConfig {
        policy: next,
        seed: cfg.seed.wrapping_add(1),
        ..cfg.clone()
    };
    let issues = |r: &RunResult| -> Vec<(u32, u32, u64)> {
        let mut v: Vec<_> = r
            .warps
            .iter()
            .map(|w| (w.cta, w.warp, w.instructions))
            .collect();
        v.sort_unstable();
        v
    };
    match run_caught(k, p, &other, &format!("under {} ", next.name())) {
        Ok(Ok(b)) => {
            if issues(&b) != issues(r) {
                problems.push(format!(
                    "under {} with seed {} the warps issue other numbers of instructions",
                    next.name(),
                    other.seed
                ));
            }
        }
        // (Another order may meet a fault or the watchdog first.)
        Ok(Err(_)) => {}
        Err(problem) => problems.push(problem),
    }
}

/// `sim_core::run` with a panic caught, as a problem that says which run panicked
/// (`which`: "", "without fast-forward "...).
fn run_caught(
    k: &isa::Kernel,
    p: &Profile,
    cfg: &RunConfig,
    which: &str,
) -> Result<Result<RunResult, SimError>, String> {
    catch_unwind(AssertUnwindSafe(|| sim_core::run(k, p, cfg)))
        .map_err(|e| format!("{which}the engine panicked: {}", message(&*e)))
}

/// Every cycle of every warp once: per warp, per instruction, and the issues; at most
/// one issue per scheduler and cycle, no unit busy beyond all the time, and finite
/// times and rates.
fn accounting(r: &RunResult, problems: &mut Vec<String>) {
    for w in &r.warps {
        if w.states.total() != w.finished - w.started {
            problems.push(format!(
                "CTA {} warp {}: {} state cycles in a life of {}",
                w.cta,
                w.warp,
                w.states.total(),
                w.finished - w.started
            ));
        }
    }
    let lives: u64 = r.warps.iter().map(|w| w.finished - w.started).sum();
    let per_pc: u64 = r
        .roles
        .iter()
        .flat_map(|r| r.per_pc.iter())
        .map(|p| p.states.total())
        .sum();
    if per_pc != lives {
        problems.push(format!(
            "the instructions' state cycles add up to {per_pc}, the warps' lives to {lives}"
        ));
    }
    if r.total_states().get(WarpState::Selected) != r.instructions {
        problems.push("`selected` cycles are not the instructions issued".into());
    }
    // A scheduler issues at most once a cycle; a unit is busy at most all the time.
    if r.issued_per_subpartition.iter().sum::<u64>() != r.instructions
        || r.issued_per_subpartition.iter().any(|&n| n > r.cycles)
    {
        problems.push(format!(
            "issues per sub-partition {:?} against {} instructions in {} cycles",
            r.issued_per_subpartition, r.instructions, r.cycles
        ));
    }
    for u in &r.units {
        if !(0.0..=1.0 + 1e-9).contains(&u.busy_fraction) {
            problems.push(format!("unit `{}` busy {}", u.unit, u.busy_fraction));
        }
    }
    if let Some(w) = r.warps.iter().find(|w| w.finished > r.cycles) {
        problems.push(format!(
            "CTA {} warp {} finishes at {}, after the run's {} cycles",
            w.cta, w.warp, w.finished, r.cycles
        ));
    }
    for role in &r.roles {
        let issued: u64 = role.per_pc.iter().map(|p| p.issued).sum();
        if issued != role.instructions {
            problems.push(format!(
                "role `{}`: its instructions' issues add up to {issued}, not {}",
                role.name, role.instructions
            ));
        }
    }
    let rates = [
        Some(r.time_us),
        Some(r.kernel_time_us),
        Some(r.ipc),
        Some(r.hbm_gbps),
        r.tflops,
        r.gbps,
    ];
    if rates.iter().flatten().any(|x| !x.is_finite() || *x < 0.0) {
        problems.push(format!(
            "a time or rate is not a finite non-negative number: {rates:?}"
        ));
    }
}

/// The same run with every event kept: the same result, and events that name
/// instructions of the report.
fn same_with_a_sink(
    k: &isa::Kernel,
    p: &Profile,
    cfg: &RunConfig,
    r: &RunResult,
    problems: &mut Vec<String>,
) {
    // (With the race checker on: checking races changes nothing of a run.)
    let mut sink = sim_core::races::RaceCheck::new(VecSink::default(), k);
    let run = || sim_core::run_with(k, p, cfg, cfg.policy.build(), &mut sink);
    match catch_unwind(AssertUnwindSafe(run)) {
        Ok(Ok(b)) if json(&b) == json(r) => {}
        Ok(Ok(_)) => problems.push("with a sink the result differs".into()),
        Ok(Err(e)) => problems.push(format!("with a sink the run fails: {e}")),
        Err(e) => problems.push(format!("with a sink the engine panicked: {}", message(&*e))),
    }
    for e in &sink.inner.events {
        if let Event::Issue { role, pc, .. } = e {
            let rows = r.roles.get(*role as usize).map_or(0, |r| r.per_pc.len());
            if *pc as usize >= rows {
                problems.push(format!("an issue event names pc {pc} of {rows}"));
                break;
            }
        }
    }
    event_order(&sink.inner.events, problems);
}

/// Each warp's state changes come in time order, and each issue while the warp is
/// `selected`, charged to the same instruction.
fn event_order(events: &[Event], problems: &mut Vec<String>) {
    use std::collections::HashMap;
    let mut last: HashMap<(u32, u32), (u64, WarpState, u32)> = HashMap::new();
    for e in events {
        match e {
            Event::StateChange {
                cycle,
                warp,
                state,
                pc,
                ..
            } => {
                let key = (warp.cta, warp.warp);
                if let Some(&(before, _, _)) = last.get(&key)
                    && before > *cycle
                {
                    problems.push(format!(
                        "CTA {} warp {}: a state change at {cycle} after one at {before}",
                        warp.cta, warp.warp
                    ));
                    return;
                }
                last.insert(key, (*cycle, *state, *pc));
            }
            Event::Issue {
                cycle, warp, pc, ..
            } => {
                // (A warp issuing at consecutive cycles stays in one `selected` state.)
                let now = last.get(&(warp.cta, warp.warp));
                if !matches!(now, Some(&(since, WarpState::Selected, at)) if since <= *cycle && at == *pc)
                {
                    problems.push(format!(
                        "CTA {} warp {}: an issue of pc {pc} at {cycle} while its state is {now:?}",
                        warp.cta, warp.warp
                    ));
                    return;
                }
            }
            Event::UnitBusy { start, end, .. } if start > end => {
                problems.push(format!("a unit busy from {start} to {end}"));
                return;
            }
            _ => {}
        }
    }
}

fn json(r: &RunResult) -> String {
    serde_json::to_string(r).expect("a result serializes")
}

/// A panic's message.
pub fn message(e: &(dyn std::any::Any + Send)) -> String {
    e.downcast_ref::<String>()
        .cloned()
        .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "(no message)".into())
}
