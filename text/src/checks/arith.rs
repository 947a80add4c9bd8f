//! Arithmetic the text states: a count beside the list it counts (T0501: "three
//! ways:" and then two), a sum beside its parts (T0502: `4 + 3 = 8`, `12 (7 + 4)`),
//! and a span beside its ends (T0503: "turns 3-7 (four turns)").
//!
//! Precision comes first: a count is compared only with a list whose items the text
//! marks (separators on the line, labels `1)` / `a)`, bullets, `Label:` lines, or one
//! item per line up to a blank line), and where the list's length could be read two
//! ways (`A, B and C` without a serial comma) every reading is accepted.

use super::Sink;
use crate::lexer::{tok_text, Line, Tok};

const NUMBER_WORDS: &[(&str, usize)] = &[
    ("two", 2),
    ("three", 3),
    ("four", 4),
    ("five", 5),
    ("six", 6),
    ("seven", 7),
    ("eight", 8),
    ("nine", 9),
    ("ten", 10),
    ("eleven", 11),
    ("twelve", 12),
];

/// Words the count's noun phrase may run to before the colon ("Four important
/// concepts in these rules are:").
const MAX_PHRASE_WORDS: usize = 6;

/// Units a span is counted in.
const SPAN_UNITS: &[&str] =
    &["turn", "turns", "game-turns", "year", "years", "month", "months", "day", "days", "hour", "hours"];

pub(crate) fn check(sink: &mut Sink) {
    let lines = sink.index.lines.clone();
    for (li, line) in lines.iter().enumerate() {
        if sink.index.toc_lines.get(li).copied().unwrap_or(false) || line.is_blank() {
            continue;
        }
        counts(sink, &lines, li);
        sums(sink, line);
        spans(sink, line);
    }
}

fn number_word(w: &str) -> Option<usize> {
    NUMBER_WORDS.iter().find(|(n, _)| n.eq_ignore_ascii_case(w)).map(|(_, v)| *v)
}

// ------------------------------------------------------------------ T0501

/// Every colon on the line that closes "<number word> <a few words>:" opens a list.
fn counts(sink: &mut Sink, lines: &[Line], li: usize) {
    let line = &lines[li];
    let src = sink.src;
    for (ci, colon) in line.toks.iter().enumerate().filter(|(_, t)| t.kind == Tok::Colon) {
        // The words before the colon, back to the start of the clause.
        let mut words = Vec::new();
        let mut clean = true;
        for t in line.toks[..ci].iter().rev() {
            match t.kind {
                Tok::Word => words.push(*t),
                Tok::Dash => {}
                _ => {
                    // A number, a parenthesis or punctuation inside the phrase: not a count.
                    if !matches!(t.kind, Tok::Period | Tok::Semicolon | Tok::Stop) {
                        clean = false;
                    }
                    break;
                }
            }
            if words.len() > MAX_PHRASE_WORDS + 1 {
                break;
            }
        }
        if !clean {
            continue;
        }
        // The count is the number word nearest the colon, with at least one word
        // (the thing counted) between them.
        let Some((wi, stated)) =
            words.iter().enumerate().skip(1).find_map(|(i, t)| number_word(tok_text(src, t)).map(|v| (i, v)))
        else {
            continue;
        };
        if wi > MAX_PHRASE_WORDS {
            continue;
        }
        let count_tok = words[wi];
        let rest = src.get(colon.end..line.end).unwrap_or("");
        let listed = if rest.trim().is_empty() { following_lines(sink, lines, li) } else { inline(rest) };
        // One item read is no list (a sentence after a colon), unless labelled.
        let Some(listed) = listed.filter(|l| l.readings.iter().any(|&k| k > 1)) else { continue };
        if listed.readings.contains(&stated) {
            continue;
        }
        let phrase = src.get(count_tok.start..colon.start).unwrap_or("").trim().to_string();
        let n = listed.readings.iter().map(|k| k.to_string()).collect::<Vec<_>>().join(" or ");
        sink.push_with_notes(
            "T0501",
            count_tok.start,
            colon.end,
            format!("\"{phrase}\" counts {stated} but the list after it has {n}"),
            vec![format!("the list read: {}", listed.shown)],
        );
    }
}

