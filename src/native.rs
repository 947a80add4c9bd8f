//! The native back end on the command line (issue 17, docs/native.md): `build` writes
//! the crate of a rulebook's program, `run --native` builds it once with cargo, keeps
//! the binary in a cache keyed by the program's hash, and plays with it. Without a Rust
//! toolchain, or when the build fails, `run --native` says so and plays with the VM.
//!
//! A natively built binary is this command line with the rulebook's code compiled in
//! ([`crate::native_main`]); `run` uses that code for the program it was generated from
//! and the VM for any other.

use crate::{build_config, Format, Ui};
use kriegsspiel_runtime::native::{program_hash, Native, NativeCode};
use kriegsspiel_runtime::Program;
use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

/// The rulebook code compiled into this binary (set by [`crate::native_main`]).
pub(crate) static BUILT_IN: OnceLock<&'static dyn NativeCode> = OnceLock::new();

/// The built-in code when it was generated from `prog`.
pub(crate) fn built_in_for(prog: &Program) -> Option<Native> {
    let code = *BUILT_IN.get()?;
    Native::for_program(code, prog).ok()
}

/// Where the kriegsspiel sources are: `KRIEGSSPIEL_SOURCE`, else the checkout this
/// binary was built from. The generated crate depends on them by path.
fn source_dir() -> Result<PathBuf, String> {
    let dir = match std::env::var_os("KRIEGSSPIEL_SOURCE") {
        Some(d) if !d.is_empty() => PathBuf::from(d),
        _ => PathBuf::from(env!("CARGO_MANIFEST_DIR")),
    };
    if dir.join("Cargo.toml").is_file() && dir.join("runtime").join("Cargo.toml").is_file() {
        Ok(dir)
    } else {
        Err(format!(
            "the kriegsspiel sources are not at {} (the generated crate builds against them); set KRIEGSSPIEL_SOURCE to a checkout",
            dir.display()
        ))
    }
}

/// The cache of built binaries: `KRIEGSSPIEL_CACHE`, else `$XDG_CACHE_HOME/kriegsspiel`,
/// else `$HOME/.cache/kriegsspiel`.
fn cache_dir() -> Result<PathBuf, String> {
    let var = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(d) = var("KRIEGSSPIEL_CACHE") {
        return Ok(d);
    }
    if let Some(d) = var("XDG_CACHE_HOME") {
        return Ok(d.join("kriegsspiel"));
    }
    match var("HOME") {
        Some(h) => Ok(h.join(".cache").join("kriegsspiel")),
        None => Err("no cache directory: set KRIEGSSPIEL_CACHE (or HOME)".to_string()),
    }
}

/// `kriegsspiel build RULEBOOK -o DIR`: write the crate; exit code.
pub(crate) fn cmd_build(rulebook: &Path, out: &Path, options: &[String], ui: Ui) -> u8 {
    let (_, c) = match build_config(rulebook, Format::Human, Some(options), ui) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let Some(prog) = c.program else {
        say!("error: the rulebook has errors; nothing to build");
        return 1;
    };
    let root = match source_dir() {
        Ok(d) => d,
        Err(e) => {
            say!("error[E0707]: {e}");
            return 2;
        }
    };
    if out.exists() && !out.is_dir() {
        say!("error[E0702]: -o names a directory for the crate; {} is a file", out.display());
        return 2;
    }
    let spec = kriegsspiel_native::CrateSpec {
        rulebook: rulebook.display().to_string(),
        kriegsspiel_dir: root,
        options: options.to_vec(),
    };
    if let Err(e) = kriegsspiel_native::write_crate(&prog, out, &spec) {
        say!("error[E0702]: cannot write the crate into {}: {e}", out.display());
        return 2;
    }
    if !ui.quiet {
        say!(
            "wrote {} (program {:#018x}); build it with\n  cargo build --release --manifest-path {}\nthen run target/release/kriegsspiel-native as you would kriegsspiel (its `run` plays this rulebook natively)",
            out.display(),
            program_hash(&prog),
            out.join("Cargo.toml").display()
        );
    }
    0
}

/// What `run --native` does with the program.
pub(crate) enum Plan {
    /// This binary has the program's code built in: play here with it.
    Here(Native),
    /// Play here with the VM (no toolchain, a failed build: already said why).
    Vm,
    /// The cached binary played the game; its exit code.
    Ran(u8),
}

