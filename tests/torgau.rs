//! Torgau (issue 13): the contents and the paragraph ledger against the text, the worked
//! examples, the historical battle played to a Rule 6 / Rule 22 result with random and
//! heuristic agents (with melee, charges and march order), the same seed giving the same
//! log, arrival points as Rule 19 allows them, the Prussian written plans hidden from the
//! Austrian agent, and the optional back-to-back line (Rule 23) and cavalry zone of control
//! (Rule 24) played when switched on.

use kriegsspiel_compiler::{compile, compile_with, load, Compilation};
use kriegsspiel_runtime::game::{play, AgentKind, GameOptions};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

mod support;
use support::texts;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn dir() -> PathBuf {
    root().join("rulebooks/torgau")
}

fn compiled() -> Compilation {
    compile(&load(&dir()).expect("loads"))
}

/// The rulebook's files, each text passed through `edit` with its file name.
fn compiled_editing(edit: impl Fn(&str, String) -> String) -> Compilation {
    support::rulebook::compiled_editing(&dir(), edit)
}

/// All `.ks` sources of the rulebook, concatenated.
fn sources_text() -> String {
    let mut names: Vec<_> = std::fs::read_dir(dir())
        .expect("reads")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "ks"))
        .collect();
    names.sort();
    names.iter().map(|p| std::fs::read_to_string(p).expect("reads")).collect::<Vec<_>>().join("\n")
}

fn options(seed: u64, prussian: AgentKind, austrian: AgentKind) -> GameOptions {
    let agents: BTreeMap<String, AgentKind> =
        [("Prussian".to_string(), prussian), ("Austrian".to_string(), austrian)].into();
    GameOptions { scenario: "1760".into(), seed, agents, ..GameOptions::default() }
}

fn json(l: &str) -> serde_json::Value {
    serde_json::from_str(l).expect("json")
}

#[test]
fn torgau_checks_clean_with_honest_counts() {
    let c = compiled();
    assert!(!c.has_errors(), "{:?}", c.diagnostics.iter().map(|d| &d.message).collect::<Vec<_>>());
    let r = &c.report;
    assert_eq!(r.paragraphs, 24);
    assert_eq!(
        r.waived.iter().map(|w| w.0.as_str()).collect::<Vec<_>>(),
        ["Rule 1", "Rule 2", "Rule 3", "Rule 4"]
    );
    // Nothing is missing: Rule 8 (facing), Rule 9 (formations), Rule 12 (melee), Rule 14
    // (march order), Rule 15 (dragoons), Rule 16 (lancers), Rule 23 and Rule 24 (both
    // optional) are in.
    assert!(r.missing.is_empty(), "{:?}", r.missing);
    assert_eq!(r.encoded.len(), 20);
    for p in ["Rule 8", "Rule 9", "Rule 12", "Rule 14", "Rule 15", "Rule 16", "Rule 23", "Rule 24"] {
        assert!(r.encoded.iter().any(|e| e == p), "{p} encoded");
    }
    for p in ["Rule 6", "Rule 19", "Rule 20", "Rule 21", "Rule 22", "Rule 13", "Rule 17", "Rule 18"] {
        assert!(r.encoded.iter().any(|e| e == p), "{p} encoded");
    }
    // Every example runs and is reproduced; no warning of any kind.
    assert!(r.examples_run >= 37, "{} examples", r.examples_run);
    assert_eq!(r.examples_run, r.examples_passed);
    assert!(
        c.diagnostics.is_empty(),
        "{:?}",
        c.diagnostics.iter().map(|d| (&d.code, &d.message)).collect::<Vec<_>>()
    );
}

#[test]
fn torgau_counters_keep_the_army_totals() {
    // Rule 6 ¶6: 214 and 268 SP.
    let c = compiled();
    let prog = c.program.as_ref().expect("compiles");
    let out = play(prog, &options(1, AgentKind::Heuristic, AgentKind::Heuristic)).expect("plays");
    let line = out.log.lines.iter().find(|l| l.contains("corps SP: ")).expect("division logged");
    let msg = json(line)["message"].as_str().expect("message").to_string();
    let sum: i64 =
        msg.trim_start_matches("corps SP: ").split(' ').map(|x| x.parse::<i64>().expect("n")).sum();
    assert_eq!(sum, 214, "{msg}");
    let text = std::fs::read_to_string(dir().join("counters.ks")).expect("reads");
    let mut totals: BTreeMap<&str, i64> = BTreeMap::new();
    for l in text.lines() {
        let l = l.trim();
        let Some(side) = ["Prussian", "Austrian"].into_iter().find(|s| l.starts_with(&format!("{s} \"")))
        else {
            continue;
        };
        let sp: i64 =
            l.split("sp: ").nth(1).expect("sp").split(',').next().expect("n").trim().parse().expect("n");
        *totals.entry(side).or_default() += sp;
    }
    assert_eq!(totals["Prussian"], 214);
    assert_eq!(totals["Austrian"], 268);
}

