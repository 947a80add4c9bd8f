//! `kriegsspiel replay` (issue 15, part 2): a saved game as one self-contained HTML page
//! that draws the map and counters from the compiled rulebook and steps through the
//! log's events; checked on the page's data and in a real browser (headless Chromium).

use serde_json::Value as Json;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

#[path = "support/browser.rs"]
mod browser;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn ks(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kriegsspiel")).args(args).current_dir(root()).output().expect("runs")
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ks-replay-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch dir");
    d
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Play one game into a log file; returns the log's events.
fn play(dir: &Path, rulebook: &str, scenario: &str, seed: &str, extra: &[&str]) -> (PathBuf, Vec<Json>) {
    let log = dir.join(format!("{scenario}-{seed}.jsonl"));
    let mut args = vec!["run", rulebook, "--scenario", scenario, "--seed", seed, "--log", s(&log)];
    args.extend_from_slice(extra);
    let o = ks(&args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = std::fs::read_to_string(&log).expect("log written");
    let events = text.lines().map(|l| serde_json::from_str(l).expect("json line")).collect();
    (log, events)
}

/// Replay a log into a page; returns the page and the data it embeds.
fn replay(dir: &Path, log: &Path, extra: &[&str]) -> (PathBuf, String, Json) {
    let html = dir.join("game.html");
    let mut args = vec!["replay", s(log), "-o", s(&html)];
    args.extend_from_slice(extra);
    let o = ks(&args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let page = std::fs::read_to_string(&html).expect("page written");
    let open = "<script type=\"application/json\" id=\"data\">";
    let at = page.find(open).expect("the page embeds its data") + open.len();
    let end = at + page[at..].find("</script>").expect("closed");
    let data = serde_json::from_str(&page[at..end]).expect("the data is JSON");
    (html, page, data)
}

/// Where each unit starts on the page, and where the log first moves it from, agree;
/// every space the log names is drawn on the map.
fn page_agrees_with_log(data: &Json, events: &[Json]) -> usize {
    let centres = data["centres"].as_object().expect("centres");
    let mut start = std::collections::BTreeMap::new();
    for c in data["counters"].as_array().expect("counters") {
        start.insert(c["name"].as_str().expect("name").to_string(), c["hex"].clone());
    }
    let mut seen = std::collections::BTreeSet::new();
    let mut checked = 0;
    for e in events {
        let spaces: &[&str] = match e["type"].as_str() {
            Some("move") => &["from", "to"],
            Some("retreat" | "remove") => &["from"],
            Some("enter") => &["at"],
            _ => &[],
        };
        let path = e["path"].as_array().into_iter().flatten();
        for h in spaces.iter().filter_map(|k| e[*k].as_str()).chain(path.filter_map(Json::as_str)) {
            assert!(centres.contains_key(h), "the log names {h}, which the page does not draw: {e}");
        }
        let Some(unit) = e["unit"].as_str() else { continue };
        if !seen.insert(unit.to_string()) {
            continue;
        }
        let Some(first) = start.get(unit) else { continue };
        match e["type"].as_str() {
            Some("move" | "retreat") => {
                assert_eq!(
                    &e["from"], first,
                    "{unit} starts at {first} on the page; the log moves it first {e}"
                );
                checked += 1;
            }
            Some("enter") => {
                assert!(first.is_null(), "{unit} enters but the page has it on the map at {first}")
            }
            _ => {}
        }
    }
    checked
}

#[test]
fn replay_refuses_what_it_cannot_draw() {
    let dir = scratch("errors");
    let o = ks(&["replay", "/nonexistent/game.jsonl"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("error[E0701]"), "{}", stderr(&o));

    let junk = dir.join("junk.jsonl");
    std::fs::write(&junk, "{\"type\":\"header\"}\nnot json\n").expect("writes");
    let o = ks(&["replay", s(&junk)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("error[E0705]") && stderr(&o).contains(":2:"), "{}", stderr(&o));

    let headless = dir.join("noheader.jsonl");
    std::fs::write(&headless, "{\"type\":\"turn\",\"turn\":1}\n").expect("writes");
    let o = ks(&["replay", s(&headless)]);
    assert!(stderr(&o).contains("error[E0705]") && stderr(&o).contains("header"), "{}", stderr(&o));

    // A log without `source` needs --rulebook.
    let (log, _) = play(&dir, "rulebooks/peter-the-great", "14.4", "3", &[]);
    let text = std::fs::read_to_string(&log).expect("log");
    let unsourced = dir.join("unsourced.jsonl");
    std::fs::write(&unsourced, text.replacen("\"source\":\"rulebooks/peter-the-great\",", "", 1))
        .expect("writes");
    let o = ks(&["replay", s(&unsourced)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("error[E0703]") && stderr(&o).contains("--rulebook"), "{}", stderr(&o));
    let o = ks(&[
        "replay",
        s(&unsourced),
        "--rulebook",
        "rulebooks/peter-the-great",
        "-o",
        s(&dir.join("x.html")),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));

    // Another rulebook's log, or a scenario the rulebook lacks.
    let o = ks(&["replay", s(&log), "--rulebook", "rulebooks/frederick-the-great"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("error[E0706]") && stderr(&o).contains("Peter the Great"), "{}", stderr(&o));
    let other = dir.join("other.jsonl");
    std::fs::write(&other, text.replacen("\"scenario\":\"14.4\"", "\"scenario\":\"9.9\"", 1))
        .expect("writes");
    let o = ks(&["replay", s(&other)]);
    assert!(stderr(&o).contains("error[E0706]") && stderr(&o).contains("14.4"), "{}", stderr(&o));

    // An unwritable page.
    let o = ks(&["replay", s(&log), "-o", "/nonexistent/dir/game.html"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("error[E0702]"), "{}", stderr(&o));
}

/// The page's set-up is the scenario's: every unit stands where the log first moves it
/// from; every hex the log names is drawn, with its printed id.
#[test]
fn replay_of_a_hex_game_starts_where_the_log_does() {
    let dir = scratch("hex");
    let (log, events) = play(&dir, "rulebooks/peter-the-great", "14.4", "1", &[]);
    assert_eq!(events[0]["source"], "rulebooks/peter-the-great", "the header records the rulebook");
    let (_, page, data) = replay(&dir, &log, &[]);
    assert!(page_agrees_with_log(&data, &events) >= 40, "most units move in a game of 14.4");
    assert_eq!(data["events"].as_array().expect("events").len(), events.len());
    // One polygon per hex of the map.
    let hexes = page.matches("<polygon class=\"hex\"").count();
    assert_eq!(hexes, data["centres"].as_object().expect("centres").len());
    // Each event carries the account's line for it, with its paragraph.
    let first_move =
        data["events"].as_array().expect("events").iter().find(|e| e["type"] == "move").expect("a move");
    let text = first_move["text"].as_str().expect("text");
    let ev = &first_move["ev"];
    assert!(text.contains(ev["unit"].as_str().expect("unit")) && text.contains("(§4.0.C)"), "{text}");
}

/// An area map replays with its areas; a side's view replays as that side saw it.
#[test]
fn replay_of_an_area_game_and_of_a_side_view() {
    let dir = scratch("areas");
    let (log, events) = play(&dir, "rulebooks/blocks-and-cards", "1", "2", &[]);
    let (_, page, data) = replay(&dir, &log, &[]);
    assert!(page.contains("class=\"hex area\""));
    page_agrees_with_log(&data, &events);
    let all = data["counters"].as_array().expect("counters").len();
    let side = data["sides"][0]["name"].as_str().expect("a side").to_string();
    let (vlog, vevents) = play(&dir, "rulebooks/blocks-and-cards", "1", "2", &["--view", &side]);
    let (_, _, vdata) = replay(&dir, &vlog, &[]);
    assert_eq!(vdata["view"], side.as_str());
    let mine = vdata["counters"].as_array().expect("counters");
    // The other side's blocks are not on the viewing side's page before the log shows them.
    assert!(mine.len() < all && mine.iter().all(|c| c["side"] == side.as_str()), "{mine:?}");
    assert!(!vdata.to_string().contains(
        data["counters"]
            .as_array()
            .expect("c")
            .iter()
            .find(|c| c["side"] != side.as_str())
            .and_then(|c| c["name"].as_str())
            .expect("a block of the other side")
    ));
    let _ = vevents;
}

/// The start tag of the counter of `unit` in a dumped DOM: (its hex, its stack place,
/// its position).
fn counter_in(dom: &str, unit: &str) -> Option<(String, usize, (f64, f64))> {
    let at = dom.find(&format!("data-unit=\"{unit}\""))?;
    let start = dom[..at].rfind('<')?;
    let tag = &dom[start..at + dom[at..].find('>')?];
    let attr = |k: &str| -> Option<String> {
        let i = tag.find(&format!(" {k}=\""))? + k.len() + 3;
        Some(tag[i..i + tag[i..].find('"')?].to_string())
    };
    if attr("style").is_some_and(|s| s.contains("none")) {
        return None;
    }
    let t = attr("transform")?;
    let xy = t.strip_prefix("translate(")?.strip_suffix(')')?;
    let (x, y) = xy.split_once(',')?;
    Some((
        attr("data-hex")?,
        attr("data-stack")?.parse().ok()?,
        (x.trim().parse().ok()?, y.trim().parse().ok()?),
    ))
}

/// The centre the page gives a hex (its polygon's data-cx, data-cy).
fn centre_in(dom: &str, hex: &str) -> (f64, f64) {
    let at = dom.find(&format!("data-hex=\"{hex}\" data-cx=\"")).expect("the hex is drawn");
    let tag = &dom[at..at + dom[at..].find('>').expect("tag")];
    let num = |k: &str| -> f64 {
        let i = tag.find(&format!("{k}=\"")).expect("attr") + k.len() + 2;
        tag[i..i + tag[i..].find('"').expect("quote")].parse().expect("number")
    };
    (num("data-cx"), num("data-cy"))
}

fn body_at(dom: &str) -> usize {
    let i = dom.find("<body data-at=\"").expect("body") + 15;
    dom[i..i + dom[i..].find('"').expect("quote")].parse().expect("number")
}

/// In Chromium: stepping with the keyboard and with the buttons moves a counter on the
/// SVG to the hex the log says, stepping back returns it, and jumping to a turn lands
/// on that turn's first event. A screenshot is saved as target/replay-screenshot.png.
#[test]
fn replay_steps_through_a_game_in_a_browser() {
    let Some(chrome) = browser::chromium() else { return };
    let dir = scratch("browser");
    let (log, events) = play(&dir, "rulebooks/peter-the-great", "14.4", "1", &[]);
    let (html, _, _) = replay(&dir, &log, &[]);
    let i = events.iter().position(|e| e["type"] == "move").expect("a move");
    let unit = events[i]["unit"].as_str().expect("unit").to_string();
    let (from, to) = (events[i]["from"].as_str().expect("from"), events[i]["to"].as_str().expect("to"));
    let dump = |hash: &str| -> String {
        let url = format!("file://{}#{hash}", html.display());
        let o = browser::headless(&chrome, &scratch("profile"), &["--dump-dom", &url]);
        let dom = String::from_utf8_lossy(&o.stdout).into_owned();
        assert!(dom.contains("id=\"counters\""), "the browser rendered nothing: {}", stderr(&o));
        dom
    };
    let placed_at = |dom: &str, hex: &str| {
        let (h, k, (x, y)) = counter_in(dom, &unit).unwrap_or_else(|| panic!("{unit} is not on the map"));
        assert_eq!(h, hex, "{unit} should stand in {hex}");
        let (cx, cy) = centre_in(dom, hex);
        let off = 3.0 * k as f64;
        assert!(
            (x - cx - off).abs() < 0.01 && (y - cy + off).abs() < 0.01,
            "{unit} drawn at {x},{y}, not on {hex}"
        );
    };
    // The set-up: the unit where the move starts.
    let dom = dump("at=0");
    assert_eq!(body_at(&dom), 0);
    placed_at(&dom, from);
    // The keyboard: after the move event the counter is on its new hex.
    let dom = dump(&format!("keys=ArrowRight*{}", i + 1));
    assert_eq!(body_at(&dom), i + 1);
    placed_at(&dom, to);
    // One step back returns it.
    let dom = dump(&format!("keys=ArrowRight*{},ArrowLeft", i + 1));
    assert_eq!(body_at(&dom), i);
    placed_at(&dom, from);
    // The buttons do the same.
    let dom = dump(&format!("click=next*{}", i + 1));
    placed_at(&dom, to);
    let dom = dump(&format!("click=last,first,next*{}", i + 1));
    placed_at(&dom, to);
    // Jump to turn 2: the page stands just after that turn's `turn` event.
    let t2 = events.iter().position(|e| e["type"] == "turn" && e["turn"] == 2).expect("turn 2");
    assert_eq!(body_at(&dump("turn=2")), t2 + 1);
    assert_eq!(body_at(&dump("turn=2&keys=PageDown")), {
        events.iter().position(|e| e["type"] == "turn" && e["turn"] == 3).expect("turn 3") + 1
    });

    let shot = root().join("target").join("replay-screenshot.png");
    let url = format!("file://{}#turn=2", html.display());
    let o = browser::headless(
        &chrome,
        &scratch("profile"),
        &["--hide-scrollbars", "--window-size=1400,900", &format!("--screenshot={}", shot.display()), &url],
    );
    let meta = std::fs::metadata(&shot);
    assert!(meta.as_ref().is_ok_and(|m| m.len() > 1000), "no screenshot: {}", stderr(&o));
}
