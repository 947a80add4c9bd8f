//! Worked examples: compiled into a wrapper procedure and expectation functions, run
//! by `check` after the program is built. A failing example is a W0003 warning naming
//! the example's paragraph and the paragraphs of the rules it exercised.

use crate::report::Report;
use kriegsspiel_dsl::ast::Span;
use kriegsspiel_dsl::Diagnostic;
use kriegsspiel_runtime::game::{run_example, ExampleOutcome, ExampleRun};
use kriegsspiel_runtime::program::{FnId, Program};

pub struct ExampleData {
    pub title: String,
    pub para: String,
    /// Paragraph of the procedure the example runs.
    pub rule_para: Option<String>,
    pub scenario: Option<usize>,
    pub places: Vec<(u16, u32)>,
    pub dice: Vec<i64>,
    pub calls: Vec<FnId>,
    pub expects: Vec<(FnId, Span)>,
    pub span: Span,
}

pub fn run_all(p: &Program, examples: &[ExampleData], diags: &mut Vec<Diagnostic>, report: &mut Report) {
    for ex in examples {
        report.examples_run += 1;
        let expects: Vec<FnId> = ex.expects.iter().map(|e| e.0).collect();
        let run = ExampleRun {
            scenario: ex.scenario,
            places: &ex.places,
            dice: &ex.dice,
            calls: ex.calls.iter().map(|&f| (f, Vec::new())).collect(),
            expects: &expects,
        };
        let mut d = match run_example(p, &run) {
            ExampleOutcome::Passed => {
                report.examples_passed += 1;
                continue;
            }
            ExampleOutcome::Failed(which) => {
                let mut d = Diagnostic::warning(
                    "W0003",
                    ex.span,
                    format!("example \"{}\" is not reproduced by the rules as encoded", ex.title),
                );
                for i in which {
                    if let Some((_, sp)) = ex.expects.get(i) {
                        d = d.with_label(*sp, "this expectation does not hold");
                    }
                }
                d
            }
            ExampleOutcome::Error(e) => Diagnostic::warning(
                "W0003",
                ex.span,
                format!("example \"{}\" stopped with a runtime error: {}", ex.title, e),
            ),
        };
        d = d.with_paragraph(ex.para.clone());
        if let Some(rp) = &ex.rule_para {
            d = d.with_paragraph(rp.clone());
        }
        diags.push(d);
    }
}
