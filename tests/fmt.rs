//! `kriegsspiel fmt` (issue 16, part 2): on every rulebook in the repository, formatting
//! twice changes nothing the second time, and the formatted rulebook compiles to the same
//! program (source positions aside) with the same diagnostics; the command rewrites and
//! checks files.

use kriegsspiel_dsl::format::format_source;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "support/rulebook.rs"]
#[allow(dead_code)]
mod rulebook;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A program as JSON without its source positions (function span tables), which moving
/// whitespace changes by design.
fn without_spans(v: &mut Value) {
    match v {
        Value::Object(m) => {
            m.remove("spans");
            m.values_mut().for_each(without_spans);
        }
        Value::Array(a) => a.iter_mut().for_each(without_spans),
        _ => {}
    }
}

/// A file with its layout undone: no indentation, trailing spaces and tabs, a blank line
/// after every line (files whose strings span lines are left as they are).
fn messy(text: &str) -> String {
    if text.lines().any(|l| l.matches('"').count() % 2 == 1) {
        return text.to_string();
    }
    text.lines().map(|l| format!("{} \t \n\n", l.trim_start())).collect()
}

#[derive(Clone, Copy)]
enum Layout {
    AsWritten,
    Formatted,
    MessyThenFormatted,
}

fn program(dir: &Path, layout: Layout) -> (Value, Vec<String>) {
    let c = rulebook::compiled_editing(dir, |_, text| match layout {
        Layout::AsWritten => text,
        Layout::Formatted => format_source(&text),
        Layout::MessyThenFormatted => format_source(&messy(&text)),
    });
    let diags: Vec<String> = c.diagnostics.iter().map(|d| format!("{} {}", d.code, d.message)).collect();
    let mut v = serde_json::to_value(c.program.expect("the rulebook compiles")).expect("json");
    without_spans(&mut v);
    (v, diags)
}

#[test]
fn every_rulebook_formats_to_the_same_program_and_is_stable() {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root().join("rulebooks"))
        .expect("rulebooks/")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 6, "{dirs:?}");
    for dir in &dirs {
        for entry in std::fs::read_dir(dir).expect("reads") {
            let p = entry.expect("entry").path();
            if p.extension().is_some_and(|x| x == "ks") {
                let text = std::fs::read_to_string(&p).expect("reads");
                for start in [text.clone(), messy(&text)] {
                    let once = format_source(&start);
                    assert_eq!(format_source(&once), once, "formatting {} twice changes it", p.display());
                }
            }
        }
        let (plain, d1) = program(dir, Layout::AsWritten);
        for layout in [Layout::Formatted, Layout::MessyThenFormatted] {
            let (formatted, d2) = program(dir, layout);
            assert_eq!(d1, d2, "{}: the diagnostics change", dir.display());
            assert!(
                plain == formatted,
                "{}: the formatted rulebook compiles to another program",
                dir.display()
            );
        }
    }
}

#[test]
fn fmt_rewrites_and_checks_files() {
    let dir = std::env::temp_dir().join(format!("ks-fmt-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    let src = std::fs::read_to_string(root().join("docs/examples/tiny.ks")).expect("tiny");
    // Undo the layout: no indentation, trailing spaces, extra blank lines.
    let messy: String = src.lines().map(|l| format!("{}   \n\n", l.trim_start())).collect();
    let file = dir.join("tiny.ks");
    std::fs::write(&file, &messy).expect("writes");
    let ks =
        |args: &[&str]| Command::new(env!("CARGO_BIN_EXE_kriegsspiel")).args(args).output().expect("runs");
    let f = file.to_str().expect("utf-8");
    let o = ks(&["fmt", "--check", f]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stdout).contains("tiny.ks"));
    assert_eq!(std::fs::read_to_string(&file).expect("reads"), messy, "--check changes nothing");
    let o = ks(&["fmt", dir.to_str().expect("utf-8")]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let fixed = std::fs::read_to_string(&file).expect("reads");
    assert_eq!(fixed, format_source(&messy));
    assert!(!fixed.contains("   \n") && !fixed.contains("\n\n\n"));
    let o = ks(&["fmt", "--check", f]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let o = ks(&["fmt", "/nonexistent/x.ks"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("error[E0701]"));
}

/// The bundled encodings and examples are kept in the canonical layout (what CI's
/// `fmt --check` asks of them).
#[test]
fn the_repository_is_formatted() {
    for dir in ["rulebooks", "docs/examples"] {
        for entry in walk(&root().join(dir)) {
            let text = std::fs::read_to_string(&entry).expect("reads");
            assert!(
                format_source(&text) == text,
                "{} is not formatted: run `kriegsspiel fmt`",
                entry.display()
            );
        }
    }
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).expect("reads") {
        let p = e.expect("entry").path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else if p.extension().is_some_and(|x| x == "ks") {
            out.push(p);
        }
    }
    out.sort();
    out
}
