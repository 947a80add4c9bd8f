//! The compilation driver over one merged rulebook AST: collects declarations, then
//! lowers and checks each kind in dependency order and assembles the `Program`.

use crate::contents::{external_parts, Contents, Scheme};
use crate::env::{CallableKind, Env, Global, Sig};
use crate::examples::ExampleData;
use crate::func::{Cx, FnCx};
use crate::report::{ContentStatus, Report};
use crate::types::Ty;
use kriegsspiel_dsl::ast::TrackKey as AstKey;
use kriegsspiel_dsl::ast::*;
use kriegsspiel_dsl::Diagnostic;
use kriegsspiel_runtime::program::TrackKey as RtTrackKey;
use kriegsspiel_runtime::program::*;
use std::collections::BTreeSet;

pub struct Out {
    pub program: Program,
    pub report: Report,
    pub examples: Vec<ExampleData>,
}

/// A track's range; a track of references keeps "nothing" (-1) up to any index.
fn track_bounds(values: &TrackValues) -> (i64, i64) {
    match values {
        TrackValues::Range(r) => (r.lo, r.hi),
        TrackValues::Holds(_) => (-1, i64::MAX),
    }
}

/// What a track of references holds (`: Unit`, `: Hex`, `: Side`, `: Country`); E0102
/// for any other name.
fn track_holds(values: &TrackValues, env: &Env, diags: &mut Vec<Diagnostic>, para: &str) -> Holds {
    let TrackValues::Holds(t) = values else { return Holds::Int };
    match env.held_ty(&t.name) {
        Some(Ty::Unit) => Holds::Unit,
        Some(Ty::Hex) => Holds::Hex,
        Some(Ty::Side) => Holds::Side,
        Some(_) => Holds::Code,
        None => {
            diags.push(
                Diagnostic::error("E0102", t.span, format!("a track cannot hold `{}`", t.name))
                    .with_note("a track holds numbers (`0..10`), or references: `Unit`, `Hex`, `Side` or a results group")
                    .with_paragraph(para.to_string()),
            );
            Holds::Int
        }
    }
}

/// `per hex` and `per border` keep a track per map space or per border (the names are
/// reserved there: not results groups).
fn track_key(per_group: Option<&Ident>) -> SpaceKey {
    match per_group.map(|g| g.name.as_str()) {
        Some("hex") => SpaceKey::Space,
        Some("border") => SpaceKey::Border,
        _ => SpaceKey::None,
    }
}

pub(crate) fn first_para(d: &Decl) -> String {
    d.anchors.first().map(|a| a.text.clone()).unwrap_or_default()
}

fn lit_ty(l: &Literal) -> Option<Ty> {
    match l.kind {
        LiteralKind::Int(_) => Some(Ty::Int),
        LiteralKind::Bool(_) => Some(Ty::Bool),
        _ => None,
    }
}

fn lit_val(l: &Literal) -> i64 {
    match l.kind {
        LiteralKind::Int(i) => i,
        LiteralKind::Bool(b) => b as i64,
        _ => 0,
    }
}

/// Attribute schema of terrain or hexside declarations, with the completeness check
/// (every type gives every attribute: the terrain effects chart has no holes).
fn attrs(
    decls: &[(&Ident, &[Attr], String)],
    what: &str,
    diags: &mut Vec<Diagnostic>,
) -> (Vec<(String, Ty)>, Vec<Vec<i64>>) {
    let mut schema: Vec<(String, Ty)> = Vec::new();
    for (_, list, para) in decls {
        for a in list.iter() {
            let Some(t) = lit_ty(&a.value) else {
                diags.push(
                    Diagnostic::error(
                        "E0301",
                        a.value.span,
                        format!("{what} attributes must be Int or Bool"),
                    )
                    .with_note("express multipliers such as halving with a `modifiers` set")
                    .with_paragraph(para.clone()),
                );
                continue;
            };
            match schema.iter().find(|s| s.0 == a.name.name) {
                Some(s) if s.1 != t => diags.push(
                    Diagnostic::error(
                        "E0301",
                        a.value.span,
                        format!("attribute `{}` has different types across {what}s", a.name.name),
                    )
                    .with_paragraph(para.clone()),
                ),
                Some(_) => {}
                None => schema.push((a.name.name.clone(), t)),
            }
        }
    }
    let mut values = Vec::new();
    for (name, list, para) in decls {
        let mut v = vec![0i64; schema.len()];
        for (i, (an, _)) in schema.iter().enumerate() {
            match list.iter().find(|a| &a.name.name == an) {
                Some(a) => v[i] = lit_val(&a.value),
                None => diags.push(
                    Diagnostic::error(
                        "E0603",
                        name.span,
                        format!("{what} `{}` does not give attribute `{an}`", name.name),
                    )
                    .with_note(format!(
                        "every {what} must give every attribute any {what} gives (a complete effects chart)"
                    ))
                    .with_paragraph(para.clone()),
                ),
            }
        }
        values.push(v);
    }
    (schema, values)
}

