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
/// 1 the text has error findings, 2 unreadable input (E0701), a bad style name, or
/// output that cannot be written (E0702). A closed pipe on `out` (`| head`) is not an
/// error: the exit code is the text's.
pub fn run_cli(opts: &TextOptions, out: &mut dyn std::io::Write, err: &mut dyn std::io::Write) -> i32 {
    let name = opts.path.display().to_string();
    if let Ok(m) = std::fs::metadata(&opts.path) {
        if m.is_file() && m.len() > MAX_TEXT_BYTES {
            let _ = writeln!(
                err,
                "error[E0704]: {name} is {} bytes; a rules text may have at most {MAX_TEXT_BYTES} bytes",
                m.len()
            );
            return 2;
        }
    }
    let src = match read_regular(&opts.path) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) => {
            let _ = writeln!(err, "error[E0701]: cannot read {name}: {e}");
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
        let doc = to_json(&name, &src, &idx, &findings, opts.index);
        serde_json::to_string_pretty(&doc)
            .map_err(std::io::Error::other)
            .and_then(|s| writeln!(out, "{s}"))
            .and_then(|_| out.flush())
    } else {
        let mut r = Ok(());
        if opts.index {
            r = write!(out, "{}", idx.render_human()).and_then(|_| out.flush());
        }
        r.and_then(|_| {
            writeln!(err, "{name}: numbering style {}", style.name)?;
            render_human(&name, &src, &findings, err)?;
            err.flush()
        })
    };
    match io {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        Err(e) => {
            let _ = writeln!(err, "error[E0702]: cannot write output: {e}");
            return 2;
        }
        Ok(()) => {}
    }
    if findings.iter().any(|f| f.severity == Severity::Error) {
        1
    } else {
        0
    }
}

/// Largest text `kriegsspiel text` reads (the rulebooks' texts are under 300 kB): a
/// bigger one is refused (E0704) before it is read, so that time and memory stay bounded.
pub const MAX_TEXT_BYTES: u64 = 64 << 20;

/// Read a regular file (or a symbolic link to one). A FIFO, socket, device or directory
/// is refused before it is opened: reading one could block forever or never end.
pub fn read_regular(path: &std::path::Path) -> std::io::Result<Vec<u8>> {
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(std::io::Error::other("not a regular file (a FIFO, socket, device or directory)"));
    }
    std::fs::read(path)
}
