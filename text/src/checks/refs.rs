//! Cross-reference checks: a reference to a paragraph (or item) that the text
//! does not have, within the right part; and a reference whose stated topic
//! matches neither the target's title nor its text.

use std::collections::{BTreeMap, BTreeSet};

use super::{title_words, Sink};
use crate::index::Paragraph;
use crate::number::format_path;

/// `subjects`: also compare each reference's sentence with its target (T0105).
pub(crate) fn check(sink: &mut Sink, subjects: bool) {
    let refs = sink.index.refs.clone();
    let style = sink.index.style.clone();
    // A text that prefixes references to other books (`KR&Os 9.2`) makes a bare
    // number its own: a bare reference to material printed elsewhere breaks that.
    let prefixes_other_books = !style.external_markers.is_empty();
    let mut words = About::default();
    for r in &refs {
        if r.placeholder {
            sink.push_with_notes(
                "T0103",
                r.start,
                r.end,
                format!("reference {} is a placeholder, not a paragraph number", r.written),
                vec!["the number was never filled in".into()],
            );
            continue;
        }
        let part_name =
            r.part.and_then(|p| style.parts.get(p)).map(|p| format!("{} ", p.name)).unwrap_or_default();
        // Below a range heading (`7.2-7.6`, a pointer to material printed
        // elsewhere) the text cannot say what exists.
        let range = (1..=r.path.len())
            .filter_map(|k| sink.index.find(r.part, &r.path[..k], None))
            .find(|p| p.range_end.is_some())
            .cloned();
        if let Some(range) = range {
            // The range's own numbers (`7.4` of `7.2-7.6`) are named by this text's
            // range heading; what lies below them is printed elsewhere.
            let member_of_range = r.path.len() == range.path.len();
            if prefixes_other_books && !member_of_range {
                sink.push_with_notes(
                    "T0104",
                    r.start,
                    r.end,
                    format!(
                        "reference to {} is to material printed elsewhere ({} {}), written without the other book's name",
                        r.written, range.number, range.title
                    ),
                    vec!["this text names other books next to their numbers (KR&Os 9.2), so a bare number reads as its own".into()],
                );
            }
            continue;
        }
        let Some(target) = sink.index.find(r.part, &r.path, None).cloned() else {
            sink.push(
                "T0101",
                r.start,
                r.end,
                format!(
                    "reference to {part_name}{} but the text has no such paragraph",
                    format_path(&style, &r.path)
                ),
            );
            continue;
        };
        if let Some(letter) = r.item {
            if sink.index.find(r.part, &r.path, Some(letter)).is_none() {
                sink.push(
                    "T0101",
                    r.start,
                    r.end,
                    format!(
                        "reference to {part_name}{} item {letter} but {} has no item {letter}",
                        format_path(&style, &r.path),
                        target.number
                    ),
                );
                continue;
            }
        }
        if subjects && r.topic.is_none() {
            subject(sink, &mut words, r, &target, &part_name);
        }
        if let Some(topic) = &r.topic {
            if !topic_matches(sink, &topic.text, &target) {
                sink.push_with_notes(
                    "T0102",
                    topic.start.min(r.start),
                    topic.end.max(r.end),
                    format!(
                        "reference names \"{}\" but {part_name}{} is titled \"{}\"",
                        topic.text, target.number, target.title
                    ),
                    vec!["neither the title nor the paragraph's text has these words".into()],
                );
            }
        }
    }
}

/// A topic matches when its words are in the target's title (or an ancestor's),
/// when the title's words are all in the topic, or when the target's own text
/// uses all of the topic's words.
fn topic_matches(sink: &Sink, topic: &str, target: &Paragraph) -> bool {
    let t: BTreeSet<String> = title_words(topic).into_iter().collect();
    if t.is_empty() {
        return true;
    }
    let mut titles: BTreeSet<String> = title_words(&target.title).into_iter().collect();
    let own: BTreeSet<String> = titles.clone();
    if !own.is_empty() && own.is_subset(&t) {
        return true;
    }
    // Ancestors' titles.
    let path = &target.path;
    for k in 1..path.len() {
        if let Some(a) = sink.index.find(target.part_index, &path[..k], None) {
            titles.extend(title_words(&a.title));
        }
    }
    if t.is_subset(&titles) {
        return true;
    }
    let body = sink.src.get(target.start..target.end).unwrap_or("");
    let mut words: BTreeSet<String> = title_words(body).into_iter().collect();
    if t.is_subset(&words) {
        return true;
    }
    // A topic defined in one of the target's children (its sub-paragraphs and
    // items) is the target's topic too: add their titles and texts.
    for p in &sink.index.paragraphs {
        let below = p.part_index == target.part_index
            && p.path.len() >= path.len()
            && p.path[..path.len()] == path[..]
            && (p.path.len() > path.len() || (target.letter.is_none() && p.letter.is_some()));
        if below {
            words.extend(title_words(&p.title));
            words.extend(title_words(sink.src.get(p.start..p.end).unwrap_or("")));
        }
    }
    t.is_subset(&words)
}

