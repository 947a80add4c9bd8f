//! The hex grid: dimensions, column layout, dense hex indices, offset and cube
//! coordinates, and hex distance.
//!
//! Hexes are flat-topped and stand in vertical columns, as on most printed
//! wargame maps. Every other column is shifted half a hex down; [`Layout`] says
//! which. Hexes are addressed by a dense index ([`Hex`]) numbered column by
//! column: `(col - first_col) * rows + (row - first_row)`, so "index order" is
//! column-major order, rows ascending within a column.

/// A hex, by its dense index in a [`Grid`].
///
/// The index is only meaningful together with the grid that produced it. Every
/// grid function checks it and answers `None` (or an empty result) for an index
/// outside the grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Hex(pub u32);

impl Hex {
    /// The dense index as a `usize`, for indexing per-hex arrays.
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

/// Which columns are shifted half a hex down relative to their neighbours.
///
/// Parity is taken on the printed (absolute) column number, not on the
/// position relative to `first_col`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Layout {
    /// Even-numbered columns sit half a hex lower than odd-numbered ones.
    EvenColumnsDown,
    /// Odd-numbered columns sit half a hex lower than even-numbered ones.
    OddColumnsDown,
}

/// A rectangular map of flat-topped hexes in vertical columns.
///
/// Constructed with [`Grid::new`], which validates the dimensions; the fields
/// are read through accessors so that a grid is always valid.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Grid {
    cols: u16,
    rows: u16,
    first_col: u16,
    first_row: u16,
    layout: Layout,
    col_digits: u8,
    row_digits: u8,
}

/// Number of decimal digits of `n` (1 for 0).
pub(crate) fn decimal_digits(mut n: u32) -> u8 {
    let mut d = 1;
    while n >= 10 {
        n /= 10;
        d += 1;
    }
    d
}

impl Grid {
    /// A grid of `cols` columns numbered from `first_col` and `rows` rows
    /// numbered from `first_row`.
    ///
    /// Hex ids get two digits per part, or more when the last column or row
    /// number needs them (see [`Grid::with_id_digits`] to choose the widths).
    /// `None` when a dimension is zero, when the last column or row number
    /// would exceed `u16::MAX`, or when the hexside numbering
    /// ([`Grid::hexside_count`]) would not fit in a `u32`.
    pub fn new(cols: u16, rows: u16, first_col: u16, first_row: u16, layout: Layout) -> Option<Grid> {
        if cols == 0 || rows == 0 {
            return None;
        }
        let last_col = u32::from(first_col) + u32::from(cols) - 1;
        let last_row = u32::from(first_row) + u32::from(rows) - 1;
        if last_col > u32::from(u16::MAX) || last_row > u32::from(u16::MAX) {
            return None;
        }
        let sides = (u64::from(cols) + 2) * (u64::from(rows) + 2) * 3;
        if sides > u64::from(u32::MAX) {
            return None;
        }
        Some(Grid {
            cols,
            rows,
            first_col,
            first_row,
            layout,
            col_digits: decimal_digits(last_col).max(2),
            row_digits: decimal_digits(last_row).max(2),
        })
    }

    /// The same grid with explicit id widths: `col_digits` digits of column
    /// then `row_digits` digits of row. `None` when a width is zero, above 5,
    /// or too narrow for the last column or row number.
    pub fn with_id_digits(mut self, col_digits: u8, row_digits: u8) -> Option<Grid> {
        let need_col = decimal_digits(u32::from(self.last_col()));
        let need_row = decimal_digits(u32::from(self.last_row()));
        if col_digits > 5 || row_digits > 5 || col_digits < need_col || row_digits < need_row {
            return None;
        }
        self.col_digits = col_digits;
        self.row_digits = row_digits;
        Some(self)
    }

    /// Number of columns.
    pub fn cols(&self) -> u16 {
        self.cols
    }

    /// Number of rows.
    pub fn rows(&self) -> u16 {
        self.rows
    }

    /// Printed number of the leftmost (west) column.
    pub fn first_col(&self) -> u16 {
        self.first_col
    }

    /// Printed number of the top (north) row.
    pub fn first_row(&self) -> u16 {
        self.first_row
    }

    /// Printed number of the rightmost (east) column.
    pub fn last_col(&self) -> u16 {
        self.first_col + (self.cols - 1)
    }

    /// Printed number of the bottom (south) row.
    pub fn last_row(&self) -> u16 {
        self.first_row + (self.rows - 1)
    }

    /// Which columns are shifted down.
    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// Digits of the column part of a hex id.
    pub fn col_digits(&self) -> u8 {
        self.col_digits
    }

    /// Digits of the row part of a hex id.
    pub fn row_digits(&self) -> u8 {
        self.row_digits
    }

    /// Number of hexes; valid indices are `0..hex_count()`.
    pub fn hex_count(&self) -> u32 {
        u32::from(self.cols) * u32::from(self.rows)
    }

    /// All hexes in index order.
    pub fn hexes(&self) -> impl Iterator<Item = Hex> + Clone {
        (0..self.hex_count()).map(Hex)
    }

