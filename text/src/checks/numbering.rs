//! Numbering checks: skips, repeats, numbers going backwards, headings without
//! their parent, headings numbered under the wrong parent, lettered items out of
//! sequence. Texts in reading order get sequence checks; texts whose line order is
//! unreliable (two-column extraction) get set checks.

use std::collections::{BTreeMap, BTreeSet};

use super::Sink;
use crate::index::ParagraphKind;
use crate::number::{format_path, next_sibling, Path};
use crate::scan::HeadingHit;
use crate::style::Style;

pub(crate) fn check(sink: &mut Sink) {
    let style = sink.index.style.clone();
    let headings = sink.index.headings.clone();
    if headings.is_empty() && !sink.src.trim().is_empty() {
        sink.push_with_notes(
            "T0010",
            0,
            0,
            format!("no headings found under the numbering style {}", style.name),
            vec![format!("the styles kriegsspiel reads: {}", Style::names().join(", "))],
        );
        return;
    }
    if style.marker.unnumbered() {
        markdown(sink, &headings);
        return;
    }
    let mut parts: BTreeMap<Option<usize>, Vec<HeadingHit>> = BTreeMap::new();
    for h in headings {
        parts.entry(h.part).or_default().push(h);
    }
    for hs in parts.values() {
        if style.ordered {
            ordered(sink, &style, hs);
        } else {
            unordered(sink, &style, hs);
        }
    }
    items(sink);
}

/// The numbers a heading may take right after `prev`: its first child, or the
/// next sibling of it or of any of its ancestors.
fn valid_successor(prev: &[u32], h: &[u32]) -> bool {
    let mut first_child = prev.to_vec();
    first_child.push(1);
    if h == first_child.as_slice() {
        return true;
    }
    (1..=prev.len()).any(|k| h == next_sibling(&prev[..k]).as_slice())
}

/// Every number a heading stands for (a range heading stands for several).
fn last_path(h: &HeadingHit) -> Path {
    h.range_end.clone().unwrap_or_else(|| h.path.clone())
}

fn list(style: &Style, paths: &[Path]) -> String {
    let shown: Vec<String> = paths.iter().take(6).map(|p| format_path(style, p)).collect();
    let more = if paths.len() > 6 { format!(" and {} more", paths.len() - 6) } else { String::new() };
    format!("{}{more}", shown.join(", "))
}

/// Numbers strictly between `prev` and `h` that a complete sequence would have.
fn missing_between(prev: &[u32], h: &[u32], seen: &BTreeSet<Path>) -> Vec<Path> {
    let mut out = Vec::new();
    if h.is_empty() {
        return out;
    }
    let parent = &h[..h.len() - 1];
    let last = h[h.len() - 1];
    // Siblings under the same parent from the last one seen (or 1).
    let mut from = 1;
    if prev.len() >= h.len() && prev[..h.len() - 1] == *parent {
        from = prev[h.len() - 1] + 1;
    } else {
        for v in (1..last).rev() {
            let mut p = parent.to_vec();
            p.push(v);
            if seen.contains(&p) {
                from = v + 1;
                break;
            }
        }
    }
    for v in from..last {
        let mut p = parent.to_vec();
        p.push(v);
        out.push(p);
        if out.len() > 50 {
            break;
        }
    }
    out
}

