//! Unit tests for the grid, ids, directions, edges, hexsides and areas on
//! small hand-checked maps.

use kriegsspiel_geo::*;

fn grid(layout: Layout) -> Grid {
    Grid::new(10, 10, 1, 1, layout).unwrap()
}

fn hex(g: &Grid, id: &str) -> Hex {
    g.parse_id(id).unwrap_or_else(|| panic!("bad id {id}"))
}

fn ids(g: &Grid, hs: impl IntoIterator<Item = Option<Hex>>) -> Vec<String> {
    hs.into_iter().map(|h| h.map_or("-".to_string(), |h| g.format_id(h).unwrap())).collect()
}

#[test]
fn construction_is_validated() {
    assert!(Grid::new(0, 10, 1, 1, Layout::OddColumnsDown).is_none());
    assert!(Grid::new(10, 0, 1, 1, Layout::OddColumnsDown).is_none());
    assert!(Grid::new(10, 10, u16::MAX, 1, Layout::OddColumnsDown).is_none());
    assert!(Grid::new(u16::MAX, u16::MAX, 0, 0, Layout::OddColumnsDown).is_none());
    let g = grid(Layout::OddColumnsDown);
    assert_eq!(g.hex_count(), 100);
    assert_eq!((g.last_col(), g.last_row()), (10, 10));
    assert_eq!((g.col_digits(), g.row_digits()), (2, 2));
    let big = Grid::new(120, 10, 1, 1, Layout::EvenColumnsDown).unwrap();
    assert_eq!((big.col_digits(), big.row_digits()), (3, 2));
    assert!(g.clone().with_id_digits(1, 2).is_none());
    assert_eq!(g.clone().with_id_digits(3, 3).unwrap().col_digits(), 3);
}

#[test]
fn ids_round_trip_and_index_order() {
    let g = grid(Layout::OddColumnsDown);
    assert_eq!(g.parse_id("0101"), Some(Hex(0)));
    assert_eq!(g.parse_id("0110"), Some(Hex(9)));
    assert_eq!(g.parse_id("0201"), Some(Hex(10)));
    assert_eq!(g.parse_id("1010"), Some(Hex(99)));
    assert_eq!(g.coords(Hex(10)), Some((2, 1)));
    for bad in ["", "101", "01010", "0001", "0100", "1101", "0111", "01a1", "+101", "０101"] {
        assert_eq!(g.parse_id(bad), None, "{bad}");
    }
    for h in g.hexes() {
        let s = g.format_id(h).unwrap();
        assert_eq!(g.parse_id(&s), Some(h));
        assert_eq!(format!("{}", g.display(h)), s);
    }
    assert_eq!(g.format_id(Hex(100)), None);
    assert_eq!(format!("{}", g.display(Hex(100))), "#100");
    let mut buf = String::new();
    assert!(g.write_id(Hex(100), &mut buf).is_err());
    g.write_id(Hex(14), &mut buf).unwrap();
    assert_eq!(buf, "0205");

    // Peter the Great style ids, offset numbering and wide grids.
    let p = Grid::new(44, 41, 1, 1, Layout::EvenColumnsDown).unwrap();
    let h = p.parse_id("3824").unwrap();
    assert_eq!(p.coords(h), Some((38, 24)));
    assert_eq!(p.format_id(p.parse_id("0441").unwrap()).unwrap(), "0441");
    let w = Grid::new(150, 20, 0, 0, Layout::OddColumnsDown).unwrap();
    assert_eq!(w.format_id(w.hex_at(7, 3).unwrap()).unwrap(), "00703");
    assert_eq!(w.parse_id("14919"), w.hex_at(149, 19));
    assert_eq!(w.parse_id("0703"), None);
}

#[test]
fn neighbours_odd_columns_down() {
    let g = grid(Layout::OddColumnsDown);
    let n = |id: &str| ids(&g, g.neighbours(hex(&g, id)));
    // Order: N, NE, SE, S, SW, NW.
    assert_eq!(n("0101"), ["-", "0201", "0202", "0102", "-", "-"]);
    assert_eq!(n("0505"), ["0504", "0605", "0606", "0506", "0406", "0405"]);
    assert_eq!(n("0404"), ["0403", "0503", "0504", "0405", "0304", "0303"]);
    assert_eq!(n("1010"), ["1009", "-", "-", "-", "0910", "0909"]);
    assert_eq!(n("0510"), ["0509", "0610", "-", "-", "-", "0410"]);
    assert_eq!(n("1001"), ["-", "-", "-", "1002", "0901", "-"]);
    assert_eq!(n("0201"), ["-", "-", "0301", "0202", "0101", "-"]);
}

