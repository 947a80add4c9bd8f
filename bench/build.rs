//! Peter the Great plus `src/bench.ks` (the attack benchmark's functions) compiled and
//! translated to Rust by the native back end, into `$OUT_DIR/peter_bench.rs`.

use std::path::Path;

fn main() {
    let manifest = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into());
    let out = std::env::var("OUT_DIR").unwrap_or_else(|_| ".".into());
    let peter = Path::new(&manifest).join("../rulebooks/peter-the-great");
    let bench = Path::new(&manifest).join("src/bench.ks");
    println!("cargo:rerun-if-changed={}", peter.display());
    println!("cargo:rerun-if-changed={}", bench.display());
    if let Ok(rd) = std::fs::read_dir(&peter) {
        for e in rd.flatten() {
            println!("cargo:rerun-if-changed={}", e.path().display());
        }
    }
    let mut sources =
        kriegsspiel_compiler::load(&peter).unwrap_or_else(|e| panic!("rulebooks/peter-the-great: {e}"));
    let text = std::fs::read_to_string(&bench).unwrap_or_else(|e| panic!("{}: {e}", bench.display()));
    sources.add("bench.ks", text);
    let Some(prog) = kriegsspiel_compiler::compile(&sources).program else {
        panic!("peter-the-great with src/bench.ks does not compile")
    };
    // Included as a module: its inner attributes and doc comments go on the `mod` item.
    let code: String =
        kriegsspiel_native::generate_included(&prog, "rulebooks/peter-the-great + bench/src/bench.ks");
    let file = Path::new(&out).join("peter_bench.rs");
    if let Err(e) = std::fs::write(&file, code) {
        panic!("{}: {e}", file.display());
    }
}
