//! `smsim run KERNEL`: simulate a kernel on one SM and report where its warps spent
//! their cycles, in Nsight Compute's terms.

use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;

use sim_core::result::{RoleStats, RunResult, SimError};
use sim_core::scheduler::Policy;
use sim_core::{Profile, RunConfig, WarpState};

use crate::kernel_file;

#[derive(clap::Args)]
pub struct Args {
    /// A kernel file (`.smk`) or a built-in kernel `family/schedule` (see `smsim kernels`).
    pub kernel: String,
    /// A built-in profile (h100, b200) or a profile TOML file; by default the profile
    /// a built-in kernel's family targets (`smsim kernels` lists it), else h100.
    #[arg(long)]
    pub profile: Option<String>,
    /// Warp-scheduling policy: gto, lrr, oldest, two-level.
    #[arg(long, default_value = "two-level", value_parser = Policy::from_name)]
    pub policy: Policy,
    /// Seed of the variable latencies; part of every result.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Override one profile parameter for this run: `--set lat_fma=6` (repeatable).
    #[arg(long = "set", value_name = "NAME=VALUE", value_parser = parse_set)]
    pub set: Vec<(String, f64)>,
    /// Override a kernel parameter: `--param KT=512` (repeatable).
    #[arg(long = "param", short = 'p', value_name = "NAME=VALUE", value_parser = kernel_file::parse_param)]
    pub params: Vec<(String, i64)>,
    /// Stop runs that go on longer than this many cycles.
    #[arg(long, default_value_t = 2_000_000_000)]
    pub max_cycles: u64,
    /// Simulate at most this many CTAs (the whole-kernel estimate scales from them).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_ctas: Option<u32>,
    /// Start with this buffer's lines in L2, as after an earlier kernel that read or
    /// wrote it (repeatable): `--warm-l2 A --warm-l2 B`.
    #[arg(long = "warm-l2", value_name = "BUFFER")]
    pub warm_l2: Vec<String>,
    /// Print the result as JSON (documented in the README).
    #[arg(long)]
    pub json: bool,
    /// Also write the timeline as a Chrome trace (open in ui.perfetto.dev). Refuses to
    /// overwrite an existing file.
    #[arg(long, value_name = "FILE")]
    pub trace: Option<std::path::PathBuf>,
}

pub fn parse_set(s: &str) -> Result<(String, f64), String> {
    let (k, v) = s
        .split_once('=')
        .ok_or_else(|| format!("`{s}` is not NAME=VALUE"))?;
    let v: f64 = v
        .trim()
        .parse()
        .map_err(|_| format!("`{v}` is not a number (in `{s}`)"))?;
    Ok((k.trim().to_string(), v))
}

/// A built-in profile by name, or a TOML file.
pub fn load_profile(name: &str, set: &[(String, f64)]) -> Result<Profile, String> {
    let mut p = if Profile::builtin_names().any(|n| n.eq_ignore_ascii_case(name)) {
        Profile::builtin(name).map_err(|e| e.to_string())?
    } else if Path::new(name).exists() {
        let text =
            std::fs::read_to_string(name).map_err(|e| format!("{name}: cannot read: {e}"))?;
        Profile::from_toml(&text).map_err(|e| format!("{name}: {e}"))?
    } else {
        let names: Vec<&str> = Profile::builtin_names().collect();
        return Err(format!(
            "no built-in profile or file `{name}` (built in: {})",
            names.join(", ")
        ));
    };
    for (k, v) in set {
        p.set(k, *v).map_err(|e| format!("--set {k}={v}: {e}"))?;
    }
    Ok(p)
}

/// A kernel file, or a built-in kernel of the library.
pub fn load_kernel(name: &str, params: &[(String, i64)]) -> Result<isa::Kernel, String> {
    let path = Path::new(name);
    if path.exists() || name.ends_with(".smk") {
        return kernel_file::load(path, params)
            .map(|l| l.kernel)
            .map_err(|e| e.render());
    }
    if name.contains('/') && traces::family(name.split('/').next().unwrap_or("")).is_ok() {
        return traces::builtin_with(name, params).map_err(|e| format!("error: {e}\n"));
    }
    Err(format!(
        "error: `{name}` is neither a kernel file nor a built-in kernel (family/schedule); see `smsim kernels`\n"
    ))
}

/// The profile `run` uses when none is named: a built-in kernel's family's own (a
/// Blackwell kernel needs the B200's tensor memory), else the H100's.
pub fn default_profile(kernel: &str) -> &'static str {
    let builtin = !Path::new(kernel).exists() && !kernel.ends_with(".smk");
    match kernel.split_once('/') {
        Some((family, _)) if builtin => traces::family(family).map_or("h100", |f| f.profile),
        _ => "h100",
    }
}

