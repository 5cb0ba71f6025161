//! The visible window of cycles: where it starts, how many cycles a column covers, and
//! the cursor; zoom and pan arithmetic, kept apart from drawing so tests can check it.

/// The time axis as shown: column `x` covers cycles `[start + x * per_col, start + (x
/// + 1) * per_col)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct View {
    /// First cycle of column 0.
    pub start: u64,
    /// Cycles per column, at least 1.
    pub per_col: u64,
    /// Columns of the timeline.
    pub cols: u64,
    /// The run's length in cycles (the axis ends there).
    pub end: u64,
    /// The cursor's cycle.
    pub cursor: u64,
}

impl View {
    /// The whole run of `end` cycles in `cols` columns, cursor at 0.
    pub fn fit(end: u64, cols: u64) -> View {
        let mut v = View {
            start: 0,
            per_col: 1,
            cols: cols.max(1),
            end: end.max(1),
            cursor: 0,
        };
        v.per_col = v.fit_per_col();
        v
    }

    /// Cycles per column that show the whole run.
    pub fn fit_per_col(&self) -> u64 {
        self.end.div_ceil(self.cols).max(1)
    }

    /// The cycles shown: `[start, start + cols * per_col)`.
    pub fn window(&self) -> (u64, u64) {
        (self.start, self.start + self.cols * self.per_col)
    }

    /// The cycles column `x` covers.
    pub fn column(&self, x: u64) -> (u64, u64) {
        let a = self.start + x * self.per_col;
        (a, a + self.per_col)
    }

    /// The column holding `cycle`, if it is in the window.
    pub fn col_of(&self, cycle: u64) -> Option<u64> {
        let (a, b) = self.window();
        (cycle >= a && cycle < b).then(|| (cycle - a) / self.per_col)
    }

    /// Keeps the window on the run and the cursor in the window and on the run.
    fn clamp(&mut self) {
        self.per_col = self.per_col.clamp(1, self.fit_per_col());
        let width = self.cols * self.per_col;
        let max_start = self.end.saturating_sub(width);
        self.start = self.start.min(max_start);
        self.cursor = self.cursor.min(self.end - 1);
        let (a, b) = self.window();
        if self.cursor < a || self.cursor >= b {
            self.cursor = self.cursor.clamp(a, b.min(self.end) - 1);
        }
    }

    /// Zooms to `per_col` cycles per column, keeping the cursor at its column.
    pub fn zoom_to(&mut self, per_col: u64) {
        let col = self.col_of(self.cursor).unwrap_or(self.cols / 2);
        self.per_col = per_col.clamp(1, self.fit_per_col());
        self.start = self.cursor.saturating_sub(col * self.per_col);
        // Align the window to whole columns of the new width so that a cell's cycles
        // do not shift as one pans: columns start at multiples of per_col.
        self.start -= self.start % self.per_col;
        self.clamp();
    }

    /// Half as many cycles per column, the cursor's column kept.
    pub fn zoom_in(&mut self) {
        self.zoom_to(self.per_col / 2);
    }

    /// Twice as many cycles per column (at most the whole run), the cursor's column kept.
    pub fn zoom_out(&mut self) {
        self.zoom_to(self.per_col.saturating_mul(2));
    }

    /// The whole run.
    pub fn zoom_fit(&mut self) {
        self.per_col = self.fit_per_col();
        self.start = 0;
        self.clamp();
    }

    /// Moves the window by `cols` columns (negative: back in time); the cursor moves
    /// with it.
    pub fn pan(&mut self, cols: i64) {
        let d = cols.unsigned_abs() * self.per_col;
        if cols < 0 {
            self.start = self.start.saturating_sub(d);
            self.cursor = self.cursor.saturating_sub(d);
        } else {
            self.start = self.start.saturating_add(d);
            self.cursor = self.cursor.saturating_add(d);
        }
        self.clamp();
    }

    /// Moves the cursor to `cycle`, panning the window just enough to show it.
    pub fn goto(&mut self, cycle: u64) {
        self.cursor = cycle.min(self.end - 1);
        let (a, b) = self.window();
        if self.cursor < a {
            self.start = self.cursor - self.cursor % self.per_col;
        } else if self.cursor >= b {
            let width = self.cols * self.per_col;
            self.start = (self.cursor + self.per_col).saturating_sub(width);
            self.start -= self.start % self.per_col;
            if self.cursor >= self.start + width {
                self.start += self.per_col;
            }
        }
        self.clamp();
    }

    /// Moves the cursor by `cols` columns.
    pub fn step(&mut self, cols: i64) {
        let d = cols.unsigned_abs() * self.per_col;
        let c = if cols < 0 {
            self.cursor.saturating_sub(d)
        } else {
            self.cursor.saturating_add(d)
        };
        self.goto(c);
    }

    /// A new width (terminal resized): same start and zoom where they still fit.
    pub fn set_cols(&mut self, cols: u64) {
        self.cols = cols.max(1);
        self.clamp();
    }

    /// A new run length (a what-if's run): the place kept where the new run has it.
    pub fn set_end(&mut self, end: u64) {
        self.end = end.max(1);
        self.clamp();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_zoom_and_pan() {
        // 1000 cycles in 100 columns: 10 per column.
        let mut v = View::fit(1000, 100);
        assert_eq!((v.start, v.per_col), (0, 10));
        assert_eq!(v.column(3), (30, 40));
        v.goto(505);
        assert_eq!(v.col_of(505), Some(50));
        v.zoom_in();
        // 5 per column, the cursor still in column 50: start 505 - 250 = 255, aligned
        // down to 255 (a multiple of 5).
        assert_eq!((v.per_col, v.start), (5, 255));
        assert_eq!(v.col_of(505), Some(50));
        v.zoom_in();
        v.zoom_in();
        v.zoom_in();
        assert_eq!(v.per_col, 1);
        v.zoom_in();
        assert_eq!(v.per_col, 1, "a cycle per column is the deepest zoom");
        assert_eq!(v.col_of(505), Some(50));
        v.pan(10);
        assert_eq!((v.start, v.cursor), (465, 515));
        v.pan(-1000);
        assert_eq!(v.start, 0);
        v.pan(10_000);
        assert_eq!(v.start, 900, "the window's end stays on the run");
        assert!(v.cursor >= 900 && v.cursor < 1000);
        for _ in 0..10 {
            v.zoom_out();
        }
        assert_eq!((v.start, v.per_col), (0, 10), "zoomed out to the whole run");
    }

    #[test]
    fn cursor_steps_pan_to_stay_visible_and_resize_keeps_place() {
        let mut v = View::fit(1000, 100);
        v.zoom_to(2);
        assert_eq!(v.window(), (0, 200));
        v.goto(250);
        assert_eq!(v.col_of(250), Some(99));
        v.step(1);
        assert_eq!(v.cursor, 252);
        assert_eq!(v.col_of(252), Some(99));
        v.step(-200);
        assert_eq!((v.cursor, v.start), (0, 0));
        v.set_cols(40);
        assert_eq!((v.start, v.per_col), (0, 2));
        v.set_cols(2000);
        assert_eq!(v.per_col, 1, "wider than the run: one cycle per column");
        v.set_end(10);
        assert_eq!(v.cursor, 0);
        v.goto(50);
        assert_eq!(v.cursor, 9);
    }
}
