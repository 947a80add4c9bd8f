//! Every rulebook in `rulebooks/` compiled to Rust by the native back end when this
//! crate builds (`build.rs`), for the differential test (`tests/differential.rs`), which
//! plays each scenario's games on the VM and on this code and requires the same logs.

include!(concat!(env!("OUT_DIR"), "/all.rs"));
