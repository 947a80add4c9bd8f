//! Decks, hands and cards; hidden identity and per-side views; owner change (issue 18).
//! An inline rulebook draws, plays (sealed), discards and reshuffles cards, hides its
//! blocks' types and ratings, and moves a unit to the other side.

use kriegsspiel_compiler::Compilation;
use kriegsspiel_runtime::game::{play, AgentKind, GameOptions, GameOutcome};
use kriegsspiel_runtime::view::side_view;
use std::collections::BTreeMap;

mod support;

const BOOK: &str = r#"
rulebook "Cards" { numbering dotted; dice d6; }
contents {
  §1.0 "Pieces" §2.0 "The deck" §2.1 "Muster" §2.2 "Raid" §2.3 "Storm" §3.0 "Hands"
  §4.0 "Orders" §5.0 "Defection" §6.0 "Blocks" §7.0 "Sequence"
}
§1.0 sides { A, B }
§1.0 rating cs: 0..9
§1.0 classes { foot, horse }
§1.0 unit Foot: foot
§1.0 unit Horse: horse
§6.0 unit Block: foot
§1.0 terrain Plain { cost: 1 }
§1.0 map "Board" supplied "a test board" { default Plain; areas { North; South; } borders { North|South; } }
§1.0 counters supplied "test counters" {
  A "A foot" Foot { cs: 2 }
  A "A horse" Horse { cs: 5 }
  B "B one" Foot { cs: 3 }
  B "B two" Horse { cs: 4 }
}
§2.1 track mustered per side: 0..99
§2.2 track raids per side: 0..99
§6.0 track hits per side: 0..99
§2.0 deck Orders {
  §2.1 Muster { ops: 2 } event muster;
  §2.2 Raid { ops: 3, bold: true } event raid;
  §2.3 Storm { ops: 1 };
  Parley { ops: 1 };
}
§3.0 hand Hand: Orders;
§2.1 procedure muster(s: Side) { adjust mustered[s] by 1; }
§2.2 procedure raid(s: Side) { adjust raids[s] by 1; }
§3.0 procedure refill(s: Side) {
  if deck_size(Orders) == 0 { reshuffle Orders; }
  draw from Orders to Hand[s];
}
§4.0 procedure orders() {
  for s in [A, B] { call refill(s); call refill(s); }
  sealed {
    §4.0 let a = choose c in Hand[A] by A prefer c.ops "order card";
    §4.0 let b = choose c in Hand[B] by B prefer c.ops "order card";
  }
  play a from Hand[A];
  play b from Hand[B];
  for s in [A, B] { for c in Hand[s] { discard c from Hand[s]; } }
}
§6.0 fn shown_type(u: Unit) -> UnitType = Block;
§6.0 fn shown_cs(u: Unit) -> Int = 1;
§6.0 hidden type shown shown_type;
§6.0 hidden cs shown shown_cs;
§6.0 procedure strike(s: Side) {
  let t = choose t in units(other(s)) by s prefer (if t is horse then 10 else 0) + t.cs "target";
  adjust hits[other(s)] by 1;
}
§5.0 procedure defect() {
  if turn() == 2 { transfer unit("B two") to A; }
}
§7.0 sequence {
  turns 3 {
    call orders();
    §5.0 call defect();
    log "A has {} units, B has {}", len(units(A)), len(units(B));
    phase Battle(A) { call strike(A); }
  }
  draw "the game ends";
}
§7.0 scenario "s" "Test" {
  turns 3; order A, B;
  setup A { "A foot" at North; "A horse" at North; }
  setup B { "B one" at South; "B two" at South; }
}
"#;

fn compile_src(src: &str) -> Compilation {
    support::inline::compile_one("cards.ks", src)
}

fn run(src: &str, seed: u64, agents: &[(&str, AgentKind)]) -> GameOutcome {
    let c = compile_src(src);
    let prog = c.program.expect("compiles");
    let agents: BTreeMap<String, AgentKind> =
        agents.iter().map(|(s, k)| (s.to_string(), k.clone())).collect();
    play(&prog, &GameOptions { scenario: "s".into(), seed, agents, ..GameOptions::default() }).expect("plays")
}

fn heuristic() -> Vec<(&'static str, AgentKind)> {
    vec![("A", AgentKind::Heuristic), ("B", AgentKind::Heuristic)]
}

