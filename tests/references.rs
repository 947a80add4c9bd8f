//! Tracks that hold references (issue 16, "a declared attack stored as a value"): a track
//! declared `: Unit`, `: Hex`, `: Side` or `: <results group>` keeps a unit, a space, a
//! side or a code instead of a number, starts empty, is filled by `set` and emptied by
//! `clear`, and reads back as the value itself (test emptiness with `present`). An attack
//! declared in one phase is resolved in a later one without any id arithmetic.

use kriegsspiel_compiler::Compilation;
use kriegsspiel_runtime::game::{play, AgentKind, GameOptions};
use std::collections::BTreeMap;

mod support;

const BOOK: &str = r#"
rulebook "Declared attacks" { numbering dotted; dice d6; }
contents { §1.0 "Pieces" §2.0 "Declaring attacks" §3.0 "Resolving attacks" }
§1.0 sides { A, B }
§1.0 rating cs: 0..9
§1.0 classes { foot }
§1.0 unit Foot: foot
§1.0 terrain Plain { cost: 1 }
§1.0 map "strip" { grid 5 x 1 even_down; }
§1.0 counters {
  A "Alpha" Foot { cs: 4 }
  A "Bravo" Foot { cs: 3 }
  B "Xray" Foot { cs: 5 }
  B "Yankee" Foot { cs: 2 }
}
§2.0 results Posture { Hold, Press }
§2.0 track target per unit: Unit
§2.0 track aim per unit: Hex
§2.0 track first_to_declare: Side
§2.0 track posture per side: Posture
§2.0 track declared per side: 0..9
§2.0 procedure declare(s: Side) {
  for u in units(s) {
    let foes = adjacent_units(u.hex, other(s));
    if len(foes) > 0 {
      let d = choose d in foes by s prefer 10 - d.cs "target";
      set target[u] = d;
      set aim[u] = d.hex;
      adjust declared[s] by 1;
      if not present(first_to_declare) { set first_to_declare = s; }
    }
  }
  set posture[s] = Press;
}
§3.0 procedure resolve(s: Side) {
  for u in units(s) {
    if present(target[u]) {
      let d = target[u];
      if d.hex == aim[u] and u.cs > d.cs { eliminate d; }
      clear target[u];
      clear aim[u];
    }
  }
}
§3.0 fn pending(s: Side) -> Int = count u in units(s) where present(target[u]);
§1.0 sequence {
  turns scenario_turns() {
    phase Declare(A) { call declare(A); }
    phase Resolve(A) { call resolve(A); }
  }
  draw "over";
}
§1.0 scenario "s" "s" {
  turns 1; order A, B;
  setup A { "Alpha" at 0201; "Bravo" at 0401; }
  setup B { "Xray" at 0301; "Yankee" at 0501; }
}
§2.0 example "a declared attack is held as the unit and the hex it aims at" {
  scenario "s";
  place "Alpha" at 0201; place "Bravo" at 0401; place "Xray" at 0301; place "Yankee" at 0501;
  run declare(A);
  expect target[unit("Alpha")] == unit("Xray") and aim[unit("Alpha")] == @0301;
  expect target[unit("Bravo")] == unit("Yankee") and aim[unit("Bravo")] == @0501;
  expect declared[A] == 2 and first_to_declare == A and posture[A] == Press and pending(A) == 2;
  expect not present(target[unit("Xray")]) and not present(aim[unit("Xray")]);
}
§3.0 example "resolving reads the declarations and clears them" {
  scenario "s";
  place "Alpha" at 0201; place "Bravo" at 0401; place "Xray" at 0301; place "Yankee" at 0501;
  run declare(A);
  run resolve(A);
  expect pending(A) == 0 and not present(target[unit("Alpha")]);
  expect unit("Yankee").hex != @0501 and unit("Xray").hex == @0301;
}
§2.0 example "a track of references starts empty" {
  scenario "s";
  expect not present(first_to_declare) and not present(posture[B]) and pending(A) == 0;
}
"#;