/// The ledger rows of NOTES.md: paragraph -> (status, reason).
fn ledger() -> BTreeMap<String, (String, String)> {
    let notes = std::fs::read_to_string(dir().join("NOTES.md")).expect("reads");
    let mut rows = BTreeMap::new();
    for l in notes.lines() {
        let cells: Vec<&str> = l.split('|').map(|c| c.trim()).collect();
        if cells.len() == 5 && cells[1].starts_with("Rule ") {
            let prev = rows.insert(cells[1].to_string(), (cells[2].to_string(), cells[3].to_string()));
            assert!(prev.is_none(), "{} listed twice in the ledger", cells[1]);
        }
    }
    rows
}

/// Is `§Rule N` (for a heading or a ¶) or `§Rule N.X` anchored in the sources?
fn anchored(src: &str, para: &str) -> bool {
    let (base, item) = match para.split_once(" ¶") {
        Some((b, _)) => (b.to_string(), None),
        None => match para.split_once('.') {
            Some((b, x)) => (b.to_string(), Some(x.to_string())),
            None => (para.to_string(), None),
        },
    };
    let needle = format!("§{base}");
    src.match_indices(&needle).any(|(i, _)| {
        let rest = &src[i + needle.len()..];
        match &item {
            Some(x) => rest.starts_with(&format!(".{x}")) || rest.starts_with(&format!(" {x} ")),
            None => !rest.starts_with(|c: char| c.is_ascii_digit()),
        }
    })
}

#[test]
fn torgau_ledger_accounts_for_every_item_and_paragraph() {
    let Some(text) = texts::read_text(&root(), "torgau.txt") else { return };
    let style = kriegsspiel_text::resolve(&text, None).expect("style");
    let idx = kriegsspiel_text::index(&text, &style);
    let items: Vec<String> = idx
        .paragraphs
        .iter()
        .filter(|p| p.kind != kriegsspiel_text::ParagraphKind::Heading)
        .map(|p| p.number.clone())
        .collect();
    assert_eq!(items.len(), 74, "the validator's lettered items");
    // The unlettered paragraphs: blank-line blocks after each heading, lettered items counted.
    let mut blocks: Vec<String> = Vec::new();
    let mut rule: Option<u32> = None;
    let mut k = 0;
    let mut in_block = false;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("Rule ") {
            if let Some((n, _)) = rest.split_once(": ") {
                if let Ok(n) = n.parse::<u32>() {
                    rule = Some(n);
                    k = 0;
                    in_block = false;
                    continue;
                }
            }
        }
        if line.starts_with("Designers' Notes") {
            rule = None;
            continue;
        }
        let Some(n) = rule else { continue };
        if line.trim().is_empty() {
            in_block = false;
            continue;
        }
        if !in_block {
            in_block = true;
            k += 1;
            let lettered =
                line.len() > 3 && line.as_bytes()[1] == b'.' && line.as_bytes()[0].is_ascii_uppercase();
            if !lettered {
                blocks.push(format!("Rule {n} ¶{k}"));
            }
        }
    }
    let rows = ledger();
    let src = sources_text();
    let expected: BTreeSet<String> = items.iter().cloned().chain(blocks.iter().cloned()).collect();
    let listed: BTreeSet<String> = rows.keys().cloned().collect();
    assert_eq!(
        expected.difference(&listed).collect::<Vec<_>>(),
        Vec::<&String>::new(),
        "paragraphs of the text without a ledger row"
    );
    assert_eq!(
        listed.difference(&expected).collect::<Vec<_>>(),
        Vec::<&String>::new(),
        "ledger rows the text does not have"
    );
    for (para, (status, reason)) in &rows {
        assert!(!reason.is_empty(), "{para}: no reason");
        match status.as_str() {
            "encoded" | "partly" => assert!(anchored(&src, para), "{para} is {status} but not anchored"),
            "missing" => {}
            "waived" => {
                let r = reason.to_lowercase();
                for w in ["later", "not yet", "todo", "for now", "deferred"] {
                    assert!(!r.contains(w), "{para}: a waiver that reads as a deferral: {reason}");
                }
            }
            other => panic!("{para}: unknown status {other}"),
        }
    }
    // Every anchored lettered item is counted encoded or partly.
    for it in &items {
        if anchored(&src, it) {
            let st = &rows[it].0;
            assert!(st == "encoded" || st == "partly", "{it} is anchored but the ledger says {st}");
        }
    }
    // Every row not encoded says why.
    for (para, (status, reason)) in &rows {
        if status != "encoded" {
            assert!(!reason.trim().is_empty(), "{para}: {status} without a reason");
        }
    }
    // Issue 13: every paragraph is encoded or waived (none partly, none missing).
    let open: Vec<&String> =
        rows.iter().filter(|(_, (st, _))| st == "partly" || st == "missing").map(|(p, _)| p).collect();
    assert!(open.is_empty(), "rows neither encoded nor waived: {open:?}");
}

