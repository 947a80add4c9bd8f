//! Games played as a `Series` (game.rs): each game hands the next its movement-cost
//! memo (runtime/src/memo.rs, "Carried"), as `run --games` and the search agent's
//! playouts do. A game of a series plays and logs exactly as it does alone (debug builds
//! also recompute every answer the memo gives and stop on a stale one), and the series
//! runs fewer instructions than the same games played cold.

use kriegsspiel_compiler::{compile, load};
use kriegsspiel_runtime::game::{play, GameOptions, GameOutcome, Series};
use kriegsspiel_runtime::Program;
use std::path::PathBuf;

mod support;

fn bundled(name: &str) -> Program {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("rulebooks").join(name);
    let c = compile(&load(&dir).expect("loads"));
    c.program.unwrap_or_else(|| panic!("{name} compiles"))
}

fn opts(scenario: &str, seed: u64) -> GameOptions {
    GameOptions { scenario: scenario.into(), seed, ..GameOptions::default() }
}

/// Play `games` (scenario, seed) in one series and each cold; the logs must match.
/// Returns the instructions of the series and of the cold games.
fn series_and_cold(prog: &Program, games: &[(&str, u64)]) -> (u64, u64) {
    let mut series = Series::new(prog);
    let (mut warm, mut cold) = (0, 0);
    for &(scenario, seed) in games {
        let a: GameOutcome = series.play(&opts(scenario, seed)).expect("plays in the series");
        let b = play(prog, &opts(scenario, seed)).expect("plays alone");
        assert_eq!(a.log.lines, b.log.lines, "{} scenario {scenario} seed {seed}", prog.title);
        assert_eq!(a.result.is_ok(), b.result.is_ok());
        assert!(a.final_state == b.final_state);
        warm += a.stats.instructions;
        cold += b.stats.instructions;
    }
    (warm, cold)
}

/// Every scenario of every bundled rulebook, two seeds each, then the first scenario
/// again: the memo is handed to a game of the same scenario, to another scenario (whose
/// flags may differ: the memo starts over) and back.
#[test]
fn a_series_plays_every_bundled_scenario_as_it_plays_alone() {
    let mut saved = Vec::new();
    for name in [
        "peter-the-great",
        "frederick-the-great",
        "torgau",
        "napoleon-at-the-crossroads",
        "sport-of-kings",
        "river-road",
        "blocks-and-cards",
    ] {
        let prog = bundled(name);
        let ids: Vec<&str> = prog.scenarios.iter().map(|s| s.id.as_str()).collect();
        let games: Vec<(&str, u64)> =
            ids.iter().flat_map(|&s| [(s, 1), (s, 2)]).chain([(ids[0], 3)]).collect();
        let (warm, cold) = series_and_cold(&prog, &games);
        assert!(warm <= cold, "{name}: the series ran more instructions ({warm}) than cold games ({cold})");
        saved.push((name, warm, cold));
    }
    // Peter's cost hook is memoised (it reads its unit's side, classes and one marker):
    // the games after the first find most of the terrain's costs answered.
    let (_, warm, cold) = saved[0];
    assert!(warm * 100 < cold * 95, "Peter: {warm} instructions in the series against {cold} cold");
}

/// A cost hook that reads what is fixed for a game but lies outside the state (here the
/// scenario's length): its answers are not handed to a game of another scenario.
const LENGTHS: &str = r#"
rulebook "Lengths" { numbering dotted; dice d6; }
contents { §1.0 "Rules" }
§1.0 sides { A, B }
§1.0 classes { foot }
§1.0 unit Foot: foot
§1.0 terrain Plain { cost: 1 }
§1.0 map "strip" { grid 6 x 1 even_down; default Plain; }
§1.0 counters { A "Walker" Foot { } B "Sitter" Foot { } }
§1.0 fn allowance(u: Unit) -> Int = 3;
§1.0 fn step(u: Unit, a: Hex, b: Hex) -> Int =
  if occupied_by(b, other(u.side)) then -1 else if scenario_turns() > 2 then 1 else 2;
§1.0 movement { allowance: allowance; cost: step; }
§1.0 procedure walk() {
  let w = unit("Walker");
  let h = choose x in reachable(w) by A prefer distance(x, @0101) "where the walker goes";
  move w to h;
}
§1.0 sequence { turns scenario_turns() { call walk(); } draw "time"; }
§1.0 scenario "long" "long" { turns 3; order A, B; setup A { "Walker" at 0101; } setup B { "Sitter" at 0601; } }
§1.0 scenario "short" "short" { turns 2; order A, B; setup A { "Walker" at 0101; } setup B { "Sitter" at 0601; } }
"#;

#[test]
fn a_series_does_not_hand_answers_to_another_scenario() {
    let c = support::inline::compile_one("lengths.ks", LENGTHS);
    assert!(!c.has_errors(), "{:?}", c.diagnostics);
    let prog = c.program.expect("compiles");
    let games = [("long", 1), ("short", 1), ("long", 2), ("short", 2), ("short", 3)];
    series_and_cold(&prog, &games);
}
