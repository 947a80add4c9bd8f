//! `cargo run --release -p kriegsspiel-bench --bin report`: every figure of issues 5 and
//! 17 in one run (the VM, native code, hand-written Rust and Rhai), printed as a
//! markdown table with the ratios, the machine and the commit.
//!
//! Options: `--quick` (fewer repetitions, for a smoke test); `--play SCENARIO N` (only
//! play N games) and `--attack N [--native]` (only N sweeps of the attack situations on
//! the VM, or on native code), for `perf record`.

use kriegsspiel_bench::attack::{Bench, Impl, SITUATIONS};
use kriegsspiel_bench::timing::{human, median, median_of, ns};
use kriegsspiel_bench::{games, machine, peter, peter_with_bench, playable, PETER};
use kriegsspiel_runtime::game::{GameOptions, Series};
use kriegsspiel_runtime::op::Op;
use kriegsspiel_runtime::state::{State, UnitState};
use kriegsspiel_runtime::Value;
use peak_alloc::PeakAlloc;
use std::time::{Duration, Instant};

/// Counts the bytes allocated now and at the peak (for one game's peak memory).
#[global_allocator]
static ALLOC: PeakAlloc = PeakAlloc;

struct Row {
    figure: String,
    value: String,
    how: &'static str,
}

fn row(rows: &mut Vec<Row>, figure: impl Into<String>, value: impl Into<String>, how: &'static str) {
    rows.push(Row { figure: figure.into(), value: value.into(), how });
}

