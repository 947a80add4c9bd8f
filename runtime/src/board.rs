//! The map as the VM sees it: a `kriegsspiel_geo::Grid` (hex maps) or a
//! `kriegsspiel_geo::Graph` (area maps) plus terrain and hexside/border feature
//! masks from the program's `MapDef`. Both kinds of map number their spaces densely
//! and give each space a fixed number of neighbour slots ("directions": the six
//! hexsides, or an area's borders in area order), so the hot queries read one flat
//! table whatever the map.

use crate::program::{IdScheme, MapDef};
use kriegsspiel_geo::{Graph, Grid, Hex, Layout, Scratch};

pub struct Board {
    pub grid: Grid,
    /// The area graph of an area map; `None` on a hex map.
    pub graph: Option<Graph>,
    pub scratch: Scratch,
    /// The neighbours of every space by direction, `deg` slots per space (`NONE` off
    /// the map or past an area's last border): the hot direction and neighbour
    /// queries read this instead of the grid arithmetic.
    nbr: Vec<u32>,
    deg: usize,
    /// Area names (area maps).
    names: Vec<String>,
    scheme: IdScheme,
}

const NONE: u32 = u32::MAX;

impl Board {
    pub fn new(map: &MapDef) -> Board {
        let layout = if map.even_down { Layout::EvenColumnsDown } else { Layout::OddColumnsDown };
        let graph = if map.is_areas() { Graph::new(map.areas.len() as u32, &map.borders) } else { None };
        let (cols, rows) = match &graph {
            Some(g) => (g.area_count() as u16, 1),
            None => (map.cols.max(1), map.rows.max(1)),
        };
        let grid = Grid::new(cols, rows, 1, 1, layout)
            .or_else(|| Grid::new(1, 1, 1, 1, layout))
            .expect("a 1x1 grid is always valid");
        let (nbr, deg) = match &graph {
            Some(g) => {
                let deg = map.degree().max(g.max_degree()).max(1);
                let mut nbr = vec![NONE; g.area_count() as usize * deg];
                for h in 0..g.area_count() {
                    for (d, &n) in g.neighbour_slice(Hex(h)).iter().enumerate() {
                        nbr[h as usize * deg + d] = n;
                    }
                }
                (nbr, deg)
            }
            None => {
                let nbr = grid.neighbour_table();
                (nbr, 6)
            }
        };
        let names = if graph.is_some() { map.areas.clone() } else { Vec::new() };
        Board { grid, graph, scratch: Scratch::new(), nbr, deg, names, scheme: map.scheme }
    }

    pub fn hex_count(&self) -> u32 {
        match &self.graph {
            Some(g) => g.area_count(),
            None => self.grid.hex_count(),
        }
    }

    /// Neighbour slots per space (6 on a hex map).
    #[inline]
    pub fn degree(&self) -> u8 {
        self.deg as u8
    }

    #[inline]
    pub fn neighbour(&self, h: u32, dir: u8) -> Option<u32> {
        // Six slots (every hex map): the constant stride the hot path was written for.
        let i = if self.deg == 6 {
            if dir >= 6 {
                return None;
            }
            h as usize * 6 + usize::from(dir)
        } else {
            if usize::from(dir) >= self.deg {
                return None;
            }
            h as usize * self.deg + usize::from(dir)
        };
        match self.nbr.get(i) {
            Some(&n) if n != NONE => Some(n),
            _ => None,
        }
    }

    #[inline]
    pub fn direction(&self, a: u32, b: u32) -> Option<u8> {
        if b == NONE {
            return None;
        }
        if self.deg == 6 {
            let start = (a as usize).checked_mul(6)?;
            let n: &[u32; 6] = self.nbr.get(start..start + 6)?.try_into().ok()?;
            return n.iter().position(|&x| x == b).map(|d| d as u8);
        }
        let start = (a as usize).checked_mul(self.deg)?;
        let n = self.nbr.get(start..start + self.deg)?;
        n.iter().position(|&x| x == b).map(|d| d as u8)
    }

