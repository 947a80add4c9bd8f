//! The paragraph index of a text: every numbered heading and lettered item with
//! its number, title, part, parent and span, plus the table of contents and the
//! cross-references the scanner found.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::lexer::{lex_lines, Line};
use crate::number::{format_item, format_path, Path};
use crate::scan::{scan, HeadingHit, RefHit, TocHit};
use crate::style::Style;

/// A heading or a lettered item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ParagraphKind {
    Heading,
    Item,
}

/// One entry of the index.
#[derive(Debug, Clone, Serialize)]
pub struct Paragraph {
    /// The number as the text writes it (`9.41`, `Rule 11`, `[45.]`, `7.1.2.A`).
    pub number: String,
    pub title: String,
    /// The part for texts whose numbering restarts (`Standard`, `Exclusive`).
    pub part: Option<String>,
    /// The nearest ancestor that has a heading in the text.
    pub parent: Option<String>,
    pub kind: ParagraphKind,
    /// Byte span: from the heading to the next heading or item.
    pub start: usize,
    pub end: usize,
    /// Byte span of the heading itself (number and title).
    pub heading_start: usize,
    pub heading_end: usize,
    /// 1-based line of the heading.
    pub line: usize,
    #[serde(skip)]
    pub part_index: Option<usize>,
    #[serde(skip)]
    pub path: Path,
    #[serde(skip)]
    pub letter: Option<char>,
    #[serde(skip)]
    pub range_end: Option<Path>,
}

/// The index of one text under one style.
#[derive(Debug, Clone)]
pub struct TextIndex {
    pub style: Style,
    /// Headings and items in text order.
    pub paragraphs: Vec<Paragraph>,
    pub toc: Vec<TocHit>,
    pub refs: Vec<RefHit>,
    pub lines: Vec<Line>,
    pub toc_lines: Vec<bool>,
    /// The "Contents" headings and how many entries follow each.
    pub toc_blocks: Vec<crate::scan::TocBlock>,
    /// Raw headings in text order (numbering checks read these).
    pub headings: Vec<HeadingHit>,
    by_key: BTreeMap<(Option<usize>, Path, Option<char>), usize>,
}

/// Most paragraphs [`TextIndex::paragraph_at`] walks back over from the last one
/// starting at or before an offset.
const MAX_WALK: usize = 256;
/// Widest range heading (`4.1-4.9`) whose numbers are all indexed.
const MAX_RANGE: u32 = 1000;

