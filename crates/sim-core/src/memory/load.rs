//! This SM's share of the chip's HBM bandwidth when the busy SMs do not all stream at
//! once.
//!
//! Every busy SM runs the same program, so while this SM has HBM bytes to move a fraction
//! `u` of the time, so has each of the others, and its lines share the chip with
//! `1 + others u` SMs' on average (processor sharing): its rate is `chip / (1 + others
//! u)`. An SM that always has bytes queued gets the even share, `chip / busy SMs`; an SM
//! whose copies wait between transfers (a consumer working on the stage it loaded) gets
//! more, up to one SM's most.
//! Measured (crates/calibrate/data/chip/run-20261127T1903Z, `tma_stream`, 132 SMs each
//! with one 32 KiB copy of 128-byte rows in flight): 2633 cycles a copy back to back,
//! 1633 with 1500 cycles between a copy's arrival and the next one's issue; 16 KiB
//! copies 1353 and 1165.
//!
//! L2: the same share of the chip's L2 rate carries this SM's lines from HBM (`Memory`'s
//! `l2_fill_share`, booked on the SM's load of the chip's L2 server, hits included), so
//! that an SM whose copies from HBM leave gaps is not held at the even share of L2
//! (3934.8 / 132 = 29.8 B/clk), which bound such copies before HBM did. Measured
//! (crates/calibrate/data/chip/run-20261128T0658Z, 132 SMs, one copy in flight of the
//! SM's own 32 KiB box of 128-byte rows): 2852 cycles a k-step back to back and 3291 with
//! 1200 cycles of a consumer's work after each copy: the copy 760 cycles faster; the
//! twins (`lstwin`) with fills at the even L2 share 2750 and 3826 (about 120 faster),
//! with this share 2750 and 3005. Hits keep the even share: with it for hits too the
//! full-chip gemm kernels, whose operands hit in L2 between their consumers' MMAs, run
//! 12 to 19% fast (ws PIPE 2 -7.1% -> -18.9%, static-v2 PIPE 2 +2.8% -> -13.9%).
//! (crates/calibrate/data/chip, README "Fills with gaps".)

/// Cycles over which this SM's HBM rate is averaged: a few copies of a stream (a 32 KiB
/// copy at one SM's even share of HBM, 12 bytes per cycle, takes 2700 cycles), short
/// against a kernel.
pub const HBM_SHARE_WINDOW: u64 = 8192;

/// The time this SM's HBM transfers keep its share busy, per window, and the rate its
/// bytes leave it.
#[derive(Clone, Debug)]
pub struct HbmShare {
    window: u64,
    /// Cycles of the current window this SM's share is busy, as booked so far.
    current: f64,
    /// When the share's last booked transfer ends.
    busy_end: f64,
    /// The chip's HBM bytes per cycle.
    chip: f64,
    /// The busy SMs other than this one.
    others: f64,
    /// The even share, the least this SM gets (`chip / busy SMs`, within `most`).
    least: f64,
    /// The most one SM moves (`hbm_bytes_per_clk_sm_max`, its L2 port).
    most: f64,
    /// This SM's rate now.
    pub rate: f64,
    /// What the chip offers this SM now, before one SM's most (`rate` without the
    /// upper clamp): a transfer with another per-SM limit (a TMA copy's) takes the
    /// lesser of this and its own.
    pub offered: f64,
}

impl HbmShare {
    /// `chip`: the chip's HBM bytes per cycle; `most`: one SM's most; `busy_sms`.
    pub fn new(chip: f64, most: f64, busy_sms: u32) -> HbmShare {
        let n = busy_sms.max(1) as f64;
        let least = (chip / n).min(most);
        // A kernel's SMs start together: the first window is taken as busy.
        HbmShare {
            window: 0,
            current: HBM_SHARE_WINDOW as f64,
            busy_end: 0.0,
            chip,
            others: n - 1.0,
            least,
            most,
            rate: least,
            offered: chip / n,
        }
    }

    /// Moves on to the window holding `t` (a request from an earlier window counts in the
    /// current one): the share's rate from the fraction `u` of the last window it was
    /// busy. True when the rate changed.
    #[inline(always)]
    pub fn roll(&mut self, t: u64) -> bool {
        let w = t / HBM_SHARE_WINDOW;
        if w <= self.window {
            return false;
        }
        let width = HBM_SHARE_WINDOW as f64;
        // The window before w: counted as it went if it is the current one, else only
        // the transfers still running into it.
        let last = if w == self.window + 1 {
            self.current
        } else {
            (self.busy_end - (w - 1) as f64 * width).clamp(0.0, width)
        };
        let u = (last / width).min(1.0);
        let offered = (self.chip / (1.0 + self.others * u)).max(self.least);
        let rate = offered.min(self.most);
        self.offered = offered;
        self.current = (self.busy_end - w as f64 * width).clamp(0.0, width);
        self.window = w;
        let moved = rate != self.rate;
        self.rate = rate;
        moved
    }

    /// The even share, the least this SM gets.
    pub fn least(&self) -> f64 {
        self.least
    }

    /// Counts a transfer the share carries from `start` to `end` (its FIFO's: it starts
    /// no earlier than the last one ended).
    #[inline(always)]
    pub fn book(&mut self, start: f64, end: f64) {
        let window_end = (self.window + 1) as f64 * HBM_SHARE_WINDOW as f64;
        // A part already booked (a request's transfers booked again as a whole) counts
        // once.
        let start = start.max(self.busy_end);
        self.current += (end.min(window_end) - start).max(0.0);
        self.busy_end = self.busy_end.max(end);
    }
}