/// How long a list is, every way it can be read, and how it was read.
struct Listed {
    readings: Vec<usize>,
    shown: String,
}

/// A list on the rest of the line, up to the end of its sentence.
fn inline(rest: &str) -> Option<Listed> {
    if rest.contains('•') {
        return None; // bullets flattened onto one line by extraction
    }
    let sentence = sentence_of(rest);
    // Labelled items `1) ... 2) ...` or `a) ... b) ...`: the highest label counts
    // (a first label lost in extraction does not shorten the list).
    let labels = labels(sentence);
    if let Some(max) = labels {
        return Some(Listed { readings: vec![max], shown: format!("items labelled up to {max}") });
    }
    let depth0 = split_depth0(sentence, if sentence.contains(';') { ';' } else { ',' });
    let items: Vec<&str> = depth0.iter().map(|s| s.trim()).filter(|s| !s.is_empty()).collect();
    if items.is_empty() {
        return None;
    }
    let last = items[items.len() - 1];
    let joined_last = strip_conj(last) != last;
    let mut readings = Vec::new();
    if items.len() == 1 {
        // `A and B`: two, or one item that says "and".
        let parts = split_conj(last);
        readings.push(parts);
        if parts > 1 {
            readings.push(1);
        }
    } else {
        readings.push(items.len());
        // `A, B and C` (no serial comma): the last item may hold two.
        if !joined_last && split_conj(last) > 1 {
            readings.push(items.len() + 1);
        }
    }
    readings.sort_unstable();
    readings.dedup();
    let shown = items.iter().map(|s| short(s)).collect::<Vec<_>>().join(" | ");
    Some(Listed { readings, shown })
}

/// The sentence at the start of `s`: up to a full stop followed by a capital (not a
/// decimal point), or the end.
fn sentence_of(s: &str) -> &str {
    let b = s.as_bytes();
    for (i, c) in s.char_indices() {
        if c == '.' || c == '!' || c == '?' {
            let prev_digit = i > 0 && b[i - 1].is_ascii_digit();
            let next = s[i + 1..].chars().next();
            let after = s[i + 1..].trim_start().chars().next();
            let ends = next.map_or(true, |n| n.is_whitespace())
                && after.map_or(true, |a| a.is_uppercase() || a == '[');
            if ends && !prev_digit {
                return &s[..i];
            }
        }
    }
    s
}

/// The highest label of `1) ... 2) ...` or `a) ... b) ...` items, if the sentence
/// has at least two labels (or one label above 1).
fn labels(s: &str) -> Option<usize> {
    let chars: Vec<char> = s.chars().collect();
    let mut found = Vec::new();
    for i in 0..chars.len() {
        if chars[i] != ')' || i == 0 {
            continue;
        }
        let c = chars[i - 1];
        let before = if i >= 2 { chars[i - 2] } else { ' ' };
        if !(before.is_whitespace() || before == '(') {
            continue;
        }
        if let Some(d) = c.to_digit(10) {
            found.push(d as usize);
        } else if c.is_ascii_lowercase() && c <= 'h' {
            found.push((c as u8 - b'a') as usize + 1);
        }
    }
    let max = found.iter().copied().max()?;
    (found.len() >= 2 || max > 1).then_some(max)
}

fn split_depth0(s: &str, sep: char) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut from = 0;
    for (i, c) in s.char_indices() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            _ if c == sep && depth <= 0 => {
                out.push(&s[from..i]);
                from = i + c.len_utf8();
            }
            _ => {}
        }
    }
    out.push(&s[from..]);
    out
}

