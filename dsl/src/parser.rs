//! The pest parser generated from `grammar.pest`. Private to this crate: only
//! `lower.rs` looks at its parse tree.

#[derive(pest_derive::Parser)]
#[grammar = "grammar.pest"]
pub(crate) struct RulesParser;
