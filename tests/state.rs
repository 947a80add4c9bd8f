//! Richer state and procedures (issue 18): tracks set in one statement and tracks with
//! two keys; `let` in `fn` bodies and procedures that return a value; dice pools
//! (`roll n d6`); list concatenation and union; steps regained; and the log recording
//! effects and decisions, not evaluations (no lookups of pure code, no adjustments by
//! zero).

use kriegsspiel_compiler::Compilation;
use kriegsspiel_runtime::game::{play, AgentKind, GameOptions};
use std::collections::BTreeMap;

mod support;

const BOOK: &str = r#"
rulebook "State" { numbering dotted; dice d6; }
contents {
  §1.0 "Pieces" §2.0 "Tracks" §3.0 "Procedures" §4.0 "Dice pools" §5.0 "Lists" §6.0 "Steps"
}
§1.0 sides { A, B }
§1.0 rating cs: 0..9
§1.0 classes { foot }
§1.0 unit Foot: foot steps 3
§1.0 terrain Plain { cost: 1 }
§1.0 map "strip" { grid 4 x 1 even_down; }
§1.0 counters {
  A "Alpha" Foot { cs: 4/3/2 }
  A "Bravo" Foot { cs: 3/2/1 }
  B "Xray" Foot { cs: 5/4/3 }
}
§2.0 results Border { North, South }
§2.0 track morale: 0..10
§2.0 track vp per side: 0..20
§2.0 track crossed per side per Border: 0..5
§2.0 track hits per unit per side: 0..9
§2.0 table Fire {
  roll 1d6;
  rows { 1-3: 0; 4-6: 1; }
}
§2.0 fn fire_result(r: Int) -> Int = Fire[r];
§3.0 fn odds(a: Int, d: Int) -> Int {
  let q = a / d;
  let capped = if q > 3 then 3 else q;
  capped + 1
}
§3.0 procedure strongest(s: Side) -> Unit {
  let best = first(units(s));
  for u in units(s) { if u.cs > best.cs { set best = u; } }
  return best;
}
§3.0 procedure attack(s: Side) -> Int {
  let r = roll 1d6;
  if r >= 4 { return 2; } else { return 0; }
}
§4.0 procedure volley(n: Int) -> Int {
  let dice = roll n d6;
  return count d in dice where d >= 5;
}
§6.0 procedure wear(u: Unit) { lose_step u; lose_step u; regain_step u; }
§2.0 procedure reset_all() {
  set morale = 7;
  set vp[A] = 3;
  set crossed[A, North] = 2;
  adjust crossed[A, North] by 1;
  adjust crossed[B, South] by 4;
  set hits[unit("Alpha"), B] = 5;
  adjust vp[B] by 0;
  set morale = 7;
}
§1.0 sequence {
  call reset_all();
  §2.0 log "fire {}", fire_result(5);
  §3.0 log "strongest {}", strongest(A);
  §3.0 log "attack {}", attack(B);
  §4.0 log "hits {}", volley(4);
  §5.0 log "lists {} {}", [1, 2] + [2, 3], union([3, 1, 2], [2, 4, 1]);
  call wear(unit("Bravo"));
  §2.0 log "fire in a procedure {}", Fire[roll 1d6];
  draw "done";
}
§1.0 scenario "s" "s" { turns 1; order A, B; setup A { "Alpha" at 0101; "Bravo" at 0201; } setup B { "Xray" at 0401; } }
§2.0 example "tracks are set and adjusted by one and two keys" {
  scenario "s";
  run reset_all();
  expect morale == 7 and vp[A] == 3 and vp[B] == 0;
  expect crossed[A, North] == 3 and crossed[B, South] == 4 and crossed[A, South] == 0 and crossed[B, North] == 0;
  expect hits[unit("Alpha"), B] == 5 and hits[unit("Alpha"), A] == 0 and hits[unit("Bravo"), B] == 0;
}
§3.0 example "let names in a fn body" {
  scenario "s";
  expect odds(9, 2) == 4 and odds(5, 2) == 3 and odds(1, 2) == 1;
}
§4.0 example "a pool counts the dice of 5 or more, one forced value per die" {
  scenario "s";
  dice 5 1 6 4;
  run volley(4);
}
§6.0 example "a step lost twice and regained once leaves one step lost" {
  scenario "s";
  place "Bravo" at 0201;
  run wear(unit("Bravo"));
  expect unit("Bravo").steps == 2 and unit("Bravo").cs == 2;
}
"#;

