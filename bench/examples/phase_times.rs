//! Where `check` time goes: parsing (pest and lowering) against the whole compilation
//! (parse, check, codegen, verify, worked examples), for one rulebook directory.
//!
//! `cargo run --release -p kriegsspiel-bench --example phase_times -- rulebooks/frederick-the-great`
//!
//! `PARSE_ONLY=1` skips the compilations (for `valgrind --tool=callgrind`, whose counts do
//! not depend on the machine's load); `N=k` repeats each phase k times (default 30).

use std::time::Instant;

fn main() {
    let dir = std::env::args().nth(1).unwrap_or_else(|| "rulebooks/frederick-the-great".into());
    let sources = match kriegsspiel_compiler::load(std::path::Path::new(&dir)) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("cannot load {dir}: {e}");
            std::process::exit(2);
        }
    };
    let bytes: usize = sources.ids().map(|id| sources.text(id).len()).sum();
    let n: u32 = std::env::var("N").ok().and_then(|v| v.parse().ok()).unwrap_or(30).max(1);
    let t = Instant::now();
    for _ in 0..n {
        std::hint::black_box(kriegsspiel_dsl::parse_all(&sources));
    }
    let parse = t.elapsed().as_secs_f64() * 1e3 / n as f64;
    if std::env::var_os("PARSE_ONLY").is_some() {
        println!("{dir}: {} KB of source; parse {parse:.2} ms", bytes / 1024);
        return;
    }
    let t = Instant::now();
    for _ in 0..n {
        std::hint::black_box(kriegsspiel_compiler::compile(&sources));
    }
    let total = t.elapsed().as_secs_f64() * 1e3 / n as f64;
    println!("{dir}: {} KB of source; parse {parse:.2} ms; whole compile {total:.2} ms", bytes / 1024);
    if std::env::var_os("PER_FILE").is_some() {
        for id in sources.ids() {
            let t = Instant::now();
            for _ in 0..n {
                std::hint::black_box(kriegsspiel_dsl::parse_file(id, sources.text(id)).is_ok());
            }
            let ms = t.elapsed().as_secs_f64() * 1e3 / n as f64;
            let kb = sources.text(id).len() as f64 / 1024.0;
            println!("  {:28} {kb:6.1} KB {ms:6.2} ms {:5.1} KB/ms", sources.name(id), kb / ms);
        }
    }
}
