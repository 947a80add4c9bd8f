//! `report RULES.txt [--rulebook DIR] [-o FILE] [--format html|json]`: one page for the
//! designer. The rules text comes first, paragraph by paragraph; beside each paragraph
//! are the text checker's findings and, with a rulebook, the paragraph's coverage
//! state (encoded, superseded, waived with the reason, missing), the declarations and
//! statements whose anchors name it, the supplied data it carries and the compiler's
//! diagnostics that cite it. A summary on top counts findings by code and severity and
//! the coverage. The HTML is self-contained (inline style, no script, no fetches).

use crate::html::esc;
use kriegsspiel_compiler::{read_regular_file, ContentStatus, Report as CompileReport};
use kriegsspiel_dsl::{ast::Span, Diagnostic, SourceMap};
use kriegsspiel_text::coverage::parse_anchor;
use kriegsspiel_text::{Finding, Paragraph, ParagraphKind, TextIndex};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

/// Output format of `report`.
#[derive(Clone, Copy, clap::ValueEnum, PartialEq, Eq)]
pub(crate) enum ReportFormat {
    /// A self-contained HTML page.
    Html,
    /// The same content as one JSON document.
    Json,
}

/// What encodes a paragraph: a declaration or a statement of the rulebook.
struct Encoding {
    /// The declaration's first line (anchors left out), or the statement's line.
    label: String,
    /// True when the anchor is on a statement or modifier line inside a declaration.
    inner: bool,
    /// The enclosing declaration's first line, for an inner anchor.
    within: Option<String>,
    file: String,
    line: usize,
}

/// One paragraph of the text with everything said about it.
struct Row<'a> {
    para: Option<&'a Paragraph>,
    number: String,
    title: String,
    line: usize,
    text: &'a str,
    findings: Vec<&'a Finding>,
    coverage: Option<(&'static str, Option<String>)>,
    encodings: Vec<Encoding>,
    supplied: Vec<(String, String)>,
    diagnostics: Vec<&'a Diagnostic>,
    /// The rulebook's `finding` declarations and the compiler's (W0005) about it.
    declared: Vec<&'a kriegsspiel_compiler::FindingOut>,
}

impl<'a> Row<'a> {
    /// A row with nothing said about it yet.
    fn new(
        para: Option<&'a Paragraph>,
        number: String,
        title: String,
        line: usize,
        text: &'a str,
    ) -> Row<'a> {
        Row {
            para,
            number,
            title,
            line,
            text,
            findings: Vec::new(),
            coverage: None,
            encodings: Vec::new(),
            supplied: Vec::new(),
            diagnostics: Vec::new(),
            declared: Vec::new(),
        }
    }
}

pub(crate) fn cmd_report(
    text_path: &Path,
    rulebook: Option<&Path>,
    output: Option<&Path>,
    format: ReportFormat,
    style: Option<&str>,
    ui: crate::Ui,
) -> u8 {
    let src = match read_regular_file(text_path) {
        Ok(s) => s,
        Err(e) => {
            say!("error[E0701]: {e}");
            return 2;
        }
    };
    let style = match kriegsspiel_text::resolve(&src, style) {
        Ok(s) => s,
        Err(e) => {
            say!("error[E0703]: {e}");
            return 2;
        }
    };
    let (idx, findings) = kriegsspiel_text::validate(&src, &style);
    let compiled = match rulebook {
        None => None,
        Some(rb) => match crate::build(rb, crate::Format::Human, crate::Ui { quiet: true, ..ui }) {
            Ok((sources, c)) => Some((sources, c)),
            Err(code) => return code,
        },
    };
    // A rulebook with errors still gets its page (its diagnostics are on stderr and
    // beside their paragraphs), but the exit code says it does not compile.
    let failed = compiled.as_ref().is_some_and(|(_, c)| c.has_errors());
    let name = text_path.display().to_string();
    let rows =
        rows(&src, &idx, &findings, compiled.as_ref().map(|(s, c)| (s, &c.report, &c.diagnostics[..])));
    let book_title = compiled.as_ref().map(|(_, c)| c.report.title.clone());
    let summary = summary(&idx, &findings, &rows, compiled.as_ref().map(|(_, c)| &c.report));
    let doc = match format {
        ReportFormat::Json => {
            let v = json!({
                "file": name,
                "style": idx.style.name,
                "rulebook": book_title,
                "summary": summary,
                "paragraphs": rows.iter().map(row_json).collect::<Vec<_>>(),
            });
            format!("{v}\n")
        }
        ReportFormat::Html => html(&name, book_title.as_deref(), &idx, &summary, &rows),
    };
    let ok = u8::from(failed);
    match output {
        None => match crate::out(&doc) {
            Ok(()) => ok,
            Err(code) => code,
        },
        Some(p) => match std::fs::File::create(p).and_then(|mut f| f.write_all(doc.as_bytes())) {
            Ok(()) => ok,
            Err(e) => {
                say!("error[E0702]: cannot write {}: {e}", p.display());
                2
            }
        },
    }
}

