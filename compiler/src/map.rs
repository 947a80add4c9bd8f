//! Lowering the map: a hex grid (terrain per hex, hexside features, regions, exit
//! edges, the printed id scheme) or an area map (named areas with terrain and
//! attributes, borders with kinds, regions).

use crate::env::Env;
use kriegsspiel_dsl::ast::{HexItem, HexLit, LiteralKind, Map, SideItem};
use kriegsspiel_dsl::Diagnostic;
use kriegsspiel_geo::{Graph, Grid, Hex, Layout};
use kriegsspiel_runtime::program::{IdScheme, MapDef, RegionDef};

/// What literals need of the map, known before bodies are compiled (for `@0412` and
/// `@Paris` literals): the grid dimensions and id scheme, or the area names.
#[derive(Clone, Debug, Default)]
pub struct Dims {
    pub cols: u16,
    pub rows: u16,
    pub even_down: bool,
    pub scheme: IdScheme,
    /// The areas of an area map, in order (empty on a hex map).
    pub areas: Vec<String>,
}

impl Dims {
    pub fn grid(&self) -> Option<Grid> {
        let layout = if self.even_down { Layout::EvenColumnsDown } else { Layout::OddColumnsDown };
        Grid::new(self.cols, self.rows, 1, 1, layout)
    }
}

/// Dense index of a space written as `id`: a hex id in the map's scheme, or an area's name.
pub fn parse_hex(d: &Dims, id: &str) -> Option<u32> {
    if !d.areas.is_empty() {
        return d.areas.iter().position(|a| a == id).map(|i| i as u32);
    }
    let grid = d.grid()?;
    let b = id.as_bytes();
    let (cw, rw) = (usize::from(grid.col_digits()), usize::from(grid.row_digits()));
    if b.len() != cw + rw || !b.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let num = |s: &str| s.parse::<u32>().ok();
    let (c, r) = if d.scheme.row_first {
        (num(&id[rw..])?, num(&id[..rw])?)
    } else {
        (num(&id[..cw])?, num(&id[cw..])?)
    };
    // Printed numbers to the grid's (numbered from 1).
    let c = (c + 1).checked_sub(u32::from(d.scheme.first_col))?;
    let r = (r + 1).checked_sub(u32::from(d.scheme.first_row))?;
    grid.hex_at(u16::try_from(c).ok()?, u16::try_from(r).ok()?).map(|h| h.0)
}

/// The code and message for a space literal `text` that [`parse_hex`] did not resolve.
pub fn space_error(d: &Dims, text: &str) -> (&'static str, String) {
    let digits = text.bytes().all(|b| b.is_ascii_digit());
    if !d.areas.is_empty() {
        if digits {
            return ("E0509", format!("{text} is a hex id, but the map is an area map: name an area"));
        }
        let mut m = format!("no area `{text}` on the map");
        if let Some(s) = crate::env::suggest(text, d.areas.iter().map(|a| a.as_str())) {
            m.push_str(&format!(" (did you mean `{s}`?)"));
        }
        return ("E0503", m);
    }
    if !digits {
        return (
            "E0503",
            format!("`{text}` is not a hex id (the map is a hex grid; only area maps name their spaces)"),
        );
    }
    ("E0503", format!("hex {text} is not on the map ({} x {})", d.cols, d.rows))
}

fn hex(d: &Dims, l: &HexLit, diags: &mut Vec<Diagnostic>, para: &str) -> Option<u32> {
    let h = parse_hex(d, &l.text);
    if h.is_none() {
        let (code, msg) = space_error(d, &l.text);
        diags.push(Diagnostic::error(code, l.span, msg).with_paragraph(para));
    }
    h
}

