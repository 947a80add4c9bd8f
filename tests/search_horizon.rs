//! The search agent's horizon (`search:N:H`): the rulebook's position score (`score f;`,
//! a pure `fn(Side) -> Int`), playouts cut short H game turns after their fork and
//! scored by it, the errors of a bad declaration, and a horizon refused without a score.

use kriegsspiel_runtime::game::{play, AgentKind, GameOptions, GameOutcome};
use kriegsspiel_runtime::Program;
use std::collections::BTreeMap;

mod support;

/// Three turns. On turn 1 A banks 1 or 2 points (the rulebook prefers 1); the game is a
/// draw whatever happens, so playouts to the end cannot tell the options apart, but the
/// position score (the points banked) can.
const BANK: &str = r#"
rulebook "Bank" { numbering dotted; dice d6; }
contents { §1.0 "Rules" §2.0 "Score" }
§1.0 sides { A, B }
§1.0 classes { foot }
§1.0 unit Foot: foot
§1.0 terrain Plain { cost: 1 }
§1.0 map "strip" { grid 3 x 1 even_down; }
§1.0 counters { A "Scout" Foot { } B "Ghost" Foot { } }
§1.0 track pts per side: 0..9
§1.0 procedure bank() {
  if turn() == 1 {
    let x = choose x in [1, 2] by A prefer (0 - x) "points to bank";
    adjust pts[A] by x;
  }
  let y = choose y in [1, 2] by B prefer y "a roll for nothing";
  if y > 5 { adjust pts[B] by 1; }
}
§2.0 fn points(s: Side) -> Int = pts[s];
§2.0 score points;
§1.0 sequence { turns 3 { call bank(); } draw "the bank is closed"; }
§1.0 scenario "s" "s" { turns 3; order A, B; setup A { "Scout" at 0101; } setup B { "Ghost" at 0301; } }
"#;

fn compiled(src: &str) -> kriegsspiel_compiler::Compilation {
    support::inline::compile_one("horizon.ks", src)
}

fn program(src: &str) -> Program {
    let c = compiled(src);
    assert!(!c.has_errors(), "{:?}", c.diagnostics);
    c.program.expect("compiles")
}

fn game(prog: &Program, seed: u64, a: AgentKind) -> Result<GameOutcome, String> {
    let agents: BTreeMap<String, AgentKind> =
        [("A".to_string(), a), ("B".to_string(), AgentKind::Heuristic)].into_iter().collect();
    play(prog, &GameOptions { scenario: "s".into(), seed, agents, ..GameOptions::default() })
}

fn banked(out: &GameOutcome) -> String {
    let d = out.log.lines.iter().find(|l| l.contains("points to bank")).expect("A's decision");
    d.split(r#""choice":"#).nth(1).and_then(|c| c.split([',', '}']).next()).unwrap_or("").to_string()
}

fn notes(out: &GameOutcome) -> String {
    out.log.lines.iter().find(|l| l.contains(r#""type":"agent""#)).cloned().expect("the agent's notes")
}

#[test]
fn the_position_score_is_read_at_the_horizon() {
    let prog = program(BANK);
    assert!(prog.score.is_some());
    for seed in 1..=3 {
        // To the end every playout is a draw: a tie, so the preferred 1.
        let full = game(&prog, seed, AgentKind::Search(4, None)).expect("plays");
        assert_eq!(banked(&full), "1", "{:?}", full.log.lines);
        // Stopped after a turn and scored by `points`: 2 banked scores better.
        let cut = game(&prog, seed, AgentKind::Search(4, Some(1))).expect("plays");
        assert_eq!(banked(&cut), "2", "{:?}", cut.log.lines);
    }
}

#[test]
fn playouts_stop_at_the_horizon_and_the_log_is_deterministic() {
    let prog = program(BANK);
    let a = game(&prog, 5, AgentKind::Search(4, Some(1))).expect("plays");
    let n = notes(&a);
    // One decision searched (A's only choice with two options), 4 playouts, each forked on
    // turn 1 and stopped as turn 2 begins.
    assert!(n.contains("1 decisions searched with 4 playouts"), "{n}");
    assert!(n.contains("horizon 1 game turn after the fork: 4 playouts stopped there and scored by `points`, 0 ended before it"), "{n}");
    let b = game(&prog, 5, AgentKind::Search(4, Some(1))).expect("plays");
    assert_eq!(a.log.text(), b.log.text(), "same seed, same log");
    // A horizon beyond the game's end: every playout ends before it.
    let far = game(&prog, 5, AgentKind::Search(4, Some(9))).expect("plays");
    assert!(
        notes(&far).contains("0 playouts stopped there and scored by `points`, 4 ended before it"),
        "{}",
        notes(&far)
    );
    // Without a horizon the notes are as before.
    let full = game(&prog, 5, AgentKind::Search(4, None)).expect("plays");
    assert!(!notes(&full).contains("horizon"), "{}", notes(&full));
}

#[test]
fn a_horizon_without_a_score_is_refused() {
    let prog = program(&BANK.replace("§2.0 score points;", ""));
    assert!(prog.score.is_none());
    let e = game(&prog, 1, AgentKind::Search(4, Some(1))).map(|_| ()).unwrap_err();
    assert!(e.contains("A=search:4:1: a horizon needs the rulebook's position score"), "{e}");
    // search:N alone still plays.
    assert!(game(&prog, 1, AgentKind::Search(4, None)).is_ok());
}

fn errors(src: &str) -> Vec<(String, String)> {
    compiled(src)
        .diagnostics
        .iter()
        .filter(|d| d.severity == kriegsspiel_dsl::diag::Severity::Error)
        .map(|d| (d.code.to_string(), d.message.clone()))
        .collect()
}

#[test]
fn a_bad_score_declaration_is_an_error() {
    let unknown = errors(&BANK.replace("§2.0 score points;", "§2.0 score pointz;"));
    assert!(unknown.iter().any(|(c, m)| c == "E0109" && m.contains("`pointz`")), "{unknown:?}");
    let wrong = errors(
        &BANK.replace("fn points(s: Side) -> Int = pts[s];", "fn points(s: Side) -> Bool = pts[s] > 0;"),
    );
    assert!(
        wrong.iter().any(|(c, m)| c == "E0601" && m.contains("`points` must be `fn(Side) -> Int`")),
        "{wrong:?}"
    );
    let twice = errors(&BANK.replace("§2.0 score points;", "§2.0 score points;\n§2.0 score points;"));
    assert!(twice.iter().any(|(c, m)| c == "E0101" && m.contains("second score")), "{twice:?}");
    // A procedure is not pure: refused too.
    let effect = errors(&BANK.replace(
        "§2.0 fn points(s: Side) -> Int = pts[s];",
        "§2.0 procedure points(s: Side) -> Int { return pts[s]; }",
    ));
    assert!(effect.iter().any(|(c, _)| c == "E0601"), "{effect:?}");
}

#[test]
fn the_formatter_keeps_a_score_declaration() {
    let text = BANK.trim_start();
    assert_eq!(kriegsspiel_dsl::format::format_source(text), text);
    let indented = text.replace("§2.0 score points;", "§2.0 score   points ;");
    assert!(kriegsspiel_dsl::format::format_source(&indented).contains("score   points ;"));
}
