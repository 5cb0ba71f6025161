//! The run report: what `smsim run` prints for a finished run, where its warps spent
//! their cycles in Nsight Compute's terms, and a failed run as JSON.

use std::fmt::Write as _;

use sim_core::WarpState;
use sim_core::result::{RoleStats, RunResult, SimError};

use crate::units::pct;

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

/// The whole report of a finished run: the run's settings, time and the kernel's
/// estimate, issue, occupancy, units, memory, a Warp State table per role, the
/// instructions where warps wait most, and the top stall reasons explained.
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
                        "{}:{}{} `{}`: {} {}{}",
                        role.name,
                        p.pc,
                        if p.line > 0 {
                            format!(" (line {})", p.line)
                        } else {
                            String::new()
                        },
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
    let _ = writeln!(
        o,
        "\nWhere warps wait (role:pc (source line), share of all warp-cycles):"
    );
    for (_, line) in rows.iter().take(6) {
        let _ = writeln!(o, "  {line}");
    }
}

/// The report of a run stopped before its end (by `who`: `Ctrl-C`), marked partial
/// at its top: its figures cover the cycles simulated so far, and its CTAs' unfinished
/// work is missing from the whole-kernel estimate.
pub fn render_partial(r: &RunResult, who: &str) -> String {
    format!(
        "PARTIAL: {who} stopped the run at cycle {}; the figures below cover cycles 0 to {} only, and the kernel estimate is not the kernel's.\n{}",
        r.cycles,
        r.cycles,
        render(r)
    )
}

/// A failed run as `smsim run --json` prints it: `ok: false`, the error's text, and
/// for a deadlock or the watchdog the `stuck` report (every blocked warp and what it
/// waits for).
pub fn failure_json(e: &SimError) -> serde_json::Value {
    match e {
        SimError::Deadlock(r) | SimError::Watchdog(r) => {
            serde_json::json!({"ok": false, "error": e.to_string(), "stuck": r})
        }
        _ => serde_json::json!({"ok": false, "error": e.to_string()}),
    }
}