/// Words too common in rulebooks to say what a sentence is about, and the words
/// a sentence uses to point at a reference rather than at a subject.
const GENERIC: &[&str] = &[
    "see",
    "this",
    "that",
    "these",
    "those",
    "it",
    "its",
    "is",
    "are",
    "be",
    "been",
    "was",
    "were",
    "may",
    "must",
    "can",
    "cannot",
    "not",
    "no",
    "any",
    "all",
    "each",
    "every",
    "other",
    "which",
    "who",
    "when",
    "if",
    "then",
    "than",
    "as",
    "or",
    "but",
    "also",
    "only",
    "such",
    "same",
    "there",
    "their",
    "they",
    "he",
    "his",
    "him",
    "she",
    "her",
    "one",
    "two",
    "three",
    "four",
    "per",
    "under",
    "above",
    "below",
    "except",
    "exception",
    "case",
    "section",
    "paragraph",
    "player",
    "game",
    "unit",
    "use",
    "used",
    "applies",
    "apply",
    "from",
    "into",
    "do",
    "does",
    "has",
    "have",
    "had",
    "more",
    "less",
    "note",
    "example",
    "following",
    "given",
    "so",
    "would",
    "will",
    "should",
    "some",
    "most",
    "because",
    "what",
    "where",
    "how",
    "while",
    "after",
    "before",
    "further",
    "explanation",
    "explained",
    "described",
    "detail",
    "details",
    "follow",
    "follows",
    "procedure",
    "step",
    "steps",
    "outlined",
    "listed",
    "according",
    "immediately",
    "normal",
    "normally",
    "usual",
    "way",
];

/// A word cut to its stem for comparison: `stacking`, `stacked`, `stacks` →
/// `stack`; `freely` → `free`.
fn stem_word(w: &str) -> String {
    for suffix in ["ingly", "ing", "edly", "ed", "ly", "es", "s"] {
        if let Some(r) = w.strip_suffix(suffix) {
            if r.chars().count() >= 4 {
                return r.to_string();
            }
        }
    }
    w.to_string()
}

/// Content words of a stretch of text (title words without the generic ones), stemmed.
fn content_words(s: &str) -> BTreeSet<String> {
    title_words(s)
        .into_iter()
        .filter(|w| w.len() > 2 && !w.chars().all(|c| c.is_ascii_digit()) && !GENERIC.contains(&w.as_str()))
        .map(|w| stem_word(&w))
        .collect()
}

/// The sentence around a reference: back to the previous full stop followed by a
/// space (a decimal point is followed by a digit) or the line start, on to the next
/// one or the line end.
fn sentence_around(src: &str, start: usize, end: usize) -> &str {
    let line_start = src[..start].rfind(['\n', '\r']).map(|i| i + 1).unwrap_or(0);
    let line_end = src[end..].find(['\n', '\r']).map(|i| end + i).unwrap_or(src.len());
    let bytes = src.as_bytes();
    let is_stop = |i: usize| {
        (bytes[i] == b'.' || bytes[i] == b'!' || bytes[i] == b'?')
            && bytes.get(i + 1).map_or(true, |c| c.is_ascii_whitespace())
    };
    let mut a = start;
    while a > line_start && !is_stop(a - 1) {
        a -= 1;
    }
    let mut b = end;
    while b < line_end && !is_stop(b) {
        b += 1;
    }
    src.get(a..b).unwrap_or("")
}

/// What each paragraph is about, computed once per paragraph (keyed by where its
/// heading starts): the check asks for the same targets and siblings many times.
#[derive(Default)]
struct About {
    own: Vec<BTreeSet<String>>,
    done: BTreeMap<usize, BTreeSet<String>>,
}

impl About {
    fn of(&mut self, sink: &Sink, target: &Paragraph) -> &BTreeSet<String> {
        if self.own.is_empty() {
            self.own = sink
                .index
                .paragraphs
                .iter()
                .map(|p| {
                    let mut w = content_words(&p.title);
                    w.extend(content_words(sink.src.get(p.start..p.end).unwrap_or("")));
                    w
                })
                .collect();
        }
        let own = &self.own;
        self.done.entry(target.heading_start).or_insert_with(|| about(sink, own, target))
    }
}

/// The words a paragraph is about: its title and its ancestors', its text, and its
/// children's titles and texts (`own` holds each paragraph's title and text words).
fn about(sink: &Sink, own: &[BTreeSet<String>], target: &Paragraph) -> BTreeSet<String> {
    let path = &target.path;
    let mut words = content_words(&target.title);
    for k in 1..path.len() {
        if let Some(a) = sink.index.find(target.part_index, &path[..k], None) {
            words.extend(content_words(&a.title));
        }
    }
    for (i, p) in sink.index.paragraphs.iter().enumerate() {
        let within = p.part_index == target.part_index
            && p.path.len() >= path.len()
            && p.path[..path.len()] == path[..]
            && (target.letter.is_none() || p.letter == target.letter);
        if within {
            words.extend(own[i].iter().cloned());
        }
    }
    words
}

