//! Movement: every hex a unit can reach within its movement allowance
//! (deterministic Dijkstra over caller-supplied costs), and route
//! reconstruction.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::graph::Topology;
use crate::grid::Hex;

/// A hex reached by [`reachable`]: the least movement points spent to enter
/// it and the hex it was entered from on such a route.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Reach {
    /// The hex reached.
    pub hex: Hex,
    /// Least points spent to enter it (0 for the start).
    pub spent: i32,
    /// The previous hex on a cheapest route; among equally cheap routes the
    /// lowest-indexed previous hex. `None` for the start.
    pub prev: Option<Hex>,
}

const NO_PREV: u32 = u32::MAX;

/// Reusable buffers for [`reachable`], kept by the caller so that repeated
/// searches do not allocate once the buffers have grown to the grid size.
#[derive(Clone, Debug, Default)]
pub struct Scratch {
    /// `seen[h] == generation` when `h` was discovered in the current run.
    seen: Vec<u32>,
    /// `done[h] == generation` when `h` was settled in the current run.
    done: Vec<u32>,
    generation: u32,
    spent: Vec<i32>,
    prev: Vec<u32>,
    heap: BinaryHeap<Reverse<(i32, u32)>>,
    /// The bucket queue (see [`Queue`]): `buckets[d]` holds the hexes queued at cost
    /// `d`; the bucket being popped is kept sorted, highest index first.
    buckets: Vec<Vec<u32>>,
    touched: Vec<u32>,
}

/// Allowances up to this many points are searched with a bucket queue (one bucket per
/// point); larger ones with the binary heap. Both pop in (cost, hex index) order.
pub const BUCKET_LIMIT: i32 = 1024;

/// The search's priority queue: pops `(cost, hex)` pairs in increasing order, costs
/// never below the last popped one (Dijkstra with non-negative steps). Over small
/// integer costs a bucket per cost: a bucket is sorted when the search reaches it, and
/// a hex queued into the bucket being popped (a free step) is inserted in its place, so
/// the order is exactly the heap's.
struct Queue<'a> {
    heap: &'a mut BinaryHeap<Reverse<(i32, u32)>>,
    buckets: &'a mut Vec<Vec<u32>>,
    use_buckets: bool,
    /// The bucket being popped (sorted); buckets below it are empty.
    cur: usize,
    sorted: bool,
}

impl Queue<'_> {
    #[inline]
    fn push(&mut self, d: i32, h: u32) {
        if !self.use_buckets {
            self.heap.push(Reverse((d, h)));
            return;
        }
        let d = d.max(0) as usize;
        let Some(b) = self.buckets.get_mut(d) else { return };
        if d == self.cur && self.sorted {
            // Highest index first: insert before the first entry below `h`.
            let at = b.partition_point(|&x| x > h);
            b.insert(at, h);
        } else {
            b.push(h);
        }
    }

    #[inline]
    fn pop(&mut self) -> Option<(i32, u32)> {
        if !self.use_buckets {
            return self.heap.pop().map(|Reverse(x)| x);
        }
        loop {
            let b = self.buckets.get_mut(self.cur)?;
            if !self.sorted {
                b.sort_unstable_by(|a, b| b.cmp(a));
                self.sorted = true;
            }
            if let Some(h) = b.pop() {
                return Some((self.cur as i32, h));
            }
            self.cur += 1;
            self.sorted = false;
        }
    }
}

impl Scratch {
    /// Empty buffers; they grow on first use.
    pub fn new() -> Scratch {
        Scratch::default()
    }

    fn prepare(&mut self, n: usize) {
        if self.seen.len() < n {
            self.seen.resize(n, 0);
            self.done.resize(n, 0);
            self.spent.resize(n, 0);
            self.prev.resize(n, NO_PREV);
        }
        if self.generation == u32::MAX {
            self.seen.iter_mut().for_each(|g| *g = 0);
            self.done.iter_mut().for_each(|g| *g = 0);
            self.generation = 0;
        }
        self.generation += 1;
        self.heap.clear();
        self.touched.clear();
    }

