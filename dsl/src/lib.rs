//! kriegsspiel-dsl: the rules language's grammar, parser, spanned AST and diagnostics.
//!
//! `parse_file` turns one source file into [`ast::Rulebook`] items or diagnostics.
//! pest is an implementation detail: no pest type appears in this crate's public API.

pub mod ast;
pub mod diag;
mod lower;
mod parser;
pub mod source;
mod syntax_error;

pub use diag::{Diagnostic, Severity};
pub use lower::parse_file;
pub use source::SourceMap;

/// Parse every file of `sources` and merge them into one rulebook.
pub fn parse_all(sources: &SourceMap) -> (ast::Rulebook, Vec<Diagnostic>) {
    let mut book = ast::Rulebook::default();
    let mut diags = Vec::new();
    for id in sources.ids() {
        match parse_file(id, sources.text(id)) {
            Ok(b) => {
                book.headers.extend(b.headers);
                book.contents.extend(b.contents);
                book.decls.extend(b.decls);
            }
            Err(d) => diags.extend(d),
        }
    }
    (book, diags)
}
