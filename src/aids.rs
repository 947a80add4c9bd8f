//! `aids RULEBOOK -o DIR`: the player aids of a rulebook as one self-contained HTML page
//! (DIR/index.html): the sequence of play drawn from its `sequence` declaration, every
//! table with the exact odds of its results per column, the modifier lists, and the
//! terrain and hexside effects; each item with its paragraph, and data the rulebook
//! marks `supplied` shown as supplied, with the reason.
//!
//! Made from the configuration a game plays (the default layers, or `--option NAME`):
//! the declarations after layer selection (`configured_declarations`) for what the
//! program does not keep (the sequence's shape, modifier conditions as written, the
//! tables' dice), and the compiled program for tables, terrain and supplied data.

use crate::html::esc;
use crate::odds::{label, odds, range_label, table_dice};
use crate::{build_config, out, Format, Ui};
use kriegsspiel_dsl::ast::{
    AddAmount, Block, DeclKind, ModEffect, Modifiers, RoundDir, Rulebook, Span, Stmt, StmtKind,
};
use kriegsspiel_dsl::SourceMap;
use kriegsspiel_runtime::program::TableDef;
use kriegsspiel_runtime::Program;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;

pub(crate) fn cmd_aids(rulebook: &Path, output: Option<&Path>, options: &[String], ui: Ui) -> u8 {
    let (sources, c) = match build_config(rulebook, Format::Human, Some(options), ui) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let Some(prog) = c.program else {
        say!("error: the rulebook has errors; no player aids");
        return 1;
    };
    if let Some(bad) = options.iter().find(|o| !prog.options.iter().any(|x| &x.name == *o)) {
        let names: Vec<&str> = prog.options.iter().map(|o| o.name.as_str()).collect();
        say!(
            "error[E0703]: --option {bad}: no such option (options: {})",
            if names.is_empty() { "none".into() } else { names.join(", ") }
        );
        return 2;
    }
    let Some(book) = kriegsspiel_compiler::configured_declarations(&sources, options) else {
        say!("error: the rulebook has errors; no player aids");
        return 1;
    };
    let page = page(&prog, &book, &sources, options);
    match output {
        Some(dir) => {
            let file = dir.join("index.html");
            let written = std::fs::create_dir_all(dir).and_then(|_| std::fs::write(&file, page));
            match written {
                Ok(()) => 0,
                Err(e) => {
                    say!("error[E0702]: cannot write {}: {e}", file.display());
                    2
                }
            }
        }
        None => match out(&page) {
            Ok(()) => 0,
            Err(code) => code,
        },
    }
}

/// The source text of a span, on one line.
fn src(sources: &SourceMap, span: Span) -> String {
    let text = sources.text(span.file);
    let s = text.get(span.start as usize..span.end as usize).unwrap_or("");
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// " §P §Q" as a paragraph cell.
fn paras<'a>(anchors: impl IntoIterator<Item = &'a str>) -> String {
    let list: Vec<String> =
        anchors.into_iter().filter(|a| !a.is_empty()).map(|a| format!("§{}", esc(a))).collect();
    if list.is_empty() {
        String::new()
    } else {
        format!("<span class=\"para\">{}</span>", list.join(" "))
    }
}

/// The supplied badge for an item the rulebook supplies (`what` as the program lists it).
fn supplied(prog: &Program, what: &str) -> String {
    prog.supplied
        .iter()
        .filter(|s| s.what == what)
        .map(|s| format!(" <span class=\"supplied\" title=\"{r}\">supplied: {r}</span>", r = esc(&s.reason)))
        .collect()
}