/// The paragraphs in text order, with a first row for what precedes the first heading
/// (title, contents), and everything said about each.
fn rows<'a>(
    src: &'a str,
    idx: &'a TextIndex,
    findings: &'a [Finding],
    book: Option<(&'a SourceMap, &'a CompileReport, &'a [Diagnostic])>,
) -> Vec<Row<'a>> {
    let first_start = idx.paragraphs.first().map(|p| p.start).unwrap_or(src.len());
    let mut rows: Vec<Row<'a>> = Vec::new();
    rows.push(Row::new(
        None,
        String::new(),
        "Before the first paragraph".into(),
        1,
        src.get(..first_start).unwrap_or(""),
    ));
    for (k, p) in idx.paragraphs.iter().enumerate() {
        // A heading's span runs to the next heading; its own text ends where its first
        // lettered item (the next paragraph) starts.
        let end = match idx.paragraphs.get(k + 1) {
            Some(n) if n.start > p.start => p.end.min(n.start),
            _ => p.end,
        };
        let text = src.get(p.start..end.max(p.start)).unwrap_or("");
        rows.push(Row::new(Some(p), idx.anchor(p), p.title.clone(), p.line, text));
    }
    // Findings by position: the last paragraph starting at or before the finding.
    for f in findings {
        let i = idx.paragraphs.partition_point(|p| p.start <= f.start);
        rows[i].findings.push(f);
    }
    let Some((sources, report, diags)) = book else {
        return rows;
    };
    // Rows by (part, path, item) key, the first occurrence of a number.
    let mut by_key: BTreeMap<(Option<usize>, Vec<u32>, Option<char>), usize> = BTreeMap::new();
    for (i, r) in rows.iter().enumerate() {
        if let Some(p) = r.para {
            by_key.entry((p.part_index, p.path.clone(), p.letter)).or_insert(i);
        }
    }
    let find = |number: &str| -> Option<usize> {
        let key = parse_anchor(&idx.style, number)?;
        by_key.get(&key).copied().or_else(|| by_key.get(&(key.0, key.1, None)).copied())
    };
    // Coverage of headings, from the contents.
    for (number, _, status) in &report.contents {
        let Some(i) = find(number) else { continue };
        rows[i].coverage = Some(match status {
            ContentStatus::Encoded => ("encoded", None),
            ContentStatus::Waived(w) => ("waived", Some(w.clone())),
            ContentStatus::Superseded(by) => ("superseded", Some(format!("by §{by}"))),
            ContentStatus::Missing => ("missing", None),
        });
    }
    for r in rows.iter_mut() {
        if r.coverage.is_none() && r.para.is_some_and(|p| p.kind == ParagraphKind::Heading) {
            r.coverage = Some(("not listed", None));
        }
    }
    // Declarations and statements, from every anchor the compiler checked.
    let (book_ast, _) = kriegsspiel_dsl::parse_all(sources);
    let decl_of = |span: Span| {
        book_ast
            .decls
            .iter()
            .find(|d| d.span.file == span.file && d.span.start <= span.start && span.end <= d.span.end)
    };
    let line_text = |span: Span| -> (usize, String) {
        let line = sources.line_index(span.file, span.start as usize);
        let range = sources.line_range(span.file, line);
        (line + 1, sources.text(span.file).get(range).unwrap_or("").trim().to_string())
    };
    for (anchor, span) in &report.anchors {
        let Some(i) = find(anchor) else { continue };
        let (line, text_line) = line_text(*span);
        let file = sources.name(span.file).to_string();
        let enc = match decl_of(*span) {
            // A finding is about its paragraphs, not an encoding of them.
            Some(d) if matches!(d.kind, kriegsspiel_dsl::ast::DeclKind::Finding { .. }) => continue,
            Some(d) if d.anchors.iter().any(|a| a.span == *span) => {
                Encoding { label: first_line(sources, d.span), inner: false, within: None, file, line }
            }
            Some(d) => Encoding {
                label: strip_anchors(&text_line),
                inner: true,
                within: Some(first_line(sources, d.span)),
                file,
                line,
            },
            None => Encoding { label: strip_anchors(&text_line), inner: true, within: None, file, line },
        };
        if !rows[i].encodings.iter().any(|e| e.file == enc.file && e.line == enc.line) {
            rows[i].encodings.push(enc);
        }
    }
    for (what, reason, para) in &report.supplied {
        if let Some(i) = find(para) {
            rows[i].supplied.push((what.clone(), reason.clone()));
        }
    }
    for d in diags {
        // W0005 is shown as the finding it makes.
        if d.code == "W0005" {
            continue;
        }
        if let Some(i) = d.paragraphs.first().and_then(|p| find(p)) {
            rows[i].diagnostics.push(d);
        }
    }
    for f in &report.findings {
        let mut at: Vec<usize> = f.paragraphs.iter().filter_map(|p| find(p)).collect();
        at.dedup();
        for i in at {
            rows[i].declared.push(f);
        }
    }
    rows
}

