//! The language's reach beyond hex-and-counter, the remaining items of issue 18, each on
//! an inline rulebook: a scenario that starts on turn N (`start turn N;`, `first_turn()`,
//! E0599 for a unit entering before it).

use kriegsspiel_compiler::Compilation;
use kriegsspiel_runtime::game::{play, AgentKind, GameOptions};
use std::collections::BTreeMap;

mod support;

fn compile_src(src: &str) -> Compilation {
    support::inline::compile_one("reach.ks", src)
}

fn heuristic_both() -> BTreeMap<String, AgentKind> {
    [("A".to_string(), AgentKind::Heuristic), ("B".to_string(), AgentKind::Heuristic)].into()
}

fn lines_of(c: &Compilation, scenario: &str, seed: u64) -> Vec<String> {
    let out = play(
        c.program.as_ref().expect("compiles"),
        &GameOptions { scenario: scenario.into(), seed, agents: heuristic_both(), ..GameOptions::default() },
    )
    .expect("plays");
    assert!(out.result.is_ok(), "{:?}", out.result);
    out.log.lines.clone()
}

// ------------------------------------------------------------------ start turn N

const LATE: &str = r#"
rulebook "Late start" { numbering dotted; dice d6; }
contents { §1.0 "Pieces" §2.0 "Turns" §3.0 "Scenarios" }
§1.0 sides { A, B }
§1.0 rating cs: 0..9
§1.0 classes { foot }
§1.0 unit Foot: foot steps 1
§1.0 terrain Plain { cost: 1 }
§1.0 map "strip" { grid 4 x 1 even_down; }
§1.0 counters {
  A "Alpha" Foot { cs: 4 }
  A "Bravo" Foot { cs: 3 }
  B "Xray" Foot { cs: 5 }
}
§2.0 track played: 0..20
§2.0 track opened_on: 0..20
§2.0 procedure open() { if turn() == first_turn() { set opened_on = turn(); } adjust played by 1; }
§2.0 sequence { turns scenario_turns() { call open(); } draw "the scenario ends"; }
§3.0 scenario "full" "the whole campaign" {
  turns 5; order A, B;
  setup A { "Alpha" at 0101; "Bravo" enters turn 4 at 0201; }
  setup B { "Xray" at 0401; }
}
§3.0 scenario "late" "the last three turns" {
  start turn 3; turns 5; order A, B;
  setup A { "Alpha" at 0101; "Bravo" enters turn 4 at 0201; }
  setup B { "Xray" at 0401; }
}
§3.0 example "the late scenario's clock starts on turn 3" {
  scenario "late";
  place "Alpha" at 0101;
  run open();
  expect turn() == 3 and first_turn() == 3 and opened_on == 3 and played == 1;
}
§3.0 example "the full scenario starts on turn 1" {
  scenario "full";
  place "Alpha" at 0101;
  run open();
  expect turn() == 1 and first_turn() == 1 and opened_on == 1;
}
"#;

