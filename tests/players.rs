//! Players chosen at run time, teams, and Powers whose control follows a marker
//! (issue 12, language part; docs/language.md 6.1b-6.1d): on an inline four-sided
//! rulebook played by 2, 3 or 4 players.

use kriegsspiel_compiler::Compilation;
use kriegsspiel_runtime::game::{play, AgentKind, GameOptions};
use kriegsspiel_runtime::Program;
use serde_json::Value as Json;
use std::collections::BTreeMap;

mod support;

/// Four sides in two loose teams; two Powers whose political marker (a track per Power,
/// box 3 neutral) decides who controls them; attacks that sway the markers and earn
/// prestige; the game ends the moment the peace index reaches its last box.
const BOOK: &str = r#"
rulebook "Kings" { numbering dotted; dice d6; }
contents {
  §1.0 "Sides and players" §1.1 "Teams" §2.0 "Powers" §2.1 "Control" §3.0 "Turns"
  §3.1 "Attacks" §3.2 "Swaying a Power" §4.0 "Peace index" §5.0 "Victory"
}
§1.0 sides { Habsburg, Bourbon, Hohenzollern, Maritime }
§1.0 players {
  2 { [Habsburg, Maritime] [Bourbon, Hohenzollern] }
  3 { [Habsburg, Maritime] [Bourbon] [Hohenzollern] }
  4 { [Habsburg] [Bourbon] [Hohenzollern] [Maritime] }
}
§1.1 teams { Allied { Habsburg, Maritime } FrancoPrussian { Bourbon, Hohenzollern } }
§2.0 results Power { Bavaria, Saxony }
§2.1 track pm per Power: 0..6
§2.1 fn controller(p: Power) -> Side =
  if pm[p] < 3 then Habsburg else if pm[p] > 3 then Bourbon else first(filter s in sides() where false);
§2.1 control Power by controller;
§3.0 marker Attacked on side
§3.1 track prestige per side: 0..99
§4.0 track peace: 0..16
§3.1 invariant no_teammate_attacked "a side never attacks a teammate"
  after phase Attack(s): all t in sides() where t has Attacked: not teammates(s, t);
§3.1 procedure attack(s: Side) {
  for x in sides() { unmark x Attacked; }
  §3.1 let t = choose t in filter x in others(s) where not teammates(s, x) by s prefer prestige[t] "whom to attack";
  §3.1 mark t Attacked;
  §3.2 let p = choose p in [Bavaria, Saxony] by s prefer pm[p] "which Power to sway";
  §3.1 if roll 1d6 >= 4 {
    §3.1 adjust prestige[s] by 1;
    §3.2 adjust pm[p] by (if contains(team(Habsburg), s) then -1 else 1);
  }
  §4.0 adjust peace by 1;
  §3.1 log "attack by {} done", s;
}
§5.0 procedure victory() {
  §5.0 let best = max s in sides(): prestige[s];
  §5.0 let leaders = filter s in sides() where prestige[s] == best;
  §5.0 if len(leaders) == 1 { win argmax s in sides(): prestige[s] "the most prestige"; }
  §5.0 win leaders "tied for the most prestige";
}
§4.0 trigger peace_made once when peace >= 16 { call victory(); }
§3.0 sequence {
  turns 30 {
    for s in sides() { phase Attack(s) { call attack(s); } }
  }
  call victory();
}
§3.0 scenario "c" "campaign" { turns 30; order Habsburg, Bourbon, Hohenzollern, Maritime; start pm Bavaria 3, Saxony 3; }
§5.0 example "the first side in player order wins a tie for the most prestige" {
  scenario "c";
  expect (argmax s in sides(): prestige[s]) == Habsburg;
  expect (argmin s in others(Habsburg): 0) == Bourbon;
  expect player_count() == 4 and teammates(Habsburg, Maritime) and not teammates(Habsburg, Bourbon);
  expect len(team(Maritime)) == 2 and first(team(Maritime)) == Habsburg and contains(team(Maritime), Maritime);
}
"#;

fn compile_src(src: &str) -> Compilation {
    support::inline::compile_one("kings.ks", src)
}

