//! The native back end against the VM: every scenario of every bundled rulebook, the
//! same seeds both ways (`KRIEGSSPIEL_DIFF_SEEDS`, 40 by default, 200 in CI (`.ci/run`), is how many per
//! scenario; odd seeds with heuristic agents on every side, even seeds random), and
//! the logs must be byte-identical, with the same result and the same instruction,
//! decision and roll counts, and (on half the seeds, counted as `run --games` counts
//! them) the same rules fired.

use kriegsspiel_runtime::game::{play, AgentKind, GameOptions, GameOutcome};
use kriegsspiel_runtime::native::Native;
use std::path::Path;

fn seeds() -> u64 {
    std::env::var("KRIEGSSPIEL_DIFF_SEEDS").ok().and_then(|s| s.parse().ok()).unwrap_or(40)
}

/// The same game both ways (`at` names it): byte-identical logs, the same result, the
/// same instruction, decision and roll counts, and the same rules fired.
fn same_game(at: &str, vm: &GameOutcome, nat: &GameOutcome) {
    let (a, b) = (vm.log.text(), nat.log.text());
    if a != b {
        let line = a.lines().zip(b.lines()).position(|(x, y)| x != y).unwrap_or(0);
        panic!(
            "{at}: the logs differ at line {}\nVM:     {}\nnative: {}",
            line + 1,
            a.lines().nth(line).unwrap_or("(end)"),
            b.lines().nth(line).unwrap_or("(end)")
        );
    }
    assert_eq!(format!("{:?}", vm.result), format!("{:?}", nat.result), "{at}");
    assert_eq!(
        (vm.stats.instructions, vm.stats.decisions, vm.stats.rolls),
        (nat.stats.instructions, nat.stats.decisions, nat.stats.rolls),
        "{at}: instructions, decisions, rolls"
    );
    assert_eq!(vm.fired, nat.fired, "{at}: rules fired");
}

fn differential(rulebook: &str) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("rulebooks").join(rulebook);
    let sources = kriegsspiel_compiler::load(&dir).expect("the rulebook loads");
    let prog = kriegsspiel_compiler::compile(&sources).program.expect("the rulebook compiles");
    let Some(code) = kriegsspiel_native_check::code(rulebook) else {
        assert!(
            !kriegsspiel_native_check::ALL_TRANSLATED,
            "build.rs translates every rulebook unless KRIEGSSPIEL_NATIVE_ONLY says otherwise"
        );
        eprintln!("SKIPPED: {rulebook} not translated (built with KRIEGSSPIEL_NATIVE_ONLY)");
        return;
    };
    let native = Native::for_program(code, &prog).expect("the code was generated from this program");
    assert!(!prog.scenarios.is_empty(), "{rulebook} has scenarios");
    let mut games = 0;
    for scenario in &prog.scenarios {
        for seed in 1..=seeds() {
            // Rules fired (what `run --games` counts) on half the seeds of each kind.
            let rules_fired = seed % 4 >= 2;
            let mut opts =
                GameOptions { scenario: scenario.id.clone(), seed, rules_fired, ..GameOptions::default() };
            if seed % 2 == 1 {
                for side in &prog.sides {
                    opts.agents.insert(side.clone(), AgentKind::Heuristic);
                }
            }
            let vm = play(&prog, &opts).expect("the VM plays");
            opts.native = Some(native);
            let nat = play(&prog, &opts).expect("the native code plays");
            same_game(&format!("{rulebook} {} seed {seed}", scenario.id), &vm, &nat);
            if rules_fired {
                assert!(
                    vm.fired.iter().any(|&n| n > 0),
                    "{rulebook} {}: rules fired were counted",
                    scenario.id
                );
            }
            assert!(vm.log.text().lines().count() > 2, "{rulebook} {}: a game was logged", scenario.id);
            games += 1;
        }
    }
    eprintln!("{rulebook}: {games} games, native and VM logs identical");
}

#[test]
fn blocks_and_cards() {
    differential("blocks-and-cards");
}

#[test]
fn frederick_the_great() {
    differential("frederick-the-great");
}

#[test]
fn napoleon_at_the_crossroads() {
    differential("napoleon-at-the-crossroads");
}

#[test]
fn peter_the_great() {
    differential("peter-the-great");
}

#[test]
fn river_road() {
    differential("river-road");
}

#[test]
fn sport_of_kings() {
    differential("sport-of-kings");
}

#[test]
fn torgau() {
    differential("torgau");
}

/// A budget that runs out mid-game stops both back ends at the same instruction.
#[test]
fn an_exhausted_budget_stops_both_at_the_same_instruction() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../rulebooks/peter-the-great");
    let sources = kriegsspiel_compiler::load(&dir).expect("loads");
    let prog = kriegsspiel_compiler::compile(&sources).program.expect("compiles");
    let native = Native::for_program(kriegsspiel_native_check::code("peter-the-great").expect("code"), &prog)
        .expect("same program");
    for budget in [1, 7, 1_000, 33_333, 250_001] {
        let mut opts = GameOptions { scenario: "14.4".into(), seed: 3, budget, ..GameOptions::default() };
        let vm = play(&prog, &opts).expect("plays");
        opts.native = Some(native);
        let nat = play(&prog, &opts).expect("plays");
        let err = vm.result.as_ref().err().map(|e| e.code.to_string());
        assert_eq!(err.as_deref(), Some("R0004"), "budget {budget} runs out");
        assert_eq!(vm.log.text(), nat.log.text(), "budget {budget}");
        assert_eq!(vm.stats.instructions, nat.stats.instructions, "budget {budget}");
    }
}

