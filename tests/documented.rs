//! Behaviours docs/language.md states for questions a newcomer asked (issue 16, part 4),
//! each shown by worked examples that the compiler runs (`check`'s W0003 fails them)
//! and whose expectations fail under the other reading:
//! - a counter eliminated (or removed) and moved back onto the map (section 9);
//! - `u.hex` inside the retreat hooks is the hex the retreat starts from (6.15);
//! - the heuristic agent and `or none` when every score is negative, zero, or below the
//!   declining score (8.7);
//! - `in_phase(P)`, the phase being played, read in a fn (as hooks are) (section 10).

use kriegsspiel_compiler::{compile, Compilation};
use kriegsspiel_dsl::SourceMap;

const BOOK: &str = r#"
rulebook "Documented" { numbering dotted; dice d6; }
contents { §1.0 "Pieces" §2.0 "Back on the map" §3.0 "Retreat" §4.0 "Declining" §5.0 "Phases" }
§1.0 sides { A, B }
§1.0 classes { foot }
§1.0 unit Foot: foot steps 3
§1.0 rating cs: 0..9
§1.0 terrain Plain { cost: 1 }
§1.0 map "strip" { grid 4 x 1 even_down; default Plain; }
§1.0 marker Shaken on unit
§1.0 counters { A "Alpha" Foot { cs: 4/3/2 } A "Bravo" Foot { cs: 3/2/1 } }
§1.0 sequence { draw "nothing to play"; }
§1.0 scenario "s" "s" { turns 1; order A, B; setup A { "Alpha" at 0101; "Bravo" at 0201; } }

§2.0 procedure shot_down(u: Unit) { mark u Shaken; lose_step u; eliminate u; }
§2.0 procedure worn_out(u: Unit) { lose_step u; lose_step u; lose_step u; }
§2.0 procedure rally(u: Unit, h: Hex) { move u to h; }
§2.0 example "an eliminated counter moved back keeps its steps and markers" {
  scenario "s";
  place "Alpha" at 0101;
  run shot_down(unit("Alpha"));
  run rally(unit("Alpha"), @0301);
  expect unit("Alpha").on_map;
  expect unit("Alpha").hex == @0301;
  expect unit("Alpha").steps == 2;
  expect unit("Alpha").cs == 3;
  expect unit("Alpha") has Shaken;
}
§2.0 example "a counter eliminated by its last step comes back with one" {
  scenario "s";
  place "Bravo" at 0201;
  run worn_out(unit("Bravo"));
  run rally(unit("Bravo"), @0201);
  expect unit("Bravo").steps == 1;
  expect unit("Bravo").cs == 1;
}
§2.0 example "while eliminated it has no hex and no steps" {
  scenario "s";
  place "Bravo" at 0201;
  run worn_out(unit("Bravo"));
  expect not unit("Bravo").on_map;
  expect unit("Bravo").steps == 0;
}

// The hooks see the unit where it stands: `u.hex` is the start, `h` the candidate.
§3.0 fn from_start(u: Unit, a: Hex, b: Hex) -> Bool = a == u.hex or distance(u.hex, a) == 1;
§3.0 fn one_away(u: Unit, h: Hex) -> Bool = distance(u.hex, h) == 1;
§3.0 fn eastward(u: Unit, h: Hex) -> Int = distance(@0101, h);
§3.0 retreat { enter: from_start; end: one_away; prefer: [end eastward]; }
§3.0 procedure fall_back(u: Unit) { retreat u by 1; }
§3.0 example "the end hook reads u.hex as the hex the retreat starts from" {
  scenario "s";
  place "Bravo" at 0201;
  run fall_back(unit("Bravo"));
  expect unit("Bravo").hex == @0301;
}

