//! kriegsspiel-runtime: bytecode, verifier, VM, game state, dice, agents and log.
//!
//! A compiled rulebook is a [`program::Program`] (plain data, serde). [`game::play`]
//! runs a scenario to its victory determination. This crate depends on neither the
//! DSL nor the compiler.

pub mod agent;
mod board;
mod builtins;
pub mod checkpoint;
pub mod dice;
pub mod disasm;
mod effects;
mod facing;
mod instr;
/// The bit of a unit's facing that marks a vertex facing (see `State`).
pub const FACING_VERTEX: u8 = facing::VERTEX;
pub mod error;
pub mod game;
mod invariants;
pub mod log;
mod memo;
pub mod native;
pub mod op;
pub mod players;
pub mod program;
pub mod search;
pub mod session;
pub mod state;
pub mod value;
pub mod verify;
pub mod view;
mod vm;
mod within;

pub use board::space_labels;
pub use error::{GameResult, RuntimeError};
pub use game::{play, AgentKind, GameOptions, GameOutcome, Series};
pub use program::Program;
pub use session::Session;
pub use value::Value;
pub use vm::Stats;
