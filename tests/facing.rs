//! Facing and formations (issue 13) on inline rulebooks: a unit's facing set up in a
//! scenario, read (`u.facing`, `relative`), changed (`face`, logged), priced by a movement
//! hook (a change in place costs, a change on entry is free); faces declared as a state
//! machine (`formations`), their classes and ratings read through the current face,
//! changed by `form` (logged, checked against the declared changes: R0018), placed with
//! `in Face`; the movement memo keyed by the current face; and each construct's errors.

use kriegsspiel_compiler::Compilation;
use kriegsspiel_runtime::game::{play, AgentKind, GameOptions};
use std::collections::BTreeMap;

mod support;

const BOOK: &str = r#"
rulebook "Facing" { numbering dotted; dice d6; }
contents { §1.0 "Pieces" §2.0 "Facing" §3.0 "Formations" §4.0 "Movement" }
§1.0 sides { A, B }
§1.0 rating ma: 0..9
§1.0 rating cs: 0..9
§1.0 classes { foot, horse }
§1.0 unit Foot: foot
§1.0 unit Dragoon: horse steps 2
§1.0 unit Gun: foot
§3.0 formations Dragoon {
  Mounted;
  Dismounted: foot { ma: 2, cs: 3/1 };
  Mounted <-> Dismounted;
}
§3.0 formations Gun { Limbered; Unlimbered { ma: 0 }; Limbered -> Unlimbered; }
§1.0 terrain Plain { cost: 1 }
§1.0 map "field" { grid 8 x 8 even_down; }
§1.0 counters {
  A "Foot" Foot { ma: 3, cs: 2 }
  A "Dragoons" Dragoon { ma: 6, cs: 4/2 }
  A "Guns" Gun { ma: 3, cs: 5, Unlimbered { cs: 7 } }
  B "Enemy" Foot { ma: 3, cs: 2 }
}
§4.0 fn allowance(u: Unit) -> Int = u.ma;
§4.0 fn cost(u: Unit, a: Hex, b: Hex) -> Int = if u is horse then 1 else 3;
§4.0 movement { allowance: allowance; cost: cost; }
§3.0 procedure dismount(u: Unit) { form u Dismounted; }
§3.0 procedure limber(u: Unit) { form u Limbered; }
§4.0 procedure probe(u: Unit) {
  log "mounted reach {}", len(reachable(u));
  form u Dismounted;
  log "dismounted reach {}", len(reachable(u));
  form u Mounted;
  log "mounted again {}", len(reachable(u));
}
§2.0 procedure turn_to(u: Unit, h: Hex) { face u to direction(u.hex, h); }
§3.0 procedure act(u: Unit) {
  let f = choose x in (filter x in [Mounted, Dismounted, Limbered, Unlimbered] where can_form(u, x)) by u.side or none "change formation";
  if present(f) { form u f; }
  let d = choose x in [0, 1, 2, 3, 4, 5] by u.side "facing";
  face u to d;
  let h = choose x in reachable(u) by u.side "move";
  move u to h;
  log "{} {} {} {}", u, u.formation, u.facing, u.ma;
}
§1.0 sequence {
  turns 3 {
    phase Move(A) { for u in units(A) { call act(u); } }
  }
  draw "end";
}
§1.0 scenario "s" "s" {
  turns 3; order A, B;
  setup A { "Foot" at 0303 facing 2; "Dragoons" at 0404; "Guns" at 0202 in Limbered; }
  setup B { "Enemy" at 0606 facing vertex 4; }
}
§2.0 example "a unit faces the hexside it was set up facing" {
  scenario "s";
  place "Foot" at 0303 facing 1;
  expect unit("Foot").facing == 1 and not unit("Foot").vertex_facing;
  expect relative(unit("Foot"), neighbour(@0303, 1)) == 0 and relative(unit("Foot"), neighbour(@0303, 4)) == 3;
  expect relative(unit("Foot"), neighbour(@0303, 0)) == 5 and relative(unit("Foot"), @0808) == -1;
}
§2.0 example "turning toward a hex faces it" {
  scenario "s";
  place "Foot" at 0303;
  run turn_to(unit("Foot"), neighbour(@0303, 3));
  expect unit("Foot").facing == 3 and relative(unit("Foot"), neighbour(@0303, 3)) == 0;
}
§3.0 example "a dismounted dragoon is foot, with the face's allowance and strength" {
  scenario "s";
  place "Dragoons" at 0303;
  run dismount(unit("Dragoons"));
  expect unit("Dragoons").formation == Dismounted and unit("Dragoons") is foot and not (unit("Dragoons") is horse);
  expect unit("Dragoons").ma == 2 and unit("Dragoons").cs == 3;
}
§3.0 example "a counter placed in a face shows it" {
  scenario "s";
  place "Dragoons" at 0303 in Dismounted;
  place "Guns" at 0505 in Unlimbered;
  expect unit("Dragoons").ma == 2 and unit("Guns").ma == 0 and unit("Guns").formation == Unlimbered;
  expect unit("Guns").cs == 7 and unit("Dragoons").cs == 3;
  expect can_form(unit("Dragoons"), Mounted) and not can_form(unit("Guns"), Limbered) and not can_form(unit("Guns"), Mounted);
}
"#;

