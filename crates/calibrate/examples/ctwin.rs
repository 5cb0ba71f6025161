//! The chip stream twins (crates/calibrate/data/chip/chip.cu's `tma_stream`, think 0):
//! simulated against measured, `ctwin [name=value ...] [--text]`. Prints per case the
//! SM's bytes per cycle (copied bytes over the CTA's first issue to last wait) and the
//! copy latency, measured and simulated. `--run2`: the second run's rows
//! (run-20261127T1913Z), with modes 3 (mode 2 with the shared tile cold) and 4 (the
//! shared tile the same lines every k-step). `--run3`: the third run's (run-20261128T0107Z,
//! the first run's program on a third GPU). `--data DIR`: the `stream.jsonl` in DIR (e.g.
//! data/gemm_l2/run-20261128T0343Z/fm1, the streams timed after a launch of themselves),
//! with mode 5 (mode 2 with the tile's copy issued first); the split modes (8 to 11) are
//! skipped.
use rayon::prelude::*;

fn text(p: u64, mode: u32, stages: u64, grid: u64, think: u64) -> String {
    let q = 384 - p;
    // modes 2, 3, 4: the CTA's own rows and a tile every CTA reads (4: always columns 0..63)
    let with_tile = matches!(mode, 2..=5);
    let slot = p * 128 + if with_tile { q * 128 } else { 0 };
    let row0 = if mode == 1 {
        "0".to_string()
    } else {
        format!("cta * {p}")
    };
    let buf = if mode == 1 { "B" } else { "A" };
    let copy = |j: &str| {
        let mut s = format!(
            "SYNCS.ARRIVE.TRANS64.EXPECT_TX mb[({j}) % {stages}], bytes={slot}\n      \
             UTMALDG.2D s[(({j}) % {stages}) * {slot}], {buf}[({row0}) * 8192 + ({j}) * 128], bytes={pb}, row=128, pitch=8192, bar=mb[({j}) % {stages}]\n",
            pb = p * 128
        );
        if with_tile {
            let col = if mode == 4 {
                "0".to_string()
            } else {
                format!("({j}) * 128")
            };
            let tile = format!(
                "      UTMALDG.2D s[(({j}) % {stages}) * {slot} + {pb}], B[{col}], bytes={qb}, row=128, pitch=8192, bar=mb[({j}) % {stages}]\n",
                pb = p * 128,
                qb = q * 128
            );
            if mode == 5 {
                // the tile's copy before the own rows' (after the expect_tx line)
                let (head, own) = s.split_at(s.find("      UTMALDG").unwrap_or(s.len()));
                s = format!("{head}{tile}{own}");
            } else {
                s += &tile;
            }
        }
        s
    };
    format!(
        "kernel chip_stream\nlaunch cta_threads=32 regs=32 smem={smem} grid={grid}\n\
         buffer A size={asz}\nbuffer B size=2097152\nshared s size={smem}\nmbarrier mb[{stages}] count=1\n\
         role main warps=0..0\n  loop i 0..{stages}\n    {c0}  loop j 0..64\n    \
         SYNCS.PHASECHK.TRANS64.TRYWAIT mb[j % {stages}], parity=(j / {stages}) & 1\n    \
         {sleep}if j + {stages} < 64\n      {c1}  EXIT\n",
        smem = stages * slot,
        // the kernel's spin of `think` cycles after a wait returns, at the light clock
        sleep = if think > 0 {
            format!("NANOSLEEP {}\n    ", think * 1000 / 1980)
        } else {
            String::new()
        },
        asz = 33792u64 * 8192,
        c0 = copy("i").replace("\n      ", "\n    "),
        c1 = copy(&format!("j + {stages}")),
    )
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let mut prof = sim_core::Profile::builtin("h100").unwrap();
    let mut show = false;
    let mut run = "run-20261127T1903Z".to_string();
    let mut data: Option<String> = None;
    for kv in &a[1..] {
        if kv == "--run2" {
            run = "run-20261127T1913Z".into();
        } else if kv == "--run3" {
            run = "run-20261128T0107Z".into();
        } else if kv == "--data" {
            data = Some(String::new());
        } else if data.as_deref() == Some("") {
            data = Some(kv.clone());
        } else if kv == "--text" {
            show = true;
        } else if let Some((k, v)) = kv.split_once('=') {
            prof.set(k, v.parse().unwrap()).unwrap();
        }
    }
    let path = match &data {
        Some(d) => calibrate::workspace_path(&format!("{d}/stream.jsonl")),
        None => {
            calibrate::workspace_path(&format!("crates/calibrate/data/chip/{run}/stream.jsonl"))
        }
    };
    let rows: Vec<serde_json::Value> = std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v["mode"].as_f64().is_some_and(|m| m < 8.0))
        .collect();
    if show {
        print!("{}", text(128, 2, 2, 132, 1500));
        return;
    }
    let out: Vec<String> = rows
        .par_iter()
        .map(|v| {
            let g = |k: &str| v[k].as_f64().unwrap();
            let (p, mode, s, grid, think) = (g("p_rows") as u64, g("mode") as u32, g("stages") as u64, g("grid") as u64, g("think") as u64);
            let warm: &[&str] = if mode == 2 || mode == 5 { &["B"] } else { &[] };
            let r = calibrate::twins::sim_text_warm(&text(p, mode, s, grid, think), 0, &prof, warm).unwrap();
            let span = calibrate::twins::span(&r);
            let slot = g("bytes_per_copy");
            let rate = slot * 64.0 / span;
            format!(
                "P{p} mode{mode} S{s} grid{grid:4} think{think:5}: SM B/clk meas {:6.2} sim {:6.2} ({:+6.1}%)  lat meas {:6.0} (sim period {:6.0})",
                g("sm_bytes_per_clk"),
                rate,
                (rate - g("sm_bytes_per_clk")) / g("sm_bytes_per_clk") * 100.0,
                g("lat_median"),
                span / 64.0
            )
        })
        .collect();
    for o in out {
        println!("{o}");
    }
}
