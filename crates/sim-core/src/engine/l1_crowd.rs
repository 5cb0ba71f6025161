//! L1TEX crowded by scattered requests (issue 25 gap 6). On the H100 a warp-load whose
//! 32 lines fall in a few 4 KiB pages, several lines to a page but not one run (lanes 1
//! KiB apart: the latency-hiding kernels), goes through L1TEX at one line a cycle while
//! few such requests are in flight, and at 1.13 to 1.25 cycles a line once many are
//! (`gap.l1_spread.*` in data/gaps: 12 warps each keeping one in flight run at 1.006
//! cycles a line, 13 at 1.189, 13 to 32 at 1.13 to 1.19). Layouts of one run of lines
//! or of a page a line stay at one line a cycle at every load, and so do requests that
//! do not allocate in L1 (`.cg`): the cost is the L1 lookups' of these layouts, not the
//! tag stage's rate.
//!
//! The cost per line falls as the crowd grows: 1.17 to 1.19 cycles a line with 13 to 20
//! warps, 1.13 to 1.15 with 24 to 32, on the probe (1.189, 1.194, 1.194, 1.180, 1.170 at
//! 13, 14, 15, 16, 20 warps; 1.131, 1.147 at 24, 32), on `gap.l1sets` (another GPU: 1.18
//! at 16 warps, 1.13 at 24 and 32) and in the latency-hiding validation kernels with K =
//! 1, 4, 16 (1.16 to 1.19 at 16 and 20 warps, 1.13 to 1.14 at 24, 28, 32): 32 lines cost
//! about 6 cycles more than L1's line time with up to 19 others in flight, 4.5 with 23
//! or more. No measurement puts the step between 20 and 24 warps.
//!
//! Model: the engine keeps the completions of the scattered L1 reads in flight; a
//! scattered read that enters L1TEX while `l1_crowded_requests` or more others are in
//! flight holds its tag stage `l1_crowded_line_cycles` per line instead of
//! `1 / l1_lines_per_clk` (the requests behind it wait the difference), and
//! `l1_crowded_many_line_cycles` per line with `l1_crowded_many_requests` or more others.
//! Its own lines leave as before.

use super::*;

/// 128-byte lines per 4 KiB page.
const LINES_PER_PAGE: u64 = 32;

/// Whether a request's lines are scattered in the sense above: more than one page,
/// fewer pages than lines, and not one run of consecutive lines.
pub(super) fn scattered(lines: &[(u64, u32)]) -> bool {
    let n = lines.len();
    if n < 3 {
        return false;
    }
    let (lo, hi) = lines
        .iter()
        .fold((u64::MAX, 0), |(lo, hi), (l, _)| (lo.min(*l), hi.max(*l)));
    if hi - lo + 1 == n as u64 || lo / LINES_PER_PAGE == hi / LINES_PER_PAGE {
        return false;
    }
    // pages touched: the lines' distinct page numbers (at most 32 lines: a short scan)
    let mut pages: [u64; 64] = [0; 64];
    let mut k = 0;
    for (l, _) in lines {
        let p = l / LINES_PER_PAGE;
        if !pages[..k].contains(&p) {
            if k == pages.len() {
                return false;
            }
            pages[k] = p;
            k += 1;
        }
    }
    k > 1 && k < n
}

impl<S: Sink> Engine<'_, S> {
    /// A read of `self.lines` has entered L1TEX (`enter_l1tex`): if it is a scattered
    /// read through L1 and L1 is crowded, hold the tag stage longer. Returns whether the
    /// request is one the crowd counts (the caller then reports its completion to
    /// `l1_crowd_done`).
    pub(super) fn l1_crowd_enter(&mut self, through_l1: bool, write: bool) -> bool {
        let per_line = self.t.l1_crowded_line_cycles;
        if write || !through_l1 || per_line <= self.l1_line_time || !scattered(&self.lines) {
            return false;
        }
        let now = self.now;
        self.l1_scattered.retain(|&done| done > now);
        let others = self.l1_scattered.len() as f64;
        if others >= self.t.l1_crowded_requests {
            let per_line = if others >= self.t.l1_crowded_many_requests {
                self.t.l1_crowded_many_line_cycles
            } else {
                per_line
            };
            // never below L1's own line time: a crowd does not speed the tag stage up
            let extra = self.lines.len() as f64 * (per_line - self.l1_line_time).max(0.0);
            self.l1_free += extra;
            self.l1_busy += extra;
        }
        true
    }

    /// A counted request's lines are all back at `done`.
    pub(super) fn l1_crowd_done(&mut self, done: u64) {
        self.l1_scattered.push(done);
    }
}

#[cfg(test)]
mod tests {
    use super::scattered;

    fn lanes(stride: u64) -> Vec<(u64, u32)> {
        (0..32).map(|l| (l * stride / 128, 1)).collect()
    }

    /// The measured layouts: lanes 1 KiB, 1152 B and 2 KiB apart are scattered; lanes
    /// 128 B apart (one run) and 4 or 8 KiB apart (a page a line) are not.
    #[test]
    fn the_measured_layouts_sort_as_measured() {
        for s in [1024, 1152, 2048] {
            assert!(scattered(&lanes(s)), "{s}");
        }
        for s in [128, 4096, 8192] {
            assert!(!scattered(&lanes(s)), "{s}");
        }
        // a coalesced load of 4 lines across a page boundary is one run
        assert!(!scattered(&[(30, 4), (31, 4), (32, 4), (33, 4)]));
    }
}
