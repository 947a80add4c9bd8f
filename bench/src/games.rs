//! Whole games: random agents, headless, one core.

use kriegsspiel_runtime::{GameOptions, GameOutcome, Program};

/// The scenarios a rulebook can play (every scenario it declares).
pub fn scenarios(prog: &Program) -> Vec<String> {
    prog.scenarios.iter().map(|s| s.id.clone()).collect()
}

/// Play one game with random agents on both sides and no log.
pub fn play(prog: &Program, scenario: &str, seed: u64) -> GameOutcome {
    let opts = GameOptions { scenario: scenario.to_string(), seed, log: false, ..Default::default() };
    kriegsspiel_runtime::play(prog, &opts).unwrap_or_else(|e| panic!("cannot play {scenario}: {e}"))
}
