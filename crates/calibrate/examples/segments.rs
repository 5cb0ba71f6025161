//! The engine's side of `data/gaps/tploop/`: runs the twin of `ew_tma_pipelined_acc`
//! (`stream_twin::segments_twin_text`, the validation loop with nine clock reads a tile,
//! `FMNMX` in the twin) at 64 and 32 tiles and prints each warp's steady tile in the
//! GPU's nine segments (the cycles between consecutive clock reads' issues, summed over
//! the tiles, the 32-tile run's subtracted, over 32), as `segments.py` prints the GPU's.
//! `segments XBLOCK NLB NSB [name=value ...]` (a profile parameter set on the built-in
//! h100 profile).
use calibrate::stream_twin::SEGMENTS;

/// The run's SASS dump (`ew_tma_pipelined_acc`).
const SASS: &str = "crates/calibrate/data/gaps/tploop/h200-20261128T091509Z-sass.txt.gz";

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
    if std::env::var_os("SEGMENTS_TEXT").is_some() {
        print!(
            "{}",
            calibrate::stream_twin::segments_twin_text(&c, &sass).unwrap()
        );
    }
    calibrate::stream_twin::segment_sums(&c, &sass, p).unwrap()
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