pub(crate) fn page(prog: &Program, book: &Rulebook, sources: &SourceMap, options: &[String]) -> String {
    let mut body = String::new();
    let mut toc = String::new();
    let mut section = |id: &str, title: &str, html: String, body: &mut String| {
        let _ = write!(toc, "<li><a href=\"#{id}\">{}</a></li>", esc(title));
        let _ = write!(body, "<section id=\"{id}\"><h2>{}</h2>{html}</section>", esc(title));
    };
    section("sequence", "Sequence of play", sequence(book, sources), &mut body);
    section("tables", "Tables and their odds", tables(prog, book), &mut body);
    section("modifiers", "Modifiers", modifiers(book, sources), &mut body);
    section("terrain", "Terrain and hexside effects", terrain(prog), &mut body);
    section("supplied", "Data not from the rulebook", supplied_list(prog), &mut body);
    let config =
        if options.is_empty() { String::new() } else { format!(" with {}", esc(&options.join(", "))) };
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{t} — player aids</title>\
         <meta name=\"viewport\" content=\"width=device-width\"><style>{css}</style></head>\n<body>\
         <header><h1>{t} — player aids</h1><p>The rules as the encoding plays them{config}: each item with its \
         paragraph; data the rulebook's text does not give is marked <span class=\"supplied\">supplied</span>. \
         Odds are exact (every face of the dice counted).</p><ol class=\"toc\">{toc}</ol></header>\n<main>{body}</main>\n</body></html>\n",
        t = esc(&prog.title),
        css = include_str!("aids.css"),
    )
}

/// The sequence of play: turns, phases and the procedures they call, with conditions and
/// loops that hold any of them; other statements only when they end the game.
fn sequence(book: &Rulebook, sources: &SourceMap) -> String {
    let mut html = String::new();
    for d in &book.decls {
        if let DeclKind::Sequence(b) = &d.kind {
            let _ = write!(html, "<p>{}</p>", paras(d.anchors.iter().map(|a| a.text.as_str())));
            html.push_str(&seq_block(b, sources).unwrap_or_else(|| "<p>(no phases)</p>".into()));
        }
    }
    if html.is_empty() {
        html.push_str("<p>The rulebook declares no sequence of play.</p>");
    }
    html
}

fn stmt_paras(s: &Stmt) -> String {
    paras(s.anchor.iter().chain(&s.also).map(|a| a.text.as_str()))
}

fn seq_block(b: &Block, sources: &SourceMap) -> Option<String> {
    let items: Vec<String> = b.stmts.iter().filter_map(|s| seq_stmt(s, sources)).collect();
    if items.is_empty() {
        None
    } else {
        Some(format!("<ol class=\"seq\">{}</ol>", items.concat()))
    }
}

fn seq_stmt(s: &Stmt, sources: &SourceMap) -> Option<String> {
    let p = stmt_paras(s);
    let nested = |head: String, b: &Block| -> Option<String> {
        seq_block(b, sources).map(|inner| format!("<li>{head} {p}{inner}</li>"))
    };
    match &s.kind {
        StmtKind::Turns { count, body } => {
            let inner = seq_block(body, sources).unwrap_or_default();
            Some(format!(
                "<li class=\"turns\">Each turn (turns: {}) {p}{inner}</li>",
                esc(&src(sources, count.span))
            ))
        }
        StmtKind::Phase { name, side, body } => {
            let inner = seq_block(body, sources).unwrap_or_default();
            Some(format!(
                "<li class=\"phase\" data-phase=\"{n}\"><b>{n} phase</b> — {} {p}{inner}</li>",
                esc(&src(sources, side.span)),
                n = esc(&name.name)
            ))
        }
        StmtKind::Call { name, args } => {
            let args: Vec<String> = args.iter().map(|a| src(sources, a.span)).collect();
            Some(format!(
                "<li class=\"call\"><code>{}({})</code> {p}</li>",
                esc(&name.name),
                esc(&args.join(", "))
            ))
        }
        StmtKind::If { cond, then, els } => {
            let t = seq_block(then, sources);
            let e = els.as_ref().and_then(|b| seq_block(b, sources));
            if t.is_none() && e.is_none() {
                return None;
            }
            let mut h =
                format!("<li>if <code>{}</code> {p}{}", esc(&src(sources, cond.span)), t.unwrap_or_default());
            if let Some(e) = e {
                let _ = write!(h, "otherwise{e}");
            }
            h.push_str("</li>");
            Some(h)
        }
        StmtKind::For { var, iter, body } => nested(
            format!(
                "for each <code>{}</code> in <code>{}</code>",
                esc(&var.name),
                esc(&src(sources, iter.span))
            ),
            body,
        ),
        StmtKind::While { cond, body } => {
            nested(format!("while <code>{}</code>", esc(&src(sources, cond.span))), body)
        }
        StmtKind::Sealed(body) => nested("at the same time, unseen by each other:".into(), body),
        StmtKind::Win { .. } | StmtKind::Draw { .. } => {
            Some(format!("<li class=\"end\"><code>{}</code> {p}</li>", esc(&src(sources, s.span))))
        }
        _ => None,
    }
}

