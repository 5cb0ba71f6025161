//! The engine's side of `data/gaps/wshold/`: runs the twin of `ew_ws_acc` / `_ns`
//! (`calibrate::ws_segments`) at 64 and 32 tiles and prints, as `wshold/segments.py`
//! prints the GPU's, the steady tile's span and each compute warp's segments (the 64-tile
//! sums less the 32-tile ones, over 32) and its held tiles (of 64) with their mean tail.
//! `wsseg XBLOCK NLB NSB [name=value ...]`; `WSSEG_TEXT=1` prints the acc-c0 twin's text.
use calibrate::ws_segments::{WS_SEGMENTS, ws_segment_run};

/// The run's SASS dump.
const SASS: &str = "crates/calibrate/data/gaps/wshold/h200-20261128T115432Z-sass.txt.gz";

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
    let sass = calibrate::datafile::read_text(std::path::Path::new(SASS)).unwrap();
    let case = |tiles: i64| calibrate::library::LibraryCase {
        family: "elementwise-add",
        bench: String::new(),
        schedule: "warp-specialized".into(),
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
    if std::env::var_os("WSSEG_TEXT").is_some() {
        let t = calibrate::stream_twin::ws_segments_twin_text(&case(32), &sass, true, false);
        print!("{}", t.unwrap());
    }
    println!("## engine tile_{xb}x128.nlb_{nlb}.nsb_{nsb}");
    for (lab, store, half) in [
        ("acc-c0", true, false),
        ("ns-c0", false, false),
        ("acc-c1", true, true),
        ("ns-c1", false, true),
    ] {
        let long = ws_segment_run(&case(64), &sass, store, half, &p).unwrap();
        let short = ws_segment_run(&case(32), &sass, store, half, &p).unwrap();
        println!(
            "  {lab}: 32 tiles {:.0}, 64 tiles {:.0}, span/tile {:.1}",
            short.span,
            long.span,
            (long.span - short.span) / 32.0
        );
        let (ls, ss, held) = (long.sums(), short.sums(), long.held());
        for (((w, l), (_, s)), (_, nh, mh)) in ls.iter().zip(&ss).zip(&held) {
            // in segments.py's order: the try_wait first, the loop head last
            let per: Vec<f64> = (0..8).map(|k| (l[k] - s[k]) / 32.0).collect();
            let cols: Vec<String> = (1..9)
                .map(|k| format!("{} {:.1}", WS_SEGMENTS[k % 8], per[k % 8]))
                .collect();
            println!(
                "    w{w} {}  sum {:.1}  held {nh}/64 of {mh:.0}",
                cols.join(" "),
                per.iter().sum::<f64>()
            );
        }
    }
}
