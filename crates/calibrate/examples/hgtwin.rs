//! The engine's side of `data/gaps/hgmma/`: the stamped gemm consumer loops (each HGMMA's
//! issue to its DEPBAR release) run as twins of their own SASS, the stamps timed as the GPU's.
//! `hgtwin SASS [name=value ...]`: SASS is the stamped build's dump with its raw-record
//! regions left out (`python3 data/gaps/hgmma/twin_sass.py DUMP.gz > SASS`). Prints, per
//! kernel and PIPE, the simulated span and per warp the mean cycles a k-step of each
//! interval (k-steps 8 to 55), in the GPU output's columns. `HGTWIN_TEXT=NAME` prints that
//! twin's text instead (NAME as the output's labels: `ws-wait1-2wg.pipe_4`).
use sim_core::sink::{Event, RunHeader, Sink};

/// Every stamp's issue: (cycle, warp).
struct Stamps {
    stamp: Vec<Vec<bool>>,
    out: Vec<(u64, u32)>,
}

impl Sink for Stamps {
    fn begin(&mut self, h: &RunHeader) {
        self.stamp = h
            .roles
            .iter()
            .map(|r| {
                r.instructions
                    .iter()
                    .map(|i| i.text.starts_with("FMNMX"))
                    .collect()
            })
            .collect();
    }
    fn event(&mut self, e: Event) {
        if let Event::Issue {
            cycle,
            warp,
            role,
            pc,
            ..
        } = e
            && warp.cta == 0
            && self.stamp[role as usize][pc as usize]
        {
            self.out.push((cycle, warp.warp));
        }
    }
}

/// The stamped kernels: label, schedule, consumer warpgroups, every lane arrives, function.
const KERNELS: [(&str, &str, u32, bool, &str); 5] = [
    (
        "ws-wait1-2wg",
        "ws-wait1",
        2,
        false,
        "_Z13vg_ws_wait1_hILi2ELi0EEv5TmapTS0_iiiPyPfPiPjS4_",
    ),
    (
        "ws-wait1-1wg",
        "ws-wait1",
        1,
        false,
        "_Z13vg_ws_wait1_hILi1ELi0EEv5TmapTS0_iiiPyPfPiPjS4_",
    ),
    (
        "ws-wait1-2wg-all",
        "ws-wait1",
        2,
        true,
        "_Z13vg_ws_wait1_hILi2ELi1EEv5TmapTS0_iiiPyPfPiPjS4_",
    ),
    (
        "static-v2-2wg",
        "static-v2",
        2,
        false,
        "_Z14vg_static_v2_hILi2EEv5TmapTS0_iiiPyPfPiPjS4_",
    ),
    (
        "static-v2-1wg",
        "static-v2",
        1,
        false,
        "_Z14vg_static_v2_hILi1EEv5TmapTS0_iiiPyPfPiPjS4_",
    ),
];