fn compile_src(src: &str) -> Compilation {
    support::inline::compile_one("state.ks", src)
}

fn errors(src: &str) -> Vec<(String, String)> {
    compile_src(src).diagnostics.iter().map(|d| (d.code.to_string(), d.message.clone())).collect()
}

fn run(seed: u64) -> Vec<String> {
    let c = compile_src(BOOK);
    let agents: BTreeMap<String, AgentKind> =
        [("A".to_string(), AgentKind::Random), ("B".to_string(), AgentKind::Random)].into();
    let out = play(
        c.program.as_ref().expect("compiles"),
        &GameOptions { scenario: "s".into(), seed, agents, ..GameOptions::default() },
    )
    .expect("plays");
    assert!(out.result.is_ok(), "{:?}", out.result);
    out.log.lines
}

#[test]
fn the_rulebook_compiles_and_its_examples_pass() {
    let c = compile_src(BOOK);
    assert!(!c.has_errors());
    assert_eq!((c.report.examples_run, c.report.examples_passed), (4, 4));
}

#[test]
fn track_events_log_changes_only() {
    let lines = run(1);
    let track: Vec<&String> = lines.iter().filter(|l| l.contains(r#""type":"track""#)).collect();
    // morale set (7), vp[A] set, crossed set, crossed adjusted, crossed[B, South], hits:
    // six changes. The adjustment of vp[B] by zero and the second set of morale to 7
    // change nothing and are not logged.
    assert_eq!(track.len(), 6, "{track:#?}");
    assert!(track[0].contains(r#""track":"morale""#) && track[0].contains(r#""set":7"#), "{}", track[0]);
    assert!(track[0].contains(r#""by":7"#) && track[0].contains(r#""value":7"#), "{}", track[0]);
    assert!(track[2].contains(r#""of":["A","North"]"#) && track[2].contains(r#""value":2"#), "{}", track[2]);
    assert!(track[3].contains(r#""by":1"#) && track[3].contains(r#""value":3"#), "{}", track[3]);
    assert!(track[5].contains(r#""of":["Alpha","B"]"#), "{}", track[5]);
}

#[test]
fn values_of_procedures_pools_and_lists_reach_the_log() {
    let lines = run(1);
    let note = |prefix: &str| {
        lines.iter().find(|l| l.contains(&format!(r#""message":"{prefix}"#))).cloned().unwrap_or_default()
    };
    assert!(note("strongest").contains("strongest Alpha"), "{}", note("strongest"));
    assert!(note("lists").contains("lists [1,2,2,3] [3,1,2,4]"), "{}", note("lists"));
    // The pool: one roll event with every die, and the count of 5s and 6s in the note.
    let pool = lines.iter().find(|l| l.contains(r#""dice":"4d6""#)).expect("a pool roll");
    let v: serde_json::Value = serde_json::from_str(pool).expect("json");
    let faces: Vec<i64> =
        v["dice_values"].as_array().expect("dice").iter().filter_map(|x| x.as_i64()).collect();
    assert_eq!(faces.len(), 4);
    assert!(faces.iter().all(|f| (1..=6).contains(f)));
    assert_eq!(v["value"].as_i64(), Some(faces.iter().sum::<i64>()));
    let hits = faces.iter().filter(|&&f| f >= 5).count();
    assert!(note("hits").contains(&format!("hits {hits}")), "{} vs {faces:?}", note("hits"));
    // Steps: two losses and one regain, each an event.
    assert_eq!(lines.iter().filter(|l| l.contains(r#""type":"step_loss""#)).count(), 2);
    let gain = lines.iter().find(|l| l.contains(r#""type":"step_gain""#)).expect("a step regained");
    assert!(gain.contains(r#""unit":"Bravo""#) && gain.contains(r#""steps_left":2"#), "{gain}");
}

#[test]
fn lookups_are_logged_in_procedures_not_in_pure_fns() {
    for seed in 1..=20 {
        let lines = run(seed);
        let lookups: Vec<&String> = lines.iter().filter(|l| l.contains(r#""type":"lookup""#)).collect();
        // `fire_result(5)` is a fn (an evaluation); `Fire[roll 1d6]` in the sequence is
        // the game's lookup.
        assert_eq!(lookups.len(), 1, "seed {seed}: {lookups:#?}");
        assert!(lookups[0].contains(r#""at":"2.0""#));
        assert!(lines.iter().any(|l| l.contains(r#""message":"fire 1""#)), "the fn still reads the table");
    }
}

#[test]
fn the_same_seed_plays_the_same_pool() {
    assert_eq!(run(7), run(7));
    assert_ne!(run(7), run(8), "the dice follow the seed");
}

#[test]
fn a_pool_is_forced_die_by_die_in_examples() {
    // The example forces 5 1 6 4: two hits. A wrong expectation fails.
    let src = BOOK.replace("  run volley(4);\n}", "  run volley(4);\n  expect volley(0) == 0;\n}");
    // `volley` is a procedure: pure `expect` may not call it.
    assert!(errors(&src).iter().any(|(c, m)| c == "E0304" && m.contains("volley")), "{:?}", errors(&src));
    let src = BOOK.replace(
        "§4.0 procedure volley(n: Int) -> Int {\n  let dice = roll n d6;\n  return count d in dice where d >= 5;\n}",
        "§4.0 track pool_hits: 0..9\n§4.0 procedure volley(n: Int) -> Int {\n  let dice = roll n d6;\n  set pool_hits = count d in dice where d >= 5;\n  return pool_hits;\n}",
    );
    let with = |expect: &str| {
        let s = src.replace("  run volley(4);\n}", &format!("  run volley(4);\n  expect {expect};\n}}"));
        let c = compile_src(&s);
        assert!(!c.has_errors());
        c.report.examples_passed
    };
    assert_eq!(with("pool_hits == 2"), 4);
    assert_eq!(with("pool_hits == 1"), 3);
}

#[test]
fn errors_of_the_new_constructs() {
    let cases: &[(&str, &str, &str)] = &[
        // Keys: too few, too many, of the wrong type.
        ("set crossed[A, North] = 2;", "set crossed[A] = 2;", "E0301"),
        ("set vp[A] = 3;", "set vp[A, North] = 3;", "E0301"),
        ("adjust crossed[A, North] by 1;", "adjust crossed[North, A] by 1;", "E0301"),
        ("set morale = 7;\n  set vp", "set morale[A] = 7;\n  set vp", "E0301"),
        ("set morale = 7;\n  set vp", "set nothing = 7;\n  set vp", "E0307"),
        ("set vp[A] = 3;", "set vpp[A] = 3;", "E0113"),
        ("set vp[A] = 3;", "set vp[A] = true;", "E0301"),
        ("track crossed per side per Border", "track crossed per side per Borders", "E0102"),
        // Procedures with values.
        ("  return best;\n", "", "E0308"),
        ("if r >= 4 { return 2; } else { return 0; }", "if r >= 4 { return 2; }", "E0308"),
        ("if r >= 4 { return 2; }", "if r >= 4 { return; }", "E0308"),
        (
            "§6.0 procedure wear(u: Unit) { lose_step u;",
            "§6.0 procedure wear(u: Unit) { return 1; lose_step u;",
            "E0308",
        ),
        ("  return best;\n", "  return 3;\n", "E0301"),
        ("= Fire[r];", "= Fire[r] + attack(A);", "E0304"),
        ("§2.0 log \"fire {}\", fire_result(5);", "§2.0 log \"fire {}\", wear(unit(\"Alpha\"));", "E0301"),
        // `let` in a fn: a type error in the body is reported.
        ("  capped + 1\n", "  capped == 1\n", "E0305"),
        (
            "let capped = if q > 3 then 3 else q;",
            "let capped = if q > 3 then 3 else q;\n  let z = roll 1d6;",
            "E0304",
        ),
        // Pools: an Int count, effects only.
        ("let dice = roll n d6;", "let dice = roll (n > 1) d6;", "E0301"),
        ("= Fire[r];", "= Fire[r] + len(roll 2 d6);", "E0304"),
        (
            "let dice = roll n d6;\n  return count",
            "let dice = roll n d6;\n  let k = dice + 1;\n  return count",
            "E0301",
        ),
        // Lists: one element type.
        ("union([3, 1, 2], [2, 4, 1])", "union([3, 1, 2], [A])", "E0301"),
        ("[1, 2] + [2, 3]", "[1, 2] + [A]", "E0301"),
        // Steps regained: a unit, and only where effects are allowed.
        ("regain_step u;", "regain_step 3;", "E0301"),
        ("= Fire[r];", "= Fire[r];\n§3.0 fn bad(u: Unit) -> Bool = regain_step u;", "E0001"),
        // A track with two keys starts at its low end: no `start`.
        ("{ turns 1; order A, B;", "{ turns 1; order A, B; start crossed A 1;", "E0301"),
    ];
    for (from, to, code) in cases {
        assert!(BOOK.contains(from), "{from}");
        let src = BOOK.replacen(from, to, 1);
        let errs = errors(&src);
        assert!(errs.iter().any(|(c, _)| c == code), "{from} -> {to}: want {code}, got {errs:?}");
    }
}

#[test]
fn a_negative_pool_is_a_runtime_error() {
    let src = BOOK.replace("§4.0 log \"hits {}\", volley(4);", "§4.0 log \"hits {}\", volley(0 - 1);");
    let c = compile_src(&src);
    let out = play(
        c.program.as_ref().expect("compiles"),
        &GameOptions { scenario: "s".into(), ..GameOptions::default() },
    )
    .expect("plays");
    let err = out.result.expect_err("a negative number of dice");
    assert_eq!(err.code, "R0016");
}

const ANCHORS: &str = r#"
rulebook "Anchors" { numbering dotted; dice d6; }
contents { §1.0 "Pieces" §2.0 "Fire" §2.1 "Close range" §2.2 "Long range" §2.3 "Cover" §3.0 "Morale" §3.1 "Rally" }
§1.0 sides { A, B }
§2.0 track shots: 0..99
§3.0 track morale: 0..99
§2.0 modifiers cover(d: Int) {
  §2.3 §3.1 -1 when d > 2;
}
§2.0 procedure fire(d: Int) {
  if d == 1 { §2.1 adjust shots by 3; }
  else §2.2 if d == 2 { adjust shots by 2; }
  else { adjust shots by cover(d, 1); }
  §3.0 §3.1 adjust morale by 1;
}
§1.0 sequence { call fire(1); call fire(2); call fire(3); draw "done"; }
§1.0 scenario "s" "s" { turns 1; order A, B; }
"#;

#[test]
fn statements_and_modifier_lines_take_several_anchors_and_else_if_branches_one() {
    let c = compile_src(ANCHORS);
    assert!(!c.has_errors());
    // §2.2 is encoded only by the `else if` anchor, §3.1 by second anchors.
    assert!(c.report.missing.is_empty(), "missing: {:?}", c.report.missing);
    for p in ["2.1", "2.2", "2.3", "3.0", "3.1"] {
        assert!(c.report.encoded.iter().any(|e| e == p), "{p} not encoded: {:?}", c.report.encoded);
    }
    let out = play(
        c.program.as_ref().expect("compiles"),
        &GameOptions { scenario: "s".into(), ..GameOptions::default() },
    )
    .expect("plays");
    let track: Vec<&String> = out.log.lines.iter().filter(|l| l.contains(r#""type":"track""#)).collect();
    // fire(1): §2.1; fire(2): the else-if branch, §2.2; the morale line carries its first anchor.
    assert!(track[0].contains(r#""para":"2.1""#), "{}", track[0]);
    assert!(track[1].contains(r#""para":"3.0""#), "{}", track[1]);
    assert!(track[2].contains(r#""para":"2.2""#), "{}", track[2]);
    // An anchor outside the contents is refused wherever it stands.
    for (from, to) in [
        ("§3.0 §3.1 adjust", "§3.0 §3.9 adjust"),
        ("else §2.2 if", "else §2.9 if"),
        ("§2.3 §3.1 -1", "§2.3 §3.9 -1"),
    ] {
        let c = compile_src(&ANCHORS.replace(from, to));
        assert!(c.diagnostics.iter().any(|d| d.code == "E0201"), "{to}");
    }
}

const PASS: &str = r#"
rulebook "Pass" { numbering dotted; dice d6; }
contents { §1.0 "Pieces" §2.0 "Orders" }
§1.0 sides { A, B }
§2.0 track acted: 0..99
§2.0 track passed: 0..99
§2.0 procedure orders() {
  let x = choose n in [1, 2, 3] by A prefer n or none prefer 5 "which order";
  if present(x) { adjust acted by 1; } else { adjust passed by 1; }
}
§1.0 sequence { turns 3 { call orders(); } draw "done"; }
§1.0 scenario "s" "s" { turns 3; order A, B; }
"#;

fn heuristic_passes(src: &str) -> (usize, usize) {
    let c = compile_src(src);
    let agents: BTreeMap<String, AgentKind> =
        [("A".to_string(), AgentKind::Heuristic), ("B".to_string(), AgentKind::Heuristic)].into();
    let out = play(
        c.program.as_ref().expect("compiles"),
        &GameOptions { scenario: "s".into(), agents, ..GameOptions::default() },
    )
    .expect("plays");
    let count = |t: &str| out.log.lines.iter().filter(|l| l.contains(&format!(r#""track":"{t}""#))).count();
    (count("acted"), count("passed"))
}

#[test]
fn the_heuristic_agent_passes_when_passing_scores_best() {
    // Passing scores 5, the best option 3: it passes every time.
    assert_eq!(heuristic_passes(PASS), (0, 3));
    // Passing scores 2: the option scoring 3 is better.
    assert_eq!(heuristic_passes(&PASS.replace("or none prefer 5", "or none prefer 2")), (3, 0));
    // Without a score passing counts 0: it acts while any option scores 0 or more.
    assert_eq!(heuristic_passes(&PASS.replace("or none prefer 5", "or none")), (3, 0));
    let negative = PASS.replace("prefer n or none prefer 5", "prefer 0 - n or none");
    assert_eq!(heuristic_passes(&negative), (0, 3));
    // A score for passing needs scores for the options; it is an Int and pure.
    let errs = errors(&PASS.replace("prefer n or none prefer 5", "or none prefer 5"));
    assert!(errs.iter().any(|(c, m)| c == "E0301" && m.contains("none")), "{errs:?}");
    let errs = errors(&PASS.replace("or none prefer 5", "or none prefer true"));
    assert!(errs.iter().any(|(c, _)| c == "E0301"), "{errs:?}");
    let errs = errors(&PASS.replace("or none prefer 5", "or none prefer roll 1d6"));
    assert!(errs.iter().any(|(c, _)| c == "E0304"), "{errs:?}");
}

#[test]
fn only_a_track_with_one_unit_key_can_be_hidden() {
    // The view that hides a per-unit track reads one key; a second key would leak.
    let src = BOOK.replace(
        "§2.0 table Fire {",
        "§2.0 fn guess(u: Unit) -> Int = 1;\n§2.0 hidden hits shown guess;\n§2.0 table Fire {",
    );
    let errs = errors(&src);
    assert!(errs.iter().any(|(c, m)| c == "E0113" && m.contains("one key")), "{errs:?}");
}
