//! `taken_branch_cycles`: a taken branch inside a loop body (the twins' forward branch
//! over a skipped slot) has its target issue no sooner than that many cycles after the
//! branch, however early its fetch began; a loop's back branch and a branch not taken
//! are timed as before (`data/gaps/diverge/`, `k_slots`).

use sim_core::{Profile, RunConfig, run};

fn cycles(src: &str, p: &Profile) -> u64 {
    let k = isa::parse_kernel(src).unwrap_or_else(|e| panic!("{}", e.render("test", src)));
    run(&k, p, &RunConfig::default())
        .unwrap_or_else(|e| panic!("{e}"))
        .cycles
}

fn h100_with(taken: f64) -> Profile {
    let mut p = Profile::builtin("h100").unwrap();
    p.set("taken_branch_cycles", taken).unwrap();
    p
}

/// `FADD; BRA; FADD` a loop iteration, one warp: FADD k issues at f, the branch at
/// f + 1, the second FADD once the target is there: `taken_branch_cycles` (15) after
/// the branch, later than the fetch begun two instructions before it
/// (`branch_target_cycles` after the previous iteration's second FADD, f - 1).
/// So an iteration is 1 + 15 + 1 = 17 cycles; EXIT issues at 17 n, and the warp
/// retires a cycle later.
#[test]
fn a_taken_branch_in_a_loop_body_holds_its_target_after_the_branch() {
    let n = 40u64;
    let src = |guard: &str| {
        format!(
            "kernel k\nlaunch cta_threads=32 regs=64 smem=0 grid=1\npred P1 = 0\nrole main warps=0..0\n  loop i 0..{n}\n    FADD R1, R2, R3\n    {guard}BRA\n    FADD R4, R5, R6\n  EXIT\n"
        )
    };
    let p = h100_with(15.0);
    // (the derivation assumes that fetch, f + 11 with the fitted 12, ends first)
    assert!(p.t.branch_target_cycles < 17.0);
    assert_eq!(cycles(&src(""), &p), 17 * n + 1);
    // Not taken (its guard false): its issue slot only, three cycles an iteration.
    assert_eq!(cycles(&src("@P1 "), &p), 3 * n + 1);
    // Off (0): the fetch begun two instructions before the branch times it, as before.
    let off = cycles(&src(""), &h100_with(0.0));
    assert!(off < 17 * n + 1, "{off}");
}

/// A loop's back branch (the last instruction of its body) keeps its fetch begun two
/// instructions before it: `taken_branch_cycles` does not touch it.
#[test]
fn a_back_branch_is_timed_by_its_fetch_alone() {
    let src = "kernel k\nlaunch cta_threads=32 regs=64 smem=0 grid=1\nrole main warps=0..0\n  loop i 0..40\n    FADD R1, R2, R3\n    FADD R4, R5, R6\n    BRA\n  EXIT\n";
    assert_eq!(cycles(src, &h100_with(15.0)), cycles(src, &h100_with(0.0)));
    // by hand: FADD, FADD, BRA at f, f + 1, f + 2; the target `branch_target_cycles`
    // after the first FADD (the instruction two before the branch): an iteration of
    // `branch_target_cycles` (12) cycles, the first one's fetch counted from cycle 0.
    let p = h100_with(15.0);
    let fetch = p.t.branch_target_cycles as u64;
    assert_eq!(cycles(src, &p), 40 * fetch + 1);
}

