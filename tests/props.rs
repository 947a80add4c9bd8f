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

/// Words, names and punctuation of the language, for token soup and replacements.
#[rustfmt::skip]
const VOCAB: &[&str] = &[
    "§1.0", "§2.0", "§2.1", "§2.1.A", "§9.9", "§Rule 4", "§[12.]", "§", "rulebook", "contents",
    "sides", "rating", "classes", "unit", "marker", "track", "terrain", "hexside", "results",
    "table", "modifiers", "fn", "procedure", "movement", "zone_of_control", "retreat", "map",
    "counters", "scenario", "trigger", "ruling", "example", "sequence", "supplied", "waived",
    "roll", "rows", "columns", "result", "beyond", "clamp", "when", "cumulative", "best", "round",
    "up", "cap", "let", "set", "if", "then", "else", "for", "in", "while", "turns", "phase", "call",
    "return", "move", "to", "mark", "unmark", "adjust", "by", "win", "draw", "log", "choose",
    "prefer", "sum", "count", "any", "all", "min", "max", "filter", "where", "is", "has", "and",
    "or", "not", "true", "false", "grid", "x", "even_down", "default", "region", "setup", "at",
    "order", "start", "flag", "steps", "on", "per", "side", "Int", "Bool", "Unit", "Hex", "Side",
    "List", "Blue", "Red", "foot", "Infantry", "cs", "T", "f", "u", "n", "0", "1", "6", "-1",
    "99999999999999999999", "1d6", "0d6", "2d0", "0101", "0203", "@0101", "@9999", "1/2", "x1/0",
    "..", "1..6", "..0", "|", ":", ";", ",", ".", "(", ")", "{", "}", "[", "]", "<", ">", "->", "=",
    "==", "+", "-", "*", "/", "\"s\"", "\"", "//", "\n", "é", "€",
];

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
    let target = file % files.len();
    let mut sm = SourceMap::new();
    for (i, (name, text)) in files.iter().enumerate() {
        let mut t = text.clone();
        if i == target {
            for m in muts {
                t = apply(&t, m);
            }
        }
        sm.add(name.as_str(), t);
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

#[derive(Clone, Debug)]
enum Mutation {
    DeleteLine(usize),
    DuplicateLine(usize),
    SwapLines(usize, usize),
    ReplaceToken(usize, &'static str),
    DeleteToken(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        any::<usize>().prop_map(Mutation::DeleteLine),
        any::<usize>().prop_map(Mutation::DuplicateLine),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::SwapLines(a, b)),
        (any::<usize>(), select(VOCAB)).prop_map(|(i, t)| Mutation::ReplaceToken(i, t)),
        any::<usize>().prop_map(Mutation::DeleteToken),
    ]
}

/// Byte ranges of the tokens of `text`: runs of name characters, or single other
/// non-space characters.
fn tokens(text: &str) -> Vec<(usize, usize)> {
    let word = |c: char| c.is_alphanumeric() || c == '_' || c == '.' || c == '§';
    let mut out = Vec::new();
    let mut it = text.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        if c.is_whitespace() {
            continue;
        }
        let mut end = i + c.len_utf8();
        if word(c) {
            while let Some(&(j, d)) = it.peek() {
                if !word(d) {
                    break;
                }
                end = j + d.len_utf8();
                it.next();
            }
        }
        out.push((i, end));
    }
    out
}

fn apply(text: &str, m: &Mutation) -> String {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut lines = lines;
    match m {
        Mutation::DeleteLine(i) if !lines.is_empty() => {
            lines.remove(i % lines.len());
        }
        Mutation::DuplicateLine(i) if !lines.is_empty() => {
            let k = i % lines.len();
            lines.insert(k, lines[k]);
        }
        Mutation::SwapLines(a, b) if !lines.is_empty() => {
            let (a, b) = (a % lines.len(), b % lines.len());
            lines.swap(a, b);
        }
        Mutation::ReplaceToken(i, _) | Mutation::DeleteToken(i) if !text.is_empty() => {
            let toks = tokens(text);
            if toks.is_empty() {
                return text.to_string();
            }
            let (s, e) = toks[i % toks.len()];
            let with = if let Mutation::ReplaceToken(_, t) = m { *t } else { "" };
            return format!("{}{}{}", &text[..s], with, &text[e..]);
        }
        _ => {}
    }
    lines.concat()
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
}