fn book() -> Program {
    let c = compile_src(BOOK);
    assert!(!c.has_errors(), "the inline rulebook compiles");
    c.program.expect("a program")
}

fn game(prog: &Program, players: Option<u8>, seed: u64, agents: &[(&str, AgentKind)]) -> Vec<Json> {
    let agents: BTreeMap<String, AgentKind> =
        agents.iter().map(|(s, k)| (s.to_string(), k.clone())).collect();
    let opts = GameOptions { scenario: "c".into(), seed, players, agents, ..GameOptions::default() };
    let out = play(prog, &opts).expect("plays");
    assert!(out.result.is_ok(), "seed {seed}: {:?}", out.result);
    out.log.lines.iter().map(|l| serde_json::from_str(l).expect("json")).collect()
}

fn of_type<'a>(log: &'a [Json], t: &str) -> Vec<&'a Json> {
    log.iter().filter(|e| e["type"] == t).collect()
}

#[test]
fn the_examples_pass() {
    let c = compile_src(BOOK);
    assert!(!c.has_errors());
    assert_eq!(c.report.examples_run, 1);
    assert_eq!(c.report.examples_passed, 1, "{:?}", c.diagnostics);
}

#[test]
fn each_player_count_seats_the_declared_sides_with_one_agent_each() {
    let prog = book();
    for (n, want) in [
        (2, vec![("Habsburg", vec!["Habsburg", "Maritime"]), ("Bourbon", vec!["Bourbon", "Hohenzollern"])]),
        (
            3,
            vec![
                ("Habsburg", vec!["Habsburg", "Maritime"]),
                ("Bourbon", vec!["Bourbon"]),
                ("Hohenzollern", vec!["Hohenzollern"]),
            ],
        ),
        (
            4,
            vec![
                ("Habsburg", vec!["Habsburg"]),
                ("Bourbon", vec!["Bourbon"]),
                ("Hohenzollern", vec!["Hohenzollern"]),
                ("Maritime", vec!["Maritime"]),
            ],
        ),
    ] {
        let log = game(&prog, Some(n), 3, &[("Habsburg", AgentKind::Heuristic)]);
        let p = of_type(&log, "players");
        assert_eq!(p.len(), 1);
        assert_eq!(p[0]["count"], n);
        let got: Vec<(String, Vec<String>)> = p[0]["players"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| {
                let sides =
                    x["sides"].as_array().unwrap().iter().map(|s| s.as_str().unwrap().to_string()).collect();
                (x["player"].as_str().unwrap().to_string(), sides)
            })
            .collect();
        let want: Vec<(String, Vec<String>)> =
            want.iter().map(|(p, s)| (p.to_string(), s.iter().map(|x| x.to_string()).collect())).collect();
        assert_eq!(got, want, "{n} players");
        // The Habsburg player's agent answers for every side it runs.
        assert_eq!(p[0]["players"][0]["agent"], "heuristic");
        // Every decision names the side it is for and the player who took it.
        for d in of_type(&log, "decision") {
            let by = d["by"].as_str().unwrap();
            let player = d["player"].as_str().unwrap();
            let seat = want.iter().find(|(_, s)| s.iter().any(|x| x == by)).unwrap();
            assert_eq!(player, seat.0, "{d}");
        }
        let maritime = of_type(&log, "decision").into_iter().find(|d| d["by"] == "Maritime").cloned();
        let expect_player = if n == 4 { "Maritime" } else { "Habsburg" };
        assert_eq!(maritime.expect("Maritime decides")["player"], expect_player);
    }
}

