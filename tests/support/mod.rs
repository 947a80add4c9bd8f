//! Test support shared by the root package's integration tests.

pub mod texts;
