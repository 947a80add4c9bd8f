//! The native back end on the command line (issue 17, docs/native.md): `build` writes
//! the crate, `run --native` finds the cached binary and hands the run to it, and
//! without a toolchain it says so (W0010) and plays the same game with the VM. That the
//! generated code plays as the VM does is `native-check/tests/differential.rs`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn ks(args: &[&str], env: &[(&str, &Path)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_kriegsspiel"));
    c.args(args).current_dir(root());
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ks-native-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch dir");
    d
}

const PETER: &str = "rulebooks/peter-the-great";

/// The program hash `build` wrote into the crate's package name.
fn crate_hash(dir: &Path) -> String {
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).expect("Cargo.toml written");
    let at = manifest.find("name = \"kriegsspiel-native-").expect("package named for the program") + 27;
    manifest[at..at + 16].to_string()
}

#[test]
fn build_writes_a_crate_named_for_the_program_with_readable_rules() {
    let dir = scratch("build");
    let out = dir.join("peter");
    let o = ks(&["build", PETER, "-o", out.to_str().unwrap()], &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let hash = crate_hash(&out);
    assert!(hash.chars().all(|c| c.is_ascii_hexdigit()), "{hash}");
    assert!(stderr(&o).contains(&format!("0x{hash}")), "{}", stderr(&o));
    let manifest = std::fs::read_to_string(out.join("Cargo.toml")).unwrap();
    assert!(manifest.contains("[workspace]") && manifest.contains("[profile.release]"), "{manifest}");
    assert!(out.join("Cargo.lock").is_file());
    let main = std::fs::read_to_string(out.join("src/main.rs")).unwrap();
    assert!(main.contains("kriegsspiel::native_main(&rules::CODE)"), "{main}");
    let rules = std::fs::read_to_string(out.join("src/rules.rs")).unwrap();
    assert!(rules.contains("impl NativeCode for Code"));
    assert!(rules.contains(&format!("0x{hash}")), "the code carries the program hash");
    // A rule's function is recognisable: the CRT's paragraph in a comment.
    assert!(rules.contains("§7.1.2"), "paragraph comments");
    assert!(!rules.contains("unsafe"), "no unsafe in generated code");
    // Structured control flow: loops and labelled blocks, no program counter.
    assert!(rules.contains(": loop {") && rules.contains("break 'b"), "structured control flow");
    assert!(!rules.contains("match pc"), "no dispatch on a program counter");
    // Another program, another crate.
    let other = dir.join("other");
    let o = ks(&["build", "rulebooks/frederick-the-great", "-o", other.to_str().unwrap()], &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_ne!(crate_hash(&other), hash);
}

#[test]
fn build_refuses_missing_sources_and_a_file_as_the_directory() {
    let dir = scratch("refuse");
    let o = ks(&["build", PETER, "-o", dir.join("x").to_str().unwrap()], &[("KRIEGSSPIEL_SOURCE", &dir)]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("error[E0707]"), "{}", stderr(&o));
    let file = dir.join("file");
    std::fs::write(&file, "x").unwrap();
    let o = ks(&["build", PETER, "-o", file.to_str().unwrap()], &[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("error[E0702]"), "{}", stderr(&o));
}

/// No toolchain: a warning, then the VM plays the very game `run` plays without
/// `--native`.
#[test]
fn without_cargo_run_native_warns_and_plays_the_same_game_with_the_vm() {
    let dir = scratch("nocargo");
    let cargo = dir.join("no-such-cargo");
    let args = ["run", PETER, "--scenario", "14.4", "--seed", "3", "--format", "jsonl"];
    let vm = ks(&args, &[]);
    assert!(vm.status.success(), "{}", stderr(&vm));
    let mut with = args.to_vec();
    with.push("--native");
    let o = ks(&with, &[("KRIEGSSPIEL_CARGO", &cargo), ("KRIEGSSPIEL_CACHE", &dir)]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("warning[W0010]"), "{}", stderr(&o));
    assert!(stderr(&o).contains("no Rust toolchain"), "{}", stderr(&o));
    assert!(!vm.stdout.is_empty());
    assert_eq!(o.stdout, vm.stdout, "the same log");
}

/// A binary in the cache under the program's hash is run with the same arguments less
/// `--native`, and its exit code is `run`'s (a stand-in script records what it got).
#[cfg(unix)]
#[test]
fn run_native_hands_the_run_to_the_cached_binary() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch("cached");
    let cache = dir.join("cache");
    let no_cargo = dir.join("no-such-cargo");
    let env = [("KRIEGSSPIEL_CACHE", cache.as_path()), ("KRIEGSSPIEL_CARGO", no_cargo.as_path())];
    // Without cargo the first run names its cache slot, then falls back to the VM.
    let o = ks(&["run", PETER, "--native", "--scenario", "14.4", "--format", "jsonl"], &env);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    let slot =
        PathBuf::from(err.split("cached in ").nth(1).and_then(|r| r.lines().next()).expect("the slot named"));
    let krate = dir.join("crate");
    let o = ks(&["build", PETER, "-o", krate.to_str().unwrap()], &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let name = slot.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
    assert!(
        name.starts_with(&format!("{}-", crate_hash(&krate))),
        "the slot is keyed by the program: {name}"
    );
    assert!(slot.starts_with(cache.join("native")), "{}", slot.display());
    std::fs::create_dir_all(&slot).unwrap();
    let exe = slot.join("kriegsspiel-native");
    std::fs::write(&exe, "#!/bin/sh\necho \"stand-in: $*\"\nexit 3\n").unwrap();
    std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
    let o = ks(&["run", PETER, "--native", "--scenario", "14.4", "--games", "2"], &env);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(out.trim(), format!("stand-in: run {PETER} --scenario 14.4 --games 2"));
    assert!(!stderr(&o).contains("W0010"), "{}", stderr(&o));
}

/// The whole path with the real toolchain: `run --native` writes the crate, builds it
/// with cargo into a fresh cache, and plays with the built binary the very game the VM
/// plays; the next run finds the binary in the cache and builds nothing, and a batch
/// handed to it reports what the VM's batch reports. Frederick, the quickest rulebook
/// to build (a minute or two: the kriegsspiel crates are compiled once into the cache).
#[test]
fn run_native_builds_with_cargo_caches_and_plays_the_vms_game() {
    let dir = scratch("real");
    let cache = dir.join("cache");
    let env = [("KRIEGSSPIEL_CACHE", cache.as_path())];
    let fred = "rulebooks/frederick-the-great";
    let args = ["run", fred, "--scenario", "1757", "--seed", "2", "--format", "jsonl"];
    let vm = ks(&args, &[]);
    assert!(vm.status.success(), "{}", stderr(&vm));
    let mut with = args.to_vec();
    with.push("--native");
    let built = ks(&with, &env);
    assert!(built.status.success(), "{}", stderr(&built));
    let err = stderr(&built);
    assert!(!err.contains("W0010"), "the build failed and the VM played instead: {err}");
    assert!(err.contains("building the native code"), "{err}");
    let slot =
        PathBuf::from(err.split("cached in ").nth(1).and_then(|r| r.lines().next()).expect("the slot named"));
    assert!(slot.join("kriegsspiel-native").is_file(), "the binary is kept in {}", slot.display());
    assert!(!vm.stdout.is_empty());
    assert_eq!(built.stdout, vm.stdout, "the native binary's log is the VM's");
    // Cached: the next run builds nothing and plays the same game.
    let again = ks(&with, &env);
    assert!(again.status.success(), "{}", stderr(&again));
    assert!(!stderr(&again).contains("building"), "{}", stderr(&again));
    assert_eq!(again.stdout, vm.stdout);
    // A batch: the same summary but for the wall-clock fields.
    let summary = |o: &Output| {
        assert!(matches!(o.status.code(), Some(0 | 1)), "{}", stderr(o));
        let mut v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("a JSON summary");
        for k in ["seconds", "seconds_per_game", "threads"] {
            v.as_object_mut().expect("object").remove(k);
        }
        v
    };
    let batch = ["run", fred, "--scenario", "1757", "--games", "3", "--jobs", "1", "--format", "json"];
    let mut nat = batch.to_vec();
    nat.push("--native");
    let (a, b) = (ks(&batch, &[]), ks(&nat, &env));
    assert!(!stderr(&b).contains("W0010"), "{}", stderr(&b));
    assert_eq!(summary(&a), summary(&b));
}
