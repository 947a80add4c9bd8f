//! Counters (order of battle) and scenarios: values in range, placements on the map.

use crate::env::{suggest, Env};
use crate::map::parse_hex;
use kriegsspiel_dsl::ast::{Counter, Scenario};
use kriegsspiel_dsl::Diagnostic;
use kriegsspiel_runtime::program::{CounterDef, PlacementDef, ScenarioDef};

pub fn counter(env: &mut Env, c: &Counter, para: &str, diags: &mut Vec<Diagnostic>) -> Option<CounterDef> {
    let e = |code, span, m: String| Diagnostic::error(code, span, m).with_paragraph(para.to_string());
    let side = match env.sides.iter().position(|s| s == &c.side.name) {
        Some(s) => s as u8,
        None => {
            diags.push(e("E0105", c.side.span, format!("unknown side `{}`", c.side.name)));
            return None;
        }
    };
    let Some(ut) = env.unit_types.iter().position(|t| t.0 == c.unit_type.name) else {
        let mut d = e("E0103", c.unit_type.span, format!("unknown unit type `{}`", c.unit_type.name));
        if let Some(s) = suggest(&c.unit_type.name, env.unit_types.iter().map(|t| t.0.as_str())) {
            d = d.with_note(format!("did you mean `{s}`?"));
        }
        diags.push(d);
        return None;
    };
    env.used.insert(c.unit_type.name.clone());
    let steps = env.unit_types[ut].2;
    let mut values: Vec<Option<Vec<i64>>> = vec![None; env.ratings.len()];
    for (name, vals) in &c.values {
        let Some(r) = env.rating_index(&name.name) else {
            let mut d = e("E0106", name.span, format!("unknown rating `{}`", name.name));
            if let Some(s) = suggest(&name.name, env.ratings.iter().map(|r| r.0.as_str())) {
                d = d.with_note(format!("did you mean `{s}`?"));
            }
            diags.push(d);
            continue;
        };
        let (_, lo, hi) = env.ratings[r].clone();
        for v in vals {
            if *v < lo || *v > hi {
                diags.push(e(
                    "E0501",
                    name.span,
                    format!("{} = {v} is outside the rating's range {lo}..{hi}", name.name),
                ));
            }
        }
        if vals.len() > 1 && vals.len() != steps as usize {
            diags.push(e(
                "E0502",
                name.span,
                format!(
                    "{} gives {} step values but {} has {steps} step(s)",
                    name.name,
                    vals.len(),
                    c.unit_type.name
                ),
            ));
        }
        values[r] = Some(vals.clone());
    }
    let face_values = crate::facing::counter_faces(env, ut, c, para, diags);
    Some(CounterDef { name: c.name.clone(), side, unit_type: ut as u16, values, steps, face_values })
}

