//! Dice-table checks: tables written as prose lines (`On a 1-3, ...`), bullet or
//! lettered lines, markdown tables with a roll column, or inline runs
//! (`0-2 Recovers, 3-7 No Effect, 8-9 Dies`). The dice come from the words around
//! the table (one die of the style's faces unless the text says otherwise).

use super::Sink;
use crate::lexer::{tok_text, Line, Tok, Token};

/// Rolls covered: (lowest, highest), `None` for an open end.
type Ranges = Vec<(Option<i64>, Option<i64>)>;

/// One row of a dice table: the rolls it covers (`None` = open-ended).
#[derive(Debug, Clone)]
struct Entry {
    ranges: Vec<(Option<i64>, Option<i64>)>,
    written: String,
    start: usize,
    end: usize,
}

/// Words that may come before the roll in a prose row (`On a roll of 4-6`).
const PREFIX: &[&str] =
    &["on", "a", "an", "if", "the", "die", "dice", "roll", "rolls", "result", "is", "of", "modified"];

pub(crate) fn check(sink: &mut Sink) {
    let lines = sink.index.lines.clone();
    let mut group: Vec<Entry> = Vec::new();
    let mut group_first_line = 0usize;
    let mut header_ok = false; // inside a markdown table with a roll column
    let mut header_text = String::new();
    for (li, line) in lines.iter().enumerate() {
        if sink.index.toc_lines.get(li).copied().unwrap_or(false) {
            continue;
        }
        if line.is_blank() {
            continue; // blank lines may separate rows (paragraph-per-row texts)
        }
        let first = line.toks.first().map(|t| t.kind);
        if first == Some(Tok::Pipe) {
            let cells = cells(sink.src, line);
            if is_separator(sink.src, line) {
                continue;
            }
            let next_is_sep = lines.get(li + 1).is_some_and(|n| is_separator(sink.src, n));
            if next_is_sep {
                flush(sink, &mut group, group_first_line, &header_text, true);
                let h = cells.first().map(|c| c.to_lowercase()).unwrap_or_default();
                header_ok = ["roll", "die", "dice", "d6", "d10"].iter().any(|w| h.contains(w));
                header_text = line.text(sink.src).to_string();
                group_first_line = li;
                continue;
            }
            if header_ok {
                if let Some(e) = table_row(sink.src, line) {
                    group.push(e);
                    continue;
                }
            }
            flush(sink, &mut group, group_first_line, &header_text, header_ok);
            continue;
        }
        if header_ok {
            flush(sink, &mut group, group_first_line, &header_text, true);
            header_ok = false;
            header_text.clear();
        }
        // Several rows on one line.
        let inline = inline_rows(sink.src, &line.toks);
        if inline.len() >= 2 {
            flush(sink, &mut group, group_first_line, "", false);
            let mut rows = inline;
            flush_at(sink, &mut rows, li, line.start, "", false);
            continue;
        }
        match prose_row(sink.src, &line.toks) {
            Some(e) => {
                if group.is_empty() {
                    group_first_line = li;
                }
                group.push(e);
            }
            None => flush(sink, &mut group, group_first_line, "", false),
        }
    }
    flush(sink, &mut group, group_first_line, &header_text, header_ok);
}

fn cells(src: &str, line: &Line) -> Vec<String> {
    line.text(src).trim().trim_matches('|').split('|').map(|c| c.trim().to_string()).collect()
}

fn is_separator(src: &str, line: &Line) -> bool {
    let t = line.text(src).trim();
    t.starts_with('|') && t.chars().all(|c| matches!(c, '|' | '-' | ':' | ' '))
}

fn int(src: &str, t: Option<&Token>) -> Option<i64> {
    let t = t?;
    if t.kind != Tok::Number {
        return None;
    }
    let s = tok_text(src, t);
    if s.contains('.') || s.len() > 3 {
        return None;
    }
    s.parse().ok()
}