fn strip_conj(s: &str) -> &str {
    for c in ["and ", "or ", "plus "] {
        if let Some(r) = s.strip_prefix(c) {
            return r;
        }
    }
    s
}

/// Items of `A and B` / `A or B` at depth 0.
fn split_conj(s: &str) -> usize {
    let mut n = 1;
    let mut depth = 0i32;
    let padded = s;
    for (i, c) in padded.char_indices() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            ' ' if depth <= 0 => {
                let r = &padded[i..];
                if r.starts_with(" and ") || r.starts_with(" or ") {
                    n += 1;
                }
            }
            _ => {}
        }
    }
    n
}

fn short(s: &str) -> String {
    let words: Vec<&str> = s.split_whitespace().collect();
    if words.len() <= 5 {
        words.join(" ")
    } else {
        format!("{} …", words[..4].join(" "))
    }
}

/// The shape of a line that opens a list item.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// `- x`, `• x`, `* x` (or the marker alone, its text on the next line).
    Bullet(Tok),
    /// `1) x`, `1. x`, `a) x`, `A. x`.
    Label,
    /// `Name: x` (a capitalised name of up to four words, then a colon).
    Named,
    /// No marker: one item per line, up to a blank line.
    Plain,
}

fn shape(sink: &Sink, line: &Line) -> Shape {
    let t = &line.toks;
    let src = sink.src;
    match t.first().map(|t| t.kind) {
        Some(k @ (Tok::Dash | Tok::Bullet | Tok::Star)) => return Shape::Bullet(k),
        Some(Tok::Number | Tok::Word)
            if t.len() >= 2
                && (t[1].kind == Tok::RParen || t[1].kind == Tok::Period)
                && tok_text(src, &t[0]).chars().count() <= 2
                && (t[0].kind == Tok::Number || tok_text(src, &t[0]).chars().count() == 1) =>
        {
            return Shape::Label
        }
        _ => {}
    }
    if let Some(ci) = t.iter().position(|x| x.kind == Tok::Colon) {
        let name = &t[..ci];
        let capital =
            name.first().is_some_and(|w| tok_text(src, w).chars().next().is_some_and(char::is_uppercase));
        if (1..=4).contains(&ci) && name.iter().all(|w| w.kind == Tok::Word) && capital && ci + 1 < t.len() {
            return Shape::Named;
        }
    }
    Shape::Plain
}

fn is_heading_line(sink: &Sink, line: &Line) -> bool {
    sink.index
        .paragraphs
        .iter()
        .any(|p| p.heading_start >= line.start && p.heading_start < line.end.max(line.start + 1))
}

/// A list on the lines after a line that ends with the colon.
fn following_lines(sink: &Sink, lines: &[Line], li: usize) -> Option<Listed> {
    let mut j = li + 1;
    while j < lines.len() && lines[j].is_blank() {
        j += 1;
    }
    let first = lines.get(j)?;
    if is_heading_line(sink, first) || sink.index.toc_lines.get(j).copied().unwrap_or(false) {
        return None;
    }
    let kind = shape(sink, first);
    let mut n = 0usize;
    let mut k = j;
    match kind {
        Shape::Plain => {
            while k < lines.len() && !lines[k].is_blank() && !is_heading_line(sink, &lines[k]) {
                n += 1;
                k += 1;
            }
            // The run must end cleanly: at a blank line, a heading or the end.
            if n == 1 {
                return inline(lines[j].text(sink.src));
            }
        }
        Shape::Bullet(_) | Shape::Label | Shape::Named => {
            while k < lines.len() {
                let l = &lines[k];
                if l.is_blank() {
                    k += 1;
                    continue;
                }
                if is_heading_line(sink, l) && kind != Shape::Label {
                    break;
                }
                if shape(sink, l) != kind {
                    break;
                }
                n += 1;
                // A bare marker: its text is the next line.
                if l.toks.len() == 1 && matches!(kind, Shape::Bullet(_)) {
                    k += 1;
                }
                k += 1;
            }
        }
    }
    (n > 0).then(|| Listed {
        readings: vec![n],
        shown: format!(
            "{n} {} line{}",
            match kind {
                Shape::Bullet(_) => "bulleted",
                Shape::Label => "labelled",
                Shape::Named => "named",
                Shape::Plain => "item",
            },
            if n == 1 { "" } else { "s" }
        ),
    })
}