fn compile_src(src: &str) -> Compilation {
    support::inline::compile_one("facing.ks", src)
}

fn errors(src: &str) -> Vec<(String, String)> {
    compile_src(src).diagnostics.iter().map(|d| (d.code.to_string(), d.message.clone())).collect()
}

fn play_src(src: &str, seed: u64) -> (Result<(), (String, String)>, Vec<String>) {
    let c = compile_src(src);
    let errs: Vec<_> = c.diagnostics.iter().filter(|d| d.is_error()).map(|d| d.message.clone()).collect();
    let prog = c.program.as_ref().unwrap_or_else(|| panic!("compiles: {errs:?}"));
    let agents: BTreeMap<String, AgentKind> =
        [("A".to_string(), AgentKind::Random), ("B".to_string(), AgentKind::Random)].into();
    let out =
        play(prog, &GameOptions { scenario: "s".into(), seed, agents, log: true, ..GameOptions::default() })
            .expect("plays");
    let r = out.result.map(|_| ()).map_err(|e| (e.code.to_string(), e.message.clone()));
    (r, out.log.lines)
}

fn with_sequence(body: &str) -> String {
    let start = BOOK.find("§1.0 sequence {").expect("sequence");
    let end = BOOK[start..].find("\n}\n").expect("end") + start + 3;
    format!("{}§1.0 sequence {{\n{body}\n  draw \"end\";\n}}\n{}", &BOOK[..start], &BOOK[end..])
}

#[test]
fn the_rulebook_compiles_and_its_examples_pass() {
    let c = compile_src(BOOK);
    assert!(!c.has_errors(), "{:?}", errors(BOOK));
    assert_eq!((c.report.examples_run, c.report.examples_passed), (4, 4));
}

#[test]
fn examples_fail_when_the_face_or_facing_is_wrong() {
    // The same examples with a wrong expectation: each can fail.
    for (from, to) in [
        ("expect unit(\"Foot\").facing == 3 and", "expect unit(\"Foot\").facing == 2 and"),
        (
            "expect unit(\"Dragoons\").ma == 2 and unit(\"Dragoons\").cs == 3",
            "expect unit(\"Dragoons\").ma == 6 and unit(\"Dragoons\").cs == 3",
        ),
        ("place \"Dragoons\" at 0303 in Dismounted;", "place \"Dragoons\" at 0303;"),
    ] {
        let src = BOOK.replace(from, to);
        assert_ne!(src, BOOK, "{from}");
        let c = compile_src(&src);
        assert_eq!(c.report.examples_passed, 3, "{to}");
    }
}

