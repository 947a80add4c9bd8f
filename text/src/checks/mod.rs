//! The checks over an indexed text, and the finding type they produce.
//!
//! Codes are stable: T00xx numbering, T01xx cross-references, T02xx dice tables,
//! T03xx table of contents, T04xx sequence-of-play codes (a second scheme), T05xx
//! arithmetic the text states. docs/validation.md lists them.

mod arith;
mod dice;
mod numbering;
mod refs;
mod sequence;
mod toc;

use serde::Serialize;

use crate::index::TextIndex;

/// How serious a finding is. Errors make `kriegsspiel text` exit with 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Note,
    Warning,
    Error,
}

/// One finding: a stable code, a severity, a message and where it is.
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    pub code: &'static str,
    pub severity: Severity,
    pub message: String,
    /// Byte span in the text.
    pub start: usize,
    pub end: usize,
    /// 1-based line of `start`.
    pub line: usize,
    /// The paragraph the span sits in (its number, with the part if any).
    pub paragraph: Option<String>,
    /// Extra lines of explanation.
    pub notes: Vec<String>,
}

/// The catalogue of codes: (code, severity, short name).
pub const CODES: &[(&str, Severity, &str)] = &[
    ("T0001", Severity::Warning, "numbering skips"),
    ("T0002", Severity::Error, "number repeated"),
    ("T0003", Severity::Error, "numbering goes backwards"),
    ("T0004", Severity::Error, "heading without its parent heading"),
    ("T0005", Severity::Error, "heading numbered as a child of the wrong parent"),
    ("T0006", Severity::Warning, "lettered items out of sequence"),
    ("T0007", Severity::Error, "heading misnumbered (one slip: no gap or repeat reported for it)"),
    ("T0008", Severity::Warning, "heading level skipped (Markdown `#` then `###`)"),
    ("T0009", Severity::Warning, "heading title used twice (Markdown: anchors by heading are ambiguous)"),
    ("T0010", Severity::Warning, "no headings found under the numbering style"),
    ("T0101", Severity::Error, "reference to a paragraph that does not exist"),
    ("T0102", Severity::Warning, "reference topic differs from the target's title"),
    ("T0103", Severity::Warning, "placeholder where a paragraph number belongs (7.X)"),
    ("T0104", Severity::Warning, "bare reference to material printed in another book"),
    ("T0105", Severity::Warning, "reference to a paragraph about something else (no stated topic)"),
    ("T0201", Severity::Error, "dice table leaves a gap"),
    ("T0202", Severity::Error, "dice table ranges overlap"),
    ("T0203", Severity::Warning, "dice table goes beyond what the dice can roll"),
    ("T0301", Severity::Warning, "contents entry without a heading"),
    ("T0302", Severity::Warning, "heading missing from the contents"),
    ("T0303", Severity::Warning, "contents title differs from the heading"),
    ("T0304", Severity::Warning, "contents heading with no entries"),
    ("T0305", Severity::Warning, "contents heading repeated"),
    ("T0306", Severity::Warning, "partial contents (only the parts, or stops early in the top level)"),
    ("T0401", Severity::Warning, "sequence-of-play code names no segment of the sequence of play"),
    ("T0402", Severity::Warning, "sequence-of-play code names a step its segment does not list"),
    (
        "T0403",
        Severity::Warning,
        "section's sequence-of-play code names another step than the one it is about",
    ),
    ("T0501", Severity::Warning, "a count differs from the list beside it (\"three ways:\" and two listed)"),
    ("T0502", Severity::Error, "a sum differs from its parts (4 + 3 = 8)"),
    ("T0503", Severity::Warning, "a span differs from its ends (turns 3-7 (four turns))"),
];

/// Severity of a code (every code has exactly one).
pub fn severity_of(code: &str) -> Severity {
    CODES.iter().find(|(c, _, _)| *c == code).map(|(_, s, _)| *s).unwrap_or(Severity::Warning)
}

/// Builds findings with the line and paragraph filled in.
pub(crate) struct Sink<'a> {
    pub src: &'a str,
    pub index: &'a TextIndex,
    pub findings: Vec<Finding>,
}

impl<'a> Sink<'a> {
    pub fn push(&mut self, code: &'static str, start: usize, end: usize, message: String) {
        self.push_with_notes(code, start, end, message, Vec::new());
    }

    pub fn push_with_notes(
        &mut self,
        code: &'static str,
        start: usize,
        end: usize,
        message: String,
        notes: Vec<String>,
    ) {
        let len = self.src.len();
        let mut start = start.min(len);
        while start > 0 && !self.src.is_char_boundary(start) {
            start -= 1;
        }
        let mut end = end.clamp(start, len);
        while end < len && !self.src.is_char_boundary(end) {
            end += 1;
        }
        // The index's lines (built once by the lexer, which knows `\n`, `\r\n` and `\r`):
        // a binary search, not a count from the top of the file per finding.
        let line = self.index.lines.partition_point(|l| l.start <= start).max(1);
        let paragraph = self.index.paragraph_at(start).map(|p| self.index.anchor(p));
        self.findings.push(Finding {
            code,
            severity: severity_of(code),
            message,
            start,
            end,
            line,
            paragraph,
            notes,
        });
    }
}

/// Run every check on an indexed text. Findings come back sorted by position.
pub fn check(src: &str, index: &TextIndex) -> Vec<Finding> {
    let mut sink = Sink { src, index, findings: Vec::new() };
    numbering::check(&mut sink);
    refs::check(&mut sink, true);
    dice::check(&mut sink);
    toc::check(&mut sink);
    sequence::check(&mut sink);
    arith::check(&mut sink);
    let mut findings = sink.findings;
    findings.sort_by(|a, b| (a.start, a.code).cmp(&(b.start, b.code)));
    findings
}

/// The checks style detection weighs (numbering and references that resolve), without
/// the costlier ones it ignores (subjects of references, arithmetic, dice, contents).
pub fn check_numbering(src: &str, index: &TextIndex) -> Vec<Finding> {
    let mut sink = Sink { src, index, findings: Vec::new() };
    numbering::check(&mut sink);
    refs::check(&mut sink, false);
    sink.findings
}

/// Count findings by code, for summaries.
pub fn count_by_code(findings: &[Finding]) -> Vec<(&'static str, usize)> {
    let mut out: Vec<(&'static str, usize)> = Vec::new();
    for (code, _, _) in CODES {
        let n = findings.iter().filter(|f| f.code == *code).count();
        if n > 0 {
            out.push((code, n));
        }
    }
    out
}

/// Normalised words of a title or topic, for comparisons: lower case, letters and
/// digits only, small words dropped, a plural `s` trimmed.
pub fn title_words(s: &str) -> Vec<String> {
    const STOP: &[&str] =
        &["the", "of", "a", "an", "on", "in", "and", "to", "for", "by", "with", "at", "vs", "rule", "rules"];
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| w.to_lowercase())
        .filter(|w| !STOP.contains(&w.as_str()))
        .map(|w| stem(&w))
        .collect()
}

fn stem(w: &str) -> String {
    let w = w.trim_end_matches(['’', '\'']);
    if w.len() > 3 && w.ends_with("ies") {
        return format!("{}y", &w[..w.len() - 3]);
    }
    if w.len() > 3 && w.ends_with('s') && !w.ends_with("ss") {
        return w[..w.len() - 1].to_string();
    }
    w.to_string()
}
