//! Table-of-contents checks: an entry with no heading, a title that differs from
//! the heading's, and a heading missing from a contents that lists (nearly) every
//! heading of its level. A contents that lists only a selection of a level (fewer
//! than four in five) is a selection, not an omission, and is not checked for it.

use std::collections::{BTreeMap, BTreeSet};

use super::{title_words, Sink};
use crate::index::ParagraphKind;
use crate::number::Path;

/// Share of a level's headings a contents must list before a missing one counts.
const LEVEL_COVERAGE: f64 = 0.8;

pub(crate) fn check(sink: &mut Sink) {
    headings(sink);
    let toc = sink.index.toc.clone();
    if toc.is_empty() {
        return;
    }
    let single_part = sink.index.style.parts.is_empty();
    // Contents entries are checked against the first part (or the only one).
    let part = if single_part { None } else { Some(0) };
    let mut listed: BTreeSet<Path> = BTreeSet::new();
    for e in &toc {
        listed.insert(e.path.clone());
        let Some(h) = sink.index.find(part, &e.path, None).cloned() else {
            sink.push(
                "T0301",
                e.start,
                e.end,
                format!("contents lists {} \"{}\" but the text has no such heading", e.written, e.title),
            );
            continue;
        };
        if !titles_agree(&e.title, &h.title) {
            sink.push_with_notes(
                "T0303",
                e.start,
                e.end,
                format!("contents calls {} \"{}\" but the heading says \"{}\"", e.written, e.title, h.title),
                vec![format!("heading on line {}", h.line)],
            );
        }
    }
    // Headings missing from the contents, per level the contents covers.
    let heads: Vec<_> = sink
        .index
        .paragraphs
        .iter()
        .filter(|p| p.kind == ParagraphKind::Heading && p.part_index == part)
        .cloned()
        .collect();
    let mut by_depth: BTreeMap<usize, (usize, usize)> = BTreeMap::new();
    for h in &heads {
        let e = by_depth.entry(h.path.len()).or_insert((0, 0));
        e.0 += 1;
        if listed.contains(&h.path) {
            e.1 += 1;
        }
    }
    for h in &heads {
        let Some(&(total, hit)) = by_depth.get(&h.path.len()) else {
            continue;
        };
        let covers = hit >= 3 && (hit as f64) >= LEVEL_COVERAGE * (total as f64);
        if covers && !listed.contains(&h.path) {
            sink.push(
                "T0302",
                h.heading_start,
                h.heading_end,
                format!(
                    "heading {} \"{}\" is not in the contents, which lists {hit} of the {total} headings at this level",
                    h.number, h.title
                ),
            );
        }
    }
}

/// The "Contents" headings themselves: one repeated with nothing between (T0305), one
/// with no entries (T0304), one that lists only the parts or stops early in the top
/// level (T0306).
fn headings(sink: &mut Sink) {
    let blocks = sink.index.toc_blocks.clone();
    let heads: Vec<_> =
        sink.index.paragraphs.iter().filter(|p| p.kind == ParagraphKind::Heading).cloned().collect();
    for (k, b) in blocks.iter().enumerate() {
        let followed_by_repeat = blocks.get(k + 1).is_some_and(|n| n.repeated);
        if b.repeated {
            let first = k.checked_sub(1).and_then(|j| blocks.get(j)).map(|p| p.line + 1).unwrap_or(0);
            sink.push_with_notes(
                "T0305",
                b.start,
                b.end,
                "the contents heading is repeated".into(),
                vec![format!("first on line {first}, with no entry between the two")],
            );
        }
        if b.entries == 0 && !followed_by_repeat && !heads.is_empty() {
            sink.push_with_notes(
                "T0304",
                b.start,
                b.end,
                "a contents heading with no entries".into(),
                vec![format!("the text has {} numbered headings", heads.len())],
            );
        } else if b.entries > 0 && b.entries == b.part_entries && !heads.is_empty() {
            sink.push_with_notes(
                "T0306",
                b.start,
                b.end,
                format!("the contents lists only the {} parts, none of the text's headings", b.part_entries),
                vec![format!("the text has {} numbered headings", heads.len())],
            );
        }
    }
    // A contents whose top-level entries are the first of the text's top-level
    // headings and stop before the last: partial.
    let toc = &sink.index.toc;
    if toc.is_empty() {
        return;
    }
    let part = if sink.index.style.parts.is_empty() { None } else { Some(0) };
    let top: Vec<_> = heads.iter().filter(|h| h.path.len() == 1 && h.part_index == part).collect();
    let listed: BTreeSet<&Path> = toc.iter().filter(|e| e.path.len() == 1).map(|e| &e.path).collect();
    if listed.is_empty() || top.len() < 4 {
        return;
    }
    let prefix = top.iter().take_while(|h| listed.contains(&h.path)).count();
    let rest_listed = top[prefix..].iter().any(|h| listed.contains(&h.path));
    // A contents that lists nearly all of the level leaves the rest to T0302.
    let nearly_all = (prefix as f64) >= LEVEL_COVERAGE * (top.len() as f64);
    if prefix >= 2 && prefix < top.len() && !rest_listed && !nearly_all {
        if let (Some(b), Some(last)) = (blocks.first(), top.get(prefix - 1)) {
            let unlisted: Vec<&str> = top[prefix..].iter().map(|h| h.number.as_str()).take(6).collect();
            let more = if top.len() - prefix > 6 { " and more" } else { "" };
            sink.push_with_notes(
                "T0306",
                b.start,
                b.end,
                format!(
                    "the contents stops at {}: {} of the text's {} top-level headings are not listed",
                    last.number,
                    top.len() - prefix,
                    top.len()
                ),
                vec![format!("not listed: {}{more}", unlisted.join(", "))],
            );
        }
    }
}

/// Titles agree when their words are equal or one starts with the other
/// (`The Peace Index` and `THE PEACE INDEX CAMPAIGN RULE`).
fn titles_agree(a: &str, b: &str) -> bool {
    let a = title_words(a);
    let b = title_words(b);
    if a.is_empty() || b.is_empty() {
        return true;
    }
    let n = a.len().min(b.len());
    a[..n] == b[..n]
}