fn of_type<'a>(lines: &'a [String], t: &str) -> Vec<&'a String> {
    let key = format!(r#""type":"{t}""#);
    lines.iter().filter(|l| l.contains(&key)).collect()
}

fn codes(src: &str) -> Vec<String> {
    compile_src(src).diagnostics.iter().map(|d| d.code.to_string()).collect()
}

#[test]
fn cards_are_drawn_played_discarded_and_reshuffled() {
    for seed in 1..=20 {
        let out = run(BOOK, seed, &heuristic());
        assert!(out.result.is_ok(), "seed {seed}: {:?}", out.result);
        let lines = &out.log.lines;
        // Two cards to each hand per turn, from a deck of four: reshuffled on turns 2 and 3.
        let draws = of_type(lines, "draw");
        assert_eq!(draws.len(), 12, "seed {seed}");
        assert!(draws.iter().all(|l| l.contains(r#""deck":"Orders""#) && l.contains(r#""para":"3.0""#)));
        let reshuffles = of_type(lines, "reshuffle");
        assert_eq!(reshuffles.len(), 2);
        assert!(reshuffles.iter().all(|l| l.contains(r#""returned":4,"left":4"#)), "{reshuffles:?}");
        // Each side plays one card a turn and discards the other.
        assert_eq!(of_type(lines, "play").len(), 6);
        assert_eq!(of_type(lines, "discard").len(), 6);
        // The heuristic agents play their best card by its ops value; a card's play
        // carries its own paragraph, and its event runs under it.
        for (i, l) in lines.iter().enumerate() {
            if l.contains(r#""type":"play""#) && l.contains(r#""card":"Raid""#) {
                assert!(l.contains(r#""para":"2.2""#), "{l}");
                assert!(lines[i + 1].contains(r#""track":"raids""#), "the event ran: {}", lines[i + 1]);
            }
            if l.contains(r#""type":"play""#) && l.contains(r#""card":"Storm""#) {
                assert!(l.contains(r#""para":"2.3""#) && !lines[i + 1].contains(r#""type":"track""#), "{l}");
            }
        }
        let state = &out.final_state;
        assert!(state.hands.iter().all(|h| h.is_empty()), "hands emptied each turn");
        assert_eq!(state.decks[0].len() + state.discards[0].len(), 4, "no card lost or doubled");
    }
}

#[test]
fn a_played_card_is_the_chosen_one_with_the_best_ops() {
    let out = run(BOOK, 3, &heuristic());
    let lines = &out.log.lines;
    let ops = |c: &str| match c {
        "Raid" => 3,
        "Muster" => 2,
        _ => 1,
    };
    // Per turn: the cards drawn to A, then A's play: the best of the two.
    let mut hand: Vec<String> = Vec::new();
    for l in lines {
        let v: serde_json::Value = serde_json::from_str(l).expect("json");
        match v["type"].as_str() {
            Some("draw") if v["to"] == "A" => hand.push(v["drawn"].as_str().expect("card").to_string()),
            Some("play") if v["by"] == "A" => {
                let best = hand.iter().map(|c| ops(c)).max().expect("a hand");
                assert_eq!(ops(v["card"].as_str().expect("card")), best, "{l}");
                hand.clear();
            }
            _ => {}
        }
    }
}

#[test]
fn card_errors_have_codes() {
    // Unknown deck and hand.
    assert!(codes(&BOOK.replace("draw from Orders", "draw from Ordres")).contains(&"E0199".to_string()));
    assert!(codes(&BOOK.replace("to Hand[s];", "to Hnd[s];")).contains(&"E0199".to_string()));
    assert!(codes(&BOOK.replace("deck_size(Orders)", "deck_size(Ordres)")).contains(&"E0199".to_string()));
    // An event must be a procedure(Side); an unknown one is E0109.
    let bad = BOOK.replace("§2.1 procedure muster(s: Side)", "§2.1 procedure muster(s: Unit)");
    assert!(codes(&bad).contains(&"E0601".to_string()));
    assert!(codes(&BOOK.replace("event raid;", "event raids;")).contains(&"E0109".to_string()));
    // Attributes: one type per name; an unknown one is E0106.
    assert!(codes(&BOOK.replace("Parley { ops: 1 }", "Parley { ops: true }")).contains(&"E0301".to_string()));
    assert!(codes(&BOOK.replace("prefer c.ops", "prefer c.opz")).contains(&"E0106".to_string()));
    // A hand holds one type; a card of another, or an index that is not a side, is E0301.
    let wrong = BOOK.replace("§3.0 hand Hand: Orders;", "§3.0 hand Hand: Orders;\n§3.0 hand Units: Unit;");
    assert!(codes(&wrong.replace("draw from Orders to Hand[s];", "draw from Orders to Units[s];"))
        .contains(&"E0301".to_string()));
    assert!(codes(&BOOK.replace("choose c in Hand[A]", "choose c in Hand[1]")).contains(&"E0301".to_string()));
    // Effects: not in a fn.
    let pure = BOOK.replace(
        "§6.0 fn shown_cs(u: Unit) -> Int = 1;",
        "§6.0 fn shown_cs(u: Unit) -> Int = 1;\n§6.0 fn peek(s: Side) -> Int = len(Hand[s]);",
    );
    assert!(!compile_src(&pure).has_errors(), "reading a hand is pure: {:?}", codes(&pure));
}

#[test]
fn playing_a_card_not_in_the_hand_is_a_runtime_error() {
    // Play A's card twice: the second time it is on the discard pile.
    let twice = BOOK.replace("play a from Hand[A];", "play a from Hand[A];\n  play a from Hand[A];");
    let out = run(&twice, 1, &heuristic());
    let e = out.result.expect_err("R0099");
    assert_eq!(e.code, "R0099", "{e:?}");
    assert!(e.message.contains("not in A's hand `Hand`"), "{}", e.message);
}

#[test]
fn transfer_moves_a_unit_to_the_other_side() {
    let out = run(BOOK, 1, &heuristic());
    let lines = &out.log.lines;
    let t = of_type(lines, "transfer");
    assert_eq!(t.len(), 1);
    assert!(
        t[0].contains(r#""unit":"B two","from":"B","to":"A""#) && t[0].contains(r#""para":"5.0""#),
        "{}",
        t[0]
    );
    let notes: Vec<&String> = of_type(lines, "note");
    assert!(notes[0].contains("A has 2 units, B has 2"), "{}", notes[0]);
    assert!(notes[1].contains("A has 3 units, B has 1"), "{}", notes[1]);
    // The unit's side is the new one for the rules (units(), u.side).
    assert_eq!(out.final_state.units[3].side, 0);
    // A transfer to the side it already has changes nothing and logs nothing.
    let same = BOOK.replace(r#"transfer unit("B two") to A;"#, r#"transfer unit("B two") to B;"#);
    assert!(of_type(&run(&same, 1, &heuristic()).log.lines, "transfer").is_empty());
}

/// B's blocks swapped: the same names, the other types and ratings.
fn swapped(src: &str) -> String {
    src.replace(r#"B "B one" Foot { cs: 3 }"#, r#"B "B one" Horse { cs: 9 }"#)
        .replace(r#"B "B two" Horse { cs: 4 }"#, r#"B "B two" Foot { cs: 0 }"#)
}

fn targets(out: &GameOutcome) -> Vec<String> {
    of_type(&out.log.lines, "decision")
        .into_iter()
        .filter(|l| l.contains(r#""what":"target""#))
        .cloned()
        .collect()
}

#[test]
fn an_agent_cannot_learn_a_hidden_blocks_type_or_rating() {
    for seed in 1..=20 {
        // With the blocks' types and ratings hidden, A's heuristic agent picks the same
        // target whatever B's blocks are: it sees two blocks of type Block, strength 1.
        let a = run(BOOK, seed, &heuristic());
        let b = run(&swapped(BOOK), seed, &heuristic());
        assert_eq!(targets(&a), targets(&b), "seed {seed}: A's choice depends on hidden identity");
        // The control: without `hidden`, the same agent sees the horse and picks it.
        let open = BOOK
            .replace("§6.0 hidden type shown shown_type;", "")
            .replace("§6.0 hidden cs shown shown_cs;", "");
        let a = run(&open, seed, &heuristic());
        let b = run(&swapped(&open), seed, &heuristic());
        assert_ne!(targets(&a), targets(&b), "seed {seed}: the control must see the difference");
        assert!(targets(&a)[0].contains(r#""choice":"B two""#), "{}", targets(&a)[0]);
        assert!(targets(&b)[0].contains(r#""choice":"B one""#), "{}", targets(&b)[0]);
    }
    // Nor from the labels it reads: a scripted agent names an enemy block by where it
    // stands, not by its counter's name.
    let mut agents = heuristic();
    agents[0].1 = AgentKind::Scripted(vec![serde_json::json!(0), serde_json::json!("B block in South")]);
    let out = run(BOOK, 1, &agents);
    let agent_notes: Vec<&String> = of_type(&out.log.lines, "agent");
    assert!(agent_notes.iter().all(|l| !l.contains("not an option")), "{agent_notes:?}");
    let mut agents = heuristic();
    agents[0].1 = AgentKind::Scripted(vec![serde_json::json!(0), serde_json::json!("B two")]);
    let out = run(BOOK, 1, &agents);
    assert!(
        of_type(&out.log.lines, "agent").iter().any(|l| l.contains("not an option")),
        "a name is not a label"
    );
}

#[test]
fn a_sealed_card_cannot_be_read_by_the_other_chooser() {
    // A, scripted, plays its first card or its second; B decides the same either way.
    for seed in 1..=30 {
        for b_kind in [AgentKind::Random, AgentKind::Heuristic] {
            let b_cards = |first: u64| {
                let script = vec![serde_json::json!(first); 3];
                let out = run(BOOK, seed, &[("A", AgentKind::Scripted(script)), ("B", b_kind.clone())]);
                of_type(&out.log.lines, "decision")
                    .into_iter()
                    .filter(|l| l.contains(r#""by":"B""#) && l.contains("order card"))
                    .cloned()
                    .collect::<Vec<_>>()
            };
            let first = b_cards(0);
            assert_eq!(first.len(), 3);
            assert_eq!(first, b_cards(1), "seed {seed}: B's sealed card depends on A's");
        }
    }
}

#[test]
fn a_sides_view_hides_other_hands_sealed_cards_and_block_names() {
    let c = compile_src(BOOK);
    let prog = c.program.expect("compiles");
    let agents: BTreeMap<String, AgentKind> =
        heuristic().into_iter().map(|(s, k)| (s.to_string(), k)).collect();
    let out = play(&prog, &GameOptions { scenario: "s".into(), seed: 2, agents, ..GameOptions::default() })
        .expect("plays");
    let full = out.log.text();
    let view = |s: &str| -> Vec<String> {
        side_view(&prog, &full, s).expect("a side").lines().map(String::from).collect()
    };
    let (a, b) = (view("A"), view("B"));
    assert_eq!(a.len(), out.log.lines.len(), "a view has every line of the record");
    assert!(a[0].contains(r#""view":"A""#), "{}", a[0]);
    // The cards drawn into the other hand are face down; one's own are seen.
    for (v, me, them) in [(&a, "A", "B"), (&b, "B", "A")] {
        let draws = of_type(v, "draw");
        let to = |s: &str| format!(r#""to":"{s}""#);
        assert!(draws.iter().filter(|l| l.contains(&to(them))).all(|l| l.contains(r#""drawn":null"#)));
        assert!(draws.iter().filter(|l| l.contains(&to(me))).all(|l| !l.contains(r#""drawn":null"#)));
        // The other's sealed decisions are hidden until the reveal, which shows them.
        let by = |s: &str| format!(r#""by":"{s}""#);
        let dec = of_type(v, "decision");
        let sealed_other: Vec<&&String> =
            dec.iter().filter(|l| l.contains(&by(them)) && l.contains(r#""sealed":true"#)).collect();
        assert_eq!(sealed_other.len(), 3);
        assert!(sealed_other.iter().all(|l| l.contains(r#""choice":null"#)), "{sealed_other:?}");
        assert!(of_type(v, "reveal").iter().all(|l| !l.contains("null")));
    }
    // The record keeps everything.
    assert!(!full.contains(r#""drawn":null"#) && !full.contains(r#""choice":null"#));
    // B's blocks go by aliases in A's view; "B two" is A's after its transfer (turn 2).
    let a_text = a.join("\n");
    assert!(!a_text.contains("B one"), "A never sees B one's name");
    assert!(a_text.contains("B block 1"));
    let t = a.iter().position(|l| l.contains(r#""type":"transfer""#)).expect("a transfer");
    assert!(a[t].contains(r#""unit":"B two""#), "{}", a[t]);
    assert!(a[..t].iter().all(|l| !l.contains("B two")));
    // B never sees A's blocks' names, nor B two's once it has gone over.
    let b_text = b.join("\n");
    assert!(!b_text.contains("A foot") && !b_text.contains("A horse"));
    assert!(b[t + 1..].iter().all(|l| !l.contains("B two")));
    assert!(side_view(&prog, &full, "C").is_err());
}

// ------------------------------------------------------------ the block game of our own

const GAME: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/rulebooks/blocks-and-cards");

fn cli(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_kriegsspiel")).args(args).output().expect("runs")
}

#[test]
fn the_block_game_checks_clean() {
    let out = cli(&["check", GAME]);
    let text = String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("0 error(s), 0 warning(s)"), "{text}");
    assert!(text.contains("examples: 8 run, 8 passed"), "{text}");
    assert!(text.contains("0 missing"), "{text}");
}

#[test]
fn the_block_game_plays_hundreds_of_seeds_in_each_sides_view() {
    let prog = {
        let mut sources = kriegsspiel_dsl::SourceMap::new();
        let mut paths: Vec<_> = std::fs::read_dir(GAME).expect("dir").flatten().map(|e| e.path()).collect();
        paths.sort();
        for p in paths.iter().filter(|p| p.extension().map(|x| x == "ks").unwrap_or(false)) {
            sources.add(p.display().to_string(), std::fs::read_to_string(p).expect("read"));
        }
        kriegsspiel_compiler::compile(&sources).program.expect("compiles")
    };
    let names_of = |side: &str| -> Vec<String> {
        prog.counters.iter().filter(|c| prog.sides[c.side as usize] == side).map(|c| c.name.clone()).collect()
    };
    for (me, them) in [("Crown", "Barons"), ("Barons", "Crown")] {
        let dir = std::env::temp_dir().join(format!("ks-cards-{}-{me}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("dir");
        let d = dir.display().to_string();
        let out = cli(&["run", GAME, "--scenario", "1", "--games", "300", "--view", me, "--log", &d]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let summary: serde_json::Value = serde_json::from_slice(&out.stdout).expect("summary");
        assert_eq!(summary["games"], 300);
        assert_eq!(summary["errors"], 0, "{summary}");
        let mut sealed_hidden = 0;
        let mut draws_hidden = 0;
        for seed in 1..=300 {
            let text = std::fs::read_to_string(dir.join(format!("seed-{seed}.jsonl"))).expect("log");
            let mut turned: Vec<String> = Vec::new();
            for line in text.lines() {
                let v: serde_json::Value = serde_json::from_str(line).expect("json");
                if v["type"] == "header" {
                    assert_eq!(v["view"], me);
                }
                if v["type"] == "transfer" {
                    turned.push(v["unit"].as_str().unwrap_or_default().to_string());
                }
                if v["type"] == "draw" && v["to"] == them {
                    assert!(v["drawn"].is_null(), "seed {seed}: {line}");
                    draws_hidden += 1;
                }
                if v["type"] == "decision" && v["by"] == them && v["sealed"] == true {
                    assert!(v["choice"].is_null(), "seed {seed}: {line}");
                    sealed_hidden += 1;
                }
                // The other side's blocks are never named, until one comes over.
                for n in names_of(them) {
                    if !turned.contains(&n) {
                        assert!(!line.contains(&format!("\"{n}\"")), "seed {seed}: {n} named in {line}");
                    }
                }
            }
            assert!(
                text.lines().last().map(|l| l.contains(r#""type":"end""#)).unwrap_or(false),
                "seed {seed}"
            );
        }
        assert!(sealed_hidden >= 300 && draws_hidden >= 300, "{sealed_hidden} {draws_hidden}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// BOOK with B's blocks revealed while they carry `Seen`: B one is scouted in turn 1 and
/// hidden again in turn 2 (before the strike of each turn).
fn scouted(src: &str, revealing: bool) -> String {
    let by = if revealing { " revealed by Seen" } else { "" };
    src.replace("§6.0 hidden type shown shown_type;", &format!("§6.0 marker Seen on unit\n§6.0 track sightings per unit: 0..9\n§6.0 hidden type shown shown_type{by};"))
        .replace("§6.0 hidden cs shown shown_cs;", &format!("§6.0 hidden cs shown shown_cs{by};"))
        .replace(
            "§5.0 call defect();",
            "§5.0 call defect();\n    §6.0 if turn() == 1 { adjust sightings[unit(\"B one\")] by 1; mark unit(\"B one\") Seen; }\n    §6.0 if turn() == 2 { unmark unit(\"B one\") Seen; }",
        )
}

/// A's strike target in turn 1.
fn first_target(out: &GameOutcome) -> String {
    targets(out).first().cloned().unwrap_or_default()
}

#[test]
fn a_revealing_marker_shows_a_block_while_it_is_on() {
    let open = scouted(BOOK, true);
    assert!(compile_src(&open).diagnostics.is_empty(), "{:?}", compile_src(&open).diagnostics);
    // B one's true strength decides A's target while it is Seen: with cs 3 (score 3) A
    // strikes it rather than the block B two (shown cs 1); with cs 0 it strikes B two.
    let weak = open.replace(r#"B "B one" Foot { cs: 3 }"#, r#"B "B one" Foot { cs: 0 }"#);
    for seed in 1..=10 {
        let a = first_target(&run(&open, seed, &heuristic()));
        let b = first_target(&run(&weak, seed, &heuristic()));
        assert!(a.contains(r#""choice":"B one""#), "seed {seed}: {a}");
        assert!(b.contains(r#""choice":"B two""#), "seed {seed}: {b}");
        // The control: without `revealed by`, the mark changes nothing A can read.
        let (ha, hb) = (scouted(BOOK, false), scouted(BOOK, false).replace("cs: 3", "cs: 0"));
        assert_eq!(
            first_target(&run(&ha, seed, &heuristic())),
            first_target(&run(&hb, seed, &heuristic())),
            "seed {seed}"
        );
    }
    // A's labels name B one while it is Seen: a scripted agent may name it in turn 1.
    let mut agents = heuristic();
    agents[0].1 = AgentKind::Scripted(vec![serde_json::json!(0), serde_json::json!("B one")]);
    let out = run(&open, 1, &agents);
    assert!(of_type(&out.log.lines, "agent").iter().all(|l| !l.contains("not an option")));
    assert!(first_target(&out).contains(r#""choice":"B one""#));
    // A's view: B one goes by its alias until the mark, by its name while marked, and by
    // the same alias again from the unmark on.
    let prog = compile_src(&open).program.expect("compiles");
    let out = run(&open, 2, &heuristic());
    let view: Vec<String> =
        side_view(&prog, &out.log.text(), "A").expect("A").lines().map(String::from).collect();
    let mark = view.iter().position(|l| l.contains(r#""type":"mark""#)).expect("a mark");
    let unmark = view.iter().position(|l| l.contains(r#""type":"unmark""#)).expect("an unmark");
    assert!(view[mark].contains(r#""on":"B one""#), "{}", view[mark]);
    assert!(view[..mark].iter().all(|l| !l.contains("B one")));
    let on = serde_json::from_str::<serde_json::Value>(&view[unmark]).expect("json")["on"].clone();
    let alias = on.as_str().unwrap_or_default().to_string();
    assert!(alias.starts_with("B block"), "{}", view[unmark]);
    assert!(view[..mark].iter().any(|l| l.contains(&format!("\"{alias}\""))), "the alias it had before");
    assert!(view[unmark + 1..].iter().all(|l| !l.contains("B one")));
    // The record names it throughout; B's own view too.
    assert!(out.log.text().contains(r#""on":"B one""#));
}

#[test]
fn revealed_by_names_a_unit_marker() {
    let with = |m: &str| scouted(BOOK, true).replace("revealed by Seen", &format!("revealed by {m}"));
    assert!(codes(&with("Nobody")).contains(&"E0107".to_string()));
    let hex_marker = scouted(BOOK, true)
        .replace("§6.0 marker Seen on unit", "§6.0 marker Seen on unit\n§6.0 marker Fog on hex");
    let hex_marker = hex_marker.replacen("revealed by Seen", "revealed by Fog", 1);
    assert!(codes(&hex_marker).contains(&"E0107".to_string()), "{:?}", codes(&hex_marker));
}
