//! The map as the VM sees it: a `kriegsspiel_geo::Grid` plus terrain and hexside
//! feature masks from the program's `MapDef`.

use crate::program::MapDef;
use kriegsspiel_geo::{Grid, Hex, Layout, Scratch};

pub struct Board {
    pub grid: Grid,
    pub scratch: Scratch,
    /// The six neighbours of every hex by direction (`NONE` off the map): the hot
    /// direction and neighbour queries read this instead of the grid arithmetic.
    nbr: Vec<[u32; 6]>,
}

const NONE: u32 = u32::MAX;

impl Board {
    pub fn new(map: &MapDef) -> Board {
        let layout = if map.even_down { Layout::EvenColumnsDown } else { Layout::OddColumnsDown };
        let grid = Grid::new(map.cols.max(1), map.rows.max(1), 1, 1, layout)
            .or_else(|| Grid::new(1, 1, 1, 1, layout))
            .expect("a 1x1 grid is always valid");
        let nbr = (0..grid.hex_count())
            .map(|h| grid.neighbours(Hex(h)).map(|n| n.map(|x| x.0).unwrap_or(NONE)))
            .collect();
        Board { grid, scratch: Scratch::new(), nbr }
    }

    pub fn hex_count(&self) -> u32 {
        self.grid.hex_count()
    }

    #[inline]
    pub fn neighbour(&self, h: u32, dir: u8) -> Option<u32> {
        match self.nbr.get(h as usize).and_then(|n| n.get(dir as usize)) {
            Some(&n) if n != NONE => Some(n),
            _ => None,
        }
    }

    #[inline]
    pub fn direction(&self, a: u32, b: u32) -> Option<u8> {
        let n = self.nbr.get(a as usize)?;
        n.iter().position(|&x| x == b && b != NONE).map(|d| d as u8)
    }

    pub fn distance(&self, a: u32, b: u32) -> i64 {
        self.grid.distance(Hex(a), Hex(b)) as i64
    }

    pub fn label(&self, h: u32) -> String {
        self.grid.format_id(Hex(h)).unwrap_or_else(|| format!("#{h}"))
    }

    /// Hexside feature mask between two adjacent hexes (0 if not adjacent).
    pub fn side_mask(map: &MapDef, board: &Board, a: u32, b: u32) -> u32 {
        match board.direction(a, b) {
            Some(d) => map.sides.get(a as usize * 6 + d as usize).copied().unwrap_or(0),
            None => 0,
        }
    }

    /// Edge bits (bit 0 north, 1 east, 2 south, 3 west) crossed by leaving `h` toward `dir`.
    pub fn exit_bits(&self, h: u32, dir: u8) -> u8 {
        self.grid.exit_edges(Hex(h), dir).bits()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The neighbour table answers as the grid does.
    #[test]
    fn table_matches_grid() {
        for (cols, rows, even_down) in [(7u16, 5u16, true), (6, 9, false), (1, 1, true), (2, 3, false)] {
            let map = MapDef { cols, rows, even_down, ..Default::default() };
            let b = Board::new(&map);
            for h in 0..b.hex_count() {
                for d in 0..7u8 {
                    assert_eq!(b.neighbour(h, d), b.grid.neighbour(Hex(h), d).map(|x| x.0));
                }
                for g in 0..b.hex_count() {
                    assert_eq!(b.direction(h, g), b.grid.direction(Hex(h), Hex(g)), "{h} {g}");
                }
            }
        }
    }
}
