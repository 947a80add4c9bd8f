//! Property tests of the compiler front to back: whatever the input, compiling never
//! panics, and every diagnostic's spans (primary and labels) lie inside a file of the
//! compilation, on character boundaries, so that rendering and JSON output work; and no
//! diagnostic is reported twice.
//!
//! Inputs: arbitrary strings, token soup from the language's own vocabulary (after a
//! valid header), and random line and token mutations of the real Peter the Great
//! encoding. Case counts are modest to keep `cargo test` fast.

use kriegsspiel_compiler::{compile, load};
use kriegsspiel_dsl::ast::Span;
use kriegsspiel_dsl::SourceMap;
use proptest::prelude::*;
use proptest::sample::select;
use std::path::PathBuf;
use std::sync::OnceLock;

#[path = "support/mutate.rs"]
mod mutate;
use mutate::{apply, mutate_files, tokens, Mutation, VOCAB};

const PRELUDE: &str = r#"rulebook "Props" {
  numbering dotted lettered;
  dice d6;
}
contents {
  §1.0 "One"
  §2.0 "Two"
  §2.1 "Two one"
}
§1.0 sides { Blue, Red }
"#;

/// Check every span of every diagnostic, and that rendering works.
fn check(sources: &SourceMap) -> Result<(), TestCaseError> {
    let c = compile(sources);
    for (i, d) in c.diagnostics.iter().enumerate() {
        let twin =
            c.diagnostics[..i].iter().any(|e| e.code == d.code && e.span == d.span && e.message == d.message);
        prop_assert!(!twin, "{} reported twice at {:?}: {}", d.code, d.span, d.message);
        let spans = std::iter::once((d.span, "primary")).chain(d.labels.iter().map(|(s, _)| (*s, "label")));
        for (sp, what) in spans {
            span_ok(sources, sp).map_err(|e| {
                TestCaseError::fail(format!("{} {what} span {sp:?} of {}: {e}", d.code, d.message))
            })?;
        }
        let rendered = d.render(sources);
        prop_assert!(rendered.contains(d.code), "rendering lost the code: {rendered}");
        let _ = d.to_json(sources);
    }
    Ok(())
}

fn span_ok(sources: &SourceMap, sp: Span) -> Result<(), String> {
    if (sp.file as usize) >= sources.len() {
        return Err(format!("file id {} but {} files", sp.file, sources.len()));
    }
    let text = sources.text(sp.file);
    let (s, e) = (sp.start as usize, sp.end as usize);
    if s > e {
        return Err("start > end".into());
    }
    if e > text.len() {
        return Err(format!("end {e} beyond the file's {} bytes", text.len()));
    }
    if !text.is_char_boundary(s) || !text.is_char_boundary(e) {
        return Err("not on a character boundary".into());
    }
    Ok(())
}

fn one_file(text: &str) -> SourceMap {
    let mut sm = SourceMap::new();
    sm.add("case.ks", text);
    sm
}

/// The files of a rulebook directory as (name, text).
fn rulebook_files(rel: &str) -> Vec<(String, String)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(rel);
    let sm = load(&dir).unwrap_or_else(|e| panic!("load {rel}: {e}"));
    sm.ids().map(|id| (sm.name(id).to_string(), sm.text(id).to_string())).collect()
}

/// Frederick the Great's files, loaded once.
fn frederick() -> &'static [(String, String)] {
    static FILES: OnceLock<Vec<(String, String)>> = OnceLock::new();
    FILES.get_or_init(|| rulebook_files("rulebooks/frederick-the-great"))
}

/// Peter the Great's files, loaded once.
fn peter() -> &'static [(String, String)] {
    static FILES: OnceLock<Vec<(String, String)>> = OnceLock::new();
    FILES.get_or_init(|| rulebook_files("rulebooks/peter-the-great"))
}

/// A rulebook's files with the mutations applied to the file `file` picks.
fn mutated(files: &[(String, String)], file: usize, muts: &[Mutation]) -> SourceMap {
    let mut sm = SourceMap::new();
    for (name, text) in mutate_files(files, file, muts) {
        sm.add(name.as_str(), text);
    }
    sm
}

