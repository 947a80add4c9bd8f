//! Style auto-detection: index the text under every built-in style and keep the
//! one whose headings form the most consistent numbering.

use crate::checks::check_numbering;
use crate::index::index;
use crate::style::{Marker, Style};

/// How well a style fits a text: headings found, less numbering and reference
/// faults (a wrong style finds fewer headings and breaks their sequence).
pub fn score(src: &str, style: &Style) -> i64 {
    let idx = index(src, style);
    let findings = check_numbering(src, &idx);
    let headings = idx.headings.len() as i64;
    let numbering =
        findings.iter().filter(|f| f.code.starts_with("T000") && f.code != "T0006").count() as i64;
    let dangling = findings.iter().filter(|f| f.code == "T0101").count() as i64;
    headings - 2 * numbering - dangling / 2
}

/// Most bytes of a text the detection indexes (under every style): a rulebook's
/// numbering shows long before this, and a huge text is then indexed once, not once per
/// style.
pub const DETECT_SAMPLE: usize = 2 << 20;

/// The built-in style that best fits the text (the first declared wins a tie), judged
/// on its first [`DETECT_SAMPLE`] bytes (cut at a line break). Plain titled sections
/// (short capitalised lines) occur in numbered texts too, so that style is the
/// fallback for a text where no other style finds a heading.
pub fn detect(src: &str) -> Style {
    let sample = sample(src);
    let mut best: Option<(i64, Style)> = None;
    let mut fallback = None;
    for style in Style::builtin() {
        if style.marker == Marker::Titled {
            fallback = Some(style);
            continue;
        }
        let s = score(sample, &style);
        let better = match &best {
            None => true,
            Some((b, _)) => s > *b,
        };
        if better {
            best = Some((s, style));
        }
    }
    let found = |s: &Style| !index(sample, s).headings.is_empty();
    match (best, fallback) {
        (Some((_, s)), Some(f)) if !found(&s) && found(&f) => f,
        (Some((_, s)), _) => s,
        (None, Some(f)) => f,
        (None, None) => Style::builtin().remove(0),
    }
}

/// The style named by `name`, or detected when `None`.
pub fn resolve(src: &str, name: Option<&str>) -> Result<Style, String> {
    match name {
        Some(n) => Style::by_name(n)
            .ok_or_else(|| format!("unknown numbering style `{n}` (known: {})", Style::names().join(", "))),
        None => Ok(detect(src)),
    }
}

/// The start of `src` detection looks at: all of it if short, else up to the last line
/// break before [`DETECT_SAMPLE`] bytes.
fn sample(src: &str) -> &str {
    if src.len() <= DETECT_SAMPLE {
        return src;
    }
    let mut cut = DETECT_SAMPLE;
    while !src.is_char_boundary(cut) {
        cut -= 1;
    }
    match src[..cut].rfind(['\n', '\r']) {
        Some(i) if i > 0 => &src[..i],
        _ => &src[..cut],
    }
}