/// The agent of a player is the one answering for each of its sides: with two players
/// the heuristic Habsburg player answers Maritime's choices too (it always attacks the
/// side with the most prestige), while with four Maritime keeps its random agent.
#[test]
fn a_player_running_several_sides_answers_with_one_agent() {
    let prog = book();
    let heuristic_picks = |log: &[Json]| {
        // Before each of Maritime's target choices, which targets had the most prestige?
        let mut prestige: BTreeMap<String, i64> = BTreeMap::new();
        let (mut agree, mut total) = (0, 0);
        for e in log {
            if e["type"] == "track" && e["track"] == "prestige" {
                prestige.insert(e["of"].as_str().unwrap().to_string(), e["value"].as_i64().unwrap());
            }
            if e["type"] == "decision" && e["by"] == "Maritime" && e["what"] == "whom to attack" {
                let p = |s: &str| prestige.get(s).copied().unwrap_or(0);
                let best = p("Bourbon").max(p("Hohenzollern"));
                total += 1;
                if p(e["choice"].as_str().unwrap()) == best {
                    agree += 1;
                }
            }
        }
        (agree, total)
    };
    let (mut two, mut four) = ((0, 0), (0, 0));
    for seed in 1..=20 {
        let a = heuristic_picks(&game(&prog, Some(2), seed, &[("Habsburg", AgentKind::Heuristic)]));
        let b = heuristic_picks(&game(&prog, Some(4), seed, &[("Habsburg", AgentKind::Heuristic)]));
        two = (two.0 + a.0, two.1 + a.1);
        four = (four.0 + b.0, four.1 + b.1);
    }
    assert!(two.1 > 20 && two.0 == two.1, "the heuristic player picks the best target: {two:?}");
    assert!(four.1 > 20 && four.0 < four.1, "a random Maritime player does not always: {four:?}");
}

#[test]
fn two_agents_for_one_player_and_an_unoffered_count_are_refused() {
    let prog = book();
    let opts = GameOptions {
        scenario: "c".into(),
        players: Some(2),
        agents: [("Habsburg".to_string(), AgentKind::Heuristic), ("Maritime".to_string(), AgentKind::Random)]
            .into(),
        ..GameOptions::default()
    };
    let e = play(&prog, &opts).err().expect("refused");
    assert!(e.contains("Habsburg, Maritime") && e.contains("one agent"), "{e}");
    let opts = GameOptions { scenario: "c".into(), players: Some(5), ..GameOptions::default() };
    let e = play(&prog, &opts).err().expect("refused");
    assert!(e.contains("2, 3, 4"), "{e}");
    // Without a `players` declaration only one player per side is offered.
    let plain = compile_src(&BOOK.replace("§1.0 players {", "§1.0 players_not {")).diagnostics;
    assert!(!plain.is_empty(), "the grammar knows `players` only as the declaration");
}

#[test]
fn the_default_is_the_first_count_and_same_seed_same_log() {
    let prog = book();
    let a = game(&prog, None, 11, &[]);
    assert_eq!(of_type(&a, "players")[0]["count"], 2);
    for n in [2, 3, 4] {
        let x = game(&prog, Some(n), 11, &[("Bourbon", AgentKind::Heuristic)]);
        let y = game(&prog, Some(n), 11, &[("Bourbon", AgentKind::Heuristic)]);
        assert_eq!(x, y, "{n} players: same seed, same log");
    }
}

/// A rulebook without `players` logs as before: no `players` line, no `player` field.
#[test]
fn without_players_the_log_is_unchanged() {
    let src = BOOK
        .replace(
            "§1.0 players {\n  2 { [Habsburg, Maritime] [Bourbon, Hohenzollern] }\n  3 { [Habsburg, Maritime] [Bourbon] [Hohenzollern] }\n  4 { [Habsburg] [Bourbon] [Hohenzollern] [Maritime] }\n}\n",
            "",
        );
    let c = compile_src(&src);
    assert!(!c.has_errors());
    let prog = c.program.unwrap();
    let log = game(&prog, None, 5, &[]);
    assert!(of_type(&log, "players").is_empty());
    assert!(of_type(&log, "decision").iter().all(|d| d.get("player").is_none()));
    let log4 = game(&prog, Some(4), 5, &[]);
    assert_eq!(log, log4, "--players 4 is the one seating offered");
    let e =
        play(&prog, &GameOptions { scenario: "c".into(), players: Some(2), ..GameOptions::default() }).err();
    assert!(e.expect("refused").contains("one per side"));
}

