//! Area maps (issue 18, Maps; issue 12): named areas joined by borders, every spatial
//! built-in on them, logs naming areas, the errors of bad declarations; and printed
//! hex-id schemes (row-first ids, numbering from 00).
//!
//! The area game is `docs/examples/marches.ks` (docs/language.md 6.20b): its worked
//! examples exercise each built-in on the area map (neighbours, distance, direction,
//! reachable with area and border costs and ZOC, route, within, the retreat search,
//! regions, area attributes, border kinds).

mod support;

use kriegsspiel_runtime::game::{play, AgentKind, GameOptions};
use std::collections::BTreeMap;
use support::inline::compile_one;

fn marches() -> String {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/examples/marches.ks");
    std::fs::read_to_string(p).expect("docs/examples/marches.ks")
}

/// Every worked example of the area game passes, and each can fail: changing one
/// expected value in each makes exactly that example fail.
#[test]
fn built_ins_on_an_area_map_by_worked_examples() {
    let src = marches();
    let c = compile_one("marches.ks", src.as_str());
    assert!(!c.has_errors());
    assert_eq!((c.report.examples_run, c.report.examples_passed), (11, 11));
    // One wrong expectation per built-in: neighbours, distance, direction, attributes,
    // regions, reachable (ZOC stop), within (river), retreat (priorities).
    let wrong = [
        ("first(neighbours(@Reims)) == @Calais", "first(neighbours(@Reims)) == @Paris"),
        ("distance(@Calais, @Lyon) == 3", "distance(@Calais, @Lyon) == 2"),
        ("direction(@Reims, @Metz) == 2", "direction(@Reims, @Metz) == 1"),
        ("@Paris.value == 3", "@Paris.value == 2"),
        ("not in_region(@Reims, Cities)", "in_region(@Reims, Cities)"),
        (
            "not contains(reachable(unit(\"1st Army\")), @Lyon)",
            "contains(reachable(unit(\"1st Army\")), @Lyon)",
        ),
        (
            "and len(within(unit(\"Army of the Rhine\"), 2, order_step)) == 7",
            "and len(within(unit(\"Army of the Rhine\"), 2, order_step)) == 6",
        ),
        (
            "expect unit(\"Army of the Rhine\").hex == @Metz",
            "expect unit(\"Army of the Rhine\").hex == @Lyon",
        ),
        // Tracks per border and per area.
        ("and attacked[border(@Dijon, @Metz)] == 0", "and attacked[border(@Dijon, @Metz)] == 1"),
        ("expect control[@Paris] == 0", "expect control[@Paris] == 1"),
        // A track per border per side (two keys).
        ("crossed[border(@Paris, @Dijon), West] == 2", "crossed[border(@Paris, @Dijon), West] == 1"),
    ];
    for (from, to) in wrong {
        assert!(src.contains(from), "{from}");
        let c = compile_one("marches.ks", src.replace(from, to));
        assert_eq!((c.report.examples_run, c.report.examples_passed), (11, 10), "{to}");
    }
}

/// Without the zone of control the army goes on from Dijon to Lyon by road (4 points):
/// the ZOC hook is what stopped it in the worked example.
#[test]
fn zoc_through_the_hook_stops_movement_on_areas() {
    let no_zoc =
        marches().replace("fn exerts(u: Unit) -> Bool = u.steps > 1;", "fn exerts(u: Unit) -> Bool = false;");
    let c = compile_one("marches.ks", no_zoc.as_str());
    assert_eq!((c.report.examples_run, c.report.examples_passed), (11, 10), "the reachable example fails");
    let c = compile_one(
        "marches.ks",
        no_zoc
            .replace(
                "and not contains(reachable(unit(\"1st Army\")), @Lyon)",
                "and contains(reachable(unit(\"1st Army\")), @Lyon)",
            )
            .replace(
                "and len(reachable(unit(\"1st Army\"))) == 5",
                "and len(reachable(unit(\"1st Army\"))) == 6",
            ),
    );
    assert_eq!(
        (c.report.examples_run, c.report.examples_passed),
        (11, 11),
        "Lyon is reached, Metz (the enemy) never"
    );
}

