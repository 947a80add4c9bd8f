//! A second numbering scheme inside one text: sequence-of-play codes (`I.a.2`,
//! `III.b.12`). Many rulebooks number their sections by the step of the sequence of
//! play they belong to, beside (or instead of) the paragraph numbers. The outline is
//! read from the text itself: phase lines (`II. MOVEMENT PHASE`, Roman numerals in
//! order), segment lines under them (`b. Movement Commands`) and, where a segment's
//! paragraph lists its steps one per line, those steps (numbered from 1).
//!
//! Checks, only when such an outline is found:
//! - T0401: a code (a heading or a reference) names a phase or segment the outline
//!   does not have;
//! - T0402: a code names a step beyond the steps its segment lists;
//! - T0403: a heading's code names a step that shares no word with the heading's title
//!   while another step of the same segment shares at least half of them ("did you
//!   mean").

use super::{title_words, Sink};
use std::collections::BTreeSet;

/// One segment of the outline: its phase (1-based), letter, title and steps.
#[derive(Debug, Clone)]
struct Segment {
    phase: u32,
    letter: char,
    steps: Vec<String>,
}

/// A code found in the text.
struct Code {
    phase: u32,
    letter: char,
    step: Option<u32>,
    written: String,
    start: usize,
    end: usize,
    /// The heading's title, for a code that opens a heading line.
    title: Option<String>,
}

const ROMANS: &[&str] = &["I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X"];

fn roman(s: &str) -> Option<u32> {
    ROMANS.iter().position(|r| *r == s).map(|i| i as u32 + 1)
}

fn is_caps_title(s: &str) -> bool {
    let letters: Vec<char> = s.chars().filter(|c| c.is_alphabetic()).collect();
    letters.len() >= 3 && letters.iter().all(|c| c.is_uppercase())
}

/// `II. MOVEMENT PHASE` → 2.
fn phase_line(t: &str) -> Option<u32> {
    let (num, rest) = t.split_once(". ")?;
    let n = roman(num)?;
    is_caps_title(rest).then_some(n)
}

/// `b. Movement Commands` → 'b' (also the items of `a. X. b. Y.` on one line).
fn segment_letters(t: &str) -> Vec<char> {
    let b = t.as_bytes();
    if b.len() < 4 || !b[0].is_ascii_lowercase() || b[1] != b'.' || b[2] != b' ' || !b[3].is_ascii_uppercase()
    {
        return Vec::new();
    }
    let mut out = vec![b[0] as char];
    // Further items on the same line: ` b. Capital`.
    let mut expect = b[0] + 1;
    let mut i = 3;
    while i + 3 < b.len() {
        if b[i] == b' ' && b[i + 1] == expect && b[i + 2] == b'.' && b[i + 3] == b' ' {
            out.push(expect as char);
            expect += 1;
        }
        i += 1;
    }
    out
}

/// The outline: segments in text order. Empty unless at least two phases in order,
/// each with a segment, are found.
fn outline(src: &str) -> Vec<Segment> {
    let lines: Vec<&str> = src.lines().collect();
    let mut segs: Vec<Segment> = Vec::new();
    let mut phase = 0u32;
    let mut i = 0;
    while i < lines.len() {
        let t = lines[i].trim();
        if let Some(n) = phase_line(t) {
            if n != phase + 1 {
                if phase >= 2 {
                    break; // the outline is over: a later section reuses a numeral
                }
                if n != 1 {
                    i += 1;
                    continue;
                }
                segs.clear();
            }
            phase = n;
            i += 1;
            continue;
        }
        if phase > 0 {
            let letters = segment_letters(t);
            if letters.len() == 1 && t.len() <= 80 {
                let steps = steps_after(&lines, i + 1);
                segs.push(Segment { phase, letter: letters[0], steps });
            } else if letters.len() > 1 {
                for l in letters {
                    segs.push(Segment { phase, letter: l, steps: Vec::new() });
                }
            }
        }
        i += 1;
    }
    let phases: BTreeSet<u32> = segs.iter().map(|s| s.phase).collect();
    if phases.len() < 2 {
        return Vec::new();
    }
    segs
}

/// The steps a segment's paragraph lists one per line: after the segment line, the
/// paragraph's first line, then (after at most one blank line) a run of at least two
/// consecutive short lines, ending at a blank line or the next segment or phase.
fn steps_after(lines: &[&str], from: usize) -> Vec<String> {
    let mut i = from;
    while i < lines.len() && lines[i].trim().is_empty() {
        i += 1;
    }
    // The paragraph's first line (`[45.] The First Player may move ...`, `3.2 ...`),
    // if the segment opens with a numbered paragraph; else the steps start at once.
    let numbered = |t: &str| t.starts_with('[') || t.starts_with(|c: char| c.is_ascii_digit());
    if i < lines.len() && numbered(lines[i].trim_start()) {
        i += 1;
        if i < lines.len() && lines[i].trim().is_empty() {
            i += 1;
        }
    }
    let mut run = Vec::new();
    while i < lines.len() {
        let t = lines[i].trim();
        if t.is_empty() || phase_line(t).is_some() || !segment_letters(t).is_empty() || numbered(t) {
            break;
        }
        if t.len() > 400 {
            return Vec::new();
        }
        run.push(t.to_string());
        i += 1;
    }
    if run.len() >= 2 {
        run
    } else {
        Vec::new()
    }
}

