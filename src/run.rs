//! `run RULEBOOK --scenario ID`: play one game and write its log, or with `--games N`
//! play N seeds (on several threads) and print a summary.

use crate::args::{self, AgentArg, Pair};
use crate::{build_config, out, Format, Ui};
use kriegsspiel_compiler::read_regular_file;
use kriegsspiel_runtime::game::{play, AgentKind, GameOptions, GameOutcome, Series};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Everything `run` was asked for (its arguments).
#[derive(clap::Args)]
pub(crate) struct RunArgs {
    /// A rulebook directory (all its .ks files) or a single .ks file.
    pub rulebook: PathBuf,
    /// Scenario id, e.g. 14.4 (an unknown id is refused with the list).
    #[arg(long)]
    pub scenario: String,
    /// Seed of the game's dice and random agents (with --games, of the first game).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// How many players: one of the counts the rulebook's `players` declaration offers
    /// (default: its first; without the declaration, one player per side).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u8).range(1..))]
    pub players: Option<u8>,
    /// Who decides for a side: SIDE=random|heuristic|scripted:FILE|search:N|search:N:H
    /// (repeatable; default random). search:N plays N playouts per decision
    /// (docs/search.md); search:N:H stops them H game turns on and scores them by the
    /// rulebook's `score`. With several sides to a player (`--players`), the player's agent: name
    /// any of its sides.
    #[arg(long = "agent", value_name = "SIDE=KIND", value_parser = args::parse_agent)]
    pub agents: Vec<(String, AgentArg)>,
    /// Switch a ruling to one of its alternatives: NAME=ALTERNATIVE (repeatable).
    #[arg(long = "ruling", value_name = "NAME=ALT", value_parser = args::parse_pair)]
    pub rulings: Vec<Pair>,
    /// Put an optional rule (an option or optional layer) in play (repeatable).
    #[arg(long = "option", value_name = "NAME")]
    pub options: Vec<String>,
    /// Write the log to FILE instead of standard output; with --games, a directory
    /// that receives one log per game (seed-N.jsonl).
    #[arg(long, value_name = "FILE|DIR")]
    pub log: Option<PathBuf>,
    /// Play N games (N >= 1) from seed, seed+1, ... and print a JSON summary instead of a log.
    #[arg(long, value_name = "N", value_parser = args::parse_games)]
    pub games: Option<u64>,
    /// With --games: play on this many threads (default: one per core). The summary
    /// does not depend on it.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=256))]
    pub jobs: Option<u64>,
    /// Print calls and VM instructions per rulebook function on stderr (with --games,
    /// summed over the games).
    #[arg(long)]
    pub profile: bool,
    /// Output: text (the game account, or the batch report), jsonl (one game's log as
    /// JSON Lines) or json (the batch report). Default: text on a terminal; piped, jsonl
    /// for one game and json with --games.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub format: Option<RunFormat>,
    /// With --games: also write the report as a self-contained HTML page with SVG plots.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Do not check the rulebook's invariants (faster; a game that keeps them plays the same).
    #[arg(long)]
    pub no_invariants: bool,
    /// Play with the rulebook compiled to Rust (docs/native.md): built once with cargo and
    /// cached by the program's hash; the same log as the VM's. Without a Rust toolchain
    /// it says so (W0010) and plays with the VM.
    #[arg(long)]
    pub native: bool,
    /// Write the log as this side saw it: other sides' hidden values, hands and sealed
    /// choices before their reveal taken out (the full log is the referee's record).
    #[arg(long, value_name = "SIDE")]
    pub view: Option<String>,
    /// With --games: play the same seeds twice, by the rulebook's defaults and with the
    /// --ruling and --option given, and say whether each result's rate moved beyond the
    /// noise (a paired sign test on the seeds whose result changed).
    #[arg(long)]
    pub compare: bool,
}

/// What `run` writes on standard output.
#[derive(Clone, Copy, clap::ValueEnum, PartialEq, Eq, Debug)]
pub(crate) enum RunFormat {
    /// For people: the game account, or the batch report.
    Text,
    /// One game's log, one JSON object per line (docs/language.md section 16).
    Jsonl,
    /// The batch report (--games) as one JSON document.
    Json,
}

/// The format asked for, or the default: text on a terminal, JSON when piped (as cargo
/// and other tools do).
pub(crate) fn resolve_format(asked: Option<RunFormat>, many: bool) -> RunFormat {
    use std::io::IsTerminal;
    match asked {
        Some(f) => f,
        None if std::io::stdout().is_terminal() => RunFormat::Text,
        None if many => RunFormat::Json,
        None => RunFormat::Jsonl,
    }
}

