//! Whole games: random agents, headless, one core.

use kriegsspiel_runtime::native::Native;
use kriegsspiel_runtime::{GameOptions, GameOutcome, Program};

/// The scenarios a rulebook can play (every scenario it declares).
pub fn scenarios(prog: &Program) -> Vec<String> {
    prog.scenarios.iter().map(|s| s.id.clone()).collect()
}

/// Play one game with random agents on both sides and no log.
pub fn play(prog: &Program, scenario: &str, seed: u64) -> GameOutcome {
    play_native(prog, scenario, seed, None)
}

/// [`play`], on the native code when given (issue 17).
pub fn play_native(prog: &Program, scenario: &str, seed: u64, native: Option<Native>) -> GameOutcome {
    let opts = GameOptions { scenario: scenario.to_string(), seed, log: false, native, ..Default::default() };
    kriegsspiel_runtime::play(prog, &opts).unwrap_or_else(|e| panic!("cannot play {scenario}: {e}"))
}
