//! kriegsspiel-bench: the measurement half of issue 5.
//!
//! Three things are measured, all on Peter the Great:
//!
//! 1. [`attack`]: one rule many times. The attack resolution of combat.ks (CS
//!    differential, column shifts, MR differential, CRT lookup) over a fixed set of
//!    situations and one dice stream, run by the VM, by hand-written Rust and by a Rhai
//!    script; the three must agree on every situation.
//! 2. [`games`]: whole headless games with random agents, per scenario.
//! 3. [`timing`] and [`machine`]: the medians and the machine description the report
//!    binary (`src/bin/report.rs`) prints.
//!
//! The rulebook is never edited: [`BENCH_KS`] (`src/bench.ks`) is an extra source
//! compiled with it, holding a pure `bench_result` function that calls the encoding's
//! own functions, and three set-up procedures for the situations.
//!
//! The native back end (issue 17) is measured beside the VM: the attack resolution on
//! Peter plus `bench.ks` translated by `build.rs`, whole games on the code of
//! `kriegsspiel-native-check`.

pub mod attack;
pub mod games;
pub mod machine;
pub mod timing;

/// Peter the Great plus [`BENCH_KS`] compiled to Rust by the native back end when this
/// crate builds (`build.rs`): the attack resolution's native figure.
#[allow(
    unused_mut,
    unused_variables,
    unused_macros,
    unused_imports,
    unreachable_code,
    unused_labels,
    unreachable_patterns,
    clippy::all
)]
pub mod peter_bench_native {
    include!(concat!(env!("OUT_DIR"), "/peter_bench.rs"));
}

use kriegsspiel_dsl::SourceMap;
use kriegsspiel_runtime::Program;
use std::path::PathBuf;

/// Peter the Great, relative to the repository root.
pub const PETER: &str = "rulebooks/peter-the-great";
pub const FREDERICK: &str = "rulebooks/frederick-the-great";
/// The toy rulebook of the language reference.
pub const TINY: &str = "docs/examples/tiny.ks";

/// Bench-only additions compiled with Peter the Great (never part of the rulebook).
///
/// `bench_result` is the result part of `resolve` (combat.ks) as a pure function: the
/// MR picks, the optional lower column and the roll are the situation's, since in a
/// game they are decisions and dice. The procedures set up a situation's board.
pub const BENCH_KS: &str = include_str!("bench.ks");

/// The repository root (the parent of this crate).
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every rulebook to time `check` on: each directory of `rulebooks/`, then [`TINY`]
/// (names and paths relative to the repository root).
pub fn rulebooks() -> Vec<(String, String)> {
    let mut dirs: Vec<String> = std::fs::read_dir(repo_root().join("rulebooks"))
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .filter(|e| e.path().is_dir())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    dirs.sort();
    let mut out: Vec<(String, String)> =
        dirs.into_iter().map(|d| (d.clone(), format!("rulebooks/{d}"))).collect();
    out.push(("tiny.ks".to_string(), TINY.to_string()));
    out
}

/// Read a rulebook (directory or file) relative to the repository root.
pub fn load(rel: &str) -> SourceMap {
    let path = repo_root().join(rel);
    kriegsspiel_compiler::load(&path).unwrap_or_else(|e| panic!("cannot load {}: {e}", path.display()))
}

/// Compile sources, panicking with the first diagnostics on errors.
pub fn compile(sources: &SourceMap) -> Program {
    let c = kriegsspiel_compiler::compile(sources);
    match c.program {
        Some(p) => p,
        None => {
            let msgs: Vec<String> = c
                .diagnostics
                .iter()
                .filter(|d| d.is_error())
                .take(5)
                .map(|d| format!("{} {}", d.code, d.message))
                .collect();
            panic!("compile failed: {}", msgs.join("; "))
        }
    }
}

/// Peter the Great as shipped (for whole games and check time).
pub fn peter() -> Program {
    compile(&load(PETER))
}

/// Frederick the Great, compiled.
pub fn frederick() -> Program {
    compile(&load(FREDERICK))
}

/// Every playable rulebook with the label its game rows carry.
pub fn playable() -> Vec<(&'static str, Program)> {
    vec![("", peter()), ("frederick ", frederick())]
}

/// The native code of a playable rulebook (by the label [`playable`] gives it), checked
/// against its program; `None` when `kriegsspiel-native-check` was built without it
/// (`KRIEGSSPIEL_NATIVE_ONLY`).
pub fn native_for(label: &str, prog: &Program) -> Option<kriegsspiel_runtime::native::Native> {
    let name = if label.is_empty() { "peter-the-great" } else { "frederick-the-great" };
    let code = kriegsspiel_native_check::code(name)?;
    kriegsspiel_runtime::native::Native::for_program(code, prog).ok()
}

/// The native code of [`peter_with_bench`], checked against it.
pub fn peter_with_bench_native(prog: &Program) -> kriegsspiel_runtime::native::Native {
    kriegsspiel_runtime::native::Native::for_program(&peter_bench_native::CODE, prog)
        .unwrap_or_else(|e| panic!("peter + bench.ks: {e}"))
}

/// Peter the Great plus [`BENCH_KS`] (for the attack benchmark).
pub fn peter_with_bench() -> Program {
    let mut sources = load(PETER);
    sources.add("bench.ks", BENCH_KS);
    compile(&sources)
}