/// A saved run log, read whole: bounded, as every input is (docs/robustness.md).
/// Err(exit code) after saying why (E0704 too large, E0701 unreadable).
pub(crate) fn read_log(file: &Path) -> Result<String, u8> {
    const MAX_LOG_BYTES: u64 = 256 << 20;
    if let Ok(meta) = std::fs::metadata(file) {
        if meta.is_file() && meta.len() > MAX_LOG_BYTES {
            say!(
                "error[E0704]: {} is {} bytes; a run log may have at most {MAX_LOG_BYTES} bytes",
                file.display(),
                meta.len()
            );
            return Err(2);
        }
    }
    read_regular_file(file).map_err(|e| {
        say!("error[E0701]: {e}");
        2
    })
}

/// `log FILE.jsonl`: the saved log rendered as the account `run` prints.
pub(crate) fn cmd_log(file: &Path) -> u8 {
    let text = match read_log(file) {
        Ok(t) => t,
        Err(code) => return code,
    };
    match crate::account::render(&text) {
        Ok(account) => match out(&account) {
            Ok(()) => 0,
            Err(code) => code,
        },
        Err(bad) => {
            say!("error[E0705]: {}:{}: not a run log line: {}", file.display(), bad.line, bad.message);
            2
        }
    }
}

/// One function's profile: calls, instructions inclusive, instructions self.
type ProfileRow = (u64, u64, u64);

pub(crate) fn cmd_run(a: RunArgs, ui: Ui) -> u8 {
    // Arguments first: nothing is compiled for a run that cannot start.
    if let Some(n) = a.games {
        if a.seed.checked_add(n - 1).is_none() {
            say!(
                "error[E0703]: --games {n} from --seed {} goes past the largest seed ({}); \
                 the seeds would wrap around. Use --seed {} or lower",
                a.seed,
                u64::MAX,
                u64::MAX - (n - 1)
            );
            return 2;
        }
        if let Some(dir) = &a.log {
            if dir.exists() && !dir.is_dir() {
                say!(
                    "error[E0703]: with --games, --log names a directory for one log per game; {} is a file",
                    dir.display()
                );
                return 2;
            }
        }
        if a.format == Some(RunFormat::Jsonl) {
            say!("error[E0703]: --format jsonl is one game's log; with --games use --log DIR for the logs and text or json for the report");
            return 2;
        }
        if a.compare && a.rulings.is_empty() && a.options.is_empty() {
            say!("error[E0703]: --compare plays the rulebook's defaults against the --ruling and --option given; give at least one");
            return 2;
        }
    } else if a.compare {
        say!("error[E0703]: --compare only applies with --games (it compares two batches of the same seeds)");
        return 2;
    } else if a.jobs.is_some() {
        say!("error[E0703]: --jobs only applies with --games");
        return 2;
    } else if a.html.is_some() {
        say!("error[E0703]: --html (the batch report as a page) only applies with --games");
        return 2;
    } else if a.format == Some(RunFormat::Json) {
        say!("error[E0703]: --format json is the report of --games; one game's log is jsonl (or text, the account)");
        return 2;
    }
    let agents = match agent_kinds(&a.agents) {
        Ok(m) => m,
        Err(code) => return code,
    };
    let (_, c) = match build_config(&a.rulebook, Format::Human, Some(&a.options), ui) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let Some(prog) = c.program else {
        say!("error: the rulebook has errors; nothing to run");
        return 1;
    };
    if let Err(e) = crate::view::check(&prog, a.view.as_deref()) {
        say!("{e}");
        return 2;
    }
    if let Err(e) = kriegsspiel_runtime::players::Seating::for_count(&prog, a.players) {
        say!("error[E0703]: {e}");
        return 2;
    }
    // A natively built binary plays its own program natively; `--native` finds or builds
    // that binary and hands the run to it.
    let native = if a.native {
        match crate::native::run_native(&prog, &a.rulebook, &a.options, ui) {
            crate::native::Plan::Here(n) => Some(n),
            crate::native::Plan::Vm => None,
            crate::native::Plan::Ran(code) => return code,
        }
    } else {
        crate::native::built_in_for(&prog)
    };
    let base = GameOptions {
        native,
        scenario: a.scenario.clone(),
        seed: a.seed,
        agents,
        players: a.players,
        rulings: a.rulings.iter().cloned().collect(),
        options: a.options.iter().cloned().collect(),
        log: true,
        profile: a.profile,
        invariants: !a.no_invariants,
        source: Some(a.rulebook.display().to_string()),
        ..GameOptions::default()
    };
    if a.compare {
        let Some(n) = a.games else { return 2 };
        return crate::compare::cmd_compare(&prog, base, n, &a, ui);
    }
    match a.games {
        Some(n) => run_many(&prog, base, n, &a, ui),
        None => run_one(&prog, base, &a, ui),
    }
}

