//! Paragraph numbers: parsing a written number into a tree path under a style's
//! depth rule, and writing a path back the way the rulebook writes it.

use crate::style::{Depth, Marker, Style};

/// Largest value accepted in one group of a number (larger is not a paragraph).
const MAX_GROUP: u32 = 999;

/// A paragraph's position in the tree: (part, path). `path` is one entry per level;
/// `N.0` is the one-entry path `[N]`.
pub type Path = Vec<u32>;

/// Parse a dotted number (`9.41`, `7.1.2`, `5.11.10`) under a decimal style.
/// Returns `None` when the text is not a paragraph number of that style.
pub fn parse_decimal(style: &Style, text: &str) -> Option<Path> {
    let groups: Vec<&str> = text.split('.').collect();
    if groups.len() < 2 || groups.iter().any(|g| g.is_empty()) {
        return None;
    }
    let whole = |g: &str| -> Option<u32> {
        if g.len() > 1 && g.starts_with('0') {
            return None;
        }
        g.parse::<u32>().ok().filter(|v| *v <= MAX_GROUP)
    };
    let major = whole(groups[0]).filter(|m| *m >= 1 && *m <= 99)?;
    match style.depth {
        Depth::Dotted { max_groups } => {
            if groups.len() > max_groups {
                return None;
            }
            if groups.len() == 2 && groups[1] == "0" {
                return Some(vec![major]);
            }
            let mut path = vec![major];
            for g in &groups[1..] {
                path.push(whole(g)?);
            }
            Some(path)
        }
        Depth::ImpliedDigits { max_digits, max_groups } => {
            if groups.len() > max_groups {
                return None;
            }
            let first = groups[1];
            if groups.len() == 2 && first == "0" {
                return Some(vec![major]);
            }
            if first.len() > max_digits || first.starts_with('0') {
                return None;
            }
            let mut path = vec![major];
            for c in first.chars() {
                path.push(c.to_digit(10)?);
            }
            for g in &groups[2..] {
                path.push(whole(g)?);
            }
            Some(path)
        }
        Depth::Flat => None,
    }
}

/// Write a path the way the style writes numbers (`[9, 4, 1]` → `9.41`).
pub fn format_path(style: &Style, path: &[u32]) -> String {
    match (&style.marker, &style.depth) {
        (Marker::Keyword(k), _) => format!("{k} {}", join(path)),
        (Marker::Bracketed, _) => format!("[{}.]", join(path)),
        (Marker::Markdown | Marker::Titled, _) => join_dots(path),
        (Marker::Decimal, Depth::ImpliedDigits { max_digits, .. }) => {
            if path.len() <= 1 {
                return format!("{}.0", path.first().copied().unwrap_or(0));
            }
            let mut out = path[0].to_string();
            out.push('.');
            let mut i = 1;
            while i < path.len() && i <= *max_digits && path[i] < 10 {
                out.push_str(&path[i].to_string());
                i += 1;
            }
            if i == 1 {
                // A multi-digit second level cannot be written implied; fall back.
                out.push_str(&path[1].to_string());
                i = 2;
            }
            for p in &path[i..] {
                out.push('.');
                out.push_str(&p.to_string());
            }
            out
        }
        (Marker::Decimal, _) => {
            if path.len() <= 1 {
                format!("{}.0", path.first().copied().unwrap_or(0))
            } else {
                join_dots(path)
            }
        }
    }
}

/// Write an item (`7.1.2.A`, `Rule 11.F`).
pub fn format_item(style: &Style, path: &[u32], letter: char) -> String {
    format!("{}.{letter}", format_path(style, path))
}

fn join(path: &[u32]) -> String {
    join_dots(path)
}

fn join_dots(path: &[u32]) -> String {
    path.iter().map(|p| p.to_string()).collect::<Vec<_>>().join(".")
}

/// The number that would come right after `path` at the same level.
pub fn next_sibling(path: &[u32]) -> Path {
    let mut p = path.to_vec();
    if let Some(last) = p.last_mut() {
        *last = last.saturating_add(1);
    }
    p
}

/// True when `a` sorts before `b` in reading order (parents before children).
pub fn path_lt(a: &[u32], b: &[u32]) -> bool {
    a < b
}