/// The area game plays to a result over 300 seeds with random and heuristic agents,
/// and its log names areas, never hex ids.
#[test]
fn area_game_plays_many_seeds_and_logs_area_names() {
    let c = compile_one("marches.ks", marches());
    let prog = c.program.as_ref().expect("compiles");
    let names = ["Calais", "Rouen", "Paris", "Reims", "Metz", "Dijon", "Lyon"];
    let mut results: BTreeMap<String, u32> = BTreeMap::new();
    for seed in 1..=300u64 {
        let agent = if seed % 3 == 0 { AgentKind::Heuristic } else { AgentKind::Random };
        let agents: BTreeMap<String, AgentKind> =
            [("West".to_string(), agent.clone()), ("East".to_string(), AgentKind::Random)].into();
        let out = play(
            prog,
            &GameOptions { scenario: "A".into(), seed, agents, log: seed <= 20, ..GameOptions::default() },
        )
        .expect("plays");
        match out.result {
            Ok(r) => *results.entry(r.winner.unwrap_or_else(|| "draw".into())).or_default() += 1,
            Err(e) => panic!("seed {seed}: {e}"),
        }
        for l in &out.log.lines {
            if l.contains(r#""type":"move""#)
                || l.contains(r#""type":"retreat""#)
                || l.contains(r#""type":"enter""#)
            {
                let v: serde_json::Value = serde_json::from_str(l).expect("json");
                let mut spaces: Vec<&str> = Vec::new();
                let keys: &[&str] = if l.contains(r#""type":"enter""#) { &["at"] } else { &["from", "to"] };
                spaces.extend(keys.iter().filter_map(|k| v.get(*k).and_then(|x| x.as_str())));
                if let Some(p) = v.get("path").and_then(|x| x.as_array()) {
                    spaces.extend(p.iter().filter_map(|x| x.as_str()));
                }
                assert!(!spaces.is_empty(), "{l}");
                for s in spaces {
                    assert!(names.contains(&s), "seed {seed}: {s} in {l}");
                }
            }
        }
    }
    assert_eq!(results.values().sum::<u32>(), 300);
    // Tracks per border name the border by its two areas, per area by the area.
    let out =
        play(prog, &GameOptions { scenario: "A".into(), seed: 3, ..GameOptions::default() }).expect("plays");
    let tracks: Vec<serde_json::Value> = out
        .log
        .lines
        .iter()
        .filter(|l| l.contains(r#""type":"track""#))
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect();
    let of = |t: &str| -> Vec<String> {
        tracks.iter().filter(|v| v["track"] == t).filter_map(|v| v["of"].as_str().map(String::from)).collect()
    };
    assert!(!of("control").is_empty() && of("control").iter().all(|s| names.contains(&s.as_str())));
    assert!(!of("attacked").is_empty());
    for b in of("attacked") {
        let (x, y) = b.split_once('|').expect("A|B");
        assert!(names.contains(&x) && names.contains(&y), "{b}");
    }
    assert!(results.len() >= 2, "both sides win sometimes: {results:?}");
}

const AREAS: &str = r#"
rulebook "Bad" { numbering dotted; dice d6; }
contents { §1.0 "Rules" }
§1.0 sides { A, B }
§1.0 terrain Clear { cost: 1 }
§1.0 hexside Road { cost: 0 }
§1.0 sequence { draw "no game"; }
§1.0 map "m" {
  areas { North; South Clear { value: 2 } East; }
  borders { North|South Road; South|East; }
}
§1.0 scenario "s" "s" { turns 1; order A, B; }
"#;

fn codes(src: &str) -> Vec<(String, usize)> {
    let c = compile_one("bad.ks", src);
    assert!(c.program.is_none() == c.has_errors());
    c.diagnostics.iter().map(|d| (d.code.to_string(), d.span.start as usize)).collect()
}

/// Each bad declaration is its own error with a span on the offending text; none panics.
#[test]
fn bad_area_declarations_are_errors_with_spans() {
    assert!(codes(AREAS).is_empty(), "the base map is good");
    let cases: &[(&str, &str, &str, &str)] = &[
        // (replace, with, code, span text)
        ("North|South Road;", "North|Nowhere Road;", "E0503", "Nowhere"),
        ("East; }", "East; North; }", "E0507", "North"),
        ("South|East;", "South|South;", "E0508", "South|South"),
        ("South|East;", "South|East Bridge;", "E0111", "Bridge"),
        ("South Clear {", "South Swamp {", "E0111", "Swamp"),
        ("{ value: 2 }", "{ value: \"two\" }", "E0301", "\"two\""),
        ("areas {", "grid 3 x 3 even_down; areas {", "E0509", "grid 3 x 3 even_down;"),
        ("areas {", "edge north exit; areas {", "E0509", "north"),
        ("areas {", "ids RRCC; areas {", "E0509", "ids RRCC;"),
        ("order A, B; }", "order A, B; setup A { } } §1.0 fn f() -> Hex = @0101;", "E0509", "@0101"),
        ("order A, B; }", "order A, B; } §1.0 fn f() -> Hex = @Sout;", "E0503", "@Sout"),
        (
            "order A, B; }",
            "order A, B; } §1.0 fn f(a: Hex, b: Hex) -> Bool = line_of_sight(a, b);",
            "E0509",
            "line_of_sight",
        ),
        ("}\n§1.0 scenario", "  hexside Road { North|East }\n}\n§1.0 scenario", "E0504", "North|East"),
        ("}\n§1.0 scenario", "  region R { North..South }\n}\n§1.0 scenario", "E0509", "North..South"),
        ("  areas { North; South Clear { value: 2 } East; }\n", "", "E0509", "North|South Road;"),
    ];
    for &(from, to, code, at) in cases {
        assert!(AREAS.contains(from), "{from}");
        let src = AREAS.replacen(from, to, 1);
        let got = codes(&src);
        // The span text is looked for inside the replacement (else anywhere).
        let want = match (src.find(to), to.find(at)) {
            (Some(base), Some(off)) if !to.is_empty() => base + off,
            _ => src.find(at).expect("span text"),
        };
        assert!(got.iter().any(|(c, s)| c == code && *s == want), "{to}: want {code} at {at:?}, got {got:?}");
    }
}

/// A bad name in the middle of a path is reported once, not once per pair (found by
/// tests/props.rs).
#[test]
fn a_bad_area_in_a_path_is_reported_once() {
    let src = AREAS.replace("South|East;", "path(South Nowhere East);");
    let got = codes(&src);
    assert_eq!(got.iter().filter(|(c, _)| c == "E0503").count(), 1, "{got:?}");
}

const SCHEME: &str = r#"
rulebook "Ids" { numbering dotted; dice d6; }
contents { §1.0 "Rules" }
§1.0 sides { A, B }
§1.0 rating mv: 1..4
§1.0 classes { foot }
§1.0 unit Foot: foot
§1.0 terrain Clear { cost: 1 }
§1.0 terrain Hill { cost: 2 }
§1.0 fn allowance(u: Unit) -> Int = u.mv;
§1.0 fn cost(u: Unit, a: Hex, b: Hex) -> Int = b.terrain.cost;
§1.0 movement { allowance: allowance; cost: cost; }
§1.0 track crossed per border: 0..9
§1.0 track visits per hex: 0..9
§1.0 procedure go(s: Side) {
  for u in units(s) { adjust crossed[border(u.hex, @IDB)] by 1; move u to @IDB; adjust visits[u.hex] by 1; }
}
§1.0 sequence { turns 1 { call go(A); } draw "no game"; }
§1.0 map "m" { grid 12 x 10 even_down; IDS default Clear; terrain Hill { IDH } }
§1.0 counters { A "x" Foot { mv: 2 } }
§1.0 scenario "s" "s" { turns 1; order A, B; setup A { "x" at IDA; } }
§1.0 example "the printed ids name the same hexes" {
  scenario "s";
  expect @IDH.terrain == Hill and distance(@IDA, @IDB) == 1 and contains(neighbours(@IDA), @IDB)
    and border(@IDA, @IDB) == border(@IDB, @IDA) and border(@IDA, @IDB) >= 0 and border(@IDA, @IDH) == -1;
}
"#;

/// The id scheme: the same map written CCRR from 01 (today's), RRCC from 01, and CCRR
/// and RRCC numbered from 00; literals and logs use the printed ids.
#[test]
fn printed_hex_id_schemes() {
    // Grid column 4, row 9 (hill) and the move from column 3 row 2 to column 3 row 3.
    for (ids, hill, a, b) in [
        ("", "0409", "0302", "0303"),
        ("ids CCRR;", "0409", "0302", "0303"),
        ("ids RRCC;", "0904", "0203", "0303"),
        ("ids CCRR columns from 0 rows from 0;", "0308", "0201", "0202"),
        ("ids RRCC columns from 1 rows from 0;", "0804", "0103", "0203"),
    ] {
        let src = SCHEME.replace("IDS", ids).replace("IDH", hill).replace("IDA", a).replace("IDB", b);
        let c = compile_one("ids.ks", src.as_str());
        assert!(!c.has_errors(), "{ids}");
        assert_eq!((c.report.examples_run, c.report.examples_passed), (1, 1), "{ids}");
        let out = play(
            c.program.as_ref().unwrap(),
            &GameOptions { scenario: "s".into(), ..GameOptions::default() },
        )
        .expect("plays");
        let mv = out.log.lines.iter().find(|l| l.contains(r#""type":"move""#)).expect("a move");
        assert!(mv.contains(&format!(r#""from":"{a}","to":"{b}""#)), "{ids}: {mv}");
        // Tracks per border (a hexside here) and per hex, named in the scheme.
        let tr: Vec<&String> = out.log.lines.iter().filter(|l| l.contains(r#""type":"track""#)).collect();
        assert_eq!(tr.len(), 2, "{ids}");
        assert!(
            tr[0].contains(&format!(r#""of":"{a}|{b}""#)) || tr[0].contains(&format!(r#""of":"{b}|{a}""#)),
            "{ids}: {}",
            tr[0]
        );
        assert!(
            tr[1].contains(&format!(r#""track":"visits","of":"{b}","by":1,"value":1"#)),
            "{ids}: {}",
            tr[1]
        );
    }
    // A hex written in the wrong scheme is off the map; a first column of 2 is E0510.
    let src = SCHEME
        .replace("IDS", "ids CCRR columns from 0;")
        .replace("IDH", "1201")
        .replace("IDA", "0201")
        .replace("IDB", "0202");
    assert!(codes(&src).iter().any(|(c, s)| c == "E0503" && *s == src.find("1201").unwrap()));
    let src = SCHEME
        .replace("IDS", "ids CCRR rows from 2;")
        .replace("IDH", "0409")
        .replace("IDA", "0302")
        .replace("IDB", "0303");
    assert!(codes(&src).iter().any(|(c, _)| c == "E0510"));
}
