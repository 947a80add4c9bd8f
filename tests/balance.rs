//! The balance report of `run --games N` (issue 15): the same report on one thread and on
//! two, win rates and intervals consistent with the counts, the length histogram and the
//! reasons adding up to the games, rules fired checked against the games' own logs, the
//! text and HTML forms.

use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kriegsspiel")).args(args).output().expect("runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn scratch(name: &str) -> PathBuf {
    let d = root().join("target/tmp/balance-tests").join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn tiny() -> String {
    root().join("docs/examples/tiny.ks").to_string_lossy().into_owned()
}

fn peter() -> String {
    root().join("rulebooks/peter-the-great").to_string_lossy().into_owned()
}

fn report(args: &[&str]) -> Value {
    let o = run(args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    serde_json::from_slice(&o.stdout).expect("a JSON report when piped")
}

/// Without the wall-clock fields, which are the only ones allowed to differ.
fn deterministic(mut v: Value) -> Value {
    let m = v.as_object_mut().unwrap();
    for k in ["seconds", "seconds_per_game", "threads"] {
        assert!(m.remove(k).is_some(), "the report has {k}");
    }
    v
}

#[test]
fn parallel_and_sequential_reports_are_identical() {
    let t = tiny();
    let base = ["run", t.as_str(), "--scenario", "A", "--seed", "5", "--games", "300"];
    let one = report(&[&base[..], &["--jobs", "1"]].concat());
    let two = report(&[&base[..], &["--jobs", "2"]].concat());
    assert_eq!(one["threads"], 1);
    assert_eq!(two["threads"], 2);
    assert_eq!(deterministic(one), deterministic(two));
}

#[test]
fn report_counts_add_up() {
    let t = tiny();
    let r = report(&["run", &t, "--scenario", "A", "--seed", "1", "--games", "200", "--format", "json"]);
    let games = r["games"].as_u64().unwrap();
    assert_eq!(games, 200);
    let mut total = r["draws"]["games"].as_u64().unwrap();
    for side in ["Red", "Blue"] {
        let w = &r["win_rates"][side];
        let (k, rate) = (w["games"].as_u64().unwrap(), w["rate"].as_f64().unwrap());
        let (lo, hi) = (w["ci95"][0].as_f64().unwrap(), w["ci95"][1].as_f64().unwrap());
        assert!((rate - k as f64 / games as f64).abs() < 1e-12, "{w}");
        assert!(lo <= rate && rate <= hi && hi - lo < 0.2, "{w}");
        assert_eq!(r["results"][side].as_u64().unwrap_or(0), k, "results and win_rates agree");
        total += k;
    }
    assert_eq!(total, games, "wins and draws are all the games");
    let reasons: u64 = r["reasons"].as_array().unwrap().iter().map(|x| x["games"].as_u64().unwrap()).sum();
    assert_eq!(reasons, games);
    assert!(r["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .all(|x| x["para"].is_string() && x["reason"].is_string()));
    let hist = r["turns"]["histogram"].as_object().unwrap();
    assert_eq!(hist.values().map(|n| n.as_u64().unwrap()).sum::<u64>(), games);
    let (min, max) = (r["turns"]["min"].as_i64().unwrap(), r["turns"]["max"].as_i64().unwrap());
    assert!(hist.keys().all(|k| (min..=max).contains(&k.parse::<i64>().unwrap())));
    let rf = &r["rules_fired"];
    let n = rf["fired"].as_array().unwrap().len() + rf["never"].as_array().unwrap().len();
    assert_eq!(rf["paragraphs_with_code"].as_u64().unwrap() as usize, n);
    // Tiny's sequence runs every game: its paragraph fired in all of them.
    let seq = rf["fired"].as_array().unwrap().iter().find(|x| x["para"] == "3.0").expect("§3.0 fired");
    assert_eq!(seq["games"].as_u64().unwrap(), games);
}

/// Rules fired against the logs: in Peter the Great, §7.1.2 B's code (choosing the
/// attacking unit for the MR differential) runs once in each call of `resolve` that
/// reaches the roll, which is each lookup the log shows `in` `resolve` (the standard game
/// has no combat avoided before its roll, 7.1.2); and a paragraph counts in as many games
/// as have such a lookup.
#[test]
fn rules_fired_agree_with_the_game_logs() {
    let dir = scratch("peter-logs");
    let p = peter();
    let r = report(&[
        "run",
        &p,
        "--scenario",
        "14.4",
        "--seed",
        "3",
        "--games",
        "6",
        "--format",
        "json",
        "--log",
        dir.to_str().unwrap(),
    ]);
    let mut lookups = 0u64;
    let mut games_with = 0u64;
    for seed in 3..9 {
        let log = std::fs::read_to_string(dir.join(format!("seed-{seed}.jsonl"))).unwrap();
        let n = log
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .filter(|e| e["type"] == "lookup" && e["in"] == "resolve")
            .count() as u64;
        lookups += n;
        games_with += u64::from(n > 0);
    }
    assert!(lookups > 0, "no combat in 6 games");
    let fired = r["rules_fired"]["fired"].as_array().unwrap();
    let b = fired.iter().find(|x| x["para"] == "7.1.2.B").expect("§7.1.2.B fired");
    assert_eq!(b["times"].as_u64().unwrap(), lookups);
    assert_eq!(b["games"].as_u64().unwrap(), games_with);
    // A paragraph is either fired or never fired, once.
    let never = r["rules_fired"]["never"].as_array().unwrap();
    assert!(!never.iter().any(|p| fired.iter().any(|x| &x["para"] == p)));
}

#[test]
fn text_and_html_reports() {
    let dir = scratch("html");
    let page = dir.join("report.html");
    let t = tiny();
    let o = run(&[
        "run",
        &t,
        "--scenario",
        "A",
        "--games",
        "50",
        "--format",
        "text",
        "--html",
        page.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = String::from_utf8(o.stdout).unwrap();
    for part in
        ["Results (95% Wilson interval)", "How the games ended", "Game length (turns)", "Rules fired:"]
    {
        assert!(text.contains(part), "{part} missing from\n{text}");
    }
    let html = std::fs::read_to_string(&page).unwrap();
    assert_eq!(html.matches("<svg").count(), 3, "win rates, lengths, rules fired");
    // Self-contained: nothing fetched (the only URL is the SVG namespace).
    let urls = html.matches("http").count();
    assert_eq!(urls, html.matches("http://www.w3.org/2000/svg").count());
    // --html needs --games.
    let o = run(&["run", &t, "--scenario", "A", "--html", page.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("error[E0703]"));
}
