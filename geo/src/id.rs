//! Printed hex ids ("CCRR": column digits then row digits, zero-padded),
//! parsed and formatted with the widths the grid declares.

use core::fmt;

use crate::grid::{Grid, Hex};

/// Displays a hex id without allocating; see [`Grid::display`].
///
/// A hex that is not on the grid displays as `#` followed by its raw index,
/// so that log lines never fail.
#[derive(Clone, Copy, Debug)]
pub struct HexIdDisplay<'g> {
    grid: &'g Grid,
    hex: Hex,
}

impl fmt::Display for HexIdDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.grid.coords(self.hex) {
            Some(_) => self.grid.write_id(self.hex, f),
            None => write!(f, "#{}", self.hex.0),
        }
    }
}

fn parse_digits(s: &[u8]) -> Option<u32> {
    let mut v: u32 = 0;
    for &b in s {
        if !b.is_ascii_digit() {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(u32::from(b - b'0'))?;
    }
    Some(v)
}

impl Grid {
    /// Parses a printed id such as `"0412"` (column 4, row 12).
    ///
    /// The id must be exactly `col_digits + row_digits` ASCII digits and name
    /// a hex of the grid; anything else gives `None`.
    pub fn parse_id(&self, id: &str) -> Option<Hex> {
        let b = id.as_bytes();
        let cd = usize::from(self.col_digits());
        if b.len() != cd + usize::from(self.row_digits()) {
            return None;
        }
        let col = parse_digits(&b[..cd])?;
        let row = parse_digits(&b[cd..])?;
        let col = u16::try_from(col).ok()?;
        let row = u16::try_from(row).ok()?;
        self.hex_at(col, row)
    }

    /// The printed id of `h`, e.g. `"0412"`; `None` when `h` is off the grid.
    pub fn format_id(&self, h: Hex) -> Option<String> {
        let mut s = String::with_capacity(usize::from(self.col_digits() + self.row_digits()));
        self.write_id(h, &mut s).ok()?;
        Some(s)
    }

    /// Writes the printed id of `h` into `out` without allocating.
    /// Fails with [`fmt::Error`] (writing nothing) when `h` is off the grid.
    pub fn write_id<W: fmt::Write + ?Sized>(&self, h: Hex, out: &mut W) -> fmt::Result {
        let (col, row) = self.coords(h).ok_or(fmt::Error)?;
        let cw = usize::from(self.col_digits());
        let rw = usize::from(self.row_digits());
        write!(out, "{col:0cw$}{row:0rw$}")
    }

    /// A [`fmt::Display`] adapter for the printed id of `h`, for use in
    /// `format!`/`write!` without an intermediate `String`.
    pub fn display(&self, h: Hex) -> HexIdDisplay<'_> {
        HexIdDisplay { grid: self, hex: h }
    }
}
