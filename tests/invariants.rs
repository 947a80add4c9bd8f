//! Invariants (issue 9): a rule's "must" declared with `invariant`, checked by the VM at
//! the point the declaration names, in every game; a broken one is R0015 with the
//! paragraph, the invariant, the turn, the phase and the units or hexes involved.

use kriegsspiel_compiler::Compilation;
use kriegsspiel_runtime::game::{play, GameOptions};
use kriegsspiel_runtime::RuntimeError;

mod support;

fn compile_one(text: &str) -> Compilation {
    support::inline::compile_one("musts.ks", text)
}

/// Play scenario "s"; the error if the game failed.
fn play_it(c: &Compilation, invariants: bool) -> (Result<String, RuntimeError>, Vec<String>) {
    let prog = c.program.as_ref().expect("compiles");
    let o = GameOptions { scenario: "s".into(), seed: 1, invariants, ..GameOptions::default() };
    let out = play(prog, &o).expect("plays");
    (out.result.map(|r| r.reason), out.log.lines)
}

/// Two sides; in each Fight phase the phasing side hits the enemy units in its reach.
/// `REACH` is how far a hit goes; `STRIDE` how far the scout moves at once.
const BOOK: &str = r#"
rulebook "Musts" { numbering dotted; dice d6; }
contents { §1.0 "Pieces" §2.0 "Moving" §3.0 "Fighting" §3.1 "Every adjacent enemy is hit" §4.0 "Turns" }
§1.0 sides { A, B }
§1.0 rating ma: 0..9
§1.0 classes { foot }
§1.0 unit Foot: foot
§1.0 terrain Plain { cost: 1 }
§1.0 map "field" { grid 6 x 3 even_down; }
§1.0 counters { A "Scout" Foot { ma: 3 } A "Guard" Foot { ma: 3 } B "Left" Foot { ma: 3 } B "Right" Foot { ma: 3 } B "Far" Foot { ma: 3 } }
§3.0 marker Hit on unit
§4.0 track turns_done: 0..9
§2.0 procedure advance() { move unit("Scout") to STRIDE; }
§3.0 procedure fight(s: Side) {
  for d in units(other(s)) {
    if d.on_map and any a in units(s) where a.on_map: distance(a.hex, d.hex) <= REACH { mark d Hit; }
  }
}
§3.0 procedure rest(s: Side) { for u in units(other(s)) { unmark u Hit; } }
§2.0 §3.0 sequence {
  turns 2 {
    for s in order() {
      phase Move(s) { if s == A { call advance(); } }
      phase Fight(s) { call fight(s); }
      phase Rest(s) { call rest(s); }
    }
    adjust turns_done by 1;
  }
  draw "the day ends";
}
§1.0 scenario "s" "s" {
  turns 2;
  order A, B;
  setup A { "Scout" at 0102; "Guard" at 0101; }
  setup B { "Left" at 0302; "Right" at 0303; "Far" at 0603; }
}
§3.1 invariant every_adjacent_enemy_hit "every enemy unit next to a phasing unit was hit"
  after phase Fight(s): all d in units(other(s)) where d.on_map and (any a in units(s) where a.on_map: distance(a.hex, d.hex) == 1): d has Hit;
§2.0 invariant one_hex_at_a_time "a move goes to an adjacent hex"
  after move(u, from, dest): distance(from, dest) <= 1;
§3.0 invariant rested "no unit starts a Move phase marked Hit"
  before phase Move(s): all u in units(other(s)): not (u has Hit);
§4.0 invariant turn_counted "the turn is counted before it ends"
  after turn: turns_done == turn() - 1 or turns_done == turn();
"#;

fn book(reach: &str, stride: &str) -> String {
    BOOK.replace("REACH", reach).replace("STRIDE", stride)
}

#[test]
fn a_game_that_keeps_its_invariants_plays_the_same_with_checking_off() {
    let c = compile_one(&book("1", "@0202"));
    assert!(!c.has_errors());
    assert_eq!(c.report.invariants.len(), 4);
    assert_eq!(c.report.invariants[0], ("every_adjacent_enemy_hit".to_string(), vec!["3.1".to_string()]));
    let (on, log_on) = play_it(&c, true);
    let (off, log_off) = play_it(&c, false);
    assert_eq!(on.expect("no violation"), "the day ends");
    assert!(off.is_ok());
    // Checking is silent: same log, line for line.
    assert_eq!(log_on, log_off);
}