pub fn run(args: &Args) -> ExitCode {
    let name = args
        .profile
        .as_deref()
        .unwrap_or_else(|| default_profile(&args.kernel));
    let profile = match load_profile(name, &args.set) {
        Ok(p) => p,
        Err(m) => {
            eprintln!("error: {m}");
            return ExitCode::from(2);
        }
    };
    let kernel = match load_kernel(&args.kernel, &args.params) {
        Ok(k) => k,
        Err(m) => {
            eprint!("{m}");
            return ExitCode::FAILURE;
        }
    };
    let cfg = RunConfig {
        seed: args.seed,
        policy: args.policy,
        max_cycles: args.max_cycles,
        fast_forward: true,
        max_ctas: args.max_ctas,
        warm_l2: args.warm_l2.clone(),
    };
    let result = match &args.trace {
        None => sim_core::run(&kernel, &profile, &cfg),
        Some(path) => {
            let file = match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(path)
            {
                Ok(f) => f,
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    eprintln!(
                        "error: {} exists; smsim does not overwrite files (choose another --trace path)",
                        path.display()
                    );
                    return ExitCode::from(2);
                }
                Err(e) => {
                    eprintln!("error: {}: {e}", path.display());
                    return ExitCode::from(2);
                }
            };
            let labels = match crate::trace::Labels::of(&kernel) {
                Ok(l) => l,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::FAILURE;
                }
            };
            let written = std::io::BufWriter::new(file);
            let mut sink = match crate::trace::ChromeTrace::new(written, labels) {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("error: writing {}: {e}", path.display());
                    return ExitCode::FAILURE;
                }
            };
            let r = sim_core::run_with(&kernel, &profile, &cfg, cfg.policy.build(), &mut sink);
            // A run that fails ends its trace where it stopped (a deadlock's, the
            // watchdog's cycle): the timeline up to there is what explains it.
            let end = match &r {
                Ok(r) => r.cycles,
                Err(SimError::Deadlock(s) | SimError::Watchdog(s)) => s.cycle,
                Err(_) => 0,
            };
            if let Err(e) = sink.finish(end) {
                eprintln!("error: writing {}: {e}", path.display());
                return ExitCode::FAILURE;
            }
            r
        }
    };
    match result {
        Ok(r) => {
            if args.json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&r).expect("a result serializes")
                );
            } else {
                print!("{}", render(&r));
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            if args.json {
                let v = match &e {
                    SimError::Deadlock(r) | SimError::Watchdog(r) => {
                        serde_json::json!({"ok": false, "error": e.to_string(), "stuck": r})
                    }
                    _ => serde_json::json!({"ok": false, "error": e.to_string()}),
                };
                println!("{}", serde_json::to_string_pretty(&v).expect("serializes"));
            } else {
                eprintln!("error: {e}");
            }
            ExitCode::FAILURE
        }
    }
}