    /// The queue for a search with this allowance (buckets emptied and sized).
    fn queue_of<'a>(
        heap: &'a mut BinaryHeap<Reverse<(i32, u32)>>,
        buckets: &'a mut Vec<Vec<u32>>,
        allowance: i32,
        force_heap: bool,
    ) -> Queue<'a> {
        let use_buckets = !force_heap && (0..=BUCKET_LIMIT).contains(&allowance);
        if use_buckets {
            let n = allowance as usize + 1;
            if buckets.len() < n {
                buckets.resize_with(n, Vec::new);
            }
            for b in &mut buckets[..n] {
                b.clear();
            }
        }
        Queue { heap, buckets, use_buckets, cur: 0, sorted: false }
    }

    /// Points spent to reach `h` in the most recent [`reachable`] run, or
    /// `None` when it was not reached.
    pub fn spent(&self, h: Hex) -> Option<i32> {
        match self.done.get(h.index()) {
            Some(&g) if g == self.generation && self.generation != 0 => Some(self.spent[h.index()]),
            _ => None,
        }
    }
}

/// Every hex reachable from `start` with `allowance` movement points, in
/// index order, written into `out` (cleared first). Returns `false`, leaving
/// `out` empty, when `start` is off the grid.
///
/// `cost(from, to, dir)` is the price of stepping from `from` into the
/// adjacent `to` (in direction `dir`), or `None` when the step is prohibited;
/// negative prices count as 0. Use integer units (double everything for half
/// points). A hex is entered only if the total spent stays `<= allowance`.
/// When `stop_on_enter(h)` is true (e.g. entering an enemy zone of control
/// ends movement), `h` is reachable but the search does not continue from it;
/// it is never asked about the start, which is always included with 0 spent.
/// `stop_on_enter` is called at most once per hex; `cost` only for steps into
/// hexes not yet settled.
pub fn reachable_into<G: Topology + ?Sized>(
    grid: &G,
    start: Hex,
    allowance: i32,
    cost: impl FnMut(Hex, Hex, u8) -> Option<i32>,
    stop_on_enter: impl FnMut(Hex) -> bool,
    scratch: &mut Scratch,
    out: &mut Vec<Reach>,
) -> bool {
    reachable_bounded_into(grid, start, allowance, 0, cost, stop_on_enter, scratch, out)
}

/// As [`reachable_into`], knowing that no step costs less than `min_step`: steps out of
/// a hex from which even the cheapest step would exceed the allowance are not costed
/// (the caller guarantees the bound; a cost below it is still used as returned).
#[allow(clippy::too_many_arguments)]
pub fn reachable_bounded_into<G: Topology + ?Sized>(
    grid: &G,
    start: Hex,
    allowance: i32,
    min_step: i32,
    cost: impl FnMut(Hex, Hex, u8) -> Option<i32>,
    stop_on_enter: impl FnMut(Hex) -> bool,
    scratch: &mut Scratch,
    out: &mut Vec<Reach>,
) -> bool {
    search(grid, start, allowance, min_step, cost, stop_on_enter, scratch, out, false)
}

/// As [`reachable_bounded_into`] with the binary heap whatever the allowance: the
/// reference the bucket queue is tested against (same results, same calls of `cost` and
/// `stop_on_enter` in the same order).
#[doc(hidden)]
#[allow(clippy::too_many_arguments)]
pub fn reachable_bounded_into_heap<G: Topology + ?Sized>(
    grid: &G,
    start: Hex,
    allowance: i32,
    min_step: i32,
    cost: impl FnMut(Hex, Hex, u8) -> Option<i32>,
    stop_on_enter: impl FnMut(Hex) -> bool,
    scratch: &mut Scratch,
    out: &mut Vec<Reach>,
) -> bool {
    search(grid, start, allowance, min_step, cost, stop_on_enter, scratch, out, true)
}

