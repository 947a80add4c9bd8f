//! `replay LOG.jsonl -o game.html`: a saved game as one self-contained HTML page (no
//! server, no network) that steps through the log's events on the map.
//!
//! The map and the counters come from the compiled rulebook (the one the log's header
//! names as its `source`, or `--rulebook`), compiled with the options the game was
//! played with; the page draws the map once as SVG (terrain, hexside features, the
//! rulebook's printed hex ids; areas and borders on an area map), and its script
//! (`replay.js`) moves the counters as it applies the events: `move`, `enter`,
//! `retreat`, `eliminate`, `remove`, step losses and gains, `transfer`, `face`, `form`,
//! unit marks. Each event is shown with its account line (the `log` command's words)
//! and its paragraph.
//!
//! A log written with `run --view SIDE` replays as that side saw it: another side's
//! hidden ratings are shown as `?`, and with `hidden type` another side's blocks appear
//! only where the log first shows them, under the names the view gave them.

use crate::html::{esc, script_json};
use crate::{build_config, out, Format, Ui};
use kriegsspiel_runtime::program::{MapDef, ScenarioDef};
use kriegsspiel_runtime::state::OFF_MAP;
use kriegsspiel_runtime::Program;
use serde_json::{json, Map, Value as Json};
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// Hex radius (centre to corner) in SVG units.
const R: f64 = 28.0;
/// Margin round the map.
const PAD: f64 = 12.0;
/// Side colours, in the order the rulebook declares its sides.
const SIDE_COLOURS: [&str; 8] =
    ["#3b6fb6", "#c0392b", "#2e8b57", "#d68910", "#7d3c98", "#17a589", "#6e2c00", "#566573"];

pub(crate) fn cmd_replay(log: &Path, rulebook: Option<&Path>, output: Option<&Path>, ui: Ui) -> u8 {
    let text = match crate::run::read_log(log) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let events = match crate::account::parse(&text) {
        Ok(e) => e,
        Err(bad) => {
            say!("error[E0705]: {}:{}: not a run log line: {}", log.display(), bad.line, bad.message);
            return 2;
        }
    };
    let Some(header) = events.first().filter(|e| e.get("type").and_then(Json::as_str) == Some("header"))
    else {
        say!("error[E0705]: {}:1: not a run log: the first line is not the game's header", log.display());
        return 2;
    };
    let source = header.get("source").and_then(Json::as_str).map(PathBuf::from);
    let Some(path) = rulebook.map(Path::to_path_buf).or(source) else {
        say!(
            "error[E0703]: {} does not name its rulebook (logs written before `source` was recorded); \
             give it with --rulebook DIR",
            log.display()
        );
        return 2;
    };
    let options: Vec<String> = header
        .get("options")
        .and_then(Json::as_array)
        .map(|o| {
            o.iter().filter_map(|x| x.get("option").and_then(Json::as_str).map(str::to_string)).collect()
        })
        .unwrap_or_default();
    let (_, c) = match build_config(&path, Format::Human, Some(&options), ui) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let Some(prog) = c.program else {
        say!("error: the rulebook {} has errors; nothing to replay", path.display());
        return 1;
    };
    let played = header.get("rulebook").and_then(Json::as_str).unwrap_or("");
    if played != prog.title {
        say!(
            "error[E0706]: {} is a game of \"{played}\", but {} is \"{}\"; give the game's rulebook with --rulebook DIR",
            log.display(),
            path.display(),
            prog.title
        );
        return 2;
    }
    let id = header.get("scenario").and_then(Json::as_str).unwrap_or("");
    let Some(scenario) = prog.scenarios.iter().find(|s| s.id == id) else {
        say!(
            "error[E0706]: {} is a game of scenario {id}, which {} does not have (its scenarios: {})",
            log.display(),
            path.display(),
            prog.scenarios.iter().map(|s| s.id.as_str()).collect::<Vec<_>>().join(", ")
        );
        return 2;
    };
    let page = page(&prog, scenario, &events);
    match output {
        Some(f) => match std::fs::write(f, page) {
            Ok(()) => 0,
            Err(e) => {
                say!("error[E0702]: cannot write {}: {e}", f.display());
                2
            }
        },
        None => match out(&page) {
            Ok(()) => 0,
            Err(code) => code,
        },
    }
}

