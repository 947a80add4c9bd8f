//! Napoleon at the Crossroads (issue 11): the contents of both parts and their layers,
//! Battle Scenario B (Grossbeeren) played to its E[183.] Victory Points without a runtime
//! error, the same seed giving the same log, battle chits never seen by the other side,
//! the optional layers, hidden leaders, and the log's sequence-of-play steps. The battle
//! rules are in napoleon_battle.rs, the Organization Segment in napoleon_organization.rs,
//! the Campaign Game in napoleon_campaign.rs.

use kriegsspiel_compiler::{compile_with, load};
use kriegsspiel_runtime::game::{play, AgentKind};
use std::collections::{BTreeMap, BTreeSet};

mod support;

use support::napoleon::*;

#[test]
fn napoleon_lists_both_parts_and_checks_clean() {
    let c = compiled();
    assert!(!c.has_errors(), "{:?}", c.diagnostics.iter().map(|d| &d.message).collect::<Vec<_>>());
    let r = &c.report;
    // Standard 1-210 and Exclusive 1-196 without the Exclusive [13.] the text lacks.
    assert_eq!(r.paragraphs, 405);
    assert_eq!(r.contents.iter().filter(|e| e.0.starts_with("Standard[")).count(), 210);
    assert_eq!(r.contents.iter().filter(|e| e.0.starts_with("Exclusive[")).count(), 195);
    assert_eq!(r.encoded.len() + r.waived.len() + r.missing.len() + r.superseded.len(), 405);
    // The counts per part: the Standard Rules have no paragraph missing (issue 11: none of
    // the battle-level rules may be), and the parts add up.
    let parts: Vec<(&str, usize)> = r.parts.iter().map(|p| (p.part.as_str(), p.paragraphs)).collect();
    assert_eq!(parts, [("Standard", 210), ("Exclusive", 195)]);
    for p in &r.parts {
        assert_eq!(p.encoded + p.waived + p.superseded + p.missing, p.paragraphs, "{p:?}");
    }
    assert_eq!(r.parts[0].missing, 0, "{:?}", r.parts[0]);
    // Waived: 20 before nap8, and the ten Exclusive paragraphs without rule effect its
    // classification found (commentary E[72.], E[101.], E[118.], E[144.], E[156.]; the
    // Battle Worksheet E[161.]-E[164.]; sorting the counters, E[165.]).
    assert_eq!(r.waived.len(), 30);
    for p in ["Exclusive[72.]", "Exclusive[101.]", "Exclusive[144.]", "Exclusive[161.]", "Exclusive[165.]"] {
        assert!(r.waived.iter().any(|e| e.0 == p), "{p} waived");
    }
    // The battle-level core is encoded: the battle procedure, retreat, pursuit, morale,
    // the VP table.
    for p in ["Standard[146.]", "Standard[174.]", "Standard[188.]", "Standard[193.]", "Exclusive[183.]"] {
        assert!(r.encoded.iter().any(|e| e == p), "{p} encoded");
    }
    // The Campaign Game's administration is encoded in its optional layer (E[92.],
    // E[110.]) with its Administrative March (E[135.]); bridges are encoded (nap9,
    // E[138.]-E[141.]), and the other Battle Scenarios' conditions at start (issue 11,
    // E[192.], scenario-conditions.ks).
    assert!(r.encoded.iter().any(|e| e == "Exclusive[110.]"));
    assert!(r.encoded.iter().any(|e| e == "Exclusive[135.]"));
    assert!(
        r.encoded.iter().any(|e| e == "Exclusive[138.]") && r.encoded.iter().any(|e| e == "Exclusive[141.]")
    );
    assert!(r.encoded.iter().any(|e| e == "Exclusive[192.]"));
    // Off-map movement (nap10, offmap.ks).
    assert!(
        r.encoded.iter().any(|e| e == "Exclusive[142.]") && r.encoded.iter().any(|e| e == "Exclusive[143.]")
    );
    let layers: Vec<(&str, bool)> = r.layers.iter().map(|l| (l.0.as_str(), l.2)).collect();
    assert_eq!(
        layers,
        [
            ("base", false),
            ("battlefield_dynamics", true),
            ("exclusive", false),
            ("campaign", true),
            ("sound_of_guns", true)
        ]
    );
    // The Exclusive Rules supersede Standard ones: E[37.] waives the reinforcements.
    assert!(r.superseded.iter().any(|e| e.0 == "Standard[91.]"), "{:?}", r.superseded);
    // Every worked example is run and reproduced; no warning (W0003, W0004, W0001...).
    assert!(r.examples_run >= 13, "{} examples", r.examples_run);
    assert_eq!(r.examples_run, r.examples_passed);
    assert!(
        c.diagnostics.is_empty(),
        "{:?}",
        c.diagnostics.iter().map(|d| (&d.code, &d.message)).collect::<Vec<_>>()
    );
}