fn turns_logged(lines: &[String]) -> Vec<i64> {
    lines
        .iter()
        .filter(|l| l.contains(r#""type":"turn""#))
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok()?.get("turn")?.as_i64())
        .collect()
}

#[test]
fn a_scenario_starting_on_turn_3_plays_turns_3_to_5_only() {
    let c = compile_src(LATE);
    assert!(!c.has_errors());
    assert_eq!((c.report.examples_run, c.report.examples_passed), (2, 2));
    let late = lines_of(&c, "late", 1);
    assert_eq!(turns_logged(&late), vec![3, 4, 5]);
    // The track counted three turns, not five, and the first was turn 3.
    let last_played = late.iter().rfind(|l| l.contains(r#""track":"played""#)).expect("adjusted");
    assert!(last_played.contains(r#""value":3"#), "{last_played}");
    assert!(late.iter().any(|l| l.contains(r#""track":"opened_on""#) && l.contains(r#""value":3"#)));
    // The reinforcement still enters on its own turn, 4.
    let enter = late.iter().find(|l| l.contains(r#""type":"enter""#)).expect("Bravo enters");
    assert!(enter.contains(r#""turn":4"#) && enter.contains("Bravo"), "{enter}");
    // Without `start turn`, nothing changes: turns 1 to 5.
    assert_eq!(turns_logged(&lines_of(&c, "full", 1)), vec![1, 2, 3, 4, 5]);
}

#[test]
fn a_unit_entering_before_the_first_turn_is_e0599_at_its_turn() {
    let src = LATE.replace(
        r#"start turn 3; turns 5; order A, B;
  setup A { "Alpha" at 0101; "Bravo" enters turn 4 at 0201; }"#,
        r#"start turn 3; turns 5; order A, B;
  setup A { "Alpha" at 0101; "Bravo" enters turn 2 at 0201; }"#,
    );
    let c = compile_src(&src);
    let d = c.diagnostics.iter().find(|d| d.code == "E0599").expect("E0599");
    assert!(d.message.contains("Bravo") && d.message.contains("turn 2"), "{}", d.message);
    assert_eq!(&src[d.span.start as usize..d.span.end as usize], "2");
    assert!(
        d.labels.iter().any(|(sp, _)| &src[sp.start as usize..sp.end as usize] == "3"),
        "points at `start turn 3`"
    );
    assert!(d.paragraphs.iter().any(|p| p == "3.0"));
    assert!(c.program.is_none());
}

#[test]
fn a_scenario_ending_before_it_starts_is_e0599() {
    let src = LATE.replace("start turn 3; turns 5;", "start turn 6; turns 5;");
    let c = compile_src(&src);
    let d = c.diagnostics.iter().find(|d| d.code == "E0599" && d.message.contains("ends on turn 5"));
    assert!(d.is_some(), "{:?}", c.diagnostics.iter().map(|d| &d.message).collect::<Vec<_>>());
    let zero = LATE.replace("start turn 3;", "start turn 0;");
    let c = compile_src(&zero);
    assert!(c.diagnostics.iter().any(|d| d.code == "E0599" && d.message.contains("turn 0")));
    // `turn` stays free as the start of a track line: `start turnout A 2;`.
    let track = LATE
        .replace("§2.0 track played: 0..20", "§2.0 track played: 0..20\n§2.0 track turnout: 0..20")
        .replace("start turn 3; turns 5;", "start turn 3; start turnout A 2; turns 5;");
    assert!(!compile_src(&track).has_errors());
}

// ------------------------------------------------------------------ searches from a hex

const LINES: &str = r#"
rulebook "Lines" { numbering dotted; dice d6; }
contents { §1.0 "Pieces" §2.0 "Movement" §3.0 "Supply" }
§1.0 sides { A, B }
§1.0 rating mp: 0..9
§1.0 classes { foot }
§1.0 unit Foot: foot steps 1
§1.0 terrain Plain { cost: 1 }
§1.0 terrain Marsh { cost: 3 }
§1.0 map "strip" { grid 7 x 1 even_down; default Plain; terrain Marsh { 0501 } }
§1.0 counters {
  A "Alpha" Foot { mp: 2 }
  B "Xray" Foot { mp: 2 }
}
§2.0 fn allow(u: Unit) -> Int = u.mp;
§2.0 fn step_cost(u: Unit, a: Hex, b: Hex) -> Int =
  if occupied_by(b, other(u.side)) then -1 else b.terrain.cost;
§2.0 movement { allowance: allow; cost: step_cost; }
§3.0 fn supply_step(s: Side, a: Hex, b: Hex) -> Int =
  if occupied_by(b, other(s)) then -1 else b.terrain.cost;
§3.0 fn in_supply(s: Side, source: Hex, h: Hex) -> Bool = contains(within_from(s, source, 3, supply_step), h);
§3.0 sequence { draw "nothing to play"; }
§3.0 scenario "s" "s" { order A, B; setup A { "Alpha" at 0101; } setup B { "Xray" at 0601; } }
§2.0 example "from a hex it is not in, Alpha moves by its own hooks" {
  scenario "s";
  place "Alpha" at 0101;
  place "Xray" at 0701;
  expect len(reachable_from(unit("Alpha"), @0301)) == 4
    and contains(reachable_from(unit("Alpha"), @0301), @0101)
    and contains(reachable_from(unit("Alpha"), @0301), @0401)
    and not contains(reachable_from(unit("Alpha"), @0301), @0501)
    and len(reachable(unit("Alpha"))) == 3;
}
§3.0 example "a supply line from 0101 runs three hexes, not through an enemy" {
  scenario "s";
  place "Alpha" at 0101;
  place "Xray" at 0301;
  expect in_supply(A, @0101, @0201) and not in_supply(A, @0101, @0401)
    and in_supply(B, @0401, @0301) and in_supply(B, @0401, @0501) and not in_supply(B, @0401, @0701);
}
"#;

#[test]
fn searches_start_from_a_hex() {
    let c = compile_src(LINES);
    assert!(!c.has_errors());
    assert_eq!((c.report.examples_run, c.report.examples_passed), (2, 2));
}

#[test]
fn a_search_from_a_hex_is_not_a_list_ending_in_one() {
    // The budget and the enemy decide: with a supply budget of 1, 0301 is out of reach.
    let tight =
        LINES.replace("within_from(s, source, 3, supply_step)", "within_from(s, source, 1, supply_step)");
    let c = compile_src(&tight);
    assert!(!c.has_errors());
    assert!(c.report.examples_passed < c.report.examples_run, "the supply example must fail now");
    // A step fn of the wrong shape is E0301; an unknown one E0109.
    let wrong =
        LINES.replace("within_from(s, source, 3, supply_step)", "within_from(s, source, 3, step_cost)");
    assert!(compile_src(&wrong)
        .diagnostics
        .iter()
        .any(|d| d.code == "E0301" && d.message.contains("Side, Hex, Hex")));
    let unknown =
        LINES.replace("within_from(s, source, 3, supply_step)", "within_from(s, source, 3, supply_stp)");
    assert!(compile_src(&unknown).diagnostics.iter().any(|d| d.code == "E0109"));
}

// ------------------------------------------------------------------ reinforcements that arrive by a move

const ARRIVE: &str = r#"
rulebook "Arrivals" { numbering dotted; dice d6; }
contents { §1.0 "Pieces" §2.0 "Movement" §3.0 "Reinforcements" }
§1.0 sides { A, B }
§1.0 rating mp: 0..9
§1.0 classes { foot }
§1.0 unit Foot: foot steps 1
§1.0 terrain Plain { cost: 1 }
§1.0 map "strip" { grid 7 x 1 even_down; default Plain; }
§1.0 counters {
  A "Alpha" Foot { mp: 2 }
  A "Bravo" Foot { mp: 2 }
  B "Xray" Foot { mp: 0 }
}
§2.0 fn allow(u: Unit) -> Int = u.mp;
§2.0 fn step_cost(u: Unit, a: Hex, b: Hex) -> Int = if occupied_by(b, other(u.side)) then -1 else b.terrain.cost;
§2.0 movement { allowance: allow; cost: step_cost; }
§3.0 track arrived: 0..9
§3.0 track blocked: 0..9
§3.0 procedure reinforce(s: Side) {
  for u in arrivals(s) {
    if occupied_by(entry_hex(u), other(s)) { adjust blocked by 1; }
    else {
      let dest = choose h in reachable_from(u, entry_hex(u)) by s prefer distance(h, @0101) "where the arrival moves";
      move u to dest;
      adjust arrived by 1;
    }
  }
}
§3.0 procedure clear() { if turn() == 3 { move unit("Xray") to @0701; } }
§3.0 sequence {
  turns scenario_turns() { for s in order() { phase Move(s) { call reinforce(s); } } call clear(); }
  draw "the scenario ends";
}
§3.0 scenario "open" "the road is open" {
  turns 4; order A, B;
  setup A { "Alpha" at 0701; "Bravo" arrives turn 2 at 0101; }
  setup B { "Xray" at 0601; }
}
§3.0 scenario "held" "the enemy holds the entry hex until turn 3" {
  turns 4; order A, B;
  setup A { "Alpha" at 0701; "Bravo" arrives turn 2 at 0101; }
  setup B { "Xray" at 0101; }
}
"#;

#[test]
fn a_reinforcement_arrives_by_a_move_from_its_entry_hex() {
    let c = compile_src(ARRIVE);
    assert!(!c.has_errors());
    let open = lines_of(&c, "open", 1);
    // No placement at the start of turn 2: a move from off the map, two hexes on.
    assert!(!open.iter().any(|l| l.contains(r#""type":"enter""#)));
    let mv =
        open.iter().find(|l| l.contains(r#""type":"move""#) && l.contains("Bravo")).expect("Bravo moves on");
    assert!(
        mv.contains(r#""turn":2"#) && mv.contains(r#""from":null"#) && mv.contains(r#""to":"0301""#),
        "{mv}"
    );
    assert_eq!(open.iter().filter(|l| l.contains(r#""track":"arrived""#)).count(), 1);
    assert!(!open.iter().any(|l| l.contains(r#""track":"blocked""#)));
}

#[test]
fn an_enemy_on_the_entry_hex_holds_the_reinforcement_back() {
    let c = compile_src(ARRIVE);
    let held = lines_of(&c, "held", 1);
    // Turns 2 and 3 blocked; Xray leaves at the end of turn 3; Bravo arrives on turn 4.
    let blocked: Vec<&String> = held.iter().filter(|l| l.contains(r#""track":"blocked""#)).collect();
    assert_eq!(blocked.len(), 2, "{blocked:?}");
    assert!(blocked[0].contains(r#""turn":2"#) && blocked[1].contains(r#""turn":3"#));
    let mv =
        held.iter().find(|l| l.contains(r#""type":"move""#) && l.contains("Bravo")).expect("Bravo moves on");
    assert!(mv.contains(r#""turn":4"#) && mv.contains(r#""from":null"#), "{mv}");
    // The same reinforcement written `enters` is placed on turn 2 whatever the enemy does.
    let placed = ARRIVE.replace("arrives turn 2", "enters turn 2");
    let c = compile_src(&placed);
    let lines = lines_of(&c, "held", 1);
    assert!(lines.iter().any(|l| l.contains(r#""type":"enter""#) && l.contains(r#""turn":2"#)));
    assert!(!lines.iter().any(|l| l.contains(r#""track":"blocked""#)), "arrivals() lists only arrivals");
    // An arrival before the first turn is E0599 like an entry.
    let early = ARRIVE.replace(
        "turns 4; order A, B;\n  setup A { \"Alpha\" at 0701; \"Bravo\" arrives turn 2",
        "start turn 3; turns 4; order A, B;\n  setup A { \"Alpha\" at 0701; \"Bravo\" arrives turn 2",
    );
    assert!(compile_src(&early).diagnostics.iter().any(|d| d.code == "E0599"));
}

fn play_with(c: &Compilation, scenario: &str, seed: u64, agents: BTreeMap<String, AgentKind>) -> Vec<String> {
    let out = play(
        c.program.as_ref().expect("compiles"),
        &GameOptions { scenario: scenario.into(), seed, agents, ..GameOptions::default() },
    )
    .expect("plays");
    assert!(out.result.is_ok(), "{:?}", out.result);
    out.log.lines.clone()
}

fn scripted_a(entries: &[&str]) -> BTreeMap<String, AgentKind> {
    [
        ("A".to_string(), AgentKind::Scripted(entries.iter().map(|e| serde_json::json!(e)).collect())),
        ("B".to_string(), AgentKind::Heuristic),
    ]
    .into()
}

// ------------------------------------------------------------------ movement modes, a stop hook over the step

// A 3 x 2 map: 0101 touches 0201 (across a stream) and 0102; a road runs 0102 - 0202 -
// 0302 - 0301. Normal movement costs 1 a hex and halts after crossing a stream without a
// road; road movement goes along the road only, at 1 a hexside, with twice the allowance.
const MODES: &str = r#"
rulebook "Modes" { numbering dotted; dice d6; }
contents { §1.0 "Pieces" §2.0 "Movement" §2.1 "Road movement" §2.2 "Streams" §3.0 "Play" }
§1.0 sides { A, B }
§1.0 rating mp: 0..9
§1.0 classes { foot }
§1.0 unit Foot: foot steps 1
§1.0 terrain Plain { cost: 1 }
§2.1 hexside Road { cost: 1 }
§2.2 hexside Stream { cost: 0 }
§1.0 map "field" { grid 3 x 2 even_down; default Plain;
  hexside Road { path(0102 0202 0302 0301) }
  hexside Stream { 0101|0201 }
}
§1.0 counters {
  A "Alpha" Foot { mp: 3 }
  A "Bravo" Foot { mp: 2 }
  B "Xray" Foot { mp: 1 }
}
§2.0 fn allow(u: Unit) -> Int = u.mp;
§2.0 fn step_cost(u: Unit, a: Hex, b: Hex) -> Int = if occupied_by(b, other(u.side)) then -1 else b.terrain.cost;
§2.2 fn halts(u: Unit, a: Hex, b: Hex) -> Bool = crosses(a, b, Stream) and not crosses(a, b, Road);
§2.0 movement { allowance: allow; cost: step_cost; stop: halts; }
§2.1 fn road_allow(u: Unit) -> Int = u.mp * 2;
§2.1 fn road_cost(u: Unit, a: Hex, b: Hex) -> Int =
  if crosses(a, b, Road) and not occupied_by(b, other(u.side)) then 1 else -1;
§2.1 movement road { allowance: road_allow; cost: road_cost; }
§3.0 procedure march(s: Side) {
  for u in units(s) {
    let m = choose m in [normal, road] by s prefer len(reachable_by(u, m)) "movement mode";
    let dest = choose h in reachable_by(u, m) by s prefer distance(h, @0101) "where to march";
    move u to dest;
  }
}
§3.0 sequence {
  turns scenario_turns() { for s in order() { phase Move(s) { call march(s); } } }
  draw "the scenario ends";
}
§3.0 scenario "s" "s" { turns 1; order A, B; setup A { "Bravo" at 0102; } setup B { "Xray" at 0101; } }
§2.2 example "across the stream the move halts; round by land it goes on" {
  scenario "s";
  place "Alpha" at 0101;
  expect contains(reachable(unit("Alpha")), @0201) and contains(reachable(unit("Alpha")), @0301)
    and len(route(unit("Alpha"), @0301)) == 3 and first(route(unit("Alpha"), @0301)) == @0102
    and len(route(unit("Alpha"), @0201)) == 2;
}
§2.2 example "with two points, the stream's halt keeps 0301 out of reach" {
  scenario "s";
  place "Bravo" at 0101;
  place "Xray" at 0302;
  expect contains(reachable(unit("Bravo")), @0201) and not contains(reachable(unit("Bravo")), @0301);
}
§2.2 example "with the land route blocked, the unit stops on the far bank" {
  scenario "s";
  place "Alpha" at 0101;
  place "Xray" at 0102;
  expect len(reachable(unit("Alpha"))) == 2 and contains(reachable(unit("Alpha")), @0201);
}
§2.1 example "by road, only along the road, twice as far" {
  scenario "s";
  place "Bravo" at 0102;
  place "Xray" at 0101;
  expect len(reachable_by(unit("Bravo"), road)) == 4
    and not contains(reachable_by(unit("Bravo"), road), @0201)
    and contains(reachable_by(unit("Bravo"), road), @0301)
    and len(route_by(unit("Bravo"), @0301, road)) == 3
    and len(reachable_from_by(unit("Bravo"), @0302, road)) == 4
    and len(reachable_by(unit("Bravo"), normal)) == len(reachable(unit("Bravo")))
    and len(reachable(unit("Bravo"))) == 5;
}
"#;

#[test]
fn movement_modes_and_a_stop_hook_over_the_step() {
    let c = compile_src(MODES);
    assert!(!c.has_errors());
    assert_eq!((c.report.examples_run, c.report.examples_passed), (4, 4));
    // Read as a stop on the hex entered (the stream's far bank always halts), the first
    // example fails: 0301 is reached only through 0201 entered by land.
    let by_hex = MODES.replace(
        "§2.2 fn halts(u: Unit, a: Hex, b: Hex) -> Bool = crosses(a, b, Stream) and not crosses(a, b, Road);",
        "§2.2 fn halts(u: Unit, b: Hex) -> Bool = b == @0201;",
    );
    let c = compile_src(&by_hex);
    assert!(!c.has_errors());
    assert!(c.report.examples_passed < c.report.examples_run);
}

#[test]
fn the_mover_chooses_the_mode_and_the_search_uses_its_hooks() {
    let c = compile_src(MODES);
    // The heuristic picks the mode reaching more hexes (normal: 5, road: 4).
    let lines = lines_of(&c, "s", 1);
    let mode = lines.iter().find(|l| l.contains(r#""what":"movement mode""#) && l.contains(r#""by":"A""#));
    let mode = mode.expect("the mode is a logged decision");
    assert!(mode.contains(r#""choice":"normal""#) && mode.contains(r#""options":2"#), "{mode}");
    // A scripted player takes the road: the destinations offered are the road's.
    let lines = play_with(&c, "s", 1, scripted_a(&["road", "0301"]));
    let mode = lines.iter().find(|l| l.contains(r#""what":"movement mode""#)).expect("mode");
    assert!(mode.contains(r#""choice":"road""#), "{mode}");
    let dest = lines.iter().find(|l| l.contains(r#""what":"where to march""#)).expect("destination");
    assert!(dest.contains(r#""options":4"#) && dest.contains(r#""choice":"0301""#), "{dest}");
    assert!(lines
        .iter()
        .any(|l| l.contains(r#""type":"move""#) && l.contains("Bravo") && l.contains(r#""to":"0301""#)));
    // Off the road is not a choice by road: the script's 0201 is refused.
    let lines = play_with(&c, "s", 1, scripted_a(&["road", "0201"]));
    assert!(!lines.iter().any(|l| l.contains(r#""type":"move""#) && l.contains(r#""to":"0201""#)));
}

#[test]
fn mode_errors_have_codes() {
    // A mode argument where no mode is declared; a wrong stop signature; two unnamed blocks.
    let none = MODES.replace("§2.1 movement road { allowance: road_allow; cost: road_cost; }", "");
    let c = compile_src(&none);
    assert!(c.diagnostics.iter().any(|d| d.code == "E0306" && d.message.contains("no movement modes")));
    let wrong = MODES
        .replace("fn halts(u: Unit, a: Hex, b: Hex) -> Bool", "fn halts(u: Unit, a: Hex, b: Hex) -> Int");
    let wrong = wrong.replace("crosses(a, b, Stream) and not crosses(a, b, Road);", "1;");
    assert!(compile_src(&wrong)
        .diagnostics
        .iter()
        .any(|d| d.code == "E0601" && d.message.contains("Unit, Hex, Hex")));
    let twice = MODES.replace(
        "§2.1 movement road { allowance: road_allow;",
        "§2.1 movement { allowance: road_allow; }\n§2.1 movement road { allowance: road_allow;",
    );
    let c = compile_src(&twice);
    let d = c.diagnostics.iter().find(|d| d.code == "E0601" && d.message.contains("second unnamed"));
    assert!(d.is_some_and(|d| d.paragraphs.iter().any(|p| p == "2.1")));
    // A value named like a mode is a clash (E0101).
    let clash = MODES.replace("§1.0 classes { foot }", "§1.0 classes { foot }\n§1.0 results Kind { road }");
    assert!(compile_src(&clash).diagnostics.iter().any(|d| d.code == "E0101"));
}

// ------------------------------------------------------------------ the owner chooses the retreat path

// Alpha at 0201 beside Xray at 0301 retreats one hex: 0101, 0102, 0202 and 0302 are legal
// ends (not Xray's hex); the fixed priorities prefer the farthest from the enemy, and of
// 0101, 0102 and 0202 (two hexes from Xray) the first path found, south before south-west.
const FALLBACK: &str = r#"
rulebook "Fall back" { numbering dotted; dice d6; }
contents { §1.0 "Pieces" §2.0 "Retreat" }
§1.0 sides { A, B }
§1.0 rating mp: 0..9
§1.0 classes { foot }
§1.0 unit Foot: foot steps 1
§1.0 terrain Plain { cost: 1 }
§1.0 map "field" { grid 3 x 2 even_down; default Plain; }
§1.0 counters {
  A "Alpha" Foot { mp: 3 }
  B "Xray" Foot { mp: 1 }
}
§2.0 fn may_retreat(u: Unit, a: Hex, b: Hex) -> Bool = not occupied_by(b, other(u.side));
§2.0 fn far(u: Unit, h: Hex) -> Int = enemy_distance(h, u.side);
§2.0 retreat { enter: may_retreat; prefer: [end far]; }
§2.0 track failed: 0..9
§2.0 procedure fall_back(u: Unit) {
  let h = choose h in retreat_ends(u, 1) by u.side prefer far(u, h) "where to retreat";
  retreat u by 1 to h;
}
§2.0 procedure fall_back_fixed(u: Unit) { retreat u by 1; }
§2.0 procedure try_to(u: Unit, h: Hex) { if not try_retreat_to(u, 1, h) { adjust failed by 1; } }
§2.0 sequence { turns scenario_turns() { call fall_back(unit("Alpha")); } draw "the scenario ends"; }
§2.0 scenario "s" "s" { turns 1; order A, B; setup A { "Alpha" at 0201; } setup B { "Xray" at 0301; } }
§2.0 example "the legal ends of a one-hex retreat" {
  scenario "s";
  place "Alpha" at 0201;
  place "Xray" at 0301;
  expect len(retreat_ends(unit("Alpha"), 1)) == 4 and not contains(retreat_ends(unit("Alpha"), 1), @0301)
    and first(retreat_ends(unit("Alpha"), 1)) == @0101;
}
§2.0 example "the fixed priorities stay the default" {
  scenario "s";
  place "Alpha" at 0201;
  place "Xray" at 0301;
  run fall_back_fixed(unit("Alpha"));
  expect unit("Alpha").hex == @0202;
}
§2.0 example "a chosen end that no legal retreat reaches is refused" {
  scenario "s";
  place "Alpha" at 0201;
  place "Xray" at 0301;
  run try_to(unit("Alpha"), @0301);
  expect failed == 1 and unit("Alpha").hex == @0201;
}
"#;

#[test]
fn the_owner_chooses_the_retreat_among_the_legal_ones() {
    let c = compile_src(FALLBACK);
    assert!(!c.has_errors());
    assert_eq!((c.report.examples_run, c.report.examples_passed), (3, 3));
    // The choice is a logged decision among the four ends; a scripted player answers it.
    let lines = play_with(&c, "s", 1, scripted_a(&["0302"]));
    let d = lines.iter().find(|l| l.contains(r#""what":"where to retreat""#)).expect("decision");
    assert!(d.contains(r#""options":4"#) && d.contains(r#""choice":"0302""#), "{d}");
    let r = lines.iter().find(|l| l.contains(r#""type":"retreat""#)).expect("retreat");
    assert!(r.contains(r#""path":["0302"]"#), "{r}");
    // The heuristic player takes one of the ends farthest from Xray.
    let lines = lines_of(&c, "s", 1);
    let r = lines.iter().find(|l| l.contains(r#""type":"retreat""#)).expect("retreat");
    assert!(!r.contains(r#""path":["0302"]"#), "{r}");
}

// ------------------------------------------------------------------ the operational game of our own

const RIVER: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/rulebooks/river-road");

fn cli(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_kriegsspiel")).args(args).output().expect("runs")
}

#[test]
fn the_river_road_checks_clean_in_the_canonical_layout() {
    let out = cli(&["check", RIVER]);
    let text = String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("0 error(s), 0 warning(s)"), "{text}");
    assert!(text.contains("examples: 6 run, 6 passed"), "{text}");
    assert!(text.contains("0 missing"), "{text}");
    let fmt = cli(&["fmt", "--check", RIVER]);
    assert!(fmt.status.success(), "{}", String::from_utf8_lossy(&fmt.stderr));
}

#[test]
fn the_river_road_plays_dozens_of_seeds_in_each_sides_view() {
    use kriegsspiel_runtime::view::side_view;
    let prog = {
        let mut sources = kriegsspiel_dsl::SourceMap::new();
        let mut paths: Vec<_> = std::fs::read_dir(RIVER).expect("dir").flatten().map(|e| e.path()).collect();
        paths.sort();
        for p in paths.iter().filter(|p| p.extension().map(|x| x == "ks").unwrap_or(false)) {
            sources.add(p.display().to_string(), std::fs::read_to_string(p).expect("read"));
        }
        kriegsspiel_compiler::compile(&sources).program.expect("compiles")
    };
    let (mut modes, mut retreats, mut held, mut arrived) = (BTreeMap::<String, usize>::new(), 0, 0, 0);
    for seed in 1..=40 {
        let out = play(
            &prog,
            &GameOptions {
                scenario: "1".into(),
                seed,
                agents: [
                    ("Blue".to_string(), AgentKind::Heuristic),
                    ("Red".to_string(), AgentKind::Heuristic),
                ]
                .into(),
                ..GameOptions::default()
            },
        )
        .expect("plays");
        assert!(out.result.is_ok(), "seed {seed}: {:?}", out.result);
        let full = out.log.text();
        for line in &out.log.lines {
            let v: serde_json::Value = serde_json::from_str(line).expect("json");
            match (v["type"].as_str(), v["what"].as_str()) {
                (Some("decision"), Some("movement mode" | "arrival's movement mode")) => {
                    *modes.entry(v["choice"].as_str().unwrap_or_default().to_string()).or_default() += 1
                }
                (Some("decision"), Some("where to retreat")) => retreats += 1,
                (Some("decision"), Some("where the arrival moves")) => arrived += 1,
                _ => {}
            }
            if v["type"] == "track" && v["track"] == "held" {
                held += 1;
            }
        }
        for side in ["Blue", "Red"] {
            let view = side_view(&prog, &full, side).expect("a side");
            assert_eq!(view.lines().count(), out.log.lines.len(), "seed {seed}");
            assert!(view.lines().next().is_some_and(|l| l.contains(&format!(r#""view":"{side}""#))));
            assert!(view.lines().last().is_some_and(|l| l.contains(r#""type":"end""#)), "seed {seed}");
        }
    }
    // Both modes are chosen, owners choose retreats, reinforcements march on and are held.
    assert!(
        modes.get("normal").is_some_and(|&n| n > 0) && modes.get("road").is_some_and(|&n| n > 0),
        "{modes:?}"
    );
    assert!(retreats > 0 && arrived > 0 && held > 0, "{retreats} {arrived} {held}");
}
