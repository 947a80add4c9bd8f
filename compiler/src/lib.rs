//! kriegsspiel-compiler: from the DSL's AST to a verified runtime `Program`.
//!
//! Passes, in order: parse (dsl) → contents and anchors → collect names → map →
//! tables → bodies (type check + codegen in one walk) → hooks, triggers, sequence →
//! counters and scenarios → lints → verify → run the examples → coverage report.

mod builtins;
mod collect;
mod contents;
mod env;
mod examples;
mod func;
mod map;
mod report;
mod scenario;
mod tables;
mod types;

pub use report::{ContentStatus, Report};

use kriegsspiel_dsl::{Diagnostic, SourceMap};
use kriegsspiel_runtime::Program;
use std::path::{Path, PathBuf};

/// The result of compiling a rulebook.
pub struct Compilation {
    /// `None` when there were errors.
    pub program: Option<Program>,
    pub diagnostics: Vec<Diagnostic>,
    pub report: Report,
}

impl Compilation {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(|d| d.is_error())
    }
}

/// Largest rulebook `load` reads: all its `.ks` files together. The encodings are a few
/// hundred kB; a bigger input is refused (E0704) before it is read, so that memory stays
/// bounded (parsing takes about 100 bytes of memory per byte of source).
pub const MAX_RULEBOOK_BYTES: u64 = 4 << 20;

/// Why a rulebook could not be loaded: E0701 (unreadable, or not a regular file) or
/// E0704 (larger than [`MAX_RULEBOOK_BYTES`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadError {
    pub code: &'static str,
    pub message: String,
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

fn unreadable(message: String) -> LoadError {
    LoadError { code: "E0701", message }
}

/// Read a rulebook: a directory of `.ks` files (in name order) or a single file.
/// Entries of a directory that are not regular files are skipped (see [`load_files`]).
pub fn load(path: &Path) -> Result<SourceMap, String> {
    load_files(path).map(|(sources, _)| sources).map_err(|e| e.message)
}

/// [`load`], also returning the `.ks` entries of a directory that were skipped because
/// they are not regular files (a FIFO would block the read forever, a device might
/// never end). A single path that is not a regular file is refused, and so is a
/// rulebook over [`MAX_RULEBOOK_BYTES`].
pub fn load_files(path: &Path) -> Result<(SourceMap, Vec<PathBuf>), LoadError> {
    let mut sources = SourceMap::new();
    let mut skipped = Vec::new();
    let mut regular = Vec::new();
    if path.is_dir() {
        let mut files: Vec<_> = std::fs::read_dir(path)
            .map_err(|e| unreadable(format!("cannot read directory {}: {e}", path.display())))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().map(|x| x == "ks").unwrap_or(false))
            .collect();
        files.sort();
        for f in files {
            // `metadata` follows symbolic links: a link to a regular file is read.
            match std::fs::metadata(&f) {
                Ok(m) if m.is_file() => regular.push((f, m.len())),
                _ => skipped.push(f),
            }
        }
        if regular.is_empty() {
            return Err(unreadable(format!("{} holds no .ks files", path.display())));
        }
    } else {
        let meta = std::fs::metadata(path).map_err(|e| unreadable(format!("cannot read {}: {e}", path.display())))?;
        regular.push((path.to_path_buf(), meta.len()));
    }
    let total: u64 = regular.iter().map(|(_, n)| n).sum();
    if total > MAX_RULEBOOK_BYTES {
        return Err(LoadError {
            code: "E0704",
            message: format!(
                "{} is {total} bytes of source; a rulebook may have at most {MAX_RULEBOOK_BYTES} bytes",
                path.display()
            ),
        });
    }
    for (f, _) in regular {
        sources.add(f.display().to_string(), read_regular_file(&f).map_err(unreadable)?);
    }
    Ok((sources, skipped))
}

/// Read a regular file (or a link to one) as UTF-8; anything else is refused before it
/// is opened.
pub fn read_regular_file(path: &Path) -> Result<String, String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if !meta.is_file() {
        return Err(format!(
            "cannot read {}: not a regular file (a FIFO, socket, device or directory)",
            path.display()
        ));
    }
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

/// Compile every file of `sources` as one rulebook.
pub fn compile(sources: &SourceMap) -> Compilation {
    let (book, mut diags) = kriegsspiel_dsl::parse_all(sources);
    if diags.iter().any(|d| d.is_error()) {
        return Compilation { program: None, diagnostics: diags, report: Report::default() };
    }
    let out = collect::compile_book(&book, &mut diags);
    let mut report = out.report;
    let program = if diags.iter().any(|d| d.is_error()) {
        None
    } else {
        match kriegsspiel_runtime::verify::verify(&out.program) {
            Ok(()) => Some(out.program),
            Err(e) => {
                diags.push(Diagnostic::error(
                    "E0901",
                    kriegsspiel_dsl::ast::Span::default(),
                    format!("internal error: generated bytecode failed verification: {e}"),
                ));
                None
            }
        }
    };
    if let Some(p) = &program {
        examples::run_all(p, &out.examples, &mut diags, &mut report);
    }
    diags.sort_by_key(|d| (std::cmp::Reverse(d.severity), d.span.file, d.span.start));
    Compilation { program, diagnostics: diags, report }
}
