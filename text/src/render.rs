//! Output: findings as codespan-reporting diagnostics (file, line, column, the
//! paragraph they sit in) and as JSON data.

use codespan_reporting::diagnostic::{Diagnostic, Label};
use codespan_reporting::term::{self, Config};

use crate::checks::{count_by_code, Finding, Severity};
use crate::index::TextIndex;

/// Longest line a finding prints whole; a finding on a longer line (a text without line
/// breaks, say) prints an excerpt of at most `2 * EXCERPT` bytes around its span instead.
pub const MAX_LINE: usize = 300;
/// At most this many findings of one code are printed; the summary counts them all.
pub const MAX_SHOWN_PER_CODE: usize = 100;
const EXCERPT: usize = 80;

/// Write every finding as a codespan diagnostic, then a one-line summary. Lines are
/// located with one index of line starts (`\n`, `\r\n` and `\r` all end a line), and no
/// finding prints more than [`MAX_LINE`] bytes of the text: the output is linear in the
/// number of findings whatever the shape of the text.
pub fn render_human(
    file_name: &str,
    src: &str,
    findings: &[Finding],
    err: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let file = TextFile { name: file_name, src, line_starts: line_starts(src) };
    let config = Config::default();
    let mut per_code: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for f in findings {
        let n = per_code.entry(f.code).or_default();
        *n += 1;
        if *n > MAX_SHOWN_PER_CODE {
            continue;
        }
        let line = file.line_of(f.start);
        let range = file.range_of(line);
        if range.len() > MAX_LINE || f.end.saturating_sub(f.start) > MAX_LINE {
            write_excerpt(err, &file, f, line + 1, range)?;
            continue;
        }
        let diag = to_diagnostic(f);
        match term::emit_to_io_write(err, &config, &file, &diag) {
            Ok(()) => {}
            Err(codespan_reporting::files::Error::Io(e)) => return Err(e),
            Err(_) => {
                writeln!(err, "{file_name}:{}: {}[{}]: {}", f.line, sev(f.severity), f.code, f.message)?
            }
        }
    }
    for (code, n) in per_code {
        if n > MAX_SHOWN_PER_CODE {
            writeln!(
                err,
                "note: {} more {code} finding(s) not shown (at most {MAX_SHOWN_PER_CODE} of each code are printed; --format json lists all)",
                n - MAX_SHOWN_PER_CODE
            )?;
        }
    }
    writeln!(err, "{}", summary(findings))?;
    Ok(())
}

/// A finding on a very long line: its location, message, notes and a bounded excerpt.
fn write_excerpt(
    err: &mut dyn std::io::Write,
    file: &TextFile,
    f: &Finding,
    line: usize,
    range: std::ops::Range<usize>,
) -> std::io::Result<()> {
    let src = file.src;
    let floor = |mut i: usize| {
        while i > 0 && !src.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let from = floor(f.start.saturating_sub(EXCERPT).max(range.start));
    let to = floor((f.start + EXCERPT).min(range.end).max(from));
    let excerpt: String = src[from..to].chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    writeln!(err, "{}[{}]: {}", sev(f.severity), f.code, f.message)?;
    writeln!(
        err,
        "  --> {}:{line} (byte {}; the line is {} bytes long, shown in part)",
        file.name,
        f.start,
        range.len()
    )?;
    writeln!(
        err,
        "   | {}{excerpt}{}",
        if from > range.start { "…" } else { "" },
        if to < range.end { "…" } else { "" }
    )?;
    if let Some(p) = &f.paragraph {
        writeln!(err, "   = paragraph: §{p}")?;
    }
    for n in &f.notes {
        writeln!(err, "   = {n}")?;
    }
    writeln!(err)
}

/// Where each line starts: after `\n`, after `\r\n`, after a lone `\r` (as the lexer).
pub fn line_starts(src: &str) -> Vec<usize> {
    let b = src.as_bytes();
    let mut starts = vec![0];
    for (i, &c) in b.iter().enumerate() {
        if c == b'\n' || (c == b'\r' && b.get(i + 1) != Some(&b'\n')) {
            starts.push(i + 1);
        }
    }
    starts
}

/// The text as codespan's file database, over [`line_starts`].
struct TextFile<'a> {
    name: &'a str,
    src: &'a str,
    line_starts: Vec<usize>,
}

