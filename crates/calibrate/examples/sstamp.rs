//! The engine's side of `data/gaps/stamp/`: runs a TMA-streaming twin (`stream_twin.rs`)
//! and prints, for tiles `T0..T1` of CTA 0, the cycle each warp issues each
//! synchronization, copy and shared-memory instruction of its tile loop (the points the
//! GPU's stamps sit between). `sstamp SCHEDULE XBLOCK NLB NSB T0 T1 [name=value ...]
//! [--stamped]`. `--stamped` (tma-pipelined): the twin of the stamped build of
//! `data/gaps/stamp3/` instead, whose stamps (clock reads) print as `FMNMX`, so that
//! stamp-to-stamp intervals compare with the GPU's (`stamp3/phases.py`); `--wsacc`
//! (warp-specialized): the twin of `data/gaps/wshold/`'s `ew_ws_acc` (`--ns`: `_ns`;
//! `--c1`: its store buffer at 128 KiB); `SSTAMP_ALL=1` prints every instruction,
//! `SSTAMP_TEXT=1` the twin's text first.
use sim_core::sink::{Event, RunHeader, Sink};

struct Issues {
    roles: Vec<(u32, u32, Vec<String>)>,
    out: Vec<(u64, u32, String)>,
}

impl Sink for Issues {
    fn begin(&mut self, h: &RunHeader) {
        self.roles = h
            .roles
            .iter()
            .map(|r| {
                let t = r.instructions.iter().map(|i| i.text.clone()).collect();
                (r.first_warp, r.last_warp, t)
            })
            .collect();
    }
    fn event(&mut self, e: Event) {
        // mbarrier phases as pseudo-issues of warp 99 (`MBAR n phase p`), so a copy's
        // landing (its `full` phase) lines up with the warps' stamps
        if let Event::MbarrierPhase {
            cycle,
            cta: 0,
            mbarrier,
            phase,
        } = e
        {
            self.out
                .push((cycle, 99, format!("MBAR {mbarrier} phase {phase}")));
            return;
        }
        if let Event::Issue {
            cycle,
            warp,
            role,
            pc,
            ..
        } = e
            && warp.cta == 0
        {
            let text = &self.roles[role as usize].2[pc as usize];
            let op = text.split_whitespace().next().unwrap_or("");
            let keep = [
                "SYNCS", "LDS", "STS", "MEMBAR", "FENCE", "UTMA", "DEPBAR", "BAR", "LDC", "FADD",
            ];
            if std::env::var_os("SSTAMP_ALL").is_some()
                || keep.iter().any(|k| op.starts_with(k))
                || op == "FMNMX"
            {
                self.out.push((cycle, warp.warp, text.clone()));
            }
        }
    }
}

/// `data/gaps/wshold/`'s SASS, for `--wsacc`.
const WSACC_SASS: &str = "crates/calibrate/data/gaps/wshold/h200-20261128T115432Z-sass.txt.gz";

/// The stamped build's SASS (`data/gaps/stamp3/`), for `--stamped`.
const STAMPED_SASS: &str =
    "crates/calibrate/data/gaps/stamp3/h100-20261127T230437Z-nvrtc.sass3.txt.gz";

fn main() {
    let mut a: Vec<String> = std::env::args().collect();
    // `--stamped`: the twin of the stamped build, whose clock reads are the stamps
    let flag = |f: &str| a.iter().any(|x| x == f);
    let (stamped, wsacc, ns, c1) = (
        flag("--stamped"),
        flag("--wsacc"),
        flag("--ns"),
        flag("--c1"),
    );
    a.retain(|x| !x.starts_with("--"));
    let arg = |i: usize, d: &str| a.get(i).cloned().unwrap_or_else(|| d.to_string());
    let num = |i: usize, d: i64| arg(i, "").parse().unwrap_or(d);
    let (xb, nlb, nsb, t0, t1) = (num(2, 32), num(3, 2), num(4, 1), num(5, 10), num(6, 12));
    let mut p = sim_core::Profile::builtin("h100").unwrap();
    for kv in &a[7.min(a.len())..] {
        if let Some((k, v)) = kv.split_once('=') {
            p.set(k, v.parse().unwrap()).unwrap();
        }
    }
    let c = calibrate::library::LibraryCase {
        family: "elementwise-add",
        bench: String::new(),
        schedule: arg(1, "tma-pipelined"),
        params: vec![
            ("XNUMEL".into(), xb),
            ("YNUMEL".into(), 4096),
            ("XBLOCK".into(), xb),
            ("YBLOCK".into(), 128),
            ("NUM_LOAD_BUFFERS".into(), nlb),
            ("NUM_STORE_BUFFERS".into(), nsb),
            ("COMPUTE_WARPS".into(), 4),
        ],
        grid: 1,
    };
    let text = if wsacc {
        let sass = calibrate::datafile::read_text(std::path::Path::new(WSACC_SASS)).unwrap();
        calibrate::stream_twin::ws_segments_twin_text(&c, &sass, !ns, c1).unwrap()
    } else if stamped {
        let sass = calibrate::datafile::read_text(std::path::Path::new(STAMPED_SASS)).unwrap();
        calibrate::stream_twin::stamped_twin_text(&c, &sass).unwrap()
    } else {
        calibrate::stream_twin::stream_twin_text(&c).unwrap()
    };
    if std::env::var_os("SSTAMP_TEXT").is_some() {
        print!("{text}");
    }
    let k = isa::parse_kernel(&text).unwrap();
    let cfg = sim_core::RunConfig {
        warm_l2: vec!["A".into(), "B".into()],
        ..sim_core::RunConfig::default()
    };
    let mut s = Issues {
        roles: Vec::new(),
        out: Vec::new(),
    };
    let r = sim_core::run_with(&k, &p, &cfg, cfg.policy.build(), &mut s).unwrap();
    println!("# cycles {}", r.cycles);
    // tile boundaries per warp: its tile loop's first wait (TRYWAIT) starts a tile
    let mut tile = std::collections::HashMap::<u32, i64>::new();
    let mut prev = 0;
    let mut shown = false;
    s.out.sort_by_key(|o| o.0);
    for (cy, w, t) in &s.out {
        if *w == 99 {
            if shown {
                println!("{cy:8} {:6} {t}", cy - prev);
                prev = *cy;
            }
            continue;
        }
        let first = t.starts_with("SYNCS.PHASECHK")
            && (t.contains("full[") && !t.contains("c_full")
                || t.contains("empty[t % NLB]")
                || t.contains("c_full[") && *w == 1);
        let n = tile.entry(*w).or_insert(-1);
        if first {
            *n += 1;
        }
        shown = *n >= t0 && *n < t1;
        if shown {
            let short: String = t.chars().take(70).collect();
            println!("{cy:8} {:6} w{w} t{n} {short}", cy - prev);
            prev = *cy;
        }
    }
}
