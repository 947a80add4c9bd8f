//! Cross-reference recognition within one line: reference forms per style marker
//! (`see 9.2`, `(7.3)`, `¶45`, `Exclusive Rule 68`, `Rule 7 G`), lists and ranges,
//! the part a reference names, external books, and a topic stated next to it.

use crate::lexer::{tok_text, Line, Tok, Token};
use crate::number::{parse_decimal, Path};
use crate::scan::{flat_number, is_upper_start, number_at, span_text, RefHit, Topic};
use crate::style::{Marker, Style};

/// Words that never make a topic on their own.
const LABEL_WORDS: &[&str] = &[
    "see",
    "note",
    "example",
    "exception",
    "exceptions",
    "also",
    "rule",
    "rules",
    "section",
    "sections",
    "case",
    "cases",
    "step",
    "steps",
    "and",
    "or",
    "the",
    "per",
    "under",
    "paragraph",
];

/// Small words allowed inside a title-case run (`Terrain Effects on Combat`).
const CONNECTORS: &[&str] = &["of", "on", "in", "and", "the", "to", "for", "at", "by", "vs", "a"];

/// Words after a number that make it a quantity, not a reference.
const UNIT_WORDS: &[&str] = &[
    "miles", "mile", "km", "mph", "hours", "hour", "inches", "lb", "x", "percent", "points", "sp", "sps",
    "hexes", "mp", "mps", "version",
];

/// Find the cross-references of one line.
pub(crate) fn scan_refs(
    src: &str,
    line: &Line,
    style: &Style,
    part: Option<usize>,
    heading_starts: &[usize],
    refs: &mut Vec<RefHit>,
) {
    let toks = &line.toks;
    let mut i = 0;
    let mut paren_see = false;
    while i < toks.len() {
        let t = toks[i];
        if t.kind == Tok::LParen {
            paren_see = matches!(toks.get(i + 1), Some(n) if n.kind == Tok::Word
                && ["see", "cf"].contains(&tok_text(src, n).to_lowercase().as_str()));
        } else if t.kind == Tok::RParen {
            paren_see = false;
        }
        if heading_starts.contains(&t.start) {
            // Skip the heading's own number (and a range end).
            i += 1;
            while matches!(toks.get(i), Some(n) if n.kind == Tok::Dash || n.kind == Tok::Number) {
                i += 1;
            }
            continue;
        }
        if let Some((r, next)) = placeholder_at(src, toks, i, style, paren_see) {
            refs.push(RefHit { line: line.number, ..r });
            i = next;
            continue;
        }
        let (explicit_part, marker_at) = part_prefix(src, toks, i, style);
        let Some(first) = ref_at(src, toks, marker_at, style, i, paren_see) else {
            i += 1;
            continue;
        };
        // A list of references: `¶65, 66`, `7.2-7.6`, `4.1 THROUGH 4.3`.
        let mut list = vec![first];
        while let Some(last) = list.last() {
            let j = last.next;
            let Some(sep) = toks.get(j) else { break };
            let sep_text = tok_text(src, sep).to_lowercase();
            let joins = matches!(sep.kind, Tok::Comma | Tok::Dash)
                || (sep.kind == Tok::Word && ["and", "or", "through", "to"].contains(&sep_text.as_str()))
                || (sep.kind == Tok::Other && sep_text == "&");
            if !joins {
                break;
            }
            let mut k = j + 1;
            if matches!(toks.get(k), Some(n) if n.kind == Tok::Pilcrow) {
                k += 1;
            }
            match continuation_at(src, toks, k, style) {
                Some(r) => list.push(r),
                None => break,
            }
        }
        let list_end = list.last().map(|r| r.next).unwrap_or(i + 1);
        if is_external(src, toks, i, list_end, style) {
            i = list_end.max(i + 1);
            continue;
        }
        let trailing = trailing_part(src, toks, list_end, style);
        let topic_before = topic_before(src, toks, i);
        let n = list.len();
        for (idx, r) in list.into_iter().enumerate() {
            let topic = if idx == 0 {
                topic_before.clone().or_else(|| topic_after(src, toks, r.next, style))
            } else if idx + 1 == n {
                topic_after(src, toks, r.next, style)
            } else {
                None
            };
            // A topic only belongs to a lone reference.
            let topic = if n == 1 { topic } else { None };
            refs.push(RefHit {
                part: explicit_part.or(trailing).or(part),
                path: r.path,
                item: r.item,
                written: r.written,
                start: r.start,
                end: r.end,
                line: line.number,
                topic,
                placeholder: false,
            });
        }
        i = list_end.max(i + 1);
    }
}

