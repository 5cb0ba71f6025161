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

    /// Counts a transfer the share carries from `start` to `end` (its FIFO's: it starts
    /// no earlier than the last one ended).
    #[inline(always)]
    pub fn book(&mut self, start: f64, end: f64) {
        let window_end = (self.window + 1) as f64 * HBM_SHARE_WINDOW as f64;
        self.current += (end.min(window_end) - start).max(0.0);
        self.busy_end = end;
    }
}