#[test]
fn a_phase_invariant_names_its_paragraph_turn_phase_and_the_units_that_break_it() {
    // Hits reach no one: the two B units next to the scout at 0202 go unhit.
    let c = compile_one(&book("0", "@0202"));
    assert!(!c.has_errors());
    let (r, log) = play_it(&c, true);
    let e = r.expect_err("the must is broken");
    assert_eq!(e.code, "R0015");
    assert_eq!(e.para, "3.1");
    assert_eq!(e.function, "every_adjacent_enemy_hit");
    for part in ["§3.1", "every_adjacent_enemy_hit", "turn 1", "phase Fight (A)", "Left", "Right"] {
        assert!(e.message.contains(part), "{part:?} missing from: {}", e.message);
    }
    assert!(!e.message.contains("Far"), "a unit not adjacent is not named: {}", e.message);
    assert!(e.span.is_some(), "the error points at the invariant");
    assert!(log.last().is_some_and(|l| l.contains("R0015")), "the log ends with the violation");
    // Switched off, the same game plays on to its end.
    assert!(play_it(&c, false).0.is_ok());
}

#[test]
fn a_move_invariant_names_the_mover_and_both_hexes() {
    let c = compile_one(&book("1", "@0402"));
    let e = play_it(&c, true).0.expect_err("a two-hex move");
    assert_eq!((e.code, e.para.as_str(), e.function.as_str()), ("R0015", "2.0", "one_hex_at_a_time"));
    for part in ["Scout", "0102", "0402", "phase Move"] {
        assert!(e.message.contains(part), "{part:?} missing from: {}", e.message);
    }
}

#[test]
fn before_phase_and_after_turn_invariants_are_checked() {
    // Without the Rest phase's clean-up, the next Move phase starts with hit units.
    let c = compile_one(&book("1", "@0202").replace("phase Rest(s) { call rest(s); }", "phase Rest(s) { }"));
    let e = play_it(&c, true).0.expect_err("hit units at the next Move phase");
    assert_eq!(e.function, "rested");
    assert!(e.message.contains("at the start of phase Move"), "{}", e.message);
    // The turn counter is adjusted twice a turn: broken at the end of turn 1.
    let c = compile_one(&book("1", "@0202").replace("adjust turns_done by 1;", "adjust turns_done by 2;"));
    let e = play_it(&c, true).0.expect_err("the count runs ahead");
    assert_eq!(e.function, "turn_counted");
    assert!(e.message.contains("turn 1, at the end of the turn"), "{}", e.message);
}

#[test]
fn any_phase_invariants_run_at_every_phase() {
    let src = book("1", "@0202").replace(
        "§4.0 invariant turn_counted",
        "§3.0 invariant never_hit_at_phase_end \"no unit is marked Hit at the end of a phase\"\n  after any phase(s): all u in units(other(s)): not (u has Hit);\n§4.0 invariant turn_counted",
    );
    let c = compile_one(&src);
    assert!(!c.has_errors());
    let e = play_it(&c, true).0.expect_err("the Fight phase ends with hits");
    assert_eq!(e.function, "never_hit_at_phase_end");
    assert!(e.message.contains("at the end of phase Fight"), "{}", e.message);
}

#[test]
fn invariant_declarations_are_checked_by_the_compiler() {
    let codes = |src: String| -> Vec<&'static str> {
        compile_one(&src).diagnostics.iter().filter(|d| d.is_error()).map(|d| d.code).collect()
    };
    let base = book("1", "@0202");
    // A phase no `phase` statement starts: the invariant would never run.
    assert_eq!(codes(base.replace("after phase Fight(s)", "after phase Battle(s)")), ["E0602"]);
    // Not Bool.
    assert_eq!(
        codes(base.replace(
            "after move(u, from, dest): distance(from, dest) <= 1",
            "after move(u, from, dest): distance(from, dest)"
        )),
        ["E0303"]
    );
    // Pure: no rolls.
    assert_eq!(
        codes(base.replace(
            "after move(u, from, dest): distance(from, dest) <= 1",
            "after move(u, from, dest): roll 1d6 > 0"
        )),
        ["E0304"]
    );
    // Names are unique.
    assert_eq!(codes(base.replace("invariant rested", "invariant one_hex_at_a_time")), ["E0101"]);
    // The bound names have their types.
    assert_eq!(codes(base.replace("distance(from, dest) <= 1", "distance(u, dest) <= 1")), ["E0301"]);
}
