//! The scanner: reads the lexer's lines under a [`Style`] and finds headings,
//! lettered items, table-of-contents entries and cross-references. Everything
//! style-specific comes from the style's fields; this file has no per-book cases.

use crate::lexer::{number_text, tok_text, Line, Tok, Token};
use crate::number::{parse_decimal, Path};
use crate::style::{Marker, Style, TitleRule};

/// A numbered heading found in the text.
#[derive(Debug, Clone)]
pub struct HeadingHit {
    pub part: Option<usize>,
    pub path: Path,
    /// For a range heading `7.2-7.6`, the last number it stands for.
    pub range_end: Option<Path>,
    /// The number as written (`9.41`, `Rule 11`, `[45.]`, `7.2-7.6`).
    pub written: String,
    pub title: String,
    /// Byte span of the heading (number and title).
    pub start: usize,
    pub end: usize,
    /// 0-based line.
    pub line: usize,
}

/// A lettered item (`A.` at the start of a line).
#[derive(Debug, Clone)]
pub struct ItemHit {
    pub letter: char,
    pub start: usize,
    pub end: usize,
    pub line: usize,
}

/// An entry of a table of contents.
#[derive(Debug, Clone)]
pub struct TocHit {
    pub path: Path,
    pub written: String,
    pub title: String,
    pub start: usize,
    pub end: usize,
    pub line: usize,
}

/// The topic a reference names next to its number (`see "Repulse" ¶130`).
#[derive(Debug, Clone)]
pub struct Topic {
    pub text: String,
    pub start: usize,
    pub end: usize,
}

/// A cross-reference to a paragraph of this text.
#[derive(Debug, Clone)]
pub struct RefHit {
    pub part: Option<usize>,
    pub path: Path,
    pub item: Option<char>,
    pub written: String,
    pub start: usize,
    pub end: usize,
    pub line: usize,
    pub topic: Option<Topic>,
    /// A placeholder written where a number belongs (`7.X`): `path` holds the
    /// groups that are given.
    pub placeholder: bool,
}

/// A "Contents" heading and what follows it.
#[derive(Debug, Clone)]
pub struct TocBlock {
    /// Byte span of the heading line.
    pub start: usize,
    pub end: usize,
    /// 0-based line.
    pub line: usize,
    /// Entry lines after it (bullets, part lines, dot-leader lines).
    pub entries: usize,
    /// Of those, lines that name a part (`PART ONE: ...`) rather than a paragraph.
    pub part_entries: usize,
    /// The heading repeats the one before it with no entry between them.
    pub repeated: bool,
}

/// Everything the scanner found.
#[derive(Debug, Clone, Default)]
pub struct Scan {
    pub headings: Vec<HeadingHit>,
    pub items: Vec<ItemHit>,
    pub toc: Vec<TocHit>,
    pub refs: Vec<RefHit>,
    /// Per line: true when the line belongs to a table of contents.
    pub toc_lines: Vec<bool>,
    /// The "Contents" headings, in text order.
    pub toc_blocks: Vec<TocBlock>,
    /// Part boundaries: (byte offset where the part starts, part index).
    pub part_starts: Vec<(usize, usize)>,
}