/// Every change of a marker that moves a Power's control is followed at once by a
/// `control` event naming the Power, the old and the new side (null: no side).
#[test]
fn control_follows_the_political_marker() {
    let prog = book();
    let mut moves = 0;
    for seed in 1..=30 {
        let before = moves;
        let log = game(&prog, Some(3), seed, &[]);
        let mut pm: BTreeMap<String, i64> = [("Bavaria".to_string(), 3), ("Saxony".to_string(), 3)].into();
        let ctl = |v: i64| -> Json {
            if v < 3 {
                Json::from("Habsburg")
            } else if v > 3 {
                Json::from("Bourbon")
            } else {
                Json::Null
            }
        };
        for (i, e) in log.iter().enumerate() {
            if e["type"] == "track" && e["track"] == "pm" {
                let power = e["of"].as_str().unwrap().to_string();
                let old = pm[&power];
                let new = e["value"].as_i64().unwrap();
                pm.insert(power.clone(), new);
                let next = &log[i + 1];
                if ctl(old) != ctl(new) {
                    moves += 1;
                    assert_eq!(next["type"], "control", "seed {seed}: {e} then {next}");
                    assert_eq!(next["power"], Json::from(power.as_str()));
                    assert_eq!(next["of"], "Power");
                    assert_eq!(next["from"], ctl(old));
                    assert_eq!(next["to"], ctl(new));
                    assert_eq!(next["para"], "2.1", "the rule deriving control");
                    assert_eq!(next["at"], "3.2", "the rule that moved the marker");
                } else {
                    assert_ne!(next["type"], "control", "seed {seed}: no change, no event: {next}");
                }
            }
        }
        // No control event without a marker move that changes control.
        assert_eq!(of_type(&log, "control").len(), moves - before, "seed {seed}");
    }
    assert!(moves >= 30, "control moved {moves} times in 30 games");
}

/// The rules refuse an attack on a teammate (the choice only offers the other team),
/// and the invariant that says so can fail: with the rule's filter removed, some games
/// break it (R0015) in every player count.
#[test]
fn a_teammate_is_never_attacked_and_the_invariant_catches_it() {
    let prog = book();
    for n in [2, 3, 4] {
        for seed in 1..=40 {
            let log = game(&prog, Some(n), seed, &[]);
            for d in of_type(&log, "decision").iter().filter(|d| d["what"] == "whom to attack") {
                let pair = (d["by"].as_str().unwrap(), d["choice"].as_str().unwrap());
                let allied = |s: &str| s == "Habsburg" || s == "Maritime";
                assert_ne!(allied(pair.0), allied(pair.1), "{d}");
            }
        }
    }
    let careless =
        compile_src(&BOOK.replace("where not teammates(s, x) by s", "by s")).program.expect("compiles");
    for n in [2, 4] {
        let broken = (1..=40)
            .filter(|&seed| {
                let opts = GameOptions { scenario: "c".into(), seed, players: Some(n), ..GameOptions::default() };
                let out = play(&careless, &opts).expect("plays");
                matches!(&out.result, Err(e) if e.code == "R0015" && e.message.contains("no_teammate_attacked"))
            })
            .count();
        assert!(broken > 0, "{n} players: the invariant catches an attack on a teammate");
    }
}

