//! The fitted quantities with their ranges and isolating benchmarks, and the HBM
//! step's benchmarks and parameters (tables as code: their order changes the fit).

use super::*;

/// The benchmarks of lines from HBM, and the parameters of HBM by address that only
/// they see, with the near line's latency and the sustained rates (name, integer,
/// lowest, highest).
pub(super) const HBM_BENCHES: &[&str] = &[
    "lat.bulk.hbm.",
    "lat.tma2d.hbm.",
    "lat.ldg.ld.fp_64MiB",
    "lat.ldg.ld.fp_256MiB_cold",
    "lat.ldg.ld.fp_1GiB_cold",
    "bw.hbm.one_sm.",
    "bw.tma.hbm.one_sm.",
];
pub(super) const HBM_PARAMS: &[(&str, bool, f64, f64)] = &[
    // The near line's latency, fitted first on the chases, trades with the copies' extra.
    ("lat_hbm", true, 300.0, 1200.0),
    ("lat_hbm_far_extra", true, 0.0, 600.0),
    ("lat_hbm_tma_extra", true, 0.0, 200.0),
    ("hbm_tail_window_probability", false, 0.0, 1.0),
    ("hbm_tail_probability", false, 0.0, 1.0),
    ("hbm_tail_min", true, 0.0, 2000.0),
    ("hbm_tail_max", true, 0.0, 2000.0),
    ("hbm_burst_bytes_per_clk_sm", false, 16.0, 512.0),
    // The sustained rate, fitted first on the one-SM stream, trades with the burst.
    ("hbm_bytes_per_clk_sm_max", false, 16.0, 512.0),
    // Copies' own, fitted first on the one-SM copy stream.
    ("hbm_tma_bytes_per_clk_sm_max", false, 16.0, 512.0),
    ("hbm_burst_bytes", true, 0.0, 262144.0),
];

