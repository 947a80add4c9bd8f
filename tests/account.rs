//! The game account (issue 15): `run --format text` renders a game for people, `log FILE`
//! renders a saved JSON Lines log as the same text, piped output stays JSON Lines, and the
//! lookup events carry the procedure and its arguments the account names (who attacks
//! whom). The account of one Peter the Great 14.4 game is fixed by an insta snapshot
//! (tests/snapshots/account__peter_14_4_seed_1_heuristic.snap; review a change with
//! `cargo insta review`, or regenerate with INSTA_UPDATE=always).

use std::path::PathBuf;
use std::process::{Command, Output};

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_kriegsspiel")
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn peter() -> PathBuf {
    root().join("rulebooks/peter-the-great")
}

fn run(args: &[&str]) -> Output {
    Command::new(bin()).args(args).output().expect("runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("utf-8")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The game of the snapshot: 14.4, seed 1, heuristic agents on both sides.
const GAME: [&str; 9] = [
    "--scenario",
    "14.4",
    "--seed",
    "1",
    "--agent",
    "Swedish=heuristic",
    "--agent",
    "Russian=heuristic",
    "--quiet",
];

fn peter_run(extra: &[&str]) -> Output {
    let p = peter();
    let mut args = vec!["run", p.to_str().unwrap()];
    args.extend_from_slice(&GAME);
    args.extend_from_slice(extra);
    run(&args)
}

fn tmp(name: &str) -> PathBuf {
    let dir = root().join("target/tmp/account-tests");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn peter_14_4_seed_1_heuristic() {
    let o = peter_run(&["--format", "text"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    // The shape the account promises, whatever the snapshot says.
    assert!(text.starts_with("Peter the Great — scenario 14.4 \"The Battle on June 22nd\", seed 1\n"));
    assert!(text.contains("\nTurn 1 (§"), "a turn header");
    assert!(text.contains(" phase — "), "a phase header with its side");
    assert!(text.contains("\nResult: "), "the result");
    insta::assert_snapshot!(text);
}

#[test]
fn log_renders_a_saved_log_as_the_same_account() {
    let file = tmp("seed-1.jsonl");
    let o = peter_run(&["--log", file.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(o.stdout.is_empty(), "with --log FILE the log goes to the file only");
    let shown = peter_run(&["--format", "text"]);
    let rendered = run(&["log", file.to_str().unwrap()]);
    assert!(rendered.status.success(), "{}", stderr(&rendered));
    assert_eq!(stdout(&rendered), stdout(&shown));
    // --format jsonl on standard output is the same log as the file.
    let jsonl = peter_run(&["--format", "jsonl"]);
    assert_eq!(stdout(&jsonl), std::fs::read_to_string(&file).unwrap());
}

#[test]
fn piped_output_defaults_to_json_lines() {
    let o = peter_run(&[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    for (i, line) in text.lines().enumerate() {
        let v: serde_json::Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("line {}: {e}: {line}", i + 1));
        assert!(v.get("type").is_some(), "line {} has a type", i + 1);
    }
    assert!(text.starts_with("{\"type\":\"header\""));
}

/// Every lookup in Peter's `resolve` names its attackers and defenders, and they are the
/// units the procedure marks Attacked and Defended right after (7.1.2): the arguments are
/// read from the right frame, at the right time.
#[test]
fn lookups_name_the_procedure_and_its_arguments() {
    let o = peter_run(&["--format", "jsonl"]);
    let events: Vec<serde_json::Value> =
        stdout(&o).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let mut checked = 0;
    for (i, e) in events.iter().enumerate() {
        if e["type"] != "lookup" || e["in"] != "resolve" {
            continue;
        }
        let args = &e["args"];
        let names = |v: &serde_json::Value| -> Vec<String> {
            v.as_array().unwrap().iter().map(|x| x.as_str().unwrap().to_string()).collect()
        };
        let (atk, def) = (names(&args["atk"]), names(&args["def"]));
        assert!(!atk.is_empty() && !def.is_empty(), "{e}");
        assert!(args["side"].is_string(), "{e}");
        let marked = |marker: &str| -> Vec<String> {
            events[i + 1..]
                .iter()
                .take_while(|x| x["type"] == "mark")
                .filter(|x| x["marker"] == marker)
                .map(|x| x["on"].as_str().unwrap().to_string())
                .collect()
        };
        assert_eq!(marked("Attacked"), atk, "attackers of {e}");
        assert_eq!(marked("Defended"), def, "defenders of {e}");
        checked += 1;
    }
    assert!(checked >= 3, "only {checked} combats in the game");
}

#[test]
fn formats_that_do_not_apply_are_refused() {
    let o = peter_run(&["--format", "json"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("error[E0703]"), "{}", stderr(&o));
    let o = peter_run(&["--format", "jsonl", "--games", "2"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("error[E0703]"), "{}", stderr(&o));
}

#[test]
fn log_refuses_what_is_not_a_run_log() {
    let bad = tmp("bad.jsonl");
    std::fs::write(&bad, "{\"type\":\"turn\",\"turn\":1}\nnot json at all\n").unwrap();
    let o = run(&["log", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("error[E0705]") && err.contains("bad.jsonl:2:"), "{err}");
    let o = run(&["log", tmp("missing.jsonl").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("error[E0701]"), "{}", stderr(&o));
}

/// A card game's account names the cards: who draws which card from which deck into
/// which hand, who plays or discards it; in another side's view a drawn card is "a card".
#[test]
fn card_events_read_as_sentences() {
    let full =
        run(&["run", "rulebooks/blocks-and-cards", "--scenario", "1", "--seed", "2", "--format", "text"]);
    assert_eq!(full.status.code(), Some(0), "{}", stderr(&full));
    let text = stdout(&full);
    let draws: Vec<&str> = text.lines().filter(|l| l.contains(" draws ")).collect();
    assert!(!draws.is_empty() && draws.iter().all(|l| l.contains(" from Orders into Hand")), "{draws:?}");
    assert!(!text.contains("drawn from ?"), "{text}");
    assert!(
        text.lines().any(|l| l.trim_start().starts_with("Crown plays ") && l.contains(" from Hand")),
        "{text}"
    );
    let view = run(&[
        "run",
        "rulebooks/blocks-and-cards",
        "--scenario",
        "1",
        "--seed",
        "2",
        "--view",
        "Crown",
        "--format",
        "text",
    ]);
    let text = stdout(&view);
    assert!(text.lines().any(|l| l.contains("Barons draws a card from Orders")), "{text}");
    assert!(!text.lines().any(|l| l.contains("Barons draws") && !l.contains("a card")), "{text}");
}