/// Play a (mutated) program: the game may end in a runtime error (a code starting with
/// R), or be refused with a message, never panic.
fn plays_without_panic(
    prog: &kriegsspiel_runtime::Program,
    opts: &kriegsspiel_runtime::GameOptions,
) -> Result<(), TestCaseError> {
    match kriegsspiel_runtime::play(prog, opts) {
        Ok(out) => {
            if let Err(e) = out.result {
                prop_assert!(e.code.starts_with('R'), "{e}");
            }
        }
        Err(msg) => prop_assert!(!msg.is_empty()),
    }
    Ok(())
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        any::<usize>().prop_map(Mutation::DeleteLine),
        any::<usize>().prop_map(Mutation::DuplicateLine),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::SwapLines(a, b)),
        (any::<usize>(), select(VOCAB)).prop_map(|(i, t)| Mutation::ReplaceToken(i, t)),
        any::<usize>().prop_map(Mutation::DeleteToken),
        any::<usize>().prop_map(Mutation::Tweak),
    ]
}

/// 128 cases per property, or `PROPTEST_CASES` for a deeper run.
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(128)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_strings_never_panic(s in ".{0,300}") {
        check(&one_file(&s))?;
    }

    #[test]
    fn token_soup_after_a_header_never_panics(
        toks in prop::collection::vec(select(VOCAB), 0..80),
        seps in prop::collection::vec(select(&[" ", "", "\n"][..]), 80),
    ) {
        let mut body = String::new();
        for (t, s) in toks.iter().zip(&seps) {
            body.push_str(t);
            body.push_str(s);
        }
        let mut sm = SourceMap::new();
        sm.add("prelude.ks", PRELUDE);
        sm.add("case.ks", body.as_str());
        check(&sm)?;
        // And alone, without the header.
        check(&one_file(&body))?;
    }

    #[test]
    fn mutated_peter_never_panics(
        file in any::<usize>(),
        muts in prop::collection::vec(mutation(), 1..4),
    ) {
        check(&mutated(peter(), file, &muts))?;
    }
}

proptest! {
    // Each case may play a whole game: fewer cases, and a small step budget.
    #![proptest_config(ProptestConfig { cases: (cases() / 8).max(8), ..ProptestConfig::default() })]

    /// A mutated Peter the Great that still compiles is played: the game may end in a
    /// runtime error (with a code and paragraph), never in a panic.
    #[test]
    fn mutated_peter_that_compiles_plays_without_panic(
        file in any::<usize>(),
        muts in prop::collection::vec(mutation(), 1..3),
        seed in 0u64..1000,
    ) {
        let c = kriegsspiel_compiler::compile(&mutated(peter(), file, &muts));
        if let Some(prog) = c.program {
            for scenario in ["14.4", "14.2"] {
                let opts = kriegsspiel_runtime::GameOptions {
                    scenario: scenario.into(),
                    seed,
                    log: seed % 2 == 0,
                    budget: 3_000_000,
                    ..kriegsspiel_runtime::GameOptions::default()
                };
                plays_without_panic(&prog, &opts)?;
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: (cases() / 8).max(8), ..ProptestConfig::default() })]

    /// The same for Frederick the Great (interrupts, hidden tracks, tracks per group,
    /// `break`, `within`): a mutated encoding compiles without a panic, and one that
    /// still compiles plays its annual campaign without a panic.
    #[test]
    fn mutated_frederick_compiles_and_plays_without_panic(
        file in any::<usize>(),
        muts in prop::collection::vec(mutation(), 1..3),
        seed in 0u64..1000,
    ) {
        let sm = mutated(frederick(), file, &muts);
        check(&sm)?;
        let c = kriegsspiel_compiler::compile(&sm);
        if let Some(prog) = c.program {
            let mut agents = std::collections::BTreeMap::new();
            let kind = if seed % 2 == 0 {
                kriegsspiel_runtime::game::AgentKind::Heuristic
            } else {
                kriegsspiel_runtime::game::AgentKind::Random
            };
            agents.insert("Allies".to_string(), kind.clone());
            agents.insert("Coalition".to_string(), kind);
            let opts = kriegsspiel_runtime::GameOptions {
                scenario: "1757".into(),
                seed,
                agents,
                log: seed % 3 == 0,
                budget: 3_000_000,
                ..kriegsspiel_runtime::GameOptions::default()
            };
            plays_without_panic(&prog, &opts)?;
        }
    }
}

