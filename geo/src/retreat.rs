//! Retreat and rout searches: enumerate every legal retreat path of a given
//! length (or shorter, leaving the map) and pick the one the caller's
//! lexicographic priority key likes best.
//!
//! The rules themselves (which hexes may be entered, which map edges may be
//! left, what the priorities are) are supplied by the caller as closures, so
//! the same search serves every rulebook.

use core::cmp::Ordering;

use crate::graph::Topology;
use crate::grid::Hex;

/// Longest retreat the search accepts, in hexes.
pub const MAX_RETREAT: u32 = 8;

/// The retreat chosen by [`retreat`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RetreatPath {
    /// The hexes entered, in order, not including the start.
    pub hexes: Vec<Hex>,
    /// `Some(dir)` when the retreat ends by leaving the map across the side
    /// in direction `dir` of the last hex of `hexes` (of the start when
    /// `hexes` is empty).
    pub exit: Option<u8>,
    /// Number of legal candidate paths considered.
    pub candidates: u32,
    /// Number of candidates whose key equals the chosen one's (1 when the
    /// choice was not a tie), so a caller can offer the owner a choice.
    pub tied: u32,
}

struct Search<'a, G: ?Sized, E, X, V> {
    grid: &'a G,
    start: Hex,
    length: usize,
    may_enter: E,
    may_exit: X,
    visit: V,
    path: [Hex; MAX_RETREAT as usize],
    count: u32,
}

impl<G: Topology + ?Sized, E, X, V> Search<'_, G, E, X, V>
where
    E: FnMut(Hex, Hex, u32) -> bool,
    X: FnMut(Hex, u8) -> bool,
    V: FnMut(&[Hex], Option<u8>),
{
    fn run(&mut self, depth: usize) {
        if depth == self.length {
            self.count += 1;
            (self.visit)(&self.path[..depth], None);
            return;
        }
        let cur = if depth == 0 { self.start } else { self.path[depth - 1] };
        let grid = self.grid;
        for (dir, n) in grid.adjacent(cur).enumerate() {
            let dir = dir as u8;
            match n {
                None => {
                    if (self.may_exit)(cur, dir) {
                        self.count += 1;
                        (self.visit)(&self.path[..depth], Some(dir));
                    }
                }
                Some(n) => {
                    if n == self.start || self.path[..depth].contains(&n) {
                        continue;
                    }
                    if (self.may_enter)(cur, n, depth as u32 + 1) {
                        self.path[depth] = n;
                        self.run(depth + 1);
                    }
                }
            }
        }
    }
}

/// Calls `visit(hexes, exit)` for every legal retreat from `start`, and
/// returns how many there were.
///
/// A legal retreat is a simple path (never re-entering `start` or any hex
/// already on it) of exactly `length` hexes, each step allowed by
/// `may_enter(from, to, step)` (`step` counts from 1), or a shorter such path
/// that then leaves the map from its last hex (or from `start`) across a side
/// with no neighbour for which `may_exit(from, dir)` is true (see
/// [`Grid::exit_edges`] to tell which edge that is). Exits are only offered
/// before the full length is reached. Paths are visited depth-first, trying
/// directions 0..6 in order at each hex. `None` when `start` is off the grid
/// or `length > MAX_RETREAT`; `length == 0` gives the one empty path.
/// Allocation-free.
pub fn for_each_retreat_path<G: Topology + ?Sized>(
    grid: &G,
    start: Hex,
    length: u32,
    may_enter: impl FnMut(Hex, Hex, u32) -> bool,
    may_exit: impl FnMut(Hex, u8) -> bool,
    visit: impl FnMut(&[Hex], Option<u8>),
) -> Option<u32> {
    if !grid.has(start) || length > MAX_RETREAT {
        return None;
    }
    let mut s = Search {
        grid,
        start,
        length: length as usize,
        may_enter,
        may_exit,
        visit,
        path: [start; MAX_RETREAT as usize],
        count: 0,
    };
    s.run(0);
    Some(s.count)
}

/// The best legal retreat from `start` (see [`for_each_retreat_path`] for
/// legality): the candidate with the greatest `key(hexes, exit)`, ties broken
/// by the lowest `(hexes, exit)` sequence (compared hex index by hex index,
/// a prefix before its extensions, no exit before an exit, lower direction
/// first).
///
/// The key carries the rulebook's priorities, most important first, e.g. for
/// Peter the Great 7.4.2: `(distance from the nearest enemy at the end,
/// Reverse(hexes in enemy ZOC), Reverse(hexes with friendly units))`, with
/// leaving the map ranked as the caller sees fit. `None` when there is no
/// legal retreat, `start` is off the grid or `length > MAX_RETREAT`.
pub fn retreat<G: Topology + ?Sized, K: Ord>(
    grid: &G,
    start: Hex,
    length: u32,
    may_enter: impl FnMut(Hex, Hex, u32) -> bool,
    may_exit: impl FnMut(Hex, u8) -> bool,
    mut key: impl FnMut(&[Hex], Option<u8>) -> K,
) -> Option<RetreatPath> {
    let mut best: Option<(K, [Hex; MAX_RETREAT as usize], usize, Option<u8>)> = None;
    let mut tied = 0u32;
    let candidates = for_each_retreat_path(grid, start, length, may_enter, may_exit, |p, exit| {
        let k = key(p, exit);
        let better = match &best {
            None => true,
            Some((bk, bp, bl, bx)) => match k.cmp(bk) {
                Ordering::Greater => true,
                Ordering::Less => false,
                Ordering::Equal => {
                    tied += 1;
                    (p, exit) < (&bp[..*bl], *bx)
                }
            },
        };
        if better {
            let replaces_equal = matches!(&best, Some((bk, ..)) if k == *bk);
            if !replaces_equal {
                tied = 1;
            }
            let mut arr = [start; MAX_RETREAT as usize];
            arr[..p.len()].copy_from_slice(p);
            best = Some((k, arr, p.len(), exit));
        }
    })?;
    let (_, arr, len, exit) = best?;
    Some(RetreatPath { hexes: arr[..len].to_vec(), exit, candidates, tied })
}
