//! The command line's conventions (issue 16, part 5), through the real binary: usage
//! errors with a code and the valid values, `--quiet`, batch runs on several threads
//! with the same summary, one log per game with `--games --log DIR`, a summed profile,
//! shell completions and manual pages generated from the same definitions as the parser.

use std::path::PathBuf;
use std::process::{Command, Output};

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_kriegsspiel")
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn ks(args: &[&str]) -> Output {
    Command::new(bin()).args(args).current_dir(root()).output().expect("runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ks-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch dir");
    d
}

const PETER: &str = "rulebooks/peter-the-great";

/// Every malformed argument is refused before anything is compiled: exit code 2, the
/// code E0703, and the valid values where there is a fixed list.
#[test]
fn usage_errors_have_a_code_and_name_the_valid_values() {
    let cases: &[(&[&str], &str)] = &[
        (&["run", PETER, "--scenario", "14.4", "--agent", "Swedish"], "SIDE=KIND"),
        (
            &["run", PETER, "--scenario", "14.4", "--agent", "Swedish=clever"],
            "random, heuristic, scripted:FILE",
        ),
        (&["run", PETER, "--scenario", "14.4", "--agent", "Swedish=scripted:"], "needs a file"),
        (&["run", PETER, "--scenario", "14.4", "--agent", "Swedish=search:0"], "playouts per decision"),
        (&["run", PETER, "--scenario", "14.4", "--agent", "Swedish=search"], "as in search:16"),
        (&["run", PETER, "--scenario", "14.4", "--ruling", "attack_grouping="], "NAME=VALUE"),
        (&["run", PETER, "--scenario", "14.4", "--games", "0"], "at least one game"),
        (&["run", PETER, "--scenario", "14.4", "--games", "many"], "not a whole number"),
        (&["run", PETER, "--scenario", "14.4", "--jobs", "2"], "only applies with --games"),
        (&["text", "README.md", "--style", "roman"], "bracketed-parts"),
        (&["frobnicate"], "unrecognized subcommand"),
        (&["completions", "cmd.exe"], "bash"),
    ];
    for (args, hint) in cases {
        let o = ks(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        let e = stderr(&o);
        assert!(e.starts_with("error[E0703]: "), "{args:?}: {e}");
        assert!(e.contains(hint), "{args:?} should mention {hint:?}: {e}");
        assert!(o.stdout.is_empty(), "{args:?}");
    }
    // Names that depend on the rulebook are checked after compiling, with its list.
    let o = ks(&["run", PETER, "--scenario", "14.4", "--agent", "Danes=random"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("Swedish, Russian") || stderr(&o).contains("Russian, Swedish"),
        "{}",
        stderr(&o)
    );
    // --help and --version are not errors.
    for args in [&["--help"][..], &["run", "--help"][..], &["--version"][..]] {
        let o = ks(args);
        assert_eq!(o.status.code(), Some(0), "{args:?}");
        assert!(!o.stdout.is_empty(), "{args:?}");
    }
}

/// Every argument of every command has help text, and `--style` lists its values.
#[test]
fn every_argument_has_help() {
    for cmd in ["check", "run", "text", "disasm", "completions", "manpage"] {
        let o = ks(&[cmd, "--help"]);
        assert_eq!(o.status.code(), Some(0), "{cmd}");
        let help = stdout(&o);
        for line in help.lines() {
            let t = line.trim_start();
            // An argument line with nothing after its name has no help.
            if (t.starts_with("--") || t.starts_with('<') || t.starts_with("-q")) && !t.contains("  ") {
                // clap puts long help on the next lines for long descriptions; accept
                // that only when the next line is indented text.
                let next = help.lines().skip_while(|l| *l != line).nth(1).unwrap_or("");
                assert!(next.trim().len() > 3, "{cmd}: no help for {t:?}\n{help}");
            }
        }
    }
    let o = ks(&["text", "--help"]);
    assert!(stdout(&o).contains("possible values: "), "{}", stdout(&o));
}

/// `--quiet` keeps errors and asked-for output, and drops warnings and reports.
#[test]
fn quiet_prints_errors_only() {
    let dir = scratch("quiet");
    // A rulebook whose only finding is a warning (W0001: unused declaration) ...
    let warn = "rulebook \"Q\" { numbering decimal; dice d6; }\ncontents { §1.0 \"Rules\" }\n\
                §1.0 sides { Red, Blue }\n§1.0 fn unused() -> Int = 1;\n";
    std::fs::write(dir.join("warn.ks"), warn).expect("writes");
    let loud = ks(&["check", dir.join("warn.ks").to_str().expect("utf-8")]);
    assert_eq!(loud.status.code(), Some(0), "{}", stderr(&loud));
    assert!(stderr(&loud).contains("warning["), "{}", stderr(&loud));
    assert!(!loud.stdout.is_empty());
    let quiet = ks(&["check", "-q", dir.join("warn.ks").to_str().expect("utf-8")]);
    assert_eq!(quiet.status.code(), Some(0));
    assert!(quiet.stderr.is_empty(), "{}", stderr(&quiet));
    assert!(quiet.stdout.is_empty(), "{}", stdout(&quiet));
    // ... and one with an error: still reported, still exit code 1.
    std::fs::write(dir.join("bad.ks"), format!("{warn}§1.0 fn broken() -> Int = nothing_here;\n"))
        .expect("writes");
    let bad = ks(&["check", "--quiet", dir.join("bad.ks").to_str().expect("utf-8")]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(stderr(&bad).contains("error["), "{}", stderr(&bad));
    assert!(!stderr(&bad).contains("warning["), "{}", stderr(&bad));
    // JSON was asked for: it is written whatever --quiet says.
    let json = ks(&["check", "-q", "--format", "json", dir.join("warn.ks").to_str().expect("utf-8")]);
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).expect("json");
    assert_eq!(v["warnings"], 2, "W0004 (no sequence) and W0001 (unused fn)");
}

/// A batch gives the same summary on one thread and on two; `--log DIR` receives one
/// log per game, each the log a single run of that seed writes; `--profile` sums.
#[test]
fn batch_runs_are_thread_independent_and_keep_their_logs() {
    let summary = |jobs: &str, extra: &[&str]| {
        let mut args =
            vec!["run", PETER, "--scenario", "14.2", "--seed", "7", "--games", "4", "--jobs", jobs];
        args.extend_from_slice(extra);
        let o = ks(&args);
        assert!(matches!(o.status.code(), Some(0 | 1)), "{}", stderr(&o));
        let mut v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json summary");
        assert_eq!(v["threads"], jobs.parse::<u64>().expect("number"));
        // Wall time and thread count are the only fields allowed to differ.
        v.as_object_mut().expect("object").remove("seconds");
        v.as_object_mut().expect("object").remove("seconds_per_game");
        v.as_object_mut().expect("object").remove("threads");
        (v, o)
    };
    // The same flags on both (debug builds check the movement-cost memo except while
    // profiling, which changes the instruction count but never the games).
    let dir = scratch("logs");
    let logs1 = dir.join("one");
    let (one, _) = summary("1", &["--log", logs1.to_str().expect("utf-8"), "--profile"]);
    let logs = dir.join("games");
    let (two, o) = summary("2", &["--log", logs.to_str().expect("utf-8"), "--profile"]);
    assert_eq!(one, two, "the summary depends on the number of threads");
    assert_eq!(one["games"], 4);
    // The summed profile is on stderr.
    assert!(stderr(&o).contains("function (VM instructions"), "{}", stderr(&o));
    let mut names: Vec<String> = std::fs::read_dir(&logs)
        .expect("log dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["seed-10.jsonl", "seed-7.jsonl", "seed-8.jsonl", "seed-9.jsonl"]);
    let single = ks(&["run", PETER, "--scenario", "14.2", "--seed", "9"]);
    let kept = std::fs::read(logs.join("seed-9.jsonl")).expect("reads");
    assert!(!kept.is_empty());
    assert_eq!(kept, std::fs::read(logs1.join("seed-9.jsonl")).expect("reads"), "logs depend on the threads");
    assert_eq!(kept, single.stdout, "the batch's log of seed 9 differs from a single run's");
    // A --log that is a file cannot hold one log per game.
    let file = dir.join("file.jsonl");
    std::fs::write(&file, "").expect("writes");
    let o = ks(&["run", PETER, "--scenario", "14.2", "--games", "2", "--log", file.to_str().expect("utf-8")]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("error[E0703]") && stderr(&o).contains("directory"), "{}", stderr(&o));
}

/// Completion scripts and manual pages come from the parser's own definitions: every
/// command and every flag of `run` is in them.
#[test]
fn completions_and_manual_pages_cover_every_command() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let o = ks(&["completions", shell]);
        assert_eq!(o.status.code(), Some(0), "{shell}: {}", stderr(&o));
        let script = stdout(&o);
        // Flags without their dashes: fish writes `-l scenario`.
        for word in ["check", "run", "text", "disasm", "lsp", "scenario", "games", "jobs", "quiet"] {
            assert!(script.contains(word), "{shell} completion lacks {word}");
        }
    }
    let o = ks(&["manpage"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains(".TH kriegsspiel 1"), "{}", stdout(&o));
    let dir = scratch("man");
    let o = ks(&["manpage", "--dir", dir.to_str().expect("utf-8")]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    for page in ["kriegsspiel", "kriegsspiel-check", "kriegsspiel-run", "kriegsspiel-text", "kriegsspiel-lsp"]
    {
        let text = std::fs::read_to_string(dir.join(format!("{page}.1"))).expect("page written");
        assert!(text.contains(".TH"), "{page}");
    }
    let run = std::fs::read_to_string(dir.join("kriegsspiel-run.1")).expect("reads");
    for flag in ["\\-\\-scenario", "\\-\\-games", "\\-\\-log", "\\-\\-no\\-invariants"] {
        assert!(run.contains(flag), "run page lacks {flag}");
    }
}

/// `disasm` prints what each instruction does, not Rust's debug form: no `Name { field: .. }`
/// and no instruction in the serialised fallback form, on both bundled rulebooks.
#[test]
fn disasm_is_readable() {
    for rb in [PETER, "rulebooks/frederick-the-great", "docs/examples/tiny.ks", "docs/examples/marches.ks"] {
        let o = ks(&["disasm", rb]);
        assert_eq!(o.status.code(), Some(0), "{rb}: {}", stderr(&o));
        let text = stdout(&o);
        assert!(text.contains(" goto ") && text.contains("return"), "{rb}");
        for line in text.lines().filter(|l| l.starts_with("  ")) {
            let ins = line.trim_start().split_once("  ").map(|x| x.1).unwrap_or("");
            // Quoted strings (log messages, reasons) may hold anything.
            let ins: String = ins.split('"').step_by(2).collect::<Vec<_>>().join("\"\"");
            assert!(!ins.contains(" { ") && !ins.contains(": "), "{rb}: debug form in {line:?}");
            // The fallback writes `name field=value`: every instruction of these rulebooks
            // has its own readable form.
            let second = ins.split_whitespace().nth(1).unwrap_or("");
            let fallback = second
                .split_once('=')
                .is_some_and(|(f, _)| !f.is_empty() && f.chars().all(|c| c.is_ascii_lowercase() || c == '_'));
            assert!(!fallback, "{rb}: fallback form in {line:?}");
        }
    }
}

/// Diagnostics are plain when piped and coloured with `--color always`; `--color never`
/// and `NO_COLOR` keep them plain. `--deny warnings` makes a warning fail `check`.
#[test]
fn colour_and_deny_warnings() {
    let dir = scratch("color");
    let warn = "rulebook \"Q\" { numbering decimal; dice d6; }\ncontents { §1.0 \"Rules\" }\n\
                §1.0 sides { Red, Blue }\n§1.0 fn unused() -> Int = 1;\n";
    let file = dir.join("warn.ks");
    std::fs::write(&file, warn).expect("writes");
    let f = file.to_str().expect("utf-8");
    let esc = |o: &Output| o.stderr.contains(&0x1b);
    let piped = ks(&["check", f]);
    assert!(!esc(&piped), "colour on a pipe");
    let always = ks(&["check", "--color", "always", f]);
    assert!(esc(&always), "no colour with --color always: {}", stderr(&always));
    assert!(stderr(&always).contains("W0001"));
    let never = ks(&["check", "--color", "never", f]);
    assert!(!esc(&never));
    let no_color = Command::new(bin()).args(["check", f]).env("NO_COLOR", "1").output().expect("runs");
    assert!(!esc(&no_color));
    assert_eq!(piped.status.code(), Some(0));
    let deny = ks(&["check", "--deny", "warnings", f]);
    assert_eq!(deny.status.code(), Some(1), "{}", stderr(&deny));
    let o = ks(&["check", "--deny", "everything", f]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("warnings"), "{}", stderr(&o));
}

/// A warning the rulebook allows does not fail `--deny warnings`, and the summary and
/// the JSON report count it with its reason.
#[test]
fn an_allowed_warning_passes_deny_warnings() {
    let dir = scratch("allow");
    let book = "rulebook \"Q\" { numbering decimal; dice d6; allow W0001 \"kept for later\"; }\n\
                contents { §1.0 \"Rules\" }\n§1.0 sides { Red, Blue }\n§1.0 sequence { }\n§1.0 fn unused() -> Int = 1;\n";
    let file = dir.join("allow.ks");
    std::fs::write(&file, book).expect("writes");
    let f = file.to_str().expect("utf-8");
    let o = ks(&["check", "--deny", "warnings", f]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(!stderr(&o).contains("W0001"), "{}", stderr(&o));
    assert!(stdout(&o).contains("allowed warnings: 1\n    W0001 ×1: kept for later"), "{}", stdout(&o));
    let j = ks(&["check", "--format", "json", f]);
    let v: serde_json::Value = serde_json::from_slice(&j.stdout).expect("json");
    assert_eq!(v["warnings"], 0);
    assert_eq!(
        v["report"]["allowed"],
        serde_json::json!([{"code": "W0001", "reason": "kept for later", "count": 1}])
    );
}

/// `check` and `text` give their findings in one JSON shape.
#[test]
fn check_and_text_share_one_json_shape() {
    let dir = scratch("shape");
    let rb = dir.join("warn.ks");
    std::fs::write(
        &rb,
        "rulebook \"Q\" { numbering decimal; dice d6; }\ncontents { §1.0 \"Rules\" }\n\
         §1.0 sides { Red, Blue }\n§1.0 fn unused() -> Int = 1;\n",
    )
    .expect("writes");
    let txt = dir.join("rules.txt");
    std::fs::write(&txt, "1.0 Opening\n1.1 Parts\n1.1 Again\n").expect("writes");
    let c = ks(&["check", "--format", "json", rb.to_str().expect("utf-8")]);
    let c: serde_json::Value = serde_json::from_slice(&c.stdout).expect("check json");
    let t = ks(&["text", "--format", "json", txt.to_str().expect("utf-8")]);
    let t: serde_json::Value = serde_json::from_slice(&t.stdout).expect("text json");
    let keys = |v: &serde_json::Value| {
        let mut k: Vec<String> = v.as_object().expect("object").keys().cloned().collect();
        k.sort();
        k
    };
    let d = &c["diagnostics"][0];
    let f = &t["findings"][0];
    assert_eq!(keys(d), keys(f), "check: {d}\ntext: {f}");
    assert_eq!(keys(&d["span"]), keys(&f["span"]));
    assert_eq!(f["line"], 3);
    assert_eq!(f["column"], 1);
}

/// A run with an optional layer compiles without the examples; a helper that only
/// examples use is not reported unused there (`check` answers that question).
#[test]
fn a_run_with_options_reports_no_unused_example_helpers() {
    let o =
        ks(&["run", PETER, "--scenario", "14.4", "--seed", "1", "--option", "fatigue", "--log", "/dev/null"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(!stderr(&o).contains("W0001"), "{}", stderr(&o));
    assert!(stderr(&o).starts_with("result: "), "{}", stderr(&o));
}

/// `check --text` reports what the text says of the contents and the anchors as
/// diagnostics with codes and spans in the rulebook, counted in the summary and the
/// exit code: an entry the text lacks (E0206), an anchor to a lettered item the text
/// does not have (E0207), a title that differs (W0007). Regression: these lines had
/// no code or position, and the summary said "0 error(s)".
#[test]
fn check_text_findings_are_diagnostics() {
    let dir = scratch("text-findings");
    let good = "rulebook \"Q\" { numbering dotted; dice d6; }\n\
                contents { §1.0 \"Opening\" §2.0 \"Play\" }\n\
                §1.0 sides { Red, Blue }\n§2.0.B fn f() -> Int = 1;\n§2.0.A fn g() -> Int = f();\n";
    let txt = dir.join("rules.txt");
    std::fs::write(&txt, "1.0 Opening\nWords.\n2.0 Play\nA. First thing.\nB. Second thing.\n")
        .expect("writes");
    let rb = dir.join("good.ks");
    std::fs::write(&rb, good).expect("writes");
    let o = ks(&[
        "check",
        "--color",
        "never",
        rb.to_str().expect("utf-8"),
        "--text",
        txt.to_str().expect("utf-8"),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(!stderr(&o).contains("E020"), "{}", stderr(&o));

    // Near miss above (items A and B exist); now item D, an entry 3.0 and a new title.
    let bad = good
        .replace("§2.0.B fn f", "§2.0.D fn f")
        .replace("§2.0 \"Play\" }", "§2.0 \"Combat\" §3.0 \"Extra\" }");
    std::fs::write(&rb, bad).expect("writes");
    let o = ks(&[
        "check",
        "--color",
        "never",
        rb.to_str().expect("utf-8"),
        "--text",
        txt.to_str().expect("utf-8"),
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("error[E0206]: contents entry §3.0 is not a paragraph of"), "{err}");
    assert!(err.contains("error[E0207]: anchor §2.0.D names an item that §2.0 of"), "{err}");
    assert!(err.contains("§2.0: it has items A, B"), "{err}");
    assert!(err.contains("warning[W0007]: §2.0 is titled \"Combat\" here but \"Play\""), "{err}");
    assert!(err.contains("good.ks:4:1"), "E0207 points at the anchor: {err}");
    assert!(stdout(&o).contains("diagnostics: 2 error(s), 3 warning(s)"), "{}", stdout(&o));
    // The same in JSON, with spans.
    let o = ks(&[
        "check",
        "--format",
        "json",
        rb.to_str().expect("utf-8"),
        "--text",
        txt.to_str().expect("utf-8"),
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(v["errors"], 2);
    let codes: Vec<&str> =
        v["diagnostics"].as_array().expect("array").iter().filter_map(|d| d["code"].as_str()).collect();
    assert!(codes.contains(&"E0206") && codes.contains(&"E0207") && codes.contains(&"W0007"), "{codes:?}");
}