fn ordered(sink: &mut Sink, style: &Style, hs: &[HeadingHit]) {
    let mut prev: Option<Path> = None;
    let mut seen: BTreeSet<Path> = BTreeSet::new();
    let mut reported_parents: BTreeSet<Path> = BTreeSet::new();
    for (i, h) in hs.iter().enumerate() {
        let p = &h.path;
        let shown = h.written.clone();
        if seen.contains(p) {
            sink.push("T0002", h.start, h.end, format!("paragraph number {shown} is used twice"));
            continue;
        }
        // The first heading of a part may start anywhere (an excerpt, a later volume).
        let Some(prev_path) = prev.clone() else {
            mark_seen(&mut seen, h);
            prev = Some(last_path(h));
            continue;
        };
        if valid_successor(&prev_path, p) {
            mark_seen(&mut seen, h);
            prev = Some(last_path(h));
            continue;
        }
        // An outlier: the next heading follows on from `prev` as if this one were
        // not there, or as if this one had the expected number.
        if let Some(next) = hs.get(i + 1) {
            let breaks_next = !valid_successor(p, &next.path);
            let expected = if valid_successor(&prev_path, &next.path) {
                Some(None)
            } else {
                expected_between(&prev_path, &next.path).map(Some)
            };
            if let (true, Some(expected)) = (breaks_next, expected) {
                // One slip: a sibling's number (`3.4` where `3.3` belongs, `3.4`
                // following) is T0007; a number under another parent is T0005.
                let same_parent = matches!(&expected, Some(e) if e.len() == p.len() && e[..e.len() - 1] == p[..p.len() - 1]);
                if same_parent {
                    let e = expected.clone().unwrap_or_default();
                    sink.push_with_notes(
                        "T0007",
                        h.start,
                        h.end,
                        format!(
                            "heading {shown} is misnumbered: it sits between {} and {}, where the sequence expects {}",
                            format_path(style, &prev_path),
                            next.written,
                            format_path(style, &e)
                        ),
                        vec![format!("reported once: read as {}, the numbering runs on without a gap or a repeat", format_path(style, &e))],
                    );
                } else {
                    sink.push_with_notes(
                        "T0005",
                        h.start,
                        h.end,
                        format!(
                            "heading {shown} sits between {} and {}: numbered as a child of {}",
                            format_path(style, &prev_path),
                            next.written,
                            parent_name(style, p)
                        ),
                        match &expected {
                            Some(e) => vec![format!("the sequence expects {}", format_path(style, e))],
                            None => vec!["the sequence runs on without it".into()],
                        },
                    );
                }
                match expected {
                    // Read as the number it should have: the heading that really has
                    // its written number is not a repeat, and nothing is skipped.
                    Some(e) => {
                        seen.insert(e.clone());
                        prev = Some(e);
                    }
                    None => mark_seen(&mut seen, h),
                }
                continue;
            }
        }
        let prev = prev.get_or_insert_with(Vec::new);
        if *p < *prev {
            sink.push(
                "T0003",
                h.start,
                h.end,
                format!("numbering goes backwards: {shown} comes after {}", format_path(style, prev)),
            );
        } else if p.len() > 1 && !seen.contains(&p[..p.len() - 1]) {
            let parent = p[..p.len() - 1].to_vec();
            if reported_parents.insert(parent.clone()) {
                let missing = missing_between(&[], p, &seen);
                let mut notes = Vec::new();
                if !missing.is_empty() {
                    notes.push(format!("also missing: {}", list(style, &missing)));
                }
                sink.push_with_notes(
                    "T0004",
                    h.start,
                    h.end,
                    format!(
                        "heading {shown} has no parent heading {} (previous heading is {})",
                        format_path(style, &parent),
                        format_path(style, prev)
                    ),
                    notes,
                );
            }
        } else {
            let missing = missing_between(prev, p, &seen);
            let what = if missing.is_empty() {
                String::new()
            } else {
                format!(": {} missing", list(style, &missing))
            };
            sink.push(
                "T0001",
                h.start,
                h.end,
                format!("numbering skips from {} to {shown}{what}", format_path(style, prev)),
            );
        }
        mark_seen(&mut seen, h);
        *prev = last_path(h);
    }
}

fn mark_seen(seen: &mut BTreeSet<Path>, h: &HeadingHit) {
    seen.insert(h.path.clone());
    if let (Some(re), Some(a)) = (&h.range_end, h.path.last()) {
        if let Some(b) = re.last() {
            for v in *a..=*b {
                let mut q = h.path.clone();
                if let Some(l) = q.last_mut() {
                    *l = v;
                }
                seen.insert(q);
            }
        }
    }
}

fn parent_name(style: &Style, p: &[u32]) -> String {
    if p.len() <= 1 {
        "no section (top level)".into()
    } else {
        format_path(style, &p[..p.len() - 1])
    }
}

/// The number that fits between `prev` and `next` when exactly one does.
fn expected_between(prev: &[u32], next: &[u32]) -> Option<Path> {
    let mut candidates: Vec<Path> = Vec::new();
    let mut fc = prev.to_vec();
    fc.push(1);
    candidates.push(fc);
    for k in 1..=prev.len() {
        candidates.push(next_sibling(&prev[..k]));
    }
    candidates.into_iter().find(|c| valid_successor(c, next) && c.as_slice() != next)
}

