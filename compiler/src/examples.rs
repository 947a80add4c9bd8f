//! Worked examples: compiled into a wrapper procedure and expectation functions, run
//! by `check` after the program is built. A failing example is a W0003 warning naming
//! the example's paragraph and the paragraphs of the rules it exercised. Each example is
//! also run under every other alternative of every ruling its run read: where the
//! outcome changes, W0005 names the example's paragraph and the ruling's (the text and
//! its example disagree, or the example depends on how an unclear rule is read).

use crate::report::Report;
use kriegsspiel_dsl::ast::BinOp;
use kriegsspiel_dsl::ast::Span;
use kriegsspiel_dsl::Diagnostic;
use kriegsspiel_runtime::game::{
    example_detail, run_example, run_example_traced, ExampleOutcome, ExampleRun,
};
use kriegsspiel_runtime::program::{FnId, Function, Program};

/// The two sides of an expectation that is a comparison, compiled apart (not part of
/// the program): a failed one is reported with both values.
pub struct Probe {
    pub op: BinOp,
    pub left: (Function, Span),
    pub right: (Function, Span),
}

/// At most this many events of a failed example's run are shown (the last ones).
const TRACE_EVENTS: usize = 24;

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
    /// Per expectation, its sides when it is a comparison.
    pub probes: Vec<Option<Probe>>,
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
                for &i in &which {
                    if let Some((_, sp)) = ex.expects.get(i) {
                        d = d.with_label(*sp, "this expectation does not hold");
                    }
                }
                explain(p, ex, &expects, &which, d)
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

/// Label the sides of each failed comparison with their values after the run (the
/// actual value beside the expected one), and add the trace of the run: the events
/// the rules logged, each with its paragraph. The run is repeated with logging on, on a
/// copy of the program that also holds the sides' functions; a run is deterministic,
/// so it is the run that failed.
fn explain(
    p: &Program,
    ex: &ExampleData,
    expects: &[FnId],
    which: &[usize],
    mut d: Diagnostic,
) -> Diagnostic {
    let mut prog = p.clone();
    let mut probes: Vec<(usize, FnId, FnId)> = Vec::new();
    for &i in which {
        if let Some(Some(pr)) = ex.probes.get(i) {
            let l = prog.functions.len() as FnId;
            prog.functions.push(pr.left.0.clone());
            prog.functions.push(pr.right.0.clone());
            probes.push((i, l, l + 1));
        }
    }
    let ids: Vec<FnId> = probes.iter().flat_map(|&(_, l, r)| [l, r]).collect();
    let detail = example_detail(&prog, &example_run(ex, expects, None), &ids);
    for (k, &(i, _, _)) in probes.iter().enumerate() {
        let (Some(Some(pr)), Some(Ok(lv)), Some(Ok(rv))) =
            (ex.probes.get(i), detail.values.get(2 * k), detail.values.get(2 * k + 1))
        else {
            continue;
        };
        d = d.with_label(pr.left.1, format!("this is {lv}")).with_label(pr.right.1, format!("this is {rv}"));
        d = d.with_note(match pr.op {
            BinOp::Eq => format!("expected {rv}, found {lv}"),
            BinOp::Ne => format!("expected anything but {rv}, found {lv}"),
            op => format!("expected a value {} {rv}, found {lv}", op_text(op)),
        });
    }
    if !detail.events.is_empty() {
        let n = detail.events.len();
        let shown = &detail.events[n.saturating_sub(TRACE_EVENTS)..];
        let mut t = if n > shown.len() {
            format!("trace of the run (its last {} of {n} events):", shown.len())
        } else {
            format!("trace of the run ({n} event{}):", if n == 1 { "" } else { "s" })
        };
        for e in shown {
            t.push_str("\n  ");
            t.push_str(&event_line(e));
        }
        d = d.with_note(t);
    } else {
        d = d.with_note("trace of the run: the rules logged no event");
    }
    d
}

fn op_text(op: BinOp) -> &'static str {
    match op {
        BinOp::Lt => "<",
        BinOp::Le => "<=",
        BinOp::Gt => ">",
        BinOp::Ge => ">=",
        BinOp::Eq => "==",
        BinOp::Ne => "!=",
        _ => "?",
    }
}

/// One logged event on one line: its type, its fields as `name=value`, and its
/// paragraph (`roll dice=1d6 value=4 (§7.1)`). The turn, phase and phasing side are
/// the same for the whole of an example and left out.
fn event_line(line: &str) -> String {
    let Ok(serde_json::Value::Object(m)) = serde_json::from_str::<serde_json::Value>(line) else {
        return line.to_string();
    };
    let text = |v: &serde_json::Value| match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let mut out = m.get("type").map(text).unwrap_or_default();
    for (k, v) in &m {
        if matches!(k.as_str(), "type" | "turn" | "phase" | "side" | "para" | "layer") || v.is_null() {
            continue;
        }
        out.push_str(&format!(" {k}={}", text(v)));
    }
    if let Some(p) = m.get("para").filter(|p| !p.is_null()) {
        out.push_str(&format!(" (§{})", text(p)));
    }
    out
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