/// The whole page.
pub(crate) fn page(prog: &Program, scenario: &ScenarioDef, events: &[Map<String, Json>]) -> String {
    let header = events.first().cloned().unwrap_or_default();
    let view = header.get("view").and_then(Json::as_str).map(str::to_string);
    let labels = kriegsspiel_runtime::space_labels(&prog.map);
    let (svg, centres, width, height) =
        if prog.map.is_areas() { area_map(prog) } else { hex_map(prog, &labels) };
    let data = json!({
        "rulebook": prog.title,
        "scenario": scenario.id,
        "scenario_title": scenario.title,
        "seed": header.get("seed"),
        "view": view,
        "radius": R,
        "centres": centres,
        "sides": prog.sides.iter().enumerate().map(|(i, s)| json!({
            "name": s, "colour": SIDE_COLOURS[i % SIDE_COLOURS.len()]
        })).collect::<Vec<_>>(),
        "counters": counters(prog, scenario, &labels, view.as_deref()),
        "events": events.iter().map(|e| json!({
            "type": e.get("type"),
            "turn": e.get("turn"),
            "para": e.get("para"),
            "text": caption(e),
            "ev": e,
        })).collect::<Vec<_>>(),
    });
    let title = format!("{} — scenario {} \"{}\"", prog.title, scenario.id, scenario.title);
    let seed = header.get("seed").map(Json::to_string).unwrap_or_default();
    let seen = match &view {
        Some(v) => format!(", as {} saw it", esc(v)),
        None => String::new(),
    };
    let mut legend = String::new();
    for (i, t) in prog.terrains.iter().enumerate() {
        let _ = write!(
            legend,
            "<span class=\"key\"><svg width=\"14\" height=\"14\"><rect width=\"14\" height=\"14\" fill=\"{}\" stroke=\"#777\"/></svg>{}</span>",
            terrain_colour(&t.name, i),
            esc(&t.name)
        );
    }
    for (i, f) in prog.hexsides.iter().enumerate() {
        let _ = write!(
            legend,
            "<span class=\"key\"><svg width=\"18\" height=\"14\"><line x1=\"1\" y1=\"7\" x2=\"17\" y2=\"7\" stroke=\"{}\" stroke-width=\"4\"/></svg>{}</span>",
            side_colour(&f.name, i),
            esc(&f.name)
        );
    }
    for (i, s) in prog.sides.iter().enumerate() {
        let _ = write!(
            legend,
            "<span class=\"key\"><svg width=\"14\" height=\"14\"><rect width=\"14\" height=\"14\" fill=\"{}\"/></svg>{}</span>",
            SIDE_COLOURS[i % SIDE_COLOURS.len()],
            esc(s)
        );
    }
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{t}</title>\
         <meta name=\"viewport\" content=\"width=device-width\"><style>{css}</style></head>\n<body data-at=\"0\">\
         <header><h1>{t}</h1><p>seed {seed}{seen} · {n} events · keys: ← → step, Home End, PgUp PgDn turn, + − zoom; click a hex to see its stack</p>\
         <nav><button id=\"first\" title=\"first event (Home)\">|◀</button><button id=\"prev-turn\" title=\"previous turn (PgUp)\">◀◀</button>\
         <button id=\"prev\" title=\"previous event (←)\">◀</button><button id=\"next\" title=\"next event (→)\">▶</button>\
         <button id=\"next-turn\" title=\"next turn (PgDn)\">▶▶</button><button id=\"last\" title=\"last event (End)\">▶|</button>\
         <button id=\"zoom-out\" title=\"smaller map (-)\">−</button><button id=\"zoom-in\" title=\"larger map (+)\">+</button>\
         <label>turn <select id=\"turn\"></select></label> <span id=\"where\"></span></nav>\
         <p id=\"caption\"></p></header>\n<main><div id=\"board\"><svg id=\"map\" xmlns=\"http://www.w3.org/2000/svg\" \
         viewBox=\"0 0 {w:.0} {h:.0}\" width=\"{w:.0}\" height=\"{h:.0}\">{svg}<g id=\"counters\"></g></svg>\
         <p class=\"legend\">{legend}</p></div>\
         <aside><section id=\"stack\"><h2>Stack</h2><p>Click a hex.</p></section><section><h2>Events</h2><ol id=\"events\"></ol></section></aside></main>\n\
         <script type=\"application/json\" id=\"data\">{data}</script>\n<script>{js}</script>\n</body></html>\n",
        t = esc(&title),
        css = include_str!("replay.css"),
        n = events.len(),
        w = width,
        h = height,
        data = script_json(&data),
        js = include_str!("replay.js"),
    )
}

