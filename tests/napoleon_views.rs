//! Napoleon at the Crossroads: what one side's view of the log keeps from the other
//! (docs/language.md 8.7b, section 16). The Organization Display is the owner's (S¶12,
//! strengths hidden by S¶20-S¶23): its choices are `private` and no note of ours names a
//! strength it hides.

use kriegsspiel_compiler::{compile, load};
use kriegsspiel_runtime::game::{play, AgentKind, GameOptions};
use kriegsspiel_runtime::view::side_view;
use std::collections::BTreeMap;
use std::path::PathBuf;

fn json(l: &str) -> serde_json::Value {
    serde_json::from_str(l).expect("json")
}

#[test]
fn napoleon_display_choices_stay_out_of_the_enemy_view() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("rulebooks/napoleon-at-the-crossroads");
    let c = compile(&load(&dir).expect("loads"));
    assert!(!c.has_errors());
    let prog = c.program.expect("compiles");
    let (mut private, mut sp_choices) = (0, 0);
    for seed in 1..=4 {
        let agents: BTreeMap<String, AgentKind> =
            [("French".to_string(), AgentKind::Random), ("Coalition".to_string(), AgentKind::Random)].into();
        let out = play(&prog, &GameOptions { scenario: "B".into(), seed, agents, ..GameOptions::default() })
            .expect("plays");
        assert!(out.result.is_ok(), "seed {seed}");
        let full = out.log.text();
        for (side, enemy) in [("French", "Coalition"), ("Coalition", "French")] {
            let view = side_view(&prog, &full, enemy).expect("view");
            let mine = side_view(&prog, &full, side).expect("view");
            for (l, own) in view.lines().zip(mine.lines()) {
                let (e, o) = (json(l), json(own));
                if e["type"] == "decision" && e["by"] == side && e["private"] == true {
                    private += 1;
                    assert!(e["choice"].is_null() && e["hidden"] == true, "{l}");
                    // The owner sees his own choice.
                    assert!(o["hidden"].is_null(), "{own}");
                    let what = e["what"].as_str().unwrap_or("");
                    if what.starts_with("SPs") {
                        sp_choices += 1;
                    }
                }
                // Our notes on the display's operations name no strength.
                if e["type"] == "note" {
                    let m = e["message"].as_str().unwrap_or("");
                    if m.contains("March Division") || m.contains("gives SPs") {
                        let words: Vec<&str> = m.split_whitespace().collect();
                        let counted = words
                            .windows(2)
                            .any(|w| w[1] == "SPs" && w[0].chars().all(|c| c.is_ascii_digit()));
                        assert!(!counted, "{m}");
                    }
                }
            }
        }
    }
    // The random players reorganize: the private choices were met, strengths among them.
    assert!(private > 0 && sp_choices > 0, "{private} private, {sp_choices} SP choices");
}