    /// Whether `h` is a hex of this grid.
    pub fn contains(&self, h: Hex) -> bool {
        h.0 < self.hex_count()
    }

    /// Printed `(column, row)` of a hex; `None` when `h` is not on the grid.
    pub fn coords(&self, h: Hex) -> Option<(u16, u16)> {
        if !self.contains(h) {
            return None;
        }
        let rows = u32::from(self.rows);
        // Both quotients fit: h < cols * rows.
        let col = u32::from(self.first_col) + h.0 / rows;
        let row = u32::from(self.first_row) + h.0 % rows;
        Some((col as u16, row as u16))
    }

    /// The hex at printed column `col`, row `row`; `None` when off the grid.
    pub fn hex_at(&self, col: u16, row: u16) -> Option<Hex> {
        self.at(i32::from(col), i32::from(row))
    }

    /// Whether printed column `col` is one of the shifted-down columns.
    pub fn is_column_down(&self, col: u16) -> bool {
        self.is_down(i32::from(col))
    }

    /// Hex distance (number of hex steps) between two hexes.
    ///
    /// Total: for indices outside the grid the arithmetic simply extends the
    /// column-major numbering, so it never fails.
    pub fn distance(&self, a: Hex, b: Hex) -> u32 {
        let (ac, ar) = self.offset64(a);
        let (bc, br) = self.offset64(b);
        let (ax, az) = self.axial64(ac, ar);
        let (bx, bz) = self.axial64(bc, br);
        let dx = bx - ax;
        let dz = bz - az;
        let dy = -dx - dz;
        let d = (dx.abs() + dy.abs() + dz.abs()) / 2;
        u32::try_from(d).unwrap_or(u32::MAX)
    }

    /// Distance from `h` to the nearest of `targets`; `None` when `targets`
    /// is empty.
    pub fn nearest_distance(&self, h: Hex, targets: &[Hex]) -> Option<u32> {
        targets.iter().map(|&t| self.distance(h, t)).min()
    }

    /// The nearest of `targets` to `h` and its distance, ties broken by the
    /// lowest hex index; `None` when `targets` is empty.
    pub fn nearest(&self, h: Hex, targets: &[Hex]) -> Option<(Hex, u32)> {
        targets.iter().map(|&t| (self.distance(h, t), t)).min().map(|(d, t)| (t, d))
    }

    // ----- crate-internal coordinate helpers -----

    /// Whether absolute column `col` (may lie off the grid) is shifted down.
    pub(crate) fn is_down(&self, col: i32) -> bool {
        let odd = col.rem_euclid(2) == 1;
        match self.layout {
            Layout::EvenColumnsDown => !odd,
            Layout::OddColumnsDown => odd,
        }
    }

    /// Absolute `(col, row)` of an on-grid hex, as `i32`.
    pub(crate) fn offset(&self, h: Hex) -> Option<(i32, i32)> {
        self.coords(h).map(|(c, r)| (i32::from(c), i32::from(r)))
    }

    /// Absolute `(col, row)` of any index, extending the numbering.
    fn offset64(&self, h: Hex) -> (i64, i64) {
        let rows = u32::from(self.rows);
        (i64::from(self.first_col) + i64::from(h.0 / rows), i64::from(self.first_row) + i64::from(h.0 % rows))
    }

    fn axial64(&self, col: i64, row: i64) -> (i64, i64) {
        let odd = col.rem_euclid(2);
        let z = match self.layout {
            Layout::EvenColumnsDown => row - (col + odd).div_euclid(2),
            Layout::OddColumnsDown => row - (col - odd).div_euclid(2),
        };
        (col, z)
    }

    /// The hex at absolute `(col, row)`, if on the grid.
    pub(crate) fn at(&self, col: i32, row: i32) -> Option<Hex> {
        let c = col - i32::from(self.first_col);
        let r = row - i32::from(self.first_row);
        if c < 0 || r < 0 || c >= i32::from(self.cols) || r >= i32::from(self.rows) {
            return None;
        }
        Some(Hex(c as u32 * u32::from(self.rows) + r as u32))
    }

    /// Axial `(x, z)` of absolute offset `(col, row)`; cube `y = -x - z`.
    /// `x` grows eastward, `z` grows southward.
    pub(crate) fn axial(&self, col: i32, row: i32) -> (i32, i32) {
        let odd = col.rem_euclid(2);
        let z = match self.layout {
            Layout::EvenColumnsDown => row - (col + odd).div_euclid(2),
            Layout::OddColumnsDown => row - (col - odd).div_euclid(2),
        };
        (col, z)
    }

    /// Absolute offset `(col, row)` of axial `(x, z)`.
    pub(crate) fn axial_to_offset(&self, x: i32, z: i32) -> (i32, i32) {
        let odd = x.rem_euclid(2);
        let row = match self.layout {
            Layout::EvenColumnsDown => z + (x + odd).div_euclid(2),
            Layout::OddColumnsDown => z + (x - odd).div_euclid(2),
        };
        (x, row)
    }
}
