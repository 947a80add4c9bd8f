//! Property tests: metric laws, adjacency and hexside symmetry, line-of-sight
//! symmetry, movement bounds and monotonicity, retreat path shape.

use proptest::prelude::*;

use kriegsspiel_geo::*;

/// A random small grid, a few hex picks and a random per-hex bit pattern.
fn setup() -> impl Strategy<Value = (Grid, Vec<u32>, Vec<u8>)> {
    (1u16..14, 1u16..14, 0u16..4, 0u16..4, any::<bool>()).prop_flat_map(|(c, r, fc, fr, odd)| {
        let layout = if odd { Layout::OddColumnsDown } else { Layout::EvenColumnsDown };
        let g = Grid::new(c, r, fc, fr, layout).unwrap();
        let n = g.hex_count();
        (Just(g), proptest::collection::vec(0..n, 3), proptest::collection::vec(0u8..8, n as usize))
    })
}

fn pick(g: &Grid, picks: &[u32], i: usize) -> Hex {
    Hex(picks[i] % g.hex_count())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn distance_is_a_metric((g, p, _) in setup()) {
        let (a, b, c) = (pick(&g, &p, 0), pick(&g, &p, 1), pick(&g, &p, 2));
        prop_assert_eq!(g.distance(a, b), g.distance(b, a));
        prop_assert!(g.distance(a, c) <= g.distance(a, b) + g.distance(b, c));
        prop_assert_eq!(g.distance(a, a), 0);
        prop_assert_eq!(g.distance(a, b) == 0, a == b);
    }

    #[test]
    fn neighbours_and_directions((g, p, _) in setup()) {
        let a = pick(&g, &p, 0);
        let ring: Vec<Hex> = g.ring(a, 1).collect();
        let mut ns: Vec<Hex> = g.neighbours(a).into_iter().flatten().collect();
        ns.sort();
        prop_assert_eq!(ns, ring);
        for d in DIRECTIONS {
            prop_assert_eq!(g.neighbour(a, d), g.neighbours(a)[d as usize]);
            let side = g.hexside(a, d).unwrap();
            let pair = g.hexside_hexes(side).unwrap();
            prop_assert!(pair.contains(&Some(a)));
            if let Some(b) = g.neighbour(a, d) {
                prop_assert_eq!(g.distance(a, b), 1);
                prop_assert_eq!(g.direction(a, b), Some(d));
                prop_assert_eq!(g.direction(b, a), Some(opposite(d)));
                prop_assert_eq!(g.neighbour(b, opposite(d)), Some(a));
                prop_assert_eq!(g.hexside(b, opposite(d)), Some(side));
                prop_assert!(pair.contains(&Some(b)));
            } else {
                prop_assert!(!g.exit_edges(a, d).is_empty());
                prop_assert!(pair.contains(&None));
            }
        }
        let id = g.format_id(a).unwrap();
        prop_assert_eq!(g.parse_id(&id), Some(a));
    }

    #[test]
    fn line_of_sight_is_symmetric((g, p, bits) in setup()) {
        let (a, b) = (pick(&g, &p, 0), pick(&g, &p, 1));
        let bh = |h: Hex| bits[h.index()] & 1 == 1;
        let bs = |s: Hexside| matches!((s.0.wrapping_mul(2_654_435_761) >> 7) % 9, 0) && bits[0] & 2 == 2;
        let ab = line_of_sight(&g, a, b, bh, bs).unwrap();
        let ba = line_of_sight(&g, b, a, bh, bs).unwrap();
        prop_assert_eq!(ab.is_clear(), ba.is_clear());
        let (mut f, mut r) = (Vec::new(), Vec::new());
        los_trace(&g, a, b, &mut f);
        los_trace(&g, b, a, &mut r);
        r.reverse();
        prop_assert_eq!(&f, &r);
        // Consecutive hexes in the trace are adjacent; the trace is as long as
        // the distance at least.
        let hexes: Vec<Hex> = f.iter().filter_map(|s| match s {
            LosStep::Hex(h) => Some(*h),
            _ => None,
        }).collect();
        prop_assert!(hexes.len() as u32 >= g.distance(a, b).div_ceil(2));
        for st in &f {
            if let LosStep::Hex(h) = st {
                prop_assert!(g.distance(a, *h) <= g.distance(a, b));
            }
        }
    }

    /// The flat neighbour table is `neighbours` of every hex, in index order.
    #[test]
    fn neighbour_table_is_neighbours((g, _, _) in setup()) {
        let t = g.neighbour_table();
        prop_assert_eq!(t.len(), g.hex_count() as usize * 6);
        for h in 0..g.hex_count() {
            for (d, n) in g.neighbours(Hex(h)).into_iter().enumerate() {
                prop_assert_eq!(t[h as usize * 6 + d], n.map(|x| x.0).unwrap_or(u32::MAX));
            }
        }
    }

    /// The bucket queue pops exactly as the binary heap does: the same reached hexes,
    /// costs and predecessors, and the same calls of the cost and stop closures in the
    /// same order (the rulebook's hooks are called through them), with free steps,
    /// prohibited steps, stopping hexes and a minimum step.
    #[test]
    fn bucket_queue_is_the_heap((g, p, bits) in setup(), allowance in -1i32..12, min_step in 0i32..2, salt in 0u32..5) {
        let a = pick(&g, &p, 0);
        let step = |f: Hex, t: Hex| match (bits[t.index()] as u32 + f.0 * salt) % 6 {
            0 => None,
            v => Some(i32::from(v as u8 % 3) - 1 + min_step),
        };
        let run = |heap: bool| {
            let mut calls = Vec::new();
            let mut stops = Vec::new();
            let mut out = Vec::new();
            let mut sc = Scratch::new();
            let cost = |f: Hex, t: Hex, d: u8| {
                calls.push((f, t, d));
                step(f, t)
            };
            let stop = |h: Hex| {
                stops.push(h);
                bits[h.index()] == 7
            };
            let ok = if heap {
                reachable_bounded_into_heap(&g, a, allowance, min_step, cost, stop, &mut sc, &mut out)
            } else {
                reachable_bounded_into(&g, a, allowance, min_step, cost, stop, &mut sc, &mut out)
            };
            (ok, out, calls, stops)
        };
        prop_assert_eq!(run(false), run(true));
    }

    #[test]
    fn reachable_bounds_and_monotone((g, p, bits) in setup(), allowance in 0i32..8) {
        let a = pick(&g, &p, 0);
        let cost = |_: Hex, t: Hex, _: u8| match bits[t.index()] {
            0 => None,
            v => Some(i32::from(v % 3) + 1),
        };
        let stop = |h: Hex| bits[h.index()] == 7;
        let mut sc = Scratch::new();
        let small = reachable(&g, a, allowance, cost, stop, &mut sc);
        let big = reachable(&g, a, allowance + 1, cost, stop, &mut sc);
        prop_assert!(small.windows(2).all(|w| w[0].hex < w[1].hex));
        for r in &small {
            prop_assert!(r.spent <= allowance || r.hex == a);
            let other = big.iter().find(|x| x.hex == r.hex);
            prop_assert!(other.is_some());
            prop_assert_eq!(other.unwrap().spent, r.spent);
            let path = path_to(&small, r.hex).unwrap();
            prop_assert_eq!(path[0], a);
            let mut spent = 0;
            for w in path.windows(2) {
                prop_assert_eq!(g.distance(w[0], w[1]), 1);
                prop_assert!(w[0] == a || !stop(w[0]));
                spent += cost(w[0], w[1], 0).unwrap();
            }
            prop_assert_eq!(spent, r.spent);
        }
        // Optimality: no single step from a reached, expandable hex improves
        // any hex.
        for r in &small {
            if r.hex != a && stop(r.hex) {
                continue;
            }
            for (d, n) in g.neighbours(r.hex).into_iter().enumerate() {
                let (Some(n), Some(c)) = (n, n.and_then(|n| cost(r.hex, n, d as u8))) else {
                    continue;
                };
                if r.spent + c <= allowance {
                    let got = small.iter().find(|x| x.hex == n);
                    prop_assert!(got.is_some_and(|x| x.spent <= r.spent + c));
                }
            }
        }
    }

    #[test]
    fn retreat_paths_are_simple_and_contiguous((g, p, bits) in setup(), len in 0u32..5) {
        let a = pick(&g, &p, 0);
        let may_enter = |_: Hex, t: Hex, _: u32| bits[t.index()] != 0;
        let may_exit = |_: Hex, d: u8| d & 1 == 0;
        let mut seen = Vec::new();
        let n = for_each_retreat_path(&g, a, len, may_enter, may_exit, |path, exit| {
            seen.push((path.to_vec(), exit));
        }).unwrap();
        prop_assert_eq!(n as usize, seen.len());
        for (path, exit) in &seen {
            match exit {
                None => prop_assert_eq!(path.len() as u32, len),
                Some(d) => {
                    prop_assert!((path.len() as u32) < len);
                    let last = path.last().copied().unwrap_or(a);
                    prop_assert_eq!(g.neighbour(last, *d), None);
                }
            }
            let mut prev = a;
            for (i, h) in path.iter().enumerate() {
                prop_assert_eq!(g.distance(prev, *h), 1);
                prop_assert!(*h != a && !path[..i].contains(h));
                prop_assert!(bits[h.index()] != 0);
                prev = *h;
            }
        }
        let key = |path: &[Hex], exit: Option<u8>| {
            let end = path.last().copied().unwrap_or(a);
            (exit.is_some(), g.distance(end, Hex(0)), path.len())
        };
        let best = retreat(&g, a, len, may_enter, may_exit, key);
        let brute = seen
            .iter()
            .map(|(p, x)| (key(p, *x), std::cmp::Reverse((p.clone(), *x))))
            .max();
        match (best, brute) {
            (None, None) => {}
            (Some(b), Some((k, std::cmp::Reverse((bp, bx))))) => {
                prop_assert_eq!(&b.hexes, &bp);
                prop_assert_eq!(b.exit, bx);
                prop_assert_eq!(b.candidates, n);
                let ties = seen.iter().filter(|(p, x)| key(p, *x) == k).count();
                prop_assert_eq!(b.tied as usize, ties);
            }
            (x, y) => prop_assert!(false, "{:?} vs {:?}", x, y),
        }
    }
}