/// A declaration's first line without its anchors: `fn attack(u: Unit) -> Int =`.
fn first_line(sources: &SourceMap, span: Span) -> String {
    let text = sources.text(span.file);
    let body = text.get(span.start as usize..(span.end as usize).min(text.len())).unwrap_or("");
    let line = body.lines().map(strip_anchors).find(|l| !l.is_empty()).unwrap_or_default();
    truncate(&line, 160)
}

/// A line with its leading anchors (`§7.1.2 §7.1.3.B`, `§Rule 11 F`, `§[45.]`) removed.
fn strip_anchors(line: &str) -> String {
    let mut s = line.trim();
    while let Some(rest) = s.strip_prefix('§') {
        let rest = rest
            .strip_prefix("Rule ")
            .map(|r| r.trim_start_matches(|c: char| c.is_ascii_digit()))
            .unwrap_or(rest);
        let n = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let mut after = &rest[n..];
        // `§Rule 11 F`: a lone capital after the number is the item.
        let t = after.trim_start();
        if t.len() > 1
            && t.as_bytes()[0].is_ascii_uppercase()
            && t.as_bytes()[1] == b' '
            && line.contains("§Rule")
        {
            after = &t[1..];
        }
        s = after.trim_start();
    }
    s.to_string()
}

fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(max).collect();
        t.push('…');
        t
    }
}