/// A reference whose sentence (with the title of the paragraph it sits in) shares
/// no word of substance with the paragraph it cites (T0105). "Did you mean" names
/// the same number in another part, or a sibling or a number one slip away, that
/// shares at least two.
fn subject(sink: &mut Sink, memo: &mut About, r: &crate::scan::RefHit, target: &Paragraph, part_name: &str) {
    let src = sink.src;
    // The end of a range (`¶91-97`) says where a run stops, not what it is about.
    if src[..r.start].trim_end().ends_with(['-', '–', '—']) {
        return;
    }
    // A reference inside the paragraph it cites says nothing about a subject.
    let here = sink.index.paragraph_at(r.start).cloned();
    if here.as_ref().is_some_and(|h| h.part_index == target.part_index && h.path.starts_with(&target.path)) {
        return;
    }
    let sentence = sentence_around(src, r.start, r.end);
    let said = content_words(sentence);
    // Too little to judge by: a bare "see 7.2".
    if said.len() < 3 {
        return;
    }
    let mut own = said.clone();
    if let Some(h) = &here {
        own.extend(content_words(&h.title));
        for k in 1..h.path.len() {
            if let Some(a) = sink.index.find(h.part_index, &h.path[..k], None) {
                own.extend(content_words(&a.title));
            }
        }
    }
    // A list heading (`6.15 Political Events:`) with almost no text of its own:
    // its items may sit elsewhere in an extracted text, so it cannot be judged.
    let body = content_words(src.get(target.heading_end..target.end).unwrap_or(""));
    let line_end =
        src[target.heading_start..].find(['\n', '\r']).map_or(src.len(), |i| target.heading_start + i);
    let heading = src.get(target.heading_start..line_end).unwrap_or("");
    if body.len() < 5 && heading.trim_end().ends_with(':') {
        return;
    }
    let target_words = memo.of(sink, target);
    if target_words.len() < 3 || !own.is_disjoint(&target_words) {
        return;
    }
    let parts = &sink.index.style.parts;
    // The same number in another part.
    let mut best: Option<(usize, Paragraph)> = None;
    for (pi, part) in parts.iter().enumerate() {
        if Some(pi) == target.part_index {
            continue;
        }
        let Some(p) = sink.index.find(Some(pi), &target.path, target.letter).cloned() else { continue };
        let shared = own.intersection(memo.of(sink, &p)).count();
        if shared >= 2 {
            // The sentence names that part: the text is right, the reading of the
            // part was not (a part named earlier in the sentence).
            let lower = sentence.to_lowercase();
            if part.ref_names.iter().any(|n| lower.contains(&n.to_lowercase())) {
                return;
            }
            best = Some((usize::MAX, p));
        }
    }
    if best.is_none() {
        for p in sink.index.headings_only() {
            let is_here = here.as_ref().is_some_and(|h| h.part_index == p.part_index && h.path == p.path);
            if p.part_index != target.part_index
                || p.path == target.path
                || is_here
                || !near(&p.path, &target.path)
            {
                continue;
            }
            // It must share words with the sentence, its title among them.
            let shared = said.intersection(memo.of(sink, p)).count();
            let titled = !said.is_disjoint(&content_words(&p.title));
            if shared >= 3 && titled && best.as_ref().map_or(true, |(b, _)| shared > *b) {
                best = Some((shared, p.clone()));
            }
        }
    }
    let mut notes = vec![format!("\"{}\" shares no word of substance with it", short(sentence))];
    if let Some((_, p)) = &best {
        let pname =
            p.part_index.and_then(|i| parts.get(i)).map(|p| format!("{} ", p.name)).unwrap_or_default();
        notes.push(format!("did you mean {pname}{} \"{}\"?", p.number, p.title));
    }
    sink.push_with_notes(
        "T0105",
        r.start,
        r.end,
        format!("reference to {part_name}{} (\"{}\") is about something else", target.number, target.title),
        notes,
    );
}
/// Two numbers one slip apart: siblings (numbers of several groups differing in
/// the last), or one digit changed or two neighbours swapped.
fn near(a: &[u32], b: &[u32]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    if a.len() > 1 && a[..a.len() - 1] == b[..b.len() - 1] {
        return true;
    }
    let da: String = a.iter().map(|x| x.to_string()).collect();
    let db: String = b.iter().map(|x| x.to_string()).collect();
    let diffs: Vec<usize> =
        (0..da.len().min(db.len())).filter(|&i| da.as_bytes()[i] != db.as_bytes()[i]).collect();
    let (x, y) = (da.as_bytes(), db.as_bytes());
    let swapped = |d: &[usize]| d.len() == 2 && d[1] == d[0] + 1 && x[d[0]] == y[d[1]] && x[d[1]] == y[d[0]];
    da.len() == db.len() && (diffs.len() == 1 || swapped(&diffs))
}

fn short(s: &str) -> String {
    let s = s.trim();
    if s.chars().count() <= 90 {
        return s.to_string();
    }
    let cut: String = s.chars().take(87).collect();
    format!("{cut}...")
}
