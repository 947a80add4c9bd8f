//! The contents block: every paragraph number and title, waivers, and anchor checks.

use crate::env::suggest;
use kriegsspiel_dsl::ast::{Anchor, ContentsEntry, Span};
use kriegsspiel_dsl::Diagnostic;
use std::cell::RefCell;
use std::collections::BTreeMap;

/// Numbering schemes the header may declare.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scheme {
    /// `7.1.2`, `13.0.B`
    Dotted,
    /// `9.41` (decimal with implied depth)
    Decimal,
    /// `Rule 11`, `Rule 11.F`
    Rule,
    /// `[45.]`, `Exclusive[12.]`
    Bracketed,
    /// `"Moving Units"`: unnumbered headings, named by title (Markdown `#` headings or
    /// plain titled sections).
    Headings,
}

impl Scheme {
    pub fn parse(name: &str) -> Option<Scheme> {
        match name {
            "dotted" => Some(Scheme::Dotted),
            "decimal" => Some(Scheme::Decimal),
            "rule" => Some(Scheme::Rule),
            "bracketed" => Some(Scheme::Bracketed),
            "headings" => Some(Scheme::Headings),
            _ => None,
        }
    }
    /// Does an anchor's text (without a lettered item) fit the scheme?
    pub fn fits(self, base: &str) -> bool {
        let dotted = |s: &str| {
            !s.is_empty() && s.split('.').all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
        };
        match self {
            Scheme::Dotted | Scheme::Decimal => dotted(base),
            Scheme::Rule => base
                .strip_prefix("Rule ")
                .map(|n| n.bytes().all(|b| b.is_ascii_digit()) && !n.is_empty())
                .unwrap_or(false),
            Scheme::Bracketed => base.contains('[') && base.ends_with(']'),
            Scheme::Headings => base.len() > 2 && base.starts_with('"') && base.ends_with('"'),
        }
    }
}

/// Split `7.1.2.B` into (`7.1.2`, Some('B')); `Rule 11.F` into (`Rule 11`, Some('F')).
pub fn split_item(text: &str) -> (String, Option<char>) {
    let t = text.trim();
    let bytes = t.as_bytes();
    let n = bytes.len();
    if n >= 3 && (bytes[n - 2] == b'.' || bytes[n - 2] == b' ') && bytes[n - 1].is_ascii_uppercase() {
        let head = &t[..n - 2];
        if head.ends_with(|c: char| c.is_ascii_digit() || c == ']') {
            return (head.to_string(), Some(bytes[n - 1] as char));
        }
    }
    (t.to_string(), None)
}

pub struct Entry {
    pub number: String,
    pub title: String,
    pub waived: Option<String>,
    pub span: Span,
}

#[derive(Default)]
pub struct Contents {
    pub entries: Vec<Entry>,
    pub index: BTreeMap<String, usize>,
    /// Declared parts (`parts Standard, Exclusive;`): a bracketed number must name one.
    pub parts: Vec<String>,
    /// Every anchor met by [`Contents::check`] that names a listed paragraph (as
    /// written, `8.2.D`, and where): `check --text` asks the text whether a lettered
    /// item exists; `report` shows what encodes each paragraph.
    pub anchors: RefCell<Vec<(String, Span)>>,
    /// Declared external books (`external KRO "title";`): anchors into them
    /// (`§KRO 5.225`) are external references, listed and never checked.
    pub externals: Vec<String>,
}

/// An anchor into another book: `KRO 5.225` → (`KRO`, `5.225`). Any anchor whose text
/// is a word, a space and a number, except the `rule` scheme's `Rule 11`.
pub fn external_parts(base: &str) -> Option<(&str, &str)> {
    let (book, num) = base.split_once(' ')?;
    if book == "Rule" || !book.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return None;
    }
    Some((book, num))
}

/// The part a bracketed number names (`Exclusive` of `Exclusive[12.]`), if any.
pub(crate) fn part_of(base: &str) -> &str {
    base.split('[').next().unwrap_or("")
}