/// Every table: its cells as printed, and for a rolled table the exact odds of each
/// result per column.
fn tables(prog: &Program, book: &Rulebook) -> String {
    let mut html = String::new();
    for t in &prog.tables {
        let sup = supplied(prog, &format!("table {}", t.name));
        let _ = write!(
            html,
            "<article class=\"table\" data-table=\"{n}\"><h3>{n} {}{sup}</h3>",
            paras([prog.para(t.para)]),
            n = esc(&t.name)
        );
        html.push_str(&table_cells(prog, t));
        match table_dice(book, &t.name) {
            Ok(Some(dice)) => html.push_str(&table_odds(&odds(prog, t, dice, 0))),
            Ok(None) => html.push_str("<p class=\"note\">Read by a value, not rolled: no odds.</p>"),
            Err(e) => {
                let _ = write!(html, "<p class=\"note\">{}</p>", esc(&e));
            }
        }
        html.push_str("</article>");
    }
    if html.is_empty() {
        html.push_str("<p>The rulebook declares no tables.</p>");
    }
    html
}

fn column_names(t: &TableDef) -> Vec<String> {
    let n = t.columns.len().max(1);
    (0..n)
        .map(|c| match t.odds.get(c) {
            Some(&(a, d)) => format!("{a}:{d}"),
            None => t.columns.get(c).map(|&(a, b)| range_label(a, b)).unwrap_or_else(|| "all".into()),
        })
        .collect()
}

fn table_cells(prog: &Program, t: &TableDef) -> String {
    let cols = column_names(t);
    let mut h = String::from("<table class=\"cells\"><thead><tr><th>row</th>");
    for c in &cols {
        let _ = write!(h, "<th>{}</th>", esc(c));
    }
    h.push_str("</tr></thead><tbody>");
    for (r, &(lo, hi)) in t.rows.iter().enumerate() {
        let _ = write!(h, "<tr><th>{}</th>", esc(&range_label(lo, hi)));
        for c in 0..cols.len() {
            let v = t.cells.get(r * cols.len() + c).copied().unwrap_or(kriegsspiel_runtime::Value::Nil);
            let _ = write!(h, "<td>{}</td>", esc(&label(prog, v)));
        }
        h.push_str("</tr>");
    }
    h.push_str("</tbody></table>");
    h
}

/// The odds as a grid: one row per result, one column per table column, each cell the
/// fraction and its percentage.
fn table_odds(o: &serde_json::Value) -> String {
    let columns = o["columns"].as_array().cloned().unwrap_or_default();
    let mut results: Vec<String> = Vec::new();
    for c in &columns {
        for r in c["results"].as_array().into_iter().flatten() {
            let name = r["result"].as_str().unwrap_or("?").to_string();
            if !results.contains(&name) {
                results.push(name);
            }
        }
    }
    let mut h = format!(
        "<table class=\"odds\" data-outcomes=\"{}\"><caption>{}: {} equally likely outcomes</caption><thead><tr><th>result</th>",
        o["outcomes"],
        esc(o["dice"].as_str().unwrap_or("?")),
        o["outcomes"]
    );
    for c in &columns {
        let _ = write!(h, "<th>{}</th>", esc(c["column"].as_str().unwrap_or("?")));
    }
    h.push_str("</tr></thead><tbody>");
    for name in &results {
        let _ = write!(h, "<tr><th>{}</th>", esc(name));
        for (ci, c) in columns.iter().enumerate() {
            let cell =
                c["results"].as_array().into_iter().flatten().find(|r| r["result"].as_str() == Some(name));
            match cell {
                Some(r) => {
                    let _ = write!(
                        h,
                        "<td data-col=\"{ci}\" data-fraction=\"{f}\">{f} <small>{:.1}%</small></td>",
                        r["probability"].as_f64().unwrap_or(0.0) * 100.0,
                        f = esc(r["fraction"].as_str().unwrap_or("?"))
                    );
                }
                None => h.push_str("<td></td>"),
            }
        }
        h.push_str("</tr>");
    }
    h.push_str("</tbody></table>");
    h
}