§4.0 track taken: 0..9
§4.0 procedure offer(s: Side, score: Int) {
  let x = choose u in units(s) by s prefer score or none "who goes";
  if present(x) { adjust taken by 1; }
}
§4.0 procedure offer_against(s: Side, score: Int, decline: Int) {
  let x = choose u in units(s) by s prefer score or none prefer decline "who goes";
  if present(x) { adjust taken by 1; }
}
§4.0 example "every option below zero: the heuristic agent declines" {
  scenario "s";
  place "Alpha" at 0101;
  place "Bravo" at 0201;
  run offer(A, -1);
  expect taken == 0;
}
§4.0 example "a score of zero ties with declining: the agent takes the option" {
  scenario "s";
  place "Alpha" at 0101;
  place "Bravo" at 0201;
  run offer(A, 0);
  expect taken == 1;
}
§4.0 example "a declining score below every option's: the agent takes one" {
  scenario "s";
  place "Alpha" at 0101;
  place "Bravo" at 0201;
  run offer_against(A, -3, -5);
  expect taken == 1;
}

// `in_phase` in a fn (as hooks are) and in a procedure: the innermost phase being played.
§5.0 track moved: 0..9
§5.0 track fought: 0..9
§5.0 track outside: 0..9
§5.0 fn moving() -> Bool = in_phase(Movement);
§5.0 procedure note() {
  if moving() { adjust moved by 1; }
  if in_phase(Combat) { adjust fought by 1; }
  if not moving() and not in_phase(Combat) { adjust outside by 1; }
}
§5.0 procedure a_turn() {
  phase Movement(A) { call note(); }
  phase Combat(A) { call note(); call note(); }
  call note();
}
§5.0 example "in_phase reads the phase being played" {
  scenario "s";
  run a_turn();
  expect moved == 1;
  expect fought == 2;
  expect outside == 1;
}
"#;

fn compiled() -> Compilation {
    let mut sources = SourceMap::new();
    sources.add("documented.ks", BOOK);
    compile(&sources)
}

#[test]
fn every_documented_behaviour_holds() {
    let c = compiled();
    let shown: Vec<String> =
        c.diagnostics.iter().map(|d| format!("{} {} {:?}", d.code, d.message, d.labels)).collect();
    assert!(c.program.is_some(), "{shown:#?}");
    assert!(c.diagnostics.is_empty(), "{shown:#?}");
    assert_eq!(c.report.examples_run, 8);
    assert_eq!(c.report.examples_passed, 8);
}

/// A phase no `phase` statement plays is E0602, with the phases there are.
#[test]
fn in_phase_of_a_phase_never_played() {
    let mut sources = SourceMap::new();
    sources.add("documented.ks", BOOK.replacen("in_phase(Combat)", "in_phase(Combat_)", 1));
    let c = compile(&sources);
    let e: Vec<_> = c.diagnostics.iter().filter(|d| d.is_error()).collect();
    assert_eq!(e.len(), 1, "{:?}", c.diagnostics);
    assert_eq!(e[0].code, "E0602");
    assert_eq!(e[0].message, "unknown phase `Combat_`");
    assert!(e[0].notes.iter().any(|n| n == "did you mean `Combat`?"), "{:?}", e[0].notes);
}

/// The expectations can fail: under the other reading of each behaviour the same
/// examples are W0003.
#[test]
fn the_other_readings_fail() {
    for (from, to) in [
        // Back with full steps rather than those it had.
        ("expect unit(\"Alpha\").steps == 2;", "expect unit(\"Alpha\").steps == 3;"),
        // `u.hex` as the candidate hex: no path would end one hex away.
        ("expect unit(\"Bravo\").hex == @0301;", "expect unit(\"Bravo\").hex == @0201;"),
        // Taking an option scored below zero.
        ("run offer(A, -1);\n  expect taken == 0;", "run offer(A, -1);\n  expect taken == 1;"),
        // The Combat phase read a different number of times.
        ("expect fought == 2;", "expect fought == 0;"),
    ] {
        assert!(BOOK.contains(from), "{from}");
        let mut sources = SourceMap::new();
        sources.add("documented.ks", BOOK.replacen(from, to, 1));
        let c = compile(&sources);
        let w: Vec<_> = c.diagnostics.iter().filter(|d| d.code == "W0003").collect();
        assert_eq!(w.len(), 1, "{to}: {:?}", c.diagnostics);
        assert_eq!(c.report.examples_passed, 7);
    }
}
