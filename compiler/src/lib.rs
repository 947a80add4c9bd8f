//! kriegsspiel-compiler: from the DSL's AST to a verified runtime `Program`.
//!
//! Passes, in order: parse (dsl) → contents and anchors → collect names → map →
//! tables → bodies (type check + codegen in one walk) → hooks, triggers, sequence →
//! counters and scenarios → lints → verify → run the examples → coverage report.

mod builtins;
mod collect;
mod contents;
pub mod enumerate;
mod env;
mod examples;
mod facing;
mod func;
mod layers;
mod map;
mod players;
mod points;
mod reach;
mod report;
mod scenario;
mod tables;
mod types;

pub use contents::split_item;
pub use report::{Allowed, ContentStatus, FindingOut, Report, FINDING_KINDS};

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

/// The language's built-in functions as (name, what it does): a read-only list for
/// editors (completion, hover).
pub fn builtin_functions() -> Vec<(&'static str, &'static str)> {
    builtins::signatures().into_iter().map(|b| (b.name, b.doc)).collect()
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
        let meta = std::fs::metadata(path)
            .map_err(|e| unreadable(format!("cannot read {}: {e}", path.display())))?;
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

/// Compile every file of `sources` as one rulebook, as `check` does: the program is the
/// default configuration (every layer that is not optional); each optional layer with
/// declarations of its own is compiled too, with its examples, so that its errors are
/// reported and its paragraphs count in the coverage.
pub fn compile(sources: &SourceMap) -> Compilation {
    compile_config(sources, None)
}

/// Compile the configuration with these optional layers (`option`s and optional
/// `layer`s) in play, as `run --option NAME` does. Unknown names are left to
/// `runtime::play`, which lists the options there are.
pub fn compile_with(sources: &SourceMap, options_on: &[String]) -> Compilation {
    compile_config(sources, Some(options_on))
}

/// The declarations of one configuration (the layers in play with these optional layers
/// on), as the compiler sees them after layer selection: for tools that show a
/// rulebook's declarations (player aids). `None` when the rulebook does not parse or its
/// layer structure is broken (compile it for the diagnostics).
pub fn configured_declarations(
    sources: &SourceMap,
    options_on: &[String],
) -> Option<kriegsspiel_dsl::ast::Rulebook> {
    let (book, mut diags) = kriegsspiel_dsl::parse_all(sources);
    if diags.iter().any(|d| d.is_error()) {
        return None;
    }
    let layers = layers::collect(&book, &mut diags);
    if !diags.iter().any(|d| d.is_error()) {
        layers::check(&book, &layers, &mut diags);
    }
    if diags.iter().any(|d| d.is_error()) {
        return None;
    }
    let active = layers.active(options_on);
    Some(layers::select(&book, &layers, &active, Some(usize::MAX)).to_rulebook())
}

fn compile_config(sources: &SourceMap, on: Option<&[String]>) -> Compilation {
    let (book, mut diags) = kriegsspiel_dsl::parse_all(sources);
    if diags.iter().any(|d| d.is_error()) {
        return Compilation { program: None, diagnostics: diags, report: Report::default() };
    }
    let layers = layers::collect(&book, &mut diags);
    let sups = if diags.iter().any(|d| d.is_error()) {
        Vec::new()
    } else {
        layers::check(&book, &layers, &mut diags)
    };
    if diags.iter().any(|d| d.is_error()) {
        // A broken layer structure has no configuration to compile.
        return Compilation { program: None, diagnostics: diags, report: Report::default() };
    }
    let active = layers.active(on.unwrap_or(&[]));
    // A run's configuration with optional layers switched on keeps no examples: each
    // example is `check`'s, run in the configuration of its own layer.
    let examples_of = match on {
        Some(list) if !list.is_empty() => Some(usize::MAX),
        _ => None,
    };
    // `check` compiles each optional layer's configuration too; those compilations are
    // independent of the default one and of one another, so they run on other cores
    // while this thread compiles the default configuration, and are merged below in
    // layer order (the same diagnostics and report as one after the other).
    let optional: Vec<usize> = match on {
        None => layers
            .defs
            .iter()
            .enumerate()
            .filter(|(_, l)| l.optional && l.has_decls)
            .map(|(i, _)| i)
            .collect(),
        Some(_) => Vec::new(),
    };
    let compile_layer = |li: usize| -> LayerOut {
        let act = layers.active(std::slice::from_ref(&layers.defs[li].name));
        let b = layers::select(&book, &layers, &act, Some(li));
        let mut more = Vec::new();
        let (_, r, enc) = compile_one(&b, &mut more, |p| layer_info(p, &book, &layers, &act, &b));
        (r, enc, more)
    };
    let compile_main = |diags: &mut Vec<Diagnostic>| {
        let main = layers::select(&book, &layers, &active, examples_of);
        compile_one(&main, diags, |p| layer_info(p, &book, &layers, &active, &main))
    };
    let ((mut program, mut report, mut encoded), layer_outs) =
        in_parallel(&optional, &mut diags, compile_main, compile_layer);
    if examples_of == Some(usize::MAX) {
        // Without its examples, this configuration would call a helper only examples use
        // "never used"; whether a declaration is used is `check`'s question, over every
        // configuration with its examples.
        diags.retain(|d| d.code != "W0001");
    }
    for (r, enc, more) in layer_outs {
        // "Never used" holds only where no configuration uses the declaration:
        // keep a W0001 that this configuration reports too, drop the others.
        let unused_here: std::collections::BTreeSet<_> =
            more.iter().filter(|d| d.code == "W0001").map(|d| d.span).collect();
        diags.retain(|d| d.code != "W0001" || unused_here.contains(&d.span));
        for d in more {
            // From a layer's configuration: its errors and its examples' results.
            if !d.is_error() && !matches!(d.code, "W0003" | "W0005") {
                continue;
            }
            let dup = diags.iter().any(|x| x.code == d.code && x.span == d.span && x.message == d.message);
            if !dup {
                diags.push(d);
            }
        }
        report.examples_run += r.examples_run;
        let known: std::collections::BTreeSet<_> = report.anchors.iter().map(|x| x.1).collect();
        report.anchors.extend(r.anchors.into_iter().filter(|a| !known.contains(&a.1)));
        for f in r.findings {
            if !report.findings.contains(&f) {
                report.findings.push(f);
            }
        }
        report.examples_passed += r.examples_passed;
        for x in r.external {
            if !report.external.contains(&x) {
                report.external.push(x);
            }
        }
        report.external.sort();
        encoded.extend(enc);
    }
    // Coverage over every configuration compiled; paragraphs superseded by a layer
    // always in play count as superseded unless something in play still encodes them.
    let superseded = layers::superseded(&layers, &sups);
    report.encoded.clear();
    report.missing.clear();
    report.superseded.clear();
    for (number, _, status) in report.contents.iter_mut() {
        if matches!(status, ContentStatus::Waived(_)) {
            continue;
        }
        *status = if encoded.contains(number.as_str()) {
            report.encoded.push(number.clone());
            ContentStatus::Encoded
        } else if let Some(by) = superseded.get(number.as_str()) {
            report.superseded.push((number.clone(), by.clone()));
            ContentStatus::Superseded(by.clone())
        } else {
            report.missing.push(number.clone());
            ContentStatus::Missing
        };
    }
    report.count_parts();
    if layers.defs.len() > 1 {
        report.layers = layers.defs.iter().map(|l| (l.name.clone(), l.title.clone(), l.optional)).collect();
    }
    report.supersessions = sups;
    // Findings the compiler makes itself: an example that holds under one reading of a
    // ruling only (the example and its rule disagree under the other), and a table row
    // no lookup can roll (dead data, or a modifier the encoding or the text lacks).
    for d in &diags {
        let (kind, ruling) = match d.code {
            "W0005" => ("example_disagrees", d.message.split('`').nth(1).map(str::to_string)),
            "W0008" | "W0009" => ("unreachable", None),
            _ => continue,
        };
        report.findings.push(report::FindingOut {
            kind: kind.into(),
            description: d.message.clone(),
            paragraphs: d.paragraphs.clone(),
            ruling,
            source: "compiler".into(),
        });
    }
    allow_warnings(&book, &mut diags, &mut report);
    if diags.iter().any(|d| d.is_error()) {
        program = None;
    }
    diags.sort_by_key(|d| (std::cmp::Reverse(d.severity), d.span.file, d.span.start));
    Compilation { program, diagnostics: diags, report }
}

/// The warnings a rulebook may allow in its header (`allow W0008 "reason";`, language.md
/// 3). W0006 (a file skipped) concerns the directory read, not the rulebook. W0007 comes
/// from `check --text`, which leaves it out by the same list (`Report::allowed`).
pub const ALLOWABLE_WARNINGS: &[&str] = &["W0001", "W0002", "W0003", "W0004", "W0005", "W0007", "W0008"];

/// Leave out the warnings of each `allow` of the header, counting them in the report; an
/// `allow` of an error, of an unknown code or without a reason is E0250.
fn allow_warnings(book: &kriegsspiel_dsl::ast::Rulebook, diags: &mut Vec<Diagnostic>, report: &mut Report) {
    for h in &book.headers {
        for (code, reason) in &h.allows {
            let c = code.name.as_str();
            let refused = if ALLOWABLE_WARNINGS.contains(&c) {
                reason.trim().is_empty().then(|| "an `allow` needs its reason, in words".to_string())
            } else if c.starts_with('E') || c.starts_with('R') {
                Some(format!("`{c}` is an error: only warnings can be allowed"))
            } else if c == "W0006" {
                Some("W0006 (a file skipped) concerns the files read, not the rulebook".to_string())
            } else {
                Some(format!("`{c}` is not a warning code"))
            };
            if let Some(m) = refused {
                diags.push(
                    Diagnostic::error("E0250", code.span, m).with_note(format!(
                        "warnings that can be allowed: {}",
                        ALLOWABLE_WARNINGS.join(", ")
                    )),
                );
                continue;
            }
            let before = diags.len();
            diags.retain(|d| d.is_error() || d.code != c);
            report.allowed.push(report::Allowed {
                code: c.to_string(),
                reason: reason.clone(),
                count: before - diags.len(),
            });
        }
    }
}

/// What compiling one optional layer's configuration gives: its report, the paragraphs
/// it encodes, its diagnostics.
type LayerOut = (Report, std::collections::BTreeSet<String>, Vec<Diagnostic>);

/// Run `main` on this thread and `layer` for each of `jobs` on the other cores (a
/// shared counter hands the jobs out; this thread joins in after `main`). The layers'
/// results come back in the order of `jobs`, whichever thread compiled them.
fn in_parallel<M>(
    jobs: &[usize],
    diags: &mut Vec<Diagnostic>,
    main: impl FnOnce(&mut Vec<Diagnostic>) -> M,
    layer: impl Fn(usize) -> LayerOut + Sync,
) -> (M, Vec<LayerOut>) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let workers = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1).min(jobs.len() + 1);
    if workers <= 1 {
        let m = main(diags);
        return (m, jobs.iter().map(|&li| layer(li)).collect());
    }
    let next = AtomicUsize::new(0);
    let work = || {
        let mut done = Vec::new();
        loop {
            let k = next.fetch_add(1, Ordering::Relaxed);
            let Some(&li) = jobs.get(k) else { break };
            done.push((k, layer(li)));
        }
        done
    };
    let mut slots: Vec<Option<LayerOut>> = jobs.iter().map(|_| None).collect();
    let m = std::thread::scope(|scope| {
        let mut handles = Vec::new();
        for _ in 1..workers {
            // The main thread's stack size: deep expressions compile as they do there.
            if let Ok(h) = std::thread::Builder::new().stack_size(8 << 20).spawn_scoped(scope, work) {
                handles.push(h);
            }
        }
        let m = main(diags);
        let mut done = work();
        for h in handles {
            match h.join() {
                Ok(d) => done.extend(d),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        for (k, out) in done {
            slots[k] = Some(out);
        }
        m
    });
    // Every job was taken by exactly one thread; any left (none) compile here.
    let outs = slots.into_iter().zip(jobs).map(|(o, &li)| o.unwrap_or_else(|| layer(li))).collect();
    (m, outs)
}

/// Compile one configuration's declarations, verify, run its examples. Returns the
/// program (if no errors), the report, and the paragraphs it encodes.
fn compile_one(
    book: &layers::Selection<'_>,
    diags: &mut Vec<Diagnostic>,
    finish: impl FnOnce(&mut Program),
) -> (Option<Program>, Report, std::collections::BTreeSet<String>) {
    let out = collect::compile_book(book, diags);
    let mut report = out.report;
    let encoded = report.encoded.iter().cloned().collect();
    let program = if diags.iter().any(|d| d.is_error()) {
        None
    } else {
        match kriegsspiel_runtime::verify::verify(&out.program) {
            Ok(()) => {
                let mut p = out.program;
                finish(&mut p);
                Some(p)
            }
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
        examples::run_all(p, &out.examples, diags, &mut report);
    }
    (program, report, encoded)
}

/// Record the sequence-of-play codes (`step_codes`) and each cited paragraph's code, for the
/// log. (The block is checked, E0201 and E0208, with the contents.)
fn step_info(p: &mut Program, main: &layers::Selection<'_>) {
    if main.steps.is_empty() {
        return;
    }
    let mut of: std::collections::BTreeMap<String, u16> = Default::default();
    for (i, s) in main.steps.iter().enumerate() {
        p.steps.push(s.code.clone());
        for a in &s.paragraphs {
            of.entry(contents::split_item(&a.text).0).or_insert(i as u16);
        }
    }
    p.para_step = p
        .paragraphs
        .iter()
        .map(|x| of.get(&contents::split_item(x).0).copied().unwrap_or(u16::MAX))
        .collect();
}

/// Record the layers in a program: which are in play, and the layer of each paragraph
/// (the highest that anchors it), for the log.
fn layer_info(
    p: &mut Program,
    book: &kriegsspiel_dsl::ast::Rulebook,
    layers: &layers::Layers,
    active: &[bool],
    main: &layers::Selection<'_>,
) {
    let declared = |name: &str| {
        book.decls.iter().any(
            |d| matches!(&d.kind, kriegsspiel_dsl::ast::DeclKind::Layer { name: n, .. } if n.name == name),
        )
    };
    p.layers = layers
        .defs
        .iter()
        .zip(active.iter())
        .map(|(l, &a)| kriegsspiel_runtime::program::LayerInfo {
            name: l.name.clone(),
            title: l.title.clone(),
            optional: l.optional,
            active: a,
            has_decls: l.has_decls,
            declared: declared(&l.name),
        })
        .collect();
    // Which layer each paragraph comes from (the highest that anchors it).
    let mut of: std::collections::BTreeMap<String, u8> = Default::default();
    for d in &main.decls {
        let li = d.layer.as_ref().and_then(|l| layers.index(&l.name)).unwrap_or(0) as u8;
        if li == 0 {
            continue;
        }
        for a in &d.anchors {
            let e = of.entry(a.text.clone()).or_insert(li);
            *e = (*e).max(li);
        }
    }
    if !of.is_empty() {
        p.para_layer = p.paragraphs.iter().map(|x| of.get(x).copied().unwrap_or(0)).collect();
    }
    step_info(p, main);
}
