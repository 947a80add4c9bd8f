//! Rules coverage (library half of `kriegsspiel check RULEBOOK --text RULES.txt`):
//! compare an encoding's contents (numbers, titles, encoded / waived / listed)
//! with the text's paragraph index.

use serde::Serialize;

use crate::checks::title_words;
use crate::detect::resolve;
use crate::index::{index, ParagraphKind, TextIndex};
use crate::number::{parse_decimal, Path};
use crate::style::{Marker, Style};

/// What the encoding does with a paragraph.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EncodedStatus {
    /// A declaration is anchored to it.
    Encoded,
    /// Deliberately not encoded, with the reason.
    Waived(String),
    /// Named in the contents only.
    Listed,
}

/// One entry of an encoding's contents. `number` is written as in the anchors
/// without the `§`: `7.1.2`, `13.0`, `Rule 11`, `Rule 11.F`, `[45.]`, `Exclusive[12.]`.
#[derive(Debug, Clone)]
pub struct EncodedParagraph {
    pub number: String,
    pub title: String,
    pub status: EncodedStatus,
}

/// A paragraph of the text in the report.
#[derive(Debug, Clone, Serialize)]
pub struct CoverageEntry {
    pub number: String,
    pub title: String,
    pub line: usize,
    /// The waiver's reason, for waived paragraphs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// An encoding title that differs from the text's.
#[derive(Debug, Clone, Serialize)]
pub struct TitleMismatch {
    pub number: String,
    pub encoded_title: String,
    pub text_title: String,
    pub line: usize,
}

/// The coverage report.
#[derive(Debug, Clone, Serialize)]
pub struct CoverageReport {
    pub style: String,
    /// Numbered headings in the text (items are not counted; an encoded item
    /// counts for its heading).
    pub total: usize,
    pub encoded: Vec<CoverageEntry>,
    pub waived: Vec<CoverageEntry>,
    pub neither: Vec<CoverageEntry>,
    /// Encoding entries whose number the text does not have.
    pub absent: Vec<String>,
    /// Encoding entries whose number is not a number of the text's style.
    pub unparsed: Vec<String>,
    /// Anchors to a lettered item (`8.2.D`) whose paragraph the text has but not the
    /// item, each with the items the text gives that paragraph (`["A", "B"]`).
    pub absent_items: Vec<(String, Vec<String>)>,
    pub title_mismatches: Vec<TitleMismatch>,
    /// Encoded share of the text's headings, in tenths of a percent.
    pub encoded_permille: u32,
    /// Encoded or waived share, in tenths of a percent.
    pub covered_permille: u32,
}

/// A parsed encoding number: (part, path, item).
type Key = (Option<usize>, Path, Option<char>);

/// Parse an anchor number under a style.
pub fn parse_anchor(style: &Style, number: &str) -> Option<Key> {
    let mut s = number.trim().trim_start_matches('§').trim();
    let mut part = if style.parts.is_empty() { None } else { Some(0) };
    for (i, p) in style.parts.iter().enumerate() {
        if let Some(rest) = s.strip_prefix(p.name.as_str()) {
            part = Some(i);
            s = rest.trim();
        }
    }
    match &style.marker {
        // Headings are named by title: see [`TextIndex::find_title`].
        Marker::Markdown | Marker::Titled => None,
        Marker::Bracketed => {
            let inner = s.strip_prefix('[')?.strip_suffix(".]")?;
            let v: u32 = inner.parse().ok()?;
            Some((part, vec![v], None))
        }
        Marker::Keyword(k) => {
            let rest = s.strip_prefix(k.as_str())?.trim();
            let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
            let v: u32 = digits.parse().ok()?;
            let tail = rest[digits.len()..].trim().trim_start_matches('.').trim();
            let item = letter(tail)?;
            Some((part, vec![v], item))
        }
        Marker::Decimal => {
            let s = s.split('-').next().unwrap_or(s);
            let (num, item) = split_item(s);
            let path = parse_decimal(style, num)?;
            Some((part, path, item))
        }
    }
}

/// `""` → no item; `"F"` → item F; anything else is not an anchor.
fn letter(tail: &str) -> Option<Option<char>> {
    let mut cs = tail.chars();
    match (cs.next(), cs.next()) {
        (None, _) => Some(None),
        (Some(c), None) if c.is_ascii_uppercase() => Some(Some(c)),
        _ => None,
    }
}

/// `7.1.2.A` / `7.1.2 A` → (`7.1.2`, Some('A')).
fn split_item(s: &str) -> (&str, Option<char>) {
    let t = s.trim();
    if let Some(c) = t.chars().last() {
        if c.is_ascii_uppercase() {
            let head = t[..t.len() - 1].trim_end().trim_end_matches('.');
            return (head, Some(c));
        }
    }
    (t, None)
}

/// Compare an encoding's contents with a text. `style` names a numbering style;
/// `None` detects it.
pub fn coverage(
    text_source: &str,
    style: Option<&str>,
    encoded: &[EncodedParagraph],
) -> Result<CoverageReport, String> {
    coverage_with_items(text_source, style, encoded, &[])
}

/// [`coverage`], and also ask the text whether each anchor to a lettered item
/// (`8.2.D`, as the anchors write it) names an item the text has.
pub fn coverage_with_items(
    text_source: &str,
    style: Option<&str>,
    encoded: &[EncodedParagraph],
    item_anchors: &[String],
) -> Result<CoverageReport, String> {
    let style = resolve(text_source, style)?;
    let idx = index(text_source, &style);
    let mut report = build(&idx, encoded);
    // Only a style with lettered items indexes them: elsewhere the text cannot say.
    let items = if idx.style.lettered_items { item_anchors } else { &[] };
    for a in items {
        let Some((part, path, Some(letter))) = parse_anchor(&idx.style, a) else { continue };
        // A paragraph the text lacks is the contents' error (`absent`), not the item's.
        if idx.find(part, &path, None).is_none() || idx.find(part, &path, Some(letter)).is_some() {
            continue;
        }
        if report.absent_items.iter().any(|(x, _)| x == a) {
            continue;
        }
        let have: Vec<String> = idx
            .paragraphs
            .iter()
            .filter(|p| p.part_index == part && p.path == path)
            .filter_map(|p| p.letter.map(|c| c.to_string()))
            .collect();
        report.absent_items.push((a.clone(), have));
    }
    Ok(report)
}

fn agree(a: &str, b: &str) -> bool {
    let a = title_words(a);
    let b = title_words(b);
    if a.is_empty() || b.is_empty() {
        return true;
    }
    let n = a.len().min(b.len());
    a[..n] == b[..n]
}

/// Build the report from an index.
pub fn build(idx: &TextIndex, encoded: &[EncodedParagraph]) -> CoverageReport {
    let style = &idx.style;
    let heads: Vec<_> = idx.paragraphs.iter().filter(|p| p.kind == ParagraphKind::Heading).collect();
    let mut status: Vec<Option<&EncodedStatus>> = vec![None; heads.len()];
    let mut absent = Vec::new();
    let mut unparsed = Vec::new();
    let mut title_mismatches = Vec::new();
    for e in encoded {
        let by_title = if style.marker.unnumbered() {
            idx.find_title(&e.number).map(|p| (p.part_index, p.path.clone(), None))
        } else {
            None
        };
        let Some((part, path, item)) = by_title.or_else(|| parse_anchor(style, &e.number)) else {
            if style.marker.unnumbered() {
                absent.push(e.number.clone());
            } else {
                unparsed.push(e.number.clone());
            }
            continue;
        };
        let Some(target) = idx.find(part, &path, item) else {
            absent.push(e.number.clone());
            continue;
        };
        if item.is_none() && !agree(&e.title, &target.title) {
            title_mismatches.push(TitleMismatch {
                number: e.number.clone(),
                encoded_title: e.title.clone(),
                text_title: target.title.clone(),
                line: target.line,
            });
        }
        // The headings this entry counts for: every heading with its number (a text
        // that numbers two paragraphs alike, finding T0002, has them both covered by
        // the one contents entry the encoding can give).
        let rank = |s: Option<&EncodedStatus>| match s {
            Some(EncodedStatus::Encoded) => 3,
            Some(EncodedStatus::Waived(_)) => 2,
            Some(EncodedStatus::Listed) => 1,
            None => 0,
        };
        for (hi, h) in heads.iter().enumerate() {
            if h.part_index == part && h.path == path && rank(Some(&e.status)) > rank(status[hi]) {
                status[hi] = Some(&e.status);
            }
        }
    }
    let mut report = CoverageReport {
        style: style.name.clone(),
        total: heads.len(),
        encoded: Vec::new(),
        waived: Vec::new(),
        neither: Vec::new(),
        absent,
        unparsed,
        absent_items: Vec::new(),
        title_mismatches,
        encoded_permille: 0,
        covered_permille: 0,
    };
    for (h, s) in heads.iter().zip(status) {
        let mut entry =
            CoverageEntry { number: idx.anchor(h), title: h.title.clone(), line: h.line, reason: None };
        match s {
            Some(EncodedStatus::Encoded) => report.encoded.push(entry),
            Some(EncodedStatus::Waived(r)) => {
                entry.reason = Some(r.clone());
                report.waived.push(entry);
            }
            _ => report.neither.push(entry),
        }
    }
    let permille = |n: usize| (n * 1000 + report.total / 2).checked_div(report.total).map_or(0, |v| v as u32);
    report.encoded_permille = permille(report.encoded.len());
    report.covered_permille = permille(report.encoded.len() + report.waived.len());
    report
}

fn pct(permille: u32) -> String {
    format!("{}.{}%", permille / 10, permille % 10)
}

impl CoverageReport {
    /// The report for people: its findings, then [`CoverageReport::render_summary`].
    pub fn render_human(&self) -> String {
        let mut out = String::new();
        for n in &self.unparsed {
            out.push_str(&format!(
                "error: contents entry §{n} is not a paragraph number of this text's style\n"
            ));
        }
        for n in &self.absent {
            out.push_str(&format!("error: contents entry §{n} is not in the text\n"));
        }
        for (a, have) in &self.absent_items {
            out.push_str(&format!(
                "error: anchor §{a} names an item the text does not have ({})\n",
                items_had(have)
            ));
        }
        for m in &self.title_mismatches {
            out.push_str(&format!(
                "warning: §{} is titled \"{}\" in the encoding but \"{}\" in the text (line {})\n",
                m.number, m.encoded_title, m.text_title, m.line
            ));
        }
        out.push_str(&self.render_summary());
        out
    }