fn summary(idx: &TextIndex, findings: &[Finding], rows: &[Row], report: Option<&CompileReport>) -> Value {
    let by_code: Vec<Value> = kriegsspiel_text::checks::count_by_code(findings)
        .into_iter()
        .map(|(code, n)| {
            let (sev, what) = kriegsspiel_text::checks::CODES
                .iter()
                .find(|(c, _, _)| *c == code)
                .map(|(_, s, w)| (format!("{s:?}").to_lowercase(), *w))
                .unwrap_or_default();
            json!({ "code": code, "severity": sev, "meaning": what, "count": n })
        })
        .collect();
    let count = |s: kriegsspiel_text::Severity| findings.iter().filter(|f| f.severity == s).count();
    let headings = idx.paragraphs.iter().filter(|p| p.kind == ParagraphKind::Heading).count();
    let mut v = json!({
        "headings": headings,
        "items": idx.paragraphs.len() - headings,
        "findings": {
            "errors": count(kriegsspiel_text::Severity::Error),
            "warnings": count(kriegsspiel_text::Severity::Warning),
            "notes": count(kriegsspiel_text::Severity::Note),
            "by_code": by_code,
        },
    });
    if let Some(r) = report {
        let state = |s: &str| rows.iter().filter(|r| r.coverage.as_ref().is_some_and(|c| c.0 == s)).count();
        v["coverage"] = json!({
            "encoded": state("encoded"),
            "waived": state("waived"),
            "superseded": state("superseded"),
            "missing": state("missing"),
            "not_listed": state("not listed"),
        });
        v["supplied"] = json!(r.supplied.len());
        v["rulings"] = json!(r.rulings.len());
        let mut kinds = serde_json::Map::new();
        for f in &r.findings {
            let n = kinds.get(&f.kind).and_then(|v| v.as_u64()).unwrap_or(0);
            kinds.insert(f.kind.clone(), json!(n + 1));
        }
        v["declared_findings"] = json!({ "total": r.findings.len(), "by_kind": kinds });
        v["examples"] = json!({ "run": r.examples_run, "passed": r.examples_passed });
    }
    v
}

fn finding_json(f: &Finding) -> Value {
    json!({
        "code": f.code,
        "severity": format!("{:?}", f.severity).to_lowercase(),
        "message": f.message,
        "line": f.line,
        "notes": f.notes,
    })
}

fn row_json(r: &Row) -> Value {
    json!({
        "number": r.number,
        "title": r.title,
        "line": r.line,
        "kind": r.para.map(|p| format!("{:?}", p.kind).to_lowercase()),
        "text": r.text,
        "findings": r.findings.iter().map(|f| finding_json(f)).collect::<Vec<_>>(),
        "coverage": r.coverage.as_ref().map(|c| c.0),
        "reason": r.coverage.as_ref().and_then(|c| c.1.clone()),
        "encodings": r.encodings.iter().map(|e| json!({
            "label": e.label, "inner": e.inner, "within": e.within, "file": e.file, "line": e.line,
        })).collect::<Vec<_>>(),
        "supplied": r.supplied.iter().map(|(w, why)| json!({ "what": w, "reason": why })).collect::<Vec<_>>(),
        "declared_findings": r.declared.iter().map(|f| json!({
            "kind": f.kind, "description": f.description, "paragraphs": f.paragraphs,
            "ruling": f.ruling, "source": f.source,
        })).collect::<Vec<_>>(),
        "diagnostics": r.diagnostics.iter().map(|d| json!({
            "code": d.code,
            "severity": if d.is_error() { "error" } else { "warning" },
            "message": d.message,
        })).collect::<Vec<_>>(),
    })
}

