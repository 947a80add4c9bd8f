//! `check RULEBOOK [--text RULES.txt]`: compile, run the examples, report coverage and
//! provenance (and, with a text, the rules coverage against it).

use crate::{build, out, Format, Ui};
use kriegsspiel_compiler::read_regular_file;
use kriegsspiel_dsl::diag::capped;
use std::io::Write;

pub(crate) fn cmd_check(
    path: &std::path::Path,
    text: Option<&std::path::Path>,
    format: Format,
    ui: Ui,
    deny_warnings: bool,
) -> u8 {
    let quiet = ui.quiet;
    let (sources, c) = match build(path, format, ui) {
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
            match kriegsspiel_text::coverage(&src, None, &encoded) {
                Ok(r) => Some(r),
                Err(e) => {
                    say!("error: {e}");
                    return 2;
                }
            }
        }
    };
    match format {
        Format::Human if quiet => {
            // Errors only: they were printed by `build`; the exit code tells the rest.
            if let Some(r) = coverage.as_ref().filter(|r| r.has_errors()) {
                say!("{}", r.render_human().trim_end());
            }
        }
        Format::Human => {
            let mut text = c.report.render();
            text.push_str(&format!("  diagnostics: {errors} error(s), {warnings} warning(s)\n"));
            if let Some(r) = &coverage {
                text.push_str(&r.render_human());
            }
            if let Err(code) = out(&text) {
                return code;
            }
        }
        Format::Json => {
            // At most MAX_SHOWN_PER_CODE diagnostics of each code; `not_shown` counts the rest.
            let (shown, rest) = capped(&c.diagnostics);
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
    let text_errors = coverage.map(|r| r.has_errors()).unwrap_or(false);
    if errors > 0 || text_errors || (deny_warnings && warnings > 0) {
        1
    } else {
        0
    }
}
