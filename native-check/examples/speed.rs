//! Games per second on the VM and on the native code of a bundled rulebook:
//! `cargo run --release -p kriegsspiel-native-check --example speed -- RULEBOOK SCENARIO [GAMES] [vm|native|both] [series]`
//! (random agents on every side, seeds 1..=GAMES, logs off; one thread; both back ends
//! twice, alternating, unless one is named, for a profile of it alone). Each game starts
//! cold, as `run` plays one; with `series` the games are one `Series`, as `run --games`
//! plays them, each handing the next its movement-cost memo.

use kriegsspiel_runtime::game::{play, GameOptions, Series};
use kriegsspiel_runtime::native::Native;
use std::path::Path;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(rulebook), Some(scenario)) = (args.get(1), args.get(2)) else {
        eprintln!("usage: speed RULEBOOK SCENARIO [GAMES]");
        std::process::exit(2);
    };
    let games: u64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(50);
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../rulebooks").join(rulebook);
    let Ok(sources) = kriegsspiel_compiler::load(&dir) else {
        eprintln!("{}: cannot load", dir.display());
        std::process::exit(2);
    };
    let Some(prog) = kriegsspiel_compiler::compile(&sources).program else {
        eprintln!("{rulebook} does not compile");
        std::process::exit(1);
    };
    let Some(code) = kriegsspiel_native_check::code(rulebook) else {
        eprintln!("{rulebook} is not bundled");
        std::process::exit(2);
    };
    let native = match Native::for_program(code, &prog) {
        Ok(n) => n,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    let only = args.get(4).map(String::as_str).filter(|o| *o != "both");
    let series = args.get(5).is_some_and(|s| s == "series");
    for (name, n) in [("vm", None), ("native", Some(native)), ("vm", None), ("native", Some(native))] {
        if only.is_some_and(|o| o != name) {
            continue;
        }
        let start = Instant::now();
        let mut instructions = 0;
        let mut run = Series::new(&prog);
        for seed in 1..=games {
            let opts = GameOptions {
                scenario: scenario.clone(),
                seed,
                log: false,
                native: n,
                ..GameOptions::default()
            };
            let played = if series { run.play(&opts) } else { play(&prog, &opts) };
            match played {
                Ok(o) => instructions += o.stats.instructions,
                Err(e) => {
                    eprintln!("{e}");
                    std::process::exit(1);
                }
            }
        }
        let per = start.elapsed().as_secs_f64() * 1000.0 / games as f64;
        println!(
            "{rulebook} {scenario} {name:>6}: {per:8.2} ms/game ({} instructions/game)",
            instructions / games
        );
    }
}
