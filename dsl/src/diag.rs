//! Our own diagnostic type, and its rendering with codespan-reporting.
//!
//! Every user-facing error of the language pipeline is a [`Diagnostic`]: a stable code
//! (`E0xxx` errors, `W0xxx` warnings; see docs/errors.md), a primary span, and where a
//! rule is involved, the rulebook paragraphs. codespan types stay inside this module.

use crate::ast::Span;
use crate::source::SourceMap;
use codespan_reporting::diagnostic as cs;
use codespan_reporting::term;
use serde_json::json;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
pub enum Severity {
    Note,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// One finding: code, message, where, and which rulebook paragraphs it concerns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub code: &'static str,
    pub message: String,
    pub span: Span,
    /// Secondary labels.
    pub labels: Vec<(Span, String)>,
    pub notes: Vec<String>,
    /// Paragraphs involved, as written after `§` (`7.1.2`, `7.1.2.B`).
    pub paragraphs: Vec<String>,
}

impl Diagnostic {
    #[cold]
    pub fn error(code: &'static str, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            code,
            message: message.into(),
            span,
            labels: Vec::new(),
            notes: Vec::new(),
            paragraphs: Vec::new(),
        }
    }
    #[cold]
    pub fn warning(code: &'static str, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic { severity: Severity::Warning, ..Diagnostic::error(code, span, message) }
    }
    pub fn with_label(mut self, span: Span, text: impl Into<String>) -> Diagnostic {
        self.labels.push((span, text.into()));
        self
    }
    pub fn with_note(mut self, text: impl Into<String>) -> Diagnostic {
        self.notes.push(text.into());
        self
    }
    /// Attach a paragraph (`7.1.2`); duplicates are ignored.
    pub fn with_paragraph(mut self, para: impl Into<String>) -> Diagnostic {
        let p = para.into();
        if !p.is_empty() && !self.paragraphs.contains(&p) {
            self.paragraphs.push(p);
        }
        self
    }
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    fn to_codespan(&self) -> cs::Diagnostic<usize> {
        let sev = match self.severity {
            Severity::Note => cs::Severity::Note,
            Severity::Warning => cs::Severity::Warning,
            Severity::Error => cs::Severity::Error,
        };
        let mut message = self.message.clone();
        if !self.paragraphs.is_empty() {
            let ps: Vec<String> = self.paragraphs.iter().map(|p| format!("§{p}")).collect();
            message = format!("{message} [{}]", ps.join(", "));
        }
        let mut labels = vec![cs::Label::primary(self.span.file as usize, range(self.span))];
        for (s, t) in &self.labels {
            labels.push(cs::Label::secondary(s.file as usize, range(*s)).with_message(t.clone()));
        }
        let mut notes = self.notes.clone();
        if !self.paragraphs.is_empty() {
            let ps: Vec<String> = self.paragraphs.iter().map(|p| format!("§{p}")).collect();
            notes.push(format!("rulebook paragraph: {}", ps.join(", ")));
        }
        cs::Diagnostic::new(sev)
            .with_code(self.code)
            .with_message(message)
            .with_labels(labels)
            .with_notes(notes)
    }

    /// Render for a terminal (no colour), as the CLI prints it on stderr. Each line is
    /// located with the source map's line index: rendering is linear in the output.
    pub fn render(&self, sources: &SourceMap) -> String {
        self.render_styled(sources, false)
    }

    /// Render for a terminal, with ANSI colours when `color` (the CLI decides: a
    /// terminal, `--color`, `NO_COLOR`). Without colour it is [`Diagnostic::render`].
    pub fn render_styled(&self, sources: &SourceMap, color: bool) -> String {
        if self.on_long_line(sources) {
            return self.render_excerpt(sources);
        }
        let config = term::Config::default();
        let files = Files(sources);
        let cs = self.to_codespan();
        let rendered = if color {
            let mut writer = term::termcolor::Ansi::new(Vec::new());
            term::emit_to_write_style(&mut writer, &config, &files, &cs).ok().map(|_| writer.into_inner())
        } else {
            let mut writer = term::termcolor::NoColor::new(Vec::new());
            term::emit_to_write_style(&mut writer, &config, &files, &cs).ok().map(|_| writer.into_inner())
        };
        match rendered {
            Some(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            None => format!("{}[{}]: {}\n", self.severity.as_str(), self.code, self.message),
        }
    }

    /// True when a line the diagnostic would print is longer than [`MAX_LINE`] bytes
    /// (a file without line breaks, say), or its span covers more than [`MAX_LINES`]: it is then shown as an excerpt, so that no
    /// diagnostic prints a whole huge line.
    fn on_long_line(&self, sources: &SourceMap) -> bool {
        std::iter::once(&self.span).chain(self.labels.iter().map(|(s, _)| s)).any(|s| {
            let first = sources.line_index(s.file, s.start as usize);
            let last = sources.line_index(s.file, s.end as usize);
            last > first + MAX_LINES || (first..=last).any(|l| sources.line_range(s.file, l).len() > MAX_LINE)
        })
    }

    /// The short form for a diagnostic on a very long line: location, message, at most
    /// `2 * EXCERPT` bytes of the text around the span, labels and notes.
    fn render_excerpt(&self, sources: &SourceMap) -> String {
        let text = sources.text(self.span.file);
        let start = (self.span.start as usize).min(text.len());
        let line = sources.line_index(self.span.file, start);
        let range = sources.line_range(self.span.file, line);
        let floor = |mut i: usize| {
            while i > 0 && !text.is_char_boundary(i) {
                i -= 1;
            }
            i
        };
        let from = floor(start.saturating_sub(EXCERPT).max(range.start));
        let to = floor((start + EXCERPT).min(range.end).max(from));
        let excerpt: String = text[from..to].chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
        let (l, c) = sources.line_col(self.span.file, start);
        let mut out = format!("{}[{}]: {}", self.severity.as_str(), self.code, self.message);
        if !self.paragraphs.is_empty() {
            let ps: Vec<String> = self.paragraphs.iter().map(|p| format!("§{p}")).collect();
            out.push_str(&format!(" [{}]", ps.join(", ")));
        }
        out.push_str(&format!(
            "\n  ┌─ {}:{l}:{c} (a line of {} bytes, shown in part)\n  │ {}{excerpt}{}\n",
            sources.name(self.span.file),
            range.len(),
            if from > range.start { "…" } else { "" },
            if to < range.end { "…" } else { "" },
        ));
        for (s, t) in &self.labels {
            let (l, c) = sources.line_col(s.file, s.start as usize);
            out.push_str(&format!("  = {}:{l}:{c}: {t}\n", sources.name(s.file)));
        }
        for n in &self.notes {
            out.push_str(&format!("  = {n}\n"));
        }
        if !self.paragraphs.is_empty() {
            let ps: Vec<String> = self.paragraphs.iter().map(|p| format!("§{p}")).collect();
            out.push_str(&format!("  = rulebook paragraph: {}\n", ps.join(", ")));
        }
        out.push('\n');
        out
    }

    /// Machine-readable form (`--format json`).
    pub fn to_json(&self, sources: &SourceMap) -> serde_json::Value {
        let (line, col) = sources.line_col(self.span.file, self.span.start as usize);
        json!({
            "severity": self.severity.as_str(),
            "code": self.code,
            "message": self.message,
            "file": sources.name(self.span.file),
            "line": line,
            "column": col,
            "span": { "start": self.span.start, "end": self.span.end },
            "paragraphs": self.paragraphs,
            "labels": self.labels.iter().map(|(s, message)| {
                let (line, col) = sources.line_col(s.file, s.start as usize);
                json!({
                    "file": sources.name(s.file),
                    "line": line,
                    "column": col,
                    "span": { "start": s.start, "end": s.end },
                    "message": message,
                })
            }).collect::<Vec<_>>(),
            "notes": self.notes,
        })
    }
}

