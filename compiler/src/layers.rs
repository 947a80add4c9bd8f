//! Layers: rules over rules. A rulebook's declarations sit in ordered layers (series
//! rules, a game's exclusive rules, scenario rules, optional rules, errata); a higher
//! layer `replaces` or `amends` a declaration of a lower one, or `waives` a lower
//! paragraph. This pass checks the structure on every declaration (targets exist below,
//! no two unordered replacements of one target, no silent shadowing) and selects the
//! declarations of one configuration (the layers in play) for the rest of the compiler,
//! which then sees an ordinary rulebook.

use crate::contents::split_item;
use kriegsspiel_dsl::ast::*;
use kriegsspiel_dsl::Diagnostic;
use std::collections::{BTreeMap, BTreeSet};

/// The base layer: every declaration outside an `in layer` section.
pub const BASE: &str = "base";

#[derive(Clone, Debug)]
pub struct LayerDef {
    pub name: String,
    pub title: String,
    /// Off unless a run switches it on (`--option NAME`).
    pub optional: bool,
    /// Its own paragraph (first anchor), empty for the base layer.
    pub para: String,
    /// Has declarations of its own (an `option` without any is a plain flag).
    pub has_decls: bool,
}

/// The layers of a rulebook and their order.
#[derive(Clone, Debug, Default)]
pub struct Layers {
    /// Index 0 is the base layer.
    pub defs: Vec<LayerDef>,
    /// `below[i]`: the layers strictly below layer i (transitively).
    below: Vec<BTreeSet<usize>>,
}

/// One use of `replaces`, `amends` or `waives`, for the report.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Supersession {
    /// `replaces`, `amends` or `waives`.
    pub how: &'static str,
    /// `fn combat_odds`, or the waived paragraphs.
    pub what: String,
    pub layer: String,
    /// Paragraphs of the superseding declaration.
    pub by: Vec<String>,
    /// Paragraphs of what it supersedes.
    pub of: Vec<String>,
}

impl Layers {
    pub fn index(&self, name: &str) -> Option<usize> {
        self.defs.iter().position(|d| d.name == name)
    }
    fn is_below(&self, a: usize, b: usize) -> bool {
        self.below.get(b).is_some_and(|s| s.contains(&a))
    }
    /// The layer a declaration belongs to (unknown names were reported: base).
    fn of(&self, d: &Decl) -> usize {
        d.layer.as_ref().and_then(|l| self.index(&l.name)).unwrap_or(0)
    }
    /// The layers in play when `on` (optional layers by name) are switched on: every
    /// non-optional layer, the chosen ones, and everything below a layer in play.
    pub fn active(&self, on: &[String]) -> Vec<bool> {
        let mut act: Vec<bool> = self.defs.iter().map(|d| !d.optional || on.contains(&d.name)).collect();
        for i in 0..act.len() {
            if act[i] {
                for &j in &self.below[i] {
                    act[j] = true;
                }
            }
        }
        act
    }
}

fn para_of(d: &Decl) -> String {
    d.anchors.first().map(|a| a.text.clone()).unwrap_or_default()
}

/// The kind and name of a declaration that a higher layer may supersede.
fn target_key(k: &DeclKind) -> Option<(&'static str, &Ident)> {
    Some(match k {
        DeclKind::Fn { name, .. } => ("fn", name),
        DeclKind::Procedure { name, .. } => ("procedure", name),
        DeclKind::Table(t) => ("table", &t.name),
        DeclKind::Modifiers(m) => ("modifiers", &m.name),
        DeclKind::Trigger { name, .. } => ("trigger", name),
        DeclKind::Interrupt { name, .. } => ("interrupt", name),
        DeclKind::Invariant { name, .. } => ("invariant", name),
        _ => return None,
    })
}

