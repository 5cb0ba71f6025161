//! `hbm_tma_box_bytes` against the chip streams timed as the gemm kernels are: after a
//! launch of themselves (data/gemm_l2/run-20261128T0343Z/fm1, README there). 132 SMs each
//! keep four tensor copies of 128-byte rows from HBM in flight (the chip's HBM rate binds);
//! the twin of that stream with the profile's box cost must move what the GPU moved, within
//! 2%, and without any box cost it must not (so the figure is the parameter's, not slack).

use calibrate::twins::{sim_text_warm, span};
use sim_core::Profile;

/// The stream's twin (`examples/ctwin.rs`, mode 0, think 0): one thread, `stages` copies
/// of `p` rows (128 bytes each, 8 KiB apart: a bf16 tensor of rows of 4096) in flight,
/// copy j reading columns j * 64, on `grid` SMs.
fn stream(p: u64, stages: u64, grid: u64) -> String {
    let slot = p * 128;
    let copy = |j: &str| {
        format!(
            "SYNCS.ARRIVE.TRANS64.EXPECT_TX mb[({j}) % {stages}], bytes={slot}\n      \
             UTMALDG.2D s[(({j}) % {stages}) * {slot}], A[(cta * {p}) * 8192 + ({j}) * 128], bytes={slot}, row=128, pitch=8192, bar=mb[({j}) % {stages}]\n"
        )
    };
    format!(
        "kernel chip_stream\nlaunch cta_threads=32 regs=32 smem={smem} grid={grid}\n\
         buffer A size={asz}\nshared s size={smem}\nmbarrier mb[{stages}] count=1\n\
         role main warps=0..0\n  loop i 0..{stages}\n    {c0}  loop j 0..64\n    \
         SYNCS.PHASECHK.TRANS64.TRYWAIT mb[j % {stages}], parity=(j / {stages}) & 1\n    \
         if j + {stages} < 64\n      {c1}  EXIT\n",
        smem = stages * slot,
        asz = 33792u64 * 8192,
        c0 = copy("i").replace("\n      ", "\n    "),
        c1 = copy(&format!("j + {stages}")),
    )
}

/// The SM's bytes per cycle over its copies (as the stream's `sm_bytes_per_clk`).
fn rate(p: u64, profile: &Profile) -> f64 {
    let r = sim_text_warm(&stream(p, 4, 132), 0, profile, &[]).unwrap();
    (p * 128 * 64) as f64 / span(&r)
}

/// The measured `sm_bytes_per_clk` of P-row copies, four in flight, on 132 SMs.
fn measured(p: u64) -> f64 {
    let path = calibrate::workspace_path(
        "crates/calibrate/data/gemm_l2/run-20261128T0343Z/fm1/stream.jsonl",
    );
    let text = std::fs::read_to_string(&path).unwrap();
    text.lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|v| {
            v["p_rows"].as_u64() == Some(p)
                && v["mode"].as_u64() == Some(0)
                && v["stages"].as_u64() == Some(4)
                && v["grid"].as_u64() == Some(132)
        })
        .and_then(|v| v["sm_bytes_per_clk"].as_f64())
        .unwrap()
}

#[test]
fn box_cost_reproduces_warm_streams() {
    let prof = Profile::builtin("h100").unwrap();
    let mut none = prof.clone();
    none.set("hbm_tma_box_bytes", 0.0).unwrap();
    for p in [128u64, 256] {
        let (m, with, without) = (measured(p), rate(p, &prof), rate(p, &none));
        let err = (with - m) / m;
        assert!(
            err.abs() < 0.02,
            "P {p}: measured {m:.2} B/clk, simulated {with:.2} ({:+.1}%)",
            err * 100.0
        );
        // The box cost is what a box of P rows takes over its lines: the figure derived
        // from these two rates, the contiguous lines' and the GPU's, is the profile's
        // within the two sizes' spread (501 and 551 bytes at the committing).
        let derived = (p * 128) as f64 * (without / m - 1.0);
        assert!(
            (derived - prof.t.hbm_tma_box_bytes).abs() < 60.0,
            "P {p}: derived {derived:.0} bytes a box, profile {}",
            prof.t.hbm_tma_box_bytes
        );
    }
    // Without the cost the 16 KiB boxes run measurably faster than the GPU's (the figure
    // is not slack in the noise).
    let (m, without) = (measured(128), rate(128, &none));
    assert!((without - m) / m > 0.025, "{without:.2} against {m:.2}");
}
