//! The engine's side of `data/gaps/wshold/`: the twin of the warp-specialized kernel's
//! build with eight clock reads a tile in each compute warp (`ew_ws_acc`, and
//! `ew_ws_acc_ns` without the bulk store; `stream_twin::ws_segments_twin_text`), run so
//! that each warp's cycles between its reads compare with the GPU's sums one for one
//! (`wshold/segments.py`; `examples/wsseg.rs` prints both).
//!
//! The build is not the validation kernel: ptxas schedules its pieces differently (the
//! acc kernel runs a 32x128 tile in 1737 cycles against the plain kernel's 2044), so what
//! carries over to the validation twin is what moves within the build: the hold (the store
//! buffer in the load buffers' half, `c0`, against the other half, `c1`), which warp it
//! falls on, and the adds it slows.

use sim_core::Profile;

use crate::library::LibraryCase;
use crate::stream_twin::{run_clock_reads, ws_segments_twin_text};
use crate::twins::span;

/// The eight segments of a compute warp's tile, each named by what ends at the clock
/// read that closes it, in the order of the reads in the SASS (the loop top's read ends
/// the previous tile's loop head): the `full` try_wait, the adds, `__syncwarp` and the
/// `empty` arrive, the `c_empty` try_wait, the STS, the proxy fence, `__syncwarp` and the
/// `c_full` arrive. `segments.py` prints them from `wait` on, `head` last.
pub const WS_SEGMENTS: [&str; 8] = [
    "head", "wait", "adds", "arrive", "c_empty", "sts", "fence", "c_full",
];

/// How many segments a tile has.
const N: usize = WS_SEGMENTS.len();

/// Where the tile's tail (the fence and the `c_full` arrive) begins in `WS_SEGMENTS`.
const TAIL: usize = 6;

/// A tile whose tail (`WS_SEGMENTS[TAIL..]`) took more
/// than this many cycles counts as held (the GPU kernel's own count, `ws_acc_kernels.cu`).
pub const HELD_CYCLES: f64 = 150.0;

/// One run of the build's twin: the CTA's span and, per compute warp, each tile's
/// cycles in `WS_SEGMENTS` (a tile's `head` the cycles from its last read to the next
/// tile's first; the last tile's 0).
#[derive(Clone, Debug)]
pub struct WsRun {
    pub span: f64,
    pub warps: Vec<(u32, Vec<[f64; N]>)>,
}

impl WsRun {
    /// Per warp, the segment sums over the tiles.
    pub fn sums(&self) -> Vec<(u32, [f64; N])> {
        self.warps
            .iter()
            .map(|(w, tiles)| {
                let mut s = [0.0; N];
                for t in tiles {
                    for (a, b) in s.iter_mut().zip(t) {
                        *a += b;
                    }
                }
                (*w, s)
            })
            .collect()
    }

    /// Per warp, the tiles held (`HELD_CYCLES`) and their mean tail.
    pub fn held(&self) -> Vec<(u32, usize, f64)> {
        self.warps
            .iter()
            .map(|(w, tiles)| {
                let tails: Vec<f64> = tiles
                    .iter()
                    .map(|t| t[TAIL..].iter().sum::<f64>())
                    .filter(|&x| x > HELD_CYCLES)
                    .collect();
                let mean = if tails.is_empty() {
                    0.0
                } else {
                    tails.iter().sum::<f64>() / tails.len() as f64
                };
                (*w, tails.len(), mean)
            })
            .collect()
    }
}

/// The build's twin for case `c` (its YNUMEL / YBLOCK tiles, A and B in L2 as on the
/// GPU) from the run's SASS dump `sass`: with the bulk store (`store`) or without, the
/// store buffer in the load buffers' half or at 128 KiB (`store_half`).
pub fn ws_segment_run(
    c: &LibraryCase,
    sass: &str,
    store: bool,
    store_half: bool,
    p: &Profile,
) -> Result<WsRun, String> {
    let text = ws_segments_twin_text(c, sass, store, store_half)?;
    let (r, by_warp) = run_clock_reads(&text, "ws segments twin", p)?;
    let tiles = (c.get("YNUMEL") / c.get("YBLOCK")) as usize;
    let warps = by_warp
        .iter()
        .map(|(&w, reads)| {
            if reads.len() != N * tiles {
                return Err(format!(
                    "warp {w}: {} clock reads for {tiles} tiles, not {N} a tile",
                    reads.len()
                ));
            }
            let per = (0..tiles)
                .map(|t| {
                    let mut seg = [0.0; N];
                    for (j, x) in seg.iter_mut().enumerate().skip(1) {
                        *x = (reads[N * t + j] - reads[N * t + j - 1]) as f64;
                    }
                    if t + 1 < tiles {
                        seg[0] = (reads[N * (t + 1)] - reads[N * t + N - 1]) as f64;
                    }
                    seg
                })
                .collect();
            Ok((w, per))
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok(WsRun {
        span: span(&r),
        warps,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The run's SASS dump (`wshold/`).
    pub(crate) fn sass() -> String {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("data/gaps/wshold/h200-20261128T115432Z-sass.txt.gz");
        crate::datafile::read_text(&path).unwrap()
    }

    pub(crate) fn case(nlb: i64, nsb: i64, tiles: i64) -> LibraryCase {
        LibraryCase {
            family: "elementwise-add",
            bench: String::new(),
            schedule: "warp-specialized".into(),
            params: vec![
                ("XNUMEL".into(), 32),
                ("YNUMEL".into(), 128 * tiles),
                ("XBLOCK".into(), 32),
                ("YBLOCK".into(), 128),
                ("NUM_LOAD_BUFFERS".into(), nlb),
                ("NUM_STORE_BUFFERS".into(), nsb),
                ("COMPUTE_WARPS".into(), 4),
            ],
            grid: 1,
        }
    }

    /// Every variant builds and runs, its four compute warps each reading the clock
    /// eight times a tile; the layout moves only `sC` (to 128 KiB); the build without
    /// the bulk store has none.
    #[test]
    fn every_variant_runs_eight_reads_a_tile() {
        let sass = sass();
        let p = Profile::builtin("h100").unwrap();
        for nsb in [1, 2] {
            for store in [true, false] {
                for half in [false, true] {
                    let c = case(2, nsb, 8);
                    let text = ws_segments_twin_text(&c, &sass, store, half).unwrap();
                    assert_eq!(text.contains("UTMASTG"), store);
                    assert_eq!(text.contains("shared below_sC size=65536"), half);
                    let r = ws_segment_run(&c, &sass, store, half, &p).unwrap();
                    assert_eq!(r.warps.len(), 4);
                    assert!(r.warps.iter().all(|(_, t)| t.len() == 8), "eight tiles");
                }
            }
        }
        let k =
            isa::parse_kernel(&ws_segments_twin_text(&case(2, 1, 8), &sass, true, true).unwrap())
                .unwrap();
        assert_eq!(k.shared_offset("sC"), Some(128 * 1024));
    }
}