/// Longest line a diagnostic prints whole (see [`Diagnostic::render`]).
pub const MAX_LINE: usize = 1000;
/// Most lines a diagnostic's span may cover and still be printed whole.
pub const MAX_LINES: usize = 1000;
const EXCERPT: usize = 80;

/// At most this many diagnostics of one code are printed (`check`'s human and JSON
/// output); the rest are counted (see [`capped`]).
pub const MAX_SHOWN_PER_CODE: usize = 100;

/// The diagnostics to print, in order: the first [`MAX_SHOWN_PER_CODE`] of each code;
/// and for each code with more, how many were left out (in code order). Linear time.
pub fn capped(diags: &[Diagnostic]) -> (Vec<&Diagnostic>, Vec<(&'static str, usize)>) {
    let mut seen: std::collections::BTreeMap<&'static str, usize> = std::collections::BTreeMap::new();
    let mut shown = Vec::new();
    for d in diags {
        let n = seen.entry(d.code).or_default();
        *n += 1;
        if *n <= MAX_SHOWN_PER_CODE {
            shown.push(d);
        }
    }
    let rest = seen
        .into_iter()
        .filter(|&(_, n)| n > MAX_SHOWN_PER_CODE)
        .map(|(c, n)| (c, n - MAX_SHOWN_PER_CODE))
        .collect();
    (shown, rest)
}

/// The line `check` prints after the shown diagnostics of a code that had more.
pub fn not_shown_line(code: &str, n: usize) -> String {
    format!("note: {n} more {code} diagnostic(s) not shown (at most {MAX_SHOWN_PER_CODE} of each code are printed)\n")
}

/// The source map as codespan's file database, over its cached line starts.
struct Files<'s>(&'s SourceMap);

impl<'a> codespan_reporting::files::Files<'a> for Files<'_> {
    type FileId = usize;
    type Name = &'a str;
    type Source = &'a str;

    fn name(&'a self, id: usize) -> Result<&'a str, codespan_reporting::files::Error> {
        self.check(id)?;
        Ok(self.0.name(id as crate::ast::FileId))
    }
    fn source(&'a self, id: usize) -> Result<&'a str, codespan_reporting::files::Error> {
        self.check(id)?;
        Ok(self.0.text(id as crate::ast::FileId))
    }
    fn line_index(&'a self, id: usize, byte: usize) -> Result<usize, codespan_reporting::files::Error> {
        self.check(id)?;
        Ok(self.0.line_index(id as crate::ast::FileId, byte))
    }
    fn line_range(
        &'a self,
        id: usize,
        line: usize,
    ) -> Result<std::ops::Range<usize>, codespan_reporting::files::Error> {
        self.check(id)?;
        let id = id as crate::ast::FileId;
        let r = self.0.line_range(id, line);
        // codespan wants the range with its line break.
        let len = self.0.text(id).len();
        Ok(r.start..(r.end + 1).min(len).max(r.end))
    }
}

impl Files<'_> {
    fn check(&self, id: usize) -> Result<(), codespan_reporting::files::Error> {
        if id < self.0.len() {
            Ok(())
        } else {
            Err(codespan_reporting::files::Error::FileMissing)
        }
    }
}

fn range(s: Span) -> std::ops::Range<usize> {
    s.start as usize..s.end as usize
}