#[test]
fn neighbours_even_columns_down() {
    let g = grid(Layout::EvenColumnsDown);
    let n = |id: &str| ids(&g, g.neighbours(hex(&g, id)));
    assert_eq!(n("0101"), ["-", "-", "0201", "0102", "-", "-"]);
    assert_eq!(n("0505"), ["0504", "0604", "0605", "0506", "0405", "0404"]);
    assert_eq!(n("0404"), ["0403", "0504", "0505", "0405", "0305", "0304"]);
    assert_eq!(n("1010"), ["1009", "-", "-", "-", "-", "0910"]);
    assert_eq!(n("1001"), ["-", "-", "-", "1002", "0902", "0901"]);
    assert!(g.is_column_down(2) && !g.is_column_down(1));
}

#[test]
fn neighbour_direction_and_off_grid_inputs() {
    let g = grid(Layout::OddColumnsDown);
    let a = hex(&g, "0505");
    for d in DIRECTIONS {
        let b = g.neighbour(a, d).unwrap();
        assert_eq!(g.direction(a, b), Some(d));
        assert_eq!(g.direction(b, a), Some(opposite(d)));
        assert_eq!(g.distance(a, b), 1);
    }
    assert_eq!(g.neighbour(a, 6), None);
    assert_eq!(g.neighbour(Hex(100), 0), None);
    assert_eq!(g.neighbours(Hex(100)), [None; 6]);
    assert_eq!(g.direction(a, a), None);
    assert_eq!(g.direction(a, hex(&g, "0507")), None);
    assert_eq!(g.coords(Hex(u32::MAX)), None);
    assert_eq!(opposite(NORTH), SOUTH);
    assert_eq!(opposite(NORTH_EAST), SOUTH_WEST);
    assert_eq!(opposite(NORTH_WEST), SOUTH_EAST);
}

#[test]
fn distances() {
    for layout in [Layout::OddColumnsDown, Layout::EvenColumnsDown] {
        let g = grid(layout);
        let d = |a: &str, b: &str| g.distance(hex(&g, a), hex(&g, b));
        assert_eq!(d("0101", "0101"), 0);
        assert_eq!(d("0101", "0110"), 9);
        assert_eq!(d("0101", "1001"), 9);
        assert_eq!(d("0505", "0507"), 2);
    }
    let g = grid(Layout::OddColumnsDown);
    let d = |a: &str, b: &str| g.distance(hex(&g, a), hex(&g, b));
    assert_eq!(d("0101", "0305"), 5);
    assert_eq!(d("0101", "0302"), 2);
    assert_eq!(d("0101", "1010"), 13);
    let e = grid(Layout::EvenColumnsDown);
    assert_eq!(e.distance(hex(&e, "0101"), hex(&e, "0303")), 3);
    // Off-grid indices still give a number, never a panic.
    let _ = g.distance(Hex(u32::MAX), Hex(0));
    let targets = [hex(&g, "0909"), hex(&g, "0103"), hex(&g, "0301")];
    assert_eq!(g.nearest_distance(hex(&g, "0101"), &targets), Some(2));
    // 0103 and 0301 are both at distance 2: the lower index wins.
    assert_eq!(g.nearest(hex(&g, "0101"), &targets), Some((hex(&g, "0103"), 2)));
    assert_eq!(g.nearest_distance(hex(&g, "0101"), &[]), None);
}