/// Scan a lexed text under a style.
pub fn scan(src: &str, lines: &[Line], style: &Style) -> Scan {
    let (toc_lines, toc_blocks) = find_toc_lines(src, lines, style);
    let mut out = Scan { toc_lines: toc_lines.clone(), toc_blocks, ..Scan::default() };
    let mut part: Option<usize> = if style.parts.is_empty() { None } else { Some(0) };
    let mut section_title = String::new();
    let mut prev_blank = true;
    let mut in_paragraph = false;
    // Markdown: the count of headings seen at each level under the current parents.
    let mut outline: Vec<u32> = Vec::new();
    let mut in_fence = false;
    // Titled sections: whether ALL-CAPS headings sit above title-case ones.
    let titled_levels =
        if style.marker == Marker::Titled { titled_levels(src, lines) } else { (false, false) };
    for (li, line) in lines.iter().enumerate() {
        let is_toc = toc_lines.get(li).copied().unwrap_or(false);
        if is_toc {
            scan_toc_line(src, line, style, &mut out.toc);
            prev_blank = line.is_blank();
            continue;
        }
        if line.is_blank() {
            prev_blank = true;
            continue;
        }
        let text = line.text(src).trim();
        if style.marker == Marker::Markdown {
            if text.starts_with("```") || text.starts_with("~~~") {
                in_fence = !in_fence;
            }
            if !in_fence {
                if let Some(h) = markdown_heading(src, line, &mut outline) {
                    out.headings.push(h);
                }
            }
            prev_blank = false;
            continue;
        }
        if style.marker == Marker::Titled {
            if prev_blank && text_follows(lines, li) {
                if let Some(h) = titled_heading(src, line, &mut outline, titled_levels) {
                    out.headings.push(h);
                }
            }
            prev_blank = false;
            continue;
        }
        // Part markers.
        if let Some(pi) = style.parts.iter().position(|p| text.starts_with(p.line_marker.as_str())) {
            part = Some(pi);
            out.part_starts.push((line.start, pi));
            section_title.clear();
            prev_blank = false;
            continue;
        }
        if is_editorial(src, line) {
            prev_blank = false;
            continue;
        }
        let mut skip_upto = 0usize; // tokens consumed by a heading marker
        if let Some((h, consumed)) = heading_at_line_start(src, line, style, part, &section_title) {
            skip_upto = consumed;
            in_paragraph = true;
            out.headings.push(h);
        } else if style.title == TitleRule::SectionLine && prev_blank && is_section_line(src, line) {
            section_title = text.trim_end_matches([' ', '\u{394}']).to_string();
        } else if style.lettered_items && in_paragraph {
            if let Some(item) = item_at_line_start(src, line) {
                out.items.push(item);
            }
        }
        if style.mid_line_headings {
            for (h, _) in mid_line_headings(src, line, style, part, skip_upto) {
                out.headings.push(h);
            }
        }
        let heading_numbers: Vec<usize> =
            out.headings.iter().rev().take_while(|h| h.line == line.number).map(|h| h.start).collect();
        crate::refscan::scan_refs(src, line, style, part, &heading_numbers, &mut out.refs);
        prev_blank = false;
    }
    out
}

/// `## Title` (one to six `#`, a space, a title; closing `#`s dropped): a heading
/// whose path counts headings per level. A level skipped (`#` then `###`) keeps a 0
/// in its place, which the numbering check reports.
fn markdown_heading(src: &str, line: &Line, outline: &mut Vec<u32>) -> Option<HeadingHit> {
    let raw = line.text(src);
    let lead = raw.len() - raw.trim_start().len();
    if lead > 3 {
        return None; // indented four or more: code, not a heading
    }
    let t = &raw[lead..];
    let level = t.bytes().take_while(|b| *b == b'#').count();
    if level == 0 || level > 6 || !t[level..].starts_with([' ', '\t']) {
        return None;
    }
    let title = t[level..].trim().trim_end_matches('#').trim().to_string();
    if title.is_empty() {
        return None;
    }
    Some(unnumbered_heading(outline, level, title, line, lead))
}

/// A heading without a number at `level` (from 1): its path counts the headings seen
/// at each level under the current parents (`outline`, updated).
fn unnumbered_heading(
    outline: &mut Vec<u32>,
    level: usize,
    title: String,
    line: &Line,
    lead: usize,
) -> HeadingHit {
    outline.truncate(level);
    while outline.len() < level {
        outline.push(0);
    }
    outline[level - 1] += 1;
    HeadingHit {
        part: None,
        path: outline.clone(),
        range_end: None,
        written: title.clone(),
        title,
        start: line.start + lead,
        end: line.end,
        line: line.number,
    }
}