pub fn scenario(
    env: &mut Env,
    s: &Scenario,
    para: &str,
    types: &[usize],
    diags: &mut Vec<Diagnostic>,
) -> ScenarioDef {
    let e = |code, span, m: String| Diagnostic::error(code, span, m).with_paragraph(para.to_string());
    // `start turn N;`: the first turn; `turns N;` is the last (default: the first).
    let first_turn = match s.first_turn {
        Some((n, sp)) if n < 1 => {
            diags.push(e("E0599", sp, format!("the scenario cannot start on turn {n}: turns count from 1")));
            1
        }
        Some((n, _)) => n,
        None => 1,
    };
    let turns = s.turns.map(|t| t.0).unwrap_or(first_turn);
    if let (Some((_, fsp)), Some((t, tsp))) = (s.first_turn, s.turns) {
        if t < first_turn {
            diags.push(
                e("E0599", tsp, format!("the scenario ends on turn {t}, before its first turn {first_turn}"))
                    .with_label(fsp, "the first turn is set here")
                    .with_note("`turns N;` is the last turn's number, not a count of turns"),
            );
        }
    }
    let mut order = Vec::new();
    for o in &s.order {
        match env.sides.iter().position(|x| x == &o.name) {
            Some(i) => order.push(i as u8),
            None => diags.push(e("E0105", o.span, format!("unknown side `{}`", o.name))),
        }
    }
    if s.order.is_empty() {
        diags.push(e("E0105", s.span, format!("scenario {} declares no player order", s.id)));
    }
    let mut track_starts = Vec::new();
    for ts in &s.track_starts {
        let Some(t) = env.track_index(&ts.track.name) else {
            diags.push(e("E0113", ts.track.span, format!("unknown track `{}`", ts.track.name)));
            continue;
        };
        env.used.insert(ts.track.name.clone());
        if env.track_key.get(t).is_some_and(|k| *k != kriegsspiel_runtime::program::SpaceKey::None) {
            diags.push(e(
                "E0301",
                ts.track.span,
                format!("track `{}` is per hex or per border: it starts at its low end", ts.track.name),
            ));
            continue;
        }
        if env.track_holds.get(t).is_some_and(|h| h.is_some()) {
            diags.push(e(
                "E0301",
                ts.track.span,
                format!("track `{}` holds references: it starts empty and is filled by `set`", ts.track.name),
            ));
            continue;
        }
        if env.track_per_unit.get(t).copied().unwrap_or(false) {
            diags.push(e(
                "E0301",
                ts.track.span,
                format!(
                    "track `{}` is per unit: its values start from the counters' `{}` ratings",
                    ts.track.name, ts.track.name
                ),
            ));
            continue;
        }
        if env.track_second.get(t).map(|s| s.is_some()).unwrap_or(false) {
            diags.push(e(
                "E0301",
                ts.track.span,
                format!("track `{}` has two keys: it starts at the low end of its range", ts.track.name),
            ));
            continue;
        }
        let (_, per_side, lo, hi) = env.tracks[t].clone();
        let group = env.track_group.get(t).cloned().flatten();
        for (side, v) in &ts.values {
            let si = match &group {
                // A track per results group: the code's position in its group.
                Some(g) => {
                    let codes: Vec<usize> = env
                        .groups
                        .iter()
                        .find(|x| x.0 == g.name)
                        .map(|x| x.1.iter().map(|&c| c as usize).collect())
                        .unwrap_or_default();
                    let at = codes.iter().position(|&c| env.symbols.get(c).map(|s| &s.0) == Some(&side.name));
                    if at.is_none() {
                        diags.push(e(
                            "E0105",
                            side.span,
                            format!("`{}` is not a {} code", side.name, g.name),
                        ));
                        continue;
                    }
                    at
                }
                None => {
                    let si = env.sides.iter().position(|x| x == &side.name);
                    if si.is_none() {
                        diags.push(e("E0105", side.span, format!("unknown side `{}`", side.name)));
                        continue;
                    }
                    si
                }
            };
            if *v < lo || *v > hi {
                diags.push(e(
                    "E0501",
                    side.span,
                    format!("start value {v} is outside track {}'s range {lo}..{hi}", ts.track.name),
                ));
            }
            let slot_side = if per_side { si.map(|x| x as u8) } else { None };
            track_starts.push((t as u16, slot_side, *v));
        }
    }
    let mut flags = Vec::new();
    for (f, v) in &s.flags {
        if let Some(i) = env.flags.iter().position(|x| x == &f.name) {
            flags.push((i as u16, *v));
        }
    }
    let mut placements: Vec<PlacementDef> = Vec::new();
    let mut placed: Vec<Option<kriegsspiel_dsl::ast::Span>> = vec![None; env.counters.len()];
    let dims = env.map_dims.clone();
    for setup in &s.setups {
        let setup_side = env.sides.iter().position(|x| x == &setup.side.name);
        if setup_side.is_none() {
            diags.push(e("E0105", setup.side.span, format!("unknown side `{}`", setup.side.name)));
        }
        for p in &setup.placements {
            let Some(ci) = env.counters.iter().position(|c| c == &p.unit) else {
                let mut d = e("E0505", p.unit_span, format!("no counter named {:?}", p.unit));
                if let Some(sg) = suggest(&p.unit, env.counters.iter().map(|c| c.as_str())) {
                    d = d.with_note(format!("did you mean {sg:?}?"));
                }
                diags.push(d);
                continue;
            };
            if let Some(prev) = placed[ci] {
                diags.push(
                    e("E0505", p.unit_span, format!("{:?} is placed twice", p.unit))
                        .with_label(prev, "first placed here"),
                );
                continue;
            }
            placed[ci] = Some(p.unit_span);
            let Some(h) = parse_hex(&dims, &p.hex.text) else {
                let (code, msg) = crate::map::space_error(&dims, &p.hex.text);
                diags.push(e(code, p.hex.span, msg));
                continue;
            };
            if let (Some(t), Some(tsp)) = (p.enters_turn, p.enters_span) {
                if t < first_turn {
                    let mut d = e(
                        "E0599",
                        tsp,
                        format!(
                            "{:?} enters on turn {t}, before the scenario's first turn {first_turn}",
                            p.unit
                        ),
                    )
                    .with_note("place it with `at` if it is on the map when the scenario begins");
                    if let Some((_, fsp)) = s.first_turn {
                        d = d.with_label(fsp, "the first turn is set here");
                    }
                    diags.push(d);
                }
            }
            let t = types.get(ci).copied().unwrap_or(0);
            let (facing, face) = crate::facing::unit_start(env, t, &p.start, diags, para);
            placements.push(PlacementDef {
                counter: ci as u16,
                hex: h,
                enters_turn: p.enters_turn,
                arrives: p.arrives,
                facing,
                face,
            });
        }
    }
    ScenarioDef {
        id: s.id.clone(),
        title: s.title.clone(),
        turns,
        first_turn,
        order,
        track_starts,
        flags,
        placements,
        para: env.para(para),
    }
}
