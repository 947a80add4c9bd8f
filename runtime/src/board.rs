//! The map as the VM sees it: a `kriegsspiel_geo::Grid` plus terrain and hexside
//! feature masks from the program's `MapDef`.

use crate::program::MapDef;
use kriegsspiel_geo::{Grid, Hex, Layout, Scratch};

pub struct Board {
    pub grid: Grid,
    pub scratch: Scratch,
}

impl Board {
    pub fn new(map: &MapDef) -> Board {
        let layout = if map.even_down { Layout::EvenColumnsDown } else { Layout::OddColumnsDown };
        let grid = Grid::new(map.cols.max(1), map.rows.max(1), 1, 1, layout)
            .or_else(|| Grid::new(1, 1, 1, 1, layout))
            .expect("a 1x1 grid is always valid");
        Board { grid, scratch: Scratch::new() }
    }

    pub fn hex_count(&self) -> u32 {
        self.grid.hex_count()
    }

    pub fn neighbour(&self, h: u32, dir: u8) -> Option<u32> {
        self.grid.neighbour(Hex(h), dir).map(|x| x.0)
    }

    pub fn direction(&self, a: u32, b: u32) -> Option<u8> {
        self.grid.direction(Hex(a), Hex(b))
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