/// Turn the parsed `--agent` arguments into agent kinds, reading scripts.
fn agent_kinds(agents: &[(String, AgentArg)]) -> Result<BTreeMap<String, AgentKind>, u8> {
    let mut kinds = BTreeMap::new();
    for (side, arg) in agents {
        let k = match arg {
            AgentArg::Random => AgentKind::Random,
            AgentArg::Heuristic => AgentKind::Heuristic,
            AgentArg::Search(n, h) => AgentKind::Search(*n, *h),
            AgentArg::Scripted(file) => {
                let text = match read_regular_file(file) {
                    Ok(t) => t,
                    Err(e) => {
                        say!("error[E0701]: script: {e}");
                        return Err(2);
                    }
                };
                match kriegsspiel_runtime::agent::ScriptedAgent::parse_script(&text) {
                    Ok(mut m) => AgentKind::Scripted(m.remove(side).unwrap_or_default()),
                    Err(e) => {
                        say!("error: {}: {e}", file.display());
                        return Err(2);
                    }
                }
            }
        };
        kinds.insert(side.clone(), k);
    }
    Ok(kinds)
}

fn run_one(prog: &kriegsspiel_runtime::Program, opts: GameOptions, a: &RunArgs, ui: Ui) -> u8 {
    // With --log FILE the log is in the file; standard output gets the account only when
    // asked for (--format text). Without it, the format asked or the default.
    let shown = match (&a.log, a.format) {
        (Some(_), Some(RunFormat::Text)) => Some(RunFormat::Text),
        (Some(_), _) => None,
        (None, f) => Some(resolve_format(f, false)),
    };
    // The full log (no --view) is streamed as the game runs: to the --log file, or to
    // standard output when that shows the JSON Lines; a view or the account needs the
    // whole log first.
    let sink: Option<Box<dyn std::io::Write + Send>> = match (&a.log, &a.view, shown) {
        (Some(f), None, _) => match std::fs::File::create(f) {
            Ok(file) => Some(Box::new(std::io::BufWriter::new(file))),
            Err(e) => {
                say!("error[E0702]: cannot write {}: {e}", f.display());
                return 2;
            }
        },
        (None, None, Some(RunFormat::Jsonl)) => Some(Box::new(std::io::BufWriter::new(std::io::stdout()))),
        _ => None,
    };
    let streamed = sink.is_some();
    let played = match sink {
        Some(w) => kriegsspiel_runtime::game::play_streamed(prog, &opts, w),
        None => play(prog, &opts),
    };
    let outcome = match played {
        Ok(o) => o,
        Err(e) => {
            say!("error: {e}");
            return 2;
        }
    };
    if a.profile {
        let rows = outcome.profile.iter().map(|(n, c, i, s)| (n.clone(), (*c, *i, *s))).collect();
        print_profile(rows);
    }
    match (&outcome.log_error, &a.log) {
        (Some(e), _) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        (Some(e), Some(f)) => {
            say!("error[E0702]: cannot write {}: {e}", f.display());
            return 2;
        }
        (Some(e), None) => {
            say!("error[E0702]: cannot write output: {e}");
            return 2;
        }
        (None, _) => {}
    }
    // The log as the viewing side saw it (--view), else the referee's full record; a
    // streamed log is read back from its file only when the account is asked for.
    let text = match (streamed, &a.log) {
        (true, Some(f)) if shown == Some(RunFormat::Text) => match std::fs::read_to_string(f) {
            Ok(t) => t,
            Err(e) => {
                say!("error[E0702]: cannot read back {}: {e}", f.display());
                return 2;
            }
        },
        (true, _) => String::new(),
        (false, _) => crate::view::text(prog, a.view.as_deref(), &outcome.log),
    };
    if let (false, Some(f)) = (streamed, &a.log) {
        if let Err(e) = std::fs::write(f, &text) {
            say!("error[E0702]: cannot write {}: {e}", f.display());
            return 2;
        }
    }
    let written = match shown {
        _ if streamed && shown != Some(RunFormat::Text) => Ok(()),
        Some(RunFormat::Text) => match crate::account::render(&text) {
            Ok(account) => out(&account),
            Err(bad) => {
                say!("error: the run log cannot be rendered (line {}: {})", bad.line, bad.message);
                Err(2)
            }
        },
        Some(_) => out(&text),
        None => Ok(()),
    };
    if let Err(code) = written {
        return code;
    }
    match outcome.result {
        Ok(r) => {
            if a.log.is_some() && !ui.quiet {
                let who = r.winner.clone().unwrap_or_else(|| "draw".into());
                say!("result: {who} — {} (§{}), turn {}", r.reason, r.para, r.turn);
            }
            0
        }
        Err(e) => {
            say!("{e}");
            1
        }
    }
}

