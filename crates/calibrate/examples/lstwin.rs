//! The lockstep stream twins (crates/calibrate/data/chip/lockstep.cu, `tma_lock`, runs
//! run-20261128T0625Z and, with `--run2`, run-20261128T0658Z): simulated against measured,
//! `lstwin [name=value ...] [--text] [--grid N] [--run2]`. Per case the steady k-step (cycles between two stages' completions),
//! measured and simulated. Modes: 0 the CTA's own 128 rows (16 KiB box of 128-byte rows,
//! 8 KiB pitch) from HBM; 1 only the 32 KiB tile every CTA reads (256 rows of 128 bytes);
//! 2 own rows then the tile on one mbarrier (the b_shared gemm's stage); 3 and 4 as 1 and
//! 2 with a contiguous 32 KiB tile; 5 the tile first (16 KiB, 128 rows), then own boxes of
//! 256 rows (the a_shared gemm's stage); mode 0 with rot 2 those own boxes alone; mode 6
//! mode 2 with the own rows' column j mod 8 (warm in L2: the b_shared_k1024 stage). rot 1: CTA c reads slab (j + c) mod 64 at k-step j.
//! The loop's own work (its stamps and stage arithmetic: 690 cycles a k-step when every
//! copy hits L2 with four in flight, measured at every SM count) is a NANOSLEEP before
//! each stage's copies.
use rayon::prelude::*;

/// The loop's own cycles a k-step (mode 1 and 3 with 4 stages: 688 to 692 on 33 to 132
/// SMs).
const LOOP_CYCLES: u64 = 690;