#[test]
fn napoleon_scenario_b_plays_to_victory_points() {
    let c = compiled();
    let prog = c.program.as_ref().expect("compiles");
    let kinds = [
        (AgentKind::Random, AgentKind::Random),
        (AgentKind::Heuristic, AgentKind::Heuristic),
        (AgentKind::Random, AgentKind::Heuristic),
        (AgentKind::Heuristic, AgentKind::Random),
    ];
    let mut battles = 0;
    for seed in 1..=3 {
        for (f, k) in kinds.iter().cloned() {
            let out = play(prog, &options(seed, f, k)).expect("plays");
            let res = out.result.as_ref().unwrap_or_else(|e| panic!("seed {seed}: {e:?}"));
            let last = out.log.lines.last().expect("a log");
            assert!(last.contains(r#""type":"end""#) && last.contains("E[183.]"), "{last}");
            let _ = res;
            // The VP count is logged with both sides' losses.
            assert!(out.log.lines.iter().any(|l| l.contains("French VP")));
            battles += out.log.lines.iter().filter(|l| l.contains(r#""message":"battle: "#)).count();
        }
    }
    assert!(battles > 0, "the heuristic players fight");
}

#[test]
fn napoleon_same_seed_same_log() {
    let c = compiled();
    let prog = c.program.as_ref().expect("compiles");
    for seed in [4, 11] {
        let a = play(prog, &options(seed, AgentKind::Heuristic, AgentKind::Random)).expect("plays");
        let b = play(prog, &options(seed, AgentKind::Heuristic, AgentKind::Random)).expect("plays");
        assert_eq!(a.log.lines, b.log.lines);
        let other = play(prog, &options(seed + 1, AgentKind::Heuristic, AgentKind::Random)).expect("plays");
        assert_ne!(a.log.lines, other.log.lines, "the seed matters");
    }
}

fn is_chit(l: &str) -> bool {
    l.contains(r#""type":"decision""#) && l.contains("battle chit")
}

#[test]
fn napoleon_battle_chits_are_sealed() {
    // Every battle chit is a sealed decision, revealed with its pair.
    let c = compiled();
    let prog = c.program.as_ref().expect("compiles");
    let out = play(prog, &options(1, AgentKind::Heuristic, AgentKind::Heuristic)).expect("plays");
    let chits: Vec<&String> = out.log.lines.iter().filter(|l| is_chit(l)).collect();
    assert!(!chits.is_empty());
    assert!(chits.iter().all(|l| l.contains(r#""sealed":true"#)));
    // The defender cannot see the attacker's chit: force the attacker's chit to Pursuit
    // (a variant of the rulebook) and the defender, same seed, same state, chooses alike.
    let forced = compiled_with("battle.ks", |t| {
        t.replace("let ac = choose p in chit_options([a], false)", "let ac = choose p in [Pursuit]")
    });
    assert!(!forced.has_errors());
    let forced_prog = forced.program.as_ref().expect("compiles");
    let mut compared = 0;
    let mut attacker_differed = 0;
    for seed in 1..=30 {
        for defender in [AgentKind::Random, AgentKind::Heuristic] {
            for (attacker_side, defender_side, kinds) in [
                ("French", "Coalition", (AgentKind::Heuristic, defender.clone())),
                ("Coalition", "French", (defender.clone(), AgentKind::Heuristic)),
            ] {
                let a = play(prog, &options(seed, kinds.0.clone(), kinds.1.clone())).expect("plays");
                let b = play(forced_prog, &options(seed, kinds.0.clone(), kinds.1.clone())).expect("plays");
                // The first battle of the game, attacked by this side, reached in the same
                // state by both games: the lines before its first chit are the same.
                let Some(pa) = a.log.lines.iter().position(|l| is_chit(l)) else { continue };
                // (The first chit decision is the defender's when the attacker had one
                // chit to play, S[132.]: skipped.)
                if field(&a.log.lines[pa], "by") != attacker_side
                    || field(&a.log.lines[pa], "side") != attacker_side
                {
                    continue;
                }
                let Some(pb) = b.log.lines.iter().position(|l| is_chit(l)) else { continue };
                if a.log.lines[..pa] != b.log.lines[..pb] {
                    continue;
                }
                // The forced attacker was not asked; the defender's chit follows at once.
                let da = &a.log.lines[pa + 1];
                let db = &b.log.lines[pb];
                assert!(is_chit(da) && is_chit(db), "{da}\n{db}");
                assert_eq!(field(da, "by"), defender_side);
                assert_eq!(field(db, "by"), defender_side);
                assert_eq!(
                    field(da, "choice"),
                    field(db, "choice"),
                    "seed {seed}: the defender's chit depends on the attacker's"
                );
                compared += 1;
                if field(&a.log.lines[pa], "choice") != "Pursuit" {
                    attacker_differed += 1;
                }
            }
        }
    }
    assert!(compared >= 10, "{compared} battles compared");
    assert!(attacker_differed > 0, "some attackers chose Pitched in the unforced game");
}

#[test]
fn napoleon_battlefield_dynamics_option_plays() {
    // E[159.]-E[160.] as an optional layer: compiled in, its roll comes before
    // counterattacks and re-attacks, and the games still end on Victory Points.
    let sources = load(&dir()).expect("loads");
    let c = compile_with(&sources, &["battlefield_dynamics".to_string()]);
    assert!(!c.has_errors());
    let prog = c.program.as_ref().expect("compiles");
    let mut rolls = 0;
    for seed in 1..=6 {
        let mut o = options(seed, AgentKind::Heuristic, AgentKind::Heuristic);
        o.options.insert("battlefield_dynamics".to_string());
        let out = play(prog, &o).expect("plays");
        assert!(out.result.is_ok(), "seed {seed}: {:?}", out.result);
        rolls += out.log.lines.iter().filter(|l| l.contains("Battlefield Dynamics:")).count();
    }
    assert!(rolls > 0, "the option's roll is made");
    // Without it, never.
    let plain = compiled();
    let out = play(
        plain.program.as_ref().expect("compiles"),
        &options(1, AgentKind::Heuristic, AgentKind::Heuristic),
    )
    .expect("plays");
    assert!(!out.log.lines.iter().any(|l| l.contains("Battlefield Dynamics:")));
}

#[test]
fn napoleon_sound_of_the_guns_option_plays() {
    // E[157.]-E[158.] as an optional layer: a Force that missed its Forced March near a
    // battle is offered the march to the guns before Round Two; the games still end on
    // Victory Points. (Heuristic players never attempt a Forced March, so random ones.)
    let sources = load(&dir()).expect("loads");
    let c = compile_with(&sources, &["sound_of_guns".to_string()]);
    assert!(!c.has_errors());
    let prog = c.program.as_ref().expect("compiles");
    let (mut offered, mut joined) = (0, 0);
    for seed in 1..=200 {
        let mut o = options(seed, AgentKind::Random, AgentKind::Random);
        o.options.insert("sound_of_guns".to_string());
        let out = play(prog, &o).expect("plays");
        assert!(out.result.is_ok(), "seed {seed}: {:?}", out.result);
        offered +=
            out.log.lines.iter().filter(|l| l.contains("march to the sound of the guns (E[158.])")).count();
        joined += out.log.lines.iter().filter(|l| l.contains("marches to the sound of the guns")).count();
    }
    assert!(offered > 0, "the march to the guns is offered");
    println!("sound of the guns: offered {offered} times, {joined} joined, in 200 random games");
    // Without the option, never (and no Force is marked for it).
    let plain = compiled();
    for seed in 1..=20 {
        let out = play(
            plain.program.as_ref().expect("compiles"),
            &options(seed, AgentKind::Random, AgentKind::Random),
        )
        .expect("plays");
        assert!(!out.log.lines.iter().any(|l| l.contains("sound of the guns") || l.contains("MissedMarch")));
    }
}

#[test]
fn napoleon_round_one_barrier() {
    // S[147.] note, S[204.]: a battle with another battle of the phase within 5 hexes
    // waits after its Round One; every waiting battle resumes later in the same Combat
    // Phase, after another battle (a new one, or another waiting one) was fought, or it
    // waited beside a battle already waiting (the Phasing Player may resume it first).
    let c = compiled();
    let prog = c.program.as_ref().expect("compiles");
    let note = |l: &str| -> Option<(String, String, String)> {
        let v: serde_json::Value = serde_json::from_str(l).ok()?;
        if v["type"] != "note" {
            return None;
        }
        let when = format!("{}/{}/{}", v["turn"], v["phase"], v["side"]);
        let msg = v["message"].as_str()?.to_string();
        Some((when, msg, v["para"].as_str().unwrap_or_default().to_string()))
    };
    let mut waits = 0;
    for seed in 1..=40 {
        let out = play(prog, &options(seed, AgentKind::Heuristic, AgentKind::Heuristic)).expect("plays");
        assert!(out.result.is_ok(), "seed {seed}: {:?}", out.result);
        let notes: Vec<(String, String, String)> = out.log.lines.iter().filter_map(|l| note(l)).collect();
        for (i, (when, msg, para)) in notes.iter().enumerate() {
            let Some(leader) =
                msg.strip_suffix(" waits after Round One for the battles within 5 hexes (S[204.])")
            else {
                continue;
            };
            assert_eq!(para, "Standard[204.]");
            waits += 1;
            let resume = format!("battle resumes after Round One (S[204.]): {leader} against");
            let j = notes[i + 1..]
                .iter()
                .position(|n| n.1.starts_with(&resume))
                .map(|j| j + i + 1)
                .unwrap_or_else(|| panic!("seed {seed}: {leader} never resumes"));
            assert_eq!(&notes[j].0, when, "seed {seed}: {leader} resumes in the same Combat Phase");
            let others = notes[i + 1..j]
                .iter()
                .filter(|n| n.1.starts_with("battle: ") || n.1.starts_with("battle resumes after Round One"))
                .count();
            // Or it waited beside another battle already waiting after its Round One
            // (S[204.]): the Phasing Player then resumes them in the order he chooses.
            let beside_waiting = notes[..i].iter().enumerate().any(|(k, n)| {
                let Some(other) =
                    n.1.strip_suffix(" waits after Round One for the battles within 5 hexes (S[204.])")
                else {
                    return false;
                };
                let resumed = format!("battle resumes after Round One (S[204.]): {other} against");
                n.0 == *when && other != leader && !notes[k + 1..i].iter().any(|m| m.1.starts_with(&resumed))
            });
            assert!(others > 0 || beside_waiting, "seed {seed}: {leader} waited for no other battle");
        }
        let resumes = notes.iter().filter(|n| n.1.starts_with("battle resumes after Round One")).count();
        let paused = notes.iter().filter(|n| n.1.contains(" waits after Round One ")).count();
        assert_eq!(resumes, paused, "seed {seed}");
    }
    assert!(waits >= 5, "{waits} battles waited after Round One");
}

#[test]
fn napoleon_leaders_hidden_until_revealed() {
    // S[20.]-S[22.]: a leader moves informational side down; the enemy learns who he is at
    // Steps 1-2 of a battle (S[146.]), at a repulse attempt (S[131.]) or at his capture
    // roll (S[33.]), and he is hidden again at the end of the Combat Phase (S[22.]). The
    // Organization Displays (the combat units) stay concealed (S[20.]). In a side's view
    // of the log (`run --view SIDE`) no line before an enemy leader's first reveal names
    // him, and no enemy combat unit is ever named; the full log names them all.
    let text = std::fs::read_to_string(dir().join("counters.ks")).expect("reads");
    let mut names: Vec<(String, String, bool)> = Vec::new();
    for l in text.lines() {
        let l = l.trim();
        let side = if l.starts_with("French \"") {
            "French"
        } else if l.starts_with("Coalition \"") {
            "Coalition"
        } else {
            continue;
        };
        let name = l.split('"').nth(1).expect("name");
        if name.contains("Supply Source") || name.contains("Garrison") {
            continue; // the Supply Source markers and garrisons are public (S[58.], E[26.])
        }
        let leader = l.contains("MajorGeneral {") || l.contains(" Leader {");
        names.push((side.to_string(), name.to_string(), leader));
    }
    assert!(names.iter().filter(|n| n.2).count() >= 10 && names.iter().filter(|n| !n.2).count() >= 20);
    let c = compiled();
    let prog = c.program.as_ref().expect("compiles");
    let cc = campaign_editing(|_, t| t);
    let cprog = cc.program.as_ref().expect("compiles");
    let (mut revealed, mut hidden_in_full, mut named_after, mut marks_named) = (0, 0, 0, 0);
    for seed in 1..=4 {
        for (f, k) in [(AgentKind::Heuristic, AgentKind::Heuristic), (AgentKind::Random, AgentKind::Random)] {
            for campaign in [false, true] {
                let (p, o) = if campaign {
                    (cprog, campaign_options(seed, f.clone(), k.clone()))
                } else {
                    (prog, options(seed, f.clone(), k.clone()))
                };
                let out = play(p, &o).expect("plays");
                assert!(out.result.is_ok(), "seed {seed}: {:?}", out.result);
                let full: Vec<serde_json::Value> =
                    out.log.lines.iter().map(|l| serde_json::from_str(l).expect("json")).collect();
                // The first reveal of each leader in the referee's record; S[22.]: none is
                // still revealed when a Combat Phase ends.
                let mut first: BTreeMap<String, usize> = BTreeMap::new();
                let mut shown: Vec<String> = Vec::new();
                for (i, v) in full.iter().enumerate() {
                    if v["marker"] == "Identified" {
                        let u = v["on"].as_str().expect("on").to_string();
                        if v["type"] == "mark" {
                            first.entry(u.clone()).or_insert(i);
                            shown.push(u);
                        } else {
                            shown.retain(|x| *x != u);
                        }
                    }
                    if v["type"] == "phase_end" && v["phase"] == "Combat" {
                        assert!(
                            shown.is_empty(),
                            "seed {seed}: still revealed after the Combat Phase: {shown:?}"
                        );
                    }
                }
                revealed += first.len();
                let text = out.log.lines.join("\n");
                for side in ["French", "Coalition"] {
                    let view: Vec<String> = kriegsspiel_runtime::view::side_view(p, &text, side)
                        .expect("a side")
                        .lines()
                        .map(String::from)
                        .collect();
                    assert_eq!(view.len(), full.len());
                    // `revealed by Identified`: the enemy's view names a leader from his
                    // reveal (the mark) and goes back to his alias when he is hidden again.
                    for (i, v) in full.iter().enumerate() {
                        let Some(u) = v["on"].as_str() else { continue };
                        let enemy = names.iter().any(|n| n.0 != side && n.1 == u);
                        if v["marker"] != "Identified" || !enemy {
                            continue;
                        }
                        let seen: serde_json::Value = serde_json::from_str(&view[i]).expect("json");
                        if v["type"] == "mark" {
                            assert_eq!(seen["on"], u, "seed {seed}: {side} sees the reveal of {u}");
                            marks_named += 1;
                        } else {
                            let alias = seen["on"].as_str().unwrap_or_default();
                            assert!(alias.contains(" block "), "seed {seed}: {side} still sees {u}: {alias}");
                        }
                    }
                    // (Line 0 is the header: the rulebook's own supplied reasons.)
                    for (i, line) in view.iter().enumerate().skip(1) {
                        for (owner, name, leader) in names.iter().filter(|n| n.0 != side) {
                            // (The sighting roll's own words name Napoleon, who is not in CB.)
                            if name == "Napoleon" && line.contains("E[153.]") {
                                continue;
                            }
                            let before = !leader || i < first.get(name).copied().unwrap_or(usize::MAX);
                            if out.log.lines[i].contains(name.as_str()) {
                                if before {
                                    hidden_in_full += 1;
                                } else {
                                    named_after += 1;
                                }
                            }
                            assert!(
                                !(before && line.contains(name.as_str())),
                                "seed {seed}: the {side} view names {owner}'s {name} before its reveal: {line}"
                            );
                        }
                    }
                }
            }
        }
    }
    // Not vacuous: the full log names them before, and the views name leaders once revealed.
    assert!(
        revealed >= 20 && hidden_in_full >= 1000 && named_after >= 20 && marks_named >= 20,
        "{revealed} {hidden_in_full} {named_after} {marks_named}"
    );
}

#[test]
fn napoleon_log_lines_name_the_sequence_of_play_step() {
    // S[2.]: the rules are numbered by the step of the sequence they apply to; steps.ks
    // puts each paragraph under its code, and every log line of that paragraph names it.
    let c = compiled();
    let prog = c.program.as_ref().expect("compiles");
    let out = play(prog, &options(1, AgentKind::Heuristic, AgentKind::Heuristic)).expect("plays");
    let lines: Vec<serde_json::Value> =
        out.log.lines.iter().map(|l| serde_json::from_str(l).expect("json")).collect();
    let step_of = |para: &str| -> BTreeSet<String> {
        lines
            .iter()
            .filter(|v| v["para"] == para)
            .map(|v| v["step"].as_str().unwrap_or("none").to_string())
            .collect()
    };
    for (para, step) in [("Standard[40.]", "A"), ("Standard[146.]", "III.b"), ("Standard[42.]", "I.a")] {
        let seen = step_of(para);
        assert_eq!(seen, BTreeSet::from([step.to_string()]), "{para}");
    }
    let with_step = lines.iter().filter(|v| v.get("step").is_some()).count();
    assert!(with_step * 2 > lines.len(), "{with_step} of {} lines name a step", lines.len());
}
