//! Output: findings as codespan-reporting diagnostics (file, line, column, the
//! paragraph they sit in) and as JSON data.

use codespan_reporting::diagnostic::{Diagnostic, Label};
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term::{self, Config};

use crate::checks::{count_by_code, Finding, Severity};
use crate::index::TextIndex;

/// Write every finding as a codespan diagnostic, then a one-line summary.
pub fn render_human(
    file_name: &str,
    src: &str,
    findings: &[Finding],
    err: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let file = SimpleFile::new(file_name, src);
    let config = Config::default();
    for f in findings {
        let diag = to_diagnostic(f);
        if term::emit_to_io_write(err, &config, &file, &diag).is_err() {
            writeln!(err, "{file_name}:{}: {}[{}]: {}", f.line, sev(f.severity), f.code, f.message)?;
        }
    }
    writeln!(err, "{}", summary(findings))?;
    Ok(())
}

fn sev(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "note",
    }
}

/// One finding as a codespan diagnostic.
pub fn to_diagnostic(f: &Finding) -> Diagnostic<()> {
    let d = match f.severity {
        Severity::Error => Diagnostic::error(),
        Severity::Warning => Diagnostic::warning(),
        Severity::Note => Diagnostic::note(),
    };
    let label = match &f.paragraph {
        Some(p) => format!("in §{p}"),
        None => "before the first numbered paragraph".to_string(),
    };
    let mut notes = f.notes.clone();
    if let Some(p) = &f.paragraph {
        notes.insert(0, format!("paragraph: §{p}"));
    }
    d.with_code(f.code)
        .with_message(&f.message)
        .with_labels(vec![Label::primary((), f.start..f.end).with_message(label)])
        .with_notes(notes)
}

/// `3 errors, 2 warnings, 0 notes (T0001 ×2, ...)`.
pub fn summary(findings: &[Finding]) -> String {
    let n = |s: Severity| findings.iter().filter(|f| f.severity == s).count();
    let by: Vec<String> = count_by_code(findings).into_iter().map(|(c, k)| format!("{c} ×{k}")).collect();
    format!(
        "{} errors, {} warnings, {} notes{}",
        n(Severity::Error),
        n(Severity::Warning),
        n(Severity::Note),
        if by.is_empty() { String::new() } else { format!(" ({})", by.join(", ")) }
    )
}

/// Findings (and optionally the index) as one JSON document.
pub fn to_json(
    file_name: &str,
    index: &TextIndex,
    findings: &[Finding],
    with_index: bool,
) -> serde_json::Value {
    let mut doc = serde_json::json!({
        "file": file_name,
        "style": index.style.name,
        "headings": index.headings_only().count(),
        "findings": findings,
        "summary": {
            "errors": findings.iter().filter(|f| f.severity == Severity::Error).count(),
            "warnings": findings.iter().filter(|f| f.severity == Severity::Warning).count(),
            "notes": findings.iter().filter(|f| f.severity == Severity::Note).count(),
        },
    });
    if with_index {
        if let Some(obj) = doc.as_object_mut() {
            obj.insert(
                "paragraphs".into(),
                serde_json::to_value(&index.paragraphs).unwrap_or(serde_json::Value::Null),
            );
        }
    }
    doc
}