    /// The counts and the lists of waived and uncovered paragraphs, without the
    /// findings (`check --text` reports those as diagnostics with codes and spans).
    pub fn render_summary(&self) -> String {
        let mut out = String::new();
        out.push_str(&format!(
            "rules coverage ({} numbering): {} of {} paragraphs encoded ({}), {} waived, {} neither; encoded or waived {}\n",
            self.style,
            self.encoded.len(),
            self.total,
            pct(self.encoded_permille),
            self.waived.len(),
            self.neither.len(),
            pct(self.covered_permille)
        ));
        if !self.waived.is_empty() {
            out.push_str("waived:\n");
            for w in &self.waived {
                out.push_str(&format!(
                    "  §{} {} ({})\n",
                    w.number,
                    w.title,
                    w.reason.as_deref().unwrap_or("")
                ));
            }
        }
        if !self.neither.is_empty() {
            out.push_str("neither encoded nor waived:\n");
            for w in &self.neither {
                out.push_str(&format!("  §{} {} (line {})\n", w.number, w.title, w.line));
            }
        }
        out
    }

    /// The report as JSON data.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or(serde_json::Value::Null)
    }

    /// True when the encoding names paragraphs the text does not have.
    pub fn has_errors(&self) -> bool {
        !self.absent.is_empty() || !self.unparsed.is_empty() || !self.absent_items.is_empty()
    }
}

/// `"it has items A, B"` / `"it has no lettered items"`.
pub fn items_had(have: &[String]) -> String {
    if have.is_empty() {
        "it has no lettered items".to_string()
    } else {
        format!("it has items {}", have.join(", "))
    }
}