pub fn compile_book(book: &crate::layers::Selection<'_>, diags: &mut Vec<Diagnostic>) -> Out {
    let mut env = Env::default();
    let mut prog = Program::default();
    let mut report = Report::default();

    // ---------------------------------------------------------------- header
    let (scheme, die) = match book.headers.first() {
        None => {
            diags.push(Diagnostic::error(
                "E0203",
                Span::default(),
                "the rulebook has no `rulebook \"Title\" { ... }` header",
            ));
            (Scheme::Dotted, 6)
        }
        Some(h) => {
            for extra in book.headers.iter().skip(1) {
                diags.push(
                    Diagnostic::error("E0203", extra.span, "a second rulebook header")
                        .with_label(h.span, "first header"),
                );
            }
            prog.title = h.title.clone();
            let mut scheme = None;
            for n in &h.numbering {
                if n.name == "lettered" {
                    continue;
                }
                match Scheme::parse(&n.name) {
                    Some(s) => scheme = Some(s),
                    None => diags.push(Diagnostic::error(
                        "E0203",
                        n.span,
                        format!("unknown numbering scheme `{}` (dotted, decimal, rule, bracketed; plus `lettered`)", n.name),
                    )),
                }
            }
            (scheme.unwrap_or(Scheme::Dotted), h.dice.map(|d| d.sides).unwrap_or(6))
        }
    };
    prog.die_sides = die;
    if let Some(f) = book.headers.first().and_then(|h| h.faces) {
        if f.hi - f.lo + 1 != die as i64 {
            diags.push(
                Diagnostic::error(
                    "E0203",
                    f.span,
                    format!(
                        "faces {}..{} are {} numbers but the die has {die} sides",
                        f.lo,
                        f.hi,
                        f.hi - f.lo + 1
                    ),
                )
                .with_note(format!("a d{die} read from 0 has faces 0..{}", die as i64 - 1)),
            );
        } else {
            prog.die_offset = f.lo - 1;
        }
    }
    env.die = (die, prog.die_offset);
    report.title = prog.title.clone();

    // ---------------------------------------------------------------- contents, anchors
    let parts: Vec<String> =
        book.headers.first().map(|h| h.parts.iter().map(|p| p.name.clone()).collect()).unwrap_or_default();
    if !parts.is_empty() && scheme != Scheme::Bracketed {
        if let Some(h) = book.headers.first() {
            diags.push(
                Diagnostic::error("E0203", h.parts[0].span, "`parts` needs the `bracketed` numbering scheme")
                    .with_note("parts restart their numbers: anchors name them, as §Exclusive[12.]"),
            );
        }
    }
    let mut contents = Contents::build(book.contents, scheme, &parts, diags);
    if let Some(h) = book.headers.first() {
        for (name, title) in &h.externals {
            if contents.externals.contains(&name.name) || parts.contains(&name.name) || name.name == "Rule" {
                diags.push(Diagnostic::error(
                    "E0203",
                    name.span,
                    format!(
                        "external book `{}` is declared twice, or is a part's name, or `Rule`",
                        name.name
                    ),
                ));
                continue;
            }
            contents.externals.push(name.name.clone());
            report.external_books.push((name.name.clone(), title.clone()));
        }
    }
    let contents = contents;
    // The sequence-of-play codes: each names paragraphs of the contents, each paragraph
    // under one code.
    let mut step_of: std::collections::BTreeMap<String, (String, Span)> = Default::default();
    for s in book.steps {
        for a in &s.paragraphs {
            let (base, _) = crate::contents::split_item(&a.text);
            if !contents.index.contains_key(&base) {
                diags.push(
                    Diagnostic::error(
                        "E0201",
                        a.span,
                        format!(
                            "step \"{}\" names §{}, a paragraph that is not in the contents",
                            s.code, a.text
                        ),
                    )
                    .with_paragraph(a.text.clone()),
                );
            } else if let Some((code, first)) = step_of.get(&base) {
                diags.push(
                    Diagnostic::error(
                        "E0208",
                        a.span,
                        format!("§{base} is under two sequence-of-play steps: \"{code}\" and \"{}\"", s.code),
                    )
                    .with_label(*first, "first here")
                    .with_paragraph(base.clone()),
                );
            } else {
                step_of.insert(base, (s.code.clone(), a.span));
            }
        }
    }
    // External references: (anchor, the paragraph citing it), each once.
    let mut external: BTreeSet<(String, String)> = BTreeSet::new();
    let mut encoded: BTreeSet<String> = BTreeSet::new();
    // Modifier lines' anchors are checked here and come back among the statement
    // anchors when the set's body is compiled: report each once.
    let mut checked_line_anchors: BTreeSet<Span> = BTreeSet::new();
    let check_anchor = |a: &Anchor, diags: &mut Vec<Diagnostic>, encoded: &mut BTreeSet<String>| {
        if let Some(b) = contents.check(a, scheme, diags) {
            encoded.insert(b);
        }
    };
    for d in &book.decls {
        // A finding names the paragraphs it is about; it does not encode them.
        let is_finding = matches!(d.kind, DeclKind::Finding { .. });
        let citing = d
            .anchors
            .iter()
            .find(|a| contents.external(a).is_none())
            .or(d.anchors.first())
            .map(|a| a.text.clone())
            .unwrap_or_default();
        for a in &d.anchors {
            if contents.external(a).is_some() {
                external.insert((a.text.clone(), citing.clone()));
            }
            if is_finding {
                let _ = contents.check(a, scheme, diags);
            } else {
                check_anchor(a, diags, &mut encoded);
            }
        }
        if let DeclKind::Waives { targets, .. } = &d.kind {
            for a in targets {
                if contents.external(a).is_some() {
                    external.insert((a.text.clone(), citing.clone()));
                } else if external_parts(&a.text).is_some() && scheme != Scheme::Rule {
                    contents.check(a, scheme, diags);
                }
            }
        }
        match &d.kind {
            DeclKind::Modifiers(m) => {
                for l in &m.lines {
                    for a in l.anchor.iter().chain(&l.also) {
                        checked_line_anchors.insert(a.span);
                        check_anchor(a, diags, &mut encoded);
                    }
                }
            }
            DeclKind::Scenario(s) => {
                for st in &s.setups {
                    if let Some(a) = &st.anchor {
                        check_anchor(a, diags, &mut encoded);
                    }
                }
            }
            DeclKind::Formations { faces, changes, .. } => {
                for a in faces.iter().flat_map(|f| &f.anchors).chain(changes.iter().flat_map(|c| &c.anchors))
                {
                    check_anchor(a, diags, &mut encoded);
                }
            }
            DeclKind::Deck { cards, .. } => {
                for a in cards.iter().flat_map(|c| &c.anchors) {
                    check_anchor(a, diags, &mut encoded);
                }
            }
            _ => {}
        }
    }

    // ---------------------------------------------------------------- names
    let decls = &book.decls;
    env.phases = crate::points::phase_names(decls).into_iter().collect();
    for d in decls {
        let para = first_para(d);
        match &d.kind {
            DeclKind::Sides(list) => {
                for s in list {
                    if env.declare("value", s, diags, &para) {
                        env.globals.insert(s.name.clone(), Global::Side(env.sides.len() as u8));
                        env.sides.push(s.name.clone());
                    }
                }
            }
            DeclKind::Rating { name, range, .. } if env.declare("rating", name, diags, &para) => {
                env.ratings.push((name.name.clone(), range.lo, range.hi));
            }
            DeclKind::Classes(list) => {
                for c in list {
                    if env.declare("class", c, diags, &para) {
                        env.classes.push(c.name.clone());
                    }
                }
            }
            DeclKind::Marker { name, target } if env.declare("marker", name, diags, &para) => {
                env.markers.push((name.name.clone(), *target));
            }
            DeclKind::Track { name, per_side, per_unit, per_group, second, values }
                if env.declare("track", name, diags, &para) =>
            {
                let (lo, hi) = track_bounds(values);
                env.tracks.push((name.name.clone(), *per_side || *per_unit || per_group.is_some(), lo, hi));
                env.track_holds.push(match values {
                    TrackValues::Holds(t) => Some(t.clone()),
                    TrackValues::Range(_) => None,
                });
                env.track_per_unit.push(*per_unit);
                let key = track_key(per_group.as_ref());
                env.track_key.push(key);
                env.track_group.push(per_group.clone().filter(|_| key == SpaceKey::None));
                env.track_second.push(second.clone());
            }
            DeclKind::Results { name, codes } if env.declare("type", name, diags, &para) => {
                let g = env.groups.len();
                let mut syms = Vec::new();
                for c in codes {
                    if env.declare("value", c, diags, &para) {
                        let sym = env.symbols.len() as u16;
                        env.symbols.push((c.name.clone(), g));
                        env.globals.insert(c.name.clone(), Global::Code(sym, g));
                        syms.push(sym);
                    }
                }
                env.groups.push((name.name.clone(), syms));
            }
            // A deck is a group of codes, its cards, with attributes (6.15f).
            DeclKind::Deck { name, cards, .. } if env.declare("type", name, diags, &para) => {
                let g = env.groups.len();
                let mut syms = Vec::new();
                for c in cards {
                    if env.declare("value", &c.name, diags, &para) {
                        let sym = env.symbols.len() as u16;
                        env.symbols.push((c.name.name.clone(), g));
                        env.globals.insert(c.name.name.clone(), Global::Code(sym, g));
                        syms.push(sym);
                    }
                    for a in &c.attrs {
                        match lit_ty(&a.value) {
                            Some(t) => match env.card_attrs.iter().find(|x| x.0 == a.name.name) {
                                Some(prev) if prev.1 != t => diags.push(
                                    Diagnostic::error(
                                        "E0301",
                                        a.value.span,
                                        format!(
                                            "card attribute `{}` is {} on another card",
                                            a.name.name,
                                            prev.1.name(&[])
                                        ),
                                    )
                                    .with_paragraph(para.clone()),
                                ),
                                Some(_) => {}
                                None => env.card_attrs.push((a.name.name.clone(), t)),
                            },
                            None => diags.push(
                                Diagnostic::error(
                                    "E0301",
                                    a.value.span,
                                    "a card attribute is an Int or a Bool",
                                )
                                .with_paragraph(para.clone()),
                            ),
                        }
                    }
                }
                env.decks.push((name.name.clone(), g));
                env.groups.push((name.name.clone(), syms));
            }
            DeclKind::Terrain { name, .. } if env.declare("value", name, diags, &para) => {
                env.globals.insert(name.name.clone(), Global::Terrain(env.terrains.len() as u16));
                env.terrains.push(name.name.clone());
            }
            DeclKind::Hexside { name, .. } if env.declare("feature", name, diags, &para) => {
                env.hexsides.push(name.name.clone());
            }
            DeclKind::Ruling(r) if env.declare("ruling", &r.name, diags, &para) => {
                let alts: Vec<String> = r.alternatives.iter().map(|a| a.name.name.clone()).collect();
                env.rulings.push((r.name.name.clone(), alts));
            }
            DeclKind::Counters { counters, .. } => {
                for c in counters {
                    if env.counters.contains(&c.name) {
                        diags.push(
                            Diagnostic::error(
                                "E0101",
                                c.name_span,
                                format!("counter {:?} is declared twice", c.name),
                            )
                            .with_paragraph(para.clone()),
                        );
                    }
                    env.counters.push(c.name.clone());
                }
            }
            DeclKind::Scenario(s) => {
                for (f, _) in &s.flags {
                    if !env.flags.contains(&f.name) {
                        env.flags.push(f.name.clone());
                    }
                }
            }
            DeclKind::Map(m) => {
                for (r, _) in &m.regions {
                    if env.regions.contains(&r.name) {
                        diags.push(
                            Diagnostic::error(
                                "E0101",
                                r.span,
                                format!("region `{}` is declared twice", r.name),
                            )
                            .with_paragraph(para.clone()),
                        );
                    } else {
                        env.regions.push(r.name.clone());
                    }
                }
            }
            _ => {}
        }
    }
    // Unit types need classes.
    for d in decls {
        if let DeclKind::Unit { name, classes, steps } = &d.kind {
            let para = first_para(d);
            if !env.declare("value", name, diags, &para) {
                continue;
            }
            let mut mask = 0u64;
            for c in classes {
                match env.class_index(&c.name) {
                    Some(i) if i < 64 => mask |= 1 << i,
                    _ => {
                        let mut dg =
                            Diagnostic::error("E0104", c.span, format!("unknown class `{}`", c.name))
                                .with_paragraph(para.clone());
                        if let Some(s) = crate::env::suggest(&c.name, env.classes.iter().map(|s| s.as_str()))
                        {
                            dg = dg.with_note(format!("did you mean `{s}`?"));
                        }
                        diags.push(dg);
                    }
                }
            }
            let st = steps.map(|s| s.0.clamp(1, 8) as u8).unwrap_or(1);
            env.globals.insert(name.name.clone(), Global::UnitType(env.unit_types.len() as u16));
            env.unit_types.push((name.name.clone(), mask, st, para));
        }
    }
    // Faces of unit types (formation names are values: before any body or signature).
    crate::facing::declare(decls, &mut env, diags);
    // Movement modes (their names are values of the group `Mode`).
    declare_modes(decls, &mut env, diags);
    // Terrain and hexside attribute schemas.
    let terr: Vec<(&Ident, &[Attr], String)> = decls
        .iter()
        .filter_map(|d| match &d.kind {
            DeclKind::Terrain { name, attrs, .. } => Some((name, attrs.as_slice(), first_para(d))),
            _ => None,
        })
        .collect();
    let (tschema, tvals) = attrs(&terr, "terrain", diags);
    let sides: Vec<(&Ident, &[Attr], String)> = decls
        .iter()
        .filter_map(|d| match &d.kind {
            DeclKind::Hexside { name, attrs, .. } => Some((name, attrs.as_slice(), first_para(d))),
            _ => None,
        })
        .collect();
    let (sschema, svals) = attrs(&sides, "hexside", diags);
    env.terrain_attrs = tschema;
    env.hexside_attrs = sschema;
    if env.hexsides.len() > 32 {
        diags.push(Diagnostic::error("E0506", Span::default(), "at most 32 hexside features are supported"));
    }
    if env.markers.len() > 64 {
        diags.push(Diagnostic::error("E0107", Span::default(), "at most 64 markers are supported"));
    }

    // Optional rules.
    for d in decls {
        let opt = match &d.kind {
            DeclKind::OptionRule { name, title } => Some((name, title)),
            // An optional layer is an optional rule: `optional(name)`, `--option name`.
            DeclKind::Layer { name, title, optional: true, .. } => Some((name, title)),
            _ => None,
        };
        if let Some((name, title)) = opt {
            let para = first_para(d);
            if env.declare("option", name, diags, &para) {
                env.options.push(name.name.clone());
                let p = env.para(&para);
                prog.options.push(OptionDef { name: name.name.clone(), title: title.clone(), para: p });
            }
        }
    }

    // Cups (their value types need result groups).
    for d in decls {
        if let DeclKind::Cup { name, ty } = &d.kind {
            let para = first_para(d);
            if !env.declare("cup", name, diags, &para) {
                continue;
            }
            let t = match env.ty(ty) {
                Ok(t) => t,
                Err(e) => {
                    diags.push(e.with_paragraph(para.clone()));
                    Ty::Error
                }
            };
            env.cups.push((name.name.clone(), t));
            let p = env.para(&para);
            prog.cups.push(CupDef { name: name.name.clone(), para: p });
        }
    }

    // Hands: a list of values per side (their value types need result groups and decks).
    for d in decls {
        if let DeclKind::Hand { name, ty } = &d.kind {
            let para = first_para(d);
            if !env.declare("hand", name, diags, &para) {
                continue;
            }
            let t = match env.ty(ty) {
                Ok(t) => t,
                Err(e) => {
                    diags.push(e.with_paragraph(para.clone()));
                    Ty::Error
                }
            };
            env.hands.push((name.name.clone(), t));
            let p = env.para(&para);
            prog.hands.push(HandDef { name: name.name.clone(), para: p });
        }
    }

    // Callables: ids and signatures (types need result groups).
    let mut callable_decls: Vec<&Decl> = Vec::new();
    for d in decls {
        let para = first_para(d);
        let (name, params, ret, kind): (Ident, &[Param], Ty, CallableKind) = match &d.kind {
            DeclKind::Fn { name, params, ret, .. } => {
                let r = match env.ty(ret) {
                    Ok(t) => t,
                    Err(e) => {
                        diags.push(e.with_paragraph(para.clone()));
                        Ty::Error
                    }
                };
                (name.clone(), params, r, CallableKind::Fn)
            }
            DeclKind::Procedure { name, params, ret, .. } => {
                let r = match ret.as_ref().map(|r| env.ty(r)) {
                    None => Ty::Nil,
                    Some(Ok(t)) => t,
                    Some(Err(e)) => {
                        diags.push(e.with_paragraph(para.clone()));
                        Ty::Error
                    }
                };
                (name.clone(), params, r, CallableKind::Procedure)
            }
            DeclKind::Modifiers(m) => (m.name.clone(), &m.params, Ty::Int, CallableKind::Modifiers),
            DeclKind::Sequence(b) => {
                (Ident { name: "sequence".into(), span: b.span }, &[][..], Ty::Nil, CallableKind::Procedure)
            }
            _ => continue,
        };
        if !env.declare("callable", &name, diags, &para) {
            continue;
        }
        let mut ptys = Vec::new();
        for p in params {
            match env.ty(&p.ty) {
                Ok(t) => ptys.push(t),
                Err(e) => {
                    diags.push(e.with_paragraph(para.clone()));
                    ptys.push(Ty::Error);
                }
            }
        }
        if kind == CallableKind::Modifiers {
            ptys.push(Ty::Int); // the base value
        }
        let id = callable_decls.len() as u32;
        env.callables.insert(name.name.clone(), Sig { id, params: ptys, ret, kind, span: name.span, para });
        callable_decls.push(d);
    }

    // ---------------------------------------------------------------- map
    let maps: Vec<&Decl> =
        decls.iter().map(|d| &**d).filter(|d| matches!(d.kind, DeclKind::Map(_))).collect();
    if let Some(d) = maps.first() {
        if let DeclKind::Map(m) = &d.kind {
            let para = first_para(d);
            prog.map = crate::map::lower(&mut env, m, &para, diags);
            crate::facing::check_map(decls, &env, diags);
            prog.map.para = env.para(&para);
            if let Some(s) = &m.supplied {
                prog.supplied.push(SuppliedDef {
                    what: format!("map \"{}\"", m.title),
                    reason: s.reason.clone(),
                    para: env.para(&para),
                });
            }
        }
    }
    for d in maps.iter().skip(1) {
        diags.push(
            Diagnostic::error("E0101", d.span, "a second map declaration").with_paragraph(first_para(d)),
        );
    }

    // ---------------------------------------------------------------- tables
    let mut tables = Vec::new();
    let mut table_paras = Vec::new();
    let mut table_decls = Vec::new();
    for d in decls {
        if let DeclKind::Table(t) = &d.kind {
            let para = first_para(d);
            if !env.declare("table", &t.name, diags, &para) {
                continue;
            }
            env.tables.push(t.name.name.clone());
            let td = crate::tables::lower(&mut env, t, &para, die, diags);
            if let Some(s) = &t.supplied {
                prog.supplied.push(SuppliedDef {
                    what: format!("table {}", t.name.name),
                    reason: s.reason.clone(),
                    para: env.para(&para),
                });
            }
            tables.push(td);
            table_paras.push(para);
            table_decls.push(t);
        }
    }

    // ---------------------------------------------------------------- bodies
    let mut functions: Vec<Option<Function>> = vec![None; callable_decls.len()];
    let mut cx = Cx {
        env: &mut env,
        consts: Vec::new(),
        strings: Vec::new(),
        diags,
        builtins: crate::builtins::signatures(),
        anchors: Vec::new(),
        tables: &tables,
        table_paras,
        modifier_info: Default::default(),
        inline_bodies: inline_candidates(decls),
        pools: Default::default(),
        row_reach: vec![crate::reach::Reach::Never; tables.len()],
    };
    // Modifier sets first: callers use their ranges for the off-table check.
    let order: Vec<usize> = (0..callable_decls.len())
        .filter(|&i| matches!(callable_decls[i].kind, DeclKind::Modifiers(_)))
        .chain(
            (0..callable_decls.len()).filter(|&i| !matches!(callable_decls[i].kind, DeclKind::Modifiers(_))),
        )
        .collect();
    for i in order {
        let d = callable_decls[i];
        let para = first_para(d);
        let f = match &d.kind {
            DeclKind::Modifiers(m) => {
                let sig = cx.env.callables.get(&m.name.name).cloned();
                let mut fc = FnCx::new(&mut cx, &para, d.span, true, "modifiers set");
                if let Some(sig) = &sig {
                    for (p, t) in m.params.iter().zip(&sig.params) {
                        fc.param(&p.name.name, t.clone());
                    }
                }
                fc.param("base", Ty::Int);
                let (iv, paras) = fc.modifiers(m);
                let f = fc.finish(&m.name.name, FnKind::Modifiers, (m.params.len() + 1) as u16);
                cx.modifier_info.insert(m.name.name.clone(), (iv, paras));
                f
            }
            DeclKind::Fn { name, params, body, .. } => {
                let sig = cx.env.callables.get(&name.name).cloned();
                let mut fc = FnCx::new(&mut cx, &para, d.span, true, "fn");
                if let Some(sig) = &sig {
                    for (p, t) in params.iter().zip(&sig.params) {
                        fc.param(&p.name.name, t.clone());
                    }
                }
                let o = fc.expr(body);
                if let Some(sig) = &sig {
                    if !o.ty.fits(&sig.ret) {
                        let g = fc.cx.env.group_names();
                        let m = format!(
                            "`{}` returns {} but its body is {}",
                            name.name,
                            sig.ret.name(&g),
                            o.ty.name(&g)
                        );
                        // The result of a body with `let`s is its last expression.
                        let mut result = body;
                        while let ExprKind::Let { body: b, .. } = &result.kind {
                            result = b;
                        }
                        fc.cx
                            .diags
                            .push(Diagnostic::error("E0305", result.span, m).with_paragraph(para.clone()));
                    }
                }
                fc.ret(o.reg);
                fc.finish(&name.name, FnKind::Fn, params.len() as u16)
            }
            DeclKind::Procedure { name, params, ret, body } => {
                let sig = cx.env.callables.get(&name.name).cloned();
                let mut fc = FnCx::new(&mut cx, &para, d.span, false, "procedure");
                if let Some(sig) = &sig {
                    for (p, t) in params.iter().zip(&sig.params) {
                        fc.param(&p.name.name, t.clone());
                    }
                    if ret.is_some() {
                        fc.set_returns(sig.ret.clone());
                    }
                }
                fc.block(body);
                if let Some(r) = ret {
                    if !crate::func::block_returns(body) {
                        let m = format!(
                            "procedure `{}` returns a value but can reach its end without `return`",
                            name.name
                        );
                        fc.cx.diags.push(
                            Diagnostic::error("E0308", name.span, m)
                                .with_label(r.span(), "declared result")
                                .with_note("end every path with `return VALUE;`")
                                .with_paragraph(para.clone()),
                        );
                    }
                }
                fc.finish(&name.name, FnKind::Procedure, params.len() as u16)
            }
            DeclKind::Sequence(body) => {
                let mut fc = FnCx::new(&mut cx, &para, d.span, false, "procedure");
                fc.block(body);
                fc.finish("sequence", FnKind::Procedure, 0)
            }
            _ => continue,
        };
        functions[i] = Some(f);
    }
    let mut functions: Vec<Function> = functions.into_iter().map(|f| f.unwrap_or_default()).collect();

    // Triggers, interrupts and invariants: the rules that run at points of play.
    crate::points::compile_points(&mut cx, decls, &mut functions, &mut prog);

    // Hidden per-unit tracks, ratings and types, and the public estimate shown to the
    // other sides (6.17c).
    for d in decls {
        if let DeclKind::Hidden { tracks, shown, revealed_by } = &d.kind {
            let para = first_para(d);
            // `revealed by M`: a marker placed on units (E0107 otherwise).
            let revealed_by = revealed_by.as_ref().and_then(|m| match cx.env.marker_index(&m.name) {
                Some(i) if cx.env.markers[i].1 == MarkerTarget::Unit => {
                    cx.env.used.insert(m.name.clone());
                    Some(i as u16)
                }
                Some(_) => {
                    cx.diags.push(
                        Diagnostic::error(
                            "E0107",
                            m.span,
                            format!("marker `{}` is not placed on units", m.name),
                        )
                        .with_note("a hidden unit is revealed by a marker declared `on unit`")
                        .with_paragraph(para.clone()),
                    );
                    None
                }
                None => {
                    cx.diags.push(
                        Diagnostic::error("E0107", m.span, format!("unknown marker `{}`", m.name))
                            .with_paragraph(para.clone()),
                    );
                    None
                }
            });
            let sig = cx.env.callables.get(&shown.name).cloned();
            if sig.is_none() {
                cx.diags.push(
                    Diagnostic::error("E0109", shown.span, format!("unknown function `{}`", shown.name))
                        .with_paragraph(para.clone()),
                );
            }
            // The estimate's id when it is a `fn(Unit) -> want` (E0601 otherwise, once).
            let mut reported = false;
            let mut est = |cx: &mut Cx, want: Ty| -> Option<u32> {
                let sig = sig.as_ref()?;
                if sig.kind == CallableKind::Fn && sig.params == [Ty::Unit] && sig.ret == want {
                    cx.env.used.insert(shown.name.clone());
                    return Some(sig.id);
                }
                if !reported {
                    reported = true;
                    let g = cx.env.group_names();
                    cx.diags.push(
                        Diagnostic::error(
                            "E0601",
                            shown.span,
                            format!("`{}` must be `fn(Unit) -> {}`", shown.name, want.name(&g)),
                        )
                        .with_paragraph(para.clone()),
                    );
                }
                None
            };
            for t in tracks {
                let idx = cx.env.tracks.iter().position(|x| x.0 == t.name);
                match idx {
                    // One key, a unit: the view hides the values of other sides' units.
                    Some(i)
                        if cx.env.track_per_unit.get(i).copied().unwrap_or(false)
                            && cx.env.track_second.get(i).map(|s| s.is_none()).unwrap_or(true)
                            && cx.env.track_holds.get(i).map(|h| h.is_none()).unwrap_or(true) =>
                    {
                        cx.env.used.insert(t.name.clone());
                        if let Some(f) = est(&mut cx, Ty::Int) {
                            let p = cx.env.para(&para);
                            prog.hidden.push(HiddenDef { track: i as u16, shown: f, para: p, revealed_by });
                        }
                    }
                    // `hidden type shown f`: a block's type (and classes) hidden.
                    None if t.name == "type" => {
                        if let Some(f) = est(&mut cx, Ty::UnitType) {
                            let p = cx.env.para(&para);
                            prog.hidden_type = Some(HiddenType { shown: f, para: p, revealed_by });
                        }
                    }
                    // A rating: its value on the counter hidden.
                    None if cx.env.rating_index(&t.name).is_some() => {
                        let r = cx.env.rating_index(&t.name).unwrap_or(0);
                        cx.env.used.insert(t.name.clone());
                        if let Some(f) = est(&mut cx, Ty::Int) {
                            let p = cx.env.para(&para);
                            prog.hidden_ratings.push(HiddenRating {
                                rating: r as u16,
                                shown: f,
                                para: p,
                                revealed_by,
                            });
                        }
                    }
                    _ => cx.diags.push(
                        Diagnostic::error(
                            "E0113",
                            t.span,
                            format!(
                                "`{}` is not a per-unit track of numbers with one key, a rating or `type`",
                                t.name
                            ),
                        )
                        .with_paragraph(para.clone()),
                    ),
                }
            }
        }
    }

    // Decks: each card's attributes and event procedure `(Side)` (6.15f).
    prog.card_attrs = cx.env.card_attrs.iter().map(|a| a.0.clone()).collect();
    for d in decls {
        if let DeclKind::Deck { name, cards, supplied } = &d.kind {
            let para = first_para(d);
            if let Some(sp) = supplied {
                let p = cx.env.para(&para);
                prog.supplied.push(SuppliedDef {
                    what: format!("deck {} ({} cards)", name.name, cards.len()),
                    reason: sp.reason.clone(),
                    para: p,
                });
            }
            let Some(&(_, g)) = cx.env.decks.iter().find(|x| x.0 == name.name) else { continue };
            let syms = cx.env.groups.get(g).map(|x| x.1.clone()).unwrap_or_default();
            let mut defs = Vec::new();
            for c in cards {
                let Some(&sym) = syms
                    .iter()
                    .find(|&&s| cx.env.symbols.get(s as usize).map(|x| x.0 == c.name.name).unwrap_or(false))
                else {
                    continue;
                };
                let mut values = vec![0i64; cx.env.card_attrs.len()];
                for a in &c.attrs {
                    if let Some(i) = cx.env.card_attrs.iter().position(|x| x.0 == a.name.name) {
                        values[i] = match a.value.kind {
                            LiteralKind::Int(v) => v,
                            LiteralKind::Bool(b) => i64::from(b),
                            _ => 0,
                        };
                    }
                }
                let cpara = c.anchors.first().map(|a| a.text.clone()).unwrap_or_else(|| para.clone());
                let event = match &c.event {
                    None => None,
                    Some(ev) => match cx.env.callables.get(&ev.name).cloned() {
                        Some(sig) if sig.kind == CallableKind::Procedure && sig.params == [Ty::Side] => {
                            cx.env.used.insert(ev.name.clone());
                            Some(sig.id)
                        }
                        Some(_) => {
                            cx.diags.push(
                                Diagnostic::error(
                                    "E0601",
                                    ev.span,
                                    format!(
                                        "the event of card `{}` must be a `procedure(Side)`",
                                        c.name.name
                                    ),
                                )
                                .with_paragraph(cpara.clone()),
                            );
                            None
                        }
                        None => {
                            let cands: Vec<String> = cx.env.callables.keys().cloned().collect();
                            let mut dg = Diagnostic::error(
                                "E0109",
                                ev.span,
                                format!("unknown procedure `{}`", ev.name),
                            )
                            .with_paragraph(cpara.clone());
                            if let Some(sg) = crate::env::suggest(&ev.name, cands.iter().map(|s| s.as_str()))
                            {
                                dg = dg.with_note(format!("did you mean `{sg}`?"));
                            }
                            cx.diags.push(dg);
                            None
                        }
                    },
                };
                let p = cx.env.para(&cpara);
                defs.push(CardDef { sym, values, event, para: p });
            }
            let p = cx.env.para(&para);
            prog.decks.push(DeckDef { name: name.name.clone(), cards: defs, para: p });
        }
    }

    // Players, teams and derived control (players.rs).
    crate::players::compile_players(&mut cx, decls, &mut prog);

    // Hooks.
    let hook = |cx: &mut Cx, id: &Ident, want: &[Ty], ret: Ty, para: &str| -> Option<FnId> {
        let Some(sig) = cx.env.callables.get(&id.name).cloned() else {
            cx.diags.push(
                Diagnostic::error("E0109", id.span, format!("unknown function `{}`", id.name))
                    .with_paragraph(para.to_string()),
            );
            return None;
        };
        cx.env.used.insert(id.name.clone());
        let g = cx.env.group_names();
        let ok = sig.kind == CallableKind::Fn
            && sig.params.len() == want.len()
            && sig.params.iter().zip(want).all(|(a, b)| a.fits(b))
            && sig.ret.fits(&ret);
        if !ok {
            let want_s: Vec<String> = want.iter().map(|t| t.name(&g)).collect();
            let m = format!("`{}` must be `fn({}) -> {}`", id.name, want_s.join(", "), ret.name(&g));
            cx.diags.push(
                Diagnostic::error("E0601", id.span, m)
                    .with_label(sig.span, "declared here")
                    .with_paragraph(para.to_string()),
            );
            return None;
        }
        Some(sig.id)
    };
    let mut score_seen = false;
    for d in decls {
        let para = first_para(d);
        match &d.kind {
            // The position score (6.17e): a pure `fn(Side) -> Int`, declared once.
            DeclKind::Score { func } => {
                if std::mem::replace(&mut score_seen, true) {
                    cx.diags.push(
                        Diagnostic::error("E0101", func.span, "a second score declaration")
                            .with_note("a rulebook declares one position score")
                            .with_paragraph(para.clone()),
                    );
                    continue;
                }
                prog.score = hook(&mut cx, func, &[Ty::Side], Ty::Int, &para);
                prog.score_para = cx.env.para(&para);
            }
            DeclKind::ZoneOfControl(f) => {
                prog.hooks.zoc = hook(&mut cx, f, &[Ty::Unit], Ty::Bool, &para);
                prog.hooks.zoc_para = cx.env.para(&para);
            }
            DeclKind::LineOfSight(hooks) => {
                if let (false, Some(h)) = (cx.env.map_dims.areas.is_empty(), hooks.first()) {
                    cx.diags.push(
                        Diagnostic::error("E0509", h.name.span, "an area map has no lines of sight to hook")
                            .with_paragraph(para.clone()),
                    );
                }
                for h in hooks {
                    let HookValue::Fn(f) = &h.value else {
                        cx.diags.push(
                            Diagnostic::error("E0601", h.name.span, "a line_of_sight hook names one fn")
                                .with_paragraph(para.clone()),
                        );
                        continue;
                    };
                    match h.name.name.as_str() {
                        "hex" => {
                            prog.hooks.los_hex =
                                hook(&mut cx, f, &[Ty::Hex, Ty::Hex, Ty::Hex], Ty::Bool, &para)
                        }
                        "hexside" => {
                            prog.hooks.los_side =
                                hook(&mut cx, f, &[Ty::Hex, Ty::Hex, Ty::Hex, Ty::Hex], Ty::Bool, &para)
                        }
                        other => cx.diags.push(
                            Diagnostic::error(
                                "E0601",
                                h.name.span,
                                format!("unknown hook `{other}` (hooks here: hex, hexside)"),
                            )
                            .with_paragraph(para.clone()),
                        ),
                    }
                }
            }
            DeclKind::Movement(hooks) | DeclKind::MovementMode(_, hooks) | DeclKind::Retreat(hooks) => {
                let is_move = !matches!(d.kind, DeclKind::Retreat(_));
                let mut mode = MoveMode::default();
                for h in hooks {
                    let single = |v: &HookValue| match v {
                        HookValue::Fn(f) => Some(f.clone()),
                        HookValue::List(_) => None,
                    };
                    match (is_move, h.name.name.as_str()) {
                        (true, "allowance") => {
                            if let Some(f) = single(&h.value) {
                                mode.allowance = hook(&mut cx, &f, &[Ty::Unit], Ty::Int, &para);
                            }
                        }
                        (true, "cost") => {
                            if let Some(f) = single(&h.value) {
                                mode.cost = hook(&mut cx, &f, &[Ty::Unit, Ty::Hex, Ty::Hex], Ty::Int, &para);
                            }
                        }
                        (true, "minimum") => {
                            if let Some(f) = single(&h.value) {
                                mode.minimum = hook(&mut cx, &f, &[], Ty::Int, &para);
                            }
                        }
                        (true, "stop") => {
                            if let Some(f) = single(&h.value) {
                                // `fn(Unit, Hex) -> Bool` sees the hex entered; `fn(Unit, Hex,
                                // Hex) -> Bool` the step (and so the hexside crossed).
                                let crossing =
                                    cx.env.callables.get(&f.name).is_some_and(|s| s.params.len() == 3);
                                let want: &[Ty] = if crossing {
                                    &[Ty::Unit, Ty::Hex, Ty::Hex]
                                } else {
                                    &[Ty::Unit, Ty::Hex]
                                };
                                mode.stop = hook(&mut cx, &f, want, Ty::Bool, &para);
                                mode.stop_crossing = crossing && mode.stop.is_some();
                            }
                        }
                        (false, "enter") => {
                            if let Some(f) = single(&h.value) {
                                prog.hooks.retreat_enter =
                                    hook(&mut cx, &f, &[Ty::Unit, Ty::Hex, Ty::Hex], Ty::Bool, &para);
                            }
                        }
                        (false, "end") => {
                            if let Some(f) = single(&h.value) {
                                prog.hooks.retreat_end =
                                    hook(&mut cx, &f, &[Ty::Unit, Ty::Hex], Ty::Bool, &para);
                            }
                        }
                        (false, "prefer") => {
                            let items: Vec<(Option<HookScope>, Ident)> = match &h.value {
                                HookValue::List(l) => l.clone(),
                                HookValue::Fn(f) => vec![(None, f.clone())],
                            };
                            for (scope, f) in items {
                                if let Some(id) = hook(&mut cx, &f, &[Ty::Unit, Ty::Hex], Ty::Int, &para) {
                                    let s = if scope == Some(HookScope::Each) {
                                        PreferScope::Each
                                    } else {
                                        PreferScope::End
                                    };
                                    prog.hooks.retreat_prefer.push((s, id));
                                }
                            }
                        }
                        (_, other) => {
                            let known =
                                if is_move { "allowance, cost, stop, minimum" } else { "enter, end, prefer" };
                            cx.diags.push(
                                Diagnostic::error(
                                    "E0601",
                                    h.name.span,
                                    format!("unknown hook `{other}` (hooks here: {known})"),
                                )
                                .with_paragraph(para.clone()),
                            );
                        }
                    }
                }
                let p = cx.env.para(&para);
                mode.para = p;
                match &d.kind {
                    DeclKind::Movement(_) => {
                        mode.sym = cx.env.modes.first().map(|m| m.1).unwrap_or(0);
                        set_default_mode(&mut prog, &mode);
                        if cx.env.mode_group.is_some() {
                            prog.hooks.move_modes.insert(0, mode);
                        }
                    }
                    DeclKind::MovementMode(name, _) => {
                        mode.sym = cx.env.modes.iter().find(|m| m.0 == name.name).map(|m| m.1).unwrap_or(0);
                        // Without an unnamed block, the first named mode is the default.
                        if cx.env.modes.first().is_some_and(|m| m.0 == name.name) {
                            set_default_mode(&mut prog, &mode);
                        }
                        prog.hooks.move_modes.push(mode);
                    }
                    _ => prog.hooks.retreat_para = p,
                }
            }
            _ => {}
        }
    }
    // The default mode first, the others in declaration order.
    prog.hooks.move_modes.sort_by_key(|m| cx.env.modes.iter().position(|x| x.1 == m.sym));
    prog.sequence = cx.env.callables.get("sequence").map(|s| s.id);
    if prog.sequence.is_none() && !book.decls.is_empty() {
        cx.diags.push(Diagnostic::warning(
            "W0004",
            Span::default(),
            "the rulebook declares no `sequence`: it can be checked but not played",
        ));
    }

    // ---------------------------------------------------------------- counters, scenarios
    for d in decls {
        let para = first_para(d);
        match &d.kind {
            DeclKind::Counters { supplied, counters } => {
                for c in counters {
                    match crate::scenario::counter(cx.env, c, &para, cx.diags) {
                        Some(cd) => prog.counters.push(cd),
                        None => prog.counters.push(CounterDef {
                            name: c.name.clone(),
                            side: 0,
                            unit_type: 0,
                            values: vec![],
                            steps: 1,
                            face_values: vec![],
                        }),
                    }
                }
                if let Some(s) = supplied {
                    prog.supplied.push(SuppliedDef {
                        what: format!("counters ({})", counters.len()),
                        reason: s.reason.clone(),
                        para: cx.env.para(&para),
                    });
                }
            }
            DeclKind::Terrain { name, supplied: Some(s), .. }
            | DeclKind::Hexside { name, supplied: Some(s), .. } => {
                prog.supplied.push(SuppliedDef {
                    what: format!("terrain/hexside {}", name.name),
                    reason: s.reason.clone(),
                    para: cx.env.para(&para),
                });
            }
            _ => {}
        }
    }
    for d in decls {
        if let DeclKind::Scenario(s) = &d.kind {
            let para = first_para(d);
            if prog.scenarios.iter().any(|x| x.id == s.id) {
                cx.diags.push(
                    Diagnostic::error("E0101", s.span, format!("scenario {:?} is declared twice", s.id))
                        .with_paragraph(para.clone()),
                );
                continue;
            }
            let types: Vec<usize> = prog.counters.iter().map(|c| c.unit_type as usize).collect();
            let sd = crate::scenario::scenario(cx.env, s, &para, &types, cx.diags);
            for setup in &s.setups {
                if let Some(sp) = &setup.supplied {
                    let p = setup.anchor.as_ref().map(|a| a.text.clone()).unwrap_or(para.clone());
                    prog.supplied.push(SuppliedDef {
                        what: format!("scenario {} setup of {}", s.id, setup.side.name),
                        reason: sp.reason.clone(),
                        para: cx.env.para(&p),
                    });
                }
            }
            // Counters placed in the other side's setup.
            prog.scenarios.push(sd);
        }
    }

    // ---------------------------------------------------------------- examples
    let mut examples = Vec::new();
    for d in decls {
        if let DeclKind::Example(ex) = &d.kind {
            let para = first_para(d);
            let mut data = ExampleData {
                title: ex.title.clone(),
                para: para.clone(),
                rule_para: None,
                scenario: None,
                places: Vec::new(),
                starts: Vec::new(),
                dice: Vec::new(),
                calls: Vec::new(),
                expects: Vec::new(),
                probes: Vec::new(),
                span: d.span,
            };
            for it in &ex.items {
                match it {
                    ExampleItem::Scenario(id, sp) => match prog.scenarios.iter().position(|s| &s.id == id) {
                        Some(i) => data.scenario = Some(i),
                        None => cx.diags.push(
                            Diagnostic::error("E0505", *sp, format!("no scenario {id:?}"))
                                .with_paragraph(para.clone()),
                        ),
                    },
                    ExampleItem::Place { unit, hex, span, start } => {
                        let ci = cx.env.counters.iter().position(|c| c == unit);
                        let h = crate::map::parse_hex(&cx.env.map_dims, &hex.text);
                        match (ci, h) {
                            (Some(c), Some(h)) => {
                                data.places.push((c as u16, h));
                                let t = prog.counters.get(c).map(|x| x.unit_type as usize).unwrap_or(0);
                                let (facing, face) =
                                    crate::facing::unit_start(cx.env, t, start, cx.diags, &para);
                                data.starts.push((c as u16, facing, face));
                            }
                            (None, _) => cx.diags.push(
                                Diagnostic::error("E0505", *span, format!("no counter named {unit:?}"))
                                    .with_paragraph(para.clone()),
                            ),
                            (_, None) => {
                                let (code, msg) = crate::map::space_error(&cx.env.map_dims, &hex.text);
                                cx.diags
                                    .push(Diagnostic::error(code, hex.span, msg).with_paragraph(para.clone()))
                            }
                        }
                    }
                    ExampleItem::Dice(v, _) => data.dice.extend(v.iter().copied()),
                    ExampleItem::Run { procedure, args, span } => {
                        if let Some(sig) = cx.env.callables.get(&procedure.name) {
                            data.rule_para = Some(sig.para.clone());
                        }
                        let stmt = Stmt {
                            anchor: None,
                            also: Vec::new(),
                            kind: StmtKind::Call { name: procedure.clone(), args: args.clone() },
                            span: *span,
                        };
                        let block = Block { stmts: vec![stmt], span: *span };
                        let mut fc = FnCx::new(&mut cx, &para, *span, false, "procedure");
                        fc.block(&block);
                        let f = fc.finish(&format!("example: {}", ex.title), FnKind::Procedure, 0);
                        data.calls.push(functions.len() as u32);
                        functions.push(f);
                    }
                    ExampleItem::Expect(e) => {
                        let before = cx.diags.len();
                        let mut fc = FnCx::new(&mut cx, &para, e.span, true, "expectation");
                        let o = fc.expr(e);
                        if !o.ty.fits(&Ty::Bool) {
                            fc.cx.diags.push(
                                Diagnostic::error("E0303", e.span, "an expectation must be Bool")
                                    .with_paragraph(para.clone()),
                            );
                        }
                        fc.ret(o.reg);
                        let f = fc.finish(&format!("expect: {}", ex.title), FnKind::Fn, 0);
                        data.expects.push((functions.len() as u32, e.span));
                        functions.push(f);
                        // A comparison's two sides, compiled apart for the W0003 report
                        // (actual beside expected); kept out of the program.
                        let probe = match &e.kind {
                            ExprKind::Binary(op, l, r)
                                if cx.diags.len() == before
                                    && matches!(
                                        op,
                                        BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
                                    ) =>
                            {
                                let side = |cx: &mut Cx, x: &Expr| {
                                    let mut fc = FnCx::new(cx, &para, x.span, true, "expectation");
                                    let o = fc.expr(x);
                                    fc.ret(o.reg);
                                    fc.finish(&format!("expect side: {}", ex.title), FnKind::Fn, 0)
                                };
                                let (fl, fr) = (side(&mut cx, l), side(&mut cx, r));
                                cx.diags.truncate(before);
                                Some(crate::examples::Probe {
                                    op: *op,
                                    left: (fl, l.span),
                                    right: (fr, r.span),
                                })
                            }
                            _ => None,
                        };
                        data.probes.push(probe);
                    }
                }
            }
            examples.push(data);
        }
    }

    // Statement anchors count as encoding their paragraphs.
    let stmt_anchors = std::mem::take(&mut cx.anchors);
    let consts = std::mem::take(&mut cx.consts);
    let strings = std::mem::take(&mut cx.strings);
    let row_reach = std::mem::take(&mut cx.row_reach);
    let table_paras = std::mem::take(&mut cx.table_paras);
    drop(cx);
    for ((t, reach), para) in table_decls.iter().zip(row_reach).zip(&table_paras) {
        crate::reach::lint(t, reach, para, diags);
    }
    for (a, citing) in &stmt_anchors {
        if contents.external(a).is_some() {
            external.insert((a.text.clone(), citing.clone()));
        }
        if checked_line_anchors.contains(&a.span) {
            continue;
        }
        if let Some(b) = contents.check(a, scheme, diags) {
            encoded.insert(b);
        }
    }

    // ---------------------------------------------------------------- lints
    for d in decls {
        let para = first_para(d);
        let (name, what) = match &d.kind {
            DeclKind::Table(t) => (&t.name, "table"),
            DeclKind::Modifiers(m) => (&m.name, "modifiers set"),
            DeclKind::Fn { name, .. } => (name, "fn"),
            DeclKind::Procedure { name, .. } => (name, "procedure"),
            _ => continue,
        };
        if !env.used.contains(&name.name) {
            diags.push(
                Diagnostic::warning("W0001", name.span, format!("{what} `{}` is never used", name.name))
                    .with_paragraph(para),
            );
        }
    }
    for e in &contents.entries {
        if e.waived.is_some() && encoded.contains(&e.number) {
            diags.push(
                Diagnostic::warning(
                    "W0002",
                    e.span,
                    format!("§{} is waived but declarations are anchored to it", e.number),
                )
                .with_paragraph(e.number.clone()),
            );
        }
    }

    // ---------------------------------------------------------------- assemble
    prog.paragraphs = env.paragraphs.clone();
    prog.sides = env.sides.clone();
    prog.ratings =
        env.ratings.iter().map(|(n, lo, hi)| RatingDef { name: n.clone(), lo: *lo, hi: *hi }).collect();
    prog.classes = env.classes.clone();
    prog.unit_types = env
        .unit_types
        .iter()
        .map(|(n, m, s, p)| UnitTypeDef {
            name: n.clone(),
            classes: *m,
            steps: *s,
            para: env.paragraphs.iter().position(|x| x == p).unwrap_or(0) as u16,
            faces: Vec::new(),
            transitions: Vec::new(),
        })
        .collect();
    crate::facing::assemble(&env, &mut prog);
    for d in decls {
        if let DeclKind::Marker { name, target } = &d.kind {
            let on = match target {
                MarkerTarget::Unit => MarkerOn::Unit,
                MarkerTarget::Hex => MarkerOn::Hex,
                MarkerTarget::Side => MarkerOn::Side,
            };
            let p = env.para(&first_para(d));
            if !prog.markers.iter().any(|m| m.name == name.name) {
                prog.markers.push(MarkerDef { name: name.name.clone(), on, para: p });
            }
        }
        if let DeclKind::Track { name, per_side, per_unit, per_group, second, values } = &d.kind {
            let p = env.para(&first_para(d));
            let key = track_key(per_group.as_ref());
            let second = match second {
                None => None,
                Some(AstKey::Side) => Some(RtTrackKey::Side),
                Some(AstKey::Unit) => Some(RtTrackKey::Unit),
                Some(AstKey::Group(g)) => match env.groups.iter().find(|x| x.0 == g.name) {
                    Some((_, codes)) => Some(RtTrackKey::Group(codes.clone())),
                    None => {
                        diags.push(
                            Diagnostic::error("E0102", g.span, format!("unknown results group `{}`", g.name))
                                .with_paragraph(first_para(d)),
                        );
                        None
                    }
                },
            };
            let group_syms: Vec<u16> = match per_group {
                Some(_) if key != SpaceKey::None => Vec::new(),
                Some(g) => match env.groups.iter().find(|x| x.0 == g.name) {
                    Some((_, codes)) => codes.clone(),
                    None => {
                        diags.push(
                            Diagnostic::error("E0102", g.span, format!("unknown results group `{}`", g.name))
                                .with_paragraph(first_para(d)),
                        );
                        Vec::new()
                    }
                },
                None => Vec::new(),
            };
            if !prog.tracks.iter().any(|t| t.name == name.name) {
                let (lo, hi) = track_bounds(values);
                prog.tracks.push(TrackDef {
                    name: name.name.clone(),
                    per_side: *per_side,
                    per_group: group_syms,
                    per_unit: *per_unit,
                    key,
                    second,
                    lo,
                    hi,
                    holds: track_holds(values, &env, diags, &first_para(d)),
                    para: p,
                });
            }
        }
        if let DeclKind::Finding { kind, description, ruling } = &d.kind {
            let para = first_para(d);
            if !crate::report::FINDING_KINDS.contains(&kind.name.as_str()) {
                diags.push(
                    Diagnostic::error("E0117", kind.span, format!("unknown finding kind `{}`", kind.name))
                        .with_note(format!("the kinds are {}", crate::report::FINDING_KINDS.join(", ")))
                        .with_paragraph(para.clone()),
                );
            }
            if let Some(r) = ruling {
                if !env.rulings.iter().any(|(n, _)| *n == r.name) {
                    diags.push(
                        Diagnostic::error("E0114", r.span, format!("unknown ruling `{}`", r.name))
                            .with_paragraph(para.clone()),
                    );
                }
            }
            report.findings.push(crate::report::FindingOut {
                kind: kind.name.clone(),
                description: description.clone(),
                paragraphs: d.anchors.iter().map(|a| a.text.clone()).collect(),
                ruling: ruling.as_ref().map(|r| r.name.clone()),
                source: "declared".into(),
            });
        }
        if let DeclKind::Ruling(r) = &d.kind {
            let paras: Vec<u16> = d.anchors.iter().map(|a| env.para(&a.text)).collect();
            let alternatives: Vec<(String, String)> =
                r.alternatives.iter().map(|a| (a.name.name.clone(), a.reading.clone())).collect();
            let default = r.alternatives.iter().position(|a| a.is_default).unwrap_or(0);
            if !prog.rulings.iter().any(|x| x.name == r.name.name) {
                prog.rulings.push(RulingDef {
                    name: r.name.name.clone(),
                    question: r.question.clone(),
                    alternatives,
                    default,
                    paras,
                });
            }
        }
    }
    prog.paragraphs = env.paragraphs.clone();
    prog.terrain_attrs = env.terrain_attrs.iter().map(|a| a.0.clone()).collect();
    prog.hexside_attrs = env.hexside_attrs.iter().map(|a| a.0.clone()).collect();
    prog.terrains = env
        .terrains
        .iter()
        .zip(tvals)
        .map(|(n, attrs)| FeatureDef { name: n.clone(), attrs, para: 0 })
        .collect();
    prog.hexsides = env
        .hexsides
        .iter()
        .zip(svals)
        .map(|(n, attrs)| FeatureDef { name: n.clone(), attrs, para: 0 })
        .collect();
    prog.symbols = env
        .symbols
        .iter()
        .map(|(n, g)| SymbolDef { name: n.clone(), group: env.groups[*g].0.clone() })
        .collect();
    prog.tables = tables;
    prog.functions = functions;
    prog.consts = consts;
    prog.strings = strings;
    prog.flags = env.flags.clone();

    // ---------------------------------------------------------------- report
    report.paragraphs = contents.entries.len();
    report.external = external.into_iter().collect();
    for e in &contents.entries {
        let status = if let Some(w) = &e.waived {
            report.waived.push((e.number.clone(), w.clone()));
            ContentStatus::Waived(w.clone())
        } else if encoded.contains(&e.number) {
            report.encoded.push(e.number.clone());
            ContentStatus::Encoded
        } else {
            report.missing.push(e.number.clone());
            ContentStatus::Missing
        };
        report.contents.push((e.number.clone(), e.title.clone(), status));
        report.contents_spans.push(e.span);
    }
    report.anchors = contents.anchors.take();
    report.supplied = prog
        .supplied
        .iter()
        .map(|s| (s.what.clone(), s.reason.clone(), prog.para(s.para).to_string()))
        .collect();
    report.rulings = prog.rulings.iter().map(|r| r.name.clone()).collect();
    report.tables = prog.tables.len();
    report.functions = prog.functions.len();
    report.invariants = prog
        .invariants
        .iter()
        .map(|i| (i.name.clone(), i.paras.iter().map(|&p| prog.para(p).to_string()).collect()))
        .collect();
    Out { program: prog, report, examples }
}

