//! Line-of-sight tests on hand-checked cases: straight columns, lines along
//! hexsides (7.2.5 B), end hexes (7.2.5 C), crossed hexsides and symmetry.

use kriegsspiel_geo::*;

fn grid() -> Grid {
    Grid::new(10, 10, 1, 1, Layout::OddColumnsDown).unwrap()
}

fn hex(g: &Grid, id: &str) -> Hex {
    g.parse_id(id).unwrap()
}

fn trace(g: &Grid, a: &str, b: &str) -> Vec<LosStep> {
    let mut out = Vec::new();
    assert!(los_trace(g, hex(g, a), hex(g, b), &mut out));
    out
}

fn blocked_by(g: &Grid, a: &str, b: &str, hexes: &[&str], sides: &[Hexside]) -> Los {
    let hs: Vec<Hex> = hexes.iter().map(|id| hex(g, id)).collect();
    line_of_sight(g, hex(g, a), hex(g, b), |h| hs.contains(&h), |s| sides.contains(&s)).unwrap()
}

#[test]
fn straight_down_a_column() {
    let g = grid();
    let h = |id| LosStep::Hex(hex(&g, id));
    let x = |id| LosStep::Cross(g.hexside(hex(&g, id), SOUTH).unwrap());
    assert_eq!(
        trace(&g, "0101", "0104"),
        [h("0101"), x("0101"), h("0102"), x("0102"), h("0103"), x("0103"), h("0104")]
    );
    assert_eq!(blocked_by(&g, "0101", "0104", &["0103"], &[]), Los::Hex(hex(&g, "0103")));
    // The end hexes never block.
    assert!(blocked_by(&g, "0101", "0104", &["0101", "0104"], &[]).is_clear());
    let side = g.hexside(hex(&g, "0102"), SOUTH).unwrap();
    assert_eq!(blocked_by(&g, "0101", "0104", &[], &[side]), Los::Side(side));
}

#[test]
fn along_a_diagonal_axis() {
    let g = grid();
    // 0101 (shifted down) -> south-east 0202 -> south-east 0302.
    let t = trace(&g, "0101", "0302");
    let hexes: Vec<Hex> = t
        .iter()
        .filter_map(|s| match s {
            LosStep::Hex(h) => Some(*h),
            _ => None,
        })
        .collect();
    assert_eq!(hexes, [hex(&g, "0101"), hex(&g, "0202"), hex(&g, "0302")]);
    assert_eq!(t.len(), 5);
}

#[test]
fn along_a_hexside() {
    let g = grid();
    // 0105 and 0305 sit half a hex lower than column 2: the line runs exactly
    // along the side between 0205 and 0206.
    let side = g.hexside_between(hex(&g, "0205"), hex(&g, "0206")).unwrap();
    let along = LosStep::Along { side, hexes: [Some(hex(&g, "0206")), Some(hex(&g, "0205"))] };
    assert_eq!(
        trace(&g, "0105", "0305"),
        [LosStep::Hex(hex(&g, "0105")), along, LosStep::Hex(hex(&g, "0305"))]
    );
    // 7.2.5 B: one blocking hex is not enough; both, or the side, block.
    assert!(blocked_by(&g, "0105", "0305", &["0205"], &[]).is_clear());
    assert!(blocked_by(&g, "0105", "0305", &["0206"], &[]).is_clear());
    let both = blocked_by(&g, "0105", "0305", &["0205", "0206"], &[]);
    assert_eq!(both, Los::AlongSide { side, hexes: [Some(hex(&g, "0206")), Some(hex(&g, "0205"))] });
    assert!(!blocked_by(&g, "0105", "0305", &[], &[side]).is_clear());
    // Further along the same line: 0205|0206, 0305, 0405|0406.
    let t = trace(&g, "0105", "0505");
    assert_eq!(t.len(), 5);
    assert_eq!(t[2], LosStep::Hex(hex(&g, "0305")));
    assert_eq!(blocked_by(&g, "0105", "0505", &["0305"], &[]), Los::Hex(hex(&g, "0305")));
}

#[test]
fn along_the_map_edge() {
    let g = grid();
    // 0201 and 0401 (unshifted) look along the top side of 0301, whose
    // other hex is off the map: it never blocks.
    let t = trace(&g, "0201", "0401");
    let side = g.hexside(hex(&g, "0301"), NORTH).unwrap();
    assert_eq!(t[1], LosStep::Along { side, hexes: [Some(hex(&g, "0301")), None] });
    assert!(blocked_by(&g, "0201", "0401", &["0301"], &[]).is_clear());
}

#[test]
fn adjacent_and_same_hex() {
    let g = grid();
    let a = hex(&g, "0505");
    let b = hex(&g, "0506");
    let s = g.hexside_between(a, b).unwrap();
    assert_eq!(trace(&g, "0505", "0506"), [LosStep::Hex(a), LosStep::Cross(s), LosStep::Hex(b)]);
    assert_eq!(trace(&g, "0505", "0505"), [LosStep::Hex(a)]);
    assert!(blocked_by(&g, "0505", "0505", &["0505"], &[]).is_clear());
    assert_eq!(line_of_sight(&g, a, Hex(100), |_| true, |_| true), None);
    let mut out = Vec::new();
    assert!(!los_trace(&g, Hex(100), a, &mut out));
    assert!(out.is_empty());
}

#[test]
fn entrenchment_rule_in_the_closure() {
    // 7.2.4 B: an entrenchment side blocks only if it is not a side of either
    // end hex; the caller expresses that with hexside_hexes.
    let g = grid();
    let (a, b) = (hex(&g, "0101"), hex(&g, "0104"));
    let first = g.hexside(a, SOUTH).unwrap();
    let middle = g.hexside(hex(&g, "0102"), SOUTH).unwrap();
    let los = |ent: Hexside| {
        line_of_sight(
            &g,
            a,
            b,
            |_| false,
            |s| s == ent && !g.hexside_hexes(s).unwrap().iter().any(|h| *h == Some(a) || *h == Some(b)),
        )
        .unwrap()
    };
    assert!(los(first).is_clear());
    assert_eq!(los(middle), Los::Side(middle));
}

#[test]
fn reversed_trace_is_reversed() {
    for layout in [Layout::OddColumnsDown, Layout::EvenColumnsDown] {
        let g = Grid::new(12, 9, 3, 2, layout).unwrap();
        let (mut f, mut r) = (Vec::new(), Vec::new());
        for a in g.hexes() {
            for b in g.hexes() {
                f.clear();
                r.clear();
                los_trace(&g, a, b, &mut f);
                los_trace(&g, b, a, &mut r);
                r.reverse();
                assert_eq!(f, r);
            }
        }
    }
}

#[test]
fn walk_can_stop_early() {
    let g = grid();
    let mut n = 0;
    let done = walk_line(&g, hex(&g, "0101"), hex(&g, "0110"), |_| {
        n += 1;
        n < 3
    });
    assert_eq!(done, Some(false));
    assert_eq!(n, 3);
}
