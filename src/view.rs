//! `run --view SIDE`: the log written as that side saw it (docs/language.md 16). The
//! filter itself is `kriegsspiel_runtime::view::side_view`; the full log stays the
//! referee's record (without `--view`).

use kriegsspiel_runtime::log::Log;
use kriegsspiel_runtime::Program;

/// Refuse an unknown `--view` side before any game is played (E0703).
pub(crate) fn check(prog: &Program, view: Option<&str>) -> Result<(), String> {
    match view {
        Some(s) if !prog.sides.iter().any(|x| x == s) => {
            Err(format!("error[E0703]: --view {s}: unknown side; the sides are {}", prog.sides.join(", ")))
        }
        _ => Ok(()),
    }
}

/// The log's text, as side `view` saw it when one is given (checked by [`check`]).
/// The header records the rulebook it was played from as `source` (the path as given
/// to `run`, `GameOptions::source`), so that `replay` finds the map and counters.
pub(crate) fn text(prog: &Program, view: Option<&str>, log: &Log) -> String {
    let full = log.text();
    match view {
        Some(s) => kriegsspiel_runtime::view::side_view(prog, &full, s).unwrap_or(full),
        None => full,
    }
}