const REPORT: &str = "report";
const ATTACK: &str = "bench attack";
const GAMES: &str = "bench games";
const CHECK: &str = "bench check";

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(|a| a == "--play").unwrap_or(false) {
        let scenario = args.get(1).map(|s| s.as_str()).unwrap_or("14.4");
        let n: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(200);
        let prog = peter();
        let t = Instant::now();
        let mut decisions = 0;
        for seed in 1..=n {
            decisions += games::play(&prog, scenario, seed).stats.decisions;
        }
        let el = t.elapsed();
        println!(
            "{n} games of {scenario} in {}: {} per game, {decisions} decisions",
            human(el),
            human(el / n as u32)
        );
        return;
    }
    if args.first().map(|a| a == "--attack").unwrap_or(false) {
        let n: u32 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(200);
        let native = args.iter().any(|a| a == "--native");
        let (which, on) = if native { (Impl::Native, "native code") } else { (Impl::Vm, "the VM") };
        let prog = peter_with_bench();
        let mut bench = Bench::new(&prog, SITUATIONS);
        let mut total = Duration::ZERO;
        for _ in 0..n {
            total += bench.sweep(which).0;
        }
        println!(
            "{n} sweeps of {SITUATIONS} attacks on {on}: {} per attack",
            human(total / n / SITUATIONS as u32)
        );
        return;
    }
    let quick = args.iter().any(|a| a == "--quick");
    let reps = if quick { 5 } else { 31 };
    let mut rows = Vec::new();

    // ------------------------------------------------------------ 1. attack resolution
    let bprog = peter_with_bench();
    let mut bench = Bench::new(&bprog, SITUATIONS);
    let results = bench.check_agreement();
    let mut codes: Vec<u16> = results.clone();
    codes.sort();
    codes.dedup();
    let ins0: u64 = bench.boards.iter().map(|b| b.session.instructions()).sum();
    let with_native = bench.native.is_some();
    let impls: Vec<Impl> = if with_native {
        vec![Impl::Vm, Impl::Native, Impl::Hand, Impl::Rhai]
    } else {
        vec![Impl::Vm, Impl::Hand, Impl::Rhai]
    };
    for &which in &impls {
        let (_, r) = bench.sweep(which); // warm-up, and the benchmark checks agreement too
        assert_eq!(r, results, "{which:?} disagrees with the VM");
    }
    // A sweep resolves every situation twice (once untimed to warm the board).
    let ins1: u64 = bench.boards.iter().map(|b| b.session.instructions()).sum();
    // (The native sweep counts its instructions too: halve the VM's and native's.)
    let runs = if with_native { 4.0 } else { 2.0 };
    let ins_per_attack = (ins1 - ins0) as f64 / runs / SITUATIONS as f64;
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); impls.len()];
    for _ in 0..reps {
        for (i, &which) in impls.iter().enumerate() {
            let (t, r) = bench.sweep(which);
            assert_eq!(r, results, "{which:?} disagrees with the VM");
            times[i].push(t);
        }
    }
    let n = SITUATIONS as f64;
    let per = |which: Impl| -> Option<f64> {
        let i = impls.iter().position(|&w| w == which)?;
        Some(ns(median(times[i].clone())) / n)
    };
    let (vm, hand, rhai) =
        (per(Impl::Vm).unwrap_or(0.0), per(Impl::Hand).unwrap_or(0.0), per(Impl::Rhai).unwrap_or(0.0));
    let native = per(Impl::Native);
    let cov = bench.coverage();
    row(
        &mut rows,
        format!("attack situations ({} boards; all three agree)", bench.boards.len()),
        format!(
            "{SITUATIONS}: {} result codes; across stream {}, entrenchment {}, redoubt {}, woods/buildings {}, demoralized {}, leader bonus {}",
            codes.len(), cov.stream, cov.entrenchment, cov.redoubt, cov.cover, cov.demoralized, cov.leaders
        ),
        REPORT,
    );
    row(&mut rows, "attack resolution, (a) VM", format!("{vm:.0} ns ({:.2} M/s)", 1e3 / vm), ATTACK);
    row(
        &mut rows,
        "attack resolution, (b) hand-written Rust",
        format!("{hand:.0} ns ({:.2} M/s)", 1e3 / hand),
        ATTACK,
    );
    row(&mut rows, "attack resolution, (c) Rhai", format!("{rhai:.0} ns ({:.3} M/s)", 1e3 / rhai), ATTACK);
    match native {
        Some(nat) => {
            row(
                &mut rows,
                "attack resolution, (d) native code (`kriegsspiel build`)",
                format!("{nat:.0} ns ({:.2} M/s)", 1e3 / nat),
                ATTACK,
            );
            row(
                &mut rows,
                "ratio native / hand-written (issue 17 target <= 1.5)",
                format!("{:.2}x", nat / hand),
                REPORT,
            );
            row(&mut rows, "ratio VM / native", format!("{:.2}x", vm / nat), REPORT);
        }
        None => row(&mut rows, "attack resolution, (d) native code", "not built", REPORT),
    }
    row(&mut rows, "ratio VM / hand-written (target <= 2)", format!("{:.2}x", vm / hand), REPORT);
    row(&mut rows, "ratio Rhai / VM (target >= 10)", format!("{:.2}x", rhai / vm), REPORT);
    row(&mut rows, "VM instructions per attack resolution", format!("{ins_per_attack:.0}"), REPORT);
    drop(bench);

    // ------------------------------------------------------------ 2. whole games
    let prog = peter();
    let mut game_14_4 = f64::MAX;
    let mut native_14_4: Option<f64> = None;
    for (label, prog) in playable() {
        let native = kriegsspiel_bench::native_for(label, &prog);
        for scenario in games::scenarios(&prog) {
            let name = format!("{label}{scenario}");
            let budget = if quick { Duration::from_millis(500) } else { Duration::from_secs(3) };
            let (times, decisions, instructions, errors) = time_games(&prog, &scenario, None, budget);
            if let Some(nat) = native {
                let (ntimes, _, _, _) = time_games(&prog, &scenario, Some(nat), budget);
                let nmed = median(ntimes.clone());
                let ntotal: Duration = ntimes.iter().sum();
                if name == "14.4" {
                    native_14_4 = Some(ns(nmed) / 1e6);
                }
                row(
                    &mut rows,
                    format!(
                        "{name}: one game, random agents, native code (median of {} seeds)",
                        ntimes.len()
                    ),
                    format!("{} (mean {})", human(nmed), human(ntotal / ntimes.len() as u32)),
                    REPORT,
                );
                row(
                    &mut rows,
                    format!("{name}: VM / native, one game (medians)"),
                    format!("{:.2}x", ns(median(times.clone())) / ns(nmed)),
                    REPORT,
                );
            }
            // A batch (`run --games`) plays its games as a series, each handing the next
            // its movement-cost memo: the same games, fewer instructions.
            if name == "14.4" {
                let backends = [Some(("VM", None)), native.map(|n| ("native code", Some(n)))];
                for (on, n) in backends.into_iter().flatten() {
                    let st = time_series(&prog, &scenario, n, budget);
                    row(
                        &mut rows,
                        format!(
                            "{name}: one game of a series (as `run --games` plays them), {on} (median of {} seeds)",
                            st.len()
                        ),
                        human(median(st)),
                        REPORT,
                    );
                }
            }
            let total: Duration = times.iter().sum();
            let g = times.len() as f64;
            let med = median(times.clone());
            if name == "14.4" {
                game_14_4 = ns(med) / 1e6;
            }
            let secs = total.as_secs_f64();
            row(
                &mut rows,
                format!("{name}: one game, random agents (median of {} seeds)", times.len()),
                format!("{} (mean {})", human(med), human(total / times.len() as u32)),
                GAMES,
            );
            row(&mut rows, format!("{name}: games per second, one core"), format!("{:.0}", g / secs), REPORT);
            row(
                &mut rows,
                format!("{name}: decisions per second"),
                format!("{:.0} ({:.0} per game)", decisions as f64 / secs, decisions as f64 / g),
                REPORT,
            );
            row(
                &mut rows,
                format!("{name}: VM instructions per second"),
                format!(
                    "{:.0} M ({:.0} k per game)",
                    instructions as f64 / secs / 1e6,
                    instructions as f64 / g / 1e3
                ),
                REPORT,
            );
            if errors > 0 {
                row(
                    &mut rows,
                    format!("{name}: games ending in a runtime error"),
                    format!("{errors}"),
                    REPORT,
                );
            }
        }
    }

    // ------------------------------------------------------------ check time
    let mut check_max = 0f64;
    for (name, rel) in kriegsspiel_bench::rulebooks() {
        let path = kriegsspiel_bench::repo_root().join(&rel);
        let Ok(sources) = kriegsspiel_compiler::load(&path) else { continue };
        let load = median_of(reps, || kriegsspiel_compiler::load(&path).expect("load"));
        if kriegsspiel_compiler::compile(&sources).program.is_none() {
            row(&mut rows, format!("check {name}"), "does not compile (not timed)", REPORT);
            continue;
        }
        let compile = median_of(if quick { 3 } else { 15 }, || kriegsspiel_compiler::compile(&sources));
        let total = ns(load + compile) / 1e6;
        check_max = check_max.max(total);
        row(&mut rows, format!("check {name}: load (read files)"), human(load), REPORT);
        row(
            &mut rows,
            format!("check {name}: compile (parse, check, codegen, verify, examples)"),
            human(compile),
            CHECK,
        );
        row(&mut rows, format!("check {name}: total (target < 20 ms)"), format!("{total:.2} ms"), REPORT);
    }

    // ------------------------------------------------------------ memory and state size
    let base = ALLOC.current_usage();
    ALLOC.reset_peak_usage();
    let out = games::play(&prog, "14.4", 1);
    let peak = ALLOC.peak_usage() - base;
    drop(out);
    row(
        &mut rows,
        "14.4: peak heap of one game (seed 1, no log)",
        format!("{:.1} KiB", peak as f64 / 1024.0),
        REPORT,
    );
    let base = ALLOC.current_usage();
    ALLOC.reset_peak_usage();
    let sources = kriegsspiel_compiler::load(&kriegsspiel_bench::repo_root().join(PETER)).expect("load");
    let c = kriegsspiel_compiler::compile(&sources);
    let peak_c = ALLOC.peak_usage() - base;
    drop(c);
    row(
        &mut rows,
        "peter-the-great: peak heap of compile",
        format!("{:.1} MiB", peak_c as f64 / 1048576.0),
        REPORT,
    );

    for scenario in games::scenarios(&prog) {
        let si = prog.scenario(&scenario).expect("scenario");
        let st = State::new(&prog, &prog.scenarios[si]);
        let mut per = Vec::new();
        for _ in 0..reps {
            let i = Instant::now();
            for _ in 0..100 {
                std::hint::black_box(std::hint::black_box(&st).clone());
            }
            per.push(i.elapsed() / 100);
        }
        row(
            &mut rows,
            format!("{scenario}: game state, State::size_bytes()"),
            format!(
                "{} bytes ({} units, {} hexes); clone {}",
                st.size_bytes(),
                st.units.len(),
                st.hex_markers.len(),
                human(median(per))
            ),
            REPORT,
        );
    }
    row(
        &mut rows,
        "size_of State / UnitState / Value / Op",
        format!(
            "{} / {} / {} / {} bytes",
            std::mem::size_of::<State>(),
            std::mem::size_of::<UnitState>(),
            std::mem::size_of::<Value>(),
            std::mem::size_of::<Op>()
        ),
        REPORT,
    );

    // ------------------------------------------------------------ print
    println!("# kriegsspiel performance report\n");
    println!("- machine: {}", machine::description());
    println!("- commit: {}", machine::commit());
    println!(
        "- command: `cargo run --release -p kriegsspiel-bench --bin report`{}",
        if quick { " -- --quick" } else { "" }
    );
    println!("- timing: std::time::Instant, median of {reps} repetitions (games: every game timed, median and mean)\n");
    println!("| figure | value | reproduce |");
    println!("|---|---|---|");
    for r in &rows {
        let how = match r.how {
            ATTACK => "`cargo bench -p kriegsspiel-bench --bench attack`",
            GAMES => "`cargo bench -p kriegsspiel-bench --bench games`",
            CHECK => "`cargo bench -p kriegsspiel-bench --bench check`",
            _ => "report",
        };
        println!("| {} | {} | {} |", r.figure, r.value, how);
    }
    println!("\n## Targets (issue 5)\n");
    println!("| target | measured | met |");
    println!("|---|---|---|");
    let yes = |b: bool| if b { "yes" } else { "no" };
    println!(
        "| VM within 2x of hand-written Rust on the attack resolution | {:.2}x | {} |",
        vm / hand,
        yes(vm / hand <= 2.0)
    );
    println!(
        "| VM at least 10x faster than Rhai on the attack resolution | {:.2}x | {} |",
        rhai / vm,
        yes(rhai / vm >= 10.0)
    );
    println!(
        "| a complete 14.4 game with random agents under 5 ms | {game_14_4:.2} ms (median) | {} |",
        yes(game_14_4 < 5.0)
    );
    println!(
        "| `check` of any rulebook under 20 ms | {check_max:.2} ms (slowest) | {} |",
        yes(check_max < 20.0)
    );
    println!("\n## Targets (issue 17)\n");
    println!("| target | measured | met |");
    println!("|---|---|---|");
    match native {
        Some(nat) => println!(
            "| attack resolution, native within 1.5x of hand-written Rust | {:.2}x | {} |",
            nat / hand,
            yes(nat / hand <= 1.5)
        ),
        None => println!("| attack resolution, native within 1.5x of hand-written Rust | not built | no |"),
    }
    match native_14_4 {
        Some(t) => println!(
            "| one 14.4 game, random agents, native, under 3 ms | {t:.2} ms (median) | {} |",
            yes(t <= 3.0)
        ),
        None => println!("| one 14.4 game, random agents, native, under 3 ms | not built | no |"),
    }
    println!(
        "| one 14.4 game, random agents, VM, under 15 ms | {game_14_4:.2} ms (median) | {} |",
        yes(game_14_4 <= 15.0)
    );
    println!(
        "| `check` of the slowest rulebook under 10 ms on one core | {check_max:.2} ms (this run's cores; `taskset -c 0` for one) | {} |",
        yes(check_max <= 10.0)
    );
}

