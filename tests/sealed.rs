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