    pub fn distance(&self, a: u32, b: u32) -> i64 {
        match &self.graph {
            Some(g) => g.distance(Hex(a), Hex(b)) as i64,
            None => self.grid.distance(Hex(a), Hex(b)) as i64,
        }
    }

    /// The printed name of a space: an area's name, or a hex's id in the map's scheme.
    pub fn label(&self, h: u32) -> String {
        if self.graph.is_some() {
            return self.names.get(h as usize).cloned().unwrap_or_else(|| format!("#{h}"));
        }
        match self.grid.coords(Hex(h)) {
            Some((c, r)) => format_id(&self.grid, self.scheme, c, r),
            None => format!("#{h}"),
        }
    }

    /// Feature mask of the hexside or border between two adjacent spaces (0 if not adjacent).
    pub fn side_mask(map: &MapDef, board: &Board, a: u32, b: u32) -> u32 {
        match board.direction(a, b) {
            Some(d) => map.sides.get(a as usize * board.deg + d as usize).copied().unwrap_or(0),
            None => 0,
        }
    }

    /// Edge bits (bit 0 north, 1 east, 2 south, 3 west) crossed by leaving `h` toward
    /// `dir`; an area map has no edges.
    pub fn exit_bits(&self, h: u32, dir: u8) -> u8 {
        if self.graph.is_some() {
            return 0;
        }
        self.grid.exit_edges(Hex(h), dir).bits()
    }
}

/// The printed id of the hex at grid column `col`, row `row` (both numbered from 1)
/// in `scheme`: column then row digits (or row then column), each part at least two
/// digits, numbered from the scheme's first column and row.
pub fn format_id(grid: &Grid, scheme: IdScheme, col: u16, row: u16) -> String {
    let c = u32::from(col) - 1 + u32::from(scheme.first_col);
    let r = u32::from(row) - 1 + u32::from(scheme.first_row);
    let cw = usize::from(grid.col_digits());
    let rw = usize::from(grid.row_digits());
    if scheme.row_first {
        format!("{r:0rw$}{c:0cw$}")
    } else {
        format!("{c:0cw$}{r:0rw$}")
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

    /// On an area map the slots are the borders in area order; labels are names.
    #[test]
    fn area_board() {
        let map = MapDef {
            cols: 3,
            rows: 1,
            areas: vec!["A".into(), "B".into(), "C".into()],
            borders: vec![(0, 2), (1, 2)],
            degree: 2,
            ..Default::default()
        };
        let b = Board::new(&map);
        assert_eq!(b.hex_count(), 3);
        assert_eq!(b.neighbour(2, 0), Some(0));
        assert_eq!(b.neighbour(2, 1), Some(1));
        assert_eq!(b.neighbour(0, 1), None);
        assert_eq!(b.direction(2, 1), Some(1));
        assert_eq!(b.direction(0, 1), None);
        assert_eq!(b.distance(0, 1), 2);
        assert_eq!(b.label(1), "B");
        assert_eq!(b.exit_bits(0, 0), 0);
    }

    /// Printed ids in the four schemes.
    #[test]
    fn id_schemes() {
        let grid = Grid::new(12, 10, 1, 1, Layout::EvenColumnsDown).unwrap();
        let s = |row_first, first_col, first_row| IdScheme { row_first, first_col, first_row };
        assert_eq!(format_id(&grid, IdScheme::default(), 4, 9), "0409");
        assert_eq!(format_id(&grid, s(true, 1, 1), 4, 9), "0904");
        assert_eq!(format_id(&grid, s(false, 0, 0), 4, 9), "0308");
        assert_eq!(format_id(&grid, s(true, 0, 1), 1, 1), "0100");
    }
}

/// Every space's printed name in index order: the hex ids in the map's id scheme, or
/// the area names (for pages that draw the map, such as the replay).
pub fn space_labels(map: &MapDef) -> Vec<String> {
    let b = Board::new(map);
    (0..b.hex_count()).map(|h| b.label(h)).collect()
}
