//! Runs the validator over the rulebook texts given on the command line (default:
//! the five in ../shared/rulebook-texts) and prints the style, heading count,
//! findings and the time taken. `cargo run --release -p kriegsspiel-text --example validate`.

use std::time::Instant;

use kriegsspiel_text::{detect, render, validate};

fn main() {
    let mut paths: Vec<String> = std::env::args().skip(1).collect();
    let verbose = paths.iter().any(|p| p == "-v");
    paths.retain(|p| p != "-v");
    if paths.is_empty() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/rulebook-texts");
        for name in [
            "frederick-the-great",
            "peter-the-great",
            "torgau",
            "napoleon-at-the-crossroads",
            "sport-of-kings",
        ] {
            paths.push(format!("{dir}/{name}.txt"));
        }
    }
    for path in paths {
        let Ok(src) = std::fs::read_to_string(&path) else {
            eprintln!("cannot read {path}");
            continue;
        };
        let t0 = Instant::now();
        let style = detect(&src);
        let t1 = Instant::now();
        let (idx, findings) = validate(&src, &style);
        let t2 = Instant::now();
        println!(
            "{path}: style {} | {} headings, {} items, {} refs, {} contents entries | detect {:.2} ms, index+check {:.2} ms",
            style.name,
            idx.headings_only().count(),
            idx.paragraphs.len() - idx.headings_only().count(),
            idx.refs.len(),
            idx.toc.len(),
            (t1 - t0).as_secs_f64() * 1e3,
            (t2 - t1).as_secs_f64() * 1e3,
        );
        println!("  {}", render::summary(&findings));
        for f in &findings {
            println!(
                "  {}:{} {} {:?} [{}] {}",
                f.line,
                f.paragraph.as_deref().unwrap_or("-"),
                f.code,
                f.severity,
                src.get(f.start..f.end).unwrap_or("").chars().take(60).collect::<String>(),
                f.message
            );
        }
        if verbose {
            print!("{}", idx.render_human());
        }
    }
}