/// A bare number at token `at` is a reference when it opens a parenthesis, follows a
/// cue word (`see`, `per`, ...), or sits in a parenthesis that opened with one.
fn cued(src: &str, toks: &[Token], at: usize, style: &Style, paren_see: bool) -> bool {
    paren_see
        || match at.checked_sub(1).and_then(|p| toks.get(p)) {
            Some(p) if p.kind == Tok::LParen => true,
            Some(p) if p.kind == Tok::Word => {
                style.ref_cues.iter().any(|c| c.eq_ignore_ascii_case(tok_text(src, p)))
            }
            _ => false,
        }
}

/// `(7.X)`, `see 4.1X`: a decimal reference whose last group is a placeholder letter
/// run (`X`, `XX`, `x`) instead of digits, where a reference is cued.
fn placeholder_at(
    src: &str,
    toks: &[Token],
    i: usize,
    style: &Style,
    paren_see: bool,
) -> Option<(RefHit, usize)> {
    if style.marker != Marker::Decimal {
        return None;
    }
    let n = toks.get(i)?;
    if n.kind != Tok::Number {
        return None;
    }
    if !cued(src, toks, i, style, paren_see) {
        return None;
    }
    let written_num = tok_text(src, n);
    // `7.X`: the number, a glued full stop, a glued X run. `4.1X` lexes as `4.1`
    // followed by a glued word `X`.
    let (x, end_idx) = match (toks.get(i + 1), toks.get(i + 2)) {
        (Some(dot), Some(w)) if dot.kind == Tok::Period && dot.start == n.end && w.start == dot.end => {
            (w, i + 2)
        }
        (Some(w), _) if w.start == n.end && written_num.contains('.') => (w, i + 1),
        _ => return None,
    };
    let xt = tok_text(src, x);
    if x.kind != Tok::Word || xt.is_empty() || !xt.chars().all(|c| c == 'X' || c == 'x') {
        return None;
    }
    let path: Path = written_num.split('.').filter_map(|g| g.parse().ok()).collect();
    let written = src.get(n.start..x.end).unwrap_or("").to_string();
    Some((
        RefHit {
            part: None,
            path,
            item: None,
            written,
            start: n.start,
            end: x.end,
            line: 0,
            topic: None,
            placeholder: true,
        },
        end_idx + 1,
    ))
}

struct RefTok {
    path: Path,
    item: Option<char>,
    written: String,
    start: usize,
    end: usize,
    next: usize,
}

/// A part named before a reference: `Exclusive Rules ¶133`, `Exclusive Rule 68`.
/// Returns (part, index of the marker after the name).
fn part_prefix(src: &str, toks: &[Token], i: usize, style: &Style) -> (Option<usize>, usize) {
    for (pi, p) in style.parts.iter().enumerate() {
        for name in &p.ref_names {
            let words: Vec<&str> = name.split_whitespace().collect();
            let matches = words.iter().enumerate().all(
                |(k, w)| matches!(toks.get(i + k), Some(t) if t.kind == Tok::Word && tok_text(src, t) == *w),
            );
            if matches {
                let mut after = i + words.len();
                if matches!(toks.get(after), Some(t) if t.kind == Tok::Comma)
                    && matches!(toks.get(after + 1), Some(t) if t.kind == Tok::Pilcrow)
                {
                    after += 1;
                }
                return (Some(pi), after);
            }
        }
    }
    (None, i)
}

/// A reference starting at token `at` (`marker_start` is where a part name began).
fn ref_at(
    src: &str,
    toks: &[Token],
    at: usize,
    style: &Style,
    marker_start: usize,
    paren_see: bool,
) -> Option<RefTok> {
    let t = toks.get(at)?;
    let named_part = at != marker_start;
    match &style.marker {
        Marker::Markdown | Marker::Titled => None,
        Marker::Bracketed => {
            if t.kind == Tok::Pilcrow {
                return flat_ref(src, toks, at + 1, style, t.start);
            }
            if t.kind == Tok::Bracketed && at > 0 {
                let (path, written, next) = number_at(src, toks, at, style)?;
                return Some(RefTok { path, item: None, written, start: t.start, end: t.end, next });
            }
            // `Exclusive Rule 68`: a part name, then a bare number.
            if named_part && t.kind == Tok::Number {
                return flat_ref(src, toks, at, style, toks.get(marker_start)?.start);
            }
            None
        }
        Marker::Keyword(k) => {
            if t.kind != Tok::Word {
                return None;
            }
            let w = tok_text(src, t);
            let kw = w.eq_ignore_ascii_case(k) || w.eq_ignore_ascii_case(&format!("{k}s"));
            if !kw {
                return None;
            }
            flat_ref(src, toks, at + 1, style, t.start)
        }
        Marker::Decimal => {
            if t.kind != Tok::Number {
                return None;
            }
            if !cued(src, toks, at, style, paren_see) {
                return None;
            }
            decimal_ref(src, toks, at, style)
        }
    }
}

