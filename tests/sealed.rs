//! Sealed (secret, simultaneous) choices (issues 11 and 18): in a `sealed` block no
//! choice can read another's result; the names are bound after the block; the log
//! marks the decisions sealed and reveals them together.

use kriegsspiel_compiler::Compilation;
use kriegsspiel_runtime::game::{play, AgentKind, GameOptions};
use std::collections::BTreeMap;

const BOOK: &str = r#"
rulebook "Sealed" { numbering dotted; dice d6; }
contents { §1.0 "Pieces" §2.0 "Posture" §3.0 "Outcome" }
§1.0 sides { A, B }
§2.0 results Posture { Pitched, Pursuit }
§3.0 track a_pitched: 0..99
§3.0 track b_pitched: 0..99
§1.0 procedure battle() {
  sealed {
    §2.0 let a = choose p in [Pitched, Pursuit] by A prefer (if p == Pitched then 1 else 0) "posture";
    §2.0 let b = choose p in [Pitched, Pursuit] by B prefer (if p == Pursuit then 1 else 0) "posture";
  }
  §3.0 if a == Pitched { adjust a_pitched by 1; }
  §3.0 if b == Pitched { adjust b_pitched by 1; }
}
§1.0 sequence { turns 3 { call battle(); } draw "the campaign ends"; }
§1.0 scenario "s" "s" { turns 3; order A, B; }
"#;

mod support;

fn compile_src(src: &str) -> Compilation {
    support::inline::compile_one("sealed.ks", src)
}