// ------------------------------------------------------------------ T0502

/// An integer operand: a number token without a decimal point.
fn int_of(sink: &Sink, t: &crate::lexer::Token) -> Option<i64> {
    if t.kind != Tok::Number {
        return None;
    }
    tok_text(sink.src, t).parse().ok()
}

#[derive(Clone, Copy)]
enum Op {
    Add,
    Sub,
    Mul,
}

fn op_of(sink: &Sink, t: &crate::lexer::Token) -> Option<Op> {
    match t.kind {
        Tok::Plus => Some(Op::Add),
        Tok::Dash if tok_text(sink.src, t) != "—" => Some(Op::Sub),
        Tok::Word if tok_text(sink.src, t) == "x" => Some(Op::Mul),
        Tok::Other if tok_text(sink.src, t) == "×" => Some(Op::Mul),
        _ => None,
    }
}

/// An expression `a op b op c ...` starting at token `i`: its value and the index
/// after it. At least one operator, and at least one `+` or `×` (a lone `a - b` is
/// a range, not a subtraction).
fn expr(sink: &Sink, toks: &[crate::lexer::Token], i: usize) -> Option<(i64, usize)> {
    let first = int_of(sink, toks.get(i)?)?;
    // Terms of a sum of products.
    let mut terms: Vec<i64> = vec![first];
    let mut signs: Vec<i64> = vec![1];
    let mut j = i + 1;
    let mut ops = 0;
    let mut non_minus = false;
    while let (Some(o), Some(v)) =
        (toks.get(j).and_then(|t| op_of(sink, t)), toks.get(j + 1).and_then(|t| int_of(sink, t)))
    {
        match o {
            Op::Add => {
                terms.push(v);
                signs.push(1);
                non_minus = true;
            }
            Op::Sub => {
                terms.push(v);
                signs.push(-1);
            }
            Op::Mul => {
                let last = terms.last_mut()?;
                *last = last.checked_mul(v)?;
                non_minus = true;
            }
        }
        ops += 1;
        j += 2;
    }
    if ops == 0 || !non_minus {
        return None;
    }
    let mut total = 0i64;
    for (t, s) in terms.iter().zip(&signs) {
        total = total.checked_add(t.checked_mul(*s)?)?;
    }
    Some((total, j))
}

fn sums(sink: &mut Sink, line: &Line) {
    let toks = &line.toks;
    let mut i = 0;
    while i < toks.len() {
        // An operator before the first operand: the expression starts with what is
        // not an integer (`3.75 mi. x 2 x 4 = 30`) and cannot be evaluated.
        let after_op = i > 0 && op_of(sink, &toks[i - 1]).is_some();
        // `a + b = n`
        if let Some((value, j)) = expr(sink, toks, i).filter(|_| !after_op) {
            if toks.get(j).is_some_and(|t| t.kind == Tok::Equals) {
                if let Some(stated) = toks.get(j + 1).and_then(|t| int_of(sink, t)) {
                    if stated != value {
                        let (s, e) = (toks[i].start, toks[j + 1].end);
                        let written = sink.src.get(s..e).unwrap_or("").to_string();
                        sink.push(
                            "T0502",
                            s,
                            e,
                            format!("\"{written}\": the parts make {value}, not {stated}"),
                        );
                    }
                    i = j + 2;
                    continue;
                }
            }
            i = j;
            continue;
        }
        // `n (a + b)`
        if let (Some(stated), Some(lp)) = (int_of(sink, &toks[i]), toks.get(i + 1)) {
            if lp.kind == Tok::LParen {
                if let Some((value, j)) = expr(sink, toks, i + 2) {
                    if toks.get(j).is_some_and(|t| t.kind == Tok::RParen) && stated != value {
                        let (s, e) = (toks[i].start, toks[j].end);
                        let written = sink.src.get(s..e).unwrap_or("").to_string();
                        sink.push(
                            "T0502",
                            s,
                            e,
                            format!("\"{written}\": the parts make {value}, not {stated}"),
                        );
                    }
                    i = j;
                    continue;
                }
            }
        }
        i += 1;
    }
}

