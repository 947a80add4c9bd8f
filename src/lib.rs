//! The `kriegsspiel` command line: check, run, text, disasm, build, lsp, completions,
//! manpage (see docs/cli.md). This file holds the arguments and the dispatch; each
//! command lives in a module named for it. `src/main.rs` calls [`main`]; the binary of a
//! natively built rulebook (`kriegsspiel build`, docs/native.md) calls [`native_main`].
//!
//! Exit codes: 0 success, 1 the rulebook or text has errors (or a game failed at run
//! time), 2 bad usage, unreadable input or output that cannot be written (see
//! docs/robustness.md).

use clap::{CommandFactory, Parser, Subcommand, ValueEnum};
use kriegsspiel_compiler::{compile, load_files, Compilation};
use kriegsspiel_dsl::diag::{capped, not_shown_line};
use kriegsspiel_dsl::SourceMap;
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

mod account;
mod aids;
mod args;
mod balance;
mod check;
mod compare;
mod fmt;
mod generate;
mod html;
mod native;
mod odds;
mod replay;
mod report;
mod run;
mod view;

#[derive(Parser)]
#[command(
    name = "kriegsspiel",
    version,
    about = "Compiler and VM for the rules of hex-and-counter wargames",
    after_help = "Exit codes: 0 success; 1 the rulebook or text has errors, or a game failed at run time; \
                  2 bad usage, unreadable input or unwritable output. Documentation: docs/cli.md."
)]
pub(crate) struct Cli {
    /// Print errors only: no warnings, no report on a terminal, no progress. Output that
    /// was asked for (a log, JSON, a summary) is still written.
    #[arg(short, long, global = true)]
    quiet: bool,
    /// Colour diagnostics: auto (on a terminal, unless NO_COLOR is set), always, never.
    #[arg(long, value_enum, global = true, default_value = "auto", value_name = "WHEN")]
    color: ColorWhen,
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum ColorWhen {
    /// On a terminal, unless the NO_COLOR environment variable is set (no-color.org).
    Auto,
    Always,
    Never,
}

/// How the user asked to be spoken to: `--quiet` and `--color`, resolved.
#[derive(Clone, Copy)]
pub(crate) struct Ui {
    pub quiet: bool,
    /// Diagnostics on stderr in colour.
    pub color: bool,
}

impl Ui {
    fn new(quiet: bool, when: ColorWhen) -> Ui {
        use std::io::IsTerminal;
        let color = match when {
            ColorWhen::Always => true,
            ColorWhen::Never => false,
            ColorWhen::Auto => {
                !std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
                    && std::io::stderr().is_terminal()
            }
        };
        Ui { quiet, color }
    }
}

/// Which findings fail `check` besides errors.
#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub(crate) enum Deny {
    /// Any warning makes `check` exit 1.
    Warnings,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub(crate) enum Format {
    /// A report for people.
    Human,
    /// One JSON document on standard output.
    Json,
}

#[derive(Subcommand)]
enum Cmd {
    /// Compile a rulebook, run its examples, and report coverage and provenance.
    Check {
        /// A rulebook directory (all its .ks files) or a single .ks file.
        rulebook: PathBuf,
        /// Also check the encoding against the rulebook's own text and report rules coverage.
        #[arg(long, value_name = "RULES.txt")]
        text: Option<PathBuf>,
        /// Output format of the report and diagnostics.
        #[arg(long, value_enum, default_value = "human")]
        format: Format,
        /// Fail (exit code 1) on warnings too.
        #[arg(long, value_enum, value_name = "WHAT")]
        deny: Option<Deny>,
    },
    /// Play a scenario headlessly and write the JSON Lines log (or, with --games, a summary).
    Run(run::RunArgs),
    /// Render a saved run log (JSON Lines) as the game account `run` prints on a terminal.
    Log {
        /// A log written by `run --log FILE` or `run --format jsonl`.
        file: PathBuf,
    },
    /// A saved game as one self-contained HTML page: the map, the counters, and buttons
    /// and keys to step through the events (docs/cli.md).
    Replay {
        /// A log written by `run --log FILE` or `run --format jsonl`.
        log: PathBuf,
        /// The rulebook the game was played from (default: the one the log's header names).
        #[arg(long, value_name = "DIR")]
        rulebook: Option<PathBuf>,
        /// Write the page to this file instead of standard output.
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// The player aids as one HTML page: the sequence of play, every table with its exact
    /// odds, the modifier lists and the terrain effects, each with its paragraph.
    Aids {
        /// A rulebook directory (all its .ks files) or a single .ks file.
        rulebook: PathBuf,
        /// Write DIR/index.html (DIR is created) instead of printing the page.
        #[arg(short, long, value_name = "DIR")]
        output: Option<PathBuf>,
        /// Aids for the game with this optional rule or layer in play (repeatable).
        #[arg(long = "option", value_name = "NAME")]
        options: Vec<String>,
    },
    /// The exact odds of a die-roll table (every result's probability in every column, as
    /// fractions, by enumerating the table's dice), or of a worked example's situation
    /// (every outcome of the procedure it runs, over every way its dice fall).
    Odds {
        /// A rulebook directory (all its .ks files) or a single .ks file.
        rulebook: PathBuf,
        /// The table's name, e.g. CRT (or give --example).
        #[arg(required_unless_present = "example")]
        table: Option<String>,
        /// A modifier added to the roll before the row is read (the table's clamps apply).
        #[arg(long, default_value_t = 0, allow_negative_numbers = true, value_name = "N")]
        drm: i64,
        /// Instead of a table: play this worked example's situation for every way its dice
        /// can fall and give the exact probability of each outcome (its title, or a part
        /// of it that names one example).
        #[arg(long, value_name = "TITLE", conflicts_with_all = ["table", "drm"])]
        example: Option<String>,
        /// Output format.
        #[arg(long, value_enum, default_value = "human")]
        format: Format,
    },
    /// Lint a rulebook's prose: numbering, cross-references, dice tables.
    Text {
        /// The rules text (plain UTF-8).
        path: PathBuf,
        /// Print the paragraph index.
        #[arg(long)]
        index: bool,
        /// Numbering style (default: detected from the text).
        #[arg(long, value_parser = args::style_parser())]
        style: Option<String>,
        /// Output format of the findings.
        #[arg(long, value_enum, default_value = "human")]
        format: Format,
    },
    /// One page for the designer: the rules text paragraph by paragraph, with the text
    /// checker's findings and (with --rulebook) the encoding and coverage beside each.
    Report {
        /// The rules text (plain UTF-8).
        text: PathBuf,
        /// The rulebook that encodes the text (a directory of .ks files or one file).
        #[arg(long, value_name = "DIR")]
        rulebook: Option<PathBuf>,
        /// Write the report to this file instead of standard output.
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
        /// A self-contained HTML page, or the same content as JSON.
        #[arg(long, value_enum, default_value = "html")]
        format: report::ReportFormat,
        /// Numbering style (default: detected from the text).
        #[arg(long, value_parser = args::style_parser())]
        style: Option<String>,
    },
    /// Rewrite rulebook files in the canonical layout (indentation by nesting, no
    /// trailing whitespace, at most one blank line; tokens, strings, comments kept).
    Fmt {
        /// Rulebook directories (their .ks files) or single .ks files.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Change nothing: list the files not in the canonical layout and exit 1 if any.
        #[arg(long)]
        check: bool,
    },
    /// Write the rulebook's program as a Rust crate (docs/native.md): built with cargo, it
    /// is this command with the rulebook compiled in, whose `run` plays it natively.
    Build {
        /// A rulebook directory (all its .ks files) or a single .ks file.
        rulebook: PathBuf,
        /// The directory of the crate (created; files of an earlier build are replaced).
        #[arg(short, long, value_name = "DIR")]
        output: PathBuf,
        /// Build with this optional rule or layer in play (repeatable), as `run --option`.
        #[arg(long = "option", value_name = "NAME")]
        options: Vec<String>,
    },
    /// Print the compiled bytecode.
    Disasm {
        /// A rulebook directory (all its .ks files) or a single .ks file.
        rulebook: PathBuf,
    },
    /// Run the language server on standard input and output (for editors; docs/editors.md).
    Lsp,
    /// Print a shell completion script (e.g. `kriegsspiel completions bash > ~/.local/share/bash-completion/completions/kriegsspiel`).
    Completions {
        /// The shell to complete for.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff), or with --dir write one page per command into DIR.
    Manpage {
        /// Write kriegsspiel.1 and kriegsspiel-COMMAND.1 into this directory.
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
}

/// The command line, as the `kriegsspiel` binary runs it.
pub fn main() -> ExitCode {
    cli_main()
}

/// The command line of a natively built rulebook: `run` plays the program `code` was
/// generated from with it (and any other rulebook with the VM).
pub fn native_main(code: &'static dyn kriegsspiel_runtime::native::NativeCode) -> ExitCode {
    let _ = native::BUILT_IN.set(code);
    cli_main()
}

fn cli_main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) if e.use_stderr() => {
            // A usage error is E0703 like every other refused argument (docs/errors.md).
            let text = e.render().to_string();
            let text = match text.strip_prefix("error: ") {
                Some(rest) => format!("error[E0703]: {rest}"),
                None => text,
            };
            say!("{}", text.trim_end());
            return ExitCode::from(2);
        }
        Err(e) => {
            // --help and --version.
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
    };
    let ui = Ui::new(cli.quiet, cli.color);
    let code = match cli.cmd {
        Cmd::Check { rulebook, text, format, deny } => {
            check::cmd_check(&rulebook, text.as_deref(), format, ui, deny == Some(Deny::Warnings))
        }
        Cmd::Run(args) => run::cmd_run(args, ui),
        Cmd::Log { file } => run::cmd_log(&file),
        Cmd::Aids { rulebook, output, options } => aids::cmd_aids(&rulebook, output.as_deref(), &options, ui),
        Cmd::Replay { log, rulebook, output } => {
            replay::cmd_replay(&log, rulebook.as_deref(), output.as_deref(), ui)
        }
        Cmd::Odds { rulebook, table, drm, example, format } => match (example, table) {
            (Some(title), _) => odds::cmd_odds_example(&rulebook, &title, format, ui),
            (None, Some(table)) => odds::cmd_odds(&rulebook, &table, drm, format, ui),
            // clap requires one of them.
            (None, None) => 2,
        },
        Cmd::Text { path, index, style, format } => {
            let opts = kriegsspiel_text::TextOptions { path, index, json: format == Format::Json, style };
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            let mut err = std::io::BufWriter::new(std::io::stderr().lock());
            kriegsspiel_text::run_cli(&opts, &mut out, &mut err).clamp(0, 255) as u8
        }
        Cmd::Report { text, rulebook, output, format, style } => {
            report::cmd_report(&text, rulebook.as_deref(), output.as_deref(), format, style.as_deref(), ui)
        }
        Cmd::Disasm { rulebook } => match build(&rulebook, Format::Human, ui) {
            Ok((_, c)) => match &c.program {
                Some(p) => match out(&kriegsspiel_runtime::disasm::disassemble(p)) {
                    Ok(()) => 0,
                    Err(code) => code,
                },
                None => 1,
            },
            Err(code) => code,
        },
        Cmd::Build { rulebook, output, options } => native::cmd_build(&rulebook, &output, &options, ui),
        Cmd::Fmt { paths, check } => fmt::cmd_fmt(&paths, check, ui),
        Cmd::Lsp => kriegsspiel_lsp::run_stdio(),
        Cmd::Completions { shell } => generate::completions(shell, &mut Cli::command()),
        Cmd::Manpage { dir } => generate::manpages(dir.as_deref(), Cli::command()),
    };
    ExitCode::from(code)
}

/// Load and compile as `check` does; prints diagnostics. Err(exit code) when unreadable.
pub(crate) fn build(path: &std::path::Path, format: Format, ui: Ui) -> Result<(SourceMap, Compilation), u8> {
    build_config(path, format, None, ui)
}

/// Load and compile, with these optional layers in play when `options` is given (the
/// configuration a run plays); prints diagnostics (at most `MAX_SHOWN_PER_CODE` of each
/// code, then a count of the rest; errors only when quiet; coloured as `ui` says). Err(exit code) when
/// unreadable.
pub(crate) fn build_config(
    path: &std::path::Path,
    format: Format,
    options: Option<&[String]>,
    ui: Ui,
) -> Result<(SourceMap, Compilation), u8> {
    let sources = match load_files(path) {
        Ok((s, skipped)) => {
            if !ui.quiet {
                for f in skipped {
                    say!(
                        "warning[W0006]: skipped {}: not a regular file (a FIFO, socket or device)",
                        f.display()
                    );
                }
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
        print_diagnostics(&c.diagnostics, &sources, ui);
    }
    Ok((sources, c))
}

/// Diagnostics on stderr: at most `MAX_SHOWN_PER_CODE` of each code, then a count of
/// the rest; errors only when quiet; coloured as `ui` says.
pub(crate) fn print_diagnostics(diags: &[kriegsspiel_dsl::Diagnostic], sources: &SourceMap, ui: Ui) {
    let shown: Vec<_> = diags.iter().filter(|d| !ui.quiet || d.is_error()).cloned().collect();
    let (shown, rest) = capped(&shown);
    let mut err = std::io::stderr().lock();
    for d in shown {
        let _ = err.write_all(d.render_styled(sources, ui.color).as_bytes());
    }
    for (code, n) in rest {
        let _ = err.write_all(not_shown_line(code, n).as_bytes());
    }
}

/// Write to standard output and flush. A closed pipe (`| head`) is not an error: the
/// reader has what it wanted. Any other failure (a full disk, `> /dev/full`) is E0702,
/// exit code 2: output is never lost silently.
pub(crate) fn out(text: &str) -> Result<(), u8> {
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
