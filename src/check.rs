//! `check RULEBOOK [--text RULES.txt]`: compile, run the examples, report coverage and
//! provenance (and, with a text, the rules coverage against it).

use crate::{build, out, Format, Ui};
use kriegsspiel_compiler::read_regular_file;
use kriegsspiel_dsl::diag::capped;
use kriegsspiel_dsl::Diagnostic;
use std::io::Write;

pub(crate) fn cmd_check(
    path: &std::path::Path,
    text: Option<&std::path::Path>,
    format: Format,
    ui: Ui,
    deny_warnings: bool,
) -> u8 {
    let quiet = ui.quiet;
    let (sources, mut c) = match build(path, format, ui) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let errors = c.diagnostics.iter().filter(|d| d.is_error()).count();
    let warnings = c.diagnostics.len() - errors;
    let coverage = match text {
        None => None,
        Some(tp) => {
            let src = match read_regular_file(tp) {
                Ok(s) => s,
                Err(e) => {
                    say!("error[E0701]: {e}");
                    return 2;
                }
            };
            let encoded: Vec<kriegsspiel_text::EncodedParagraph> = c
                .report
                .contents
                .iter()
                .map(|(n, t, s)| kriegsspiel_text::EncodedParagraph {
                    number: n.clone(),
                    title: t.clone(),
                    status: match s {
                        kriegsspiel_compiler::ContentStatus::Encoded => {
                            kriegsspiel_text::EncodedStatus::Encoded
                        }
                        kriegsspiel_compiler::ContentStatus::Waived(w) => {
                            kriegsspiel_text::EncodedStatus::Waived(w.clone())
                        }
                        kriegsspiel_compiler::ContentStatus::Superseded(by) => {
                            kriegsspiel_text::EncodedStatus::Waived(format!("superseded by §{by}"))
                        }
                        kriegsspiel_compiler::ContentStatus::Missing => {
                            kriegsspiel_text::EncodedStatus::Listed
                        }
                    },
                })
                .collect();
            let items: Vec<String> = c
                .report
                .anchors
                .iter()
                .filter(|(a, _)| kriegsspiel_compiler::split_item(a).1.is_some())
                .map(|(a, _)| a.clone())
                .collect();
            match kriegsspiel_text::coverage_with_items(&src, None, &encoded, &items) {
                Ok(r) => Some(r),
                Err(e) => {
                    say!("error: {e}");
                    return 2;
                }
            }
        }
    };
    // What the text says of the contents and the anchors: diagnostics with codes and
    // spans in the rulebook, counted with the compiler's.
    let mut text_diags = match (&coverage, text) {
        (Some(r), Some(tp)) => text_diagnostics(&c.report, r, &tp.display().to_string()),
        _ => Vec::new(),
    };
    // A warning the rulebook allows (W0007 with `allow W0007 "reason";`) is counted
    // there, not reported.
    for a in c.report.allowed.iter_mut() {
        let before = text_diags.len();
        text_diags.retain(|d| d.is_error() || d.code != a.code);
        a.count += before - text_diags.len();
    }
    let errors = errors + text_diags.iter().filter(|d| d.is_error()).count();
    let warnings = warnings + text_diags.iter().filter(|d| !d.is_error()).count();
    if format == Format::Human {
        crate::print_diagnostics(&text_diags, &sources, ui);
    }
    match format {
        Format::Human if quiet => {
            // Errors only: they were printed above and by `build`; the exit code tells the rest.
        }
        Format::Human => {
            let mut text = c.report.render();
            text.push_str(&format!("  diagnostics: {errors} error(s), {warnings} warning(s)\n"));
            if let Some(r) = &coverage {
                text.push_str(&r.render_summary());
            }
            if let Err(code) = out(&text) {
                return code;
            }
        }
        Format::Json => {
            // At most MAX_SHOWN_PER_CODE diagnostics of each code; `not_shown` counts the rest.
            let all: Vec<_> = c.diagnostics.iter().chain(&text_diags).cloned().collect();
            let (shown, rest) = capped(&all);
            let diags: Vec<serde_json::Value> = shown.iter().map(|d| d.to_json(&sources)).collect();
            let not_shown: serde_json::Map<String, serde_json::Value> =
                rest.into_iter().map(|(code, n)| (code.to_string(), n.into())).collect();
            let mut v = serde_json::json!({
                "report": serde_json::to_value(&c.report).unwrap_or_default(),
                "diagnostics": diags,
                "not_shown": not_shown,
                "errors": errors,
                "warnings": warnings,
            });
            if let Some(r) = &coverage {
                v["text_coverage"] = r.to_json();
            }
            if let Err(code) = out(&format!("{v}\n")) {
                return code;
            }
        }
    }
    if errors > 0 || (deny_warnings && warnings > 0) {
        1
    } else {
        0
    }
}

/// The coverage report's findings as diagnostics at the contents entries and anchors
/// they are about (E0205-E0207, W0007; docs/errors.md).
fn text_diagnostics(
    report: &kriegsspiel_compiler::Report,
    cov: &kriegsspiel_text::CoverageReport,
    text_name: &str,
) -> Vec<Diagnostic> {
    let entry_span = |n: &str| {
        report
            .contents
            .iter()
            .position(|(x, _, _)| x == n)
            .and_then(|i| report.contents_spans.get(i))
            .copied()
    };
    let mut out = Vec::new();
    for n in &cov.unparsed {
        let span = entry_span(n).unwrap_or_default();
        out.push(
            Diagnostic::error(
                "E0205",
                span,
                format!(
                    "contents entry §{n} is not a paragraph number in {text_name}'s numbering ({})",
                    cov.style
                ),
            )
            .with_paragraph(n.clone()),
        );
    }
    for n in &cov.absent {
        let span = entry_span(n).unwrap_or_default();
        out.push(
            Diagnostic::error(
                "E0206",
                span,
                format!("contents entry §{n} is not a paragraph of {text_name}"),
            )
            .with_note(
                "the text's paragraph index has no such number: a typo, or a paragraph of another book",
            )
            .with_paragraph(n.clone()),
        );
    }
    for (a, have) in &cov.absent_items {
        let (base, _) = kriegsspiel_compiler::split_item(a);
        for (_, span) in report.anchors.iter().filter(|(x, _)| x == a) {
            out.push(
                Diagnostic::error(
                    "E0207",
                    *span,
                    format!("anchor §{a} names an item that §{base} of {text_name} does not have"),
                )
                .with_note(format!("§{base}: {}", kriegsspiel_text::coverage::items_had(have)))
                .with_paragraph(base.clone()),
            );
        }
    }
    for m in &cov.title_mismatches {
        let span = entry_span(&m.number).unwrap_or_default();
        out.push(
            Diagnostic::warning(
                "W0007",
                span,
                format!(
                    "§{} is titled \"{}\" here but \"{}\" in {text_name} (line {})",
                    m.number, m.encoded_title, m.text_title, m.line
                ),
            )
            .with_paragraph(m.number.clone()),
        );
    }
    out
}
