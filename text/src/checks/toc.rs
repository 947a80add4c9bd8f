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
