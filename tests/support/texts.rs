//! Where the tests find the five rulebook texts. They are not ours to ship, so a clone
//! without them must still pass its tests: this is the one helper every test that needs
//! a text goes through (the root package's tests include it as `mod texts`, the text
//! crate's tests through `#[path]`).
//!
//! The directory is `$KRIEGSSPIEL_TEXTS` if set, else `../shared/rulebook-texts` beside
//! the workspace. Where a text is not found the test prints one "skipped" line on stderr
//! and passes without asserting — except under CI (`CI=true`), where a missing text is a
//! failure.

#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};

/// The candidate directories, in order of preference.
fn candidates(workspace_root: &Path) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if let Some(d) = std::env::var_os("KRIEGSSPIEL_TEXTS").filter(|d| !d.is_empty()) {
        dirs.push(PathBuf::from(d));
    }
    dirs.push(workspace_root.join("../shared/rulebook-texts"));
    dirs
}

/// Under CI a missing text fails the test instead of skipping it.
fn under_ci() -> bool {
    std::env::var("CI").map(|v| v.eq_ignore_ascii_case("true") || v == "1").unwrap_or(false)
}

/// The path of rulebook text `file` (`peter-the-great.txt`), or `None` after printing
/// the skip line. Panics under CI when the text is missing.
pub fn text_path(workspace_root: &Path, file: &str) -> Option<PathBuf> {
    let dirs = candidates(workspace_root);
    if let Some(p) = dirs.iter().map(|d| d.join(file)).find(|p| p.is_file()) {
        return Some(p);
    }
    let tried: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
    let what = format!("rulebook text {file} not found in {}", tried.join(" or "));
    if under_ci() {
        panic!("{what} (CI=true: the texts are required; set KRIEGSSPIEL_TEXTS)");
    }
    // Straight to the process's stderr, past the test harness's capture, so the skip is seen.
    let _ = writeln!(std::io::stderr(), "skipped: rulebook texts not found (set KRIEGSSPIEL_TEXTS): {what}");
    None
}

/// The text of rulebook text `file`, or `None` (skipped) as [`text_path`].
pub fn read_text(workspace_root: &Path, file: &str) -> Option<String> {
    let p = text_path(workspace_root, file)?;
    match std::fs::read(&p) {
        Ok(bytes) => Some(String::from_utf8_lossy(&bytes).into_owned()),
        Err(e) => panic!("cannot read {}: {e}", p.display()),
    }
}