// ------------------------------------------------------------------ T0503

fn count_of(sink: &Sink, t: &crate::lexer::Token) -> Option<i64> {
    int_of(sink, t).or_else(|| {
        if t.kind == Tok::Word {
            number_word(tok_text(sink.src, t)).map(|v| v as i64)
        } else {
            None
        }
    })
}

fn is_unit(sink: &Sink, t: &crate::lexer::Token) -> bool {
    t.kind == Tok::Word && SPAN_UNITS.iter().any(|u| u.eq_ignore_ascii_case(tok_text(sink.src, t)))
}

/// `a-b` or `a to b` / `a through b` at token `i`: the ends and the index after.
fn range_at(sink: &Sink, toks: &[crate::lexer::Token], i: usize) -> Option<(i64, i64, usize)> {
    let a = int_of(sink, toks.get(i)?)?;
    let mid = toks.get(i + 1)?;
    let joins = match mid.kind {
        Tok::Dash => tok_text(sink.src, mid) != "—",
        Tok::Word => matches!(tok_text(sink.src, mid), "to" | "through" | "until"),
        _ => false,
    };
    if !joins {
        return None;
    }
    let b = int_of(sink, toks.get(i + 2)?)?;
    (b > a).then_some((a, b, i + 3))
}

fn spans(sink: &mut Sink, line: &Line) {
    let toks = &line.toks;
    for i in 0..toks.len() {
        // `a-b (n units)`
        if let Some((a, b, j)) = range_at(sink, toks, i) {
            let paren = toks.get(j).is_some_and(|t| t.kind == Tok::LParen);
            if paren {
                if let (Some(n), Some(u), Some(rp)) =
                    (toks.get(j + 1).and_then(|t| count_of(sink, t)), toks.get(j + 2), toks.get(j + 3))
                {
                    if is_unit(sink, u) && rp.kind == Tok::RParen {
                        report_span(sink, toks[i].start, rp.end, a, b, n);
                    }
                }
            }
        }
        // `n units (a-b)` (the unit word first: it is the rare one)
        let unit_next = toks.get(i + 1).is_some_and(|u| is_unit(sink, u));
        if let (true, Some(n), Some(lp)) = (unit_next, count_of(sink, &toks[i]), toks.get(i + 2)) {
            if lp.kind == Tok::LParen {
                if let Some((a, b, j)) = range_at(sink, toks, i + 3) {
                    if toks.get(j).is_some_and(|t| t.kind == Tok::RParen) {
                        report_span(sink, toks[i].start, toks[j].end, a, b, n);
                    }
                }
            }
        }
    }
}

/// A span of `a` to `b` is `b - a` (years between) or `b - a + 1` (turns counted
/// inclusively): either reading is accepted.
fn report_span(sink: &mut Sink, start: usize, end: usize, a: i64, b: i64, n: i64) {
    if n == b - a || n == b - a + 1 {
        return;
    }
    let written = sink.src.get(start..end).unwrap_or("").to_string();
    sink.push_with_notes(
        "T0503",
        start,
        end,
        format!(
            "\"{written}\": {a} to {b} is {} counted inclusively ({} between), not {n}",
            b - a + 1,
            b - a
        ),
        Vec::new(),
    );
}