/// Words of a heading candidate: at most eight, the line not ending in sentence
/// punctuation, not a bullet, table row or number.
fn titled_words<'s>(src: &'s str, line: &Line) -> Option<Vec<&'s str>> {
    let text = line.text(src).trim();
    if text.is_empty() || text.ends_with(['.', ',', ';', ':', '!', '?']) || text.chars().count() > 70 {
        return None;
    }
    if !line.toks.iter().all(|t| matches!(t.kind, Tok::Word | Tok::Dash | Tok::Quote | Tok::Other)) {
        return None;
    }
    if line.toks.first().map_or(true, |t| t.kind != Tok::Word) {
        return None;
    }
    let words: Vec<&str> =
        line.toks.iter().filter(|t| t.kind == Tok::Word).map(|t| tok_text(src, t)).collect();
    (1..=8).contains(&words.len()).then_some(words)
}

/// A heading's case: 1 for ALL CAPS, 2 for title case (every word of four letters or
/// more capitalised, the first word too), `None` for a sentence.
fn titled_case(words: &[&str]) -> Option<usize> {
    if words.iter().all(|w| is_all_caps_word(w)) && words.iter().any(|w| w.chars().count() > 1) {
        return Some(1);
    }
    let first_upper = words.first().is_some_and(|w| is_upper_start(w));
    let long_upper = words.iter().filter(|w| w.chars().count() >= 4).all(|w| is_upper_start(w));
    (first_upper && long_upper).then_some(2)
}

/// Text follows a heading candidate: on the next line, or after one blank line.
fn text_follows(lines: &[Line], i: usize) -> bool {
    match lines.get(i + 1) {
        Some(n) if !n.is_blank() => true,
        Some(_) => lines.get(i + 2).is_some_and(|n| !n.is_blank()),
        None => false,
    }
}

/// Whether the text uses both cases of heading (then ALL CAPS is the upper level).
fn titled_levels(src: &str, lines: &[Line]) -> (bool, bool) {
    let mut caps = false;
    let mut title = false;
    for (i, l) in lines.iter().enumerate() {
        let prev_blank = i == 0 || lines[i - 1].is_blank();
        if !(prev_blank && text_follows(lines, i)) {
            continue;
        }
        match titled_words(src, l).as_deref().and_then(titled_case) {
            Some(1) => caps = true,
            Some(_) => title = true,
            None => {}
        }
    }
    (caps, title)
}

/// A plain titled section heading (see [`Marker::Titled`]).
fn titled_heading(
    src: &str,
    line: &Line,
    outline: &mut Vec<u32>,
    levels: (bool, bool),
) -> Option<HeadingHit> {
    let words = titled_words(src, line)?;
    let case = titled_case(&words)?;
    let level = if levels.0 && levels.1 { case } else { 1 };
    let raw = line.text(src);
    let lead = raw.len() - raw.trim_start().len();
    Some(unnumbered_heading(outline, level, raw.trim().to_string(), line, lead))
}

/// A line wholly in brackets starting with a word (`[Editor's note: ...]`,
/// `[Diagram omitted]`): editorial, neither rules nor headings.
fn is_editorial(src: &str, line: &Line) -> bool {
    let first = line.toks.first();
    let second = line.toks.get(1);
    matches!(first, Some(t) if t.kind == Tok::LBracket)
        && matches!(second, Some(t) if t.kind == Tok::Word)
        && line.text(src).trim_end().ends_with(']')
}

pub(crate) fn is_upper_start(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c.is_uppercase())
}

fn is_all_caps_word(s: &str) -> bool {
    let letters: Vec<char> = s.chars().filter(|c| c.is_alphabetic()).collect();
    !letters.is_empty() && letters.iter().all(|c| c.is_uppercase())
}

