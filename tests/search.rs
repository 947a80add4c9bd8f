//! The search agent (`search:N`, issue 17 section 3): it looks ahead with playouts that
//! replay the game and fork at the decision; the playouts read the other side's hidden
//! values as their public estimate (never the true ones), a secret choice not yet
//! revealed stops it searching, and its games are as deterministic as any.

use kriegsspiel_compiler::{compile, load};
use kriegsspiel_runtime::game::{play, AgentKind, GameOptions, GameOutcome};
use kriegsspiel_runtime::Program;
use std::collections::BTreeMap;
use std::path::PathBuf;

mod support;

/// A gamble on a hidden strength: A attacks (and wins only if the Ghost's strength is
/// below 3) or holds (a draw). The rulebook prefers holding; the Ghost's strength is
/// hidden, shown to A as 2.
const GAMBLE: &str = r#"
rulebook "Gamble" { numbering dotted; dice d6; }
contents { §1.0 "Rules" §2.0 "Secrets" }
§1.0 sides { A, B }
§1.0 rating str: 0..9
§1.0 classes { foot }
§1.0 unit Foot: foot
§1.0 terrain Plain { cost: 1 }
§1.0 map "strip" { grid 3 x 1 even_down; }
§1.0 counters { A "Scout" Foot { str: 2 } B "Ghost" Foot { str: 9 } }
§2.0 track str per unit: 0..9
§2.0 fn guess(u: Unit) -> Int = 2;
§2.0 hidden str shown guess;
§1.0 procedure decide() {
  let attack = choose b in [true, false] by A prefer (if b then 0 else 1) "attack the ghost";
  if attack {
    if str[unit("Ghost")] < 3 { win A "the ghost is beaten"; }
    win B "the attack failed";
  }
}
§1.0 sequence { call decide(); draw "A held"; }
§1.0 scenario "s" "s" { turns 1; order A, B; setup A { "Scout" at 0101; } setup B { "Ghost" at 0301; } }
"#;

fn program(src: &str) -> Program {
    let c = support::inline::compile_one("search.ks", src);
    assert!(!c.has_errors());
    c.program.expect("compiles")
}

fn game(prog: &Program, seed: u64, a: AgentKind, b: AgentKind) -> GameOutcome {
    let agents: BTreeMap<String, AgentKind> =
        [("A".to_string(), a), ("B".to_string(), b)].into_iter().collect();
    play(prog, &GameOptions { scenario: "s".into(), seed, agents, ..GameOptions::default() }).expect("plays")
}

