//! Cross-reference checks: a reference to a paragraph (or item) that the text
//! does not have, within the right part; and a reference whose stated topic
//! matches neither the target's title nor its text.

use std::collections::BTreeSet;

use super::{title_words, Sink};
use crate::index::Paragraph;
use crate::number::format_path;

pub(crate) fn check(sink: &mut Sink) {
    let refs = sink.index.refs.clone();
    let style = sink.index.style.clone();
    // A text that prefixes references to other books (`KR&Os 9.2`) makes a bare
    // number its own: a bare reference to material printed elsewhere breaks that.
    let prefixes_other_books = !style.external_markers.is_empty();
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