/// Lines that belong to a table of contents: after a "Contents" line, bullet or
/// part entries until the first other line or the first repeated entry; and any
/// line with two or more dot leaders.
fn find_toc_lines(src: &str, lines: &[Line], style: &Style) -> (Vec<bool>, Vec<TocBlock>) {
    let mut out = vec![false; lines.len()];
    let mut blocks: Vec<TocBlock> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = &lines[i];
        let leaders = line.toks.iter().filter(|t| t.kind == Tok::Leader).count();
        if leaders >= 2 {
            out[i] = true;
            if let Some(b) = blocks.last_mut().filter(|b| b.line + b.entries + 1 >= i) {
                b.entries += 1;
            }
        }
        if is_contents_title(line.text(src)) {
            out[i] = true;
            let new_block = |l: &Line, repeated: bool| TocBlock {
                start: l.start,
                end: l.end,
                line: l.number,
                entries: 0,
                part_entries: 0,
                repeated,
            };
            blocks.push(new_block(line, false));
            let mut seen: Vec<String> = Vec::new();
            let mut j = i + 1;
            while j < lines.len() {
                let l = &lines[j];
                let t = l.text(src).trim().to_string();
                if l.is_blank() {
                    out[j] = true;
                    j += 1;
                    continue;
                }
                if is_contents_title(&t) {
                    out[j] = true;
                    let repeated = blocks.last().is_some_and(|b| b.entries == 0);
                    blocks.push(new_block(l, repeated));
                    j += 1;
                    continue;
                }
                let bullet = matches!(l.toks.first(), Some(tk) if tk.kind == Tok::Dash);
                let part_line = style.parts.iter().any(|p| t.starts_with(p.line_marker.as_str()));
                if (bullet || part_line) && !seen.contains(&t) {
                    seen.push(t);
                    out[j] = true;
                    if let Some(b) = blocks.last_mut() {
                        b.entries += 1;
                        if part_line && !bullet {
                            b.part_entries += 1;
                        }
                    }
                    j += 1;
                } else {
                    break;
                }
            }
            i = j;
            continue;
        }
        i += 1;
    }
    (out, blocks)
}

fn is_contents_title(text: &str) -> bool {
    let t = text.trim().to_lowercase();
    t == "table of contents" || t == "contents"
}

/// Parse the entries of one table-of-contents line.
fn scan_toc_line(src: &str, line: &Line, style: &Style, toc: &mut Vec<TocHit>) {
    let toks = &line.toks;
    let mut i = 0;
    // A bullet entry: `- 7.0 Combat`, `- Rule 5: Title`.
    if matches!(toks.first(), Some(t) if t.kind == Tok::Dash) {
        i = 1;
    }
    while i < toks.len() {
        while matches!(toks.get(i), Some(t) if t.kind == Tok::Chevrons) {
            i += 1;
        }
        let Some((path, written, next)) = number_at(src, toks, i, style) else {
            i += 1;
            continue;
        };
        let start = toks[i].start;
        let mut j = next;
        // Optional range end (`7.2-7.6`).
        let mut written = written;
        if style.range_headings
            && matches!(toks.get(j), Some(t) if t.kind == Tok::Dash)
            && number_at(src, toks, j + 1, style).is_some()
        {
            if let Some((_, w2, n2)) = number_at(src, toks, j + 1, style) {
                written = format!("{written}-{w2}");
                j = n2;
            }
        }
        if matches!(toks.get(j), Some(t) if t.kind == Tok::Colon) {
            j += 1;
        }
        let title_start = j;
        while j < toks.len() {
            let t = &toks[j];
            if t.kind == Tok::Leader {
                break;
            }
            if t.kind == Tok::Number && !tok_text(src, t).contains('.') {
                break; // a page number
            }
            j += 1;
        }
        let title = span_text(src, toks, title_start, j).trim_end_matches(['.', ' ']).to_string();
        let end = toks.get(j.saturating_sub(1)).map(|t| t.end).unwrap_or(line.end);
        toc.push(TocHit { path, written, title, start, end: end.max(start), line: line.number });
        // Skip leaders and the page number.
        while matches!(toks.get(j), Some(t) if t.kind == Tok::Leader) {
            j += 1;
        }
        if matches!(toks.get(j), Some(t) if t.kind == Tok::Number && !tok_text(src, t).contains('.')) {
            j += 1;
        }
        i = j.max(i + 1);
    }
}

