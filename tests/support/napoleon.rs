//! Napoleon at the Crossroads: what the rulebook's test files share (tests/napoleon*.rs):
//! the rulebook compiled as it stands, with edits, or with the Campaign layer, and the
//! game options of Scenario B and of the Campaign Scenario.

use kriegsspiel_compiler::{compile, compile_with, load, Compilation};
use kriegsspiel_runtime::game::{AgentKind, GameOptions};
use std::collections::BTreeMap;
use std::path::PathBuf;

pub fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("rulebooks/napoleon-at-the-crossroads")
}

pub fn compiled() -> Compilation {
    compile(&load(&dir()).expect("loads"))
}

/// The rulebook's files, each text passed through `edit` with its file name.
pub fn compiled_editing(edit: impl Fn(&str, String) -> String) -> Compilation {
    super::rulebook::compiled_editing(&dir(), edit)
}

/// The rulebook's files, with `edit` applied to the text of one of them.
pub fn compiled_with(file: &str, edit: impl Fn(&str) -> String) -> Compilation {
    compiled_editing(|name, text| if name == file { edit(&text) } else { text })
}

/// The rulebook's files with several (file, from, to) replacements, each required to match.
pub fn compiled_with_edits(edits: &[(&str, &str, &str)]) -> Compilation {
    compiled_editing(|name, mut text| {
        for (file, from, to) in edits {
            if *file == name {
                assert!(text.contains(from), "{file}: {from}");
                text = text.replace(from, to);
            }
        }
        text
    })
}

pub fn agents(french: AgentKind, coalition: AgentKind) -> BTreeMap<String, AgentKind> {
    [("French".to_string(), french), ("Coalition".to_string(), coalition)].into()
}

pub fn options(seed: u64, french: AgentKind, coalition: AgentKind) -> GameOptions {
    GameOptions { scenario: "B".into(), seed, agents: agents(french, coalition), ..GameOptions::default() }
}

pub fn field(l: &str, f: &str) -> String {
    let v: serde_json::Value = serde_json::from_str(l).expect("json");
    v[f].as_str().unwrap_or_default().to_string()
}

/// The rulebook compiled with the Campaign layer in play, each file's text passed
/// through `edit`.
pub fn campaign_editing(edit: impl Fn(&str, String) -> String) -> Compilation {
    compile_with(&super::rulebook::sources_editing(&dir(), edit), &["campaign".to_string()])
}

pub fn campaign_options(seed: u64, french: AgentKind, coalition: AgentKind) -> GameOptions {
    let mut o = GameOptions {
        scenario: "CB".into(),
        seed,
        agents: agents(french, coalition),
        ..GameOptions::default()
    };
    o.options.insert("campaign".to_string());
    o
}

pub fn messages(lines: &[String], needle: &str) -> usize {
    lines.iter().filter(|l| l.contains(needle)).count()
}
