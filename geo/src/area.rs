//! Areas round a hex: all hexes within a radius, and the ring at exactly a
//! radius, produced in index order without allocating.

use crate::grid::{Grid, Hex};

/// Largest radius considered; larger radii are clamped (no grid is wider).
const MAX_RADIUS: i32 = 1 << 18;

/// Iterator over the hexes of [`Grid::within`] or [`Grid::ring`], in index
/// order.
#[derive(Clone, Debug)]
pub struct Area<'g> {
    grid: &'g Grid,
    /// Axial position of the centre.
    cx: i32,
    cz: i32,
    radius: i32,
    ring: bool,
    /// Current absolute column and the last one to visit.
    col: i32,
    col_end: i32,
    /// Current row, last row and row step within the current column.
    row: i32,
    row_end: i32,
    row_step: i32,
}

impl<'g> Area<'g> {
    fn empty(grid: &'g Grid) -> Area<'g> {
        Area {
            grid,
            cx: 0,
            cz: 0,
            radius: 0,
            ring: false,
            col: 1,
            col_end: 0,
            row: 1,
            row_end: 0,
            row_step: 1,
        }
    }

    fn new(grid: &'g Grid, h: Hex, radius: u32, ring: bool) -> Area<'g> {
        let Some((c, r)) = grid.offset(h) else {
            return Area::empty(grid);
        };
        let radius = i32::try_from(radius).unwrap_or(MAX_RADIUS).min(MAX_RADIUS);
        let (cx, cz) = grid.axial(c, r);
        let col = (c - radius).max(i32::from(grid.first_col()));
        let col_end = (c + radius).min(i32::from(grid.last_col()));
        let mut a = Area { grid, cx, cz, radius, ring, col, col_end, row: 1, row_end: 0, row_step: 1 };
        a.start_column();
        a
    }

    /// Sets the row range for the current column.
    fn start_column(&mut self) {
        let dq = self.col - self.cx;
        let rad = self.radius;
        let dz_lo = (-rad).max(-dq - rad);
        let dz_hi = rad.min(-dq + rad);
        let (_, lo) = self.grid.axial_to_offset(self.col, self.cz + dz_lo);
        let (_, hi) = self.grid.axial_to_offset(self.col, self.cz + dz_hi);
        if self.ring && dq.abs() != rad {
            // Only the two ends of the column are at distance exactly `rad`.
            self.row = lo;
            self.row_end = hi;
            self.row_step = (hi - lo).max(1);
        } else {
            self.row = lo.max(i32::from(self.grid.first_row()));
            self.row_end = hi.min(i32::from(self.grid.last_row()));
            self.row_step = 1;
        }
    }
}

impl Iterator for Area<'_> {
    type Item = Hex;

    fn next(&mut self) -> Option<Hex> {
        while self.col <= self.col_end {
            while self.row <= self.row_end {
                let row = self.row;
                self.row += self.row_step;
                if let Some(h) = self.grid.at(self.col, row) {
                    return Some(h);
                }
            }
            self.col += 1;
            if self.col <= self.col_end {
                self.start_column();
            }
        }
        None
    }
}

impl Grid {
    /// All hexes at distance `<= radius` from `h` (including `h`), in index
    /// order. Empty when `h` is off the grid.
    pub fn within(&self, h: Hex, radius: u32) -> Area<'_> {
        Area::new(self, h, radius, false)
    }

    /// All hexes at distance exactly `radius` from `h`, in index order
    /// (`ring(h, 0)` yields `h`). Empty when `h` is off the grid.
    pub fn ring(&self, h: Hex, radius: u32) -> Area<'_> {
        Area::new(self, h, radius, true)
    }
}