fn unordered(sink: &mut Sink, style: &Style, hs: &[HeadingHit]) {
    let mut seen: BTreeSet<Path> = BTreeSet::new();
    let mut first: BTreeMap<Path, usize> = BTreeMap::new();
    let mut occurrences: BTreeMap<Path, Vec<usize>> = BTreeMap::new();
    for (i, h) in hs.iter().enumerate() {
        occurrences.entry(h.path.clone()).or_default().push(i);
        if !seen.contains(&h.path) {
            mark_seen(&mut seen, h);
            first.insert(h.path.clone(), i);
        }
    }
    // Gaps among siblings whose parent exists (reported below, after the repeats
    // that explain some of them).
    let gaps = sibling_gaps(&seen);
    let mut explained: BTreeSet<Path> = BTreeSet::new();
    // A number used twice: report the occurrence that fits its neighbours worst
    // (the misnumbered one), and point at the other. When the misfit differs by one
    // digit from the only number missing among its neighbours, the repeat and the gap
    // are one slip, reported once.
    for occ in occurrences.values().filter(|o| o.len() > 1) {
        let keep = occ.iter().copied().max_by_key(|&i| (fit(hs, i), std::cmp::Reverse(i))).unwrap_or(occ[0]);
        for &i in occ.iter().filter(|&&i| i != keep) {
            let h = &hs[i];
            let other = hs[keep].line + 1;
            let slip = gaps
                .iter()
                .filter(|(_, g)| g.len() == 1)
                .map(|(_, g)| g[0].clone())
                .find(|x| one_digit_apart(&format_path(style, x), &h.written) && near(hs, i, x));
            let mut notes = vec![format!(
                "also used on line {other}, where it fits its neighbours; this one sits among {}",
                neighbours(hs, i)
            )];
            if let Some(x) = &slip {
                notes.push(format!(
                    "probably {}: that number is missing, and it differs from {} by one digit (reported once)",
                    format_path(style, x),
                    h.written
                ));
                explained.insert(x.clone());
            }
            sink.push_with_notes(
                "T0002",
                h.start,
                h.end,
                format!("paragraph number {} is used twice", h.written),
                notes,
            );
        }
    }
    // Missing parents, once per parent.
    let mut reported: BTreeSet<Path> = BTreeSet::new();
    for h in hs {
        let p = &h.path;
        if p.len() < 2 {
            continue;
        }
        let parent = p[..p.len() - 1].to_vec();
        if !seen.contains(&parent) && reported.insert(parent.clone()) {
            sink.push(
                "T0004",
                h.start,
                h.end,
                format!("heading {} has no parent heading {}", h.written, format_path(style, &parent)),
            );
        }
    }
    for (after, gap) in &gaps {
        if gap.len() == 1 && explained.contains(&gap[0]) {
            continue;
        }
        report_gap(sink, style, hs, &first, gap, after);
    }
}

/// Runs of missing numbers among the children of each parent that exists (and at the
/// top level): (the number after the run, the run).
fn sibling_gaps(seen: &BTreeSet<Path>) -> Vec<(Path, Vec<Path>)> {
    let mut out = Vec::new();
    let mut children: BTreeMap<Path, BTreeSet<u32>> = BTreeMap::new();
    for p in seen {
        if p.len() >= 2 {
            children.entry(p[..p.len() - 1].to_vec()).or_default().insert(p[p.len() - 1]);
        }
    }
    children.insert(Vec::new(), seen.iter().filter(|p| p.len() == 1).map(|p| p[0]).collect());
    for (parent, kids) in &children {
        if !parent.is_empty() && !seen.contains(parent) {
            continue;
        }
        let Some(&max) = kids.iter().next_back() else {
            continue;
        };
        let mut gap: Vec<Path> = Vec::new();
        for v in 1..max {
            let mut q = parent.clone();
            q.push(v);
            if kids.contains(&v) {
                if !gap.is_empty() {
                    out.push((q, std::mem::take(&mut gap)));
                }
            } else {
                gap.push(q);
            }
        }
        if !gap.is_empty() {
            let mut q = parent.clone();
            q.push(max);
            out.push((q, gap));
        }
    }
    out
}

/// Two numbers as written that differ in exactly one character (`4.443` / `4.143`).
fn one_digit_apart(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.chars().zip(b.chars()).filter(|(x, y)| x != y).count() == 1
}