#[test]
fn edges() {
    let g = grid(Layout::OddColumnsDown);
    let e = |id: &str| g.edge_of(hex(&g, id));
    assert_eq!(e("0505"), Edges::NONE);
    assert_eq!(e("0101"), Edges::NORTH | Edges::WEST);
    assert_eq!(e("0501"), Edges::NORTH);
    assert_eq!(e("0601"), Edges::NORTH);
    assert_eq!(e("0105"), Edges::WEST);
    assert_eq!(e("1005"), Edges::EAST);
    assert_eq!(e("0510"), Edges::SOUTH);
    assert_eq!(e("1010"), Edges::SOUTH | Edges::EAST);
    // 1001 is in an unshifted column: its north-east step is off both edges.
    let h = hex(&g, "1001");
    assert_eq!(g.exit_edges(h, NORTH_EAST), Edges::NORTH | Edges::EAST);
    assert_eq!(g.exit_edges(h, SOUTH_EAST), Edges::EAST);
    assert_eq!(g.exit_edges(h, SOUTH), Edges::NONE);
    // 0510 is shifted down: south-west leaves by the south edge only.
    assert_eq!(g.exit_edges(hex(&g, "0510"), SOUTH_WEST), Edges::SOUTH);
    assert_eq!(g.exit_edges(Hex(500), NORTH), Edges::NONE);
    assert!(e("1010").contains(Edges::EAST) && !e("1010").contains(Edges::WEST));
    assert!(e("0101").intersects(Edges::WEST | Edges::EAST));
    assert_eq!((Edges::NORTH | Edges::WEST).bits(), 9);
}

#[test]
fn hexsides() {
    for layout in [Layout::OddColumnsDown, Layout::EvenColumnsDown] {
        let g = grid(layout);
        let mut all = Vec::new();
        for h in g.hexes() {
            for d in DIRECTIONS {
                let s = g.hexside(h, d).unwrap();
                assert!(s.0 < g.hexside_count());
                let pair = g.hexside_hexes(s).unwrap();
                let n = g.neighbour(h, d);
                assert!(pair == [Some(h), n] || pair == [n, Some(h)], "{pair:?}");
                if let Some(n) = n {
                    assert_eq!(g.hexside(n, opposite(d)), Some(s));
                    assert_eq!(g.hexside_between(h, n), Some(s));
                    assert_eq!(g.hexside_between(n, h), Some(s));
                }
                let owner_dir = g.hexside_dir(s).unwrap();
                assert!(owner_dir < 3);
                all.push(s);
            }
        }
        all.sort();
        all.dedup();
        // One id per adjacent pair plus one per edge side, all distinct.
        let interior_pairs: usize =
            g.hexes().map(|h| g.neighbours(h).iter().filter(|n| n.is_some()).count()).sum::<usize>() / 2;
        let edge_sides: usize =
            g.hexes().map(|h| g.neighbours(h).iter().filter(|n| n.is_none()).count()).sum();
        assert_eq!(all.len(), interior_pairs + edge_sides);
    }
    let g = grid(Layout::OddColumnsDown);
    let a = hex(&g, "0101");
    let s = g.hexside(a, NORTH).unwrap();
    assert_eq!(g.hexside_hexes(s), Some([Some(a), None]));
    let s = g.hexside(a, SOUTH_WEST).unwrap();
    assert_eq!(g.hexside_hexes(s), Some([None, Some(a)]));
    assert_eq!(g.hexside_between(a, hex(&g, "0103")), None);
    assert_eq!(g.hexside(Hex(100), 0), None);
    assert_eq!(g.hexside(a, 6), None);
    assert_eq!(g.hexside_hexes(Hexside(g.hexside_count())), None);
    assert_eq!(g.hexside_hexes(Hexside(u32::MAX)), None);
    // Id 0 is the north side of the ring hex west of 0100: off the map.
    assert_eq!(g.hexside_hexes(Hexside(0)), None);
}

#[test]
fn within_and_ring() {
    for layout in [Layout::OddColumnsDown, Layout::EvenColumnsDown] {
        let g = grid(layout);
        for h in g.hexes() {
            for r in 0..5u32 {
                let w: Vec<Hex> = g.within(h, r).collect();
                let brute: Vec<Hex> = g.hexes().filter(|&x| g.distance(h, x) <= r).collect();
                assert_eq!(w, brute);
                let ring: Vec<Hex> = g.ring(h, r).collect();
                let brute: Vec<Hex> = g.hexes().filter(|&x| g.distance(h, x) == r).collect();
                assert_eq!(ring, brute);
            }
        }
        let c = hex(&g, "0505");
        assert_eq!(g.within(c, 2).count(), 19);
        assert_eq!(g.ring(c, 3).count(), 18);
        assert_eq!(g.ring(c, 0).collect::<Vec<_>>(), vec![c]);
        assert_eq!(g.within(c, u32::MAX).count(), 100);
        assert_eq!(g.within(Hex(100), 3).count(), 0);
        assert_eq!(g.ring(Hex(100), 3).count(), 0);
    }
}