/// The source text from token `a` to the end of token `b - 1`.
pub(crate) fn span_text<'a>(src: &'a str, toks: &[Token], a: usize, b: usize) -> &'a str {
    if a >= b || a >= toks.len() {
        return "";
    }
    let start = toks[a].start;
    let end = toks.get(b - 1).map(|t| t.end).unwrap_or(start);
    src.get(start..end.max(start)).unwrap_or("").trim()
}

/// A paragraph number of the style at token `i`: (path, as written, next token).
pub(crate) fn number_at(src: &str, toks: &[Token], i: usize, style: &Style) -> Option<(Path, String, usize)> {
    let t = toks.get(i)?;
    match &style.marker {
        Marker::Decimal => {
            if t.kind != Tok::Number && t.kind != Tok::SpacedNumber {
                return None;
            }
            let w = number_text(src, t);
            parse_decimal(style, &w).map(|p| (p, w, i + 1))
        }
        Marker::Keyword(k) => {
            if t.kind != Tok::Word || tok_text(src, t) != k.as_str() {
                return None;
            }
            let n = toks.get(i + 1)?;
            if n.kind != Tok::Number {
                return None;
            }
            let v = flat_number(tok_text(src, n))?;
            Some((vec![v], format!("{k} {v}"), i + 2))
        }
        Marker::Markdown | Marker::Titled => None,
        Marker::Bracketed => {
            if t.kind != Tok::Bracketed {
                return None;
            }
            let w = tok_text(src, t);
            let v = flat_number(w.trim_start_matches('[').trim_end_matches(".]"))?;
            Some((vec![v], format!("[{v}.]"), i + 1))
        }
    }
}

pub(crate) fn flat_number(s: &str) -> Option<u32> {
    if s.contains('.') || (s.len() > 1 && s.starts_with('0')) {
        return None;
    }
    s.parse::<u32>().ok().filter(|v| *v >= 1 && *v <= 9999)
}

/// A heading at the start of a line; returns it and the number of tokens its
/// marker uses (so the reference scan skips them).
fn heading_at_line_start(
    src: &str,
    line: &Line,
    style: &Style,
    part: Option<usize>,
    section_title: &str,
) -> Option<(HeadingHit, usize)> {
    let toks = &line.toks;
    let mut i = 0;
    while matches!(toks.get(i), Some(t) if t.kind == Tok::Chevrons) {
        i += 1;
    }
    heading_at(src, line, style, part, section_title, i, true)
}