/// [`time_games`]' games (without the warm-up) played as one [`Series`]: each game's time.
fn time_series(
    prog: &kriegsspiel_runtime::Program,
    scenario: &str,
    native: Option<kriegsspiel_runtime::native::Native>,
    budget: Duration,
) -> Vec<Duration> {
    let mut series = Series::new(prog);
    let mut times = Vec::new();
    let start = Instant::now();
    let mut seed = 0u64;
    while (start.elapsed() < budget || times.len() < 20) && times.len() < 2000 {
        seed += 1;
        let opts =
            GameOptions { scenario: scenario.to_string(), seed, log: false, native, ..Default::default() };
        let t = Instant::now();
        series.play(&opts).unwrap_or_else(|e| panic!("cannot play {scenario}: {e}"));
        times.push(t.elapsed());
    }
    times
}

/// Games of `scenario` with random agents, seeds from 1, for at least `budget` and 20
/// games (at most 2000), after three warm-up games: each game's time, and the
/// decisions, instructions and runtime errors over them all.
fn time_games(
    prog: &kriegsspiel_runtime::Program,
    scenario: &str,
    native: Option<kriegsspiel_runtime::native::Native>,
    budget: Duration,
) -> (Vec<Duration>, u64, u64, usize) {
    for seed in 1..=3 {
        games::play_native(prog, scenario, 1000 + seed, native); // warm-up
    }
    let (mut times, mut decisions, mut instructions, mut errors) = (Vec::new(), 0u64, 0u64, 0);
    let start = Instant::now();
    let mut seed = 0u64;
    while (start.elapsed() < budget || times.len() < 20) && times.len() < 2000 {
        seed += 1;
        let t = Instant::now();
        let out = games::play_native(prog, scenario, seed, native);
        times.push(t.elapsed());
        decisions += out.stats.decisions;
        instructions += out.stats.instructions;
        errors += out.result.is_err() as usize;
    }
    (times, decisions, instructions, errors)
}