fn text(mode: u32, rot: u32, stages: u64, grid: u64, think: u64, k: u64) -> String {
    let own = matches!(mode, 0 | 2 | 4 | 5 | 6);
    let tile = mode != 0;
    let flat = matches!(mode, 3 | 4);
    // own boxes of 256 rows in the a_shared stage (mode 5) and alone (mode 0, rot 2)
    let p_rows: u64 = if mode == 5 || (mode == 0 && rot == 2) {
        256
    } else {
        128
    };
    let q_rows = 384 - p_rows;
    let (pb, qb) = (
        if own { p_rows * 128 } else { 0 },
        if tile { q_rows * 128 } else { 0 },
    );
    let (poff, qoff) = if mode == 5 { (qb, 0) } else { (0, pb) };
    let slot = pb + qb;
    // mode 6: the own rows' column j mod 8 (in L2 after the launch before)
    let own_cols = if mode == 6 { 8 } else { 64 };
    let copy = |j: &str| {
        let slab = if rot == 1 {
            format!("((({j}) + cta) % 64)")
        } else {
            format!("(({j}) % 64)")
        };
        let s = format!("SYNCS.ARRIVE.TRANS64.EXPECT_TX mb[({j}) % {stages}], bytes={slot}\n");
        let own_copy = format!(
            "      UTMALDG.2D s[(({j}) % {stages}) * {slot} + {poff}], A[cta * {p_rows} * 8192 + (({j}) % {own_cols}) * 128], bytes={pb}, row=128, pitch=8192, bar=mb[({j}) % {stages}]\n"
        );
        let tile_copy = if flat {
            format!(
                "      UBLKCP.S.G s[(({j}) % {stages}) * {slot} + {qoff}], F[{slab} * 32768], bytes=32768, bar=mb[({j}) % {stages}]\n"
            )
        } else {
            format!(
                "      UTMALDG.2D s[(({j}) % {stages}) * {slot} + {qoff}], B[{slab} * 128], bytes={qb}, row=128, pitch=8192, bar=mb[({j}) % {stages}]\n"
            )
        };
        match (own, tile, mode == 5) {
            (true, true, true) => s + &tile_copy + &own_copy,
            (true, true, false) => s + &own_copy + &tile_copy,
            (true, false, _) => s + &own_copy,
            _ => s + &tile_copy,
        }
    };
    let ns = |cyc: u64| cyc * 1000 / 1980;
    format!(
        "kernel lock_stream\nlaunch cta_threads=32 regs=32 smem={smem} grid={grid}\n\
         buffer A size={asz}\nbuffer B size=2097152\nbuffer F size=2097152\nshared s size={smem}\nmbarrier mb[{stages}] count=1\n\
         role main warps=0..0\n  loop i 0..{stages}\n    NANOSLEEP {lp}\n    {c0}  loop j 0..{k}\n    \
         SYNCS.PHASECHK.TRANS64.TRYWAIT mb[j % {stages}], parity=(j / {stages}) & 1\n    \
         {sleep}if j + {stages} < {k}\n      NANOSLEEP {lp}\n      {c1}  EXIT\n",
        // at least 130 KiB, as the kernel: one CTA an SM
        smem = (stages * slot).max(130 * 1024),
        sleep = if think > 0 {
            format!("NANOSLEEP {}\n    ", ns(think))
        } else {
            String::new()
        },
        lp = ns(LOOP_CYCLES),
        // the CTAs' own rows only: at 33 SMs (33 MiB of them) the launch before leaves
        // them in the 50 MiB L2 (`warm` below)
        asz = grid * p_rows * 8192,
        c0 = copy("i").replace("\n      ", "\n    "),
        c1 = copy(&format!("j + {stages}")),
    )
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let mut prof = sim_core::Profile::builtin("h100").unwrap();
    // These streams were timed after a launch of themselves, as the gemm kernels are: no
    // HBM slow windows (they stand for the state right after an L2 flush; data/gemm_l2
    // README), as the gemm twins run. `hbm_tail_window_probability=...` puts them back.
    prof.set("hbm_tail_window_probability", 0.0).unwrap();
    let mut show = false;
    let mut only_grid: Option<u64> = None;
    let mut run = "run-20261128T0625Z";
    let mut it = a[1..].iter();
    while let Some(kv) = it.next() {
        if kv == "--text" {
            show = true;
        } else if kv == "--run2" {
            run = "run-20261128T0658Z";
        } else if kv == "--grid" {
            only_grid = it.next().and_then(|g| g.parse().ok());
        } else if let Some((k, v)) = kv.split_once('=') {
            prof.set(k, v.parse().unwrap()).unwrap();
        }
    }
    if show {
        print!("{}", text(2, 0, 2, 132, 0, 64));
        return;
    }
    let path = calibrate::workspace_path(&format!("crates/calibrate/data/chip/{run}/stream.jsonl"));
    let rows: Vec<serde_json::Value> = std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        // the grid barrier changed nothing measurable (the CTAs start within 256 ns
        // either way): the rows without it
        .filter(|v| v["sync"].as_u64() == Some(0))
        .filter(|v| only_grid.is_none_or(|g| v["grid"].as_u64() == Some(g)))
        // LSCASE=mode/rot/stages/think: that case only
        .filter(|v| {
            std::env::var("LSCASE").map_or(true, |c| {
                c == format!("{}/{}/{}/{}", v["mode"], v["rot"], v["stages"], v["think"])
            })
        })
        .collect();
    let out: Vec<String> = rows
        .par_iter()
        .map(|v| {
            let g = |k: &str| v[k].as_u64().unwrap();
            let (mode, rot, s, grid, think) =
                (g("mode") as u32, g("rot") as u32, g("stages"), g("grid"), g("think"));
            // Own rows the launch before left in L2: at 33 SMs all of them (33 MiB of a 50
            // MiB L2; 66 and 132 SMs stream 66 and 132 MiB through it, taken as cold).
            let warm: &[&str] = match (mode, grid <= 33) {
                (0, false) => &[],
                (0, true) | (6, _) => &["A", "B", "F"],
                (_, false) => &["B", "F"],
                (_, true) => &["A", "B", "F"],
            };
            // the steady k-step: the slope between 32 and 64 k-steps (the kernel's: from
            // k-step 7 to 63)
            let span = |k| {
                let r = calibrate::twins::sim_text_warm(&text(mode, rot, s, grid, think, k), 0, &prof, warm)
                    .unwrap();
                calibrate::twins::span(&r)
            };
            let step = (span(64) - span(32)) / 32.0;
            let meas = v["kstep_clk"].as_f64().unwrap();
            // One stage in flight: the copy's own latency too, issue to the wait's
            // return, measured (`lat_median`) against the twin's k-step less its sleeps
            // (the loop's 690 and the consumer's work). The GPU's loop costs 200 to 500
            // cycles a k-step here, not 690 (the four-stage rows' bound), so at one stage
            // the k-steps compare the copies only in part.
            let copy = if s == 1 {
                let lat = v["lat_median"].as_f64().unwrap();
                let sim = step - (LOOP_CYCLES + think) as f64;
                format!(
                    "; copy meas {lat:6.0} sim {sim:6.0} ({:+6.1}%)",
                    (sim - lat) / lat * 100.0
                )
            } else {
                String::new()
            };
            format!(
                "grid{grid:4} mode{mode} rot{rot} S{s} think{think:5}: k-step meas {meas:6.0} sim {step:6.0} ({:+6.1}%){copy}",
                (step - meas) / meas * 100.0
            )
        })
        .collect();
    for o in out {
        println!("{o}");
    }
}