/// A roll expression at token `k`: `3`, `1-2`, `1 or 2`, `5+`, `4 or more`.
/// Returns the ranges and the next token.
fn roll_expr(src: &str, toks: &[Token], k: usize) -> Option<(Ranges, usize)> {
    let a = int(src, toks.get(k))?;
    let word = |i: usize| toks.get(i).map(|t| tok_text(src, t).to_lowercase());
    match toks.get(k + 1).map(|t| t.kind) {
        Some(Tok::Dash) => {
            let b = int(src, toks.get(k + 2))?;
            if b < a {
                return None;
            }
            Some((vec![(Some(a), Some(b))], k + 3))
        }
        Some(Tok::Plus) => Some((vec![(Some(a), None)], k + 2)),
        Some(Tok::Word) if word(k + 1).as_deref() == Some("or") => match word(k + 2).as_deref() {
            Some("more" | "higher" | "greater") => Some((vec![(Some(a), None)], k + 3)),
            Some("less" | "lower" | "fewer") => Some((vec![(None, Some(a))], k + 3)),
            Some("a" | "an") => {
                let b = int(src, toks.get(k + 3))?;
                Some((vec![(Some(a), Some(a)), (Some(b), Some(b))], k + 4))
            }
            _ => {
                let b = int(src, toks.get(k + 2))?;
                Some((vec![(Some(a), Some(a)), (Some(b), Some(b))], k + 3))
            }
        },
        _ => Some((vec![(Some(a), Some(a))], k + 1)),
    }
}

fn entry(
    src: &str,
    toks: &[Token],
    from: usize,
    k: usize,
    ranges: Vec<(Option<i64>, Option<i64>)>,
    next: usize,
) -> Entry {
    let start = toks.get(k).map(|t| t.start).unwrap_or(0);
    let end = toks.get(next.saturating_sub(1)).map(|t| t.end).unwrap_or(start).max(start);
    let _ = from;
    Entry { ranges, written: src.get(start..end).unwrap_or("").to_string(), start, end }
}

/// A row at the start of a line: optional bullet or item letter, optional
/// `On a` words, a roll, then a comma, colon, equals sign, dash or a capitalised word.
fn prose_row(src: &str, toks: &[Token]) -> Option<Entry> {
    let mut k = 0;
    match toks.first().map(|t| t.kind) {
        Some(Tok::Dash | Tok::Bullet) => k = 1,
        Some(Tok::Word) => {
            let s = tok_text(src, &toks[0]);
            if s.len() == 1
                && s.chars().all(|c| c.is_ascii_uppercase())
                && matches!(toks.get(1), Some(t) if t.kind == Tok::Period)
            {
                k = 2;
            }
        }
        _ => {}
    }
    let mut prefixed = false;
    while let Some(t) = toks.get(k) {
        if t.kind == Tok::Word && PREFIX.contains(&tok_text(src, t).to_lowercase().as_str()) {
            prefixed = true;
            k += 1;
        } else {
            break;
        }
    }
    let (ranges, next) = roll_expr(src, toks, k)?;
    let after = toks.get(next)?;
    let ok = match after.kind {
        Tok::Comma | Tok::Colon | Tok::Equals | Tok::Dash => true,
        Tok::Word => !prefixed && tok_text(src, after).chars().next().is_some_and(|c| c.is_uppercase()),
        _ => false,
    };
    if !ok {
        return None;
    }
    Some(entry(src, toks, 0, k, ranges, next))
}

/// A markdown row whose first cell is a roll.
fn table_row(src: &str, line: &Line) -> Option<Entry> {
    let toks = &line.toks;
    let (ranges, next) = roll_expr(src, toks, 1)?;
    if !matches!(toks.get(next), Some(t) if t.kind == Tok::Pipe) {
        return None;
    }
    Some(entry(src, toks, 1, 1, ranges, next))
}

