//! One rulebook as the editor sees it: the `.ks` files of a directory with the open
//! buffers' unsaved text laid over them, compiled as one unit by the compiler, plus the
//! index the editor features read (declared names, tokens, contents, symbols).

use crate::lex::{self, Tok};
use crate::pos::LineIndex;
use kriegsspiel_dsl::ast::{self, DeclKind, Span};
use kriegsspiel_dsl::{Diagnostic, SourceMap};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A declared name.
#[derive(Clone, Debug)]
pub struct Def {
    pub name: String,
    /// What it is: `fn`, `procedure`, `unit type`, `rating`...
    pub kind: &'static str,
    /// Its type or signature where it has one (`fn(u: Unit) -> Int`, `0..40`).
    pub detail: String,
    /// The name's span.
    pub span: Span,
    /// The declaration's first line (after its anchors).
    pub first_line: String,
    /// The declaration's anchors, as written after `§`.
    pub anchors: Vec<String>,
}

/// A declaration for the outline, grouped under its first anchor's paragraph.
#[derive(Clone, Debug)]
pub struct Outline {
    pub label: String,
    pub kind: &'static str,
    pub span: Span,
    pub name_span: Span,
    pub paragraph: Option<String>,
}

/// A compiled rulebook directory.
pub struct Analysis {
    pub root: PathBuf,
    /// File paths in `FileId` order.
    pub files: Vec<PathBuf>,
    pub sources: SourceMap,
    pub lines: Vec<LineIndex>,
    pub diagnostics: Vec<Diagnostic>,
    pub defs: Vec<Def>,
    pub tokens: Vec<Vec<Tok>>,
    pub outline: Vec<Vec<Outline>>,
    /// Paragraph number → (title, span of its contents entry).
    pub contents: BTreeMap<String, (String, Span)>,
    /// The rulebook's title (its header), if a file declares one that parses.
    pub title: Option<String>,
}

/// The `.ks` files of `root` on disk, with the open buffers in it (`overlay`) replacing
/// their text and adding files not saved yet; in name order, as `compiler::load` does.
pub fn gather(root: &Path, overlay: &BTreeMap<PathBuf, String>) -> Vec<(PathBuf, String)> {
    let mut files: BTreeMap<PathBuf, Option<String>> = BTreeMap::new();
    if let Ok(rd) = std::fs::read_dir(root) {
        for e in rd.flatten() {
            let p = e.path();
            if p.extension().map(|x| x == "ks").unwrap_or(false) && p.is_file() {
                files.insert(p, None);
            }
        }
    }
    for (p, text) in overlay {
        if p.parent() == Some(root) {
            files.insert(p.clone(), Some(text.clone()));
        }
    }
    files
        .into_iter()
        .filter_map(|(p, t)| match t {
            Some(t) => Some((p, t)),
            // A file that cannot be read (gone, not UTF-8) is left out, as an editor would show nothing.
            None => std::fs::read_to_string(&p).ok().map(|t| (p, t)),
        })
        .collect()
}

