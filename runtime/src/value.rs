//! Runtime values: small, `Copy`, no heap pointers (lists live in the VM's list arena).

use serde::{Deserialize, Serialize};

/// One register's content.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, Default)]
pub enum Value {
    #[default]
    Nil,
    Int(i64),
    Bool(bool),
    Side(u8),
    /// A counter of the order of battle (index into `Program::counters`).
    Unit(u16),
    /// Dense hex index of the map.
    Hex(u32),
    /// A result code (index into `Program::symbols`).
    Sym(u16),
    /// A terrain type (index into `Program::terrains`).
    Terrain(u16),
    /// A unit type (index into `Program::unit_types`).
    UnitType(u16),
    /// A list in the VM's list arena.
    List(u32),
}

impl Value {
    #[inline]
    pub fn as_int(self) -> Option<i64> {
        match self {
            Value::Int(i) => Some(i),
            _ => None,
        }
    }
    #[inline]
    pub fn as_bool(self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(b),
            _ => None,
        }
    }
}
