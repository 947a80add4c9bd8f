//! Retreat search tests: candidate counts, priority keys, ties, exits off
//! the map and prohibited hexes.

use std::cmp::Reverse;

use kriegsspiel_geo::*;

fn grid() -> Grid {
    Grid::new(10, 10, 1, 1, Layout::OddColumnsDown).unwrap()
}

fn hex(g: &Grid, id: &str) -> Hex {
    g.parse_id(id).unwrap()
}

#[test]
fn candidate_counts() {
    let g = grid();
    let c = hex(&g, "0505");
    let count = |len| for_each_retreat_path(&g, c, len, |_, _, _| true, |_, _| true, |_, _| {}).unwrap();
    assert_eq!(count(0), 1);
    assert_eq!(count(1), 6);
    assert_eq!(count(2), 30);
    assert!(count(3) <= 150 && count(3) > 100);
    assert_eq!(for_each_retreat_path(&g, c, 9, |_, _, _| true, |_, _| true, |_, _| {}), None);
    assert_eq!(for_each_retreat_path(&g, Hex(100), 1, |_, _, _| true, |_, _| true, |_, _| {}), None);
}

#[test]
fn farthest_from_enemy_then_avoid_zoc() {
    let g = grid();
    let start = hex(&g, "0505");
    let enemy = [hex(&g, "0504")];
    let ezoc: Vec<Hex> = g.neighbours(enemy[0]).into_iter().flatten().collect();
    let r = retreat(
        &g,
        start,
        2,
        |_, to, _| !enemy.contains(&to),
        |_, _| false,
        |p, _| {
            let end = *p.last().unwrap();
            let in_zoc = p.iter().filter(|h| ezoc.contains(h)).count();
            (g.nearest_distance(end, &enemy).unwrap(), Reverse(in_zoc))
        },
    )
    .unwrap();
    assert_eq!(r.hexes.len(), 2);
    assert_eq!(g.distance(*r.hexes.last().unwrap(), enemy[0]), 3);
    // Several two-hex retreats end 3 hexes away outside the ZOC; the lowest
    // sequence, through 0406, wins.
    assert_eq!(r.hexes[0], hex(&g, "0406"));
    assert!(r.hexes.iter().all(|h| !ezoc.contains(h)));
    assert!(r.tied > 1);
    assert_eq!(r.exit, None);
    // 5 first steps (not 0504) x 5, less the two second steps into 0504.
    assert_eq!(r.candidates, 23);
}

#[test]
fn ties_go_to_the_lowest_sequence() {
    let g = grid();
    let start = hex(&g, "0505");
    let r = retreat(&g, start, 1, |_, _, _| true, |_, _| true, |_, _| 0u8).unwrap();
    assert_eq!(r.hexes, [hex(&g, "0405")]);
    assert_eq!(r.tied, 6);
    assert_eq!(r.candidates, 6);
}

#[test]
fn retreat_off_the_west_edge() {
    let g = grid();
    let start = hex(&g, "0205");
    let west = |from: Hex, dir: u8| g.exit_edges(from, dir).contains(Edges::WEST);
    let r =
        retreat(&g, start, 3, |_, _, _| true, west, |p, exit| (exit.is_some(), Reverse(p.len()))).unwrap();
    assert_eq!(r.hexes.len(), 1);
    assert_eq!(g.coords(r.hexes[0]).unwrap().0, 1);
    let dir = r.exit.unwrap();
    assert!(g.neighbour(r.hexes[0], dir).is_none());
    assert!(g.exit_edges(r.hexes[0], dir).contains(Edges::WEST));
    // Leaving from the start itself.
    let r = retreat(&g, hex(&g, "0105"), 2, |_, _, _| true, west, |p, x| (x.is_some(), Reverse(p.len())))
        .unwrap();
    assert!(r.hexes.is_empty() && r.exit.is_some());
}

#[test]
fn no_legal_retreat() {
    let g = grid();
    let start = hex(&g, "0101");
    assert_eq!(retreat(&g, start, 2, |_, _, _| false, |_, _| false, |_, _| 0), None);
    // Surrounded except through one hex that is a dead end for length 2.
    let only = hex(&g, "0102");
    let r = retreat(&g, start, 1, |_, to, _| to == only, |_, _| false, |_, _| 0).unwrap();
    assert_eq!(r.hexes, [only]);
}