impl Analysis {
    pub fn build(root: &Path, overlay: &BTreeMap<PathBuf, String>) -> Analysis {
        let files = gather(root, overlay);
        let mut sources = SourceMap::new();
        let mut paths = Vec::new();
        for (p, t) in files {
            sources.add(p.display().to_string(), t);
            paths.push(p);
        }
        let diagnostics = if sources.is_empty() {
            Vec::new()
        } else {
            // The compiler must not panic; if it ever does, the editor keeps working.
            match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                kriegsspiel_compiler::compile(&sources)
            })) {
                Ok(c) => c.diagnostics,
                Err(_) => vec![Diagnostic::error(
                    "E0902",
                    Span::default(),
                    "internal error: the compiler stopped on this rulebook (please report it)",
                )],
            }
        };
        let mut a = Analysis {
            root: root.to_path_buf(),
            files: paths,
            lines: sources.ids().map(|id| LineIndex::new(sources.text(id))).collect(),
            tokens: sources.ids().map(|id| lex::scan(sources.text(id))).collect(),
            outline: Vec::new(),
            sources,
            diagnostics,
            defs: Vec::new(),
            contents: BTreeMap::new(),
            title: None,
        };
        a.index();
        a
    }

    /// Parse each file on its own (a file with syntax errors keeps the others' names).
    fn index(&mut self) {
        for id in self.sources.ids() {
            let text = self.sources.text(id);
            let parsed = std::panic::catch_unwind(|| kriegsspiel_dsl::parse_file(id, text));
            let mut outline = Vec::new();
            if let Ok(Ok(book)) = parsed {
                for h in &book.headers {
                    if self.title.is_none() {
                        self.title = Some(h.title.clone());
                    }
                }
                for e in &book.contents {
                    let (base, _) = split_item(&e.anchor.text);
                    self.contents.entry(base).or_insert((e.title.clone(), e.span));
                }
                for d in &book.decls {
                    let first = first_line(text, d);
                    let anchors: Vec<String> = d.anchors.iter().map(|a| a.text.clone()).collect();
                    let mut push = |name: &ast::Ident, kind: &'static str, detail: String| {
                        self.defs.push(Def {
                            name: name.name.clone(),
                            kind,
                            detail,
                            span: name.span,
                            first_line: first.clone(),
                            anchors: anchors.clone(),
                        })
                    };
                    let (label, kind, name_span) = describe(text, d, &mut push);
                    outline.push(Outline {
                        label,
                        kind,
                        span: d.span,
                        name_span,
                        paragraph: d.anchors.first().map(|a| split_item(&a.text).0),
                    });
                }
            }
            self.outline.push(outline);
        }
    }

    pub fn file_id(&self, path: &Path) -> Option<u32> {
        self.files.iter().position(|p| p == path).map(|i| i as u32)
    }

    pub fn text(&self, file: u32) -> &str {
        self.sources.text(file)
    }

    pub fn range(&self, span: Span) -> lsp_types::Range {
        let text = self.sources.text(span.file);
        match self.lines.get(span.file as usize) {
            Some(li) => li.range(text, span.start as usize, span.end as usize),
            None => lsp_types::Range::default(),
        }
    }

    pub fn defs_named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Def> + 'a {
        self.defs.iter().filter(move |d| d.name == name)
    }

    /// The declaration (outline entry) of `file` whose span holds `offset`.
    fn enclosing(&self, file: u32, offset: usize) -> Option<Span> {
        self.outline
            .get(file as usize)?
            .iter()
            .find(|o| o.span.start as usize <= offset && offset <= o.span.end as usize)
            .map(|o| o.span)
    }

    /// A local name (parameter, `let`, `for`, `choose` or quantifier variable) at
    /// `offset`: the binding nearest before it in the enclosing declaration, and every
    /// use of the name in that declaration from the binding on. Lexical: the compiler
    /// is the judge of scopes; this is what an editor needs to jump and highlight.
    pub fn local(&self, file: u32, offset: usize, name: &str) -> Option<(Span, Vec<Span>)> {
        let decl = self.enclosing(file, offset)?;
        let text = self.sources.text(file);
        let toks = self.tokens.get(file as usize)?;
        let inside: Vec<&Tok> =
            toks.iter().filter(|t| t.start >= decl.start as usize && t.end <= decl.end as usize).collect();
        let binds = |i: usize| -> bool {
            let t = inside[i];
            if t.kind != lex::TokKind::Ident || t.text != name {
                return false;
            }
            let prev = i.checked_sub(1).map(|j| inside[j].text.as_str());
            let binder = matches!(
                prev,
                Some(
                    "let"
                        | "for"
                        | "choose"
                        | "sum"
                        | "count"
                        | "any"
                        | "all"
                        | "min"
                        | "max"
                        | "filter"
                        | "map"
                )
            );
            let before = text[..t.start].trim_end().chars().last();
            let after = text[t.end..].trim_start().chars().next();
            let param = matches!(before, Some('(' | ',')) && after == Some(':');
            binder || param
        };
        let at = (0..inside.len()).filter(|&i| inside[i].start <= offset && binds(i)).last()?;
        let b = inside[at];
        let uses = inside[at..]
            .iter()
            .filter(|t| t.kind == lex::TokKind::Ident && t.text == name)
            .map(|t| Span::new(file, t.start, t.end))
            .collect();
        Some((Span::new(file, b.start, b.end), uses))
    }

    /// Every identifier token named `name`, in every file: (file, start, end).
    pub fn occurrences(&self, name: &str) -> Vec<Span> {
        let mut out = Vec::new();
        for (f, toks) in self.tokens.iter().enumerate() {
            for t in toks {
                if t.kind == lex::TokKind::Ident && t.text == name {
                    out.push(Span::new(f as u32, t.start, t.end));
                }
            }
        }
        out
    }
}

/// Split `7.1.2.B` into its paragraph `7.1.2` and lettered item (the compiler's reading).
pub use kriegsspiel_compiler::split_item;