/// `¶ 45`, `Rule 11 F`, `Rule 7G`: a flat number (and item) at token `at`.
fn flat_ref(src: &str, toks: &[Token], at: usize, style: &Style, start: usize) -> Option<RefTok> {
    let n = toks.get(at)?;
    if n.kind != Tok::Number {
        return None;
    }
    let v = flat_number(tok_text(src, n))?;
    let written = crate::number::format_path(style, &[v]);
    let (item, end, next) = item_suffix(src, toks, at + 1, n.end, style);
    Some(RefTok { path: vec![v], item, written, start, end, next })
}

/// A decimal reference at token `at`, with an optional item (`13.0.B`, `7.1.2 B`).
fn decimal_ref(src: &str, toks: &[Token], at: usize, style: &Style) -> Option<RefTok> {
    let t = toks.get(at)?;
    let w = tok_text(src, t);
    let path = parse_decimal(style, w)?;
    if let Some(n) = toks.get(at + 1) {
        if n.kind == Tok::Word && UNIT_WORDS.contains(&tok_text(src, n).to_lowercase().as_str()) {
            return None;
        }
    }
    let (item, end, next) = item_suffix(src, toks, at + 1, t.end, style);
    Some(RefTok { path, item, written: w.to_string(), start: t.start, end, next })
}

/// A following number in a reference list.
fn continuation_at(src: &str, toks: &[Token], k: usize, style: &Style) -> Option<RefTok> {
    let t = toks.get(k)?;
    match &style.marker {
        Marker::Decimal => decimal_ref(src, toks, k, style),
        Marker::Bracketed => {
            if t.kind == Tok::Bracketed {
                let (path, written, next) = number_at(src, toks, k, style)?;
                return Some(RefTok { path, item: None, written, start: t.start, end: t.end, next });
            }
            flat_ref(src, toks, k, style, t.start)
        }
        Marker::Keyword(_) => {
            if t.kind == Tok::Number {
                return flat_ref(src, toks, k, style, t.start);
            }
            None
        }
        Marker::Markdown | Marker::Titled => None,
    }
}

/// An item letter after a number: `.B` glued, `G` glued (`7G`), or ` B` followed
/// by a closing mark. Returns (item, end byte, next token).
fn item_suffix(
    src: &str,
    toks: &[Token],
    k: usize,
    num_end: usize,
    style: &Style,
) -> (Option<char>, usize, usize) {
    if !style.lettered_items {
        return (None, num_end, k);
    }
    let single = |t: &Token| -> Option<char> {
        let s = tok_text(src, t);
        let mut cs = s.chars();
        let c = cs.next()?;
        (t.kind == Tok::Word && cs.next().is_none() && c.is_ascii_uppercase()).then_some(c)
    };
    let closes = |t: Option<&Token>| -> bool {
        match t {
            None => true,
            Some(t) => {
                matches!(
                    t.kind,
                    Tok::RParen | Tok::Comma | Tok::Period | Tok::Semicolon | Tok::Dash | Tok::Colon
                ) || (t.kind == Tok::Word
                    && ["and", "or"].contains(&tok_text(src, t).to_lowercase().as_str()))
            }
        }
    };
    // `13.0.B`
    if let (Some(dot), Some(letter)) = (toks.get(k), toks.get(k + 1)) {
        if dot.kind == Tok::Period && dot.start == num_end && letter.start == dot.end {
            if let Some(c) = single(letter) {
                if closes(toks.get(k + 2)) {
                    return (Some(c), letter.end, k + 2);
                }
            }
        }
    }
    if let Some(letter) = toks.get(k) {
        if let Some(c) = single(letter) {
            if closes(toks.get(k + 1)) {
                return (Some(c), letter.end, k + 1);
            }
        }
    }
    (None, num_end, k)
}

