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

/// A game of one die: A wins on 1-4, B on 5-6; with the ruling `odds=short`, or with the
/// option `gift`, A wins on 1-2 only. The ruling `noise` changes nothing.
const COIN: &str = r#"
rulebook "Coin" { numbering dotted; dice d6; }
contents { §1.0 "Play" §2.0 "Readings" }
§1.0 sides { A, B }
§1.0 classes { foot }
§1.0 unit Foot: foot
§1.0 terrain Plain { cost: 1 }
§1.0 map "strip" { grid 2 x 1 even_down; }
§1.0 counters { A "Alpha" Foot { } B "Xray" Foot { } }
§2.0 ruling odds "how wide A's window is" {
  default long "A wins on 1-4";
  short "A wins on 1-2";
}
§2.0 ruling noise "a reading with no effect" {
  default one "nothing";
  other "nothing either";
}
§2.0 option gift "B is given 3-4"
§1.0 sequence {
  let r = roll 1d6;
  if r <= 2 or (r <= 4 and ruling(odds, long) and not optional(gift)) { win A "the coin"; }
  win B "the coin";
}
§1.0 scenario "s" "s" { turns 1; order A, B; setup A { "Alpha" at 0101; } setup B { "Xray" at 0201; } }
"#;

fn coin(dir: &std::path::Path) -> String {
    let f = dir.join("coin.ks");
    std::fs::write(&f, COIN).unwrap();
    f.to_string_lossy().into_owned()
}

/// `--compare`: the same seeds by the defaults and with the change. A change that moves
/// A's window moves both win rates beyond the noise, every changed seed going one way;
/// a ruling with no effect changes no seed; an option compares as a ruling does.
#[test]
fn compare_says_what_moved() {
    let dir = scratch("compare");
    let c = coin(&dir);
    let base = ["run", c.as_str(), "--scenario", "s", "--games", "300", "--compare"];
    let v = report(&[&base[..], &["--ruling", "odds=short"]].concat());
    let cmp = &v["comparison"];
    let row = |k: &str| cmp["results"].as_array().unwrap().iter().find(|r| r["result"] == k).unwrap().clone();
    let (a, b) = (row("A"), row("B"));
    // Seeds rolling 3 or 4 change from A to B, and only those.
    let changed = cmp["games_with_another_result"].as_u64().unwrap();
    assert!(changed > 60 && changed < 140, "about a third of 300: {changed}");
    assert_eq!(a["lost"], changed);
    assert_eq!(a["gained"], 0);
    assert_eq!(b["gained"], changed);
    assert_eq!(a["moved"], true);
    assert_eq!(b["moved"], true);
    assert!(a["p"].as_f64().unwrap() < 1e-10);
    assert_eq!(
        a["defaults"]["games"].as_u64().unwrap() - a["changed"]["games"].as_u64().unwrap(),
        changed,
        "the counts agree with the seeds that changed"
    );
    // The two reports are the ordinary batch reports of each configuration.
    assert_eq!(v["defaults"]["games"], 300);
    assert_eq!(v["changed"]["win_rates"]["B"]["games"], b["changed"]["games"]);
    assert_eq!(cmp["changed"]["rulings"]["odds"], "short");

    let v = report(&[&base[..], &["--ruling", "noise=other"]].concat());
    assert_eq!(v["comparison"]["games_with_another_result"], 0);
    for r in v["comparison"]["results"].as_array().unwrap() {
        assert_eq!(r["moved"], false);
        assert_eq!(r["p"], 1.0);
    }

    let v = report(&[&base[..], &["--option", "gift"]].concat());
    assert_eq!(
        v["comparison"]["games_with_another_result"].as_u64().unwrap(),
        changed,
        "the same seeds move"
    );
    assert_eq!(v["comparison"]["changed"]["options"][0], "gift");

    // Text and HTML; refusals.
    let html = dir.join("cmp.html");
    let o =
        run(&[&base[..], &["--ruling", "odds=short", "--format", "text", "--html", html.to_str().unwrap()]]
            .concat());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("with --ruling odds=short") && text.contains("moved"), "{text}");
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("id=\"comparison\"") && page.contains("class=\"moved\""));
    let o = run(&["run", c.as_str(), "--scenario", "s", "--games", "10", "--compare"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("error[E0703]") && stderr(&o).contains("--compare"), "{}", stderr(&o));
    let o = run(&["run", c.as_str(), "--scenario", "s", "--compare", "--ruling", "odds=short"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("only applies with --games"), "{}", stderr(&o));
}