/// Read the layer declarations (and `option`s, which are optional layers over the base
/// with no declarations of their own unless a file says `in layer NAME;`).
pub fn collect(book: &Rulebook, diags: &mut Vec<Diagnostic>) -> Layers {
    let mut defs = vec![LayerDef {
        name: BASE.into(),
        title: "the base rules".into(),
        optional: false,
        para: String::new(),
        has_decls: false,
    }];
    let mut above: Vec<Vec<Ident>> = vec![Vec::new()];
    let mut spans = vec![Span::default()];
    for d in &book.decls {
        let (name, title, ab, optional) = match &d.kind {
            DeclKind::Layer { name, title, above, optional } => (name, title, above.clone(), *optional),
            DeclKind::OptionRule { name, title } => (name, title, Vec::new(), true),
            _ => continue,
        };
        if name.name == BASE || defs.iter().any(|x| x.name == name.name) {
            // `option`s are declared in the option namespace too: E0101 comes from there
            // for two options; here only a clash between a layer and anything else.
            if matches!(d.kind, DeclKind::Layer { .. }) || name.name == BASE {
                diags.push(
                    Diagnostic::error("E0101", name.span, format!("layer `{}` is declared twice", name.name))
                        .with_paragraph(para_of(d)),
                );
            }
            continue;
        }
        defs.push(LayerDef {
            name: name.name.clone(),
            title: title.clone(),
            optional,
            para: para_of(d),
            has_decls: false,
        });
        above.push(ab);
        spans.push(name.span);
    }
    // Direct order: a layer is above the ones it names, or above the base.
    let n = defs.len();
    let mut direct: Vec<Vec<usize>> = vec![Vec::new(); n];
    for i in 1..n {
        if above[i].is_empty() {
            direct[i].push(0);
        }
        for a in &above[i] {
            match defs.iter().position(|x| x.name == a.name) {
                Some(j) => direct[i].push(j),
                None => diags.push(unknown_layer(a, &defs, &defs[i].para)),
            }
        }
    }
    let mut below: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); n];
    for (i, set) in below.iter_mut().enumerate() {
        let mut stack = direct[i].clone();
        while let Some(j) = stack.pop() {
            if set.insert(j) {
                stack.extend(direct[j].iter().copied());
            }
        }
    }
    for i in 1..n {
        if below[i].contains(&i) {
            diags.push(
                Diagnostic::error("E0805", spans[i], format!("layer `{}` lies above itself", defs[i].name))
                    .with_note("the `above` lists form a cycle")
                    .with_paragraph(defs[i].para.clone()),
            );
            below[i].remove(&i);
        }
    }
    let mut layers = Layers { defs, below };
    let mut reported = BTreeSet::new();
    for d in &book.decls {
        if let Some(l) = &d.layer {
            match layers.index(&l.name) {
                Some(i) => layers.defs[i].has_decls = true,
                // Once per `in layer` line, not per declaration under it.
                None if reported.insert((l.span.file, l.span.start)) => {
                    diags.push(unknown_layer(l, &layers.defs, &para_of(d)))
                }
                None => {}
            }
        }
    }
    layers
}

fn unknown_layer(l: &Ident, defs: &[LayerDef], para: &str) -> Diagnostic {
    let known: Vec<&str> = defs.iter().map(|d| d.name.as_str()).collect();
    let mut d = Diagnostic::error("E0116", l.span, format!("unknown layer `{}`", l.name))
        .with_note(format!("layers: {}", known.join(", ")));
    if !para.is_empty() {
        d = d.with_paragraph(para.to_string());
    }
    d
}

