//! Occupancy, checked by hand against the CUDA occupancy calculator's rules for
//! compute capability 9.0 (H100).
//!
//! The limits come from the CUDA C++ Programming Guide's table of technical
//! specifications for cc 9.0: 64K 32-bit registers per SM, at most 255 per thread, 64
//! resident warps, 32 resident blocks and 2048 threads per SM, 228 KB of shared memory
//! per SM of which one block may use 227 KB; the occupancy calculator adds the
//! allocation rules: registers by warp in units of 256 from four sub-partitions, shared
//! memory in units of 128 bytes plus 1 KB the driver reserves per block.

use isa::occupancy::{Limiter, SmLimits, occupancy};
use isa::parse_kernel;

fn h100() -> SmLimits {
    SmLimits {
        regs_per_sm: 65536,
        max_regs_per_thread: 255,
        reg_alloc_unit: 256,
        reg_file_partitions: 4,
        max_warps_per_sm: 64,
        max_threads_per_sm: 2048,
        max_ctas_per_sm: 32,
        smem_per_sm: 233_472,
        max_smem_per_block: 232_448,
        smem_reserved_per_cta: 1024,
        smem_alloc_unit: 128,
    }
}

/// A one-role kernel with the given launch.
fn kernel(threads: u32, regs: u32, smem: u32) -> isa::Kernel {
    let warps = threads.div_ceil(32);
    parse_kernel(&format!(
        "kernel k\nlaunch cta_threads={threads} regs={regs} smem={smem}\nrole r warps=0..{}\n  EXIT\n",
        warps - 1
    ))
    .unwrap()
}

/// (CTAs by registers, by shared memory, by warps, by slots, CTAs/SM, binding limiter)
fn limits(k: &isa::Kernel) -> (u32, u32, u32, u32, u32, Limiter) {
    let o = occupancy(k, &h100());
    (
        o.ctas_by_regs,
        o.ctas_by_smem,
        o.ctas_by_warps,
        o.ctas_by_slots,
        o.ctas_per_sm,
        o.limiter,
    )
}

#[test]
fn registers_256_threads_64_regs() {
    // 64 x 32 = 2048 registers a warp (a multiple of 256). A sub-partition's 16384 hold
    // 8 such warps, the SM 32; a CTA is 8 warps: 4 CTAs.
    let o = occupancy(&kernel(256, 64, 0), &h100());
    assert_eq!(o.regs_per_warp, 2048);
    assert_eq!(o.regs_per_cta, 16384);
    assert_eq!(o.ctas_by_regs, 4);
    // 64 warps / 8 = 8 by warps; shared memory is only the 1 KB reserve: 228 by smem.
    assert_eq!(o.ctas_by_warps, 8);
    assert_eq!(o.ctas_by_smem, 228);
    assert_eq!(o.ctas_per_sm, 4);
    assert_eq!(o.limiter, Limiter::Registers);
    assert_eq!(o.active_warps, 32);
    assert_eq!(o.occupancy, 0.5);
}

#[test]
fn registers_384_threads_168_regs() {
    // 168 x 32 = 5376 = 21 x 256. 16384 / 5376 = 3 warps a sub-partition, 12 a SM:
    // exactly one 12-warp CTA.
    let o = occupancy(&kernel(384, 168, 0), &h100());
    assert_eq!(o.regs_per_warp, 5376);
    assert_eq!(o.ctas_by_regs, 1);
    assert_eq!(o.ctas_by_warps, 5);
    assert_eq!(o.ctas_per_sm, 1);
    assert_eq!(o.active_warps, 12);
    assert_eq!(o.occupancy, 12.0 / 64.0);
}

#[test]
fn registers_round_up_to_the_allocation_unit() {
    // 37 x 32 = 1184 -> 1280. 16384 / 1280 = 12 warps a sub-partition, 48 a SM; 4-warp
    // CTAs: 12 by registers, 16 by warps.
    assert_eq!(limits(&kernel(128, 37, 0)).0, 12);
    // 96 x 32 = 3072: 16384 / 3072 = 5 a sub-partition (not 65536 / 3072 = 21 a SM),
    // 20 warps: 5 CTAs of 4 warps.
    assert_eq!(limits(&kernel(128, 96, 0)).0, 5);
    // 255 registers: 8160 -> 8192, 2 warps a sub-partition, 8 a SM.
    assert_eq!(limits(&kernel(256, 255, 0)).0, 1);
    assert_eq!(limits(&kernel(512, 255, 0)).0, 0);
}

#[test]
fn shared_memory_100_kib_gives_two_ctas() {
    // 102400 + 1024 reserved = 103424 (a multiple of 128); 233472 / 103424 = 2.26.
    let o = occupancy(&kernel(128, 32, 100 * 1024), &h100());
    assert_eq!(o.smem_per_cta, 103_424);
    assert_eq!(o.ctas_by_smem, 2);
    assert_eq!(o.ctas_per_sm, 2);
    assert_eq!(o.limiter, Limiter::SharedMemory);
}