/// The pairs of a hexside or border item (`A|B`, or each consecutive pair of a
/// `path(...)`), every literal resolved (and any error reported) once.
fn side_pairs<'a>(
    d: &Dims,
    item: &'a SideItem,
    diags: &mut Vec<Diagnostic>,
    para: &str,
) -> Vec<(&'a HexLit, &'a HexLit, Option<u32>, Option<u32>)> {
    let lits: Vec<&HexLit> = match item {
        SideItem::Pair(a, b) => vec![a, b],
        SideItem::Path(hs) => hs.iter().collect(),
    };
    let ids: Vec<Option<u32>> = lits.iter().map(|l| hex(d, l, diags, para)).collect();
    (1..lits.len()).map(|i| (lits[i - 1], lits[i], ids[i - 1], ids[i])).collect()
}

fn hexes(d: &Dims, items: &[HexItem], diags: &mut Vec<Diagnostic>, para: &str) -> Vec<u32> {
    let mut out = Vec::new();
    let Some(grid) = d.grid() else { return out };
    for it in items {
        match it {
            HexItem::One(l) => out.extend(hex(d, l, diags, para)),
            HexItem::Rect(a, _) if !d.areas.is_empty() => diags.push(
                Diagnostic::error("E0509", a.span, "an area map has no hex rectangles: list the areas")
                    .with_paragraph(para),
            ),
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

fn err(
    code: &'static str,
    span: kriegsspiel_dsl::ast::Span,
    msg: impl Into<String>,
    para: &str,
) -> Diagnostic {
    Diagnostic::error(code, span, msg).with_paragraph(para)
}

/// The terrain index of the map's `default`, else 0.
fn default_terrain(env: &mut Env, m: &Map, para: &str, diags: &mut Vec<Diagnostic>) -> u16 {
    let Some(dt) = &m.default_terrain else { return 0 };
    match env.terrains.iter().position(|t| t == &dt.name) {
        Some(i) => {
            env.used.insert(dt.name.clone());
            i as u16
        }
        None => {
            diags.push(err("E0111", dt.span, format!("unknown terrain `{}`", dt.name), para));
            0
        }
    }
}

/// The id scheme of an `ids` clause (first column and row 0 or 1, E0510).
fn scheme(m: &Map, para: &str, diags: &mut Vec<Diagnostic>) -> IdScheme {
    let mut s = IdScheme::default();
    let Some(ids) = m.ids else { return s };
    s.row_first = ids.row_first;
    for (v, slot, what) in
        [(ids.first_col, &mut s.first_col, "column"), (ids.first_row, &mut s.first_row, "row")]
    {
        match v {
            None => {}
            Some(n @ (0 | 1)) => *slot = n as u16,
            Some(n) => diags.push(err(
                "E0510",
                ids.span,
                format!("the first {what} is numbered {n}: printed ids number from 0 or 1"),
                para,
            )),
        }
    }
    s
}

/// Build the runtime map. Terrain and hexside names must already be in `env`.
pub fn lower(env: &mut Env, m: &Map, para: &str, diags: &mut Vec<Diagnostic>) -> MapDef {
    if !m.areas.is_empty() {
        return lower_areas(env, m, para, diags);
    }
    if let Some(b) = m.borders.first() {
        diags.push(err("E0509", b.span, "`borders` join areas: this map declares no `areas`", para));
    }
    let Some(g) = m.grid else {
        diags.push(err("E0506", m.span, "the map has no `grid` clause (or `areas` block)", para));
        return MapDef::default();
    };
    if g.cols < 1 || g.rows < 1 || g.cols > 999 || g.rows > 999 {
        diags.push(
            Diagnostic::error("E0506", g.span, "grid size must be between 1 and 999").with_paragraph(para),
        );
        return MapDef::default();
    }
    let scheme = scheme(m, para, diags);
    let d =
        Dims { cols: g.cols as u16, rows: g.rows as u16, even_down: g.even_down, scheme, areas: Vec::new() };
    env.map_dims = d.clone();
    let Some(grid) = d.grid() else { return MapDef::default() };
    let n = grid.hex_count() as usize;
    let def_t = default_terrain(env, m, para, diags);
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
        let mut mark =
            |a: &HexLit, b: &HexLit, ha: Option<u32>, hb: Option<u32>, diags: &mut Vec<Diagnostic>| {
                let (Some(ha), Some(hb)) = (ha, hb) else { return };
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
            for (a, b, ha, hb) in side_pairs(&d, it, diags, para) {
                mark(a, b, ha, hb, diags);
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
        scheme,
        ..MapDef::default()
    }
}

/// Build an area map: areas (terrain, attributes), borders (kinds), regions.
fn lower_areas(env: &mut Env, m: &Map, para: &str, diags: &mut Vec<Diagnostic>) -> MapDef {
    if let Some(g) = m.grid {
        diags.push(err(
            "E0509",
            g.span,
            "a map is a hex grid or an area map: this one declares `areas`, so it has no `grid`",
            para,
        ));
    }
    if let Some(ids) = m.ids {
        diags.push(err("E0509", ids.span, "an area map names its areas: it has no hex-id scheme", para));
    }
    for e in &m.exit_edges {
        diags.push(err("E0509", e.span, "an area map has no map edges to exit by", para));
    }
    if m.areas.len() > 999 {
        diags.push(err("E0506", m.span, "an area map has at most 999 areas", para));
        return MapDef::default();
    }
    // Names, in order; a duplicate keeps its first index.
    let mut names: Vec<String> = Vec::with_capacity(m.areas.len());
    let mut first: std::collections::BTreeMap<&str, kriegsspiel_dsl::ast::Span> = Default::default();
    for a in &m.areas {
        if let Some(&prev) = first.get(a.name.name.as_str()) {
            diags.push(
                err("E0507", a.name.span, format!("area `{}` is declared twice", a.name.name), para)
                    .with_label(prev, "first declared here"),
            );
            continue;
        }
        first.insert(&a.name.name, a.name.span);
        names.push(a.name.name.clone());
    }
    let n = names.len();
    let d =
        Dims { cols: n as u16, rows: 1, even_down: false, scheme: IdScheme::default(), areas: names.clone() };
    env.map_dims = d.clone();
    let def_t = default_terrain(env, m, para, diags);
    let mut terrain = vec![def_t; n];
    // Attributes: name and type in order of first use; absent values are 0 / false.
    let mut attrs: Vec<(String, crate::types::Ty)> = Vec::new();
    let mut vals: Vec<(usize, usize, i64)> = Vec::new();
    for a in &m.areas {
        let Some(ai) = parse_hex(&d, &a.name.name) else { continue };
        if let Some(t) = &a.terrain {
            match env.terrains.iter().position(|x| x == &t.name) {
                Some(i) => {
                    env.used.insert(t.name.clone());
                    terrain[ai as usize] = i as u16;
                }
                None => diags.push(err("E0111", t.span, format!("unknown terrain `{}`", t.name), para)),
            }
        }
        for at in &a.attrs {
            let (ty, v) = match at.value.kind {
                LiteralKind::Int(i) => (crate::types::Ty::Int, i),
                LiteralKind::Bool(b) => (crate::types::Ty::Bool, i64::from(b)),
                _ => {
                    diags.push(err(
                        "E0301",
                        at.value.span,
                        format!("area attribute `{}` must be a number or true/false", at.name.name),
                        para,
                    ));
                    continue;
                }
            };
            if matches!(at.name.name.as_str(), "terrain") {
                diags.push(err(
                    "E0506",
                    at.name.span,
                    "`terrain` is an area's terrain, not an attribute",
                    para,
                ));
                continue;
            }
            let k = match attrs.iter().position(|x| x.0 == at.name.name) {
                Some(k) => {
                    if attrs[k].1 != ty {
                        diags.push(err(
                            "E0301",
                            at.value.span,
                            format!(
                                "area attribute `{}` is a number in one area and true/false in another",
                                at.name.name
                            ),
                            para,
                        ));
                        continue;
                    }
                    k
                }
                None => {
                    attrs.push((at.name.name.clone(), ty));
                    attrs.len() - 1
                }
            };
            vals.push((ai as usize, k, v));
        }
    }
    let mut area_values = vec![0i64; n * attrs.len()];
    for (a, k, v) in vals {
        area_values[a * attrs.len() + k] = v;
    }
    for (name, items) in &m.terrain {
        let Some(t) = env.terrains.iter().position(|x| x == &name.name) else {
            diags.push(err("E0111", name.span, format!("unknown terrain `{}`", name.name), para));
            continue;
        };
        env.used.insert(name.name.clone());
        for h in hexes(&d, items, diags, para) {
            terrain[h as usize] = t as u16;
        }
    }
    // Borders: pairs of areas with their kinds (hexside features as bits).
    let feature_bit = |env: &mut Env, f: &kriegsspiel_dsl::ast::Ident, diags: &mut Vec<Diagnostic>| match env
        .hexsides
        .iter()
        .position(|x| x == &f.name)
    {
        Some(i) => {
            env.used.insert(f.name.clone());
            Some(1u32 << i.min(31))
        }
        None => {
            diags.push(err("E0111", f.span, format!("unknown hexside feature `{}`", f.name), para));
            None
        }
    };
    let mut borders: std::collections::BTreeMap<(u32, u32), u32> = Default::default();
    for b in &m.borders {
        let mut mask = 0u32;
        for k in &b.kinds {
            mask |= feature_bit(env, k, diags).unwrap_or(0);
        }
        for (x, y, hx, hy) in side_pairs(&d, &b.item, diags, para) {
            let (Some(hx), Some(hy)) = (hx, hy) else { continue };
            if hx == hy {
                diags.push(err(
                    "E0508",
                    x.span.to(y.span),
                    format!("a border from `{}` to itself", x.text),
                    para,
                ));
                continue;
            }
            *borders.entry((hx.min(hy), hx.max(hy))).or_insert(0) |= mask;
        }
    }
    for (name, items) in &m.hexsides {
        let Some(bit) = feature_bit(env, name, diags) else { continue };
        for it in items {
            for (x, y, hx, hy) in side_pairs(&d, it, diags, para) {
                let (Some(hx), Some(hy)) = (hx, hy) else {
                    continue;
                };
                match borders.get_mut(&(hx.min(hy), hx.max(hy))) {
                    Some(mk) if hx != hy => *mk |= bit,
                    _ => diags.push(err(
                        "E0504",
                        x.span.to(y.span),
                        format!("areas {} and {} share no border (declare it in `borders`)", x.text, y.text),
                        para,
                    )),
                }
            }
        }
    }
    let list: Vec<(u32, u32)> = borders.keys().copied().collect();
    let Some(graph) = Graph::new(n.max(1) as u32, &list) else { return MapDef::default() };
    let deg = graph.max_degree().max(1);
    if deg > 255 {
        diags.push(err("E0506", m.span, "an area has more than 255 borders", para));
        return MapDef::default();
    }
    let mut sides = vec![0u32; n * deg];
    for (&(a, b), &mask) in &borders {
        for (x, y) in [(a, b), (b, a)] {
            if let Some(dir) = graph.direction(Hex(x), Hex(y)) {
                sides[x as usize * deg + dir] = mask;
            }
        }
    }
    let mut regions = Vec::new();
    for (name, items) in &m.regions {
        regions.push(RegionDef { name: name.name.clone(), hexes: hexes(&d, items, diags, para) });
    }
    env.area_attrs = attrs.clone();
    MapDef {
        title: m.title.clone(),
        cols: n as u16,
        rows: 1,
        even_down: false,
        terrain,
        sides,
        regions,
        exit_edges: 0,
        para: 0,
        areas: names,
        borders: list,
        degree: deg as u8,
        area_attrs: attrs.into_iter().map(|a| a.0).collect(),
        area_values,
        scheme: IdScheme::default(),
    }
}
