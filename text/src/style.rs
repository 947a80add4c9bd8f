//! Numbering styles as declarations: how a rulebook marks its paragraphs, how a
//! number maps to a depth, where titles sit, and which words introduce references.
//!
//! A new rulebook format is a new [`Style`] value, not new scanning code: the
//! scanner in `scan.rs` only reads these fields.

use serde::Serialize;

/// How a paragraph number is written at the head of a paragraph.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum Marker {
    /// A bare dotted number at the start of a line: `9.41 Title`, `7.1.2 Title`.
    Decimal,
    /// A keyword, a space and an integer: `Rule 11: Title` (the keyword is the field).
    Keyword(String),
    /// An integer in brackets with a trailing dot: `[45.]`.
    Bracketed,
    /// No numbers: headings marked `#`, `##`, ... at the start of a line (Markdown).
    /// A heading is named by its title; its path is its position in the outline.
    Markdown,
    /// No numbers and no marks: a heading is a short line in capitals or title case
    /// between a blank line and its text (plain titled sections). ALL-CAPS headings
    /// are one level above title-case ones when a text uses both. Never detected
    /// over a numbered style: the fallback when no numbered style finds a heading.
    Titled,
}

impl Marker {
    /// Headings are named by their titles, not by numbers.
    pub fn unnumbered(&self) -> bool {
        matches!(self, Marker::Markdown | Marker::Titled)
    }
}

/// How the groups of a number map to levels of the paragraph tree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum Depth {
    /// Every dot-separated group is one level: `13.16.4` = (13, 16, 4); `N.0` = (N).
    Dotted {
        /// Most groups a number may have (`3.3.1.10` has 4).
        max_groups: usize,
    },
    /// The group after the first dot counts one level per digit (`9.41` = 9.4.1);
    /// later groups are whole numbers for tenth-and-later items (`5.11.10` = 5.1.1.10).
    ImpliedDigits {
        /// Most digits the first group after the dot may have.
        max_digits: usize,
        /// Most dot-separated groups in all.
        max_groups: usize,
    },
    /// One flat sequence of integers (`[1.]`, `[2.]` or `Rule 1`, `Rule 2`).
    Flat,
}

/// Where a heading's title is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum TitleRule {
    /// The rest of the heading line is the title: it starts with a capital, has at
    /// most `max_words` words and does not end like a sentence.
    Line { max_words: usize },
    /// `Keyword N: Title`, the title after the first colon, alone on the line.
    AfterColon,
    /// Body text follows the number on the same line; the title is a leading run of
    /// capitals (`1.2 THE MAP`) or a short phrase closed by a full stop
    /// (`1.21 General.`). Headings no deeper than `upper_title_max_depth` must have
    /// the run of capitals, so a sentence that starts with a number is not a section.
    Inline { upper_title_max_depth: usize },
    /// The number has no title of its own; it takes the nearest section heading line
    /// above it (a short unnumbered line).
    SectionLine,
}

/// A part of a rulebook whose numbering restarts (Standard / Exclusive rules).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PartDecl {
    /// Name used in anchors and output: `Standard`, `Exclusive`.
    pub name: String,
    /// A line starting with this text (outside the table of contents) opens the part.
    pub line_marker: String,
    /// Word sequences in prose that name the part next to a reference
    /// (`Exclusive Rules ¶133`, `Exclusive Rule 68`).
    pub ref_names: Vec<String>,
}

/// A numbering style: everything the scanner needs to know about one rulebook format.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Style {
    /// Short name for `--style`.
    pub name: String,
    /// One line for humans.
    pub description: String,
    pub marker: Marker,
    pub depth: Depth,
    pub title: TitleRule,
    /// `A.`, `B.` items at the start of a line inside a numbered paragraph.
    pub lettered_items: bool,
    /// Parts whose numbering restarts; empty for a single sequence.
    pub parts: Vec<PartDecl>,
    /// Text lines are in reading order. False for text extracted from two-column
    /// pages, where neighbouring lines come from different columns: order checks are
    /// then replaced by set checks (duplicates, gaps, missing parents).
    pub ordered: bool,
    /// Headings may start in the middle of a line, after a sentence ends.
    pub mid_line_headings: bool,
    /// Headings may be a range `7.2-7.6` standing for several paragraphs.
    pub range_headings: bool,
    /// Words that introduce a bare number as a cross-reference (`see 9.2`).
    /// A number that opens a parenthesis is a reference too. For `Keyword` and
    /// `Bracketed` markers every occurrence of the marker form is a reference.
    pub ref_cues: Vec<String>,
    /// Text next to a number that sends it to another book (`KR&Os 9.221`).
    pub external_markers: Vec<String>,
    /// The faces of one die: (lowest, highest).
    pub die: (i64, i64),
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| (*s).to_string()).collect()
}