/// A heading whose number is token `i` of the line.
fn heading_at(
    src: &str,
    line: &Line,
    style: &Style,
    part: Option<usize>,
    section_title: &str,
    i: usize,
    at_line_start: bool,
) -> Option<(HeadingHit, usize)> {
    let toks = &line.toks;
    let (path, mut written, mut j) = number_at(src, toks, i, style)?;
    let start = toks.get(i)?.start;
    let mut range_end = None;
    if style.range_headings && matches!(toks.get(j), Some(t) if t.kind == Tok::Dash) {
        if let Some((p2, w2, n2)) = number_at(src, toks, j + 1, style) {
            if p2.len() == path.len() && p2 > path {
                written = format!("{written}-{w2}");
                range_end = Some(p2);
                j = n2;
            }
        }
    }
    let title = match &style.title {
        TitleRule::Line { max_words } => {
            if !at_line_start {
                return None;
            }
            if !title_starts(src, toks, j) {
                return None;
            }
            let last = toks.last()?;
            if matches!(last.kind, Tok::Period | Tok::Comma | Tok::Colon | Tok::Semicolon) {
                return None;
            }
            if toks[j..].iter().any(|t| t.kind == Tok::Leader) {
                return None;
            }
            let words = toks[j..].iter().filter(|t| t.kind == Tok::Word).count();
            if words > *max_words {
                return None;
            }
            span_text(src, toks, j, toks.len()).to_string()
        }
        TitleRule::AfterColon => {
            if !at_line_start || i != 0 {
                return None;
            }
            if !matches!(toks.get(j), Some(t) if t.kind == Tok::Colon) {
                return None;
            }
            let title = span_text(src, toks, j + 1, toks.len()).to_string();
            if title.is_empty() {
                return None;
            }
            title
        }
        TitleRule::SectionLine => {
            if !at_line_start || i != 0 {
                return None;
            }
            section_title.to_string()
        }
        TitleRule::Inline { upper_title_max_depth } => {
            let mut k = j;
            if matches!(toks.get(k), Some(t) if t.kind == Tok::Quote) {
                k += 1;
            }
            let first = toks.get(k)?;
            // A case at the start of a line may begin in lower case (`1.114 the
            // symbol ...`); in mid-line only a capital marks a new case.
            let lower_ok = at_line_start && path.len() > *upper_title_max_depth;
            if first.kind != Tok::Word || !(is_upper_start(tok_text(src, first)) || lower_ok) {
                return None;
            }
            let upper = upper_run(src, toks, j);
            if path.len() <= *upper_title_max_depth && upper.is_empty() {
                return None;
            }
            if !upper.is_empty() {
                upper
            } else {
                short_phrase(src, toks, j)
            }
        }
    };
    let end = toks.last().map(|t| t.end).unwrap_or(line.end);
    let end = match style.title {
        TitleRule::Inline { .. } => toks.get(j.saturating_sub(1)).map(|t| t.end).unwrap_or(end),
        _ => end,
    };
    Some((
        HeadingHit { part, path, range_end, written, title, start, end: end.max(start), line: line.number },
        j,
    ))
}

/// A title starts with a capitalised word (`Combat`), or with an ordinal glued to
/// its suffix (`2nd Beta`, `1st Turn`) or a number (`10 Minute Turns`) followed by a
/// capitalised word, so a heading whose title opens with a digit is a heading.
fn title_starts(src: &str, toks: &[Token], j: usize) -> bool {
    let Some(first) = toks.get(j) else { return false };
    match first.kind {
        Tok::Word => is_upper_start(tok_text(src, first)),
        Tok::Number if !tok_text(src, first).contains('.') => {
            let mut k = j + 1;
            if let Some(suffix) = toks.get(k) {
                let glued = suffix.start == first.end && suffix.kind == Tok::Word;
                if glued {
                    if !matches!(tok_text(src, suffix), "st" | "nd" | "rd" | "th") {
                        return false;
                    }
                    k += 1;
                }
            }
            matches!(toks.get(k), Some(t) if t.kind == Tok::Word && is_upper_start(tok_text(src, t)))
        }
        _ => false,
    }
}

/// A leading run of capitalised words (`THE PEACE INDEX CAMPAIGN RULE`).
fn upper_run(src: &str, toks: &[Token], j: usize) -> String {
    let mut k = j;
    let mut last_word = None;
    while let Some(t) = toks.get(k) {
        let s = tok_text(src, t);
        let ok = match t.kind {
            Tok::Word => is_all_caps_word(s) && !(s.chars().count() == 1 && k == j && s == "A"),
            Tok::Other => s == "&",
            Tok::Dash => true,
            _ => false,
        };
        if !ok {
            break;
        }
        if t.kind == Tok::Word {
            last_word = Some(k);
        }
        k += 1;
    }
    match last_word {
        Some(lw) => {
            let words = toks[j..=lw]
                .iter()
                .filter(|t| t.kind == Tok::Word && tok_text(src, t).chars().count() > 1)
                .count();
            if words == 0 {
                String::new()
            } else {
                span_text(src, toks, j, lw + 1).to_string()
            }
        }
        None => String::new(),
    }
}

