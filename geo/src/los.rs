//! Line of sight, traced exactly with integer arithmetic.
//!
//! The centre-to-centre segment is followed in cube coordinates. With `u = x -
//! y`, `v = y - z`, `w = z - x`, a hex `h` is the closed set `|u - h.u| <= 1`,
//! `|v - h.v| <= 1`, `|w - h.w| <= 1`, so the segment can only change hex where
//! `u`, `v` or `w` is an integer. Those parameters are enumerated as exact
//! fractions; the midpoint of each interval between them is classified
//! exactly (inside one hex, or on the side between two), so every hex the line
//! enters is found, however small the corner it clips, and runs exactly along
//! a hexside are detected without tolerance. A line that only touches a hex at
//! one of its corners does not pass through it.

use crate::direction::AXIAL_STEPS;
use crate::grid::{Grid, Hex};
use crate::hexside::Hexside;

/// One element of a traced line, in order from the observer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LosStep {
    /// The line passes through the interior of this hex. The first and last
    /// steps are the two end hexes.
    Hex(Hex),
    /// The line crosses this hexside, from the previous hex into the next.
    Cross(Hexside),
    /// The line runs exactly along this hexside, between these two hexes
    /// (owner first, as [`Grid::hexside_hexes`]; `None` = off the map).
    Along {
        /// The hexside run along.
        side: Hexside,
        /// The hexes either side of it.
        hexes: [Option<Hex>; 2],
    },
}

/// Outcome of [`line_of_sight`]: clear, or the first blocking element met
/// going from the observer to the target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Los {
    /// Nothing blocks.
    Clear,
    /// An intermediate hex blocks.
    Hex(Hex),
    /// A crossed hexside blocks.
    Side(Hexside),
    /// The line runs along `side`, and either the side blocks or both hexes
    /// either side of it block.
    AlongSide {
        /// The hexside run along.
        side: Hexside,
        /// The hexes either side of it.
        hexes: [Option<Hex>; 2],
    },
}

impl Los {
    /// Whether the line of sight is clear.
    pub fn is_clear(&self) -> bool {
        matches!(self, Los::Clear)
    }
}

/// Where the midpoint of an interval lies.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Elem {
    /// Interior of the hex at axial `(x, z)`.
    In(i32, i32),
    /// On this hexside.
    On(Hexside),
}

fn round_div(n: i128, s: i128) -> i128 {
    (2 * n + s).div_euclid(2 * s)
}

/// Classifies the point `(x, -x - z, z) / s` (`s > 0`).
fn classify(grid: &Grid, x: i128, z: i128, s: i128) -> Elem {
    let y = -x - z;
    let (mut rx, mut ry, mut rz) = (round_div(x, s), round_div(y, s), round_div(z, s));
    if rx + ry + rz != 0 {
        let ex = (x - rx * s).abs();
        let ey = (y - ry * s).abs();
        let ez = (z - rz * s).abs();
        if ex > ey && ex > ez {
            rx = -ry - rz;
        } else if ey > ez {
            ry = -rx - rz;
        } else {
            rz = -rx - ry;
        }
    }
    let u = (x - y) - s * (rx - ry);
    let v = (y - z) - s * (ry - rz);
    let w = (z - x) - s * (rz - rx);
    let (hx, hz) = (rx as i32, rz as i32);
    // The rounded hex contains the point; an equality puts it on a side.
    let dir = if u == s {
        Some(2) // (1, -1, 0): south-east
    } else if u == -s {
        Some(5) // north-west
    } else if v == s {
        Some(0) // (0, 1, -1): north
    } else if v == -s {
        Some(3) // south
    } else if w == s {
        Some(4) // (-1, 0, 1): south-west
    } else if w == -s {
        Some(1) // north-east
    } else {
        None
    };
    match dir.and_then(|d| grid.side_of_axial(hx, hz, d)) {
        Some(side) => Elem::On(side),
        None => Elem::In(hx, hz),
    }
}

