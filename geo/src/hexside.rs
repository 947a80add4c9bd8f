//! Hexsides: a canonical id for each side shared by two hexes, the same from
//! both sides, including the sides on the map edge.
//!
//! Numbering: every hex of the grid extended by a one-hex ring all round owns
//! its north, north-east and south-east sides; its other three sides are owned
//! by the neighbours across them. With `ext` the column-major index of the
//! owner in the extended `(cols + 2) x (rows + 2)` rectangle, the id is
//! `ext * 3 + dir` (`dir` in 0..3). Ids are dense enough to index per-side
//! arrays of length [`Grid::hexside_count`]; a few ids (between two off-map
//! hexes) are never produced.

use crate::grid::{Grid, Hex};

/// A hexside, by its canonical id in a [`Grid`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Hexside(pub u32);

impl Hexside {
    /// The id as a `usize`, for indexing per-side arrays.
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

impl Grid {
    /// Upper bound (exclusive) of hexside ids: `(cols + 2) * (rows + 2) * 3`.
    pub fn hexside_count(&self) -> u32 {
        // Fits: checked by Grid::new.
        (u32::from(self.cols()) + 2) * (u32::from(self.rows()) + 2) * 3
    }

    /// Id of the side in direction `dir` (0..3) of the hex at absolute
    /// `(col, row)`, which may lie in the one-hex ring round the map.
    pub(crate) fn side_id(&self, col: i32, row: i32, dir: u8) -> Option<Hexside> {
        let c = col - i32::from(self.first_col()) + 1;
        let r = row - i32::from(self.first_row()) + 1;
        let w = i32::from(self.cols()) + 2;
        let h = i32::from(self.rows()) + 2;
        if c < 0 || r < 0 || c >= w || r >= h || dir > 2 {
            return None;
        }
        Some(Hexside((c as u32 * h as u32 + r as u32) * 3 + u32::from(dir)))
    }

    /// Id of the side of absolute `(col, row)` in direction `dir` (0..6).
    pub(crate) fn side_of_offset(&self, col: i32, row: i32, dir: u8) -> Option<Hexside> {
        if dir < 3 {
            self.side_id(col, row, dir)
        } else if dir < 6 {
            let (oc, or) = self.step(col, row, dir);
            self.side_id(oc, or, dir - 3)
        } else {
            None
        }
    }

    /// The side of `h` in direction `dir`, on the map edge or not; `None`
    /// when `h` is off the grid or `dir > 5`.
    pub fn hexside(&self, h: Hex, dir: u8) -> Option<Hexside> {
        let (c, r) = self.offset(h)?;
        self.side_of_offset(c, r, dir)
    }

    /// The side shared by adjacent hexes `a` and `b`; `None` when they are
    /// not adjacent hexes of the grid.
    pub fn hexside_between(&self, a: Hex, b: Hex) -> Option<Hexside> {
        let d = self.direction(a, b)?;
        self.hexside(a, d)
    }

    /// The two hexes either side of `side`: first the owner (for which the
    /// side is its north, north-east or south-east side), then the hex
    /// across. An off-map hex is `None`. `None` overall when the id is out of
    /// range or both hexes are off the map.
    pub fn hexside_hexes(&self, side: Hexside) -> Option<[Option<Hex>; 2]> {
        if side.0 >= self.hexside_count() {
            return None;
        }
        let ext = side.0 / 3;
        let dir = (side.0 % 3) as u8;
        let h = u32::from(self.rows()) + 2;
        let col = (ext / h) as i32 + i32::from(self.first_col()) - 1;
        let row = (ext % h) as i32 + i32::from(self.first_row()) - 1;
        let (oc, or) = self.step(col, row, dir);
        let pair = [self.at(col, row), self.at(oc, or)];
        if pair == [None, None] {
            None
        } else {
            Some(pair)
        }
    }

    /// The direction (0..3: north, north-east, south-east) of `side` seen
    /// from its owner, the first hex of [`Grid::hexside_hexes`].
    pub fn hexside_dir(&self, side: Hexside) -> Option<u8> {
        self.hexside_hexes(side).map(|_| (side.0 % 3) as u8)
    }

    /// The hexside between absolute axial positions `(x, z)` and its
    /// neighbour in direction `dir`, for the line-of-sight walker.
    pub(crate) fn side_of_axial(&self, x: i32, z: i32, dir: u8) -> Option<Hexside> {
        let (c, r) = self.axial_to_offset(x, z);
        self.side_of_offset(c, r, dir)
    }
}
