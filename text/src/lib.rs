//! Rulebook prose validator: reads a rulebook's own text, indexes its numbered
//! paragraphs under a declared numbering style, and checks numbering,
//! cross-references, dice tables and the table of contents. Also compares an
//! encoding's contents with the text (rules coverage).
//!
//! Pipeline: `lexer` (logos tokens by line) → `scan` + `refscan` (headings, items, contents,
//! references, driven by a `style::Style` declaration) → `index` → `checks`
//! → `render` (codespan-reporting / JSON). `cli::run_cli` is `kriegsspiel text`.

pub mod checks;
pub mod cli;
pub mod coverage;
pub mod detect;
pub mod index;
pub mod lexer;
pub mod number;
pub mod refscan;
pub mod render;
pub mod scan;
pub mod style;

pub use checks::{check, Finding, Severity};
pub use cli::{run_cli, TextOptions};
pub use coverage::{coverage, coverage_with_items, CoverageReport, EncodedParagraph, EncodedStatus};
pub use detect::{detect, resolve};
pub use index::{index, Paragraph, ParagraphKind, TextIndex};
pub use style::Style;

/// Index and check a text in one call: (index, findings).
pub fn validate(src: &str, style: &Style) -> (TextIndex, Vec<Finding>) {
    let idx = index(src, style);
    let findings = check(src, &idx);
    (idx, findings)
}