/// Build the index of `src` under `style`.
pub fn index(src: &str, style: &Style) -> TextIndex {
    let lines = lex_lines(src);
    let found = scan(src, &lines, style);

    // Merge headings and items in text order.
    enum Ev<'a> {
        H(&'a HeadingHit),
        I(&'a crate::scan::ItemHit),
    }
    let mut events: Vec<(usize, Ev)> = found.headings.iter().map(|h| (h.start, Ev::H(h))).collect();
    events.extend(found.items.iter().map(|i| (i.start, Ev::I(i))));
    events.sort_by_key(|(s, _)| *s);

    let part_name = |p: Option<usize>| p.and_then(|i| style.parts.get(i)).map(|d| d.name.clone());
    let mut paragraphs: Vec<Paragraph> = Vec::new();
    let mut current: Option<(Option<usize>, Path)> = None;
    for (_, ev) in &events {
        match ev {
            Ev::H(h) => {
                current = Some((h.part, h.path.clone()));
                paragraphs.push(Paragraph {
                    number: h.written.clone(),
                    title: h.title.clone(),
                    part: part_name(h.part),
                    parent: None,
                    kind: ParagraphKind::Heading,
                    start: h.start,
                    end: h.end,
                    heading_start: h.start,
                    heading_end: h.end,
                    line: h.line + 1,
                    part_index: h.part,
                    path: h.path.clone(),
                    letter: None,
                    range_end: h.range_end.clone(),
                });
            }
            Ev::I(it) => {
                let Some((part, path)) = &current else {
                    continue;
                };
                paragraphs.push(Paragraph {
                    number: format_item(style, path, it.letter),
                    title: String::new(),
                    part: part_name(*part),
                    parent: Some(format_path(style, path)),
                    kind: ParagraphKind::Item,
                    start: it.start,
                    end: it.end,
                    heading_start: it.start,
                    heading_end: it.end,
                    line: it.line + 1,
                    part_index: *part,
                    path: path.clone(),
                    letter: Some(it.letter),
                    range_end: None,
                });
            }
        }
    }
    // Spans run to the next entry (or the end of a part / the text).
    let n = paragraphs.len();
    for i in 0..n {
        let mut end = src.len();
        if let Some(next) = paragraphs.get(i + 1) {
            end = next.start;
        }
        for (ps, _) in &found.part_starts {
            if *ps > paragraphs[i].start && *ps < end {
                end = *ps;
            }
        }
        paragraphs[i].end = end.max(paragraphs[i].heading_end);
    }
    // A heading's span also covers its items: extend to the next heading.
    for i in 0..n {
        if paragraphs[i].kind != ParagraphKind::Heading {
            continue;
        }
        let mut j = i + 1;
        while j < n && paragraphs[j].kind == ParagraphKind::Item {
            j += 1;
        }
        if j > i + 1 {
            paragraphs[i].end = paragraphs[j - 1].end;
        }
    }

    let mut by_key = BTreeMap::new();
    for (i, p) in paragraphs.iter().enumerate() {
        by_key.entry((p.part_index, p.path.clone(), p.letter)).or_insert(i);
        if let Some(re) = &p.range_end {
            // A range heading stands for every number up to its end at its level.
            if let (Some(a), Some(b)) = (p.path.last(), re.last()) {
                // A range is a handful of numbers; a huge one (`1-4000000000`) is not
                // expanded, so no text can make the index blow up.
                if b.saturating_sub(*a) > MAX_RANGE {
                    continue;
                }
                for v in *a..=*b {
                    let mut q = p.path.clone();
                    if let Some(l) = q.last_mut() {
                        *l = v;
                    }
                    by_key.entry((p.part_index, q, None)).or_insert(i);
                }
            }
        }
    }
    // Parents: the nearest ancestor with a heading.
    for i in 0..n {
        if paragraphs[i].kind == ParagraphKind::Item {
            continue;
        }
        let path = paragraphs[i].path.clone();
        let part = paragraphs[i].part_index;
        let mut parent = None;
        for k in (1..path.len()).rev() {
            if let Some(&pi) = by_key.get(&(part, path[..k].to_vec(), None)) {
                parent = Some(paragraphs[pi].number.clone());
                break;
            }
        }
        paragraphs[i].parent = parent;
    }

    TextIndex {
        style: style.clone(),
        paragraphs,
        toc: found.toc,
        refs: found.refs,
        lines,
        toc_lines: found.toc_lines,
        toc_blocks: found.toc_blocks,
        headings: found.headings,
        by_key,
    }
}

impl TextIndex {
    /// The paragraph with this number (first occurrence), if any.
    pub fn find(&self, part: Option<usize>, path: &[u32], letter: Option<char>) -> Option<&Paragraph> {
        self.by_key.get(&(part, path.to_vec(), letter)).and_then(|i| self.paragraphs.get(*i))
    }

    /// The first heading titled `title` (an anchor by heading, `Combat` or `"Combat"`;
    /// case and surrounding spaces ignored).
    pub fn find_title(&self, title: &str) -> Option<&Paragraph> {
        let want = title.trim().trim_matches('"').trim();
        self.paragraphs
            .iter()
            .find(|p| p.kind == ParagraphKind::Heading && p.title.eq_ignore_ascii_case(want))
    }

    /// The innermost heading whose span holds `offset`: "the paragraph it sits in".
    /// Paragraphs are in text order and their spans tile the text, so this is a binary
    /// search and a short walk back (bounded, so that no text makes it quadratic).
    pub fn paragraph_at(&self, offset: usize) -> Option<&Paragraph> {
        let after = self.paragraphs.partition_point(|p| p.start <= offset);
        self.paragraphs[..after].iter().rev().take(MAX_WALK).find(|p| offset < p.end.max(p.start + 1))
    }

    /// The last heading (not item) starting at or before `offset`.
    pub fn heading_at(&self, offset: usize) -> Option<&Paragraph> {
        let after = self.paragraphs.partition_point(|p| p.start <= offset);
        self.paragraphs[..after].iter().rev().find(|p| p.kind == ParagraphKind::Heading)
    }

    /// Headings only (no items).
    pub fn headings_only(&self) -> impl Iterator<Item = &Paragraph> {
        self.paragraphs.iter().filter(|p| p.kind == ParagraphKind::Heading)
    }

    /// The number a reader would cite for a paragraph, with its part if any.
    pub fn anchor(&self, p: &Paragraph) -> String {
        match &p.part {
            Some(part) if !self.style.parts.is_empty() => format!("{part}{}", p.number),
            _ => p.number.clone(),
        }
    }

    /// Human-readable index: one line per paragraph.
    pub fn render_human(&self) -> String {
        let mut out = String::new();
        out.push_str(&format!(
            "# style {}: {} headings, {} items\n",
            self.style.name,
            self.headings_only().count(),
            self.paragraphs.len() - self.headings_only().count()
        ));
        for p in &self.paragraphs {
            out.push_str(&format!(
                "{:>5}  {:<16} {:<10} parent {:<12} {}\n",
                p.line,
                p.number,
                p.part.as_deref().unwrap_or("-"),
                p.parent.as_deref().unwrap_or("-"),
                p.title
            ));
        }
        out
    }

    /// The index as JSON data.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "style": self.style.name,
            "paragraphs": self.paragraphs,
        })
    }
}
