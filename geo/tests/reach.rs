//! Movement search tests: uniform costs, prohibited steps, stopping hexes,
//! half-point road costs, deterministic predecessors and route rebuilding.

use kriegsspiel_geo::*;

fn grid() -> Grid {
    Grid::new(10, 10, 1, 1, Layout::OddColumnsDown).unwrap()
}

fn hex(g: &Grid, id: &str) -> Hex {
    g.parse_id(id).unwrap()
}

#[test]
fn uniform_cost_matches_distance() {
    let g = grid();
    let mut sc = Scratch::new();
    let c = hex(&g, "0505");
    let r = reachable(&g, c, 2, |_, _, _| Some(1), |_| false, &mut sc);
    let want: Vec<Hex> = g.within(c, 2).collect();
    assert_eq!(r.iter().map(|x| x.hex).collect::<Vec<_>>(), want);
    for x in &r {
        assert_eq!(x.spent as u32, g.distance(c, x.hex));
        assert_eq!(sc.spent(x.hex), Some(x.spent));
    }
    assert_eq!(r.iter().find(|x| x.hex == c).unwrap().prev, None);
    assert_eq!(sc.spent(hex(&g, "0909")), None);
}

#[test]
fn start_always_included() {
    let g = grid();
    let mut sc = Scratch::new();
    let c = hex(&g, "0101");
    let r = reachable(&g, c, 0, |_, _, _| Some(1), |_| false, &mut sc);
    assert_eq!(r, [Reach { hex: c, spent: 0, prev: None }]);
    let r = reachable(&g, c, -5, |_, _, _| Some(1), |_| true, &mut sc);
    assert_eq!(r.len(), 1);
    assert!(reachable(&g, Hex(100), 5, |_, _, _| Some(1), |_| false, &mut sc).is_empty());
}

#[test]
fn prohibited_steps_force_a_detour() {
    let g = grid();
    let mut sc = Scratch::new();
    let a = hex(&g, "0505");
    let wall = [hex(&g, "0506"), hex(&g, "0406"), hex(&g, "0606")];
    let cost = |_: Hex, to: Hex, _: u8| if wall.contains(&to) { None } else { Some(1) };
    let r = reachable(&g, a, 10, cost, |_| false, &mut sc);
    let target = hex(&g, "0507");
    let t = r.iter().find(|x| x.hex == target).unwrap();
    // Round the wall: 0605, 0705, 0706, 0607, 0507.
    assert_eq!(t.spent, 5);
    let p = path_to(&r, target).unwrap();
    assert_eq!(p.first(), Some(&a));
    assert_eq!(p.last(), Some(&target));
    assert_eq!(p.len(), 6);
    for w in p.windows(2) {
        assert_eq!(g.distance(w[0], w[1]), 1);
        assert!(!wall.contains(&w[1]));
    }
    assert!(r.iter().all(|x| !wall.contains(&x.hex)));
    assert_eq!(path_to(&r, wall[0]), None);
    assert_eq!(path_to(&r, a), Some(vec![a]));
}

#[test]
fn stop_on_enter_is_reached_but_not_expanded() {
    let g = grid();
    let mut sc = Scratch::new();
    let a = hex(&g, "0101");
    let zoc = hex(&g, "0102");
    let r = reachable(&g, a, 3, |_, _, _| Some(1), |h| h == zoc || h == a, &mut sc);
    assert!(r.iter().any(|x| x.hex == zoc));
    // 0103 is reached round 0102 (0201, 0202, 0103), not through it.
    let via = r.iter().find(|x| x.hex == hex(&g, "0103")).unwrap();
    assert_eq!(via.spent, 3);
    assert_ne!(via.prev, Some(zoc));
    assert!(r.iter().all(|x| x.prev != Some(zoc)));
}

#[test]
fn half_point_roads_in_doubled_units() {
    // A road down column 1: 1/2 MP per road step, 1 MP otherwise; doubled.
    let g = grid();
    let mut sc = Scratch::new();
    let col1 = |h: Hex| g.coords(h).unwrap().0 == 1;
    let cost = |f: Hex, t: Hex, _: u8| Some(if col1(f) && col1(t) { 1 } else { 2 });
    let r = reachable(&g, hex(&g, "0101"), 2 * 4, cost, |_| false, &mut sc);
    let far = r.iter().find(|x| x.hex == hex(&g, "0109")).unwrap();
    assert_eq!(far.spent, 8);
    assert!(r.iter().all(|x| x.spent <= 8));
    assert!(!r.iter().any(|x| x.hex == hex(&g, "0110")));
}

#[test]
fn ties_pick_lowest_predecessor() {
    let g = grid();
    let mut sc = Scratch::new();
    let a = hex(&g, "0505");
    let r = reachable(&g, a, 2, |_, _, _| Some(1), |_| false, &mut sc);
    // 0507 is reachable at 2 via 0506 only; 0604 via 0504 or 0605.
    let x = r.iter().find(|x| x.hex == hex(&g, "0604")).unwrap();
    assert_eq!(x.prev, Some(hex(&g, "0504")));
    // Negative costs count as zero; repeated runs reuse the scratch.
    for _ in 0..3 {
        let r2 = reachable(&g, a, 0, |_, _, _| Some(-3), |_| false, &mut sc);
        assert_eq!(r2.len(), 100);
    }
    let mut out = vec![Reach { hex: a, spent: 9, prev: None }];
    assert!(reachable_into(&g, a, 2, |_, _, _| Some(1), |_| false, &mut sc, &mut out));
    assert_eq!(out, r);
}

/// With a true lower bound on step costs, the bounded search skips steps that cannot
/// matter and returns exactly what the plain search returns (hexes, costs, routes).
#[test]
fn bounded_search_equals_plain_search() {
    let g = Grid::new(14, 12, 1, 1, Layout::EvenColumnsDown).unwrap();
    // A deterministic patchwork of step costs between 1 and 4, some prohibited.
    let cost_of = |a: Hex, b: Hex| -> Option<i32> {
        let k = (a.0 * 31 + b.0 * 17) % 11;
        if k == 0 {
            None
        } else {
            Some(1 + (k as i32 % 4))
        }
    };
    for start in [0u32, 17, 40, 83, 120] {
        for allowance in [0, 1, 3, 6, 10] {
            let mut sc = Scratch::new();
            let plain = reachable(&g, Hex(start), allowance, |a, b, _| cost_of(a, b), |_| false, &mut sc);
            let mut calls_bounded = 0;
            let mut bounded = Vec::new();
            reachable_bounded_into(
                &g,
                Hex(start),
                allowance,
                1,
                |a, b, _| {
                    calls_bounded += 1;
                    cost_of(a, b)
                },
                |_| false,
                &mut sc,
                &mut bounded,
            );
            assert_eq!(plain, bounded, "start {start} allowance {allowance}");
            let mut calls_plain = 0;
            let _ = reachable(
                &g,
                Hex(start),
                allowance,
                |a, b, _| {
                    calls_plain += 1;
                    cost_of(a, b)
                },
                |_| false,
                &mut sc,
            );
            assert!(calls_bounded <= calls_plain);
        }
    }
}