#[test]
fn scenario_facings_and_faces_are_set_up() {
    let src = with_sequence(
        r#"  log "start {} {} {} {}", unit("Foot").facing, unit("Enemy").facing, unit("Enemy").vertex_facing, unit("Guns").formation;"#,
    );
    let (r, lines) = play_src(&src, 1);
    assert_eq!(r, Ok(()));
    assert!(lines.iter().any(|l| l.contains(r#""message":"start 2 4 true Limbered""#)), "{lines:#?}");
}

#[test]
fn face_and_form_are_logged_with_their_paragraph() {
    let (r, lines) = play_src(BOOK, 3);
    assert_eq!(r, Ok(()));
    let faces: Vec<&String> = lines.iter().filter(|l| l.contains(r#""type":"face""#)).collect();
    assert!(!faces.is_empty());
    for f in &faces {
        let v: serde_json::Value = serde_json::from_str(f).expect("json");
        assert!((0..6).contains(&v["facing"].as_i64().expect("facing")), "{f}");
        assert_eq!(v["para"].as_str(), Some("3.0"), "{f}");
    }
    // Over a few seeds the random player changes formations; the gun, limbered only one
    // way, never goes back.
    let mut forms = 0;
    for seed in 1..=30 {
        let (r, lines) = play_src(BOOK, seed);
        assert_eq!(r, Ok(()), "seed {seed}");
        let mut gun_unlimbered = false;
        for l in lines.iter().filter(|l| l.contains(r#""type":"form""#)) {
            forms += 1;
            let v: serde_json::Value = serde_json::from_str(l).expect("json");
            assert_ne!(v["from"], v["to"], "{l}");
            if v["unit"] == "Guns" {
                assert!(!gun_unlimbered, "seed {seed}: the gun limbered again: {l}");
                assert_eq!((v["from"].as_str(), v["to"].as_str()), (Some("Limbered"), Some("Unlimbered")));
                gun_unlimbered = true;
            }
        }
        // The log's notes show the face's allowance.
        for l in lines.iter().filter(|l| l.contains(r#""message":"Dragoons "#)) {
            assert!(
                (l.contains("Dragoons Mounted") && l.ends_with(" 6\"}"))
                    || (l.contains("Dragoons Dismounted") && l.ends_with(" 2\"}")),
                "{l}"
            );
        }
    }
    assert!(forms > 10, "{forms} changes of formation in 30 games");
}

#[test]
fn the_same_seed_plays_the_same_game() {
    assert_eq!(play_src(BOOK, 9).1, play_src(BOOK, 9).1);
    assert_ne!(play_src(BOOK, 9).1, play_src(BOOK, 10).1);
}

#[test]
fn a_change_of_face_not_declared_is_a_runtime_error() {
    let src = with_sequence(
        r#"  call dismount(unit("Dragoons"));
  call limber(unit("Guns"));
  call dismount(unit("Foot"));"#,
    );
    // Limbered to Limbered is no change: fine. Then the foot has no faces at all.
    let (r, _) = play_src(&src, 1);
    let (code, msg) = r.expect_err("a foot unit has no face Dismounted");
    assert_eq!(code, "R0018");
    assert!(msg.contains("Foot") && msg.contains("Dismounted"), "{msg}");
    // The gun, unlimbered, may not limber: only Limbered -> Unlimbered is declared.
    let src = with_sequence(
        r#"  form unit("Guns") Unlimbered;
  call limber(unit("Guns"));"#,
    );
    let (r, lines) = play_src(&src, 1);
    let (code, msg) = r.expect_err("no change from Unlimbered to Limbered");
    assert_eq!(code, "R0018");
    assert!(msg.contains("Unlimbered") && msg.contains("Limbered"), "{msg}");
    assert_eq!(lines.iter().filter(|l| l.contains(r#""type":"form""#)).count(), 1);
    // A facing outside 0-5.
    let src = with_sequence(r#"  face unit("Foot") to 6;"#);
    assert_eq!(play_src(&src, 1).0.map_err(|e| e.0), Err("R0018".to_string()));
}

#[test]
fn the_movement_memo_follows_the_current_face() {
    // The cost hook tests the unit's class, so its answers are memoised by the classes
    // the unit has; a dragoon changing face changes them. A memo keyed by the type's
    // declared classes would answer the dismounted dragoon with the mounted costs (and
    // the test profile recomputes every hit and compares).
    let src = with_sequence(r#"  call probe(unit("Dragoons"));"#);
    let (r, lines) = play_src(&src, 1);
    assert_eq!(r, Ok(()));
    let note = |p: &str| lines.iter().find(|l| l.contains(p)).cloned().unwrap_or_default();
    assert!(note("mounted reach").contains("mounted reach 64"), "{}", note("mounted reach"));
    assert!(note("dismounted reach").contains("dismounted reach 1\""), "{}", note("dismounted reach"));
    assert!(note("mounted again").contains("mounted again 64"), "{}", note("mounted again"));
}

#[test]
fn a_facing_change_in_place_is_priced_by_the_cost_hook() {
    // 8.A/8.C-style: leaving the hex through a hexside other than the faced one costs 1
    // more; after entering a hex the unit may face any way for free, so only the first
    // step depends on the facing, and the search need not carry it.
    let src = BOOK.replace(
        "§4.0 fn cost(u: Unit, a: Hex, b: Hex) -> Int = if u is horse then 1 else 3;",
        "§2.0 §4.0 fn cost(u: Unit, a: Hex, b: Hex) -> Int = if a == u.hex and direction(a, b) != u.facing then 2 else 1;",
    );
    let src = src.replace(
        "§2.0 example \"a unit faces the hexside",
        r#"§2.0 example "turning in place costs one more" {
  scenario "s";
  place "Foot" at 0404 facing 0;
  expect len(route(unit("Foot"), @0402)) == 2;
  expect contains(reachable(unit("Foot")), @0401);
  expect not contains(reachable(unit("Foot")), @0407);
  expect contains(reachable(unit("Foot")), @0406);
}
§2.0 example "a unit faces the hexside"#,
    );
    let c = compile_src(&src);
    assert!(!c.has_errors(), "{:?}", errors(&src));
    assert_eq!((c.report.examples_run, c.report.examples_passed), (5, 5));
    // Facing backwards, the three hexes ahead are out of reach and those behind in.
    let flipped = src.replace(
        "place \"Foot\" at 0404 facing 0;\n  expect len",
        "place \"Foot\" at 0404 facing 3;\n  expect len",
    );
    assert_eq!(compile_src(&flipped).report.examples_passed, 4);
}

#[test]
fn errors_of_facing_and_formations() {
    let cases: &[(&str, &str, &str)] = &[
        // A change between faces the type does not have.
        ("Mounted <-> Dismounted;", "Mounted <-> Walking;", "E0306"),
        ("Mounted <-> Dismounted;", "Mounted <-> Mounted;", "E0301"),
        // Unknown class, rating, unit type; rating out of range; values per step.
        ("Dismounted: foot {", "Dismounted: feet {", "E0104"),
        ("{ ma: 2, cs: 3/1 }", "{ mp: 2, cs: 3/1 }", "E0106"),
        ("{ ma: 2, cs: 3/1 }", "{ ma: 12, cs: 3/1 }", "E0501"),
        ("{ ma: 2, cs: 3/1 }", "{ ma: 2, cs: 3/1/1 }", "E0502"),
        ("formations Gun {", "formations Cannon {", "E0103"),
        // A face declared twice; formations of a type declared twice.
        ("Limbered; Unlimbered { ma: 0 };", "Limbered; Limbered { ma: 0 };", "E0101"),
        ("§3.0 formations Gun {", "§3.0 formations Dragoon { Walk; }\n§3.0 formations Gun {", "E0101"),
        // A formation name that clashes with another value.
        ("  Mounted;\n", "  A;\n", "E0101"),
        // `form` with something that is not a formation; in a pure fn; an unknown face.
        ("{ form u Dismounted; }", "{ form u Plain; }", "E0301"),
        (
            "§4.0 fn allowance(u: Unit) -> Int = u.ma;",
            "§4.0 fn allowance(u: Unit) -> Int = u.ma;\n§4.0 fn bad(u: Unit) -> Bool = can_form(u, 3);",
            "E0301",
        ),
        ("\"Guns\" at 0202 in Limbered;", "\"Guns\" at 0202 in Mounted;", "E0306"),
        // A counter's own values on a face: a face of its type, a known rating, in range.
        ("Unlimbered { cs: 7 } }", "Mounted { cs: 7 } }", "E0306"),
        ("Unlimbered { cs: 7 } }", "Unlimbered { cz: 7 } }", "E0106"),
        ("Unlimbered { cs: 7 } }", "Unlimbered { cs: 17 } }", "E0501"),
        ("\"Foot\" at 0303 facing 2;", "\"Foot\" at 0303 facing 6;", "E0501"),
        ("face u to d;", "face u to true;", "E0301"),
        ("u.formation, u.facing", "u.formation, u.facings", "E0106"),
    ];
    for (from, to, code) in cases {
        let src = BOOK.replace(from, to);
        assert_ne!(src, BOOK, "{from}");
        let errs = errors(&src);
        assert!(errs.iter().any(|(c, _)| c == code), "{to}: {errs:?}");
    }
    // Effects are not allowed in a fn.
    let src = BOOK.replace(
        "§4.0 fn allowance(u: Unit) -> Int = u.ma;",
        "§4.0 fn allowance(u: Unit) -> Int = u.ma;\n§4.0 procedure p(u: Unit) { }\n§4.0 fn bad(u: Unit) -> Int { form u Mounted; 1 }",
    );
    assert!(!errors(&src).is_empty());
    // `u.formation` and `form` need a formations declaration.
    let plain = BOOK
        .replace("§3.0 formations Dragoon {\n  Mounted;\n  Dismounted: foot { ma: 2, cs: 3/1 };\n  Mounted <-> Dismounted;\n}\n", "")
        .replace("§3.0 formations Gun { Limbered; Unlimbered { ma: 0 }; Limbered -> Unlimbered; }\n", "");
    let errs = errors(&plain);
    assert!(errs.iter().any(|(c, m)| c == "E0106" && m.contains("formations")), "{errs:?}");
    assert!(errs.iter().any(|(c, m)| c == "E0306" && m.contains("formations")), "{errs:?}");
}

#[test]
fn an_area_map_has_no_facing() {
    let src = r#"
rulebook "Areas" { numbering dotted; dice d6; }
contents { §1.0 "All" }
§1.0 sides { A, B }
§1.0 rating ma: 0..9
§1.0 classes { foot }
§1.0 unit Foot: foot
§1.0 formations Foot { Line; Column { ma: 4 }; Line <-> Column; }
§1.0 terrain Plain { cost: 1 }
§1.0 map "areas" { areas { Paris Plain; Lyon Plain; } borders { Paris|Lyon; } }
§1.0 counters { A "F" Foot { ma: 2 } }
§1.0 procedure turn(u: Unit) { face u to 1; }
§1.0 sequence { call turn(unit("F")); draw "end"; }
§1.0 scenario "s" "s" { turns 1; order A, B; setup A { "F" at Paris facing 1; } }
"#;
    let errs = errors(src);
    let e0509 = errs.iter().filter(|(c, _)| c == "E0509").count();
    assert_eq!(e0509, 3, "{errs:?}");
}
