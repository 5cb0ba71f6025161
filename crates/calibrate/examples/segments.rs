//! The engine's side of `data/gaps/tploop/`: runs the twin of `ew_tma_pipelined_acc`
//! (`stream_twin::segments_twin_text`, the validation loop with nine clock reads a tile,
//! `FMNMX` in the twin) at 64 and 32 tiles and prints each warp's steady tile in the
//! GPU's nine segments (the cycles between consecutive clock reads' issues, summed over
//! the tiles, the 32-tile run's subtracted, over 32), as `segments.py` prints the GPU's.
//! `segments XBLOCK NLB NSB [name=value ...]` (a profile parameter set on the built-in
//! h100 profile).
use sim_core::sink::{Event, RunHeader, Sink};

/// The run's SASS dump (`ew_tma_pipelined_acc`).
const SASS: &str = "crates/calibrate/data/gaps/tploop/h200-20261128T091509Z-sass.txt.gz";

/// The segments, each named by the clock read that ends it, in the order of the reads
/// in a tile (the loop top's read ends the previous tile's loop head).
const SEGMENTS: [&str; 9] = [
    "head", "wait", "adds", "rdwait", "bar1", "sts", "fence", "bar2", "st+ld",
];

/// Each warp's clock reads' issue cycles.
struct Reads {
    roles: Vec<Vec<String>>,
    by_warp: std::collections::BTreeMap<u32, Vec<u64>>,
}

impl Sink for Reads {
    fn begin(&mut self, h: &RunHeader) {
        self.roles = h
            .roles
            .iter()
            .map(|r| r.instructions.iter().map(|i| i.text.clone()).collect())
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
            && self.roles[role as usize][pc as usize].starts_with("FMNMX")
        {
            self.by_warp.entry(warp.warp).or_default().push(cycle);
        }
    }
}

/// Per warp, the segment sums of a run of `tiles` tiles.
fn sums(xb: i64, nlb: i64, nsb: i64, tiles: i64, p: &sim_core::Profile) -> Vec<[f64; 9]> {
    let c = calibrate::library::LibraryCase {
        family: "elementwise-add",
        bench: String::new(),
        schedule: "tma-pipelined".into(),
        params: vec![
            ("XNUMEL".into(), xb),
            ("YNUMEL".into(), 128 * tiles),
            ("XBLOCK".into(), xb),
            ("YBLOCK".into(), 128),
            ("NUM_LOAD_BUFFERS".into(), nlb),
            ("NUM_STORE_BUFFERS".into(), nsb),
            ("COMPUTE_WARPS".into(), 4),
        ],
        grid: 1,
    };
    let sass = calibrate::datafile::read_text(std::path::Path::new(SASS)).unwrap();
    let text = calibrate::stream_twin::segments_twin_text(&c, &sass).unwrap();
    if std::env::var_os("SEGMENTS_TEXT").is_some() {
        print!("{text}");
    }
    let k = isa::parse_kernel(&text).unwrap();
    let cfg = sim_core::RunConfig {
        warm_l2: vec!["A".into(), "B".into()],
        ..sim_core::RunConfig::default()
    };
    let mut s = Reads {
        roles: Vec::new(),
        by_warp: Default::default(),
    };
    sim_core::run_with(&k, p, &cfg, cfg.policy.build(), &mut s).unwrap();
    s.by_warp
        .values()
        .map(|reads| {
            assert_eq!(reads.len() as i64, 9 * tiles, "nine clock reads a tile");
            let mut out = [0.0; 9];
            for (i, w) in reads.windows(2).enumerate() {
                out[(i + 1) % 9] += (w[1] - w[0]) as f64;
            }
            out
        })
        .collect()
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let num = |i: usize, d: i64| a.get(i).and_then(|x| x.parse().ok()).unwrap_or(d);
    let (xb, nlb, nsb) = (num(1, 32), num(2, 2), num(3, 1));
    let mut p = sim_core::Profile::builtin("h100").unwrap();
    for kv in a.iter().skip(4) {
        if let Some((k, v)) = kv.split_once('=') {
            p.set(k, v.parse().unwrap()).unwrap();
        }
    }
    let long = sums(xb, nlb, nsb, 64, &p);
    let short = sums(xb, nlb, nsb, 32, &p);
    println!("## engine tile_{xb}x128.nlb_{nlb}.nsb_{nsb}");
    for (w, (l, s)) in long.iter().zip(&short).enumerate() {
        let per: Vec<f64> = (0..9).map(|k| (l[k] - s[k]) / 32.0).collect();
        // in the GPU's order: the try_wait first, the loop head last
        let order = [1, 2, 3, 4, 5, 6, 7, 8, 0];
        let cols: Vec<String> = order
            .iter()
            .map(|&k| format!("{}:{:.1}", SEGMENTS[k], per[k]))
            .collect();
        println!(
            "  w{w} {}  sum {:.1}",
            cols.join(" "),
            per.iter().sum::<f64>()
        );
    }
}