/// The twin text of one stamped kernel: its stamps as `FMNMX` (an ALU slot, as the
/// `CS2R.32` of the clock, which the engine's instructions otherwise never use), and with
/// one consumer warpgroup the generator's two-warpgroup structure cut to one.
fn twin(sched: &str, nwg: u32, pipe: i64, func: &str, dump: &str) -> String {
    let c = calibrate::validation::GemmCase {
        bench: format!("val.gemm_mainloop.{sched}.pipe_{pipe}.cta_1"),
        schedule: sched.into(),
        fenced: false,
        pipe,
        m: 128,
        n: 256,
        k: 4096,
        boxes: true,
    };
    let (text, _) = calibrate::validation::gemm_twin_sass(&c, dump, func).unwrap();
    let mut out = String::new();
    for l in text.lines() {
        let mut l = l.to_string();
        if let Some((code, sass)) = l.split_once("  # ")
            && sass.starts_with("CS2R.32 ")
            && sass.contains("SR_CLOCKLO")
        {
            let ind = &code[..code.len() - code.trim_start().len()];
            let reg = sass["CS2R.32 ".len()..].split(',').next().unwrap();
            let stall = code
                .split("stall=")
                .nth(1)
                .map(|s| format!(", stall={s}"))
                .unwrap_or_default();
            l = format!("{ind}FMNMX {reg}, RZ, RZ, !PT{stall}  # {sass}");
        }
        if nwg == 1 {
            l = l
                .replace("cta_threads=384", "cta_threads=256")
                .replace("role consumer warps=4..11", "role consumer warps=4..7");
            if l.starts_with("mbarrier empty[") {
                l = l.replace("count=8", "count=4");
            }
            if sched == "static-v2" {
                l = l
                    .replace("cta_threads=256", "cta_threads=128")
                    .replace("role main warps=0..7", "role main warps=0..3")
                    .replace("BAR.SYNC 1, 256", "BAR.SYNC 1, 128")
                    .replace(
                        "barrier stage_free id=1 threads=256",
                        "barrier stage_free id=1 threads=128",
                    );
            }
        }
        out.push_str(&l);
        out.push('\n');
    }
    out
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let Some(file) = a.get(1) else {
        eprintln!("usage: hgtwin SASS [name=value ...]");
        std::process::exit(2);
    };
    let dump = std::fs::read_to_string(file).unwrap();
    let mut p = sim_core::Profile::builtin("h100").unwrap();
    p.set("clock_mhz", p.t.clock_mhz_tensor_uniform).unwrap();
    p.set("hbm_tail_window_probability", 0.0).unwrap();
    for kv in &a[2..] {
        if let Some((k, v)) = kv.split_once('=') {
            p.set(k, v.parse().unwrap()).unwrap();
        }
    }
    let show = std::env::var("HGTWIN_TEXT").ok();
    let names = [
        "ta->tt", "tt->tw", "tw->ti0", "ti0->tr0", "ti1->tr1", "ti2->tr2", "ti3->tr3", "tr0->ti1",
        "tr1->ti2", "tr2->ti3", "tr3->ta",
    ];
    for pipe in [2, 4] {
        for (label, sched, nwg, _all, func) in KERNELS {
            let text = twin(sched, nwg, pipe, func, &dump);
            if let Some(s) = &show {
                if *s == format!("{label}.pipe_{pipe}") {
                    print!("{text}");
                    return;
                }
                continue;
            }
            let k = isa::parse_kernel(&text).unwrap_or_else(|e| panic!("{label}: {e:?}\n{text}"));
            let cfg = sim_core::RunConfig {
                max_cycles: 400_000_000,
                warm_l2: vec!["A".into(), "B".into()],
                ..sim_core::RunConfig::default()
            };
            let mut s = Stamps {
                stamp: Vec::new(),
                out: Vec::new(),
            };
            let r = sim_core::run_with(&k, &p, &cfg, cfg.policy.build(), &mut s).unwrap();
            let span = calibrate::twins::span(&r);
            println!(
                "PIPE {pipe} {label}: span {span:.0} ({:.1} a k-step)",
                span / 64.0
            );
            println!("  {}", names.join(" "));
            let mut warps: Vec<u32> = s.out.iter().map(|o| o.1).collect();
            warps.sort();
            warps.dedup();
            for w in warps {
                let t: Vec<u64> = s.out.iter().filter(|o| o.1 == w).map(|o| o.0).collect();
                if t.len() != 11 * 64 {
                    println!("  warp {w}: {} stamps, not 11 a k-step", t.len());
                    continue;
                }
                let at = |k: usize, i: usize| t[k * 11 + i] as f64;
                let mut sums = [0.0; 11];
                let ks = 8..56;
                for k in ks.clone() {
                    let iv = [
                        at(k, 0) - at(k - 1, 10),
                        at(k, 1) - at(k, 0),
                        at(k, 2) - at(k, 1),
                        at(k, 3) - at(k, 2),
                        at(k, 5) - at(k, 4),
                        at(k, 7) - at(k, 6),
                        at(k, 9) - at(k, 8),
                        at(k, 4) - at(k, 3),
                        at(k, 6) - at(k, 5),
                        at(k, 8) - at(k, 7),
                        at(k, 10) - at(k, 9),
                    ];
                    for (s, v) in sums.iter_mut().zip(iv) {
                        *s += v;
                    }
                }
                let n = ks.len() as f64;
                print!("  warp {w:2}");
                for s in sums {
                    print!(" {:7.1}", s / n);
                }
                println!();
            }
        }
    }
}