fn decimal_cues() -> Vec<String> {
    strings(&[
        "see",
        "per",
        "case",
        "cases",
        "section",
        "sections",
        "rule",
        "rules",
        "paragraph",
        "paragraphs",
        "under",
        "also",
    ])
}

impl Style {
    /// The built-in styles, in the order auto-detection prefers on a tie.
    pub fn builtin() -> Vec<Style> {
        vec![
            Style {
                name: "dotted-lettered".into(),
                description: "dotted numbers with lettered items: 7.1.2, 13.0.B (Peter the Great)".into(),
                marker: Marker::Decimal,
                depth: Depth::Dotted { max_groups: 4 },
                title: TitleRule::Line { max_words: 14 },
                lettered_items: true,
                parts: Vec::new(),
                ordered: true,
                mid_line_headings: false,
                range_headings: false,
                ref_cues: decimal_cues(),
                external_markers: Vec::new(),
                die: (1, 6),
            },
            Style {
                name: "decimal-implied".into(),
                description: "decimal numbers with implied depth: 9.41 = 9.4.1 (Frederick the Great)".into(),
                marker: Marker::Decimal,
                depth: Depth::ImpliedDigits { max_digits: 2, max_groups: 2 },
                title: TitleRule::Line { max_words: 14 },
                lettered_items: false,
                parts: Vec::new(),
                ordered: true,
                mid_line_headings: false,
                range_headings: false,
                ref_cues: decimal_cues(),
                external_markers: Vec::new(),
                die: (1, 6),
            },
            Style {
                name: "rule-lettered".into(),
                description: "\"Rule N: Title\" with lettered items: Rule 11 F (Torgau)".into(),
                marker: Marker::Keyword("Rule".into()),
                depth: Depth::Flat,
                title: TitleRule::AfterColon,
                lettered_items: true,
                parts: Vec::new(),
                ordered: true,
                mid_line_headings: false,
                range_headings: false,
                ref_cues: Vec::new(),
                external_markers: Vec::new(),
                die: (1, 6),
            },
            Style {
                name: "bracketed-parts".into(),
                description:
                    "bracketed sequential numbers [45.] restarting per part (Napoleon at the Crossroads)"
                        .into(),
                marker: Marker::Bracketed,
                depth: Depth::Flat,
                title: TitleRule::SectionLine,
                lettered_items: false,
                parts: vec![
                    PartDecl {
                        name: "Standard".into(),
                        line_marker: "PART ONE".into(),
                        ref_names: strings(&["Standard Rules", "Standard Rule"]),
                    },
                    PartDecl {
                        name: "Exclusive".into(),
                        line_marker: "PART TWO".into(),
                        ref_names: strings(&["Exclusive Rules", "Exclusive Rule"]),
                    },
                ],
                ordered: true,
                mid_line_headings: false,
                range_headings: false,
                ref_cues: Vec::new(),
                external_markers: Vec::new(),
                die: (1, 6),
            },
            Style {
                name: "markdown-headings".into(),
                description: "unnumbered headings marked # / ## / ### (Markdown); anchors name the heading"
                    .into(),
                marker: Marker::Markdown,
                depth: Depth::Flat,
                title: TitleRule::AfterColon,
                lettered_items: false,
                parts: Vec::new(),
                ordered: true,
                mid_line_headings: false,
                range_headings: false,
                ref_cues: Vec::new(),
                external_markers: Vec::new(),
                die: (1, 6),
            },
            Style {
                name: "titled-sections".into(),
                description: "unnumbered headings: short lines in capitals or title case between a blank line and their text; anchors name the heading"
                    .into(),
                marker: Marker::Titled,
                depth: Depth::Flat,
                title: TitleRule::AfterColon,
                lettered_items: false,
                parts: Vec::new(),
                ordered: true,
                mid_line_headings: false,
                range_headings: false,
                ref_cues: Vec::new(),
                external_markers: Vec::new(),
                die: (1, 6),
            },
            Style {
                name: "case-implied".into(),
                description:
                    "section/case/sub-case numbers 4.141 = 4.1.4.1, 5.11.10, two-column text (Sport of Kings)"
                        .into(),
                marker: Marker::Decimal,
                depth: Depth::ImpliedDigits { max_digits: 3, max_groups: 4 },
                title: TitleRule::Inline { upper_title_max_depth: 2 },
                lettered_items: false,
                parts: Vec::new(),
                ordered: false,
                mid_line_headings: true,
                range_headings: true,
                ref_cues: decimal_cues(),
                external_markers: strings(&["KR&Os", "booklet", "OOB books", "OOB book"]),
                die: (0, 9),
            },
        ]
    }

    /// A built-in style by name.
    pub fn by_name(name: &str) -> Option<Style> {
        Style::builtin().into_iter().find(|s| s.name == name)
    }

    /// Names of the built-in styles, for error messages.
    pub fn names() -> Vec<String> {
        Style::builtin().into_iter().map(|s| s.name).collect()
    }
}