fn pct(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

/// The Warp State table of one role, Nsight Compute's way: warps in each state per
/// issued instruction, and the share of the role's warp-cycles.
pub fn warp_state_table(r: &RoleStats, out: &mut String) {
    let total = r.states.total().max(1) as f64;
    let _ = writeln!(
        out,
        "Warp State: role {} ({} warps per CTA, {} simulated, {} instructions)",
        r.name, r.warps_per_cta, r.warps_simulated, r.instructions
    );
    let _ = writeln!(
        out,
        "  {:<20} {:>16} {:>8}",
        "reason", "warps per issue", "share"
    );
    for (s, v) in r.states.ranked() {
        let _ = writeln!(
            out,
            "  {:<20} {:>16.2} {:>8}",
            s.name(),
            r.per_issue(s),
            pct(v as f64 / total)
        );
    }
}

pub fn render(r: &RunResult) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "smsim run: kernel {} on profile {}, policy {}, seed {}",
        r.kernel, r.profile, r.policy, r.seed
    );
    if !r.profile_validated {
        let _ = writeln!(o, "  profile note: {}", r.profile_note);
    }
    if !r.overrides.is_empty() {
        let s: Vec<String> = r
            .overrides
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        let _ = writeln!(o, "  overrides: {}", s.join(", "));
    }
    if !r.warm_l2.is_empty() {
        let _ = writeln!(o, "  in L2 at the start: {}", r.warm_l2.join(", "));
    }
    let _ = writeln!(o);
    let _ = writeln!(
        o,
        "Time        {} cycles = {:.2} us at {} MHz ({} CTA{} on this SM, {} resident at once)",
        r.cycles,
        r.time_us,
        r.clock_mhz,
        r.ctas_simulated,
        if r.ctas_simulated == 1 { "" } else { "s" },
        r.ctas_resident
    );
    let mut kernel = format!(
        "grid {} CTAs, {} wave{}, estimate {:.2} us",
        r.grid,
        r.waves,
        if r.waves == 1 { "" } else { "s" },
        r.kernel_time_us
    );
    if let Some(t) = r.tflops {
        let _ = write!(kernel, ", {t:.1} TFLOP/s");
    }
    if let Some(g) = r.gbps {
        let _ = write!(kernel, ", {g:.1} GB/s of its declared bytes");
    }
    let _ = write!(kernel, ", HBM {:.1} GB/s", r.hbm_gbps);
    let _ = writeln!(o, "Kernel      {kernel}");
    let per: Vec<String> = r
        .issued_per_subpartition
        .iter()
        .map(|&i| format!("{:.3}", i as f64 / r.cycles.max(1) as f64))
        .collect();
    let _ = writeln!(
        o,
        "Issue       {} warp-instructions, IPC {:.3} (per scheduler: {})",
        r.instructions,
        r.ipc,
        per.join(" ")
    );
    let occ = &r.occupancy;
    let _ = writeln!(
        o,
        "Occupancy   {} CTAs/SM limited by {} (registers {}, shared memory {}, warps {}, CTA slots {}); {} of {} warps ({})",
        occ.ctas_per_sm,
        occ.limiter,
        occ.ctas_by_regs,
        occ.ctas_by_smem,
        occ.ctas_by_warps,
        occ.ctas_by_slots,
        occ.active_warps,
        occ.max_warps,
        pct(occ.occupancy)
    );
    let units: Vec<String> = r
        .units
        .iter()
        .map(|u| format!("{} {}", u.unit, pct(u.busy_fraction)))
        .collect();
    let _ = writeln!(o, "Units busy  {}", units.join("  "));
    let m = &r.memory;
    let _ = writeln!(
        o,
        "Memory      requests: L1 hit {}, L2 near {}, L2 far {}, HBM {}, shared {}; L2 traffic {} B, HBM {} B",
        m.requests_l1,
        m.requests_l2_near,
        m.requests_l2_far,
        m.requests_hbm,
        m.requests_shared,
        m.l2_bytes,
        m.hbm_bytes
    );
    let mut top: Vec<(WarpState, u64)> = Vec::new();
    for role in &r.roles {
        let _ = writeln!(o);
        warp_state_table(role, &mut o);
        for (s, v) in role
            .states
            .ranked()
            .into_iter()
            .filter(|(s, _)| *s != WarpState::Selected)
            .take(2)
        {
            match top.iter_mut().find(|(t, _)| *t == s) {
                Some(e) => e.1 += v,
                None => top.push((s, v)),
            }
        }
    }
    top.sort_by_key(|t| std::cmp::Reverse(t.1));
    top_instructions(r, &mut o);
    if !top.is_empty() {
        let _ = writeln!(
            o,
            "\nThe top stall reasons (`smsim explain REASON` says more):"
        );
        for (s, _) in top.iter().take(3) {
            let _ = writeln!(o, "  {:<18} {}", s.name(), s.explain().means);
        }
    }
    o
}

/// The instructions where warps stall most, with what they wait on.
fn top_instructions(r: &RunResult, o: &mut String) {
    let total: u64 = r.roles.iter().map(|x| x.states.total()).sum::<u64>().max(1);
    let mut rows: Vec<(u64, String)> = Vec::new();
    for role in &r.roles {
        for p in &role.per_pc {
            for (s, v) in p.states.ranked() {
                if s == WarpState::Selected || v * 100 < total {
                    continue;
                }
                let on = p
                    .waits_on
                    .iter()
                    .find(|w| w.state == s)
                    .map(|w| format!(", waiting on {}", w.on))
                    .unwrap_or_default();
                rows.push((
                    v,
                    format!(
                        "{}:{} `{}`: {} {}{}",
                        role.name,
                        p.pc,
                        p.instruction,
                        s.name(),
                        pct(v as f64 / total as f64),
                        on
                    ),
                ));
            }
        }
    }
    if rows.is_empty() {
        return;
    }
    rows.sort_by_key(|x| std::cmp::Reverse(x.0));
    let _ = writeln!(o, "\nWhere warps wait (role:pc, share of all warp-cycles):");
    for (_, line) in rows.iter().take(6) {
        let _ = writeln!(o, "  {line}");
    }
}
