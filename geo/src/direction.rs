//! The six hex directions (0 = north, clockwise) and adjacency: neighbours and
//! the direction from a hex to an adjacent one.

use crate::grid::{Grid, Hex};

/// Direction 0: straight up the column.
pub const NORTH: u8 = 0;
/// Direction 1: up and to the right.
pub const NORTH_EAST: u8 = 1;
/// Direction 2: down and to the right.
pub const SOUTH_EAST: u8 = 2;
/// Direction 3: straight down the column.
pub const SOUTH: u8 = 3;
/// Direction 4: down and to the left.
pub const SOUTH_WEST: u8 = 4;
/// Direction 5: up and to the left.
pub const NORTH_WEST: u8 = 5;

/// All six directions in order, north first, clockwise.
pub const DIRECTIONS: [u8; 6] = [NORTH, NORTH_EAST, SOUTH_EAST, SOUTH, SOUTH_WEST, NORTH_WEST];

/// The opposite direction; `dir` is taken modulo 6.
pub const fn opposite(dir: u8) -> u8 {
    (dir % 6 + 3) % 6
}

/// `(dcol, drow)` steps from a hex in a shifted-down column, by direction.
const DOWN_STEPS: [(i32, i32); 6] = [(0, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0)];
/// `(dcol, drow)` steps from a hex in a column that is not shifted down.
const UP_STEPS: [(i32, i32); 6] = [(0, -1), (1, -1), (1, 0), (0, 1), (-1, 0), (-1, -1)];

/// Axial `(dx, dz)` steps by direction (`x` east, `z` south).
pub(crate) const AXIAL_STEPS: [(i32, i32); 6] = [(0, -1), (1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0)];

impl Grid {
    /// Absolute offset of the neighbour of absolute `(col, row)` in `dir`
    /// (`dir < 6`), on the grid or not.
    pub(crate) fn step(&self, col: i32, row: i32, dir: u8) -> (i32, i32) {
        let table = if self.is_down(col) { &DOWN_STEPS } else { &UP_STEPS };
        let (dc, dr) = table[usize::from(dir % 6)];
        (col + dc, row + dr)
    }

    /// The hex adjacent to `h` in direction `dir`; `None` when it would be
    /// off the map, when `h` is off the grid, or when `dir > 5`.
    pub fn neighbour(&self, h: Hex, dir: u8) -> Option<Hex> {
        if dir > 5 {
            return None;
        }
        let (c, r) = self.offset(h)?;
        let (nc, nr) = self.step(c, r, dir);
        self.at(nc, nr)
    }

    /// The six neighbours of `h`, indexed by direction (all `None` when `h`
    /// is off the grid).
    pub fn neighbours(&self, h: Hex) -> [Option<Hex>; 6] {
        let mut out = [None; 6];
        if let Some((c, r)) = self.offset(h) {
            let table = if self.is_down(c) { &DOWN_STEPS } else { &UP_STEPS };
            for (slot, &(dc, dr)) in out.iter_mut().zip(table.iter()) {
                *slot = self.at(c + dc, r + dr);
            }
        }
        out
    }

    /// Every hex's six neighbours by direction, six slots per hex in index order, `u32::MAX`
    /// off the grid: `neighbours` for every hex at once, walking columns and rows (no
    /// index division per hex; boards build it for every game and example).
    pub fn neighbour_table(&self) -> Vec<u32> {
        let (cols, rows) = (i32::from(self.cols()), i32::from(self.rows()));
        let mut out = Vec::with_capacity(self.hex_count() as usize * 6);
        for c in 0..cols {
            let col = c + i32::from(self.first_col());
            let table = if self.is_down(col) { &DOWN_STEPS } else { &UP_STEPS };
            for r in 0..rows {
                for &(dc, dr) in table.iter() {
                    let (nc, nr) = (c + dc, r + dr);
                    out.push(if nc < 0 || nr < 0 || nc >= cols || nr >= rows {
                        u32::MAX
                    } else {
                        nc as u32 * rows as u32 + nr as u32
                    });
                }
            }
        }
        out
    }

    /// The direction from `a` to `b` when they are adjacent hexes of the
    /// grid; `None` otherwise (including `a == b`).
    pub fn direction(&self, a: Hex, b: Hex) -> Option<u8> {
        let (ac, ar) = self.offset(a)?;
        let (bc, br) = self.offset(b)?;
        let (ax, az) = self.axial(ac, ar);
        let (bx, bz) = self.axial(bc, br);
        let d = (bx - ax, bz - az);
        AXIAL_STEPS.iter().position(|&s| s == d).map(|p| p as u8)
    }
}
