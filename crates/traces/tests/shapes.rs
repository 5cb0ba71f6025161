//! The families at their seeds' real shapes: grids and per-CTA work derived from the
//! problem by hand, K/V and operand tiles shared through L2 where the seed's kernel
//! shares them, and clear errors for shapes a family cannot take.

use sim_core::{Profile, RunConfig, RunResult};

fn ov(p: &[(&str, i64)]) -> Vec<(String, i64)> {
    p.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

fn kernel(fam: &str, sch: &str, p: &[(&str, i64)]) -> isa::Kernel {
    traces::generate(fam, sch, &ov(p)).unwrap_or_else(|e| panic!("{fam}/{sch} {p:?}: {e}"))
}

fn run(fam: &str, sch: &str, p: &[(&str, i64)]) -> RunResult {
    let f = traces::family(fam).unwrap();
    let prof = Profile::builtin(f.profile).unwrap();
    sim_core::run(&kernel(fam, sch, p), &prof, &RunConfig::default())
        .unwrap_or_else(|e| panic!("{fam}/{sch} {p:?}: {e}"))
}

fn err(fam: &str, sch: &str, p: &[(&str, i64)]) -> String {
    traces::generate(fam, sch, &ov(p)).expect_err("an invalid shape")
}

/// The line of the kernel text that starts with `prefix`.
fn line(k: &isa::Kernel, prefix: &str) -> String {
    k.to_string()
        .lines()
        .find(|l| l.starts_with(prefix))
        .unwrap_or_else(|| panic!("no `{prefix}` line"))
        .to_string()
}

/// How often the warps of `role` issued instructions whose text starts with `op`.
fn issued(r: &RunResult, role: &str, op: &str) -> u64 {
    r.role(role)
        .unwrap()
        .per_pc
        .iter()
        .filter(|p| p.instruction.starts_with(op))
        .map(|p| p.issued)
        .sum()
}

#[test]
fn fa3_grid_and_flops_follow_the_problem() {
    // The seed's ablation: 4 x 16 heads, 8448 / 128 = 66 query tiles each; 66 key
    // blocks per tile; 4 B H S^2 d FLOPs over the grid.
    let k = kernel(
        "fa3-forward",
        "fa3",
        &[("BATCH", 4), ("HEADS", 16), ("SEQLEN", 8448)],
    );
    assert_eq!(k.launch.grid, 4 * 16 * 66);
    assert!(line(&k, "param").contains("TC=66 QT=66"));
    let flops = 4 * 4 * 16 * 8448_i64 * 8448 * 128 / (4 * 16 * 66);
    assert!(
        line(&k, "work").starts_with(&format!("work flops={flops} ")),
        "{}",
        line(&k, "work")
    );
    // Causal, S = 256: query i keeps i + 1 keys, 256 x 257 / 2 pairs, over 2 CTAs.
    let k = kernel("fa3-forward", "fa3", &[("SEQLEN", 256), ("CAUSAL", 1)]);
    assert_eq!(k.launch.grid, 2);
    assert!(line(&k, "work").starts_with(&format!("work flops={} ", 4 * 128 * 256 * 257 / 2 / 2)));
}

#[test]
fn fa3_query_tiles_of_a_head_share_its_k_and_v_in_l2() {
    // Eight query tiles of one head (one wave) against eight heads of one tile each:
    // the same work per CTA (8 key blocks), but the first reads each K/V line once for
    // the eight CTAs of the wave. Per CTA from HBM: Q (32 KiB) + 16 blocks / 8 (64 KiB)
    // against Q + 16 blocks (512 KiB), so at least four times less.
    let shared = run("fa3-forward", "fa3", &[("SEQLEN", 1024)]);
    let private = run(
        "fa3-forward",
        "fa3",
        &[("SEQLEN", 128), ("SEQLEN_K", 1024), ("HEADS", 8)],
    );
    assert_eq!(shared.instructions, private.instructions);
    assert!(
        shared.memory.hbm_bytes * 4 < private.memory.hbm_bytes,
        "shared {} private {}",
        shared.memory.hbm_bytes,
        private.memory.hbm_bytes
    );
}

#[test]
fn fa3_causal_tile_masks_its_diagonal_block_only() {
    // S = 512, causal: the simulated SM runs CTA 0, the longest tile (the last query
    // tile, scheduled first): 4 key blocks, as many as the unmasked kernel, and the mask
    // on its diagonal block: 64 SEL per consumer warp.
    let causal = run("fa3-forward", "fa3", &[("SEQLEN", 512), ("CAUSAL", 1)]);
    let full = run("fa3-forward", "fa3", &[("SEQLEN", 512)]);
    assert_eq!(
        issued(&causal, "consumer", "HGMMA"),
        issued(&full, "consumer", "HGMMA")
    );
    assert_eq!(issued(&causal, "consumer", "SEL"), 8 * 64);
    assert_eq!(issued(&full, "consumer", "SEL"), 0);
    // A tile with a single block (S = 128): GEMM0 and GEMM1 once, 8 + 8 HGMMA per
    // warpgroup, each issued by its four warps.
    let one = run("fa3-forward", "fa3", &[("SEQLEN", 128), ("CAUSAL", 1)]);
    assert_eq!(issued(&one, "consumer", "HGMMA"), 2 * 4 * 16);
}

#[test]
fn fa3_head_dim_64_runs_fa3s_192_row_tiles() {
    // FA3's hdim-64 kernel: 192-row query tiles over three consumer warpgroups and a
    // producer warpgroup (16 warps), 128-key blocks of half the bytes.
    let k = kernel("fa3-forward", "fa3", &[("HEADDIM", 64)]);
    let params = line(&k, "param");
    assert!(params.contains("BLK=16384"), "{params}");
    assert!(
        params.contains(&format!("QBLK={}", 192 * 64 * 2)),
        "{params}"
    );
    assert_eq!(k.launch.cta_threads, 16 * 32);
    // S = 2048: ceil(2048 / 192) = 11 tiles, the last one partly past the end; the
    // FLOPs are the useful ones.
    assert_eq!(k.launch.grid, 11);
    let flops = 4 * 2048_i64 * 2048 * 64 / 11;
    assert!(line(&k, "work").starts_with(&format!("work flops={flops} ")));
    let r = run("fa3-forward", "fa3", &[("HEADDIM", 64), ("SEQLEN", 256)]);
    // Per block and warpgroup: GEMM0 4 k-steps (d / 16), GEMM1 8; two blocks, three
    // warpgroups of four warps.
    assert_eq!(issued(&r, "consumer", "HGMMA"), 2 * 4 * 3 * (4 + 8));
    // P converted once per block into its own buffer, as many F2FP as at d = 128.
    assert_eq!(issued(&r, "consumer", "F2FP"), 2 * 12 * 32);
}

#[test]
fn fa3_head_dim_64_causal_masks_every_block_its_diagonal_crosses() {
    // S = S_k = 384, causal, d = 64: CTA 0 is the last tile (rows 192..383): keys up
    // to 383, three blocks; its first row sees keys up to 192, so blocks 1 and 2 are
    // masked: 2 x 64 SEL per consumer warp, 12 warps.
    let r = run(
        "fa3-forward",
        "fa3",
        &[("HEADDIM", 64), ("SEQLEN", 384), ("CAUSAL", 1)],
    );
    assert_eq!(issued(&r, "consumer", "SEL"), 12 * 2 * 64);
    assert_eq!(issued(&r, "consumer", "HGMMA"), 3 * 4 * 3 * (4 + 8));
}

#[test]
fn blackwell_grid_is_persistent_over_the_sms() {
    // 8192^2 in 128 x 256 tiles: 64 x 32 = 2048 tiles over 148 CTAs, 14 for the busiest.
    let k = kernel("blackwell-matmul", "ws", &[("M", 8192), ("N", 8192)]);
    assert_eq!(k.launch.grid, 148);
    assert!(line(&k, "param").contains("TILES=14"));
    // Fewer tiles than SMs: a CTA per tile.
    let k = kernel("blackwell-matmul", "ws", &[("M", 512), ("N", 512)]);
    assert_eq!(k.launch.grid, 8);
    assert!(line(&k, "param").contains("TILES=1 "));
}

#[test]
fn elementwise_and_singe_grids_follow_the_problem() {
    // The seed's 32768^2 in 64-row slabs: 512 CTAs of 256 tiles.
    let k = kernel(
        "elementwise-add",
        "tma-pipelined",
        &[("XNUMEL", 32768), ("YNUMEL", 32768)],
    );
    assert_eq!(k.launch.grid, 512);
    assert!(line(&k, "param").contains("TILES=256"));
    // 32^3 points, 8 warps of 32 points: 128 CTAs; 1000 points: 4 (the last padded).
    assert_eq!(
        kernel("singe-viscosity", "data-parallel", &[]).launch.grid,
        128
    );
    let k = kernel("singe-viscosity", "data-parallel", &[("POINTS", 1000)]);
    assert_eq!(k.launch.grid, 4);
}

#[test]
fn gemm_raster_decides_what_a_cluster_multicasts() {
    // Along M with no swizzle, a pair of CTAs is two rows of one column: B is shared.
    let k = kernel("gemm-mainloop", "ws", &[("K", 128)]).to_string();
    assert!(k.contains("UTMALDG.2D.MULTICAST sB") && !k.contains("MULTICAST sA"));
    // Swizzle 2: a pair is two columns of one row: A is shared.
    let k = kernel(
        "gemm-mainloop",
        "ws",
        &[("K", 128), ("M", 256), ("N", 1024), ("SWIZZLE", 2)],
    )
    .to_string();
    assert!(k.contains("UTMALDG.2D.MULTICAST sA") && !k.contains("MULTICAST sB"));
    // Along N with no swizzle: again a row, A shared.
    let k = kernel(
        "gemm-mainloop",
        "ws",
        &[("K", 128), ("M", 256), ("N", 512), ("RASTER", 1)],
    )
    .to_string();
    assert!(k.contains("UTMALDG.2D.MULTICAST sA") && !k.contains("MULTICAST sB"));
}

#[test]
fn shapes_a_family_cannot_take_are_named() {
    let e = err("fa3-forward", "fa3", &[("SEQLEN", 1000)]);
    assert!(e.contains("multiples of 128"), "{e}");
    let e = err("fa3-forward", "fa3", &[("HEADDIM", 96)]);
    assert!(e.contains("HEADDIM=96") && e.contains("64 or 128"), "{e}");
    let e = err(
        "fa3-forward",
        "fa3",
        &[("SEQLEN", 512), ("SEQLEN_K", 256), ("CAUSAL", 1)],
    );
    assert!(e.contains("SEQLEN_K >= SEQLEN"), "{e}");
    let e = err(
        "elementwise-add",
        "warp-specialized",
        &[("NUM_LOAD_BUFFERS", 4), ("NUM_STORE_BUFFERS", 2)],
    );
    assert!(e.contains("more than a CTA's 232448"), "{e}");
    let e = err("blackwell-matmul", "ws", &[("M", 200)]);
    assert!(e.contains("multiple of 128"), "{e}");
    let e = err("gemm-mainloop", "ws", &[("SWIZZLE", 3)]);
    assert!(
        e.contains("SWIZZLE=3 must divide the 11 tile columns"),
        "{e}"
    );
}

#[test]
fn every_familys_seed_problem_builds_and_validates() {
    for f in traces::families() {
        let p: Vec<(String, i64)> = f
            .seed_params
            .iter()
            .map(|(k, v)| (k.to_string(), *v))
            .collect();
        for s in f.schedules {
            let k = traces::generate(f.name, s.name, &p)
                .unwrap_or_else(|e| panic!("{}/{} at the seed's problem: {e}", f.name, s.name));
            let d = isa::validate::validate(&k);
            assert!(d.is_empty(), "{}/{}: {d:?}", f.name, s.name);
        }
    }
}

/// The cluster-peer what-if costs v1 (which waits for each MMA before its barrier) and
/// not v2 (whose barrier is covered by the MMA group still in flight): the seed's story.
#[test]
fn gemm_peer_wait_costs_v1_not_v2() {
    let p = |w: i64| {
        [
            ("K", 2048),
            ("M", 128),
            ("N", 256),
            ("CLUSTER", 1),
            ("PEER_WAIT_NS", w),
        ]
    };
    let (v1, v1w) = (
        run("gemm-mainloop", "static-v1", &p(0)),
        run("gemm-mainloop", "static-v1", &p(100)),
    );
    let (v2, v2w) = (
        run("gemm-mainloop", "static-v2", &p(0)),
        run("gemm-mainloop", "static-v2", &p(100)),
    );
    // v1: every one of the K/64 - PIPE refills waits 100 ns more, about 176 cycles each
    // at the profile's clock, mostly exposed.
    assert!(
        v1w.cycles > v1.cycles + 28 * 100,
        "v1 {} -> {}",
        v1.cycles,
        v1w.cycles
    );
    assert!(
        v2w.cycles < v2.cycles + v2.cycles / 100,
        "v2 {} -> {}",
        v2.cycles,
        v2w.cycles
    );
}