fn decisions(out: &GameOutcome) -> Vec<String> {
    out.log.lines.iter().filter(|l| l.contains(r#""type":"decision""#)).cloned().collect()
}

fn winner(out: &GameOutcome) -> Option<String> {
    out.result.as_ref().expect("a result").winner.clone()
}

#[test]
fn the_search_reads_the_other_sides_hidden_values_as_their_estimate() {
    let strong = program(GAMBLE);
    let weak = program(&GAMBLE.replace(r#""Ghost" Foot { str: 9 }"#, r#""Ghost" Foot { str: 1 }"#));
    for seed in 1..=3 {
        // The heuristic holds (the rulebook's preference): a draw either way.
        let h = game(&strong, seed, AgentKind::Heuristic, AgentKind::Heuristic);
        assert!(decisions(&h)[0].contains(r#""choice":false"#), "{:?}", decisions(&h));
        // The search's playouts see the estimate (2 < 3: the attack wins), whatever the
        // Ghost's true strength: the same decision in both games...
        let s = game(&strong, seed, AgentKind::Search(8, None), AgentKind::Heuristic);
        let w = game(&weak, seed, AgentKind::Search(8, None), AgentKind::Heuristic);
        assert_eq!(decisions(&s), decisions(&w), "the hidden value changed the search's decision");
        assert!(decisions(&s)[0].contains(r#""choice":true"#), "{:?}", decisions(&s));
        // ...which the game then resolves with the true values.
        assert_eq!(winner(&s).as_deref(), Some("B"));
        assert_eq!(winner(&w).as_deref(), Some("A"));
        // With nothing hidden the playouts read the true 9: the search holds.
        let open = program(&GAMBLE.replace("§2.0 hidden str shown guess;", ""));
        let o = game(&open, seed, AgentKind::Search(8, None), AgentKind::Heuristic);
        assert!(decisions(&o)[0].contains(r#""choice":false"#), "{:?}", decisions(&o));
        assert_eq!(winner(&o), None);
    }
}

/// B chooses an objective in secret before A decides; the reveal comes after A's first
/// decision and before its second. A's playouts would replay B's unrevealed choice, so
/// the search answers that decision as the heuristic and says so; the second it searches.
#[test]
fn an_unrevealed_secret_choice_is_not_read_by_the_search() {
    let src = r#"
rulebook "Secret" { numbering dotted; dice d6; }
contents { §1.0 "Rules" }
§1.0 sides { A, B }
§1.0 classes { foot }
§1.0 unit Foot: foot
§1.0 terrain Plain { cost: 1 }
§1.0 map "strip" { grid 3 x 1 even_down; }
§1.0 counters { A "Scout" Foot { } B "Ghost" Foot { } }
§1.0 track goal: 0..9
§1.0 procedure decide() {
  let g = choose x in [1, 2] by B secret prefer x "objective";
  set goal = g;
  let first = choose b in [true, false] by A prefer (if b then 0 else 1) "guess early";
  reveal goal by B "objective";
  let second = choose b in [true, false] by A prefer (if b then 0 else 1) "guess late";
  if second == (goal == 2) { win A "guessed"; }
  win B "not guessed";
}
§1.0 sequence { call decide(); draw "no game"; }
§1.0 scenario "s" "s" { turns 1; order A, B; setup A { "Scout" at 0101; } setup B { "Ghost" at 0301; } }
"#;
    let prog = program(src);
    let out = game(&prog, 1, AgentKind::Search(4, None), AgentKind::Heuristic);
    let notes: Vec<&String> = out.log.lines.iter().filter(|l| l.contains(r#""type":"agent""#)).collect();
    assert_eq!(notes.len(), 1, "{:?}", out.log.lines);
    assert!(notes[0].contains("1 decisions searched"), "{}", notes[0]);
    assert!(
        notes[0].contains("1 decisions answered by the heuristic: another side's secret"),
        "{}",
        notes[0]
    );
    // After the reveal the search reads B's objective (2, the heuristic's) and guesses it.
    assert_eq!(winner(&out).as_deref(), Some("A"), "{:?}", out.log.lines);
}

fn fred() -> Program {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("rulebooks/frederick-the-great");
    let sources = load(&dir).expect("rulebook loads");
    compile(&sources).program.expect("Frederick the Great compiles")
}

/// On a real rulebook with hidden tracks (Frederick 1757): every playout replays the game
/// it forks from (no R0019, no runtime error), resumed from its turn's checkpoint, and the
/// same seed gives the same log.
#[test]
fn search_games_replay_faithfully_and_are_deterministic() {
    let prog = fred();
    let opts = |seed| {
        let agents: BTreeMap<String, AgentKind> = [
            ("Allies".to_string(), AgentKind::Search(2, None)),
            ("Coalition".to_string(), AgentKind::Heuristic),
        ]
        .into_iter()
        .collect();
        GameOptions { scenario: "1757".into(), seed, agents, ..GameOptions::default() }
    };
    let a = play(&prog, &opts(7)).expect("plays");
    assert!(a.result.is_ok(), "{:?}", a.result);
    let notes = a.log.lines.iter().find(|l| l.contains(r#""type":"agent""#)).expect("the agent's notes");
    assert!(notes.contains("2 playouts per decision"), "{notes}");
    assert!(!notes.contains("did not replay") && !notes.contains("runtime error"), "{notes}");
    let searched: u64 = notes
        .split("decisions searched")
        .next()
        .and_then(|s| s.rsplit(' ').nth(1))
        .and_then(|n| n.parse().ok())
        .expect("a count of searched decisions");
    assert!(searched > 100, "{notes}");
    // Playouts resume from the turn's checkpoint (and, in this debug build, each is
    // also replayed from the start and compared: `check_resumed` in search.rs).
    let resumed: u64 = notes
        .split(" playouts resumed from the start of their turn")
        .next()
        .and_then(|s| s.rsplit('"').next())
        .and_then(|n| n.parse().ok())
        .expect("a count of resumed playouts");
    assert!(resumed > 100, "{notes}");
    let b = play(&prog, &opts(7)).expect("plays");
    assert_eq!(a.log.text(), b.log.text(), "same seed, same log");
}