/// A short phrase closed by a full stop (`General.`), at most six words.
fn short_phrase(src: &str, toks: &[Token], j: usize) -> String {
    let mut k = j;
    while let Some(t) = toks.get(k) {
        match t.kind {
            Tok::Word | Tok::Dash | Tok::Other => k += 1,
            Tok::Period => {
                let words = toks[j..k].iter().filter(|t| t.kind == Tok::Word).count();
                if (1..=6).contains(&words) {
                    return span_text(src, toks, j, k).to_string();
                }
                return String::new();
            }
            _ => return String::new(),
        }
    }
    String::new()
}

/// Headings that start in the middle of a line, after a sentence ends (two-column
/// extraction runs several cases into one line).
fn mid_line_headings(
    src: &str,
    line: &Line,
    style: &Style,
    part: Option<usize>,
    skip_upto: usize,
) -> Vec<(HeadingHit, usize)> {
    let toks = &line.toks;
    let mut out = Vec::new();
    let mut i = skip_upto.max(1);
    while i < toks.len() {
        let prev = &toks[i - 1];
        let boundary = match prev.kind {
            Tok::Period | Tok::Stop | Tok::Chevrons | Tok::Bullet => true,
            Tok::Quote => tok_text(src, prev) == "”",
            // After a heading's scope tag in capitals (`CAMPAIGN RULE ONLY 4.51 General.`),
            // when the number is followed by a short title closed by a full stop.
            Tok::Word => {
                let w = tok_text(src, prev);
                w.chars().filter(|c| c.is_alphabetic()).count() >= 2
                    && is_all_caps_word(w)
                    && !short_phrase(src, toks, i + 1).is_empty()
                    && upper_run(src, toks, i + 1).is_empty()
            }
            _ => false,
        };
        if boundary && toks[i].kind == Tok::Number {
            // `see 4.345.` is a reference ending a sentence, not a heading.
            if let Some((h, used)) = heading_at(src, line, style, part, "", i, false) {
                out.push((h, used));
                i = used.max(i + 1);
                continue;
            }
        }
        i += 1;
    }
    out
}

/// `A.` at the start of a line, followed by text.
fn item_at_line_start(src: &str, line: &Line) -> Option<ItemHit> {
    let toks = &line.toks;
    let first = toks.first()?;
    let dot = toks.get(1)?;
    toks.get(2)?;
    let s = tok_text(src, first);
    let mut chars = s.chars();
    let c = chars.next()?;
    if first.kind != Tok::Word
        || chars.next().is_some()
        || !c.is_ascii_uppercase()
        || dot.kind != Tok::Period
        || dot.start != first.end
    {
        return None;
    }
    Some(ItemHit { letter: c, start: first.start, end: dot.end, line: line.number })
}

/// A short unnumbered line that heads a group of paragraphs (bracketed styles).
fn is_section_line(src: &str, line: &Line) -> bool {
    let toks = &line.toks;
    let Some(first) = toks.first() else {
        return false;
    };
    let ft = tok_text(src, first);
    let code = ft.chars().count() == 1 && matches!(toks.get(1), Some(t) if t.kind == Tok::Period);
    if first.kind != Tok::Word || !(is_upper_start(ft) || code) {
        return false;
    }
    let words = toks.iter().filter(|t| t.kind == Tok::Word).count();
    let last = toks.last().map(|t| t.kind);
    words <= 10 && !matches!(last, Some(Tok::Period | Tok::Comma | Tok::Semicolon | Tok::Colon))
}
