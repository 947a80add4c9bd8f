//! The hostile-input budget of issue 10 (docs/robustness.md): `check` and `text` on
//! generated inputs of the shapes that once aborted, hung or went quadratic, each run
//! as a process of the release binary, with its wall time, peak memory and outcome.
//!
//! `cargo build --release && cargo run --release -p kriegsspiel-bench --bin hostile`
//! (it runs `target/release/kriegsspiel`, beside its own executable; the inputs are
//! written to a scratch directory and removed afterwards).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The budget: every run ends, with an answer or a refusal, within this time.
const BUDGET: Duration = Duration::from_secs(10);
/// A run still going after this is killed and reported as a hang.
const KILL: Duration = Duration::from_secs(120);

const HEADER: &str = "rulebook \"T\" { numbering dotted; dice d6; }\ncontents { §1.0 \"Rules\" }\n\
§1.0 sides { A, B }\n§1.0 sequence { draw \"no rules yet\"; }\n";

fn mib(n: usize) -> usize {
    n << 20
}

/// `fn deep() -> Int = 1 + 1 + ...;` of about `bytes` bytes (`tail` ends the chain).
fn chain(bytes: usize, tail: &str) -> String {
    let mut s = String::with_capacity(bytes + 64);
    s.push_str(HEADER);
    s.push_str("§1.0 fn deep() -> Int = 1");
    while s.len() + 4 + tail.len() < bytes {
        s.push_str(" + 1");
    }
    s.push_str(tail);
    s
}

/// Unused functions (one W0001 each) filling about `bytes` bytes.
fn unused(bytes: usize) -> String {
    let mut s = String::from(HEADER);
    let mut i = 0;
    while s.len() < bytes {
        let _ = writeln!(s, "§1.0 fn f{i}() -> Int = {i};");
        i += 1;
    }
    s
}

/// A rules text: numbered sections with references, one to a paragraph that does not
/// exist per section (one T0101 finding each), about `bytes` bytes, lines ended by `eol`.
fn rules_text(bytes: usize, eol: &str) -> String {
    let mut s = String::with_capacity(bytes + 256);
    let mut i = 1u64;
    while s.len() < bytes {
        let _ = write!(
            s,
            "{i}.0 Section {i}{eol}{i}.1 The phasing player moves first; see {i}.2 and 0.9 for the rest.{eol}\
             {i}.2 Combat follows movement, as the sequence of play says.{eol}"
        );
        i += 1;
    }
    s
}

struct Run {
    what: String,
    size: usize,
    code: Option<i32>,
    message: String,
    secs: f64,
    peak_kb: u64,
}

/// Peak resident memory of a running process (Linux), in kB.
fn peak_kb(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn run(bin: &Path, what: &str, args: &[&str], input: &Path) -> Run {
    let size = std::fs::metadata(input).map(|m| m.len() as usize).unwrap_or(0);
    let start = Instant::now();
    let mut child = Command::new(bin)
        .args(args)
        .arg(input)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs the kriegsspiel binary");
    let mut stderr = child.stderr.take().expect("stderr");
    let reader = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = std::io::Read::read_to_end(&mut stderr, &mut v);
        v
    });
    let mut peak = 0;
    let status = loop {
        if let Some(p) = peak_kb(child.id()) {
            peak = peak.max(p);
        }
        if let Ok(Some(s)) = child.try_wait() {
            break Some(s);
        }
        if start.elapsed() > KILL {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let secs = start.elapsed().as_secs_f64();
    let err = String::from_utf8_lossy(&reader.join().unwrap_or_default()).into_owned();
    // The first error line, else the summary line.
    let message = err
        .lines()
        .find(|l| l.starts_with("error"))
        .or_else(|| err.lines().rev().find(|l| !l.trim().is_empty()))
        .unwrap_or("")
        .chars()
        .take(110)
        .collect::<String>();
    Run {
        what: what.to_string(),
        size,
        code: status.and_then(|s| s.code()),
        message: if status.is_none() { format!("killed after {KILL:?}") } else { message },
        secs,
        peak_kb: peak,
    }
}

fn main() {
    let exe = std::env::current_exe().expect("own path");
    let bin = exe.parent().map(|d| d.join("kriegsspiel")).unwrap_or_else(|| PathBuf::from("kriegsspiel"));
    if !bin.exists() {
        eprintln!("{} not found: run `cargo build --release` first", bin.display());
        std::process::exit(2);
    }
    let dir = std::env::temp_dir().join(format!("ks-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let write = |name: &str, text: &str| {
        let p = dir.join(name);
        std::fs::write(&p, text).expect("writes the input");
        p
    };
    let mut runs = Vec::new();
    let cases: Vec<(&str, &str, String, Vec<&str>)> = vec![
        ("check: 10 MB of `1 + 1 + …`", "chain10.ks", chain(10_000_000, ";\n"), vec!["check"]),
        (
            "check: 4 MiB of `1 + 1 + …` (at the size limit)",
            "chain4.ks",
            chain(mib(4) - 16, ";\n"),
            vec!["check"],
        ),
        (
            "check: the same with a syntax error at the end",
            "chain4bad.ks",
            chain(mib(4) - 16, " +;\n"),
            vec!["check"],
        ),
        ("check: 13 MB of unused functions", "unused13.ks", unused(13_000_000), vec!["check"]),
        ("check: 4 MiB of unused functions", "unused4.ks", unused(mib(4) - 64), vec!["check"]),
        (
            "check --format json: 4 MiB of unused functions",
            "unused4j.ks",
            unused(mib(4) - 64),
            vec!["check", "--format", "json"],
        ),
        ("text: 50 MB rules text (\\n)", "text50.txt", rules_text(50_000_000, "\n"), vec!["text"]),
        ("text: 50 MB rules text (\\r, old Mac)", "text50cr.txt", rules_text(50_000_000, "\r"), vec!["text"]),
        (
            "text --format json: 50 MB rules text",
            "text50j.txt",
            rules_text(50_000_000, "\n"),
            vec!["text", "--format", "json"],
        ),
        (
            "text: 50 MB without a line break",
            "text50one.txt",
            rules_text(50_000_000, " "),
            vec!["text", "--style", "decimal-implied"],
        ),
        (
            "text: 70 MB rules text (over the size limit)",
            "text70.txt",
            rules_text(70_000_000, "\n"),
            vec!["text"],
        ),
    ];
    for (what, file, text, args) in cases {
        let p = write(file, &text);
        drop(text);
        let r = run(&bin, what, &args, &p);
        let _ = std::fs::remove_file(&p);
        eprintln!("{what}: {:.2} s", r.secs);
        runs.push(r);
    }
    let _ = std::fs::remove_dir_all(&dir);

    println!("| input | bytes | exit | outcome | seconds | peak memory |");
    println!("|---|---|---|---|---|---|");
    let mut over = 0;
    for r in &runs {
        if r.secs > BUDGET.as_secs_f64() || r.code.is_none() {
            over += 1;
        }
        println!(
            "| {} | {} | {} | `{}` | {:.2} | {} MB |",
            r.what,
            r.size,
            r.code.map(|c| c.to_string()).unwrap_or_else(|| "killed".into()),
            r.message.replace('|', "\\|").replace('`', "'"),
            r.secs,
            r.peak_kb / 1024
        );
    }
    println!(
        "\nBudget: every run ends within {} s with an answer or a refusal: {}.",
        BUDGET.as_secs(),
        if over == 0 { "met".to_string() } else { format!("{over} run(s) over") }
    );
    if over > 0 {
        std::process::exit(1);
    }
}