/// Rows inside one line: after a colon, comma or semicolon, a roll followed by a
/// capitalised word (`0-2 Recovers, 3-7 No Effect`), or `on a 4-6,`.
fn inline_rows(src: &str, toks: &[Token]) -> Vec<Entry> {
    let mut out = Vec::new();
    let mut k = 1;
    while k < toks.len() {
        let prev = toks[k - 1].kind;
        let word = |i: usize| toks.get(i).map(|t| tok_text(src, t).to_lowercase());
        if matches!(prev, Tok::Colon | Tok::Comma | Tok::Semicolon) {
            if let Some((ranges, next)) = roll_expr(src, toks, k) {
                let cap = toks
                    .get(next)
                    .filter(|t| t.kind == Tok::Word)
                    .is_some_and(|t| tok_text(src, t).chars().next().is_some_and(|c| c.is_uppercase()));
                if cap {
                    out.push(entry(src, toks, k, k, ranges, next));
                    k = next;
                    continue;
                }
            }
        }
        if word(k - 1).as_deref() == Some("on") && matches!(word(k).as_deref(), Some("a" | "an")) {
            if let Some((ranges, next)) = roll_expr(src, toks, k + 1) {
                if matches!(toks.get(next), Some(t) if t.kind == Tok::Comma) {
                    out.push(entry(src, toks, k + 1, k + 1, ranges, next));
                    k = next;
                    continue;
                }
            }
        }
        k += 1;
    }
    out
}

fn flush(sink: &mut Sink, group: &mut Vec<Entry>, first_line: usize, header: &str, table: bool) {
    let start = sink.index.lines.get(first_line).map(|l| l.start).unwrap_or(0);
    flush_at(sink, group, first_line, start, header, table);
}

/// Check one table and clear it.
fn flush_at(
    sink: &mut Sink,
    group: &mut Vec<Entry>,
    _first_line: usize,
    table_start: usize,
    header: &str,
    table: bool,
) {
    let rows = std::mem::take(group);
    if rows.len() < 2 {
        return;
    }
    let has_range = rows.iter().any(|e| e.ranges.iter().any(|(a, b)| a != b));
    if !has_range && !table {
        return;
    }
    // Context: the paragraph's text before the table, and the table itself.
    let first = rows[0].start;
    let last = rows[rows.len() - 1].end;
    let para_start = sink.index.heading_at(first).map(|p| p.heading_start).unwrap_or(0);
    let ctx_from = para_start.max(table_start.saturating_sub(700)).min(first);
    let mut from = ctx_from;
    while from > 0 && !sink.src.is_char_boundary(from) {
        from -= 1;
    }
    let context = format!("{} {}", header, sink.src.get(from..last).unwrap_or("")).to_lowercase();
    let Some(dice) = detect_dice(&context, sink.index.style.die, table) else {
        return;
    };
    let (lo, hi) = (dice.count * dice.faces.0, dice.count * dice.faces.1);
    // Not a dice table if the numbers are far from what dice roll (hex numbers, years).
    let wild = rows.iter().any(|e| {
        e.ranges.iter().any(|(a, b)| {
            a.is_some_and(|v| v > 3 * hi + 3 || v < lo - 3) || b.is_some_and(|v| v > 3 * hi + 3)
        })
    });
    if wild {
        return;
    }
    let modified = ["modif", "drm", "add ", "adds ", "subtract", "+"].iter().any(|w| context.contains(w));
    let dice_name = dice.name();
    // Overlaps, in text order.
    for j in 1..rows.len() {
        for i in 0..j {
            if let Some(v) = overlap(&rows[i], &rows[j]) {
                sink.push(
                    "T0202",
                    rows[j].start,
                    rows[j].end,
                    format!(
                        "dice table rows overlap: a roll of {v} is in both \"{}\" and \"{}\"",
                        rows[i].written, rows[j].written
                    ),
                );
            }
        }
    }
    if !modified {
        for e in &rows {
            let beyond = e.ranges.iter().any(|(a, b)| {
                a.is_some_and(|v| v > hi)
                    || b.is_some_and(|v| v < lo)
                    || a.is_some_and(|v| v < lo)
                    || b.is_some_and(|v| v > hi)
            });
            if beyond {
                sink.push(
                    "T0203",
                    e.start,
                    e.end,
                    format!(
                        "dice table row \"{}\" is beyond what {dice_name} can roll ({lo}-{hi})",
                        e.written
                    ),
                );
            }
        }
    }
    let covered = |v: i64| {
        rows.iter()
            .any(|e| e.ranges.iter().any(|(a, b)| !a.is_some_and(|a| a > v) && !b.is_some_and(|b| v > b)))
    };
    let missing: Vec<i64> = (lo..=hi).filter(|v| !covered(*v)).collect();
    if !missing.is_empty() {
        sink.push(
            "T0201",
            first,
            last,
            format!("dice table leaves a gap: no row for {} ({dice_name} rolls {lo}-{hi})", runs(&missing)),
        );
    }
}