/// Walks the line from the centre of `from` to the centre of `to`, calling
/// `visit` with each [`LosStep`] in order; `visit` returns `false` to stop.
///
/// Returns `None` when either hex is off the grid, `Some(true)` when the walk
/// reached `to`, `Some(false)` when `visit` stopped it. The steps from `to` to
/// `from` are exactly the reverse of those from `from` to `to`. For
/// `from == to` the only step is `Hex(from)`. Allocation-free.
pub fn walk_line(grid: &Grid, from: Hex, to: Hex, mut visit: impl FnMut(LosStep) -> bool) -> Option<bool> {
    let (ac, ar) = grid.offset(from)?;
    let (bc, br) = grid.offset(to)?;
    let (ax, az) = grid.axial(ac, ar);
    let (bx, bz) = grid.axial(bc, br);
    if !visit(LosStep::Hex(from)) {
        return Some(false);
    }
    if from == to {
        return Some(true);
    }
    let dx = i128::from(bx - ax);
    let dz = i128::from(bz - az);
    let dy = -dx - dz;
    let (du, dv, dw) = ((dx - dy).abs(), (dy - dz).abs(), (dz - dx).abs());
    let m = [du, dv, dw].iter().filter(|&&d| d != 0).product::<i128>();
    // Interval ends are tau / s for tau in 0..=s; u, v, w are integers at
    // multiples of s / du, s / dv, s / dw.
    let s = 2 * m;
    let spacing = |d: i128| if d == 0 { s } else { s / d };
    let (su, sv, sw) = (spacing(du), spacing(dv), spacing(dw));
    let (mut nu, mut nv, mut nw) = (su, sv, sw);
    let s2 = 2 * s;
    let (ax, az) = (i128::from(ax), i128::from(az));
    let mut last = Elem::In(ax as i32, az as i32);
    let mut prev: i128 = 0;
    loop {
        let next = nu.min(nv).min(nw).min(s);
        let mid = prev + next;
        let e = classify(grid, ax * s2 + dx * mid, az * s2 + dz * mid, s2);
        if e != last {
            let step = match (last, e) {
                (Elem::In(x1, z1), Elem::In(x2, z2)) => {
                    let d = AXIAL_STEPS.iter().position(|&st| st == (x2 - x1, z2 - z1));
                    if let Some(side) = d.and_then(|d| grid.side_of_axial(x1, z1, d as u8)) {
                        if !visit(LosStep::Cross(side)) {
                            return Some(false);
                        }
                    }
                    let (c, r) = grid.axial_to_offset(x2, z2);
                    grid.at(c, r).map(LosStep::Hex)
                }
                (_, Elem::In(x2, z2)) => {
                    let (c, r) = grid.axial_to_offset(x2, z2);
                    grid.at(c, r).map(LosStep::Hex)
                }
                (_, Elem::On(side)) => grid.hexside_hexes(side).map(|hexes| LosStep::Along { side, hexes }),
            };
            if let Some(st) = step {
                if !visit(st) {
                    return Some(false);
                }
            }
            last = e;
        }
        if next >= s {
            return Some(true);
        }
        prev = next;
        if nu == next {
            nu += su;
        }
        if nv == next {
            nv += sv;
        }
        if nw == next {
            nw += sw;
        }
    }
}

/// Appends the steps of the line from `from` to `to` to `out` (see
/// [`walk_line`]); returns `false`, appending nothing, when either hex is off
/// the grid.
pub fn los_trace(grid: &Grid, from: Hex, to: Hex, out: &mut Vec<LosStep>) -> bool {
    if !grid.contains(from) || !grid.contains(to) {
        return false;
    }
    walk_line(grid, from, to, |st| {
        out.push(st);
        true
    })
    .is_some()
}

