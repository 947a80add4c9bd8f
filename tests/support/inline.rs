//! Compiling a rulebook written inline in a test.

use kriegsspiel_compiler::{compile, Compilation};

/// Compile one in-memory source file named `name`, printing its diagnostics (for
/// failing tests).
pub fn compile_one(name: &str, text: impl Into<String>) -> Compilation {
    let mut sources = kriegsspiel_dsl::SourceMap::new();
    sources.add(name, text.into());
    let c = compile(&sources);
    for d in &c.diagnostics {
        eprint!("{}", d.render(&sources));
    }
    c
}
