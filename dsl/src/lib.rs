//! kriegsspiel-dsl: the rules language's grammar, parser, spanned AST and diagnostics.
//!
//! `parse_file` turns one source file into [`ast::Rulebook`] items or diagnostics.
//! pest is an implementation detail: no pest type appears in this crate's public API.

pub mod ast;
pub mod diag;
pub mod format;
mod lower;
mod parser;
pub mod source;
mod syntax_error;

pub use diag::{Diagnostic, Severity};
pub use lower::parse_file;
pub use source::SourceMap;

/// Parse every file of `sources` and merge them into one rulebook. Files are parsed
/// in parallel (one worker per core, files shared out by size) and merged in file
/// order, so the result and the order of diagnostics are those of a sequential parse.
pub fn parse_all(sources: &SourceMap) -> (ast::Rulebook, Vec<Diagnostic>) {
    type Parsed = Result<ast::Rulebook, Vec<Diagnostic>>;
    let ids: Vec<ast::FileId> = sources.ids().collect();
    let workers = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1).min(ids.len()).max(1);
    let bytes: usize = ids.iter().map(|&id| sources.text(id).len()).sum();
    let mut results: Vec<Option<Parsed>> = (0..ids.len()).map(|_| None).collect();
    if workers == 1 || bytes < 16 * 1024 {
        for (slot, &id) in results.iter_mut().zip(&ids) {
            *slot = Some(parse_file(id, sources.text(id)));
        }
    } else {
        // Largest files first, each to the least loaded worker.
        let mut order: Vec<usize> = (0..ids.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(sources.text(ids[i]).len()));
        let mut shares: Vec<(usize, Vec<usize>)> = vec![(0, Vec::new()); workers];
        for i in order {
            if let Some(w) = shares.iter_mut().min_by_key(|w| w.0) {
                w.0 += sources.text(ids[i]).len();
                w.1.push(i);
            }
        }
        std::thread::scope(|scope| {
            let mut handles = Vec::new();
            for (_, share) in &shares {
                let ids = &ids;
                let job = move || -> Vec<(usize, Parsed)> {
                    share.iter().map(|&i| (i, parse_file(ids[i], sources.text(ids[i])))).collect()
                };
                // The main thread's stack size, so that pest's stack guard allows the
                // same nesting as a sequential parse.
                match std::thread::Builder::new().stack_size(8 << 20).spawn_scoped(scope, job) {
                    Ok(h) => handles.push(h),
                    Err(_) => {
                        for &i in share {
                            results[i] = Some(parse_file(ids[i], sources.text(ids[i])));
                        }
                    }
                }
            }
            for h in handles {
                match h.join() {
                    Ok(done) => {
                        for (i, r) in done {
                            results[i] = Some(r);
                        }
                    }
                    Err(panic) => std::panic::resume_unwind(panic),
                }
            }
        });
    }
    let mut book = ast::Rulebook::default();
    let mut diags = Vec::new();
    for r in results.into_iter().flatten() {
        match r {
            Ok(b) => {
                book.headers.extend(b.headers);
                book.contents.extend(b.contents);
                book.steps.extend(b.steps);
                book.decls.extend(b.decls);
            }
            Err(d) => diags.extend(d),
        }
    }
    (book, diags)
}
