//! `kriegsspiel text` without the main binary:
//! `cargo run -p kriegsspiel-text --example text -- PATH [--index] [--format json] [--style NAME]`.

use kriegsspiel_text::{run_cli, TextOptions};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut opts = TextOptions::default();
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--index" => opts.index = true,
            "--format" => {
                i += 1;
                opts.json = args.get(i).map(|s| s == "json").unwrap_or(false);
            }
            "--style" => {
                i += 1;
                opts.style = args.get(i).cloned();
            }
            p => opts.path = p.into(),
        }
        i += 1;
    }
    let code = run_cli(&opts, &mut std::io::stdout(), &mut std::io::stderr());
    std::process::exit(code);
}