/// An event's caption: its account line, or for the events the account does not show
/// alone (the end of a phase) a few words of our own.
fn caption(e: &Map<String, Json>) -> String {
    let line = crate::account::event_line(e);
    if !line.is_empty() {
        return line;
    }
    let field = |k: &str| e.get(k).and_then(Json::as_str).unwrap_or("");
    match field("type") {
        "phase_end" => format!("end of the {} phase", field("phase")),
        other => other.to_string(),
    }
}

/// The counters as the scenario sets them up: name, side, type, printed values per step,
/// where each starts (or enters), its facing and face.
fn counters(prog: &Program, scenario: &ScenarioDef, labels: &[String], view: Option<&str>) -> Vec<Json> {
    let viewer = view.and_then(|v| prog.sides.iter().position(|s| s == v));
    let hidden_rating = |r: usize| prog.hidden_ratings.iter().any(|h| h.rating as usize == r);
    let mut placed: Vec<Option<&kriegsspiel_runtime::program::PlacementDef>> =
        vec![None; prog.counters.len()];
    for p in &scenario.placements {
        if let Some(slot) = placed.get_mut(p.counter as usize) {
            *slot = Some(p);
        }
    }
    let label = |h: u32| {
        if h == OFF_MAP {
            Json::Null
        } else {
            labels.get(h as usize).map_or(Json::Null, |l| json!(l))
        }
    };
    let mut out = Vec::new();
    for (i, c) in prog.counters.iter().enumerate() {
        let foreign = viewer.is_some_and(|v| v != usize::from(c.side));
        if foreign && prog.hidden_type.is_some() {
            // Its identity is what the viewing side does not know: it appears where the
            // log first shows it, under the view's name for it.
            continue;
        }
        let Some(p) = placed[i] else { continue };
        // Up to three of the counter's printed ratings, per step ("4-3-6").
        let shown: Vec<(usize, &Vec<i64>)> =
            c.values.iter().enumerate().filter_map(|(r, v)| v.as_ref().map(|v| (r, v))).take(3).collect();
        let values: Vec<String> = (0..c.steps.max(1) as usize)
            .map(|step| {
                shown
                    .iter()
                    .map(|(r, v)| {
                        if foreign && hidden_rating(*r) {
                            "?".to_string()
                        } else {
                            v.get(step).or(v.last()).map(i64::to_string).unwrap_or_default()
                        }
                    })
                    .collect::<Vec<_>>()
                    .join("-")
            })
            .collect();
        let ty = prog.unit_types.get(c.unit_type as usize).map(|t| t.name.clone()).unwrap_or_default();
        out.push(json!({
            "name": c.name,
            "side": prog.sides.get(c.side as usize),
            "type": ty,
            "ratings": shown.iter().map(|(r, _)| prog.ratings.get(*r).map(|x| x.name.clone())).collect::<Vec<_>>(),
            "values": values,
            "steps": c.steps,
            "hex": if p.enters_turn.is_none() { label(p.hex) } else { Json::Null },
            "enters": p.enters_turn,
            "entry": if p.enters_turn.is_some() { label(p.hex) } else { Json::Null },
            "facing": p.facing & 7,
        }));
    }
    out
}

/// Centre of a hex on the page.
fn hex_centre(map: &MapDef, col: u16, row: u16) -> (f64, f64) {
    let h = R * 3f64.sqrt();
    let down = if map.even_down { col % 2 == 0 } else { col % 2 == 1 };
    let x = PAD + R + 1.5 * R * f64::from(col - 1);
    let y = PAD + h / 2.0 + h * f64::from(row - 1) + if down { h / 2.0 } else { 0.0 };
    (x, y)
}

/// Corner `k` (0 east, then clockwise as y grows downward) of a flat-topped hex.
fn corner(x: f64, y: f64, k: u32) -> (f64, f64) {
    let a = std::f64::consts::PI / 3.0 * f64::from(k % 6);
    (x + R * a.cos(), y + R * a.sin())
}