impl Contents {
    pub fn build(
        list: &[ContentsEntry],
        scheme: Scheme,
        parts: &[String],
        diags: &mut Vec<Diagnostic>,
    ) -> Contents {
        let mut c = Contents { parts: parts.to_vec(), ..Contents::default() };
        for e in list {
            let (base, item) = split_item(&e.anchor.text);
            if item.is_some() || !scheme.fits(&base) || !c.part_ok(scheme, &base) {
                let mut d = Diagnostic::error(
                    "E0204",
                    e.anchor.span,
                    format!("contents entry §{} does not fit the rulebook's numbering scheme", e.anchor.text),
                );
                if scheme != Scheme::Rule && external_parts(&base).is_some() {
                    d = d.with_note(
                        "the contents lists this rulebook's paragraphs; a book's paragraph cited from outside is an anchor on the declaration that cites it",
                    );
                }
                diags.push(d);
                continue;
            }
            if let Some(&prev) = c.index.get(&base) {
                diags.push(
                    Diagnostic::error(
                        "E0202",
                        e.anchor.span,
                        format!("paragraph §{base} is listed twice in the contents"),
                    )
                    .with_label(c.entries[prev].span, "first listed here")
                    .with_paragraph(base.clone()),
                );
                continue;
            }
            c.index.insert(base.clone(), c.entries.len());
            c.entries.push(Entry {
                number: base,
                title: e.title.clone(),
                waived: e.waived.clone(),
                span: e.span,
            });
        }
        c
    }

    /// With declared parts, a bracketed number names one of them.
    fn part_ok(&self, scheme: Scheme, base: &str) -> bool {
        scheme != Scheme::Bracketed || self.parts.is_empty() || self.parts.iter().any(|p| p == part_of(base))
    }

    /// An anchor into a declared external book: (book, number).
    pub fn external<'a>(&self, a: &'a Anchor) -> Option<(&'a str, &'a str)> {
        external_parts(&a.text).filter(|(b, _)| self.externals.iter().any(|e| e == b))
    }

    /// Check an anchor: its paragraph must be in the contents. Returns the base number.
    /// An anchor into an external book is not checked (and returns `None`); one into a
    /// book not declared is E0204.
    pub fn check(&self, a: &Anchor, scheme: Scheme, diags: &mut Vec<Diagnostic>) -> Option<String> {
        if self.external(a).is_some() {
            return None;
        }
        if let Some((book, _)) = external_parts(&a.text) {
            let mut d = Diagnostic::error(
                "E0204",
                a.span,
                format!("anchor §{} names a book `{book}` the rulebook does not declare", a.text),
            )
            .with_note(format!(
                "a book the text cites but does not contain is declared in the header: external {book} \"title\";"
            ));
            if !self.externals.is_empty() {
                d = d.with_note(format!("declared external books: {}", self.externals.join(", ")));
            }
            diags.push(d);
            return None;
        }
        let (base, _) = split_item(&a.text);
        if !scheme.fits(&base) || !self.part_ok(scheme, &base) {
            let mut d = Diagnostic::error(
                "E0204",
                a.span,
                format!("anchor §{} does not fit the rulebook's numbering scheme", a.text),
            );
            if !self.part_ok(scheme, &base) {
                d = d.with_note(format!(
                    "the rulebook's parts are {}: write §{}[N.]",
                    self.parts.join(", "),
                    self.parts[0]
                ));
            }
            diags.push(d);
            return None;
        }
        if !self.index.contains_key(&base) {
            let mut d = Diagnostic::error(
                "E0201",
                a.span,
                format!("anchor §{} names a paragraph that is not in the contents", a.text),
            )
            .with_paragraph(a.text.clone());
            if let Some(s) = suggest(&base, self.index.keys().map(|k| k.as_str())) {
                d = d.with_note(format!("did you mean §{s}?"));
            }
            diags.push(d);
            return None;
        }
        self.anchors.borrow_mut().push((a.text.clone(), a.span));
        Some(base)
    }
}