/// Peter the Great compiled once, for the bytecode properties.
fn peter_program() -> &'static kriegsspiel_runtime::Program {
    static P: OnceLock<kriegsspiel_runtime::Program> = OnceLock::new();
    P.get_or_init(|| {
        let mut sm = SourceMap::new();
        for (name, text) in peter() {
            sm.add(name.as_str(), text.as_str());
        }
        kriegsspiel_compiler::compile(&sm).program.expect("Peter compiles")
    })
}

/// Overwrite one operand-sized field of an instruction with an arbitrary value, through
/// the serialised form (the same shape a stored program would have).
fn corrupt(
    p: &kriegsspiel_runtime::Program,
    f: usize,
    pc: usize,
    value: u64,
) -> Option<kriegsspiel_runtime::Program> {
    let mut v = serde_json::to_value(p).ok()?;
    let funcs = v.get_mut("functions")?.as_array_mut()?;
    let n = funcs.len();
    let code = funcs.get_mut(f % n)?.get_mut("code")?.as_array_mut()?;
    let m = code.len();
    let op = code.get_mut(pc % m)?;
    // `{"Variant": {"field": number, ...}}`: replace the first numeric field.
    let fields = op.as_object_mut()?.values_mut().next()?.as_object_mut()?;
    let slot = fields.values_mut().find(|x| x.is_number())?;
    *slot = serde_json::json!(value);
    serde_json::from_value(v).ok()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    /// `verify` never panics on corrupted bytecode, and what it accepts runs (briefly)
    /// without a panic: every instruction index it checked holds.
    #[test]
    fn verify_and_run_survive_corrupted_bytecode(
        f in any::<usize>(),
        pc in any::<usize>(),
        value in prop_oneof![0u64..70, 60_000u64..70_000, any::<u32>().prop_map(u64::from)],
        seed in 0u64..100,
    ) {
        if let Some(bad) = corrupt(peter_program(), f, pc, value) {
            if kriegsspiel_runtime::verify::verify(&bad).is_ok() {
                let opts = kriegsspiel_runtime::GameOptions {
                    scenario: "14.4".into(),
                    seed,
                    log: false,
                    budget: 300_000,
                    ..kriegsspiel_runtime::GameOptions::default()
                };
                let _ = kriegsspiel_runtime::play(&bad, &opts);
            }
        }
    }
}

#[test]
fn unmutated_peter_passes_the_span_check() {
    let files = peter();
    let mut sm = SourceMap::new();
    for (n, t) in files {
        sm.add(n.as_str(), t.as_str());
    }
    check(&sm).unwrap();
    assert!(!compile(&sm).has_errors());
}

#[test]
fn mutations_do_what_they_say() {
    let t = "a b\nc d\ne\n";
    assert_eq!(apply(t, &Mutation::DeleteLine(0)), "c d\ne\n");
    assert_eq!(apply(t, &Mutation::DuplicateLine(0)), "a b\na b\nc d\ne\n");
    assert_eq!(tokens("§7.1 x{"), vec![(0, 5), (6, 7), (7, 8)]);
    assert_eq!(apply("§7.1 x{", &Mutation::ReplaceToken(0, "§9")), "§9 x{");
    // Tweaks: the second tweakable token (`or`), then a number's last digit.
    assert_eq!(apply("a < 1 or b", &Mutation::Tweak(2)), "a < 1 and b");
    assert_eq!(apply("at 0209;", &Mutation::Tweak(0)), "at 0200;");
    assert_eq!(apply("nothing here", &Mutation::Tweak(3)), "nothing here");
}

// ---------------------------------------------------------------- operator chains (issue 10)

/// A header with a procedure whose body holds `expr`, so that every stage from the
/// parser to the verifier sees it.
fn chain_book(expr: &str) -> String {
    format!(
        "{PRELUDE}§1.0 fn deep(x: Int, b: Bool) -> Int = {expr};\n\
         §1.0 procedure p() {{ let v = deep(1, true); log \"v\", v; }}\n\
         §1.0 sequence {{ call p(); draw \"done\"; }}\n"
    )
}