const STYLE: &str = "body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1d1d1f;background:#fafafa}\
header{padding:16px 24px;background:#fff;border-bottom:1px solid #ddd}\
h1{font-size:20px;margin:0 0 8px}table.summary{border-collapse:collapse;margin:6px 0}\
table.summary td,table.summary th{border:1px solid #ddd;padding:2px 8px;text-align:left}\
section.para{display:grid;grid-template-columns:minmax(0,3fr) minmax(0,2fr);gap:16px;padding:10px 24px;border-bottom:1px solid #eee}\
section.para:target{background:#fffbe6}.num{font-weight:600;color:#555}\
pre{white-space:pre-wrap;word-wrap:break-word;font:13px/1.45 ui-serif,Georgia,serif;margin:2px 0}\
aside{font-size:13px}ul{margin:4px 0;padding-left:18px}\
.cov{display:inline-block;padding:0 6px;border-radius:4px;font-size:12px;font-weight:600}\
.cov.encoded{background:#d7f5dd}.cov.waived{background:#e6e6e6}.cov.superseded{background:#dde8fb}\
.cov.missing{background:#fde2e1}.cov.not-listed{background:#fff0c2}\
li.declared-finding{color:#0b5394}li.finding.error{color:#b3261e}li.finding.warning{color:#8a5a00}li.diag{color:#6b3fa0}\
code{font:12px ui-monospace,monospace;background:#f2f2f2;padding:0 3px}.where{color:#777;font-size:12px}";

