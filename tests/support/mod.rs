//! Test support shared by the root package's integration tests (each test file uses
//! what it needs of it).

#[allow(dead_code)]
pub mod inline;
#[allow(dead_code)]
pub mod napoleon;
#[allow(dead_code)]
pub mod rulebook;
#[allow(dead_code)]
pub mod texts;