/// `first op operand op operand ...` with `n` operators.
fn chain(first: &str, op: &str, operand: &str, n: usize) -> String {
    let mut s = String::with_capacity(n * (op.len() + operand.len() + 2) + first.len());
    s.push_str(first);
    for _ in 0..n {
        s.push(' ');
        s.push_str(op);
        s.push(' ');
        s.push_str(operand);
    }
    s
}

/// Issue 10, failure 1: `1 + 1 + ... + 1` of 20,000 terms overflowed the compiler's
/// stack (SIGABRT). Long chains of every operator are now refused with E0004 at the
/// nesting limit, before any stage walks them; short ones compile and run.
#[test]
fn long_operator_chains_are_refused_not_aborted() {
    for (first, op, operand) in [
        ("1", "+", "1"),
        ("1", "-", "x"),
        ("x", "*", "1"),
        ("x", "/", "1"),
        ("b", "and", "b"),
        ("b", "or", "true"),
    ] {
        let src = chain_book(&chain(first, op, operand, 20_000));
        let c = compile(&one_file(&src));
        let codes: Vec<&str> = c.diagnostics.iter().filter(|d| d.is_error()).map(|d| d.code).collect();
        assert_eq!(codes, ["E0004"], "{op}: {codes:?}");
        // The diagnostic renders as an excerpt: the line is 100 kB long.
        let r = c.diagnostics[0].render(&one_file(&src));
        assert!(r.len() < 2_000 && r.contains("E0004"), "{r}");
    }
    // Postfix chains nest the same way.
    let mut long_index = String::from("[1]");
    long_index.push_str(&"[0]".repeat(20_000));
    let c = compile(&one_file(&chain_book(&long_index)));
    assert!(c.diagnostics.iter().any(|d| d.code == "E0004"), "{:?}", c.diagnostics);
    // An `else if` ladder nests like blocks.
    let mut ladder = String::from("§1.0 procedure q(x: Int) { if x == 0 { log \"0\"; }");
    for i in 1..20_000 {
        ladder.push_str(&format!(" else if x == {i} {{ log \"n\"; }}"));
    }
    ladder.push_str(" }\n");
    let c = compile(&one_file(&format!("{PRELUDE}{ladder}")));
    assert!(
        c.diagnostics.iter().any(|d| d.code == "E0001" && d.message.contains("nested")),
        "{:?}",
        c.diagnostics
    );
}

/// A chain below the limit compiles, runs its worked example and gives the right value.
#[test]
fn chains_below_the_limit_compile_and_evaluate() {
    let src = format!(
        "{PRELUDE}§1.0 fn sum() -> Int = {};\n\
         §1.0 fn alt() -> Int = {};\n\
         §1.0 procedure p() {{ log \"s\", sum(), alt(); }}\n\
         §1.0 sequence {{ call p(); draw \"done\"; }}\n\
         §1.0 scenario \"s\" \"s\" {{ turns 1; order Blue, Red; }}\n\
         §1.0 example \"the sums\" {{ scenario \"s\"; expect sum() == 150; expect alt() == 0; }}\n",
        chain("1", "+", "1", 149),
        chain("1", "-", "1", 1) + &" + 1 - 1".repeat(70),
    );
    let c = compile(&one_file(&src));
    assert!(!c.has_errors(), "{:?}", c.diagnostics);
    assert_eq!((c.report.examples_run, c.report.examples_passed), (1, 1));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: (cases() / 4).max(16), ..ProptestConfig::default() })]

    /// Chains of any length and operator mix, nested in parentheses or not: compiled or
    /// refused with a diagnostic, never a panic or an abort, and every span checks.
    #[test]
    fn operator_chains_of_any_length_never_abort(
        ops in prop::collection::vec(select(&["+", "-", "*", "and", "or", "==", "<", "."][..]), 1..40),
        reps in 1usize..3000,
        parens in 0usize..4,
    ) {
        let mut body = String::from("x");
        for _ in 0..reps {
            for op in &ops {
                match *op {
                    "." => body.push_str(".cs"),
                    "and" | "or" => { body.push(' '); body.push_str(op); body.push_str(" b"); }
                    _ => { body.push(' '); body.push_str(op); body.push_str(" 1"); }
                }
            }
        }
        let body = format!("{}{body}{}", "(".repeat(parens), ")".repeat(parens));
        check(&one_file(&chain_book(&body)))?;
    }
}
