//! Compile every rulebook under `../rulebooks` and translate it to Rust with the native
//! back end, into `$OUT_DIR`: the differential test then plays the same games on the
//! VM and on this code.

use std::fmt::Write;
use std::path::Path;

fn main() {
    let manifest = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into());
    let out = std::env::var("OUT_DIR").unwrap_or_else(|_| ".".into());
    let rulebooks = Path::new(&manifest).join("..").join("rulebooks");
    println!("cargo:rerun-if-changed={}", rulebooks.display());
    // A comma-separated list of rulebook directories to translate, the rest left out
    // (a quicker build while working on the back end); all of them when unset.
    println!("cargo:rerun-if-env-changed=KRIEGSSPIEL_NATIVE_ONLY");
    let only: Option<Vec<String>> = std::env::var("KRIEGSSPIEL_NATIVE_ONLY")
        .ok()
        .filter(|s| !s.trim().is_empty())
        .map(|s| s.split(',').map(|x| x.trim().to_string()).collect());
    let mut dirs: Vec<_> = std::fs::read_dir(&rulebooks)
        .map(|rd| rd.filter_map(|e| e.ok()).map(|e| e.path()).filter(|p| p.is_dir()).collect())
        .unwrap_or_default();
    dirs.sort();
    let mut all = String::new();
    let mut table = String::new();
    for dir in dirs {
        let Some(name) = dir.file_name().and_then(|n| n.to_str()).map(str::to_string) else { continue };
        if only.as_ref().is_some_and(|o| !o.contains(&name)) {
            continue;
        }
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .map(|rd| rd.filter_map(|e| e.ok()).map(|e| e.path()).collect())
            .unwrap_or_default();
        files.sort();
        for f in &files {
            println!("cargo:rerun-if-changed={}", f.display());
        }
        let sources = match kriegsspiel_compiler::load(&dir) {
            Ok(s) => s,
            Err(e) => panic!("rulebooks/{name}: {e}"),
        };
        let Some(prog) = kriegsspiel_compiler::compile(&sources).program else {
            panic!("rulebooks/{name} does not compile (kriegsspiel check rulebooks/{name})")
        };
        let module = name.replace('-', "_");
        // The module is included, not a file of its own: its inner attributes and inner
        // doc comments go on the `mod` item instead.
        let code: String = kriegsspiel_native::generate_included(&prog, &format!("rulebooks/{name}"));
        let file = Path::new(&out).join(format!("{module}.rs"));
        if let Err(e) = std::fs::write(&file, code) {
            panic!("{}: {e}", file.display());
        }
        let _ = writeln!(
            all,
            "/// rulebooks/{name} compiled to Rust.\n#[allow(unused_mut, unused_variables, unused_macros, unused_imports, unreachable_code, clippy::all)]\npub mod {module} {{\n    include!(concat!(env!(\"OUT_DIR\"), \"/{module}.rs\"));\n}}"
        );
        let _ = writeln!(table, "        {name:?} => &{module}::CODE,");
    }
    let _ = writeln!(
        all,
        "\n/// The generated code of a bundled rulebook, by its directory name.\npub fn code(name: &str) -> Option<&'static dyn kriegsspiel_runtime::native::NativeCode> {{\n    Some(match name {{\n{table}        _ => return None,\n    }})\n}}"
    );
    let _ = writeln!(
        all,
        "\n/// Whether every bundled rulebook was translated (`KRIEGSSPIEL_NATIVE_ONLY` unset).\npub const ALL_TRANSLATED: bool = {};",
        only.is_none()
    );
    let file = Path::new(&out).join("all.rs");
    if let Err(e) = std::fs::write(&file, all) {
        panic!("{}: {e}", file.display());
    }
}
