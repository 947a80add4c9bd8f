//! Every rulebook in `rulebooks/` compiled to Rust by the native back end when this
//! crate builds (`build.rs`), for the differential test (`tests/differential.rs`), which
//! plays each scenario's games on the VM and on this code and requires the same logs.

include!(concat!(env!("OUT_DIR"), "/all.rs"));

/// A mutant of a bundled rulebook that still compiles, translated by `build.rs`.
pub struct Mutant {
    /// The rulebook mutated (its directory name).
    pub rulebook: &'static str,
    /// The file and the mutations applied to it, to reproduce it.
    pub what: &'static str,
    /// The directory holding the mutant's sources.
    pub dir: &'static str,
    /// Its generated code.
    pub code: &'static dyn kriegsspiel_runtime::native::NativeCode,
}