/// `III.b.12` at byte `at` of `s`: (phase, letter, step, length). `glued` allows the
/// Roman numeral and the letter without a dot between (`IIc`) for numerals of two or
/// more letters.
fn code_at(s: &str, at: usize) -> Option<(u32, char, Option<u32>, usize)> {
    let b = s.as_bytes();
    let mut i = at;
    while i < b.len() && matches!(b[i], b'I' | b'V' | b'X') {
        i += 1;
    }
    let numeral = s.get(at..i)?;
    let phase = roman(numeral)?;
    let dotted = b.get(i) == Some(&b'.');
    if dotted {
        i += 1;
    } else if numeral.len() < 2 {
        return None;
    }
    let letter = *b.get(i)?;
    if !letter.is_ascii_lowercase() {
        return None;
    }
    i += 1;
    // The letter stands alone: not the start of a word (`If`, `I.e`).
    if b.get(i).is_some_and(|c| c.is_ascii_alphabetic()) {
        return None;
    }
    let mut step = None;
    if b.get(i) == Some(&b'.') && b.get(i + 1).is_some_and(|c| c.is_ascii_digit()) {
        let mut j = i + 1;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        step = s.get(i + 1..j).and_then(|d| d.parse().ok());
        i = j;
    }
    if !dotted && step.is_none() && b.get(i) != Some(&b'.') {
        return None; // `IIc` must be followed by a dot to be a code
    }
    Some((phase, letter as char, step, i - at))
}

fn codes(src: &str) -> Vec<Code> {
    let mut out = Vec::new();
    let mut offset = 0;
    for line in src.split_inclusive('\n') {
        let text = line.trim_end_matches(['\n', '\r']);
        let lead = text.len() - text.trim_start().len();
        // A heading: the code opens the line, a title follows.
        if let Some((phase, letter, step, len)) = code_at(text, lead) {
            let rest = text[lead + len..].trim_start_matches('.').trim();
            if rest.chars().next().is_some_and(|c| c.is_uppercase()) && rest.len() <= 100 {
                out.push(Code {
                    phase,
                    letter,
                    step,
                    written: text[lead..lead + len].to_string(),
                    start: offset + lead,
                    end: offset + lead + len,
                    title: Some(rest.to_string()),
                });
                offset += line.len();
                continue;
            }
        }
        // References in prose: after a space or an opening parenthesis.
        let b = text.as_bytes();
        for k in 1..b.len() {
            if !matches!(b[k - 1], b' ' | b'(') || !matches!(b[k], b'I' | b'V' | b'X') {
                continue;
            }
            if let Some((phase, letter, step, len)) = code_at(text, k) {
                out.push(Code {
                    phase,
                    letter,
                    step,
                    written: text[k..k + len].to_string(),
                    start: offset + k,
                    end: offset + k + len,
                    title: None,
                });
            }
        }
        offset += line.len();
    }
    out
}

pub(crate) fn check(sink: &mut Sink) {
    let segs = outline(sink.src);
    if segs.is_empty() {
        return;
    }
    let name = |p: u32, l: char| format!("{}.{l}", ROMANS[(p - 1) as usize]);
    for c in codes(sink.src) {
        let Some(seg) = segs.iter().find(|s| s.phase == c.phase && s.letter == c.letter) else {
            let phases: BTreeSet<u32> = segs.iter().map(|s| s.phase).collect();
            let what = if phases.contains(&c.phase) {
                let have: Vec<String> =
                    segs.iter().filter(|s| s.phase == c.phase).map(|s| s.letter.to_string()).collect();
                format!("phase {} has segments {}", ROMANS[(c.phase - 1) as usize], have.join(", "))
            } else {
                format!("the sequence of play has phases I to {}", ROMANS[(phases.len() - 1).min(9)])
            };
            sink.push_with_notes(
                "T0401",
                c.start,
                c.end,
                format!("sequence-of-play code {} names no segment of the sequence of play", c.written),
                vec![what],
            );
            continue;
        };
        let Some(step) = c.step else { continue };
        if seg.steps.is_empty() {
            continue; // the segment's steps are not listed: nothing to check against
        }
        if step == 0 || step as usize > seg.steps.len() {
            sink.push_with_notes(
                "T0402",
                c.start,
                c.end,
                format!(
                    "sequence-of-play code {} names step {step}, but {} lists {} steps",
                    c.written,
                    name(seg.phase, seg.letter),
                    seg.steps.len()
                ),
                Vec::new(),
            );
            continue;
        }
        let Some(title) = &c.title else { continue };
        let tw: BTreeSet<String> = title_words(title).into_iter().collect();
        if tw.is_empty() {
            continue;
        }
        let shared = |s: &str| -> usize {
            let w: BTreeSet<String> = title_words(s).into_iter().collect();
            tw.intersection(&w).count()
        };
        if shared(&seg.steps[step as usize - 1]) > 0 {
            continue;
        }
        let best = (0..seg.steps.len())
            .filter(|&k| k + 1 != step as usize)
            .map(|k| (shared(&seg.steps[k]), k))
            .max_by_key(|&(n, k)| (n, std::cmp::Reverse(k)));
        if let Some((n, k)) = best {
            if n > 0 && 2 * n >= tw.len() {
                sink.push_with_notes(
                    "T0403",
                    c.start,
                    c.end,
                    format!(
                        "section {} \"{title}\" is not about step {step} of {}; step {} is",
                        c.written,
                        name(seg.phase, seg.letter),
                        k + 1
                    ),
                    vec![
                        format!("step {step}: {}", seg.steps[step as usize - 1]),
                        format!(
                            "did you mean {}.{}? step {}: {}",
                            name(seg.phase, seg.letter),
                            k + 1,
                            k + 1,
                            seg.steps[k]
                        ),
                    ],
                );
            }
        }
    }
}