/// True when words next to the reference send it to another book.
fn is_external(src: &str, toks: &[Token], i: usize, list_end: usize, style: &Style) -> bool {
    // `HGH Exclusive Rule 1.52`: an acronym right before the words that introduce
    // the number names another book.
    let mut k = i;
    while k > 0 {
        let t = &toks[k - 1];
        let w = tok_text(src, t).to_lowercase();
        if t.kind == Tok::Word
            && ["rule", "rules", "exclusive", "standard", "case", "section"].contains(&w.as_str())
        {
            k -= 1;
        } else {
            break;
        }
    }
    if k < i && k > 0 {
        let t = &toks[k - 1];
        let w = tok_text(src, t);
        let letters = w.chars().filter(|c| c.is_alphabetic()).count();
        if t.kind == Tok::Word
            && letters >= 2
            && w.chars().filter(|c| c.is_alphabetic()).all(|c| c.is_uppercase())
        {
            return true;
        }
    }
    if style.external_markers.is_empty() {
        return false;
    }
    let from = toks.get(i.saturating_sub(3)).map(|t| t.start).unwrap_or(0);
    let mut to_idx = list_end;
    let mut count = 0;
    while let Some(t) = toks.get(to_idx) {
        if matches!(t.kind, Tok::Period | Tok::Semicolon | Tok::RParen) || count >= 7 {
            break;
        }
        to_idx += 1;
        count += 1;
    }
    let to = toks.get(to_idx.saturating_sub(1)).map(|t| t.end).unwrap_or(from);
    let window = src.get(from..to.max(from)).unwrap_or("").to_lowercase();
    style.external_markers.iter().any(|m| window.contains(&m.to_lowercase()))
}

/// A part named after a reference list in the same clause (`¶78 in the Standard Rules`).
fn trailing_part(src: &str, toks: &[Token], from: usize, style: &Style) -> Option<usize> {
    if style.parts.is_empty() {
        return None;
    }
    let mut k = from;
    let mut steps = 0;
    while let Some(t) = toks.get(k) {
        if matches!(t.kind, Tok::Period | Tok::Semicolon | Tok::RParen | Tok::Pilcrow) || steps > 12 {
            return None;
        }
        let (p, after) = part_prefix(src, toks, k, style);
        if let Some(p) = p {
            let followed_by_ref = matches!(toks.get(after), Some(n)
                if n.kind == Tok::Pilcrow || n.kind == Tok::Number);
            return if followed_by_ref { None } else { Some(p) };
        }
        k += 1;
        steps += 1;
    }
    None
}

/// A quoted or title-case topic right before the reference at token `i`.
fn topic_before(src: &str, toks: &[Token], i: usize) -> Option<Topic> {
    let mut k = i;
    // `"Repulse" ¶130`, `“Activation by Initiative,” ¶102`
    if k >= 1 && toks[k - 1].kind == Tok::Quote {
        let close = k - 1;
        let mut open = close;
        while open > 0 {
            open -= 1;
            if toks[open].kind == Tok::Quote {
                return make_topic(src, toks, open + 1, close);
            }
        }
        return None;
    }
    // `see Modification of Combat Force, 9.41`
    if k >= 2 && toks[k - 1].kind == Tok::Comma {
        let run_end = k - 1;
        let run_start = title_run_back(src, toks, run_end);
        if run_start < run_end
            && run_start >= 1
            && tok_text(src, &toks[run_start - 1]).eq_ignore_ascii_case("see")
        {
            return make_topic(src, toks, run_start, run_end);
        }
        return None;
    }
    // `Terrain Effects on Combat (7.3)`, `Fire Zones (see 7.7)`
    if k >= 1 && toks[k - 1].kind == Tok::Word && tok_text(src, &toks[k - 1]).eq_ignore_ascii_case("see") {
        k -= 1;
    }
    if k >= 2 && toks[k - 1].kind == Tok::LParen {
        let run_end = k - 1;
        let run_start = title_run_back(src, toks, run_end);
        if run_start < run_end && introduced(src, toks, run_start) {
            return make_topic(src, toks, run_start, run_end);
        }
    }
    None
}