/// `run --native`: find or build the binary for `prog` and run it with this command's
/// arguments (less `--native`), or say why not and fall back to the VM.
pub(crate) fn run_native(prog: &Program, rulebook: &Path, options: &[String], ui: Ui) -> Plan {
    if let Some(n) = built_in_for(prog) {
        return Plan::Here(n);
    }
    let fallback = |why: String| {
        say!("warning[W0010]: --native: {why}; playing with the VM");
        Plan::Vm
    };
    let hash = program_hash(prog);
    let cache = match cache_dir() {
        Ok(d) => d.join("native"),
        Err(e) => return fallback(e),
    };
    // Keyed by the program and by this binary: a rebuilt kriegsspiel (another runtime,
    // another code generator) builds the rulebook again.
    let slot = cache.join(format!("{hash:016x}-{:016x}", self_fingerprint()));
    let exe = slot.join(format!("kriegsspiel-native{}", std::env::consts::EXE_SUFFIX));
    if !exe.is_file() {
        if let Err(why) = build_binary(prog, hash, &slot, &cache, &exe, rulebook, options, ui) {
            return fallback(why);
        }
    }
    let args: Vec<OsString> = std::env::args_os().skip(1).filter(|a| a != "--native").collect();
    match Command::new(&exe).args(&args).status() {
        Ok(s) => Plan::Ran(s.code().and_then(|c| u8::try_from(c).ok()).unwrap_or(1)),
        Err(e) => fallback(format!("cannot start {}: {e}", exe.display())),
    }
}

/// A fingerprint of this executable (its size and modification time): the cache keeps
/// one binary per program and kriegsspiel build.
fn self_fingerprint() -> u64 {
    let meta = std::env::current_exe().and_then(std::fs::metadata);
    let (len, nanos) = match meta {
        Ok(m) => {
            let t = m.modified().ok().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok());
            (m.len(), t.map(|d| d.as_nanos()).unwrap_or(0))
        }
        Err(_) => (0, 0),
    };
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in len.to_le_bytes().into_iter().chain(nanos.to_le_bytes()) {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// Write the crate into `dir` and build it with cargo (`KRIEGSSPIEL_CARGO`, else
/// `cargo`) into the cache's shared target directory, then move the binary to `exe`.
#[allow(clippy::too_many_arguments)]
fn build_binary(
    prog: &Program,
    hash: u64,
    dir: &Path,
    cache: &Path,
    exe: &Path,
    rulebook: &Path,
    options: &[String],
    ui: Ui,
) -> Result<(), String> {
    let root = source_dir()?;
    let krate = dir.join("crate");
    let spec = kriegsspiel_native::CrateSpec {
        rulebook: rulebook.display().to_string(),
        kriegsspiel_dir: root,
        options: options.to_vec(),
    };
    kriegsspiel_native::write_crate(prog, &krate, &spec)
        .map_err(|e| format!("cannot write the crate into {}: {e}", krate.display()))?;
    let cargo =
        std::env::var_os("KRIEGSSPIEL_CARGO").filter(|v| !v.is_empty()).unwrap_or_else(|| "cargo".into());
    let target = cache.join("target");
    if !ui.quiet {
        say!(
            "building the native code of this rulebook (program {hash:#018x}) with cargo, once; cached in {}",
            dir.display()
        );
    }
    let mut cmd = Command::new(&cargo);
    cmd.arg("build")
        .arg("--release")
        .arg("--manifest-path")
        .arg(krate.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", &target)
        .stdin(Stdio::null())
        .stdout(Stdio::null());
    if ui.quiet {
        cmd.arg("--quiet");
    }
    let status = match cmd.status() {
        Ok(s) => s,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(format!(
                "no Rust toolchain: {} not found (install it with rustup, or set KRIEGSSPIEL_CARGO)",
                Path::new(&cargo).display()
            ))
        }
        Err(e) => return Err(format!("cannot run {}: {e}", Path::new(&cargo).display())),
    };
    if !status.success() {
        return Err(format!("cargo could not build {} ({status})", krate.display()));
    }
    let built = target.join("release").join(format!("kriegsspiel-native{}", std::env::consts::EXE_SUFFIX));
    // Copy then rename, so that a binary in the cache is always whole.
    let part = exe.with_extension("part");
    std::fs::copy(&built, &part)
        .and_then(|_| std::fs::rename(&part, exe))
        .map_err(|e| format!("cannot keep the binary {} in the cache: {e}", built.display()))?;
    let _ = std::io::stderr().flush();
    Ok(())
}
