//! Facing and faces (formations) of units.
//!
//! - **Facing.** On a hex map every unit faces one of the six hexsides of its hex,
//!   numbered as `direction()` numbers them (0 north, clockwise), or, for games that
//!   need it, one of the six vertices (the vertex clockwise of hexside `d` is vertex
//!   `d`). `UnitState::facing` holds the hexside in bits 0-2 and the vertex flag in
//!   bit 3. Facing is plain unit state: it changes only by `face u to d;` (logged),
//!   and the movement search does not carry it (see docs/language.md, 6.4b: a change
//!   on entry is free in the games we know, so only the first step of a move depends
//!   on the facing the unit starts with, which the cost hook reads as `u.facing`).
//! - **Faces.** A unit type may declare faces (line, column, square; mounted,
//!   dismounted...), each with its classes and the ratings it gives instead of the
//!   counter's, and the changes allowed between them. `UnitState::face` indexes the
//!   type's faces; class tests and rating reads go through it.

use crate::error::RuntimeError;
use crate::state::UnitStatus;
use crate::value::Value;
use crate::vm::{Exec, Vm};

/// Bit of `UnitState::facing` marking a vertex facing.
pub const VERTEX: u8 = 8;

/// The hexside of a facing (its low bits).
#[inline]
pub fn hexside(facing: u8) -> u8 {
    facing & 7
}

/// `relative`: the hexside `dir` of a hex counted clockwise from `facing`'s hexside.
#[inline]
pub fn relative(facing: u8, dir: u8) -> u8 {
    (dir + 6 - hexside(facing) % 6) % 6
}

impl<'p> Vm<'p> {
    /// Counter `u`'s current face (0 for an unknown counter).
    #[inline]
    pub(crate) fn face_of(&self, u: u16) -> u8 {
        self.state.units.get(u as usize).map(|s| s.face).unwrap_or(0)
    }

    /// Rating `r` of counter `u` at step `step` as its current face shows it: the
    /// face's value when the face gives one, else the counter's.
    #[inline]
    pub(crate) fn face_rating(&self, u: u16, r: u16, step: u8) -> Option<i64> {
        let c = self.prog.counters.get(u as usize)?;
        let ty = self.prog.unit_types.get(c.unit_type as usize)?;
        if ty.faces.is_empty() {
            return None;
        }
        let f = self.face_of(u);
        let steps = match c.face_values.iter().find(|(fi, ri, _)| *fi == f && *ri == r) {
            Some((_, _, steps)) => steps,
            None => &ty.faces.get(f as usize)?.ratings.iter().find(|(ri, _)| *ri == r)?.1,
        };
        steps.get(step as usize).or(steps.last()).copied()
    }

    /// `u.formation`: the current face's code, Nil for a type without faces.
    pub(crate) fn formation_value(&self, u: u16) -> Value {
        let Some(c) = self.prog.counters.get(u as usize) else { return Value::Nil };
        match self.prog.unit_types.get(c.unit_type as usize) {
            Some(ty) => {
                ty.faces.get(self.face_of(u) as usize).map(|f| Value::Sym(f.sym)).unwrap_or(Value::Nil)
            }
            None => Value::Nil,
        }
    }

    /// The index among counter `u`'s faces of the face named by code `sym`.
    fn face_index(&self, u: u16, sym: u16) -> Option<u8> {
        let c = self.prog.counters.get(u as usize)?;
        let ty = self.prog.unit_types.get(c.unit_type as usize)?;
        ty.faces.iter().position(|f| f.sym == sym).and_then(|i| u8::try_from(i).ok())
    }

    /// `can_form(u, f)`: a declared change from the current face to `f` (false for the
    /// face the unit already shows, and for a face its type does not have).
    pub(crate) fn can_form(&self, u: u16, f: Value) -> bool {
        let Value::Sym(sym) = f else { return false };
        let Some(to) = self.face_index(u, sym) else { return false };
        let from = self.face_of(u);
        let Some(c) = self.prog.counters.get(u as usize) else { return false };
        self.prog
            .unit_types
            .get(c.unit_type as usize)
            .map(|ty| ty.transitions.contains(&(from, to)))
            .unwrap_or(false)
    }