fn b_decisions(log: &[String]) -> Vec<String> {
    log.iter().filter(|l| l.contains(r#""type":"decision""#) && l.contains(r#""by":"B""#)).cloned().collect()
}

#[test]
fn sealed_choices_are_logged_sealed_and_revealed_together() {
    let c = compile_src(BOOK);
    assert!(!c.has_errors());
    let agents: BTreeMap<String, AgentKind> =
        [("A".to_string(), AgentKind::Heuristic), ("B".to_string(), AgentKind::Heuristic)].into();
    let out = play(
        c.program.as_ref().expect("compiles"),
        &GameOptions { scenario: "s".into(), agents, ..GameOptions::default() },
    )
    .expect("plays");
    assert!(out.result.is_ok());
    let lines = &out.log.lines;
    let i = lines.iter().position(|l| l.contains(r#""type":"decision""#)).expect("a decision");
    assert!(
        lines[i].contains(r#""by":"A""#)
            && lines[i].contains(r#""sealed":true"#)
            && lines[i].contains(r#""para":"2.0""#),
        "{}",
        lines[i]
    );
    assert!(
        lines[i + 1].contains(r#""by":"B""#) && lines[i + 1].contains(r#""sealed":true"#),
        "{}",
        lines[i + 1]
    );
    assert!(lines[i + 2].contains(r#""type":"reveal""#), "{}", lines[i + 2]);
    assert!(lines[i + 2].contains(r#"{"by":"A","what":"posture","choice":"Pitched"}"#), "{}", lines[i + 2]);
    assert!(lines[i + 2].contains(r#"{"by":"B","what":"posture","choice":"Pursuit"}"#), "{}", lines[i + 2]);
    // Both results are acted on after the block: A held Pitched three times, B never.
    assert_eq!(lines.iter().filter(|l| l.contains(r#""track":"a_pitched""#)).count(), 3);
    assert_eq!(lines.iter().filter(|l| l.contains(r#""track":"b_pitched""#)).count(), 0);
}

#[test]
fn no_sealed_choice_can_read_another() {
    // The second chooser's preference names the first result: not in scope yet.
    let peek = BOOK.replace("prefer (if p == Pursuit then 1 else 0)", "prefer (if p == a then 1 else 0)");
    let c = compile_src(&peek);
    assert!(
        c.diagnostics.iter().any(|d| d.code == "E0306" && d.message.contains('a')),
        "reading `a` is refused"
    );
    // Nor can a choice's list.
    let peek = BOOK.replace("let b = choose p in [Pitched, Pursuit]", "let b = choose p in [a, Pursuit]");
    assert!(compile_src(&peek).diagnostics.iter().any(|d| d.code == "E0306"));
    // Only choices inside: an effect could pass a result on through the state.
    let leak = BOOK.replace("§2.0 let b = choose", "§2.0 adjust a_pitched by 1;\n    §2.0 let b = choose");
    assert!(compile_src(&leak).diagnostics.iter().any(|d| d.code == "E0301" && d.message.contains("sealed")));
}

#[test]
fn the_second_chooser_decides_the_same_whatever_the_first_chose() {
    let c = compile_src(BOOK);
    let prog = c.program.expect("compiles");
    for seed in 1..=40 {
        for b_kind in [AgentKind::Random, AgentKind::Heuristic] {
            let run = |a_script: &str| {
                let script: Vec<serde_json::Value> = serde_json::from_str(a_script).expect("json");
                let agents: BTreeMap<String, AgentKind> =
                    [("A".to_string(), AgentKind::Scripted(script)), ("B".to_string(), b_kind.clone())]
                        .into();
                let out = play(
                    &prog,
                    &GameOptions { scenario: "s".into(), seed, agents, ..GameOptions::default() },
                )
                .expect("plays");
                b_decisions(&out.log.lines)
            };
            let pitched = run(r#"["Pitched", "Pitched", "Pitched"]"#);
            let pursuit = run(r#"["Pursuit", "Pursuit", "Pursuit"]"#);
            assert_eq!(pitched.len(), 3);
            assert_eq!(pitched, pursuit, "seed {seed}: B's choices depend on A's sealed choices");
        }
    }
}

// ------------------------------------------------------------ secret choices, revealed later

/// One side's choice kept from the other for turns (an objective written down), then
/// revealed by the rules.
const SECRET: &str = r#"
rulebook "Secret" { numbering dotted; dice d6; }
contents { §1.0 "Pieces" §2.0 "Orders" §3.0 "Arrival" }
§1.0 sides { A, B }
§1.0 classes { foot }
§1.0 unit Corps: foot
§1.0 terrain Plain { cost: 1 }
§1.0 map "Board" supplied "a test board" { default Plain; areas { North; South; } borders { North|South; } }
§1.0 counters supplied "test counters" { A "First Corps" Corps { } B "Guard" Corps { } }
§2.0 track goal per unit: 0..3
§2.0 fn unknown(u: Unit) -> Int = 0;
§2.0 hidden goal shown unknown;
§2.0 procedure orders() {
  let g = choose x in [1, 2, 3] by A secret prefer x "objective";
  set goal[unit("First Corps")] = g;
}
§3.0 procedure arrive() {
  if turn() == 3 { reveal goal[unit("First Corps")] by A "objective"; }
}
§3.0 sequence { turns 3 { if turn() == 1 { call orders(); } call arrive(); } draw "over"; }
§3.0 scenario "s" "s" { turns 3; order A, B; setup A { "First Corps" at North; } setup B { "Guard" at South; } }
"#;

#[test]
fn a_secret_choice_is_hidden_from_the_other_side_until_its_reveal() {
    use kriegsspiel_runtime::view::side_view;
    let c = compile_src(SECRET);
    assert!(!c.has_errors(), "{:?}", c.diagnostics);
    let prog = c.program.expect("compiles");
    for seed in 1..=5 {
        let agents: BTreeMap<String, AgentKind> =
            [("A".to_string(), AgentKind::Random), ("B".to_string(), AgentKind::Random)].into();
        let out = play(&prog, &GameOptions { scenario: "s".into(), seed, agents, ..GameOptions::default() })
            .expect("plays");
        assert!(out.result.is_ok());
        let full = out.log.text();
        let dec = full.lines().find(|l| l.contains(r#""type":"decision""#)).expect("a decision");
        assert!(dec.contains(r#""secret":true"#), "{dec}");
        let choice = serde_json::from_str::<serde_json::Value>(dec).expect("json")["choice"].clone();
        assert!(choice.is_i64(), "the record keeps the choice: {dec}");
        let reveal = full.lines().find(|l| l.contains(r#""type":"reveal""#)).expect("a reveal");
        assert!(reveal.contains(r#""turn":3"#) && reveal.contains(r#""para":"3.0""#), "{reveal}");
        let shown = serde_json::from_str::<serde_json::Value>(reveal).expect("json")["decisions"][0].clone();
        assert_eq!(shown["by"], "A");
        assert_eq!(shown["what"], "objective");
        assert_eq!(shown["choice"], choice, "the reveal shows what was chosen");
        // B's view: neither the decision nor the track written from it tells the choice,
        // and the reveal, in turn 3, does.
        let b = side_view(&prog, &full, "B").expect("B");
        let b_dec = b.lines().find(|l| l.contains(r#""type":"decision""#)).expect("a decision");
        assert!(b_dec.contains(r#""choice":null"#) && b_dec.contains(r#""hidden":true"#), "{b_dec}");
        let b_goal = b.lines().find(|l| l.contains(r#""track":"goal""#)).expect("the track");
        assert!(b_goal.contains(r#""value":null"#), "{b_goal}");
        let b_reveal = b.lines().find(|l| l.contains(r#""type":"reveal""#)).expect("a reveal");
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(b_reveal).expect("json")["decisions"][0]["choice"],
            choice
        );
        // A sees its own choice.
        let a = side_view(&prog, &full, "A").expect("A");
        let a_dec = a.lines().find(|l| l.contains(r#""type":"decision""#)).expect("a decision");
        assert!(!a_dec.contains(r#""choice":null"#), "{a_dec}");
    }
}

#[test]
fn reveal_errors_have_codes() {
    let codes = |src: &str| -> Vec<String> {
        compile_src(src).diagnostics.iter().map(|d| d.code.to_string()).collect()
    };
    // The revealing side must be a side.
    let not_side = SECRET.replace("by A \"objective\"; }", "by 3 \"objective\"; }");
    assert!(codes(&not_side).contains(&"E0301".to_string()), "{:?}", codes(&not_side));
    // Nothing to reveal.
    assert!(codes(SECRET).is_empty(), "{:?}", codes(SECRET));
}

// ------------------------------------------------------------ private choices, never revealed

/// A choice made behind a player's screen: strength moved between two units whose
/// strengths are hidden; one private choice inside a sealed block stays out of its reveal.
const PRIVATE: &str = r#"
rulebook "Private" { numbering dotted; dice d6; }
contents { §1.0 "Pieces" §2.0 "Display" §3.0 "Posture" }
§1.0 sides { A, B }
§1.0 classes { foot }
§1.0 unit Corps: foot
§1.0 terrain Plain { cost: 1 }
§1.0 map "Board" supplied "a test board" { default Plain; areas { North; South; } borders { North|South; } }
§1.0 counters supplied "test counters" { A "First Corps" Corps { } A "Second Corps" Corps { } B "Guard" Corps { } }
§2.0 track sp per unit: 0..9
§2.0 fn unknown(u: Unit) -> Int = 0;
§2.0 hidden sp shown unknown;
§3.0 results Posture { Pitched, Pursuit }
§2.0 procedure display() {
  let n = choose k in [1, 2, 3] by A private prefer k "SPs passed to the Second Corps";
  adjust sp[unit("First Corps")] by 0 - n;
  adjust sp[unit("Second Corps")] by n;
}
§3.0 procedure posture() {
  sealed {
    §3.0 let a = choose p in [Pitched, Pursuit] by A private "posture kept";
    §3.0 let b = choose p in [Pitched, Pursuit] by B "posture";
  }
}
§3.0 sequence { turns 2 { call display(); call posture(); } draw "over"; }
§3.0 scenario "s" "s" { turns 2; order A, B; setup A { "First Corps" at North; "Second Corps" at North; } setup B { "Guard" at South; } }
"#;

#[test]
fn a_private_choice_is_hidden_from_the_other_side_for_good() {
    use kriegsspiel_runtime::view::side_view;
    let c = compile_src(PRIVATE);
    assert!(!c.has_errors(), "{:?}", c.diagnostics);
    let prog = c.program.expect("compiles");
    let json = |l: &str| serde_json::from_str::<serde_json::Value>(l).expect("json");
    for seed in 1..=5 {
        let agents: BTreeMap<String, AgentKind> =
            [("A".to_string(), AgentKind::Random), ("B".to_string(), AgentKind::Random)].into();
        let out = play(&prog, &GameOptions { scenario: "s".into(), seed, agents, ..GameOptions::default() })
            .expect("plays");
        assert!(out.result.is_ok());
        let full = out.log.text();
        let decisions: Vec<&str> = full.lines().filter(|l| l.contains(r#""type":"decision""#)).collect();
        // Per turn: the SPs (private), A's posture (private, sealed), B's posture (sealed).
        assert_eq!(decisions.len(), 6, "{full}");
        let sps = decisions.iter().filter(|l| l.contains("SPs passed")).collect::<Vec<_>>();
        assert_eq!(sps.len(), 2);
        for d in &sps {
            assert!(d.contains(r#""private":true"#) && !d.contains(r#""secret""#), "{d}");
            assert!(json(d)["choice"].is_i64(), "the record keeps the choice: {d}");
        }
        // The sealed block's reveal lists B's posture only.
        for r in full.lines().filter(|l| l.contains(r#""type":"reveal""#)) {
            let list = json(r)["decisions"].as_array().expect("decisions").clone();
            assert_eq!(list.len(), 1, "{r}");
            assert_eq!(list[0]["by"], "B", "{r}");
        }
        // B's view: no private choice of A, no strength; A's view: all of its own.
        let b = side_view(&prog, &full, "B").expect("B");
        for l in b.lines().filter(|l| l.contains(r#""type":"decision""#) && l.contains(r#""by":"A""#)) {
            assert!(l.contains(r#""choice":null"#) && l.contains(r#""hidden":true"#), "{l}");
        }
        for l in b.lines().filter(|l| l.contains(r#""track":"sp""#)) {
            assert!(l.contains(r#""value":null"#), "{l}");
        }
        let a = side_view(&prog, &full, "A").expect("A");
        for l in a.lines().filter(|l| l.contains(r#""type":"decision""#) && l.contains(r#""by":"A""#)) {
            assert!(!l.contains(r#""choice":null"#), "{l}");
        }
    }
    // `secret` and `private` exclude each other.
    let both = PRIVATE.replace("by A private prefer k", "by A secret private prefer k");
    assert!(compile_src(&both).has_errors());
}
