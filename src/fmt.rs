//! `fmt [--check] RULEBOOK|FILE...`: rewrite rulebook files in the canonical layout
//! (`kriegsspiel_dsl::format`: indentation by nesting, no trailing whitespace, one blank
//! line at most; tokens, strings, comments and alignment kept), or with `--check` list
//! the files that are not, and fail.

use crate::{out, Ui};
use std::io::Write as _;
use std::path::PathBuf;

pub(crate) fn cmd_fmt(paths: &[PathBuf], check: bool, ui: Ui) -> u8 {
    let mut unformatted = Vec::new();
    let mut written = 0usize;
    let mut seen = 0usize;
    for path in paths {
        let sources = match kriegsspiel_compiler::load_files(path) {
            Ok((s, _)) => s,
            Err(e) => {
                say!("error[{}]: {}", e.code, e.message);
                return 2;
            }
        };
        for id in sources.ids() {
            seen += 1;
            let (name, text) = (sources.name(id), sources.text(id));
            let formatted = kriegsspiel_dsl::format::format_source(text);
            if formatted == text {
                continue;
            }
            if check {
                unformatted.push(name.to_string());
            } else if let Err(e) = std::fs::write(name, formatted) {
                say!("error[E0702]: cannot write {name}: {e}");
                return 2;
            } else {
                written += 1;
            }
        }
    }
    if check {
        if unformatted.is_empty() {
            if !ui.quiet {
                say!("{seen} files in the canonical layout");
            }
            return 0;
        }
        let list: String = unformatted.iter().map(|f| format!("{f}\n")).collect();
        if let Err(code) = out(&list) {
            return code;
        }
        say!(
            "error: {} of {seen} files are not in the canonical layout (listed above); `kriegsspiel fmt` rewrites them",
            unformatted.len()
        );
        return 1;
    }
    if !ui.quiet {
        say!("formatted {written} of {seen} files");
    }
    0
}