/// The hex map: one polygon per hex (terrain fill, printed id), hexside features on
/// top. Returns the SVG, each hex's centre by printed id, and the page size.
fn hex_map(prog: &Program, labels: &[String]) -> (String, Map<String, Json>, f64, f64) {
    let map = &prog.map;
    let mut svg = String::from("<g id=\"hexes\">");
    let mut features = String::from("<g id=\"hexsides\">");
    let mut centres = Map::new();
    for col in 1..=map.cols {
        for row in 1..=map.rows {
            let h = u32::from(col - 1) * u32::from(map.rows) + u32::from(row - 1);
            let (x, y) = hex_centre(map, col, row);
            let id = labels.get(h as usize).cloned().unwrap_or_else(|| format!("#{h}"));
            let t = map.terrain.get(h as usize).copied().unwrap_or(0) as usize;
            let tname = prog.terrains.get(t).map(|f| f.name.as_str()).unwrap_or("");
            let points: Vec<String> = (0..6)
                .map(|k| {
                    let (a, b) = corner(x, y, k);
                    format!("{a:.1},{b:.1}")
                })
                .collect();
            let _ = write!(
                svg,
                "<polygon class=\"hex\" data-hex=\"{id}\" data-cx=\"{x:.1}\" data-cy=\"{y:.1}\" points=\"{}\" fill=\"{}\"><title>{id} {}</title></polygon>\
                 <text class=\"hexid\" x=\"{x:.1}\" y=\"{:.1}\">{id}</text>",
                points.join(" "),
                terrain_colour(tname, t),
                esc(tname),
                y - R * 0.62,
                id = esc(&id),
            );
            centres.insert(id, json!([round1(x), round1(y)]));
            // Hexside features: direction d (0 north, clockwise) is the edge between
            // corners 4+d and 5+d.
            for d in 0..6u32 {
                let mask = map.sides.get(h as usize * 6 + d as usize).copied().unwrap_or(0);
                if mask == 0 {
                    continue;
                }
                let (x1, y1) = corner(x, y, 4 + d);
                let (x2, y2) = corner(x, y, 5 + d);
                for (i, f) in prog.hexsides.iter().enumerate() {
                    if i < 32 && mask & (1 << i) != 0 {
                        let colour = side_colour(&f.name, i);
                        if is_route(&f.name) {
                            // A road runs from the centre across the hexside.
                            let (mx, my) = ((x1 + x2) / 2.0, (y1 + y2) / 2.0);
                            let _ = write!(
                                features,
                                "<line class=\"route\" x1=\"{x:.1}\" y1=\"{y:.1}\" x2=\"{mx:.1}\" y2=\"{my:.1}\" stroke=\"{colour}\"><title>{}</title></line>",
                                esc(&f.name)
                            );
                        } else {
                            let _ = write!(
                                features,
                                "<line class=\"edge\" x1=\"{x1:.1}\" y1=\"{y1:.1}\" x2=\"{x2:.1}\" y2=\"{y2:.1}\" stroke=\"{colour}\"><title>{}</title></line>",
                                esc(&f.name)
                            );
                        }
                    }
                }
            }
        }
    }
    svg.push_str("</g>");
    features.push_str("</g>");
    svg.push_str(&features);
    let width = 2.0 * PAD + 2.0 * R + 1.5 * R * f64::from(map.cols.saturating_sub(1));
    let height = 2.0 * PAD + R * 3f64.sqrt() * (f64::from(map.rows) + 0.5);
    (svg, centres, width, height)
}

/// An area map: the areas on a grid in declaration order, borders as lines between
/// their centres (an area map has no geometry of its own).
fn area_map(prog: &Program) -> (String, Map<String, Json>, f64, f64) {
    let map = &prog.map;
    let n = map.areas.len().max(1);
    let cols = (1..=n).find(|c| c * c >= n).unwrap_or(1);
    let rows = n.div_ceil(cols);
    let (cw, ch) = (170.0, 120.0);
    let centre =
        |i: usize| (PAD + cw / 2.0 + cw * (i % cols) as f64, PAD + ch / 2.0 + ch * (i / cols) as f64);
    let mut svg = String::from("<g id=\"borders\">");
    for &(a, b) in &map.borders {
        let ((x1, y1), (x2, y2)) = (centre(a as usize), centre(b as usize));
        let _ = write!(
            svg,
            "<line class=\"border\" x1=\"{x1:.1}\" y1=\"{y1:.1}\" x2=\"{x2:.1}\" y2=\"{y2:.1}\"/>"
        );
    }
    svg.push_str("</g><g id=\"hexes\">");
    let mut centres = Map::new();
    for (i, name) in map.areas.iter().enumerate() {
        let (x, y) = centre(i);
        let t = map.terrain.get(i).copied().unwrap_or(0) as usize;
        let tname = prog.terrains.get(t).map(|f| f.name.as_str()).unwrap_or("");
        let _ = write!(
            svg,
            "<rect class=\"hex area\" data-hex=\"{n}\" data-cx=\"{x:.1}\" data-cy=\"{y:.1}\" x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" rx=\"14\" fill=\"{}\"><title>{n} {}</title></rect>\
             <text class=\"areaname\" x=\"{x:.1}\" y=\"{:.1}\">{n}</text>",
            x - cw * 0.42,
            y - ch * 0.38,
            cw * 0.84,
            ch * 0.76,
            terrain_colour(tname, t),
            esc(tname),
            y - ch * 0.24,
            n = esc(name),
        );
        centres.insert(name.clone(), json!([round1(x), round1(y)]));
    }
    svg.push_str("</g>");
    (svg, centres, 2.0 * PAD + cw * cols as f64, 2.0 * PAD + ch * rows as f64)
}