fn html(name: &str, book: Option<&str>, idx: &TextIndex, summary: &Value, rows: &[Row]) -> String {
    let mut o = String::new();
    o.push_str("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">");
    o.push_str(&format!("<title>Rules report: {}</title><style>{STYLE}</style></head><body>\n", esc(name)));
    o.push_str("<header>");
    o.push_str(&format!("<h1>Rules report: {}</h1>", esc(name)));
    o.push_str(&format!(
        "<p>Numbering style <code>{}</code>; {} headings, {} lettered items.{}</p>",
        esc(&idx.style.name),
        summary["headings"],
        summary["items"],
        book.map(|b| format!(" Encoding: <b>{}</b>.", esc(b))).unwrap_or_default()
    ));
    let f = &summary["findings"];
    o.push_str(&format!(
        "<table class=\"summary\" id=\"findings-summary\"><tr><th>Findings</th><td>{} errors, {} warnings, {} notes</td></tr>",
        f["errors"], f["warnings"], f["notes"]
    ));
    for c in f["by_code"].as_array().into_iter().flatten() {
        o.push_str(&format!(
            "<tr><td><code>{}</code> {}</td><td>{} ({})</td></tr>",
            esc(c["code"].as_str().unwrap_or("")),
            esc(c["meaning"].as_str().unwrap_or("")),
            c["count"],
            esc(c["severity"].as_str().unwrap_or(""))
        ));
    }
    if let Some(c) = summary.get("coverage") {
        o.push_str(&format!(
            "<tr><th>Coverage</th><td id=\"coverage-summary\">{} encoded, {} superseded, {} waived, {} missing, {} not listed</td></tr>",
            c["encoded"], c["superseded"], c["waived"], c["missing"], c["not_listed"]
        ));
        o.push_str(&format!(
            "<tr><th>Encoding</th><td>{} supplied items, {} rulings, examples {} run / {} passed</td></tr>",
            summary["supplied"],
            summary["rulings"],
            summary["examples"]["run"],
            summary["examples"]["passed"]
        ));
        let d = &summary["declared_findings"];
        let kinds: Vec<String> = d["by_kind"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(k, n)| format!("{} ×{n}", k.replace('_', " ")))
            .collect();
        o.push_str(&format!(
            "<tr><th>Findings from encoding</th><td id=\"declared-summary\">{}{}</td></tr>",
            d["total"],
            if kinds.is_empty() { String::new() } else { format!(" ({})", esc(&kinds.join(", "))) }
        ));
    }
    o.push_str("</table></header>\n<main>\n");
    for r in rows {
        if r.para.is_none() && r.text.trim().is_empty() && r.findings.is_empty() {
            continue;
        }
        let id = if r.number.is_empty() {
            "preamble".to_string()
        } else {
            format!("p-{}", r.number.replace(' ', "_"))
        };
        let cov = r.coverage.as_ref().map(|c| c.0).unwrap_or("");
        o.push_str(&format!(
            "<section class=\"para\" id=\"{}\" data-number=\"{}\" data-coverage=\"{}\" data-findings=\"{}\">",
            esc(&id),
            esc(&r.number),
            esc(cov),
            r.findings.len()
        ));
        o.push_str(&format!(
            "<div class=\"text\"><div class=\"num\">{} {} <span class=\"where\">line {}</span></div><pre>{}</pre></div>",
            esc(&r.number),
            esc(&r.title),
            r.line,
            esc(r.text.trim_end())
        ));
        o.push_str("<aside>");
        if let Some((state, why)) = &r.coverage {
            o.push_str(&format!(
                "<span class=\"cov {}\">{}</span>{}",
                state.replace(' ', "-"),
                esc(state),
                why.as_ref().map(|w| format!(" {}", esc(w))).unwrap_or_default()
            ));
        }
        if !r.findings.is_empty() {
            o.push_str("<ul class=\"findings\">");
            for f in &r.findings {
                let sev = format!("{:?}", f.severity).to_lowercase();
                o.push_str(&format!(
                    "<li class=\"finding {sev}\" data-code=\"{}\"><b>{}</b> {} <span class=\"where\">line {}</span>{}</li>",
                    f.code,
                    f.code,
                    esc(&f.message),
                    f.line,
                    f.notes.iter().map(|n| format!("<br><i>{}</i>", esc(n))).collect::<String>()
                ));
            }
            o.push_str("</ul>");
        }
        if !r.declared.is_empty() {
            o.push_str("<ul class=\"declared\">");
            for f in &r.declared {
                let others: Vec<String> =
                    f.paragraphs.iter().filter(|p| **p != r.number).map(|p| format!("§{p}")).collect();
                o.push_str(&format!(
                    "<li class=\"declared-finding\" data-kind=\"{}\"><b>{}</b> {}{}{}{}</li>",
                    esc(&f.kind),
                    esc(&f.kind.replace('_', " ")),
                    esc(&f.description),
                    if others.is_empty() {
                        String::new()
                    } else {
                        format!(" <span class=\"where\">with {}</span>", esc(&others.join(" ")))
                    },
                    f.ruling.as_ref().map(|x| format!(" <i>ruling {}</i>", esc(x))).unwrap_or_default(),
                    if f.source == "compiler" {
                        " <span class=\"where\">(found by the compiler)</span>"
                    } else {
                        ""
                    }
                ));
            }
            o.push_str("</ul>");
        }
        if !r.diagnostics.is_empty() {
            o.push_str("<ul class=\"diagnostics\">");
            for d in &r.diagnostics {
                o.push_str(&format!(
                    "<li class=\"diag\" data-code=\"{}\"><b>{}</b> {}</li>",
                    d.code,
                    d.code,
                    esc(&d.message)
                ));
            }
            o.push_str("</ul>");
        }
        if !r.encodings.is_empty() {
            o.push_str("<ul class=\"encodings\">");
            for e in &r.encodings {
                let within =
                    e.within.as_ref().map(|w| format!(" in <code>{}</code>", esc(w))).unwrap_or_default();
                o.push_str(&format!(
                    "<li class=\"{}\"><code>{}</code>{within} <span class=\"where\">{}:{}</span></li>",
                    if e.inner { "stmt" } else { "decl" },
                    esc(&e.label),
                    esc(&e.file),
                    e.line
                ));
            }
            o.push_str("</ul>");
        }
        if !r.supplied.is_empty() {
            o.push_str("<ul class=\"supplied\">");
            for (what, why) in &r.supplied {
                o.push_str(&format!("<li>supplied: {} ({})</li>", esc(what), esc(why)));
            }
            o.push_str("</ul>");
        }
        o.push_str("</aside></section>\n");
    }
    o.push_str("</main></body></html>\n");
    o
}
