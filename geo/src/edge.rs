//! Map edges: which edges a hex touches and which edge a step off the map
//! crosses (for retreats off the map and entry areas).

use crate::grid::{Grid, Hex};

/// A set of map edges (north, east, south, west), as bit flags.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Edges(u8);

impl Edges {
    /// No edge.
    pub const NONE: Edges = Edges(0);
    /// The top edge (row `first_row`).
    pub const NORTH: Edges = Edges(1);
    /// The right edge (column `last_col`).
    pub const EAST: Edges = Edges(2);
    /// The bottom edge (row `last_row`).
    pub const SOUTH: Edges = Edges(4);
    /// The left edge (column `first_col`).
    pub const WEST: Edges = Edges(8);

    /// The raw bits (north 1, east 2, south 4, west 8).
    pub const fn bits(self) -> u8 {
        self.0
    }

    /// Whether no edge is in the set.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether every edge of `other` is in the set.
    pub const fn contains(self, other: Edges) -> bool {
        self.0 & other.0 == other.0
    }

    /// Whether the two sets share an edge.
    pub const fn intersects(self, other: Edges) -> bool {
        self.0 & other.0 != 0
    }

    /// The union of two sets.
    pub const fn union(self, other: Edges) -> Edges {
        Edges(self.0 | other.0)
    }
}

impl core::ops::BitOr for Edges {
    type Output = Edges;
    fn bitor(self, rhs: Edges) -> Edges {
        self.union(rhs)
    }
}

impl Grid {
    /// The edges crossed by stepping from `h` in direction `dir`: empty when
    /// the neighbour is on the map (or `h` is off the grid, or `dir > 5`).
    ///
    /// An edge is reported when the missing neighbour's column or row lies
    /// beyond it, so a corner step can cross two edges (e.g. north-east from
    /// the top hex of the last, unshifted column is `NORTH | EAST`).
    pub fn exit_edges(&self, h: Hex, dir: u8) -> Edges {
        let Some((c, r)) = self.offset(h) else {
            return Edges::NONE;
        };
        if dir > 5 {
            return Edges::NONE;
        }
        let (nc, nr) = self.step(c, r, dir);
        let mut e = Edges::NONE;
        if nc < i32::from(self.first_col()) {
            e = e | Edges::WEST;
        }
        if nc > i32::from(self.last_col()) {
            e = e | Edges::EAST;
        }
        if nr < i32::from(self.first_row()) {
            e = e | Edges::NORTH;
        }
        if nr > i32::from(self.last_row()) {
            e = e | Edges::SOUTH;
        }
        e
    }

    /// The edges `h` touches: the union of [`Grid::exit_edges`] over its six
    /// sides. Empty for interior hexes and for hexes off the grid.
    pub fn edge_of(&self, h: Hex) -> Edges {
        (0..6u8).fold(Edges::NONE, |e, d| e | self.exit_edges(h, d))
    }
}