/// Every fitted quantity with its range and the benchmarks that see it, in the order the
/// 1-D searches take them (a table as code: the order changes the fit's result).
pub(super) fn vars(prior: &Profile, l2_split: f64) -> Vec<Var> {
    let pv = |n: &str| prior.file.params[n].value;
    let int = |name: &'static str, lo: f64, hi: f64, benches: &'static [&'static str]| Var {
        name,
        sets: vec![(name, 0.0)],
        integer: true,
        lo,
        hi,
        benches,
    };
    let real = |name: &'static str, lo: f64, hi: f64, benches: &'static [&'static str]| Var {
        name,
        sets: vec![(name, 0.0)],
        integer: false,
        lo,
        hi,
        benches,
    };
    let _ = pv;
    vec![
        int("lat_fma", 1.0, 12.0, &["lat.ffma", "lat.fadd"]),
        int("lat_imad", 1.0, 12.0, &["lat.imad", "lat.uimad"]),
        int(
            "lat_alu",
            1.0,
            12.0,
            &[
                "lat.iadd3",
                "lat.lop3",
                "lat.uiadd3",
                "lat.ulop3",
                "lat.ushf",
                "lat.usel",
            ],
        ),
        int("lat_mufu", 4.0, 40.0, &["lat.mufu."]),
        int("mufu_issue_interval", 1.0, 32.0, &["tp.mufu."]),
        int("lat_lds", 4.0, 60.0, &["lat.lds"]),
        int("lat_shfl", 4.0, 60.0, &["lat.shfl"]),
        real("smem_bytes_per_clk", 32.0, 512.0, &["tp.lds"]),
        int(
            "lat_l1_hit",
            8.0,
            80.0,
            &[
                "lat.ldg.ld.fp_4KiB",
                "lat.ldg.ld.fp_16KiB",
                "lat.ldg.ld.fp_64KiB",
                "lat.ldg.ld.fp_128KiB",
                "lat.ldg.ld.fp_192KiB",
                "lat.ldg.ca.",
                "lat.ldg.ld.per_sm.fp_4KiB",
            ],
        ),
        Var {
            name: "lat_l2 (near, far)",
            sets: vec![("lat_l2_near", -l2_split), ("lat_l2_far", l2_split)],
            integer: true,
            lo: 100.0,
            hi: 600.0,
            benches: &[
                "lat.ldg.ld.fp_512KiB",
                "lat.ldg.ld.fp_1MiB",
                "lat.ldg.ld.fp_2MiB",
                "lat.ldg.ld.fp_4MiB",
                "lat.ldg.ld.fp_8MiB",
                "lat.ldg.ld.fp_16MiB",
                "lat.ldg.cg.",
                "lat.ldg.ld.per_sm.fp_16MiB",
            ],
        },
        real("l1_sector_cycles", 0.0, 8.0, &["lat.ldg_lines.l1."]),
        real("l1_line_cycles", 0.0, 16.0, &["lat.ldg_lines.l1."]),
        int("l1_line_cap", 1.0, 32.0, &["lat.ldg_lines.l1."]),
        real("l2_line_cycles", 0.0, 16.0, &["lat.ldg_lines.l2."]),
        int("l2_line_cap", 1.0, 32.0, &["lat.ldg_lines.l2."]),
        // the 9th line on of a warp-load from L2 (gaps/h100-20261127T160605Z.json.gz)
        int("l2_miss_burst_gap", 0.0, 100.0, &["lat.ldg_lines.l2."]),
        int("lat_ldgsts_fill", 0.0, 100.0, &["lat.ldgsts."]),
        int(
            "lat_hbm",
            200.0,
            1500.0,
            &[
                "lat.ldg.ld.fp_64MiB",
                "lat.ldg.ld.fp_256MiB_cold",
                "lat.ldg.ld.fp_1GiB_cold",
            ],
        ),
        // The spread of one HBM line's latency (besides near or far and a slow chunk):
        // what the median copy of 1 to 4 KiB (8 to 32 lines, each with its own draw)
        // waits beyond one line.
        int(
            "jitter_hbm",
            0.0,
            400.0,
            &[
                "lat.bulk.hbm.1KiB",
                "lat.bulk.hbm.2KiB",
                "lat.bulk.hbm.4KiB",
            ],
        ),
        real("l2_bytes_per_clk_sm_max", 16.0, 512.0, &["bw.l2.one_sm."]),
        real("l2_bytes_per_clk_chip", 1000.0, 16000.0, &["bw.l2.chip."]),
        real(
            "l2_shared_read_gain",
            1.0,
            132.0,
            &["bw.tma.l2.chip.same_data."],
        ),
        real("hbm_bytes_per_clk_chip", 300.0, 6000.0, &["bw.hbm.chip."]),
        real("hbm_bytes_per_clk_sm_max", 16.0, 512.0, &["bw.hbm.one_sm."]),
        real(
            "hbm_tma_bytes_per_clk_sm_max",
            16.0,
            512.0,
            &["bw.tma.hbm.one_sm."],
        ),
        int(
            "tma_issue_cycles",
            0.0,
            400.0,
            &["bw.tma.l2.one_sm.chunk_8KiB"],
        ),
        real(
            "tma_bytes_per_clk",
            16.0,
            1024.0,
            &[
                "bw.tma.l2.one_sm.chunk_32KiB",
                "bw.tma.l2.one_sm.bytes_per_clk",
                "lat.bulk.l2.64KiB",
                "lat.bulk.l2.32KiB",
            ],
        ),
        int(
            "lat_mbarrier_tx_wake",
            0.0,
            400.0,
            &[
                "lat.bulk.l2.1KiB",
                "lat.bulk.l2.2KiB",
                "lat.tma2d.l2.1KiB",
                "lat.tma2d.l2.2KiB",
            ],
        ),
        // 4 and 8 KiB too: at 1 and 2 KiB the floor (`tma_min_latency`) hides the lines'
        // own arrival, which sets every larger copy (gaps/h100-20261127T160605Z.json.gz: flat
        // from 1.75 to 3 KiB at four addresses, then the port's slope)
        int(
            "tma_extra_latency",
            0.0,
            600.0,
            &[
                "lat.bulk.l2.1KiB",
                "lat.bulk.l2.2KiB",
                "lat.bulk.l2.4KiB",
                "lat.bulk.l2.8KiB",
                "lat.tma2d.l2.1KiB",
                "lat.tma2d.l2.2KiB",
                "lat.tma2d.l2.4KiB",
                "lat.tma2d.l2.8KiB",
            ],
        ),
        // the floor a small copy from L2 does not go below (1 and 2 KiB take the same
        // time on the GPU; the engine's port would make the second 9 cycles longer)
        int(
            "tma_min_latency",
            0.0,
            600.0,
            &["lat.bulk.l2.1KiB", "lat.bulk.l2.2KiB"],
        ),
        // what a tensor copy (UTMALDG) adds to the floor under a copy: 8 to 13 cycles
        // over bulk copies of 1 to 4 KiB, hidden behind the lines from 8 KiB on (the
        // measured pairs within 3 cycles there)
        int("tma_tensor_extra_latency", 0.0, 100.0, &["lat.tma2d.l2."]),
        real(
            "tensor_flops_per_clk_sm",
            1024.0,
            16384.0,
            &[
                "lat.wgmma.m64n64k16.bf16.interval",
                "lat.wgmma.m64n128k16.bf16.interval",
                "lat.wgmma.m64n256k16.bf16.interval",
            ],
        ),
        int(
            "hgmma_latency",
            0.0,
            400.0,
            &[
                "lat.wgmma.m64n64k16.bf16.issue_to_complete",
                "lat.wgmma.m64n128k16.bf16.issue_to_complete",
                "lat.wgmma.m64n256k16.bf16.issue_to_complete",
            ],
        ),
        int(
            "lat_mbarrier_wake",
            0.0,
            400.0,
            &["lat.mbarrier.pingpong", "lat.mbarrier.arrive_to_wait"],
        ),
        int(
            "lat_mbarrier_probe",
            0.0,
            400.0,
            &["lat.mbarrier.probe_completed"],
        ),
        int(
            "lat_mbarrier_arrive",
            0.0,
            100.0,
            &["lat.mbarrier.self_arrive_wait"],
        ),
        int("branch_target_cycles", 0.0, 40.0, &["tp.ffma.warps_"]),
        int("lat_bar", 0.0, 200.0, &["lat.bar_sync."]),
        real("bar_arrive_cycles_per_warp", 0.0, 16.0, &["lat.bar_sync."]),
    ]
}