/// `fn`s whose bodies are small enough to inline (counted in expression nodes).
fn inline_candidates(
    decls: &[crate::layers::DeclRef<'_>],
) -> std::collections::BTreeMap<String, std::rc::Rc<(Vec<String>, Expr, String)>> {
    let mut m = std::collections::BTreeMap::new();
    for d in decls {
        if let DeclKind::Fn { name, params, body, .. } = &d.kind {
            if expr_size(body) <= 48 {
                let ps = params.iter().map(|p| p.name.name.clone()).collect();
                m.insert(name.name.clone(), std::rc::Rc::new((ps, body.clone(), first_para(d))));
            }
        }
    }
    m
}

fn expr_size(e: &Expr) -> usize {
    1 + match &e.kind {
        ExprKind::Neg(a)
        | ExprKind::Not(a)
        | ExprKind::Field(a, _)
        | ExprKind::Is(a, _)
        | ExprKind::Has(a, _) => expr_size(a),
        ExprKind::Binary(_, a, b) => expr_size(a) + expr_size(b),
        ExprKind::If(a, b, c) => expr_size(a) + expr_size(b) + expr_size(c),
        ExprKind::Call(_, args) | ExprKind::List(args) => args.iter().map(expr_size).sum(),
        ExprKind::Index(a, b, c) => {
            expr_size(a) + expr_size(b) + c.as_ref().map(|c| expr_size(c)).unwrap_or(0)
        }
        ExprKind::Choose { from, by, prefer, .. } => {
            expr_size(from) + expr_size(by) + prefer.as_ref().map(|p| expr_size(p)).unwrap_or(0)
        }
        ExprKind::Let { value, body, .. } => expr_size(value) + expr_size(body),
        ExprKind::RollPool { count, .. } => expr_size(count),
        ExprKind::Quant { iter, filter, body, .. } => {
            expr_size(iter)
                + filter.as_ref().map(|f| expr_size(f)).unwrap_or(0)
                + body.as_ref().map(|b| expr_size(b)).unwrap_or(0)
        }
        _ => 0,
    }
}

/// The hooks of the default movement mode are the program's `move_*` hooks.
fn set_default_mode(prog: &mut Program, m: &MoveMode) {
    prog.hooks.move_allowance = m.allowance;
    prog.hooks.move_cost = m.cost;
    prog.hooks.move_stop = m.stop;
    prog.hooks.move_stop_crossing = m.stop_crossing;
    prog.hooks.move_minimum = m.minimum;
    prog.hooks.move_para = m.para;
}

/// Named `movement` blocks are modes: their names (and `normal`, the unnamed block's)
/// become codes of the results group `Mode`, the default first. A rulebook with only an
/// unnamed block has no group and no new names.
fn declare_modes(decls: &[crate::layers::DeclRef<'_>], env: &mut Env, diags: &mut Vec<Diagnostic>) {
    let named: Vec<(&Ident, String)> = decls
        .iter()
        .filter_map(|d| match &d.kind {
            DeclKind::MovementMode(n, _) => Some((n, first_para(d))),
            _ => None,
        })
        .collect();
    let Some((first, first_p)) = named.first() else { return };
    let unnamed: Vec<&Decl> =
        decls.iter().map(|d| &**d).filter(|d| matches!(d.kind, DeclKind::Movement(_))).collect();
    if let Some(second) = unnamed.get(1) {
        diags.push(
            Diagnostic::error(
                "E0601",
                second.span,
                "a second unnamed `movement` block: name the mode (`movement road { ... }`)",
            )
            .with_label(unnamed[0].span, "the mode `normal`")
            .with_paragraph(first_para(second)),
        );
    }
    if env.groups.iter().any(|x| x.0 == "Mode") {
        diags.push(
            Diagnostic::error(
                "E0101",
                first.span,
                "`Mode` is the group of movement mode names: rename the results group",
            )
            .with_paragraph(first_p.clone()),
        );
        return;
    }
    let g = env.groups.len();
    env.groups.push(("Mode".to_string(), Vec::new()));
    env.mode_group = Some(g);
    let mut names: Vec<(Ident, String)> = Vec::new();
    if let Some(u) = unnamed.first() {
        let span = u.span;
        names.push((Ident { name: "normal".into(), span }, first_para(u)));
    }
    names.extend(named.iter().map(|(n, p)| ((*n).clone(), p.clone())));
    for (n, p) in names {
        if !env.declare("value", &n, diags, &p) {
            continue;
        }
        let sym = env.symbols.len() as u16;
        env.symbols.push((n.name.clone(), g));
        env.globals.insert(n.name.clone(), Global::Code(sym, g));
        env.groups[g].1.push(sym);
        env.modes.push((n.name.clone(), sym));
    }
}