/// The try_wait's branch over its spin (a branch right after a TRYWAIT, NOPs between)
/// has its redirect in `lat_mbarrier_probe`, fitted on a loop that takes it while its
/// twin is a bare TRYWAIT: `taken_branch_cycles` does not touch it. One warp, a phase
/// completed before the loop (`lat.mbarrier.probe_completed`'s twin), `TRYWAIT; [NOP;]
/// BRA; FADD` an iteration: the TRYWAIT holds the warp `lat_mbarrier_probe` cycles
/// (its predicate's latency), the branch issues then, and its target the cycle after
/// (the fetch begun two instructions before it, at the TRYWAIT's issue, ended long
/// before), the FADD a cycle later: lat_mbarrier_probe + 2 (+1 with the NOP) an
/// iteration, at any `taken_branch_cycles` (the slope from 20 to 40 iterations: the
/// first wait also waits for the arrive). With a FADD between the TRYWAIT and the
/// branch it is an ordinary forward branch: the FADD at the probe's end, the branch a
/// cycle later, its target `taken_branch_cycles` after it, then the FADD after it.
#[test]
fn the_try_waits_branch_is_in_the_probe_latency() {
    let src = |between: &str, n: u64| {
        format!(
            "kernel k\nlaunch cta_threads=32 regs=64 smem=0 grid=1\nmbarrier b[1] count=1\nrole main warps=0..0\n  SYNCS.ARRIVE.TRANS64 b[0]\n  loop i 0..{n}\n    SYNCS.PHASECHK.TRANS64.TRYWAIT b[0], parity=0\n{between}    BRA\n    FADD R4, R5, R6\n  EXIT\n"
        )
    };
    let slope =
        |between: &str, p: &Profile| cycles(&src(between, 40), p) - cycles(&src(between, 20), p);
    let on = h100_with(15.0);
    let probe = on.t.lat_mbarrier_probe as u64;
    for (between, extra) in [("", 0), ("    NOP\n", 1)] {
        assert_eq!(slope(between, &on), 20 * (probe + 2 + extra), "{between:?}");
        assert_eq!(
            cycles(&src(between, 40), &on),
            cycles(&src(between, 40), &h100_with(0.0)),
            "{between:?}"
        );
    }
    let fadd = "    FADD R1, R2, R3\n";
    assert_eq!(slope(fadd, &on), 20 * (probe + 1 + 15 + 1));
}

/// A loop's back branch with `bytes=` (its distance to its target as compiled): over more
/// than `icache_l0_bytes` it misses the nearest instruction cache every trip, and its
/// target's fetch begins at the branch, `branch_target_cycles` + `icache_miss_cycles`
/// long (`data/gaps/brdist/`: one warp's FMUL loops, 4 cycles a trip over their stall
/// counts up to 5168 bytes, 13 from 6192 on). `FADD; FADD; BRA` a trip, one warp: the
/// branch issues at f + 2 and the next trip's first FADD once the target is there,
/// f + 2 + 12 + 7 (the fetch begun two instructions before it, at f, would end at
/// f + 12): 21 cycles a trip, EXIT once the last trip's target is there, at 21 n, and the
/// warp retires a cycle later. Within the capacity, or without `bytes=`, or a forward
/// branch at any distance: as before (`a_back_branch_is_timed_by_its_fetch_alone`).
#[test]
fn a_back_branch_over_more_code_than_the_cache_holds_refetches_its_target() {
    let n = 40u64;
    let src = |bra: &str| {
        format!(
            "kernel k\nlaunch cta_threads=32 regs=64 smem=0 grid=1\nrole main warps=0..0\n  loop i 0..{n}\n    FADD R1, R2, R3\n    FADD R4, R5, R6\n    {bra}\n  EXIT\n"
        )
    };
    let p = h100_with(13.0);
    let (fetch, miss) = (
        p.t.branch_target_cycles as u64,
        p.t.icache_miss_cycles as u64,
    );
    let l0 = p.t.icache_l0_bytes as i64;
    assert!(
        miss > 0 && (5168..6192).contains(&l0),
        "the measured bounds"
    );
    let plain = cycles(&src("BRA"), &p);
    assert_eq!(plain, n * fetch + 1);
    assert_eq!(cycles(&src("BRA bytes=-5168"), &p), plain);
    assert_eq!(cycles(&src(&format!("BRA bytes={}", -l0)), &p), plain);
    assert_eq!(
        cycles(&src("BRA bytes=-6192"), &p),
        n * (2 + fetch + miss) + 1
    );
    assert_eq!(
        cycles(&src("BRA bytes=-7104"), &p),
        n * (2 + fetch + miss) + 1
    );
}

/// `bytes=` on a forward branch changes nothing: its distance costs nothing
/// (`data/gaps/brdist/`: 256 bytes to 4 KiB alike).
#[test]
fn a_forward_branchs_distance_costs_nothing() {
    let src = |bytes: &str| {
        format!(
            "kernel k\nlaunch cta_threads=32 regs=64 smem=0 grid=1\nrole main warps=0..0\n  loop i 0..40\n    FADD R1, R2, R3\n    BRA{bytes}\n    FADD R4, R5, R6\n  EXIT\n"
        )
    };
    let p = h100_with(13.0);
    let near = cycles(&src(""), &p);
    for b in [" bytes=272", " bytes=4112", " bytes=65536"] {
        assert_eq!(cycles(&src(b), &p), near, "{b}");
    }
}