impl TextFile<'_> {
    fn line_of(&self, offset: usize) -> usize {
        self.line_starts.partition_point(|&s| s <= offset).saturating_sub(1)
    }
    /// The line's bytes with its line break.
    fn range_of(&self, line: usize) -> std::ops::Range<usize> {
        let len = self.src.len();
        let start = self.line_starts.get(line).copied().unwrap_or(len).min(len);
        let end = self.line_starts.get(line + 1).copied().unwrap_or(len).clamp(start, len);
        start..end
    }
}

impl<'a> codespan_reporting::files::Files<'a> for TextFile<'_> {
    type FileId = ();
    type Name = &'a str;
    type Source = &'a str;
    fn name(&'a self, _: ()) -> Result<&'a str, codespan_reporting::files::Error> {
        Ok(self.name)
    }
    fn source(&'a self, _: ()) -> Result<&'a str, codespan_reporting::files::Error> {
        Ok(self.src)
    }
    fn line_index(&'a self, _: (), byte: usize) -> Result<usize, codespan_reporting::files::Error> {
        Ok(self.line_of(byte))
    }
    fn line_range(
        &'a self,
        _: (),
        line: usize,
    ) -> Result<std::ops::Range<usize>, codespan_reporting::files::Error> {
        Ok(self.range_of(line))
    }
}

fn sev(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "note",
    }
}

/// One finding as a codespan diagnostic.
pub fn to_diagnostic(f: &Finding) -> Diagnostic<()> {
    let d = match f.severity {
        Severity::Error => Diagnostic::error(),
        Severity::Warning => Diagnostic::warning(),
        Severity::Note => Diagnostic::note(),
    };
    let label = match &f.paragraph {
        Some(p) => format!("in §{p}"),
        None => "before the first numbered paragraph".to_string(),
    };
    let mut notes = f.notes.clone();
    if let Some(p) = &f.paragraph {
        notes.insert(0, format!("paragraph: §{p}"));
    }
    d.with_code(f.code)
        .with_message(&f.message)
        .with_labels(vec![Label::primary((), f.start..f.end).with_message(label)])
        .with_notes(notes)
}

/// `3 errors, 2 warnings, 0 notes (T0001 ×2, ...)`.
pub fn summary(findings: &[Finding]) -> String {
    let n = |s: Severity| findings.iter().filter(|f| f.severity == s).count();
    let by: Vec<String> = count_by_code(findings).into_iter().map(|(c, k)| format!("{c} ×{k}")).collect();
    format!(
        "{} errors, {} warnings, {} notes{}",
        n(Severity::Error),
        n(Severity::Warning),
        n(Severity::Note),
        if by.is_empty() { String::new() } else { format!(" ({})", by.join(", ")) }
    )
}

/// Findings (and optionally the index) as one JSON document.
pub fn to_json(
    file_name: &str,
    src: &str,
    index: &TextIndex,
    findings: &[Finding],
    with_index: bool,
) -> serde_json::Value {
    let shown: Vec<serde_json::Value> = findings.iter().map(|f| finding_json(file_name, src, f)).collect();
    let mut doc = serde_json::json!({
        "file": file_name,
        "style": index.style.name,
        "headings": index.headings_only().count(),
        "findings": shown,
        "summary": {
            "errors": findings.iter().filter(|f| f.severity == Severity::Error).count(),
            "warnings": findings.iter().filter(|f| f.severity == Severity::Warning).count(),
            "notes": findings.iter().filter(|f| f.severity == Severity::Note).count(),
        },
    });
    if with_index {
        if let Some(obj) = doc.as_object_mut() {
            obj.insert(
                "paragraphs".into(),
                serde_json::to_value(&index.paragraphs).unwrap_or(serde_json::Value::Null),
            );
        }
    }
    doc
}

/// One finding in the JSON shape `check` gives its diagnostics (docs/cli.md): code,
/// severity, message, file, line, column (1-based, in characters), span (bytes),
/// paragraphs, labels and notes.
pub fn finding_json(file_name: &str, src: &str, f: &Finding) -> serde_json::Value {
    let start = f.start.min(src.len());
    let line_start = src[..start].rfind('\n').map(|i| i + 1).unwrap_or(0);
    let column = src.get(line_start..start).map(|s| s.chars().count()).unwrap_or(0) + 1;
    serde_json::json!({
        "severity": f.severity,
        "code": f.code,
        "message": f.message,
        "file": file_name,
        "line": f.line,
        "column": column,
        "span": { "start": f.start, "end": f.end },
        "paragraphs": f.paragraph.iter().collect::<Vec<_>>(),
        "labels": [],
        "notes": f.notes,
    })
}
