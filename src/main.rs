//! The `kriegsspiel` command line: check, run, text, disasm (see docs/cli.md).
//!
//! Exit codes: 0 success, 1 the rulebook or text has errors (or a game failed at run
//! time), 2 bad usage, unreadable input or output that cannot be written (see
//! docs/robustness.md).

use clap::{Parser, Subcommand, ValueEnum};
use kriegsspiel_compiler::{compile, load_files, read_regular_file, Compilation};
use kriegsspiel_dsl::diag::{capped, not_shown_line};
use kriegsspiel_dsl::SourceMap;
use kriegsspiel_runtime::game::{play, AgentKind, GameOptions};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// `eprintln!` that cannot panic: a message that cannot be written to stderr is dropped
/// (there is nowhere left to report it; the exit code still says what happened).
macro_rules! say {
    ($($arg:tt)*) => {{
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

#[derive(Parser)]
#[command(name = "kriegsspiel", version, about = "Compiler and VM for the rules of hex-and-counter wargames")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum Format {
    Human,
    Json,
}

#[derive(Subcommand)]
enum Cmd {
    /// Compile a rulebook, run its examples, and report coverage and provenance.
    Check {
        /// A rulebook directory (all its .ks files) or a single .ks file.
        rulebook: PathBuf,
        /// Also check the encoding against the rulebook's own text and report rules coverage.
        #[arg(long)]
        text: Option<PathBuf>,
        #[arg(long, value_enum, default_value = "human")]
        format: Format,
    },
    /// Play a scenario headlessly and write the JSON Lines log.
    Run {
        rulebook: PathBuf,
        /// Scenario id, e.g. 14.4.
        #[arg(long)]
        scenario: String,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// SIDE=random|heuristic|scripted:FILE (repeatable; default random).
        #[arg(long = "agent", value_name = "SIDE=KIND")]
        agents: Vec<String>,
        /// NAME=ALTERNATIVE to switch a ruling (repeatable).
        #[arg(long = "ruling", value_name = "NAME=ALT")]
        rulings: Vec<String>,
        /// Put an optional rule in play (repeatable).
        #[arg(long = "option", value_name = "NAME")]
        options: Vec<String>,
        /// Write the log to FILE instead of standard output.
        #[arg(long)]
        log: Option<PathBuf>,
        /// Play N games from seed, seed+1, ... and print a summary instead of a log.
        #[arg(long)]
        games: Option<u64>,
        /// Print calls and VM instructions per rulebook function on stderr.
        #[arg(long)]
        profile: bool,
        /// Do not check the rulebook's invariants (faster; a game that keeps them plays the same).
        #[arg(long)]
        no_invariants: bool,
    },
    /// Lint a rulebook's prose: numbering, cross-references, dice tables.
    Text {
        path: PathBuf,
        /// Print the paragraph index.
        #[arg(long)]
        index: bool,
        /// Numbering style (default: detected).
        #[arg(long)]
        style: Option<String>,
        #[arg(long, value_enum, default_value = "human")]
        format: Format,
    },
    /// Print the compiled bytecode.
    Disasm { rulebook: PathBuf },
    /// Run the language server on standard input and output (for editors; docs/editors.md).
    Lsp,
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    let code = match cli.cmd {
        Cmd::Check { rulebook, text, format } => cmd_check(&rulebook, text.as_deref(), format),
        Cmd::Run {
            rulebook,
            scenario,
            seed,
            agents,
            rulings,
            options,
            log,
            games,
            profile,
            no_invariants,
        } => cmd_run(
            &rulebook,
            scenario,
            seed,
            &agents,
            &rulings,
            &options,
            log,
            games,
            profile,
            !no_invariants,
        ),
        Cmd::Text { path, index, style, format } => {
            let opts = kriegsspiel_text::TextOptions { path, index, json: format == Format::Json, style };
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            let mut err = std::io::BufWriter::new(std::io::stderr().lock());
            kriegsspiel_text::run_cli(&opts, &mut out, &mut err).clamp(0, 255) as u8
        }
        Cmd::Disasm { rulebook } => match build(&rulebook, Format::Human) {
            Ok((_, c)) => match &c.program {
                Some(p) => match out(&kriegsspiel_runtime::disasm::disassemble(p)) {
                    Ok(()) => 0,
                    Err(code) => code,
                },
                None => 1,
            },
            Err(code) => code,
        },
        Cmd::Lsp => kriegsspiel_lsp::run_stdio(),
    };
    ExitCode::from(code)
}

/// Load and compile as `check` does; prints diagnostics. Err(exit code) when unreadable.
fn build(path: &std::path::Path, format: Format) -> Result<(SourceMap, Compilation), u8> {
    build_config(path, format, None)
}

/// Load and compile, with these optional layers in play when `options` is given (the
/// configuration a run plays); prints diagnostics (at most `MAX_SHOWN_PER_CODE` of each
/// code, then a count of the rest). Err(exit code) when unreadable.
fn build_config(
    path: &std::path::Path,
    format: Format,
    options: Option<&[String]>,
) -> Result<(SourceMap, Compilation), u8> {
    let sources = match load_files(path) {
        Ok((s, skipped)) => {
            for f in skipped {
                say!(
                    "warning[W0006]: skipped {}: not a regular file (a FIFO, socket or device)",
                    f.display()
                );
            }
            s
        }
        Err(e) => {
            say!("error[{}]: {}", e.code, e.message);
            return Err(2);
        }
    };
    let c = match options {
        Some(on) => kriegsspiel_compiler::compile_with(&sources, on),
        None => compile(&sources),
    };
    if format == Format::Human {
        let (shown, rest) = capped(&c.diagnostics);
        let mut err = std::io::stderr().lock();
        for d in shown {
            let _ = err.write_all(d.render(&sources).as_bytes());
        }
        for (code, n) in rest {
            let _ = err.write_all(not_shown_line(code, n).as_bytes());
        }
    }
    Ok((sources, c))
}

fn cmd_check(path: &std::path::Path, text: Option<&std::path::Path>, format: Format) -> u8 {
    let (sources, c) = match build(path, format) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let errors = c.diagnostics.iter().filter(|d| d.is_error()).count();
    let warnings = c.diagnostics.len() - errors;
    let coverage = match text {
        None => None,
        Some(tp) => {
            let src = match read_regular_file(tp) {
                Ok(s) => s,
                Err(e) => {
                    say!("error[E0701]: {e}");
                    return 2;
                }
            };
            let encoded: Vec<kriegsspiel_text::EncodedParagraph> = c
                .report
                .contents
                .iter()
                .map(|(n, t, s)| kriegsspiel_text::EncodedParagraph {
                    number: n.clone(),
                    title: t.clone(),
                    status: match s {
                        kriegsspiel_compiler::ContentStatus::Encoded => {
                            kriegsspiel_text::EncodedStatus::Encoded
                        }
                        kriegsspiel_compiler::ContentStatus::Waived(w) => {
                            kriegsspiel_text::EncodedStatus::Waived(w.clone())
                        }
                        kriegsspiel_compiler::ContentStatus::Superseded(by) => {
                            kriegsspiel_text::EncodedStatus::Waived(format!("superseded by §{by}"))
                        }
                        kriegsspiel_compiler::ContentStatus::Missing => {
                            kriegsspiel_text::EncodedStatus::Listed
                        }
                    },
                })
                .collect();
            match kriegsspiel_text::coverage(&src, None, &encoded) {
                Ok(r) => Some(r),
                Err(e) => {
                    say!("error: {e}");
                    return 2;
                }
            }
        }
    };
    match format {
        Format::Human => {
            let mut text = c.report.render();
            text.push_str(&format!("  diagnostics: {errors} error(s), {warnings} warning(s)\n"));
            if let Some(r) = &coverage {
                text.push_str(&r.render_human());
            }
            if let Err(code) = out(&text) {
                return code;
            }
        }
        Format::Json => {
            // At most MAX_SHOWN_PER_CODE diagnostics of each code; `not_shown` counts the rest.
            let (shown, rest) = capped(&c.diagnostics);
            let diags: Vec<serde_json::Value> = shown.iter().map(|d| d.to_json(&sources)).collect();
            let not_shown: serde_json::Map<String, serde_json::Value> =
                rest.into_iter().map(|(code, n)| (code.to_string(), n.into())).collect();
            let mut v = serde_json::json!({
                "report": serde_json::to_value(&c.report).unwrap_or_default(),
                "diagnostics": diags,
                "not_shown": not_shown,
                "errors": errors,
                "warnings": warnings,
            });
            if let Some(r) = &coverage {
                v["text_coverage"] = r.to_json();
            }
            if let Err(code) = out(&format!("{v}\n")) {
                return code;
            }
        }
    }
    let text_errors = coverage.map(|r| r.has_errors()).unwrap_or(false);
    if errors > 0 || text_errors {
        1
    } else {
        0
    }
}

/// Write to standard output and flush. A closed pipe (`| head`) is not an error: the
/// reader has what it wanted. Any other failure (a full disk, `> /dev/full`) is E0702,
/// exit code 2: output is never lost silently.
fn out(text: &str) -> Result<(), u8> {
    let mut o = std::io::stdout().lock();
    match o.write_all(text.as_bytes()).and_then(|_| o.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => {
            say!("error[E0702]: cannot write output: {e}");
            Err(2)
        }
    }
}

fn parse_pairs(items: &[String], what: &str) -> Result<BTreeMap<String, String>, String> {
    let mut m = BTreeMap::new();
    for it in items {
        let Some((k, v)) = it.split_once('=') else {
            return Err(format!("{what} {it:?} is not NAME=VALUE"));
        };
        m.insert(k.trim().to_string(), v.trim().to_string());
    }
    Ok(m)
}

#[allow(clippy::too_many_arguments)]
fn cmd_run(
    path: &std::path::Path,
    scenario: String,
    seed: u64,
    agents: &[String],
    rulings: &[String],
    options: &[String],
    log: Option<PathBuf>,
    games: Option<u64>,
    profile: bool,
    invariants: bool,
) -> u8 {
    // Arguments first: nothing is compiled for a run that cannot start.
    if games == Some(0) {
        say!("error[E0703]: --games must be at least 1");
        return 2;
    }
    if let Some(n) = games {
        if seed.checked_add(n - 1).is_none() {
            say!(
                "error[E0703]: --games {n} from --seed {seed} goes past the largest seed ({}); \
                 the seeds would wrap around. Use --seed {} or lower",
                u64::MAX,
                u64::MAX - (n - 1)
            );
            return 2;
        }
    }
    let (_, c) = match build_config(path, Format::Human, Some(options)) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let Some(prog) = c.program else {
        say!("error: the rulebook has errors; nothing to run");
        return 1;
    };
    let agent_specs = match parse_pairs(agents, "--agent") {
        Ok(m) => m,
        Err(e) => {
            say!("error: {e}");
            return 2;
        }
    };
    let mut agent_kinds = BTreeMap::new();
    for (side, kind) in agent_specs {
        let k = match kind.as_str() {
            "random" => AgentKind::Random,
            "heuristic" => AgentKind::Heuristic,
            s if s.starts_with("scripted:") => {
                let file = &s["scripted:".len()..];
                let text = match read_regular_file(std::path::Path::new(file)) {
                    Ok(t) => t,
                    Err(e) => {
                        say!("error[E0701]: script: {e}");
                        return 2;
                    }
                };
                match kriegsspiel_runtime::agent::ScriptedAgent::parse_script(&text) {
                    Ok(mut m) => AgentKind::Scripted(m.remove(&side).unwrap_or_default()),
                    Err(e) => {
                        say!("error: {file}: {e}");
                        return 2;
                    }
                }
            }
            other => {
                say!("error: unknown agent {other:?} for {side} (random, heuristic, scripted:FILE)");
                return 2;
            }
        };
        agent_kinds.insert(side, k);
    }
    let rulings = match parse_pairs(rulings, "--ruling") {
        Ok(m) => m,
        Err(e) => {
            say!("error: {e}");
            return 2;
        }
    };
    if let Some(n) = games {
        return run_many(&prog, scenario, seed, n, agent_kinds, rulings, options, invariants);
    }
    let opts = GameOptions {
        scenario,
        seed,
        agents: agent_kinds,
        rulings,
        options: options.iter().cloned().collect(),
        log: true,
        profile,
        invariants,
        ..GameOptions::default()
    };
    let outcome = match play(&prog, &opts) {
        Ok(o) => o,
        Err(e) => {
            say!("error: {e}");
            return 2;
        }
    };
    if profile {
        say!(
            "{:>10} {:>14} {:>14}  function (VM instructions; self = excluding callees)",
            "calls",
            "inclusive",
            "self"
        );
        for (name, calls, inclusive, own) in outcome.profile.iter().take(30) {
            say!("{calls:>10} {inclusive:>14} {own:>14}  {name}");
        }
    }
    let text = outcome.log.text();
    match &log {
        Some(f) => {
            if let Err(e) = std::fs::write(f, &text) {
                say!("error[E0702]: cannot write {}: {e}", f.display());
                return 2;
            }
        }
        None => {
            if let Err(code) = out(&text) {
                return code;
            }
        }
    }
    match outcome.result {
        Ok(r) => {
            if log.is_some() {
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

fn run_many(
    prog: &kriegsspiel_runtime::Program,
    scenario: String,
    seed: u64,
    n: u64,
    agents: BTreeMap<String, AgentKind>,
    rulings: BTreeMap<String, String>,
    options: &[String],
    invariants: bool,
) -> u8 {
    let mut wins: BTreeMap<String, u64> = BTreeMap::new();
    let mut errors = 0u64;
    // Broken invariants (R0015) by invariant name; they count among the errors too.
    let mut violations: BTreeMap<String, u64> = BTreeMap::new();
    let mut turns = 0i64;
    let mut instructions = 0u64;
    let mut decisions = 0u64;
    let start = std::time::Instant::now();
    for i in 0..n {
        let opts = GameOptions {
            scenario: scenario.clone(),
            seed: seed.saturating_add(i),
            agents: agents.clone(),
            rulings: rulings.clone(),
            options: options.iter().cloned().collect(),
            log: false,
            invariants,
            ..GameOptions::default()
        };
        match play(prog, &opts) {
            Ok(o) => {
                instructions += o.stats.instructions;
                decisions += o.stats.decisions;
                match o.result {
                    Ok(r) => {
                        *wins.entry(r.winner.unwrap_or_else(|| "draw".into())).or_default() += 1;
                        turns += r.turn;
                    }
                    Err(e) => {
                        errors += 1;
                        if e.code == "R0015" {
                            *violations.entry(e.function.clone()).or_default() += 1;
                        }
                        say!("seed {}: {e}", seed.saturating_add(i));
                    }
                }
            }
            Err(e) => {
                say!("error: {e}");
                return 2;
            }
        }
    }
    let secs = start.elapsed().as_secs_f64();
    let summary = serde_json::json!({
        "games": n,
        "results": wins,
        "errors": errors,
        "invariants": if invariants { serde_json::json!({ "checked": prog.invariants.len(), "violations": violations }) } else { serde_json::json!("not checked") },
        "average_turns": if n > errors { turns as f64 / (n - errors) as f64 } else { 0.0 },
        "seconds": secs,
        "instructions_per_game": instructions / n.max(1),
        "decisions_per_game": decisions / n.max(1),
    });
    if let Err(code) = out(&format!("{summary}\n")) {
        return code;
    }
    if errors > 0 {
        1
    } else {
        0
    }
}