/// The profile table on stderr, most expensive (self) first, at most 30 rows.
fn print_profile(rows: Vec<(String, ProfileRow)>) {
    let mut rows = rows;
    rows.sort_by(|x, y| y.1 .2.cmp(&x.1 .2).then_with(|| x.0.cmp(&y.0)));
    say!(
        "{:>10} {:>14} {:>14}  function (VM instructions; self = excluding callees)",
        "calls",
        "inclusive",
        "self"
    );
    for (name, (calls, inclusive, own)) in rows.iter().take(30) {
        say!("{calls:>10} {inclusive:>14} {own:>14}  {name}");
    }
}

/// What one game of a batch left for the summary.
struct GameRecord {
    seed: u64,
    outcome: Result<GameOutcome, String>,
    /// A log that could not be written to the `--log` directory.
    write_error: Option<String>,
    /// Wall-clock seconds the game took.
    seconds: f64,
}

/// The games of a batch, in seed order, for the report.
pub(crate) struct Batch {
    pub outcomes: Vec<(GameOutcome, f64)>,
    /// Games that stopped with a runtime error (they are in `outcomes` too).
    pub errors: u64,
    /// The invariants' summary for the report.
    pub invariants: serde_json::Value,
    /// Wall-clock seconds for the whole batch, and the threads it ran on.
    pub seconds: f64,
    pub threads: usize,
}

impl Batch {
    /// The balance report (docs/cli.md) of this batch.
    pub(crate) fn report(
        &self,
        prog: &kriegsspiel_runtime::Program,
        base: &GameOptions,
        n: u64,
    ) -> serde_json::Value {
        let played: Vec<crate::balance::Played> = self
            .outcomes
            .iter()
            .map(|(o, secs)| crate::balance::Played { outcome: o, seconds: *secs })
            .collect();
        crate::balance::report(
            prog,
            &base.scenario,
            base.seed,
            n,
            &played,
            self.errors,
            self.invariants.clone(),
            self.seconds,
            self.threads,
        )
    }
}