/// The declaration's first line, after its anchors and `replaces`/`amends`.
fn first_line(text: &str, d: &ast::Decl) -> String {
    let mut start = d.span.start as usize;
    for a in &d.anchors {
        start = start.max(a.span.end as usize);
    }
    if let Some((_, s)) = d.supersede {
        start = start.max(s.end as usize);
    }
    let end = (d.span.end as usize).min(text.len());
    let Some(rest) = text.get(start.min(end)..end) else {
        return String::new();
    };
    let rest = rest.trim_start();
    rest.lines().next().unwrap_or("").trim_end().to_string()
}

fn slice(text: &str, from: Span, to: Span) -> String {
    text.get(from.start as usize..to.end as usize)
        .unwrap_or("")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

fn params(text: &str, ps: &[ast::Param]) -> String {
    ps.iter().map(|p| slice(text, p.name.span, p.ty.span())).collect::<Vec<_>>().join(", ")
}

/// The outline label, kind and name span of a declaration; declared names go to `push`.
fn describe(
    text: &str,
    d: &ast::Decl,
    push: &mut dyn FnMut(&ast::Ident, &'static str, String),
) -> (String, &'static str, Span) {
    let named = |name: &ast::Ident, kind: &'static str| (name.name.clone(), kind, name.span);
    match &d.kind {
        DeclKind::Sides(ids) => {
            for i in ids {
                push(i, "side", String::new());
            }
            ("sides".into(), "sides", d.span)
        }
        DeclKind::Players(_) => ("players".into(), "players", d.span),
        DeclKind::Teams(teams) => {
            for (t, members) in teams {
                let ms: Vec<&str> = members.iter().map(|m| m.name.as_str()).collect();
                push(t, "team", ms.join(", "));
            }
            ("teams".into(), "teams", d.span)
        }
        DeclKind::Control { group, func } => {
            (format!("control {} by {}", group.name, func.name), "control", d.span)
        }
        DeclKind::Rating { name, range, doc } => {
            push(
                name,
                "rating",
                format!(
                    "{}..{}{}",
                    range.lo,
                    range.hi,
                    doc.as_ref().map(|s| format!(" ({s})")).unwrap_or_default()
                ),
            );
            named(name, "rating")
        }
        DeclKind::Classes(ids) => {
            for i in ids {
                push(i, "unit class", String::new());
            }
            ("classes".into(), "classes", d.span)
        }
        DeclKind::Unit { name, classes, steps } => {
            let cs: Vec<&str> = classes.iter().map(|c| c.name.as_str()).collect();
            let st = steps.map(|(n, _)| format!(", {n} step(s)")).unwrap_or_default();
            push(name, "unit type", format!("{}{st}", cs.join(", ")));
            named(name, "unit type")
        }
        DeclKind::Marker { name, target } => {
            push(name, "marker", format!("on {target:?}").to_lowercase());
            named(name, "marker")
        }
        DeclKind::Track { name, per_side, per_unit, per_group, second, values } => {
            let mut per = if *per_side {
                " per side".to_string()
            } else if *per_unit {
                " per unit".to_string()
            } else {
                per_group.as_ref().map(|g| format!(" per {}", g.name)).unwrap_or_default()
            };
            match second {
                Some(ast::TrackKey::Side) => per.push_str(" per side"),
                Some(ast::TrackKey::Unit) => per.push_str(" per unit"),
                Some(ast::TrackKey::Group(g)) => per.push_str(&format!(" per {}", g.name)),
                None => {}
            }
            let held = match values {
                ast::TrackValues::Range(r) => format!("{}..{}", r.lo, r.hi),
                ast::TrackValues::Holds(t) => t.name.clone(),
            };
            push(name, "track", format!("{held}{per}"));
            named(name, "track")
        }
        DeclKind::Terrain { name, .. } => {
            push(name, "terrain", String::new());
            named(name, "terrain")
        }
        DeclKind::Hexside { name, .. } => {
            push(name, "hexside feature", String::new());
            named(name, "hexside feature")
        }
        DeclKind::Results { name, codes } => {
            push(name, "results", codes.iter().map(|c| c.name.as_str()).collect::<Vec<_>>().join(" "));
            for c in codes {
                push(c, "result code", format!("of {}", name.name));
            }
            named(name, "results")
        }
        DeclKind::Table(t) => {
            let roll = t.roll.map(|r| format!(" roll {}d{}", r.count, r.sides)).unwrap_or_default();
            let res = t.result.as_ref().map(|r| format!(" -> {}", r.name)).unwrap_or_default();
            push(&t.name, "table", format!("{}{roll}{res}", t.name.name));
            named(&t.name, "table")
        }
        DeclKind::Modifiers(m) => {
            push(&m.name, "modifiers", format!("({})", params(text, &m.params)));
            named(&m.name, "modifiers")
        }
        DeclKind::Fn { name, params: ps, ret, .. } => {
            push(name, "fn", format!("fn({}) -> {}", params(text, ps), slice(text, ret.span(), ret.span())));
            named(name, "fn")
        }
        DeclKind::Procedure { name, params: ps, ret, .. } => {
            let ret =
                ret.as_ref().map(|r| format!(" -> {}", slice(text, r.span(), r.span()))).unwrap_or_default();
            push(name, "procedure", format!("procedure({}){ret}", params(text, ps)));
            named(name, "procedure")
        }
        DeclKind::Movement(_) => ("movement".into(), "movement", d.span),
        DeclKind::MovementMode(name, _) => (format!("movement {}", name.name), "movement", d.span),
        DeclKind::Retreat(_) => ("retreat".into(), "retreat", d.span),
        DeclKind::LineOfSight(_) => ("line_of_sight".into(), "line_of_sight", d.span),
        DeclKind::Cup { name, ty } => {
            push(name, "cup", slice(text, ty.span(), ty.span()));
            named(name, "cup")
        }
        DeclKind::Deck { name, cards, .. } => {
            for c in cards {
                push(&c.name, "card", format!("a card of {}", name.name));
            }
            push(name, "deck", format!("{} cards", cards.len()));
            named(name, "deck")
        }
        DeclKind::Hand { name, ty } => {
            push(name, "hand", slice(text, ty.span(), ty.span()));
            named(name, "hand")
        }
        DeclKind::OptionRule { name, title } => {
            push(name, "optional rule", format!("\"{title}\""));
            named(name, "optional rule")
        }
        DeclKind::ZoneOfControl(i) => (format!("zone_of_control {}", i.name), "zone_of_control", d.span),
        DeclKind::Trigger { name, once, .. } => {
            push(name, "trigger", if *once { "once".into() } else { String::new() });
            named(name, "trigger")
        }
        DeclKind::Interrupt { name, params: ps, .. } => {
            push(name, "interrupt", format!("interrupt({})", params(text, ps)));
            named(name, "interrupt")
        }
        DeclKind::Layer { name, title, optional, .. } => {
            push(name, "layer", format!("\"{title}\"{}", if *optional { " optional" } else { "" }));
            named(name, "layer")
        }
        DeclKind::Waives { targets, .. } => {
            let ts: Vec<String> = targets.iter().map(|t| format!("§{}", t.text)).collect();
            (format!("waives {}", ts.join(" ")), "waives", d.span)
        }
        DeclKind::Invariant { name, text: what, .. } => {
            push(name, "invariant", format!("\"{what}\""));
            named(name, "invariant")
        }
        DeclKind::Hidden { tracks, .. } => {
            let ts: Vec<&str> = tracks.iter().map(|t| t.name.as_str()).collect();
            (format!("hidden {}", ts.join(", ")), "hidden", d.span)
        }
        DeclKind::Score { func } => (format!("score {}", func.name), "score", d.span),
        DeclKind::Sequence(_) => ("sequence".into(), "sequence", d.span),
        DeclKind::Formations { unit, faces, .. } => {
            for f in faces {
                push(&f.name, "formation", format!("a face of {}", unit.name));
            }
            (format!("formations {}", unit.name), "formations", d.span)
        }
        DeclKind::Ruling(r) => {
            push(&r.name, "ruling", format!("\"{}\"", r.question));
            for alt in &r.alternatives {
                push(
                    &alt.name,
                    "ruling alternative",
                    format!("of {}{}", r.name.name, if alt.is_default { " (default)" } else { "" }),
                );
            }
            named(&r.name, "ruling")
        }
        DeclKind::Finding { kind, .. } => (format!("finding {}", kind.name), "finding", d.span),
        DeclKind::Map(m) => {
            for (r, _) in &m.regions {
                push(r, "map region", String::new());
            }
            (format!("map \"{}\"", m.title), "map", d.span)
        }
        DeclKind::Counters { .. } => ("counters".into(), "counters", d.span),
        DeclKind::Scenario(s) => (format!("scenario {} \"{}\"", s.id, s.title), "scenario", d.span),
        DeclKind::Example(e) => (format!("example \"{}\"", e.title), "example", d.span),
    }
}