#[test]
fn shared_memory_rounds_up_and_caps_per_block() {
    // 1000 + 1024 = 2024 -> 2048: 114 CTAs by shared memory.
    let o = occupancy(&kernel(32, 16, 1000), &h100());
    assert_eq!(o.smem_per_cta, 2048);
    assert_eq!(o.ctas_by_smem, 114);
    // 227 KB fits one block exactly (232448 + 1024 = 233472); one byte more fits none.
    assert_eq!(limits(&kernel(128, 32, 232_448)).1, 1);
    assert_eq!(limits(&kernel(128, 32, 232_449)).1, 0);
    // 48 KiB: 50176 per CTA, 4 fit.
    assert_eq!(limits(&kernel(128, 32, 48 * 1024)).1, 4);
}

#[test]
fn warps_1024_threads_give_two_ctas() {
    // 32 warps a CTA, 64 a SM. Registers: 32 x 32 = 1024 a warp, 16 warps a
    // sub-partition, 64 a SM: also 2.
    let (regs, _, warps, _, n, limiter) = limits(&kernel(1024, 32, 0));
    assert_eq!((regs, warps, n), (2, 2, 2));
    assert_eq!(limiter, Limiter::Registers);
    let o = occupancy(&kernel(1024, 32, 0), &h100());
    assert_eq!(o.limiters, [Limiter::Registers, Limiter::Warps]);
    assert_eq!(o.occupancy, 1.0);
    // With fewer registers only the warps bind.
    assert_eq!(limits(&kernel(1024, 16, 0)).5, Limiter::Warps);
}

#[test]
fn cta_slots_bind_small_ctas() {
    // One warp, 16 registers: 128 by registers, 64 by warps, 32 slots.
    let o = occupancy(&kernel(32, 16, 0), &h100());
    assert_eq!(
        (o.ctas_by_regs, o.ctas_by_warps, o.ctas_by_slots),
        (128, 64, 32)
    );
    assert_eq!(o.ctas_per_sm, 32);
    assert_eq!(o.limiter, Limiter::CtaSlots);
    assert_eq!(o.active_warps, 32);
}

#[test]
fn partial_warps_count_as_whole_warps() {
    // 100 threads are 4 warps.
    let o = occupancy(&kernel(100, 32, 0), &h100());
    assert_eq!(o.warps_per_cta, 4);
    assert_eq!(o.ctas_by_warps, 16);
}

#[test]
fn setmaxnreg_budgets_spread_over_the_cta() {
    // The gemm_ws shape: one producer warpgroup at 40 registers, two consumer
    // warpgroups at 232, launched with 168. 128 x 40 + 256 x 232 = 64512 = 384 x 168.
    let src = "kernel k\nlaunch cta_threads=384 regs=168 smem=196608\nrole p warps=0..3 maxnreg=40\n  EXIT\nrole c warps=4..11 maxnreg=232\n  EXIT\n";
    let o = occupancy(&parse_kernel(src).unwrap(), &h100());
    assert_eq!(o.role_regs_per_cta, 4 * 1280 + 8 * 7424);
    assert_eq!(o.regs_per_warp, 5376);
    assert_eq!(o.ctas_by_regs, 1);
    // 196608 + 1024 = 197632: one CTA by shared memory as well.
    assert_eq!(o.ctas_by_smem, 1);
    assert_eq!(o.limiters, [Limiter::Registers, Limiter::SharedMemory]);

    // Budgets that need more than the launch gives raise the per-warp allocation:
    // (4 x 2048 + 4 x 7424) / 8 = 4736 -> 4864 a warp; 16384 / 4864 = 3 a sub-partition,
    // 12 a SM: one 8-warp CTA.
    let src = "kernel k\nlaunch cta_threads=256 regs=64\nrole p warps=0..3 maxnreg=64\n  EXIT\nrole c warps=4..7 maxnreg=232\n  EXIT\n";
    let o = occupancy(&parse_kernel(src).unwrap(), &h100());
    assert_eq!(o.regs_per_warp, 4864); // 4736 rounded up to 256
    assert_eq!(o.ctas_by_regs, 1);
}

#[test]
fn kernels_that_cannot_launch_fit_zero() {
    // More registers per thread than allowed.
    assert_eq!(limits(&kernel(32, 256, 0)).0, 0);
    assert_eq!(limits(&kernel(32, 256, 0)).4, 0);
    // 1024 threads x 128 registers = 131072 > 65536.
    assert_eq!(limits(&kernel(1024, 128, 0)).0, 0);
}

#[test]
fn limiter_names() {
    let names: Vec<String> = Limiter::ALL.iter().map(|l| l.to_string()).collect();
    assert_eq!(names, ["registers", "shared memory", "warps", "CTA slots"]);
}