/// Play seeds `base.seed..base.seed + n` on the thread pool (`--jobs`), writing each
/// game's log into `log_dir` when given; runtime errors are said on stderr with their
/// seed. Err(exit code) when the batch cannot run or a log cannot be written.
pub(crate) fn play_batch(
    prog: &kriegsspiel_runtime::Program,
    base: &GameOptions,
    n: u64,
    a: &RunArgs,
    log_dir: Option<&Path>,
    label: &str,
    ui: Ui,
) -> Result<Batch, u8> {
    if let Some(dir) = log_dir {
        if let Err(e) = std::fs::create_dir_all(dir) {
            say!("error[E0702]: cannot create {}: {e}", dir.display());
            return Err(2);
        }
    }
    let pool = match rayon::ThreadPoolBuilder::new().num_threads(a.jobs.unwrap_or(0) as usize).build() {
        Ok(p) => p,
        Err(e) => {
            say!("error: cannot start the worker threads: {e}");
            return Err(2);
        }
    };
    let bar = if ui.quiet {
        indicatif::ProgressBar::hidden()
    } else {
        // Drawn on a terminal only (indicatif hides it when stderr is not one).
        let b = indicatif::ProgressBar::new(n);
        if let Ok(style) =
            indicatif::ProgressStyle::with_template("{msg} {bar:40} {pos}/{len} games, {eta} left")
        {
            b.set_style(style);
        }
        b.set_message(format!("scenario {}{label}", base.scenario));
        b
    };
    let start = std::time::Instant::now();
    // Each game is seeded; results are collected in seed order. Runs of `series` seeds
    // are played in one `Series` (each game hands the next its movement-cost memo, which
    // changes no game, only the instructions and calls counted): the runs depend on `n`
    // alone, so the summary is the same whatever the number of threads.
    let series = series_length(n);
    let records: Vec<GameRecord> = pool.install(|| {
        (0..n.div_ceil(series))
            .into_par_iter()
            .flat_map_iter(|run| {
                let mut games = Series::new(prog);
                let bar = &bar;
                (run * series..n.min((run + 1) * series)).map(move |i| {
                    let seed = base.seed + i;
                    let opts =
                        GameOptions { seed, log: log_dir.is_some(), rules_fired: true, ..base.clone() };
                    let t0 = std::time::Instant::now();
                    // Without --view each game's log streams to its file as the game runs.
                    let path = log_dir.map(|dir| dir.join(format!("seed-{seed}.jsonl")));
                    let (outcome, mut write_error) = match (&path, &a.view) {
                        (Some(p), None) => play_to_file(&mut games, &opts, p),
                        _ => (games.play(&opts), None),
                    };
                    let seconds = t0.elapsed().as_secs_f64();
                    if let (Ok(o), Some(p), Some(_)) = (&outcome, &path, &a.view) {
                        write_error = write_game_log(p, o, prog, a.view.as_deref()).err();
                    }
                    bar.inc(1);
                    GameRecord { seed, outcome, write_error, seconds }
                })
            })
            .collect()
    });
    bar.finish_and_clear();
    let secs = start.elapsed().as_secs_f64();

    let mut errors = 0u64;
    // Broken invariants (R0015) by invariant name; they count among the errors too.
    let mut violations: BTreeMap<String, u64> = BTreeMap::new();
    let mut profile: BTreeMap<String, ProfileRow> = BTreeMap::new();
    let mut outcomes = Vec::with_capacity(records.len());
    for r in records {
        let o = match r.outcome {
            Ok(o) => o,
            Err(e) => {
                say!("error: {e}");
                return Err(2);
            }
        };
        if let Some(e) = r.write_error {
            say!("error[E0702]: {e}");
            return Err(2);
        }
        for (name, calls, inclusive, own) in &o.profile {
            let row = profile.entry(name.clone()).or_default();
            row.0 += calls;
            row.1 += inclusive;
            row.2 += own;
        }
        if let Err(e) = &o.result {
            errors += 1;
            if e.code == "R0015" {
                *violations.entry(e.function.clone()).or_default() += 1;
            }
            say!("seed {}: {e}", r.seed);
        }
        outcomes.push((o, r.seconds));
    }
    if a.profile {
        print_profile(profile.into_iter().collect());
    }
    let invariants = if !a.no_invariants {
        serde_json::json!({ "checked": prog.invariants.len(), "violations": violations })
    } else {
        serde_json::json!("not checked")
    };
    Ok(Batch { outcomes, errors, invariants, seconds: secs, threads: pool.current_num_threads() })
}

fn run_many(prog: &kriegsspiel_runtime::Program, base: GameOptions, n: u64, a: &RunArgs, ui: Ui) -> u8 {
    let batch = match play_batch(prog, &base, n, a, a.log.as_deref(), "", ui) {
        Ok(b) => b,
        Err(code) => return code,
    };
    let report = batch.report(prog, &base, n);
    if let Some(file) = &a.html {
        if let Err(e) = std::fs::write(file, crate::balance::html(&report)) {
            say!("error[E0702]: cannot write {}: {e}", file.display());
            return 2;
        }
    }
    let text = match resolve_format(a.format, true) {
        RunFormat::Text => crate::balance::text(&report),
        _ => format!("{report}\n"),
    };
    if let Err(code) = out(&text) {
        return code;
    }
    if batch.errors > 0 {
        1
    } else {
        0
    }
}

/// Play one game streaming its log into the file `path`; the game's outcome and, if
/// the file could not be written, why.
fn play_to_file(
    games: &mut Series,
    opts: &GameOptions,
    path: &Path,
) -> (Result<GameOutcome, String>, Option<String>) {
    let cannot = |e: &dyn std::fmt::Display| format!("cannot write {}: {e}", path.display());
    match std::fs::File::create(path) {
        Ok(f) => {
            let o = games.play_streamed(opts, Box::new(std::io::BufWriter::new(f)));
            let e = o.as_ref().ok().and_then(|o| o.log_error.as_ref()).map(|e| cannot(e));
            (o, e)
        }
        Err(e) => (games.play(opts), Some(cannot(&e))),
    }
}

/// How many consecutive seeds of a batch of `n` games one [`Series`] plays: up to 16,
/// and at least 16 runs for the threads to share when `n` allows. A function of `n`
/// alone, so that what each game is handed is the same whatever the number of threads.
fn series_length(n: u64) -> u64 {
    (n / 16).clamp(1, 16)
}

/// Write one game's whole log (as `view` saw it) to the file `path`.
fn write_game_log(
    path: &Path,
    o: &GameOutcome,
    prog: &kriegsspiel_runtime::Program,
    view: Option<&str>,
) -> Result<(), String> {
    std::fs::write(path, crate::view::text(prog, view, &o.log))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}