/// A title-case run before `(N)` names a topic only when something introduces it
/// as one: `see Fire Zones (7.7)`, `Exception: Artillery (7.2)`, or a second topic
/// in such a list (`... (7.3) and Fire Zones (7.7)`). Elsewhere it is just prose
/// with capitalised game terms (`their Movement Phase (6.0)`).
fn introduced(src: &str, toks: &[Token], run_start: usize) -> bool {
    let Some(p) = run_start.checked_sub(1).and_then(|i| toks.get(i)) else {
        return false;
    };
    let word = |t: &Token| tok_text(src, t).to_lowercase();
    match p.kind {
        Tok::Word => {
            let w = word(p);
            if w == "see" || w == "cf" {
                return true;
            }
            if w == "and" || w == "or" {
                return matches!(run_start.checked_sub(2).and_then(|i| toks.get(i)),
                    Some(t) if t.kind == Tok::RParen);
            }
            false
        }
        Tok::Colon => matches!(run_start.checked_sub(2).and_then(|i| toks.get(i)),
            Some(t) if t.kind == Tok::Word
                && ["exception", "exceptions", "see", "note"].contains(&word(t).as_str())),
        _ => false,
    }
}

/// A topic right after a reference: `¶33, “Changing ...,”`, `Rule 22 – Withdrawal)`.
fn topic_after(src: &str, toks: &[Token], next: usize, style: &Style) -> Option<Topic> {
    let sep = toks.get(next)?;
    if !matches!(sep.kind, Tok::Comma | Tok::Dash) {
        return None;
    }
    let k = next + 1;
    if matches!(toks.get(k), Some(t) if t.kind == Tok::Quote) {
        let mut close = k + 1;
        while let Some(t) = toks.get(close) {
            if t.kind == Tok::Quote {
                // The quotation is the reference's topic only when it closes the
                // clause (`¶33, "Changing the Supply Source," in the ...`), not when
                // it is a phrase inside a sentence (`per 1.19, "version 3.5" Hub ...`).
                let inner_comma = toks.get(close - 1).is_some_and(|t| t.kind == Tok::Comma);
                let after = toks.get(close + 1);
                let closes = match after {
                    None => true,
                    Some(a) => matches!(a.kind, Tok::RParen | Tok::Comma | Tok::Period | Tok::Semicolon),
                };
                return if inner_comma || closes { make_topic(src, toks, k + 1, close) } else { None };
            }
            close += 1;
        }
        return None;
    }
    if matches!(style.marker, Marker::Decimal) {
        return None;
    }
    // A title-case run that runs to the end of the parenthesis or sentence.
    let mut e = k;
    while let Some(t) = toks.get(e) {
        let s = tok_text(src, t);
        let ok = match t.kind {
            Tok::Word => is_upper_start(s) || (e > k && CONNECTORS.contains(&s)),
            Tok::Dash => e > k,
            _ => false,
        };
        if !ok {
            break;
        }
        e += 1;
    }
    let closes = matches!(toks.get(e), None | Some(Token { kind: Tok::RParen | Tok::Period, .. }));
    if e > k && closes {
        return make_topic(src, toks, k, e);
    }
    None
}

/// Walk back from `end` (exclusive) over a title-case run; returns its start.
fn title_run_back(src: &str, toks: &[Token], end: usize) -> usize {
    let mut s = end;
    while s > 0 {
        let t = &toks[s - 1];
        let w = tok_text(src, t);
        let ok = match t.kind {
            Tok::Word => is_upper_start(w) || CONNECTORS.contains(&w),
            Tok::Dash => s < end,
            _ => false,
        };
        if !ok {
            break;
        }
        s -= 1;
    }
    // The run must end with a capitalised word and start with one.
    let mut a = s;
    while a < end {
        let w = tok_text(src, &toks[a]);
        if toks[a].kind == Tok::Word && is_upper_start(w) {
            break;
        }
        a += 1;
    }
    if end == 0 || a >= end {
        return end;
    }
    let last = tok_text(src, &toks[end - 1]);
    if toks[end - 1].kind != Tok::Word || !is_upper_start(last) {
        return end;
    }
    a
}

fn make_topic(src: &str, toks: &[Token], a: usize, b: usize) -> Option<Topic> {
    if a >= b || b > toks.len() {
        return None;
    }
    let text = span_text(src, toks, a, b)
        .trim_matches(|c: char| c == ',' || c == '.' || c.is_whitespace())
        .to_string();
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| w.to_lowercase())
        .collect();
    if words.is_empty() || words.iter().all(|w| LABEL_WORDS.contains(&w.as_str())) {
        return None;
    }
    Some(Topic { text, start: toks[a].start, end: toks[b - 1].end })
}