#[test]
fn torgau_text_coverage_matches_the_contents() {
    let Some(text) = texts::read_text(&root(), "torgau.txt") else { return };
    let c = compiled();
    let encoded = support::rulebook::encoded_paragraphs(&c.report);
    let r = kriegsspiel_text::coverage(&text, None, &encoded).expect("coverage");
    assert_eq!(r.style, "rule-lettered");
    assert_eq!(r.total, 24);
    assert_eq!((r.encoded.len(), r.waived.len(), r.neither.len()), (20, 4, 0));
    assert!(r.absent.is_empty() && r.unparsed.is_empty(), "{:?} {:?}", r.absent, r.unparsed);
    assert!(r.title_mismatches.is_empty(), "{:?}", r.title_mismatches);
    assert!(!r.has_errors());
}

#[test]
fn torgau_battle_plays_to_a_result() {
    let c = compiled();
    let prog = c.program.as_ref().expect("compiles");
    let kinds = [
        (AgentKind::Random, AgentKind::Random),
        (AgentKind::Heuristic, AgentKind::Heuristic),
        (AgentKind::Random, AgentKind::Heuristic),
        (AgentKind::Heuristic, AgentKind::Random),
    ];
    let mut fires = 0;
    let mut arrivals = 0;
    let mut melees = 0;
    let mut charges = 0;
    let mut marches = 0;
    let mut mid_path = 0;
    let mut masked = 0;
    for seed in 1..=3 {
        for (p, a) in kinds.iter().cloned() {
            let out = play(prog, &options(seed, p, a)).expect("plays");
            assert!(out.result.is_ok(), "seed {seed}: {:?}", out.result);
            let last = json(out.log.lines.last().expect("a log"));
            assert_eq!(last["type"], "end", "{last}");
            assert_eq!(last["para"], "Rule 6", "{last}");
            // The evening rules run: the game reaches 5:00 P.M. (turn 37).
            assert!(last["turn"].as_i64().expect("turn") >= 37, "{last}");
            let resolved = out.log.lines.iter().filter(|l| l.contains(r#""table":"FireTable""#)).count();
            // Rule 11 J: every fire declared is resolved once, on the Fire Combat Table.
            let declared = out.log.lines.iter().filter(|l| l.contains(" declares fire ")).count();
            assert_eq!(declared, resolved, "seed {seed}: declared and resolved fires");
            fires += resolved;
            // Rule 11 ¶1: fire inside movement: a unit declares fire and then moves on in
            // the same phase.
            let mut pending: BTreeSet<String> = BTreeSet::new();
            for l in &out.log.lines {
                let v = json(l);
                match v["type"].as_str() {
                    Some("phase") | Some("phase_end") => pending.clear(),
                    Some("note") => {
                        if let Some((u, _)) =
                            v["message"].as_str().unwrap_or("").split_once(" declares fire ")
                        {
                            pending.insert(u.to_string());
                        }
                    }
                    Some("move") => {
                        if pending.remove(v["unit"].as_str().unwrap_or("")) {
                            mid_path += 1;
                        }
                    }
                    _ => {}
                }
            }
            masked += out
                .log
                .lines
                .iter()
                .filter(|l| l.contains(r#""type":"mark""#) && l.contains("MaskedFire"))
                .count();
            arrivals += out.log.lines.iter().filter(|l| l.contains("arrives at entry point")).count();
            melees += out.log.lines.iter().filter(|l| l.contains(r#""table":"MeleeTable""#)).count();
            charges += out.log.lines.iter().filter(|l| l.contains(" charges into ")).count();
            marches += out
                .log
                .lines
                .iter()
                .filter(|l| l.contains(r#""type":"mark""#) && l.contains("MarchOrder"))
                .count();
        }
    }
    assert!(fires > 0, "units fire");
    // Rule 11 ¶1, K: units fire in mid-path and batteries fire at lines masked by friends.
    assert!(mid_path > 0 && masked > 0, "mid-path fires {mid_path}, masked batteries {masked}");
    // Rule 12, Rule 7 G: units enter the enemy's hexes and melee; cavalry charges.
    assert!(melees > 0 && charges > 0, "melees {melees}, charges {charges}");
    // Rule 14: units are put in march order.
    assert!(marches > 0, "march order is used");
    assert!(arrivals >= 12 * 3, "most corps arrive ({arrivals})");
}

#[test]
fn torgau_same_seed_same_log() {
    let c = compiled();
    let prog = c.program.as_ref().expect("compiles");
    for seed in [4, 9] {
        let a = play(prog, &options(seed, AgentKind::Heuristic, AgentKind::Random)).expect("plays");
        let b = play(prog, &options(seed, AgentKind::Heuristic, AgentKind::Random)).expect("plays");
        assert_eq!(a.log.lines, b.log.lines);
        let other = play(prog, &options(seed + 1, AgentKind::Heuristic, AgentKind::Random)).expect("plays");
        assert_ne!(a.log.lines, other.log.lines, "the seed matters");
    }
}

#[test]
fn torgau_arrivals_follow_rule_19() {
    // Rule 19 ¶4 in played games: a corps enters at its planned point or the next one to
    // the right (k - 1) or left (k + 1, 9 to 1), never from 1 into 9; Rule 19 ¶3 / Rule 20:
    // the arrival turn is the planned one moved by whole hours, at most one early and two late.
    let c = compiled();
    let prog = c.program.as_ref().expect("compiles");
    let mut strays = 0;
    for seed in 1..=12 {
        let out = play(prog, &options(seed, AgentKind::Random, AgentKind::Random)).expect("plays");
        for l in &out.log.lines {
            let v = json(l);
            let Some(m) = v["message"].as_str() else { continue };
            if let Some(rest) = m.strip_prefix("corps ") {
                if let Some((_, tail)) = rest.split_once(" arrives at entry point ") {
                    let (p, q) = tail.split_once(" (planned ").expect("planned");
                    let p: i64 = p.parse().expect("p");
                    let q: i64 = q.trim_end_matches(')').parse().expect("q");
                    let ok = p == q || p == q - 1 || p == q + 1 || (q == 9 && p == 1);
                    assert!(ok && !(q == 1 && p == 9), "seed {seed}: {m}");
                    if p != q {
                        strays += 1;
                    }
                }
                if let Some((_, tail)) = rest.split_once(" arrival roll ") {
                    let (_, d) = tail.split_once(": ").expect("delay");
                    let d: i64 = d.split(' ').next().expect("d").parse().expect("d");
                    assert!((-1..=2).contains(&d), "seed {seed}: {m}");
                }
            }
        }
    }
    assert!(strays > 0, "some corps stray");
}

#[test]
fn torgau_forest_march_follows_rule_19() {
    // Rule 19 ¶5 in played games (heuristic Prussians enter by point 6 or 7 often): corps
    // roll at the fork, the die's branch is an equal share of the ways on (the log names
    // branch k of n), units lose their way off the board, and each comes back no sooner than four
    // turns (one hour) after it left (later only if its hex is taken), by point 6 or 7.
    let c = compiled();
    let prog = c.program.as_ref().expect("compiles");
    let (mut forks, mut lost, mut back) = (0, 0, 0);
    for seed in 1..=6 {
        let out = play(prog, &options(seed, AgentKind::Heuristic, AgentKind::Heuristic)).expect("plays");
        assert!(out.result.is_ok(), "seed {seed}: {:?}", out.result);
        let mut left: BTreeMap<String, i64> = BTreeMap::new();
        for l in &out.log.lines {
            let v = json(l);
            let Some(m) = v["message"].as_str() else { continue };
            let turn = v["turn"].as_i64().unwrap_or(0);
            if let Some((_, tail)) = m.split_once(" at the fork ") {
                let (_, rest) = tail.split_once(": die ").expect("die");
                let (r, rest) = rest.split_once(", branch ").expect("branch");
                let (k, rest) = rest.split_once(" of ").expect("of");
                let n: i64 = rest.split(' ').next().expect("n").parse().expect("n");
                let (r, k): (i64, i64) = (r.parse().expect("r"), k.parse().expect("k"));
                assert!((1..=6).contains(&r) && n >= 2 && k == (r - 1) % n + 1, "seed {seed}: {m}");
                forks += 1;
            }
            if let Some((u, _)) = m.split_once(" loses its way off the board") {
                left.insert(u.to_string(), turn);
                lost += 1;
            }
            if let Some((u, tail)) = m.split_once(" comes back at entry point ") {
                let t = left.remove(u).expect("came back after losing its way");
                assert!(turn >= t + 4, "seed {seed}: {u} lost on turn {t}, back on {turn}");
                assert!(tail.starts_with('6') || tail.starts_with('7'), "seed {seed}: {m}");
                back += 1;
            }
        }
    }
    assert!(forks > 0 && lost > 0 && back > 0, "forks {forks}, lost {lost}, back {back}");
}

#[test]
fn torgau_plans_are_hidden_from_the_austrian_agent() {
    // Rule 19 ¶2: a variant adds, right after the plans are written, an Austrian decision
    // whose heuristic score counts the Prussian units planned for each entry point and
    // hour. With the rulebook's `hidden` declarations every option scores the same for
    // the Austrian (the plan reads 0) and the choice never moves with the plans; without
    // them (a second variant) it follows the plans. So the hidden declarations cover the
    // plan and are what keeps it from the Austrian agent.
    let probe = r#"
§Rule 19 procedure probe() {
  let k = choose p in [1, 2, 3, 4, 5, 6, 7, 8, 9] by Austrian
    prefer (count v in counters(Prussian) where plan_point[v] == p) "probe: expected entry point";
  let t = choose x in [17, 21, 25, 29, 33, 37, 41, 45, 49] by Austrian
    prefer (count v in counters(Prussian) where plan_turn[v] == x or due_turn[v] == x) "probe: expected turn";
  log "probe {} {}", k, t;
}
"#;
    let with_probe = |name: &str, mut text: String, keep_hidden: bool| -> String {
        if name == "sequence.ks" {
            let from = "  §Rule 19 call write_plans();\n";
            assert!(text.contains(from));
            // The probe is all the variant needs: the game stops after it.
            text = text
                .replace(from, &format!("{from}  §Rule 19 call probe();\n  §Rule 6 draw \"probe made\";\n"));
            text.push_str(probe);
        }
        if name == "rulebook.ks" && !keep_hidden {
            let before = text.len();
            text = text.lines().filter(|l| !l.starts_with("§Rule 19 hidden ")).collect::<Vec<_>>().join("\n");
            assert!(text.len() < before);
        }
        text
    };
    let hidden = compiled_editing(|n, t| with_probe(n, t, true));
    let open = compiled_editing(|n, t| with_probe(n, t, false));
    for c in [&hidden, &open] {
        assert!(!c.has_errors(), "{:?}", c.diagnostics.iter().map(|d| &d.message).collect::<Vec<_>>());
    }
    // The heuristic agent breaks ties with its own seeded stream, which no Prussian
    // decision draws from: with the same seed, an Austrian choice that cannot see the
    // plans is the same whatever the Prussian agent planned.
    let probe_of = |c: &Compilation, seed: u64, prussian: AgentKind| -> (String, Vec<String>) {
        let out = play(c.program.as_ref().expect("compiles"), &options(seed, prussian, AgentKind::Heuristic))
            .expect("plays");
        let plans: Vec<String> = out
            .log
            .lines
            .iter()
            .map(|l| json(l))
            .filter(|v| v["what"].as_str().is_some_and(|w| w.starts_with("entry point of the corps")))
            .map(|v| v["choice"].as_str().map(str::to_string).unwrap_or_else(|| v["choice"].to_string()))
            .collect();
        let m = out
            .log
            .lines
            .iter()
            .map(|l| json(l))
            .find_map(|v| v["message"].as_str().and_then(|m| m.strip_prefix("probe ")).map(str::to_string))
            .expect("probe logged");
        (m, plans)
    };
    let (mut plans_differ, mut open_differ) = (0, 0);
    for seed in 1..=12 {
        let (h1, plans1) = probe_of(&hidden, seed, AgentKind::Random);
        let (h2, plans2) = probe_of(&hidden, seed, AgentKind::Heuristic);
        let (o1, plans1o) = probe_of(&open, seed, AgentKind::Random);
        let (o2, plans2o) = probe_of(&open, seed, AgentKind::Heuristic);
        assert_eq!((&plans1, &plans2), (&plans1o, &plans2o), "seed {seed}: the same plans in both variants");
        // Without hiding, the probe names a planned point.
        for (o, plans) in [(&o1, &plans1), (&o2, &plans2)] {
            let point = o.split(' ').next().expect("point").to_string();
            assert!(plans.contains(&point), "seed {seed}: probe {o}, plans {plans:?}");
        }
        if plans1 != plans2 {
            plans_differ += 1;
            assert_eq!(h1, h2, "seed {seed}: the Austrian's choice follows the hidden plans");
            if o1 != o2 {
                open_differ += 1;
            }
        }
    }
    assert!(plans_differ >= 6, "the Prussian plans differ between the agents ({plans_differ})");
    assert!(open_differ >= 3, "not hidden, the choice follows the plans ({open_differ})");
}

#[test]
fn torgau_back_to_back_option_plays() {
    // Rule 23 (optional): compiled in and switched on, the battle plays to a result and
    // the heuristic players turn lines back to back; switched off, no line ever is.
    let sources = load(&dir()).expect("loads");
    let c = compile_with(&sources, &["back_to_back".to_string()]);
    assert!(!c.has_errors(), "{:?}", c.diagnostics.iter().map(|d| &d.message).collect::<Vec<_>>());
    let prog = c.program.as_ref().expect("compiles");
    let plain = compiled();
    let plain = plain.program.as_ref().expect("compiles");
    let mut formed = 0;
    for seed in [5, 6] {
        let mut o = options(seed, AgentKind::Heuristic, AgentKind::Heuristic);
        o.options.insert("back_to_back".into());
        let out = play(prog, &o).expect("plays");
        assert!(out.result.is_ok(), "seed {seed}: {:?}", out.result);
        formed += out.log.lines.iter().filter(|l| l.contains(r#""marker":"BackToBack""#)).count();
        let off = play(plain, &options(seed, AgentKind::Heuristic, AgentKind::Heuristic)).expect("plays");
        assert!(off.result.is_ok(), "seed {seed}: {:?}", off.result);
        assert!(
            !off.log.lines.iter().any(|l| l.contains(r#""marker":"BackToBack""#)),
            "seed {seed}: option off"
        );
    }
    assert!(formed > 0, "back-to-back lines are formed");
}

#[test]
fn torgau_zoc_option_plays() {
    // Rule 24 (optional): switched on, the battle plays to a result under both readings of
    // ruling zoc_run_up (finding 21), cavalry charges units stepping into its zone and the
    // melee is fought at once (in the Movement Phase); switched off, the game is the one
    // the rulebook plays without the option: no zone of control.
    let sources = load(&dir()).expect("loads");
    let c = compile_with(&sources, &["zoc_charge".to_string()]);
    assert!(!c.has_errors(), "{:?}", c.diagnostics.iter().map(|d| &d.message).collect::<Vec<_>>());
    let prog = c.program.as_ref().expect("compiles");
    let plain = compiled();
    let plain = plain.program.as_ref().expect("compiles");
    for seed in [5, 6] {
        for reading in ["adjacent", "run_up"] {
            let mut o = options(seed, AgentKind::Heuristic, AgentKind::Heuristic);
            o.options.insert("zoc_charge".into());
            o.rulings.insert("zoc_run_up".into(), reading.into());
            let out = play(prog, &o).expect("plays");
            assert!(out.result.is_ok(), "seed {seed} {reading}: {:?}", out.result);
            let charges: Vec<usize> = out
                .log
                .lines
                .iter()
                .enumerate()
                .filter(|(_, l)| l.contains("charges from its zone of control"))
                .map(|(i, _)| i)
                .collect();
            assert!(!charges.is_empty(), "seed {seed} {reading}: no charge from a zone of control");
            // Each charge is followed by its melee, in the same Movement Phase.
            for &i in &charges {
                let phase = json(&out.log.lines[i])["phase"].clone();
                assert_eq!(phase, "Movement", "seed {seed} {reading}");
                let melee = out.log.lines[i + 1..]
                    .iter()
                    .map(|l| json(l))
                    .find(|e| e["message"].as_str().is_some_and(|m| m.starts_with("melee in ")))
                    .expect("a melee follows");
                assert_eq!(melee["phase"], "Movement", "seed {seed} {reading}: fought at once");
            }
        }
        let off = play(plain, &options(seed, AgentKind::Heuristic, AgentKind::Heuristic)).expect("plays");
        assert!(off.result.is_ok(), "seed {seed}: {:?}", off.result);
        assert!(
            !off.log
                .lines
                .iter()
                .any(|l| l.contains("zone of control") || l.contains(r#""interrupt":"zoc""#)),
            "seed {seed}: option off"
        );
    }
}

#[test]
fn torgau_plans_are_secret_in_the_austrian_view_until_revealed() {
    // Rule 19 ¶2-¶4: the plans are `secret` choices. In the Austrian view of the log the
    // Prussian decisions of entry point and hour show no choice and the plan tracks no
    // value; the hour is revealed at the time roll (made before the Austrian, ¶3) and the
    // point at the corps' arrival, each equal to what the full record shows was chosen.
    let c = compiled();
    let prog = c.program.as_ref().expect("compiles");
    let mut reveals = 0;
    for seed in 1..=3 {
        let out = play(prog, &options(seed, AgentKind::Heuristic, AgentKind::Random)).expect("plays");
        let full = out.log.lines.join("\n");
        let view = kriegsspiel_runtime::view::side_view(prog, &full, "Austrian").expect("a side");
        let planned = |text: &str, what: &str| -> Vec<serde_json::Value> {
            text.lines()
                .map(json)
                .filter(|v| v["type"] == "decision" && v["what"].as_str().unwrap_or("").starts_with(what))
                .map(|v| v["choice"].clone())
                .collect()
        };
        for what in ["entry point of the corps", "hour of arrival of the corps"] {
            let chosen = planned(&full, what);
            assert_eq!(chosen.len(), 4, "seed {seed}: four plans");
            assert!(chosen.iter().all(|c| c.is_i64()), "the record keeps them");
            assert!(planned(&view, what).iter().all(|c| c.is_null()), "seed {seed}: the view hides {what}");
            for l in view.lines().map(json).filter(|v| v["type"] == "reveal") {
                let d = &l["decisions"][0];
                if d["what"].as_str().unwrap_or("").starts_with(what) {
                    assert!(chosen.contains(&d["choice"]), "seed {seed}: revealed {d} was planned");
                    reveals += 1;
                }
            }
        }
        assert!(
            view.lines().map(json).filter(|v| v["track"] == "plan_point").all(|v| v["value"].is_null()),
            "seed {seed}: no plan value in the view"
        );
    }
    assert!(reveals >= 12, "{reveals} reveals in three games");
}

/// Rule 17 ¶1: the Austrian player sets up his own army (every counter placed by a
/// decision) under either reading of its limit (ruling `deployment_zone`); the random
/// player moves units off the supplied deployment, and the invariant `deployment` holds.
#[test]
fn torgau_austrian_player_sets_up_within_rule_17() {
    let c = compiled();
    let prog = c.program.as_ref().expect("compiles");
    for zone in ["clear_of_edge", "edge_band"] {
        for seed in 1..=2 {
            let mut o = options(seed, AgentKind::Heuristic, AgentKind::Random);
            o.rulings.insert("deployment_zone".into(), zone.into());
            let out = play(prog, &o).expect("plays");
            assert!(out.result.is_ok(), "{zone} seed {seed}: {:?}", out.result);
            let set_up: Vec<&String> =
                out.log.lines.iter().take_while(|l| !l.contains(r#""type":"turn""#)).collect();
            let placed = set_up.iter().filter(|l| l.contains(r#""marker":"Placed""#)).count();
            assert_eq!(placed, 84, "{zone} seed {seed}: every Austrian counter is set up");
            let moved = set_up.iter().filter(|l| l.contains(r#""type":"move""#)).count();
            assert!(
                moved > 20,
                "{zone} seed {seed}: the random player sets up where it likes ({moved} moves)"
            );
        }
    }
}