fn round1(v: f64) -> f64 {
    (v * 10.0).round() / 10.0
}

const PALETTE: [&str; 8] =
    ["#e8e2c4", "#d9e4c0", "#e4d4c0", "#c8d8e4", "#e0c8d0", "#d0d0d0", "#e4e0b0", "#c4e0d4"];

/// A fill for a terrain, by what its name says it is, else from a palette.
fn terrain_colour(name: &str, i: usize) -> &'static str {
    let n = name.to_ascii_lowercase();
    let has = |ws: &[&str]| ws.iter().any(|w| n.contains(w));
    if has(&["clear", "open", "plain", "field"]) {
        "#eee8c8"
    } else if has(&["wood", "forest"]) {
        "#a9cf94"
    } else if has(&["town", "village", "city", "building", "fort", "citadel", "camp"]) {
        "#cdbba5"
    } else if has(&["marsh", "swamp", "bog"]) {
        "#b5d6c6"
    } else if has(&["hill", "height", "ridge", "mountain", "rough"]) {
        "#d8bf8a"
    } else if has(&["water", "lake", "sea", "river"]) {
        "#9cc4ea"
    } else {
        PALETTE[i % PALETTE.len()]
    }
}

/// A stroke for a hexside feature, by what its name says it is, else from a palette.
fn side_colour(name: &str, i: usize) -> &'static str {
    let n = name.to_ascii_lowercase();
    let has = |ws: &[&str]| ws.iter().any(|w| n.contains(w));
    if has(&["river", "stream", "creek", "brook", "canal", "ford"]) {
        "#2f6fd0"
    } else if has(&["road", "pike", "trail", "track", "rail"]) {
        "#7b4a1e"
    } else if has(&["bridge"]) {
        "#555555"
    } else if has(&["ravine", "slope", "ridge", "crest", "escarp"]) {
        "#8e5b2a"
    } else if has(&["wall", "redoubt", "fort", "entrench", "abatis"]) {
        "#333333"
    } else {
        ["#b03a2e", "#7d3c98", "#117a65", "#b9770e"][i % 4]
    }
}

/// A feature drawn from the hex centre across the hexside (a road) rather than along it.
fn is_route(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    ["road", "pike", "trail", "track", "rail"].iter().any(|w| n.contains(w))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hexes_tile() {
        // Two hexes one above the other in a column touch: their centres are one hex
        // height apart; a shifted column's hex sits half a hex lower.
        let map = MapDef {
            title: String::new(),
            cols: 3,
            rows: 3,
            even_down: true,
            terrain: vec![0; 9],
            sides: vec![0; 54],
            regions: vec![],
            exit_edges: 0,
            para: 0,
            areas: vec![],
            borders: vec![],
            degree: 0,
            area_attrs: vec![],
            area_values: vec![],
            scheme: Default::default(),
        };
        let (x1, y1) = hex_centre(&map, 1, 1);
        let (_, y2) = hex_centre(&map, 1, 2);
        let (x3, y3) = hex_centre(&map, 2, 1);
        assert!((y2 - y1 - R * 3f64.sqrt()).abs() < 1e-9);
        assert!((y3 - y1 - R * 3f64.sqrt() / 2.0).abs() < 1e-9);
        assert!((x3 - x1 - 1.5 * R).abs() < 1e-9);
        // The north edge (direction 0) is the top edge: both corners above the centre.
        let (_, ya) = corner(x1, y1, 4);
        let (_, yb) = corner(x1, y1, 5);
        assert!(ya < y1 && yb < y1 && (ya - yb).abs() < 1e-9);
    }
}