/// Check every supersession on all declarations, whatever the configuration: a
/// `replaces`/`amends` has a target of the same kind and name in a layer below (E0801);
/// no two layers that are not ordered both supersede one target (E0802); a declaration
/// that reuses a name of another layer says `replaces` (E0803); an amendment adds to a
/// modifier set and keeps its parameters, a replacement keeps the kind (E0804).
pub fn check(book: &Rulebook, layers: &Layers, diags: &mut Vec<Diagnostic>) -> Vec<Supersession> {
    let mut by_key: BTreeMap<(&'static str, &str), Vec<&Decl>> = BTreeMap::new();
    for d in &book.decls {
        if d.layer.as_ref().is_some_and(|l| layers.index(&l.name).is_none()) {
            continue; // its layer is unknown (E0116)
        }
        if let Some((kind, name)) = target_key(&d.kind) {
            by_key.entry((kind, &name.name)).or_default().push(d);
        } else if let Some((_, sp)) = d.supersede {
            diags.push(
                Diagnostic::error("E0804", sp, "only a fn, procedure, table, modifier set, trigger, interrupt or invariant can replace or amend")
                    .with_paragraph(para_of(d)),
            );
        }
    }
    let mut out = Vec::new();
    for ((kind, name), versions) in &by_key {
        for (i, d) in versions.iter().enumerate() {
            let li = layers.of(d);
            let others: Vec<&&Decl> =
                versions.iter().enumerate().filter(|(j, _)| *j != i).map(|(_, x)| x).collect();
            let lower: Vec<&&Decl> =
                others.iter().copied().filter(|x| layers.is_below(layers.of(x), li)).collect();
            match d.supersede {
                Some((how, sp)) => {
                    if lower.is_empty() {
                        diags.push(
                            Diagnostic::error(
                                "E0801",
                                sp,
                                format!(
                                    "nothing to {}: no `{kind} {name}` in a layer below `{}`",
                                    if how == Supersede::Amends { "amend" } else { "replace" },
                                    layers.defs[li].name
                                ),
                            )
                            .with_paragraph(para_of(d)),
                        );
                        continue;
                    }
                    if how == Supersede::Amends && *kind != "modifiers" {
                        diags.push(
                            Diagnostic::error("E0804", sp, format!("`amends` adds lines to a modifier set; `{kind} {name}` can only be replaced"))
                                .with_paragraph(para_of(d)),
                        );
                    }
                    if let Some(t) = lower.iter().find(|t| !same_shape(&t.kind, &d.kind)) {
                        diags.push(
                            Diagnostic::error("E0804", sp, format!("the {} of `{kind} {name}` must keep the parameters and type of the one it supersedes", if how == Supersede::Amends { "amendment" } else { "replacement" }))
                                .with_label(t.span, "the declaration superseded")
                                .with_paragraph(para_of(d)),
                        );
                    }
                    out.push(Supersession {
                        how: if how == Supersede::Amends { "amends" } else { "replaces" },
                        what: format!("{kind} {name}"),
                        layer: layers.defs[li].name.clone(),
                        by: d.anchors.iter().map(|a| a.text.clone()).collect(),
                        of: lower.iter().flat_map(|t| t.anchors.iter().map(|a| a.text.clone())).collect(),
                    });
                }
                None => {}
            }
        }
        // A name reused in another layer: the higher one must say `replaces` (or
        // `amends`); between layers in no order, one of them at least.
        for (i, a) in versions.iter().enumerate() {
            for b in &versions[i + 1..] {
                let (la, lb) = (layers.of(a), layers.of(b));
                if la == lb {
                    continue; // the same layer: E0101 if both are in play
                }
                let culprit = if layers.is_below(la, lb) {
                    Some(b).filter(|b| b.supersede.is_none())
                } else if layers.is_below(lb, la) {
                    Some(a).filter(|a| a.supersede.is_none())
                } else if a.supersede.is_none() || b.supersede.is_none() {
                    Some(if b.supersede.is_none() { b } else { a })
                } else {
                    None // both supersede: E0802 below
                };
                if let Some(c) = culprit {
                    let other = if std::ptr::eq(*c, *a) { b } else { a };
                    diags.push(
                        Diagnostic::error(
                            "E0803",
                            target_key(&c.kind).map(|k| k.1.span).unwrap_or(c.span),
                            format!(
                                "`{kind} {name}` of layer `{}` shadows the one of layer `{}` silently",
                                layers.defs[layers.of(c)].name,
                                layers.defs[layers.of(other)].name
                            ),
                        )
                        .with_label(other.span, "the other declaration")
                        .with_note("write `replaces` (or `amends` for a modifier set) before the higher one, and order unordered layers with `above`")
                        .with_paragraph(para_of(c)),
                    );
                }
            }
        }
        // Two supersessions of one target by layers that are not ordered.
        let sup: Vec<&&Decl> = versions.iter().filter(|d| d.supersede.is_some()).collect();
        for (i, a) in sup.iter().enumerate() {
            for b in &sup[i + 1..] {
                let (la, lb) = (layers.of(a), layers.of(b));
                if la != lb && !layers.is_below(la, lb) && !layers.is_below(lb, la) {
                    diags.push(
                        Diagnostic::error(
                            "E0802",
                            b.supersede.map(|s| s.1).unwrap_or(b.span),
                            format!(
                                "layers `{}` and `{}` both supersede `{kind} {name}` and neither lies above the other",
                                layers.defs[la].name, layers.defs[lb].name
                            ),
                        )
                        .with_label(a.span, "the other supersession")
                        .with_note("order the layers (`above`) so that one of them wins")
                        .with_paragraph(para_of(b)),
                    );
                }
            }
        }
    }
    for d in &book.decls {
        if let DeclKind::Waives { targets, .. } = &d.kind {
            let li = layers.of(d);
            out.push(Supersession {
                how: "waives",
                what: targets.iter().map(|a| format!("§{}", a.text)).collect::<Vec<_>>().join(" "),
                layer: layers.defs[li].name.clone(),
                by: d.anchors.iter().map(|a| a.text.clone()).collect(),
                of: targets.iter().map(|a| a.text.clone()).collect(),
            });
        }
    }
    out
}

/// Same parameters and result (the shape callers rely on).
fn same_shape(a: &DeclKind, b: &DeclKind) -> bool {
    match (a, b) {
        (DeclKind::Fn { params: pa, ret: ra, .. }, DeclKind::Fn { params: pb, ret: rb, .. }) => {
            param_types(pa) == param_types(pb) && type_text(ra) == type_text(rb)
        }
        (
            DeclKind::Procedure { params: pa, ret: ra, .. },
            DeclKind::Procedure { params: pb, ret: rb, .. },
        ) => param_types(pa) == param_types(pb) && ra.as_ref().map(type_text) == rb.as_ref().map(type_text),
        (DeclKind::Interrupt { params: pa, .. }, DeclKind::Interrupt { params: pb, .. }) => {
            param_types(pa) == param_types(pb)
        }
        (DeclKind::Modifiers(ma), DeclKind::Modifiers(mb)) => {
            param_types(&ma.params) == param_types(&mb.params)
        }
        _ => std::mem::discriminant(a) == std::mem::discriminant(b),
    }
}

fn type_text(t: &TypeExpr) -> String {
    match t {
        TypeExpr::Named(i) => i.name.clone(),
        TypeExpr::List(inner, _) => format!("List<{}>", type_text(inner)),
    }
}

fn param_types(p: &[Param]) -> Vec<String> {
    p.iter().map(|p| type_text(&p.ty)).collect()
}

/// The declarations of one configuration: those of the layers in play, each name's
/// highest version (replacements drop what they replace, amendments add their lines),
/// and, when `examples_of` is given, only the examples of that layer (an index past the
/// last layer keeps none).
/// A declaration of one configuration: the parsed rulebook's own, borrowed, or one built
/// by folding a higher layer's amendments into it.
pub type DeclRef<'a> = std::borrow::Cow<'a, Decl>;

/// One configuration's declarations (see [`select`]), borrowed from the parsed rulebook
/// (`check` compiles a configuration per optional layer; none clones the whole AST).
pub struct Selection<'a> {
    pub headers: &'a [Header],
    pub contents: &'a [ContentsEntry],
    pub steps: &'a [StepEntry],
    pub decls: Vec<DeclRef<'a>>,
}