/// `bytes=` must be the distance as compiled: a nonzero whole number of 16-byte
/// instructions; anything else is a clear error, not a panic.
#[test]
fn a_branch_distance_that_is_not_one_is_an_error() {
    let src = |bytes: &str| {
        format!(
            "kernel k\nlaunch cta_threads=32 regs=64 smem=0 grid=1\nrole main warps=0..0\n  loop i 0..4\n    FADD R1, R2, R3\n    BRA bytes={bytes}\n  EXIT\n"
        )
    };
    let p = Profile::builtin("h100").unwrap();
    for bad in ["7", "0", "-100", "warp", "i * 16", "33554432"] {
        let text = src(bad);
        let err = match isa::parse_kernel(&text) {
            Err(e) => e.render("test", &text),
            Ok(k) => match run(&k, &p, &RunConfig::default()) {
                Err(e) => e.to_string(),
                Ok(_) => panic!("bytes={bad} accepted"),
            },
        };
        assert!(err.contains("bytes="), "bytes={bad}: {err}");
    }
}

/// A branch a `BSSY` opened a convergence region for (a per-thread predicate, as ptxas
/// writes it), taken by its warp whole, has its target issue `per_thread_branch_cycles`
/// after a uniform one's (`data/gaps/brdist/` item 3: 17 cycles a trip over the stall
/// counts against 9). `FADD; BSSY; BRA; FADD` a trip, one warp: FADD at f, BSSY at f + 1,
/// the branch at f + 2, the second FADD at f + 2 + 13 + 8 (the fetch begun two
/// instructions before the branch, at f, ends at f + 12), the next trip's FADD a cycle
/// later: 3 + 13 + 8 = 24 cycles a trip; EXIT at 24 n, the warp retired a cycle later.
#[test]
fn a_taken_branch_on_a_per_thread_predicate_redirects_later() {
    let n = 40u64;
    let src = |region: &str| {
        format!(
            "kernel k\nlaunch cta_threads=32 regs=64 smem=0 grid=1\npred P1 = 0\nrole main warps=0..0\n  loop i 0..{n}\n    FADD R1, R2, R3\n{region}    FADD R4, R5, R6\n  EXIT\n"
        )
    };
    let p = h100_with(13.0);
    let (taken, per_thread) = (
        p.t.taken_branch_cycles as u64,
        p.t.per_thread_branch_cycles as u64,
    );
    assert_eq!((taken, per_thread), (13, 8), "the measured figures");
    assert!(p.t.branch_target_cycles < 3.0 + 13.0);
    assert_eq!(
        cycles(&src("    BSSY\n    BRA\n"), &p),
        n * (3 + taken + per_thread) + 1
    );
    // the same slot without the BSSY (a NOP): a uniform branch
    assert_eq!(cycles(&src("    NOP\n    BRA\n"), &p), n * (3 + taken) + 1);
    // not taken (its guard false): its slot only, as a uniform branch's
    assert_eq!(
        cycles(&src("    BSSY\n    @P1 BRA\n"), &p),
        cycles(&src("    NOP\n    @P1 BRA\n"), &p)
    );
    // the BSSY's region closed (its BSYNC, `NOP lanes=`) before the branch: uniform
    assert_eq!(
        cycles(&src("    BSSY\n    NOP lanes=32\n    BRA\n"), &p),
        cycles(&src("    NOP\n    NOP\n    BRA\n"), &p)
    );
    // only the first branch after the BSSY is its region's
    assert_eq!(
        cycles(
            &src("    BSSY\n    BRA\n    FADD R7, R8, R9\n    BRA\n"),
            &p
        ),
        n * (3 + taken + per_thread + 1 + taken) + 1
    );
}

/// A BSSY takes no operand in the kernel format (the SASS's `B0, target` are the
/// region's, which the format's blocks say): the validator names it.
#[test]
fn a_bssy_with_operands_is_an_error() {
    let text = "kernel k\nlaunch cta_threads=32 regs=64 smem=0 grid=1\nrole main warps=0..0\n  BSSY B0, 0x1340\n  BRA\n  EXIT\n";
    let k = isa::parse_kernel(text).unwrap_or_else(|e| panic!("{}", e.render("test", text)));
    let diags = isa::validate::validate(&k);
    assert!(
        diags.iter().any(|d| format!("{d:?}").contains("BSSY")),
        "{diags:?}"
    );
    let ok = text.replace("BSSY B0, 0x1340", "BSSY");
    assert!(isa::validate::validate(&isa::parse_kernel(&ok).unwrap()).is_empty());
}