fn overlap(a: &Entry, b: &Entry) -> Option<i64> {
    for (a0, a1) in &a.ranges {
        for (b0, b1) in &b.ranges {
            let lo = match (a0, b0) {
                (Some(x), Some(y)) => Some(*x.max(y)),
                (Some(x), None) | (None, Some(x)) => Some(*x),
                (None, None) => None,
            };
            let hi = match (a1, b1) {
                (Some(x), Some(y)) => Some(*x.min(y)),
                (Some(x), None) | (None, Some(x)) => Some(*x),
                (None, None) => None,
            };
            match (lo, hi) {
                (Some(l), Some(h)) if l <= h => return Some(l),
                (Some(l), None) => return Some(l),
                (None, Some(h)) => return Some(h),
                _ => {}
            }
        }
    }
    None
}

fn runs(vals: &[i64]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < vals.len() {
        let mut j = i;
        while j + 1 < vals.len() && vals[j + 1] == vals[j] + 1 {
            j += 1;
        }
        if i == j {
            out.push(format!("a roll of {}", vals[i]));
        } else {
            out.push(format!("rolls of {}-{}", vals[i], vals[j]));
        }
        i = j + 1;
    }
    out.join(", ")
}

struct Dice {
    count: i64,
    faces: (i64, i64),
}

impl Dice {
    fn name(&self) -> String {
        let f = self.faces.1 - self.faces.0 + 1;
        if self.faces.0 == 0 {
            format!("{}d{f} (read {}-{})", self.count, self.faces.0, self.faces.1)
        } else {
            format!("{}d{f}", self.count)
        }
    }
}

/// The dice a table is rolled with, from the words before it; `None` when the
/// context never mentions a roll (then the numbers are not a dice table).
fn detect_dice(context: &str, style_die: (i64, i64), table: bool) -> Option<Dice> {
    let words: Vec<&str> =
        context.split(|c: char| !(c.is_alphanumeric() || c == '-')).filter(|w| !w.is_empty()).collect();
    let mut count: Option<(usize, i64)> = None; // (position, dice)
    let mut faces = style_die;
    let mut mentions = table;
    for (i, w) in words.iter().enumerate() {
        let prev = if i > 0 { words[i - 1] } else { "" };
        let n = match *w {
            "2d6" | "2d10" => Some(2),
            "3d6" => Some(3),
            "1d6" | "1d10" | "d6" | "d10" => Some(1),
            "dice" => Some(match prev {
                "three" | "3" => 3,
                "one" | "1" => 1,
                _ => 2,
            }),
            "die" => Some(match prev {
                "two" | "2" => 2,
                _ => 1,
            }),
            _ => None,
        };
        if let Some(n) = n {
            count = Some((i, n));
            mentions = true;
        }
        if ["roll", "rolls", "rolled", "result", "results"].contains(w) {
            mentions = true;
        }
        if w.contains("d10") || *w == "ten-sided" {
            faces = if style_die.1 - style_die.0 == 9 { style_die } else { (1, 10) };
        }
        if w.ends_with("d6") || *w == "six-sided" {
            faces = (1, 6);
        }
    }
    if !mentions {
        return None;
    }
    Some(Dice { count: count.map(|(_, n)| n).unwrap_or(1), faces })
}
