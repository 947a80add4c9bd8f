//! Lowering the map: grid, terrain per hex, hexside features, regions, exit edges.

use crate::env::Env;
use kriegsspiel_dsl::ast::{HexItem, HexLit, Map, SideItem};
use kriegsspiel_dsl::Diagnostic;
use kriegsspiel_geo::{Grid, Hex, Layout};
use kriegsspiel_runtime::program::{MapDef, RegionDef};

/// Grid dimensions, known before bodies are compiled (for `@0412` literals).
#[derive(Clone, Copy, Debug, Default)]
pub struct Dims {
    pub cols: u16,
    pub rows: u16,
    pub even_down: bool,
}

impl Dims {
    pub fn grid(&self) -> Option<Grid> {
        let layout = if self.even_down { Layout::EvenColumnsDown } else { Layout::OddColumnsDown };
        Grid::new(self.cols, self.rows, 1, 1, layout)
    }
}

/// Dense index of a hex id, if it is on the map.
pub fn parse_hex(d: &Dims, id: &str) -> Option<u32> {
    d.grid()?.parse_id(id).map(|h| h.0)
}

fn hex(d: &Dims, l: &HexLit, diags: &mut Vec<Diagnostic>, para: &str) -> Option<u32> {
    let h = parse_hex(d, &l.text);
    if h.is_none() {
        diags.push(
            Diagnostic::error(
                "E0503",
                l.span,
                format!("hex {} is not on the map ({} x {})", l.text, d.cols, d.rows),
            )
            .with_paragraph(para),
        );
    }
    h
}

fn hexes(d: &Dims, items: &[HexItem], diags: &mut Vec<Diagnostic>, para: &str) -> Vec<u32> {
    let mut out = Vec::new();
    let Some(grid) = d.grid() else { return out };
    for it in items {
        match it {
            HexItem::One(l) => out.extend(hex(d, l, diags, para)),
            HexItem::Rect(a, b) => {
                let (Some(ha), Some(hb)) = (hex(d, a, diags, para), hex(d, b, diags, para)) else { continue };
                let (Some((c1, r1)), Some((c2, r2))) = (grid.coords(Hex(ha)), grid.coords(Hex(hb))) else {
                    continue;
                };
                for c in c1.min(c2)..=c1.max(c2) {
                    for r in r1.min(r2)..=r1.max(r2) {
                        if let Some(h) = grid.hex_at(c, r) {
                            out.push(h.0);
                        }
                    }
                }
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Build the runtime map. Terrain and hexside names must already be in `env`.
pub fn lower(env: &mut Env, m: &Map, para: &str, diags: &mut Vec<Diagnostic>) -> MapDef {
    let Some(g) = m.grid else {
        diags.push(Diagnostic::error("E0506", m.span, "the map has no `grid` clause").with_paragraph(para));
        return MapDef::default();
    };
    if g.cols < 1 || g.rows < 1 || g.cols > 999 || g.rows > 999 {
        diags.push(
            Diagnostic::error("E0506", g.span, "grid size must be between 1 and 999").with_paragraph(para),
        );
        return MapDef::default();
    }
    let d = Dims { cols: g.cols as u16, rows: g.rows as u16, even_down: g.even_down };
    env.map_dims = d;
    let Some(grid) = d.grid() else { return MapDef::default() };
    let n = grid.hex_count() as usize;
    let mut def_t = 0u16;
    if let Some(dt) = &m.default_terrain {
        match env.terrains.iter().position(|t| t == &dt.name) {
            Some(i) => {
                def_t = i as u16;
                env.used.insert(dt.name.clone());
            }
            None => diags.push(
                Diagnostic::error("E0111", dt.span, format!("unknown terrain `{}`", dt.name))
                    .with_paragraph(para),
            ),
        }
    }
    let mut terrain = vec![def_t; n];
    for (name, items) in &m.terrain {
        let Some(t) = env.terrains.iter().position(|x| x == &name.name) else {
            diags.push(
                Diagnostic::error("E0111", name.span, format!("unknown terrain `{}`", name.name))
                    .with_paragraph(para),
            );
            continue;
        };
        env.used.insert(name.name.clone());
        for h in hexes(&d, items, diags, para) {
            terrain[h as usize] = t as u16;
        }
    }
    let mut sides = vec![0u32; n * 6];
    for (name, items) in &m.hexsides {
        let Some(f) = env.hexsides.iter().position(|x| x == &name.name) else {
            diags.push(
                Diagnostic::error("E0111", name.span, format!("unknown hexside feature `{}`", name.name))
                    .with_paragraph(para),
            );
            continue;
        };
        env.used.insert(name.name.clone());
        let bit = 1u32 << (f.min(31));
        let mut mark = |a: &HexLit, b: &HexLit, diags: &mut Vec<Diagnostic>| {
            let (Some(ha), Some(hb)) = (hex(&d, a, diags, para), hex(&d, b, diags, para)) else { return };
            match (grid.direction(Hex(ha), Hex(hb)), grid.direction(Hex(hb), Hex(ha))) {
                (Some(da), Some(db)) => {
                    sides[ha as usize * 6 + da as usize] |= bit;
                    sides[hb as usize * 6 + db as usize] |= bit;
                }
                _ => diags.push(
                    Diagnostic::error(
                        "E0504",
                        a.span.to(b.span),
                        format!("hexes {} and {} are not adjacent", a.text, b.text),
                    )
                    .with_paragraph(para),
                ),
            }
        };
        for it in items {
            match it {
                SideItem::Pair(a, b) => mark(a, b, diags),
                SideItem::Path(hs) => {
                    for w in hs.windows(2) {
                        mark(&w[0], &w[1], diags);
                    }
                }
            }
        }
    }
    let mut regions = Vec::new();
    for (name, items) in &m.regions {
        regions.push(RegionDef { name: name.name.clone(), hexes: hexes(&d, items, diags, para) });
    }
    let mut exit_edges = 0u8;
    for e in &m.exit_edges {
        let bit = match e.name.as_str() {
            "north" => 1,
            "east" => 2,
            "south" => 4,
            "west" => 8,
            other => {
                diags.push(
                    Diagnostic::error(
                        "E0506",
                        e.span,
                        format!("unknown map edge `{other}` (north, east, south, west)"),
                    )
                    .with_paragraph(para),
                );
                0
            }
        };
        exit_edges |= bit;
    }
    MapDef {
        title: m.title.clone(),
        cols: d.cols,
        rows: d.rows,
        even_down: d.even_down,
        terrain,
        sides,
        regions,
        exit_edges,
        para: 0,
    }
}