    /// `relative(u, h)`.
    pub(crate) fn relative_of(&self, u: u16, h: u32) -> Value {
        let Some(us) = self.state.units.get(u as usize) else { return Value::Int(-1) };
        if us.status != UnitStatus::OnMap {
            return Value::Int(-1);
        }
        match self.board.direction(us.hex, h) {
            Some(d) => Value::Int(i64::from(relative(us.facing, d))),
            None => Value::Int(-1),
        }
    }

    /// `face u to d;` (`vertex`: the vertex clockwise of hexside d).
    pub(crate) fn exec_face(&mut self, u: Value, dir: Value, vertex: bool) -> Exec<()> {
        let Value::Unit(u) = u else {
            return Err(RuntimeError::new("R0002", format!("`face`: expected a unit, found {u:?}")).into());
        };
        let d = match dir {
            Value::Int(d) if (0..6).contains(&d) => d as u8,
            other => {
                return Err(RuntimeError::new(
                    "R0018",
                    format!("a facing is a hexside number 0-5, not {other:?}"),
                )
                .into())
            }
        };
        let new = d | if vertex { VERTEX } else { 0 };
        let Some(st) = self.state.units.get_mut(u as usize) else {
            return Err(RuntimeError::new("R0002", "`face`: no such unit").into());
        };
        if st.facing == new {
            return Ok(());
        }
        st.facing = new;
        if self.log.enabled() {
            let name = self.prog.counters[u as usize].name.clone();
            let facing = i64::from(d);
            self.event(
                "face",
                crate::log::Event::Face { unit: name, facing, vertex: vertex.then_some(true) },
            );
        }
        self.check_triggers()
    }

    /// `form u F;`: by a declared transition, else R0018.
    pub(crate) fn exec_form(&mut self, u: Value, f: Value) -> Exec<()> {
        let Value::Unit(u) = u else {
            return Err(RuntimeError::new("R0002", format!("`form`: expected a unit, found {u:?}")).into());
        };
        let (Some(c), Value::Sym(sym)) = (self.prog.counters.get(u as usize), f) else {
            return Err(
                RuntimeError::new("R0002", format!("`form`: expected a formation, found {f:?}")).into()
            );
        };
        let ty_name =
            self.prog.unit_types.get(c.unit_type as usize).map(|t| t.name.clone()).unwrap_or_default();
        let f_name = self.prog.symbols.get(sym as usize).map(|s| s.name.clone()).unwrap_or_default();
        let Some(to) = self.face_index(u, sym) else {
            return Err(RuntimeError::new(
                "R0018",
                format!("{} ({ty_name}) has no formation {f_name}", c.name),
            )
            .into());
        };
        let from = self.face_of(u);
        if from == to {
            return Ok(());
        }
        if !self.can_form(u, f) {
            let from_name = match self.formation_value(u) {
                Value::Sym(s) => {
                    self.prog.symbols.get(s as usize).map(|s| s.name.clone()).unwrap_or_default()
                }
                _ => String::new(),
            };
            return Err(RuntimeError::new(
                "R0018",
                format!("{} ({ty_name}) may not change from {from_name} to {f_name}: no such transition is declared", c.name),
            )
            .into());
        }
        let name = c.name.clone();
        let from_v = self.formation_value(u);
        if let Some(st) = self.state.units.get_mut(u as usize) {
            st.face = to;
        }
        if self.log.enabled() {
            let sym_name = |v: Value| match v {
                Value::Sym(s) => {
                    self.prog.symbols.get(s as usize).map(|s| s.name.clone()).unwrap_or_default()
                }
                _ => String::new(),
            };
            let from_name = sym_name(from_v);
            self.event(
                "form",
                crate::log::Event::Form { unit: name, from: from_name, to: f_name.to_string() },
            );
        }
        self.check_triggers()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_counts_clockwise_from_the_facing() {
        assert_eq!(relative(0, 0), 0);
        assert_eq!(relative(2, 5), 3);
        assert_eq!(relative(5, 0), 1);
        assert_eq!(relative(3 | VERTEX, 4), 1);
        assert_eq!(hexside(4 | VERTEX), 4);
    }
}
