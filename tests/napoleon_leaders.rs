//! Napoleon at the Crossroads, self-employed leaders (E¶25): a leader's eponymous combat
//! unit stays on his track while both are in play (the invariant `own_unit_on_track`),
//! and such a leader leaves and comes back into play like a Major General.

mod support;

use kriegsspiel_runtime::game::{play, AgentKind};
use std::collections::BTreeMap;

use support::napoleon::{dir, field, options};

fn random_b(seed: u64) -> kriegsspiel_runtime::game::GameOptions {
    options(seed, AgentKind::Random, AgentKind::Random)
}

#[test]
fn napoleon_leaders_leave_and_come_back_with_their_own_units() {
    // Random players take E[25.]'s options; every game keeps the invariant (a violation
    // ends the game with an error), and in each leaving and each return the leader's own
    // unit changes track with him.
    let c = support::rulebook::compiled_editing(&dir(), |_, t| t);
    assert!(!c.has_errors());
    let prog = c.program.as_ref().expect("compiles");
    // Our supplied pairs (counters.ks `eponym`; Arrighi is exempt).
    let own: BTreeMap<&str, &str> = [
        ("Oudinot", "XII Corps"),
        ("Bertrand", "IV Corps"),
        ("Reynier", "VII Corps"),
        ("Vandamme", "I Corps"),
        ("Buelow", "III Prussian Corps"),
        ("Tauentzien", "IV Prussian Corps"),
        ("Wintzingerode", "Russian Corps"),
    ]
    .into();
    let (mut left, mut back) = (0, 0);
    for seed in 1..=40 {
        let out = play(prog, &random_b(seed)).expect("plays");
        assert!(out.result.is_ok(), "seed {seed}: {:?}", out.result);
        let lines = &out.log.lines;
        for (i, l) in lines.iter().enumerate() {
            let m = field(l, "message");
            let leaving = m.starts_with("a Subordinate Leader at ") && m.contains("leaves play");
            let returning = m.starts_with("a leader comes back into play with his unit");
            if !leaving && !returning {
                continue;
            }
            // The events of this step: back to the decision that chose the leader.
            let from = lines[..i].iter().rposition(|x| field(x, "type") == "decision").expect("decision");
            let step = &lines[from + 1..i];
            let who = step
                .iter()
                .find(|x| field(x, "track") == "retired")
                .map(|x| field(x, "of"))
                .expect("retired");
            let unit = own.get(who.as_str()).unwrap_or_else(|| panic!("seed {seed}: {who} has no own unit"));
            let moved: Vec<String> =
                step.iter().filter(|x| field(x, "track") == "cmd").map(|x| field(x, "of")).collect();
            // Leaving: his own unit goes to the Force Leader's track with the rest;
            // coming back: it goes onto his.
            assert!(moved.iter().any(|m| m == unit), "seed {seed}: {who}: {moved:?}");
            if leaving {
                left += 1;
            } else {
                back += 1;
            }
        }
        if left >= 3 && back >= 3 {
            break;
        }
    }
    assert!(left >= 3 && back >= 3, "{left} left play, {back} came back");
}

#[test]
fn napoleon_own_unit_invariant_breaks_when_a_leader_loses_his_unit() {
    // Set-up edited so that Buelow's III Prussian Corps starts on Tauentzien's track while
    // Buelow is in play: the invariant stops the game after the first phase.
    let c = support::rulebook::compiled_editing(&dir(), |name, t| {
        if name == "counters.ks" {
            let from = "ma: 4, cmd: 6, eponym: 6 }";
            assert!(t.contains(from));
            t.replace(from, "ma: 4, cmd: 7, eponym: 6 }")
        } else {
            t
        }
    });
    assert!(!c.has_errors());
    let prog = c.program.as_ref().expect("compiles");
    let out = play(prog, &random_b(1)).expect("plays");
    let err = out.result.expect_err("the invariant breaks");
    assert!(format!("{err:?}").contains("own_unit_on_track"), "{err:?}");
    // Unedited, the same game keeps it.
    let c = support::rulebook::compiled_editing(&dir(), |_, t| t);
    let out = play(c.program.as_ref().expect("compiles"), &random_b(1)).expect("plays");
    assert!(out.result.is_ok(), "{:?}", out.result);
}
