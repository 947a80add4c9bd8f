//! Maps that are not hex grids: named areas joined by borders, as a graph, and
//! the [`Topology`] trait that lets the searches ([`crate::reachable`],
//! [`crate::retreat`]) run on a hex [`Grid`] or an area [`Graph`] alike.
//!
//! An area is a [`Hex`] index (the space type is shared, so per-space arrays and
//! the VM's `Hex` values serve both kinds of map). Its neighbours are listed in
//! index order; the position of a neighbour in that list is the "direction" of
//! the border, so `neighbour(h, d)` and `direction(a, b)` mean the same on both
//! kinds of map. An area graph has no map edges: every neighbour slot is an area.

use std::collections::VecDeque;

use crate::grid::{Grid, Hex};

/// What the searches need of a map: its number of spaces and each space's
/// neighbours in direction order (`None` for a side that leads off the map).
pub trait Topology {
    /// Iterator over a space's neighbour slots, in direction order.
    type Nbrs<'a>: Iterator<Item = Option<Hex>>
    where
        Self: 'a;
    /// Number of spaces; valid indices are `0..space_count()`.
    fn space_count(&self) -> u32;
    /// The neighbour slots of `h` in direction order (empty, or all `None`,
    /// when `h` is not a space of the map).
    fn adjacent(&self, h: Hex) -> Self::Nbrs<'_>;
    /// Whether `h` is a space of this map.
    fn has(&self, h: Hex) -> bool {
        h.0 < self.space_count()
    }
}

impl Topology for Grid {
    type Nbrs<'a> = core::array::IntoIter<Option<Hex>, 6>;
    fn space_count(&self) -> u32 {
        self.hex_count()
    }
    #[inline]
    fn adjacent(&self, h: Hex) -> Self::Nbrs<'_> {
        self.neighbours(h).into_iter()
    }
}

/// Largest number of areas a [`Graph`] accepts (its distance table is
/// `n * n` 16-bit entries).
pub const MAX_AREAS: u32 = 2000;

/// Distance reported between areas that no chain of borders joins.
pub const UNCONNECTED: u32 = u16::MAX as u32;

/// An area map: `n` areas joined by undirected borders.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Graph {
    /// `targets[offsets[h]..offsets[h + 1]]` are the neighbours of `h`, ascending.
    offsets: Vec<u32>,
    targets: Vec<u32>,
    /// Borders crossed on a shortest chain, `dist[a * n + b]` (`u16::MAX` when unconnected).
    dist: Vec<u16>,
}

fn some_hex(x: &u32) -> Option<Hex> {
    Some(Hex(*x))
}

impl Graph {
    /// A graph of `n` areas and the given borders (pairs of area indices, in
    /// either order; duplicates are merged). `None` when `n` is 0 or above
    /// [`MAX_AREAS`], or a border names an index `>= n` or joins an area to itself.
    pub fn new(n: u32, borders: &[(u32, u32)]) -> Option<Graph> {
        if n == 0 || n > MAX_AREAS {
            return None;
        }
        let mut adj: Vec<Vec<u32>> = vec![Vec::new(); n as usize];
        for &(a, b) in borders {
            if a >= n || b >= n || a == b {
                return None;
            }
            adj[a as usize].push(b);
            adj[b as usize].push(a);
        }
        let mut offsets = Vec::with_capacity(n as usize + 1);
        let mut targets = Vec::new();
        offsets.push(0);
        for l in &mut adj {
            l.sort_unstable();
            l.dedup();
            targets.extend_from_slice(l);
            offsets.push(u32::try_from(targets.len()).ok()?);
        }
        let mut g = Graph { offsets, targets, dist: Vec::new() };
        g.dist = g.all_distances();
        Some(g)
    }

    fn all_distances(&self) -> Vec<u16> {
        let n = self.area_count() as usize;
        let mut dist = vec![u16::MAX; n * n];
        let mut queue = VecDeque::new();
        for s in 0..n {
            let row = &mut dist[s * n..(s + 1) * n];
            row[s] = 0;
            queue.clear();
            queue.push_back(s as u32);
            while let Some(h) = queue.pop_front() {
                let d = row[h as usize];
                for &m in self.neighbour_slice(Hex(h)) {
                    if row[m as usize] == u16::MAX {
                        row[m as usize] = d.saturating_add(1);
                        queue.push_back(m);
                    }
                }
            }
        }
        dist
    }

    /// Number of areas.
    pub fn area_count(&self) -> u32 {
        (self.offsets.len() - 1) as u32
    }

    /// The neighbours of `h`, ascending (empty when `h` is not an area).
    pub fn neighbour_slice(&self, h: Hex) -> &[u32] {
        let i = h.index();
        match (self.offsets.get(i), self.offsets.get(i + 1)) {
            (Some(&a), Some(&b)) => &self.targets[a as usize..b as usize],
            _ => &[],
        }
    }

    /// Largest number of neighbours of any area.
    pub fn max_degree(&self) -> usize {
        self.offsets.windows(2).map(|w| (w[1] - w[0]) as usize).max().unwrap_or(0)
    }

    /// The `dir`-th neighbour of `h` (in ascending order), if any.
    pub fn neighbour(&self, h: Hex, dir: usize) -> Option<Hex> {
        self.neighbour_slice(h).get(dir).map(|&x| Hex(x))
    }

    /// The position of `b` among the neighbours of `a`; `None` when they share no border.
    pub fn direction(&self, a: Hex, b: Hex) -> Option<usize> {
        self.neighbour_slice(a).binary_search(&b.0).ok()
    }

    /// Borders crossed on a shortest chain from `a` to `b` (0 for `a == b`);
    /// [`UNCONNECTED`] when none joins them or either is not an area.
    pub fn distance(&self, a: Hex, b: Hex) -> u32 {
        let n = self.area_count() as usize;
        if a.index() >= n || b.index() >= n {
            return UNCONNECTED;
        }
        u32::from(self.dist[a.index() * n + b.index()])
    }
}

impl Topology for Graph {
    type Nbrs<'a> = core::iter::Map<core::slice::Iter<'a, u32>, fn(&u32) -> Option<Hex>>;
    fn space_count(&self) -> u32 {
        self.area_count()
    }
    fn adjacent(&self, h: Hex) -> Self::Nbrs<'_> {
        self.neighbour_slice(h).iter().map(some_hex as fn(&u32) -> Option<Hex>)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn graph_basics() {
        // 0 - 1 - 2, 3 alone; a duplicate border is merged.
        let g = Graph::new(4, &[(1, 0), (1, 2), (0, 1)]).unwrap();
        assert_eq!(g.neighbour_slice(Hex(1)), &[0, 2]);
        assert_eq!(g.direction(Hex(1), Hex(2)), Some(1));
        assert_eq!(g.direction(Hex(0), Hex(2)), None);
        assert_eq!(g.distance(Hex(0), Hex(2)), 2);
        assert_eq!(g.distance(Hex(0), Hex(3)), UNCONNECTED);
        assert_eq!(g.distance(Hex(2), Hex(2)), 0);
        assert_eq!(g.distance(Hex(2), Hex(9)), UNCONNECTED);
        assert_eq!(g.max_degree(), 2);
        assert!(g.adjacent(Hex(7)).next().is_none());
    }

    #[test]
    fn bad_graphs_are_refused() {
        assert!(Graph::new(0, &[]).is_none());
        assert!(Graph::new(2, &[(0, 0)]).is_none());
        assert!(Graph::new(2, &[(0, 2)]).is_none());
        assert!(Graph::new(MAX_AREAS + 1, &[]).is_none());
    }
}