/// A game with a search agent, whose playouts resume from checkpoints taken while native
/// code runs the sequence of play and then run natively too: the same game both ways (and,
/// in this debug build, every resumed playout equal to its replay from the start).
#[test]
fn a_search_game_is_the_same_both_ways() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../rulebooks/frederick-the-great");
    let sources = kriegsspiel_compiler::load(&dir).expect("loads");
    let prog = kriegsspiel_compiler::compile(&sources).program.expect("compiles");
    let Some(code) = kriegsspiel_native_check::code("frederick-the-great") else {
        eprintln!("SKIPPED: frederick-the-great not translated (built with KRIEGSSPIEL_NATIVE_ONLY)");
        return;
    };
    let native = Native::for_program(code, &prog).expect("same program");
    let mut opts = GameOptions { scenario: "1757".into(), seed: 3, ..GameOptions::default() };
    opts.agents.insert("Allies".into(), AgentKind::Search(2, Some(1)));
    opts.agents.insert("Coalition".into(), AgentKind::Heuristic);
    let vm = play(&prog, &opts).expect("the VM plays");
    opts.native = Some(native);
    let nat = play(&prog, &opts).expect("the native code plays");
    same_game("frederick-the-great 1757 seed 3, Allies searching", &vm, &nat);
    let notes = vm.log.text().lines().find(|l| l.contains(r#""type":"agent""#)).map(str::to_string);
    let notes = notes.expect("the search agent's notes");
    assert!(notes.contains("playouts resumed from the start of their turn, 0 replayed"), "{notes}");
}

/// Code generated from one program is refused for another.
#[test]
fn code_for_another_program_is_refused() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../rulebooks/river-road");
    let sources = kriegsspiel_compiler::load(&dir).expect("loads");
    let prog = kriegsspiel_compiler::compile(&sources).program.expect("compiles");
    let other = kriegsspiel_native_check::code("peter-the-great").expect("code");
    let err = Native::for_program(other, &prog).expect_err("another program's code");
    assert!(err.contains("another program"), "{err}");
}

/// The mutants `build.rs` translated (the property tests' mutations of Peter the Great,
/// Frederick the Great, River Road and Blocks and Cards, drawn from a fixed seed, kept
/// when they compile to another program): each of their scenarios played both ways on a
/// few seeds, with a budget, must give the same log, result (runtime errors included),
/// and counts. A program nobody wrote reaches paths the bundled rulebooks do not.
#[test]
fn mutants_play_the_same_both_ways() {
    let mutants = kriegsspiel_native_check::MUTANTS;
    if mutants.is_empty() {
        eprintln!("SKIPPED: no mutants translated (KRIEGSSPIEL_MUTANTS=0 or KRIEGSSPIEL_NATIVE_ONLY)");
        return;
    }
    let mut games = 0;
    let mut errors: std::collections::BTreeMap<String, usize> = Default::default();
    for m in mutants {
        let sources = kriegsspiel_compiler::load(Path::new(m.dir)).expect("the mutant's sources load");
        let prog = kriegsspiel_compiler::compile(&sources).program.expect("the mutant compiles");
        let native =
            Native::for_program(m.code, &prog).expect("the code was generated from this mutant's program");
        for scenario in prog.scenarios.iter().take(3) {
            for seed in 1..=4u64 {
                let mut opts = GameOptions {
                    scenario: scenario.id.clone(),
                    seed,
                    // A whole game of each (Peter's take 4 M instructions); a mutant
                    // that loops ends at the budget, on both back ends alike.
                    budget: 30_000_000,
                    rules_fired: seed == 2,
                    ..GameOptions::default()
                };
                if seed % 2 == 1 {
                    for side in &prog.sides {
                        opts.agents.insert(side.clone(), AgentKind::Heuristic);
                    }
                }
                let vm = play(&prog, &opts);
                opts.native = Some(native);
                let nat = play(&prog, &opts);
                let at = format!("{} ({}), scenario {} seed {seed}", m.rulebook, m.what, scenario.id);
                let (vm, nat) = match (vm, nat) {
                    (Ok(a), Ok(b)) => (a, b),
                    (Err(a), Err(b)) => {
                        assert_eq!(a, b, "{at}: refused differently");
                        continue;
                    }
                    (a, b) => panic!("{at}: VM {:?}, native {:?}", a.err(), b.err()),
                };
                same_game(&at, &vm, &nat);
                if let Err(e) = &vm.result {
                    *errors.entry(e.code.to_string()).or_default() += 1;
                }
                games += 1;
            }
        }
    }
    eprintln!(
        "{} mutants: {games} games (runtime errors by code: {errors:?}), native and VM identical",
        mutants.len()
    );
    assert!(games > 0, "the mutants played");
}