/// The peace index reaching its last box ends the game at once, in the middle of the
/// attack procedure: the statement after the `adjust` never runs, the phase never ends.
/// The winner is the side with the most prestige, or every side tied for it.
#[test]
fn the_game_ends_mid_segment_when_peace_is_made() {
    let prog = book();
    let mut shared = 0;
    for n in [2, 3, 4] {
        for seed in 1..=40 {
            let log = game(&prog, Some(n), seed, &[]);
            let k = log.len();
            let end = &log[k - 1];
            assert_eq!(end["type"], "end");
            assert_eq!(end["para"], "5.0");
            // ... peace 15 -> 16, the trigger, the end: no note, no phase_end between.
            assert_eq!(log[k - 2]["type"], "trigger", "{}", log[k - 2]);
            assert_eq!(log[k - 3]["track"], "peace");
            assert_eq!(log[k - 3]["value"], 16);
            assert_eq!(of_type(&log, "note").len(), 15, "the 16th attack never logs its note");
            assert_eq!(end["turn"], 4, "sixteen attacks, four a turn");
            // The winner by the prestige in the log.
            let mut prestige: BTreeMap<&str, i64> = BTreeMap::new();
            for e in of_type(&log, "track").iter().filter(|e| e["track"] == "prestige") {
                prestige.insert(e["of"].as_str().unwrap(), e["value"].as_i64().unwrap());
            }
            // Sides in player order: each player's sides as listed.
            let order = if n == 4 {
                ["Habsburg", "Bourbon", "Hohenzollern", "Maritime"]
            } else {
                ["Habsburg", "Maritime", "Bourbon", "Hohenzollern"]
            };
            let best = order.iter().map(|s| prestige.get(s).copied().unwrap_or(0)).max().unwrap();
            let leaders: Vec<&str> =
                order.iter().copied().filter(|s| prestige.get(s).copied().unwrap_or(0) == best).collect();
            if leaders.len() == 1 {
                assert_eq!(end["winner"], leaders[0], "{end}");
                assert!(end.get("winners").is_none());
            } else {
                shared += 1;
                assert_eq!(end["winner"], Json::from(leaders.join("+")), "{end}");
                assert_eq!(end["winners"], Json::from(leaders.clone()), "{end}");
                let team = match leaders.as_slice() {
                    ["Habsburg", "Maritime"] => Json::from("Allied"),
                    ["Bourbon", "Hohenzollern"] => Json::from("FrancoPrussian"),
                    _ => Json::Null,
                };
                assert_eq!(end.get("team").cloned().unwrap_or(Json::Null), team, "{end}");
            }
        }
    }
    assert!(shared > 0, "some games end in a shared victory");
}

#[test]
fn bad_declarations_are_diagnosed() {
    let cases = [
        (
            "3 { [Habsburg, Maritime] [Bourbon] [Hohenzollern] }",
            "3 { [Habsburg, Maritime] [Bourbon] [Bourbon] }",
            "E0511",
            "seated twice",
        ),
        (
            "3 { [Habsburg, Maritime] [Bourbon] [Hohenzollern] }",
            "3 { [Habsburg, Maritime] [Bourbon, Hohenzollern] }",
            "E0511",
            "lists 2 players",
        ),
        (
            "3 { [Habsburg, Maritime] [Bourbon] [Hohenzollern] }",
            "3 { [Habsburg] [Bourbon] [Hohenzollern] }",
            "E0511",
            "no player runs Maritime",
        ),
        (
            "FrancoPrussian { Bourbon, Hohenzollern }",
            "FrancoPrussian { Bourbon, Maritime }",
            "E0511",
            "already on team Allied",
        ),
        (
            "FrancoPrussian { Bourbon, Hohenzollern }",
            "FrancoPrussian { Bourbon, Prussia }",
            "E0105",
            "unknown side `Prussia`",
        ),
        ("control Power by controller;", "control Powers by controller;", "E0102", "unknown type `Powers`"),
        ("control Power by controller;", "control Power by attack;", "E0601", "must be `fn (Power) -> Side`"),
        ("control Power by controller;", "control Power by nobody;", "E0109", "unknown function `nobody`"),
    ];
    for (from, to, code, msg) in cases {
        let src = BOOK.replace(from, to);
        assert_ne!(src, BOOK);
        let c = compile_src(&src);
        assert!(
            c.diagnostics
                .iter()
                .any(|d| d.code == code && d.message.contains(msg) && !d.paragraphs.is_empty()),
            "{to}: want {code} {msg}"
        );
    }
}