#[allow(clippy::too_many_arguments)]
fn search<G: Topology + ?Sized>(
    grid: &G,
    start: Hex,
    allowance: i32,
    min_step: i32,
    mut cost: impl FnMut(Hex, Hex, u8) -> Option<i32>,
    mut stop_on_enter: impl FnMut(Hex) -> bool,
    scratch: &mut Scratch,
    out: &mut Vec<Reach>,
    force_heap: bool,
) -> bool {
    out.clear();
    if !grid.has(start) {
        return false;
    }
    let sc = scratch;
    sc.prepare(grid.space_count() as usize);
    let g = sc.generation;
    let s = start.index();
    sc.seen[s] = g;
    sc.spent[s] = 0;
    sc.prev[s] = NO_PREV;
    sc.touched.push(start.0);
    let Scratch { seen, done, spent, prev, heap, buckets, touched, .. } = sc;
    let mut queue = Scratch::queue_of(heap, buckets, allowance, force_heap);
    queue.push(0, start.0);
    while let Some((d, h)) = queue.pop() {
        let hi = h as usize;
        if done[hi] == g || d != spent[hi] {
            continue;
        }
        done[hi] = g;
        if h != start.0 && stop_on_enter(Hex(h)) {
            continue;
        }
        if min_step > 0 && d.saturating_add(min_step) > allowance {
            continue;
        }
        for (dir, n) in grid.adjacent(Hex(h)).enumerate() {
            let Some(n) = n else { continue };
            let ni = n.index();
            if done[ni] == g {
                continue;
            }
            // Already reached more cheaply than the cheapest step from here could.
            if min_step > 0 && seen[ni] == g && spent[ni] < d.saturating_add(min_step) {
                continue;
            }
            let Some(c) = cost(Hex(h), n, dir as u8) else {
                continue;
            };
            let Some(nd) = d.checked_add(c.max(0)) else {
                continue;
            };
            if nd > allowance {
                continue;
            }
            if seen[ni] != g {
                seen[ni] = g;
                touched.push(n.0);
            } else if nd == spent[ni] {
                // Equal cost: keep the lowest-indexed predecessor.
                prev[ni] = prev[ni].min(h);
                continue;
            } else if nd > spent[ni] {
                continue;
            }
            spent[ni] = nd;
            prev[ni] = h;
            queue.push(nd, n.0);
        }
    }
    touched.sort_unstable();
    out.extend(touched.iter().map(|&h| Reach {
        hex: Hex(h),
        spent: spent[h as usize],
        prev: match prev[h as usize] {
            NO_PREV => None,
            p => Some(Hex(p)),
        },
    }));
    true
}

/// As [`reachable_into`], returning a new vector (empty when `start` is off
/// the grid).
pub fn reachable<G: Topology + ?Sized>(
    grid: &G,
    start: Hex,
    allowance: i32,
    cost: impl FnMut(Hex, Hex, u8) -> Option<i32>,
    stop_on_enter: impl FnMut(Hex) -> bool,
    scratch: &mut Scratch,
) -> Vec<Reach> {
    let mut out = Vec::new();
    reachable_into(grid, start, allowance, cost, stop_on_enter, scratch, &mut out);
    out
}

/// The route from the start of a [`reachable`] result to `hex`, both ends
/// included (`[start]` for the start itself); `None` when `hex` is not in
/// `reach` or the `prev` links are broken.
pub fn path_to(reach: &[Reach], hex: Hex) -> Option<Vec<Hex>> {
    let find = |h: Hex| reach.binary_search_by_key(&h, |r| r.hex).ok().map(|i| reach[i]);
    let mut path = Vec::new();
    let mut cur = find(hex)?;
    loop {
        path.push(cur.hex);
        match cur.prev {
            None => break,
            Some(p) => {
                if path.len() > reach.len() {
                    return None;
                }
                cur = find(p)?;
            }
        }
    }
    path.reverse();
    Some(path)
}