/// Line of sight from the centre of `from` to the centre of `to`.
///
/// The end hexes never block. Going from `from`, the first of these blocks:
/// an intermediate hex for which `blocks_hex` is true; a crossed hexside for
/// which `blocks_side` is true (this includes the sides of the end hexes the
/// line crosses: a rule such as "entrenchments block unless they are a side of
/// either end hex" belongs in the caller's closure, e.g. with
/// [`Grid::hexside_hexes`]); a hexside the line runs exactly along, when
/// `blocks_side` is true for it or `blocks_hex` is true for both hexes either
/// side of it (an off-map hex never blocks, and is never passed to
/// `blocks_hex`). Hexes merely touched at a corner are not consulted.
///
/// Whether the result is clear is symmetric in `from` and `to`. `None` when
/// either hex is off the grid. Allocation-free.
pub fn line_of_sight(
    grid: &Grid,
    from: Hex,
    to: Hex,
    mut blocks_hex: impl FnMut(Hex) -> bool,
    mut blocks_side: impl FnMut(Hexside) -> bool,
) -> Option<Los> {
    let mut result = Los::Clear;
    walk_line(grid, from, to, |st| {
        match st {
            LosStep::Hex(h) => {
                if h != from && h != to && blocks_hex(h) {
                    result = Los::Hex(h);
                }
            }
            LosStep::Cross(side) => {
                if blocks_side(side) {
                    result = Los::Side(side);
                }
            }
            LosStep::Along { side, hexes } => {
                let both = match hexes {
                    [Some(a), Some(b)] => {
                        let end = |h: Hex| h == from || h == to;
                        !end(a) && !end(b) && blocks_hex(a) && blocks_hex(b)
                    }
                    _ => false,
                };
                if blocks_side(side) || both {
                    result = Los::AlongSide { side, hexes };
                }
            }
        }
        result.is_clear()
    })?;
    Some(result)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::Layout;

    /// Every densely sampled point of the segment lies in a hex or on a side
    /// that the trace reports, and the trace alternates hexes and sides.
    #[test]
    fn trace_agrees_with_dense_sampling() {
        for layout in [Layout::OddColumnsDown, Layout::EvenColumnsDown] {
            let g = Grid::new(7, 7, 1, 1, layout).unwrap();
            let mut trace = Vec::new();
            for a in g.hexes() {
                for b in g.hexes() {
                    trace.clear();
                    assert!(los_trace(&g, a, b, &mut trace));
                    let (ac, ar) = g.offset(a).unwrap();
                    let (bc, br) = g.offset(b).unwrap();
                    let (ax, az) = g.axial(ac, ar);
                    let (bx, bz) = g.axial(bc, br);
                    let (dx, dz) = (i128::from(bx - ax), i128::from(bz - az));
                    let k_total: i128 = 2520;
                    for k in 1..k_total {
                        let x = i128::from(ax) * k_total + dx * k;
                        let z = i128::from(az) * k_total + dz * k;
                        let y = -x - z;
                        let is_vertex = (x - y) % k_total == 0 && (y - z) % k_total == 0;
                        if is_vertex {
                            continue;
                        }
                        let ok = match classify(&g, x, z, k_total) {
                            Elem::In(hx, hz) => {
                                let (c, r) = g.axial_to_offset(hx, hz);
                                let h = g.at(c, r).unwrap();
                                trace.contains(&LosStep::Hex(h))
                            }
                            Elem::On(side) => trace.iter().any(|st| match st {
                                LosStep::Cross(s) => *s == side,
                                LosStep::Along { side: s, .. } => *s == side,
                                LosStep::Hex(_) => false,
                            }),
                        };
                        assert!(ok, "{a:?}->{b:?} sample {k}: {trace:?}");
                    }
                    assert_eq!(trace.first(), Some(&LosStep::Hex(a)));
                    assert_eq!(trace.last(), Some(&LosStep::Hex(b)));
                    for w in trace.windows(3) {
                        if let [LosStep::Hex(p), LosStep::Cross(s), LosStep::Hex(n)] = w {
                            assert_eq!(g.hexside_between(*p, *n), Some(*s));
                        }
                    }
                    for w in trace.windows(2) {
                        let hexish = |s: &LosStep| matches!(s, LosStep::Hex(_));
                        assert!(hexish(&w[0]) != hexish(&w[1]), "{trace:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn classify_finds_containing_hex() {
        let g = Grid::new(9, 9, 0, 0, Layout::OddColumnsDown).unwrap();
        let s: i128 = 12;
        for x in 10..80i128 {
            for z in -30..60i128 {
                let y = -x - z;
                let e = classify(&g, x, z, s);
                // Points on a side off the extended map classify as `In`; the
                // rounded hex must contain the point in every case.
                if let Elem::In(hx, hz) = e {
                    let (hx, hz) = (i128::from(hx), i128::from(hz));
                    let hy = -hx - hz;
                    assert!(((x - y) - s * (hx - hy)).abs() <= s);
                    assert!(((y - z) - s * (hy - hz)).abs() <= s);
                    assert!(((z - x) - s * (hz - hx)).abs() <= s);
                }
            }
        }
    }
}
