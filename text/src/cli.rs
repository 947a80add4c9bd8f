//! `kriegsspiel text PATH [--index] [--format human|json] [--style NAME]`: the
//! library entry point the CLI binary calls.

use std::path::PathBuf;

use crate::checks::{check, Severity};
use crate::detect::resolve;
use crate::index::index;
use crate::render::{render_human, to_json};

/// Options of `kriegsspiel text`.
#[derive(Debug, Clone, Default)]
pub struct TextOptions {
    pub path: PathBuf,
    /// Print the paragraph index.
    pub index: bool,
    /// JSON output instead of human diagnostics.
    pub json: bool,
    /// Numbering style name; auto-detected when `None`.
    pub style: Option<String>,
}

/// Run `kriegsspiel text`. Human diagnostics go to `err`; the index (`--index`)
/// or JSON go to `out`. Returns the exit code: 0 no errors (warnings allowed),
/// 1 the text has error findings, 2 unreadable input or a bad style name.
pub fn run_cli(opts: &TextOptions, out: &mut dyn std::io::Write, err: &mut dyn std::io::Write) -> i32 {
    let name = opts.path.display().to_string();
    let src = match std::fs::read(&opts.path) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) => {
            let _ = writeln!(err, "error: cannot read {name}: {e}");
            return 2;
        }
    };
    let style = match resolve(&src, opts.style.as_deref()) {
        Ok(s) => s,
        Err(e) => {
            let _ = writeln!(err, "error: {e}");
            return 2;
        }
    };
    let idx = index(&src, &style);
    let findings = check(&src, &idx);
    let io = if opts.json {
        let doc = to_json(&name, &idx, &findings, opts.index);
        serde_json::to_string_pretty(&doc).map_err(std::io::Error::other).and_then(|s| writeln!(out, "{s}"))
    } else {
        let mut r = Ok(());
        if opts.index {
            r = write!(out, "{}", idx.render_human());
        }
        r.and_then(|_| {
            writeln!(err, "{name}: numbering style {}", style.name)?;
            render_human(&name, &src, &findings, err)
        })
    };
    if let Err(e) = io {
        let _ = writeln!(err, "error: cannot write output: {e}");
        return 2;
    }
    if findings.iter().any(|f| f.severity == Severity::Error) {
        1
    } else {
        0
    }
}