/// `run --players N` through the binary: a count not offered is a usage error (E0703,
/// exit 2) naming the counts offered; an offered one plays, also with `--games`.
#[test]
fn the_command_line_takes_the_player_count() {
    let dir = std::env::temp_dir().join(format!("ks-players-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    std::fs::write(dir.join("kings.ks"), BOOK).expect("write");
    let ks = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_kriegsspiel"))
            .arg("run")
            .arg(&dir)
            .args(["--scenario", "c"])
            .args(args)
            .output()
            .expect("runs")
    };
    let o = ks(&["--players", "5"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("E0703") && err.contains("2, 3, 4"), "{err}");
    let o = ks(&["--players", "3", "--seed", "4", "--agent", "Maritime=heuristic"]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let log = String::from_utf8_lossy(&o.stdout);
    assert!(log.lines().nth(1).unwrap().contains(r#""type":"players","count":3"#), "{log}");
    assert!(
        log.contains(r#"{"player":"Habsburg","sides":["Habsburg","Maritime"],"agent":"heuristic"}"#),
        "{log}"
    );
    let o = ks(&["--players", "4", "--games", "30", "--jobs", "1"]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let summary: Json = serde_json::from_slice(&o.stdout).expect("a summary");
    assert_eq!(summary["errors"], 0);
    let total: u64 = summary["results"].as_object().unwrap().values().map(|v| v.as_u64().unwrap()).sum();
    assert_eq!(total, 30);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `chained` triggers (docs/language.md 6.17): a cascade applied as it happens, inside
/// the body of the trigger that started it; an ordinary trigger waits for the next
/// change outside any trigger body; a cascade that does not settle is R0017.
const CASCADE: &str = r#"
rulebook "Cascade" { numbering dotted; dice d6; }
contents { §1.0 "Sides" §2.0 "Markers" §2.1 "Shifts" §2.2 "Chains" §3.0 "End" }
§1.0 sides { A, B }
§2.0 track a: 0..9
§2.0 track b: 0..9
§2.0 track c: 0..9
§2.0 track later: 0..9
§2.2 trigger waits when b >= 1 { §2.2 adjust later by 1; }
§2.1 trigger shift when a >= 1 {
  §2.1 adjust b by 1;
  §2.1 log "after the shift: c is {}", c;
}
§2.2 trigger follows chained when b >= 1 { §2.2 adjust c by 1; }
§3.0 sequence {
  turns 1 { adjust a by 1; log "outside: later is {}", later; adjust a by 1; log "then later is {}", later; }
  draw "over";
}
§3.0 scenario "s" "s" { turns 1; order A, B; }
"#;

#[test]
fn chained_triggers_cascade_as_they_happen() {
    let c = compile_src(CASCADE);
    assert!(!c.has_errors());
    let prog = c.program.unwrap();
    let out = play(&prog, &GameOptions { scenario: "s".into(), ..GameOptions::default() }).expect("plays");
    assert!(out.result.is_ok(), "{:?}", out.result);
    let log: Vec<Json> = out.log.lines.iter().map(|l| serde_json::from_str(l).unwrap()).collect();
    let seq: Vec<String> = log
        .iter()
        .filter_map(|e| match e["type"].as_str().unwrap() {
            "track" => Some(format!("{}={}", e["track"].as_str().unwrap(), e["value"])),
            "trigger" => Some(format!("!{}", e["trigger"].as_str().unwrap())),
            "note" => Some(e["message"].as_str().unwrap().to_string()),
            _ => None,
        })
        .collect();
    assert_eq!(
        seq,
        [
            "a=1",
            "!shift",
            "b=1",
            // The chained trigger fires inside `shift`, before its next statement ...
            "!follows",
            "c=1",
            "after the shift: c is 1",
            // ... the ordinary one, declared first, only at the next change outside.
            "outside: later is 0",
            "a=2",
            "!waits",
            "later=1",
            "then later is 1",
        ],
        "{seq:#?}"
    );
    // Without `chained` the cascade waits too.
    let plain = compile_src(&CASCADE.replace("follows chained when", "follows when")).program.unwrap();
    let out = play(&plain, &GameOptions { scenario: "s".into(), ..GameOptions::default() }).expect("plays");
    assert!(out.log.text().contains("after the shift: c is 0"), "{}", out.log.text());
    // A cascade that does not settle: each odd value of c fires a trigger that passes
    // through an even value (its condition falls) to the next odd one (it rises again).
    let endless = compile_src(&CASCADE.replace("track c: 0..9", "track c: 0..999").replace(
        "§2.2 trigger follows chained when b >= 1 { §2.2 adjust c by 1; }",
        "§2.2 trigger follows chained when b >= 1 { §2.2 adjust c by 1; }\n\
             §2.2 trigger flip chained when c % 2 == 1 { §2.2 adjust c by 1; §2.2 adjust c by 1; }",
    ))
    .program
    .unwrap();
    let out = play(&endless, &GameOptions { scenario: "s".into(), ..GameOptions::default() }).expect("plays");
    assert_eq!(out.result.err().map(|e| e.code), Some("R0017"));
}
