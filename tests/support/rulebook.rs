//! Compiling a bundled rulebook with edits, and handing its contents to the text
//! crate's coverage: helpers the rulebook tests share (napoleon.rs, torgau.rs, sok.rs).

use kriegsspiel_compiler::{compile, Compilation, ContentStatus, Report};
use kriegsspiel_dsl::SourceMap;
use kriegsspiel_text::{EncodedParagraph, EncodedStatus};
use std::path::Path;

/// The rulebook directory's `.ks` files in name order, each text passed through `edit`
/// with its file name, compiled as one unit.
pub fn compiled_editing(dir: &Path, edit: impl Fn(&str, String) -> String) -> Compilation {
    compile(&sources_editing(dir, edit))
}

/// The rulebook directory's `.ks` files in name order, each text passed through `edit`
/// with its file name.
pub fn sources_editing(dir: &Path, edit: impl Fn(&str, String) -> String) -> SourceMap {
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .expect("reads")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "ks"))
        .collect();
    names.sort();
    let mut sources = SourceMap::new();
    for p in names {
        let text = std::fs::read_to_string(&p).expect("reads");
        let name = p.file_name().expect("name").to_string_lossy().to_string();
        sources.add(p.display().to_string(), edit(&name, text));
    }
    sources
}

/// The contents of a compiled rulebook as the text crate's coverage reads them (what
/// `check --text` does): superseded paragraphs count as waived, missing ones as listed.
pub fn encoded_paragraphs(report: &Report) -> Vec<EncodedParagraph> {
    report
        .contents
        .iter()
        .map(|(n, t, s)| EncodedParagraph {
            number: n.clone(),
            title: t.clone(),
            status: match s {
                ContentStatus::Encoded => EncodedStatus::Encoded,
                ContentStatus::Waived(w) => EncodedStatus::Waived(w.clone()),
                ContentStatus::Superseded(by) => EncodedStatus::Waived(format!("superseded by §{by}")),
                ContentStatus::Missing => EncodedStatus::Listed,
            },
        })
        .collect()
}