fn compile_src(src: &str) -> Compilation {
    support::inline::compile_one("references.ks", src)
}

fn errors(src: &str) -> Vec<(String, String)> {
    compile_src(src).diagnostics.iter().map(|d| (d.code.to_string(), d.message.clone())).collect()
}

#[test]
fn the_rulebook_compiles_and_its_examples_pass() {
    let c = compile_src(BOOK);
    assert!(!c.has_errors(), "{:?}", c.diagnostics);
    assert_eq!((c.report.examples_run, c.report.examples_passed), (3, 3));
}

#[test]
fn the_log_names_what_a_track_holds_and_its_clearing() {
    let c = compile_src(BOOK);
    let agents: BTreeMap<String, AgentKind> =
        [("A".to_string(), AgentKind::Random), ("B".to_string(), AgentKind::Random)].into();
    let out = play(
        c.program.as_ref().expect("compiles"),
        &GameOptions { scenario: "s".into(), seed: 1, agents, ..GameOptions::default() },
    )
    .expect("plays");
    assert!(out.result.is_ok(), "{:?}", out.result);
    let track: Vec<&String> = out.log.lines.iter().filter(|l| l.contains(r#""type":"track""#)).collect();
    let has = |s: &str| track.iter().any(|l| l.contains(s));
    assert!(has(r#""track":"target","of":"Alpha","value":"Xray""#), "{track:#?}");
    assert!(has(r#""track":"aim","of":"Alpha","value":"0301""#), "{track:#?}");
    assert!(has(r#""track":"first_to_declare","of":null,"value":"A""#), "{track:#?}");
    assert!(has(r#""track":"posture","of":"A","value":"Press""#), "{track:#?}");
    assert!(has(r#""track":"target","of":"Alpha","value":null"#), "{track:#?}");
    // A reference track's events carry no numeric change.
    assert!(track.iter().filter(|l| l.contains(r#""track":"target""#)).all(|l| !l.contains(r#""by""#)));
}

#[test]
fn misuse_of_a_track_of_references_is_an_error() {
    let cases: &[(&str, &str, &str)] = &[
        // `adjust` of a reference track, `clear` of a number track.
        ("      adjust declared[s] by 1;", "      adjust target[u] by 1;", "E0301"),
        ("      clear aim[u];", "      clear declared[s];", "E0301"),
        // A value of the wrong kind.
        ("set target[u] = d;", "set target[u] = d.hex;", "E0301"),
        ("set aim[u] = d.hex;", "set aim[u] = 3;", "E0301"),
        // What a track can hold.
        ("track aim per unit: Hex", "track aim per unit: Terrain", "E0102"),
        ("track aim per unit: Hex", "track aim per unit: Posturs", "E0102"),
        // A reference track starts empty: no scenario start for it.
        ("turns 1; order A, B;", "turns 1; order A, B; start first_to_declare A 1;", "E0301"),
        // Only tracks of numbers can be hidden.
        (
            "§1.0 sequence {",
            "§1.0 hidden target shown est;\n§1.0 fn est(u: Unit) -> Int = 0;\n§1.0 sequence {",
            "E0113",
        ),
        // Effects stay out of pure code.
        (
            "fn pending(s: Side) -> Int = count",
            "procedure wipe(u: Unit) { clear target[u]; }\n§3.0 fn pending(s: Side) -> Int = count",
            "",
        ),
    ];
    for (from, to, code) in cases {
        assert!(BOOK.contains(from), "case text not found: {from}");
        let errs = errors(&BOOK.replacen(from, to, 1));
        if code.is_empty() {
            assert!(errs.iter().all(|(c, _)| !c.starts_with('E')), "{to}: {errs:?}");
        } else {
            assert!(errs.iter().any(|(c, _)| c == code), "{to}: expected {code}, got {errs:?}");
        }
    }
}
