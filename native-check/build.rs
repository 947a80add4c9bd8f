//! Compile every rulebook under `../rulebooks` and translate it to Rust with the native
//! back end, into `$OUT_DIR`: the differential test then plays the same games on the
//! VM and on this code. Also a few mutants of some of them (the property tests'
//! mutations, `tests/support/mutate.rs`, from a fixed seed): those that still compile
//! to another program are translated too, and their sources written to
//! `$OUT_DIR/mutants/`, for the same comparison on programs nobody wrote.

use std::fmt::Write;
use std::path::{Path, PathBuf};

#[path = "../tests/support/mutate.rs"]
#[allow(dead_code)]
mod mutate;

/// The rulebooks mutated, and how many compiling mutants of each are kept by default
/// (`KRIEGSSPIEL_MUTANTS=N` keeps N of each; 0 none). Few of Frederick's: its code is
/// 2.8 MB a copy, and every copy lengthens the build.
const MUTATED: &[(&str, usize)] =
    &[("peter-the-great", 3), ("frederick-the-great", 1), ("river-road", 4), ("blocks-and-cards", 4)];
/// Candidates tried per mutant wanted before giving up on a rulebook.
const TRIES_PER_MUTANT: usize = 40;

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
    let mut mutant_table = String::new();
    let _ = std::fs::remove_dir_all(Path::new(&out).join("mutants"));
    println!("cargo:rerun-if-env-changed=KRIEGSSPIEL_MUTANTS");
    println!("cargo:rerun-if-env-changed=KRIEGSSPIEL_MUTANT_SEED");
    println!("cargo:rerun-if-changed={}", Path::new(&manifest).join("../tests/support/mutate.rs").display());
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
        module_item(&mut all, &format!("rulebooks/{name}"), &module);
        let _ = writeln!(table, "        {name:?} => &{module}::CODE,");
        if let Some(&(_, n)) = MUTATED.iter().find(|(r, _)| *r == name) {
            let n = mutant_count(n);
            mutants(&name, &sources, &prog, n, Path::new(&out), &mut all, &mut mutant_table);
        }
    }
    let _ = writeln!(
        all,
        "\n/// The mutants translated (`build.rs`, `KRIEGSSPIEL_MUTANTS`).\npub static MUTANTS: &[crate::Mutant] = &[\n{mutant_table}];"
    );
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

/// Add to `all` the module `module` (in `$OUT_DIR/{module}.rs`), the code of `what`.
fn module_item(all: &mut String, what: &str, module: &str) {
    let _ = writeln!(
        all,
        "/// {what} compiled to Rust.\n#[allow(unused_mut, unused_variables, unused_macros, unused_imports, unreachable_code, unused_labels, unreachable_patterns, clippy::all)]\npub mod {module} {{\n    include!(concat!(env!(\"OUT_DIR\"), \"/{module}.rs\"));\n}}"
    );
}

/// How many mutants of a rulebook to keep: `default`, or `KRIEGSSPIEL_MUTANTS`.
fn mutant_count(default: usize) -> usize {
    std::env::var("KRIEGSSPIEL_MUTANTS").ok().and_then(|v| v.trim().parse().ok()).unwrap_or(default)
}

/// Draw mutants of rulebook `name` (its `sources`, compiled to `prog`) from the fixed
/// seed until `n` of them compile to a program other than `prog`; write each one's
/// sources under `out/mutants/`, translate it, and add it to `all` and `table`.
fn mutants(
    name: &str,
    sources: &kriegsspiel_dsl::SourceMap,
    prog: &kriegsspiel_runtime::Program,
    n: usize,
    out: &Path,
    all: &mut String,
    table: &mut String,
) {
    if n == 0 {
        return;
    }
    let files: Vec<(String, String)> = sources
        .ids()
        .map(|id| {
            let file = Path::new(sources.name(id)).file_name().map(|f| f.to_string_lossy().into_owned());
            (file.unwrap_or_else(|| sources.name(id).to_string()), sources.text(id).to_string())
        })
        .collect();
    let seed: u64 =
        std::env::var("KRIEGSSPIEL_MUTANT_SEED").ok().and_then(|v| v.trim().parse().ok()).unwrap_or(17);
    // One stream per rulebook, so that adding a rulebook leaves the others' mutants.
    let salt =
        name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3));
    let mut stream = mutate::Stream(seed ^ salt);
    // The original's code without its program hash: a mutant whose code is the same
    // (a change to a comment, an example, a span) plays the same and is not kept.
    let strip = |code: &str, p: &kriegsspiel_runtime::Program| -> String {
        let hash = format!("{:#018x}", kriegsspiel_runtime::native::program_hash(p));
        code.lines().filter(|l| !l.contains(&hash)).collect::<Vec<_>>().join("\n")
    };
    let label = format!("A mutant of rulebooks/{name}");
    let original = strip(&kriegsspiel_native::generate_included(prog, &label), prog);
    let mut kept = 0;
    // Games never run the worked examples: mutate the other files.
    let targets: Vec<usize> = (0..files.len()).filter(|&i| !files[i].0.starts_with("examples")).collect();
    for _ in 0..n * TRIES_PER_MUTANT {
        if kept == n {
            break;
        }
        let Some(&file) = targets.get(stream.index() % targets.len().max(1)) else { return };
        let muts: Vec<mutate::Mutation> = (0..1 + stream.next_u64() % 2).map(|_| stream.mutation()).collect();
        let mutated = mutate::mutate_files(&files, file, &muts);
        if mutated == files {
            continue;
        }
        let module = format!("mutant_{}_{}", name.replace('-', "_"), kept + 1);
        let dir: PathBuf = out.join("mutants").join(&module);
        let _ = std::fs::remove_dir_all(&dir);
        if let Err(e) = std::fs::create_dir_all(&dir) {
            panic!("{}: {e}", dir.display());
        }
        for (f, text) in &mutated {
            if let Err(e) = std::fs::write(dir.join(f), text) {
                panic!("{}: {e}", dir.join(f).display());
            }
        }
        // Compiled from the files written, as the test will load them.
        let Ok(sm) = kriegsspiel_compiler::load(&dir) else { continue };
        let Some(mprog) = kriegsspiel_compiler::compile(&sm).program else { continue };
        let code = kriegsspiel_native::generate_included(&mprog, &label);
        if strip(&code, &mprog) == original {
            continue;
        }
        kept += 1;
        let what = format!("{} of {name}: {muts:?}", mutated[file].0);
        let path = out.join(format!("{module}.rs"));
        if let Err(e) = std::fs::write(&path, code) {
            panic!("{}: {e}", path.display());
        }
        module_item(all, &label, &module);
        let _ = writeln!(
            table,
            "    crate::Mutant {{ rulebook: {name:?}, what: {what:?}, dir: concat!(env!(\"OUT_DIR\"), \"/mutants/{module}\"), code: &{module}::CODE }},"
        );
    }
    if kept < n {
        println!(
            "cargo:warning=native-check: only {kept} of {n} mutants of {name} compiled in {} tries",
            n * TRIES_PER_MUTANT
        );
    }
}