impl Selection<'_> {
    /// The configuration as a rulebook of its own (cloned).
    pub fn to_rulebook(&self) -> Rulebook {
        Rulebook {
            headers: self.headers.to_vec(),
            contents: self.contents.to_vec(),
            steps: self.steps.to_vec(),
            decls: self.decls.iter().map(|d| d.clone().into_owned()).collect(),
        }
    }
}

pub fn select<'a>(
    book: &'a Rulebook,
    layers: &Layers,
    active: &[bool],
    examples_of: Option<usize>,
) -> Selection<'a> {
    // Layer declarations are always kept: every configuration knows every layer.
    let on = |d: &Decl| {
        matches!(d.kind, DeclKind::Layer { .. }) || active.get(layers.of(d)).copied().unwrap_or(false)
    };
    // Winner per superseded key, in layer order: lower versions fold into it.
    let mut keyed: BTreeMap<(&'static str, String), Vec<usize>> = BTreeMap::new();
    for (i, d) in book.decls.iter().enumerate() {
        if !on(d) {
            continue;
        }
        if let Some((kind, name)) = target_key(&d.kind) {
            keyed.entry((kind, name.name.clone())).or_default().push(i);
        }
    }
    let mut drop: BTreeSet<usize> = BTreeSet::new();
    let mut replace: BTreeMap<usize, Decl> = BTreeMap::new();
    for idx in keyed.values() {
        if idx.len() < 2 {
            continue;
        }
        // Lowest first (a layer below another sorts before it; checked orders only).
        let mut order = idx.clone();
        order.sort_by(|&a, &b| {
            let (la, lb) = (layers.of(&book.decls[a]), layers.of(&book.decls[b]));
            if layers.is_below(la, lb) {
                std::cmp::Ordering::Less
            } else if layers.is_below(lb, la) {
                std::cmp::Ordering::Greater
            } else {
                a.cmp(&b)
            }
        });
        let mut current: Decl = book.decls[order[0]].clone();
        let mut slot = order[0];
        for &i in &order[1..] {
            let d = &book.decls[i];
            match d.supersede {
                Some((Supersede::Amends, _)) => {
                    if let (DeclKind::Modifiers(m), DeclKind::Modifiers(more)) = (&mut current.kind, &d.kind)
                    {
                        m.lines.extend(more.lines.iter().cloned());
                    }
                    current.anchors.extend(d.anchors.iter().cloned());
                }
                Some((Supersede::Replaces, _)) => {
                    drop.insert(slot);
                    current = d.clone();
                    slot = i;
                }
                // Not a supersession (a duplicate in one layer): both stay, and the
                // compiler reports E0101.
                None => continue,
            }
            drop.insert(i);
        }
        drop.remove(&slot);
        replace.insert(slot, current);
    }
    let mut out =
        Selection { headers: &book.headers, contents: &book.contents, steps: &book.steps, decls: Vec::new() };
    for (i, d) in book.decls.iter().enumerate() {
        if !on(d) || drop.contains(&i) {
            continue;
        }
        if let (Some(l), DeclKind::Example(_)) = (examples_of, &d.kind) {
            if layers.of(d) != l {
                continue;
            }
        }
        out.decls.push(match replace.remove(&i) {
            Some(folded) => DeclRef::Owned(folded),
            None => DeclRef::Borrowed(d),
        });
    }
    out
}

/// Paragraphs superseded in the default configuration (layers not optional): each with
/// the paragraph that supersedes it. A paragraph encoded by a declaration in play in
/// some configuration is not superseded.
pub fn superseded(layers: &Layers, sups: &[Supersession]) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for s in sups {
        let Some(li) = layers.index(&s.layer) else { continue };
        let optional = |i: usize| layers.defs[i].optional;
        if s.how == "amends" || optional(li) || layers.below[li].iter().any(|&j| optional(j)) {
            continue;
        }
        let by = split_item(s.by.first().map(String::as_str).unwrap_or_default()).0;
        // A replacement supersedes its target's own paragraph; a waiver all it names.
        let targets = if s.how == "waives" { &s.of[..] } else { &s.of[..s.of.len().min(1)] };
        for t in targets {
            out.insert(split_item(t).0, by.clone());
        }
    }
    out
}
