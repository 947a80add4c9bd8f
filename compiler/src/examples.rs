//! Worked examples: compiled into a wrapper procedure and expectation functions, run
//! by `check` after the program is built. A failing example is a W0003 warning naming
//! the example's paragraph and the paragraphs of the rules it exercised. Each example is
//! also run under every other alternative of every ruling its run read: where the
//! outcome changes, W0005 names the example's paragraph and the ruling's (the text and
//! its example disagree, or the example depends on how an unclear rule is read).

use crate::report::Report;
use kriegsspiel_dsl::ast::Span;
use kriegsspiel_dsl::Diagnostic;
use kriegsspiel_runtime::game::{run_example, run_example_traced, ExampleOutcome, ExampleRun};
use kriegsspiel_runtime::program::{FnId, Program};

pub struct ExampleData {
    pub title: String,
    pub para: String,
    /// Paragraph of the procedure the example runs.
    pub rule_para: Option<String>,
    pub scenario: Option<usize>,
    pub places: Vec<(u16, u32)>,
    /// Facing and face of placed units (`place ... facing 2 in Column`).
    pub starts: Vec<(u16, u8, u8)>,
    pub dice: Vec<i64>,
    pub calls: Vec<FnId>,
    pub expects: Vec<(FnId, Span)>,
    pub span: Span,
}

pub fn run_all(p: &Program, examples: &[ExampleData], diags: &mut Vec<Diagnostic>, report: &mut Report) {
    for ex in examples {
        report.examples_run += 1;
        let expects: Vec<FnId> = ex.expects.iter().map(|e| e.0).collect();
        let (outcome, read) = run_example_traced(p, &example_run(ex, &expects, None));
        ruling_sensitivity(p, ex, &expects, matches!(outcome, ExampleOutcome::Passed), &read, diags);
        let mut d = match outcome {
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

/// The runtime's description of an example run, under the given rulings (`None`: the
/// defaults).
fn example_run<'a>(ex: &'a ExampleData, expects: &'a [FnId], rulings: Option<Vec<usize>>) -> ExampleRun<'a> {
    ExampleRun {
        scenario: ex.scenario,
        places: &ex.places,
        starts: &ex.starts,
        dice: &ex.dice,
        calls: ex.calls.iter().map(|&f| (f, Vec::new())).collect(),
        expects,
        rulings,
    }
}

/// Run the example under each non-default alternative of each ruling its default run
/// read (a run is deterministic, so an alternative of a ruling it never read cannot
/// change it); report W0005 where passing or failing changes with the reading.
fn ruling_sensitivity(
    p: &Program,
    ex: &ExampleData,
    expects: &[FnId],
    passed: bool,
    read: &[bool],
    diags: &mut Vec<Diagnostic>,
) {
    let defaults: Vec<usize> = p.rulings.iter().map(|r| r.default).collect();
    for (ri, r) in p.rulings.iter().enumerate() {
        if !read.get(ri).copied().unwrap_or(false) {
            continue;
        }
        for (ai, (alt, _)) in r.alternatives.iter().enumerate() {
            if ai == r.default {
                continue;
            }
            let mut chosen = defaults.clone();
            chosen[ri] = ai;
            let run = example_run(ex, expects, Some(chosen));
            let alt_passed = matches!(run_example(p, &run), ExampleOutcome::Passed);
            if alt_passed == passed {
                continue;
            }
            let default_name = r.alternatives.get(r.default).map(|a| a.0.as_str()).unwrap_or("?");
            let (good, bad) =
                if passed { (default_name, alt.as_str()) } else { (alt.as_str(), default_name) };
            let mut d = Diagnostic::warning(
                "W0005",
                ex.span,
                format!(
                    "example \"{}\" depends on ruling `{}`: reproduced under `{}`, not under `{}`",
                    ex.title, r.name, good, bad
                ),
            )
            .with_paragraph(ex.para.clone());
            for &pid in &r.paras {
                if let Some(text) = p.paragraphs.get(pid as usize) {
                    d = d.with_paragraph(text.clone());
                }
            }
            d = d.with_note(format!("ruling `{}`: {}", r.name, r.question));
            diags.push(d);
        }
    }
}