/// A missing number `x` belongs among heading `i`'s neighbours: a heading within
/// [`FIT_WINDOW`] of it shares `x`'s parent.
fn near(hs: &[HeadingHit], i: usize, x: &[u32]) -> bool {
    let parent = &x[..x.len().saturating_sub(1)];
    let lo = i.saturating_sub(FIT_WINDOW);
    let hi = (i + FIT_WINDOW + 1).min(hs.len());
    (lo..hi).any(|j| j != i && hs[j].path.len() == x.len() && hs[j].path[..parent.len()] == *parent)
}

/// Headings on either side that [`fit`] looks at: in two-column text the lines of
/// the two columns alternate, so the nearest heading may come from the other column.
const FIT_WINDOW: usize = 3;

/// How many leading groups a heading shares with the nearest of its neighbours.
fn fit(hs: &[HeadingHit], i: usize) -> usize {
    let common = |a: &[u32], b: &[u32]| a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let p = &hs[i].path;
    let lo = i.saturating_sub(FIT_WINDOW);
    let hi = (i + FIT_WINDOW + 1).min(hs.len());
    (lo..hi).filter(|&j| j != i && hs[j].path != *p).map(|j| common(p, &hs[j].path)).max().unwrap_or(0)
}

fn neighbours(hs: &[HeadingHit], i: usize) -> String {
    let b = i.checked_sub(1).and_then(|j| hs.get(j)).map(|h| h.written.clone());
    let a = hs.get(i + 1).map(|h| h.written.clone());
    match (b, a) {
        (Some(b), Some(a)) => format!("{b} and {a}"),
        (Some(b), None) => b,
        (None, Some(a)) => a,
        (None, None) => "no other headings".into(),
    }
}

fn report_gap(
    sink: &mut Sink,
    style: &Style,
    hs: &[HeadingHit],
    first: &BTreeMap<Path, usize>,
    gap: &[Path],
    after: &Path,
) {
    let Some(h) = first.get(after).and_then(|i| hs.get(*i)) else {
        return;
    };
    let before = gap.first().map(|g| {
        let mut b = g.clone();
        if let Some(l) = b.last_mut() {
            *l = l.saturating_sub(1);
        }
        b
    });
    let from = match before {
        Some(b) if b.last().copied().unwrap_or(0) > 0 => format_path(style, &b),
        _ => "the start of its section".into(),
    };
    sink.push(
        "T0001",
        h.start,
        h.end,
        format!("numbering skips from {from} to {}: {} missing", h.written, list(style, gap)),
    );
}

/// Markdown headings have no numbers: their outline can only skip a level (`#` then
/// `###`, T0008), and a title used twice makes an anchor by heading ambiguous (T0009).
fn markdown(sink: &mut Sink, hs: &[HeadingHit]) {
    let mut prev_level = 0usize;
    let mut first: BTreeMap<String, usize> = BTreeMap::new();
    for h in hs {
        let level = h.path.len();
        if level > prev_level + 1 {
            sink.push(
                "T0008",
                h.start,
                h.end,
                format!(
                    "heading \"{}\" is {level} levels deep right after a heading {prev_level} deep",
                    h.title
                ),
            );
        }
        prev_level = level;
        let key = h.title.to_lowercase();
        match first.get(&key) {
            Some(line) => sink.push_with_notes(
                "T0009",
                h.start,
                h.end,
                format!("heading title \"{}\" is used twice", h.title),
                vec![format!("first on line {line}: an anchor by heading names the first")],
            ),
            None => {
                first.insert(key, h.line + 1);
            }
        }
    }
}

/// Lettered items under each heading run A, B, C, ... without gaps or repeats.
fn items(sink: &mut Sink) {
    let paragraphs = sink.index.paragraphs.clone();
    let mut expected = 'A';
    for p in &paragraphs {
        match p.kind {
            ParagraphKind::Heading => expected = 'A',
            ParagraphKind::Item => {
                let Some(c) = p.letter else { continue };
                if c != expected {
                    let what = if c < expected {
                        format!("item {c}. repeats or goes back (expected {expected}.)")
                    } else {
                        format!(
                            "items skip from {} to {c}.",
                            if expected == 'A' {
                                "the start".to_string()
                            } else {
                                format!("{}.", (expected as u8 - 1) as char)
                            }
                        )
                    };
                    sink.push(
                        "T0006",
                        p.heading_start,
                        p.heading_end,
                        format!("{what} in {}", p.parent.clone().unwrap_or_default()),
                    );
                }
                expected = ((c as u8).saturating_add(1)) as char;
            }
        }
    }
}