/// Every modifier list: each line's effect, its condition as written and its paragraph.
fn modifiers(book: &Rulebook, sources: &SourceMap) -> String {
    let mut html = String::new();
    for d in &book.decls {
        let DeclKind::Modifiers(m) = &d.kind else { continue };
        html.push_str(&modifier_set(m, d.anchors.iter().map(|a| a.text.as_str()), sources));
    }
    if html.is_empty() {
        html.push_str("<p>The rulebook declares no modifiers.</p>");
    }
    html
}

fn modifier_set<'a>(
    m: &Modifiers,
    anchors: impl IntoIterator<Item = &'a str>,
    sources: &SourceMap,
) -> String {
    let params: Vec<&str> = m.params.iter().map(|p| p.name.name.as_str()).collect();
    let mut notes = Vec::new();
    if m.best_only {
        notes.push("only the best applies".to_string());
    }
    if let Some(cap) = &m.cap {
        notes.push(format!("total capped at {}..{}", cap.lo, cap.hi));
    }
    if let Some((dir, _)) = &m.round {
        notes.push(match dir {
            RoundDir::Up => "rounded up".to_string(),
            RoundDir::Down => "rounded down".to_string(),
        });
    }
    let mut h = format!(
        "<article class=\"modifiers\" data-modifiers=\"{n}\"><h3>{n}({}) {}</h3>",
        esc(&params.join(", ")),
        paras(anchors),
        n = esc(&m.name.name)
    );
    if !notes.is_empty() {
        let _ = write!(h, "<p class=\"note\">{}</p>", esc(&notes.join("; ")));
    }
    h.push_str("<table class=\"mods\"><tbody>");
    for l in &m.lines {
        let effect = match &l.effect {
            ModEffect::Add { negative, amount } => {
                let sign = if *negative { "−" } else { "+" };
                match amount {
                    AddAmount::Int(n) => format!("{sign}{n}"),
                    AddAmount::Name(i) => format!("{sign}{}", i.name),
                }
            }
            ModEffect::Mul { num, den } if *den == 1 => format!("×{num}"),
            ModEffect::Mul { num, den } => format!("×{num}/{den}"),
        };
        let _ = write!(
            h,
            "<tr><td class=\"effect\">{}</td><td>when <code>{}</code></td><td>{}</td></tr>",
            esc(&effect),
            esc(&src(sources, l.when.span)),
            paras(l.anchor.iter().chain(&l.also).map(|a| a.text.as_str()))
        );
    }
    h.push_str("</tbody></table></article>");
    h
}

/// Terrain types and hexside features with their attributes (the terrain effects chart).
fn terrain(prog: &Program) -> String {
    let mut h = String::new();
    for (title, attrs, items, kind) in [
        ("Terrain", &prog.terrain_attrs, &prog.terrains, "terrain"),
        ("Hexsides", &prog.hexside_attrs, &prog.hexsides, "hexside"),
    ] {
        if items.is_empty() {
            continue;
        }
        let _ =
            write!(h, "<h3>{title}</h3><table class=\"tec\" data-kind=\"{kind}\"><thead><tr><th>{kind}</th>");
        for a in attrs {
            let _ = write!(h, "<th>{}</th>", esc(a));
        }
        h.push_str("<th>paragraph</th></tr></thead><tbody>");
        for f in items {
            let sup = supplied(prog, &format!("terrain/hexside {}", f.name));
            let _ = write!(h, "<tr><th>{}{sup}</th>", esc(&f.name));
            for i in 0..attrs.len() {
                let _ = write!(h, "<td>{}</td>", f.attrs.get(i).map(i64::to_string).unwrap_or_default());
            }
            let _ = write!(h, "<td>{}</td></tr>", paras([prog.para(f.para)]));
        }
        h.push_str("</tbody></table>");
    }
    if h.is_empty() {
        h.push_str("<p>The rulebook declares no terrain.</p>");
    }
    h
}

fn supplied_list(prog: &Program) -> String {
    if prog.supplied.is_empty() {
        return "<p>Everything here is from the rulebook's text.</p>".into();
    }
    let mut h = String::from("<table class=\"supplied-list\"><thead><tr><th>what</th><th>why</th><th>paragraph</th></tr></thead><tbody>");
    for s in &prog.supplied {
        let _ = write!(
            h,
            "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(&s.what),
            esc(&s.reason),
            paras([prog.para(s.para)])
        );
    }
    h.push_str("</tbody></table>");
    h
}
