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

    /// Render for a terminal (no colour), as the CLI prints it on stderr.
    pub fn render(&self, sources: &SourceMap) -> String {
        let mut buf = String::new();
        let config = term::Config::default();
        let files = sources.codespan_files();
        let mut writer = term::termcolor::NoColor::new(Vec::new());
        if term::emit_to_write_style(&mut writer, &config, &files, &self.to_codespan()).is_ok() {
            buf = String::from_utf8_lossy(&writer.into_inner()).into_owned();
        } else {
            buf.push_str(&format!("{}[{}]: {}\n", self.severity.as_str(), self.code, self.message));
        }
        buf
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
            "notes": self.notes,
        })
    }
}

fn range(s: Span) -> std::ops::Range<usize> {
    s.start as usize..s.end as usize
}
