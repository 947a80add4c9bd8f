//! The hot instructions other than arithmetic and control flow, one method each: list
//! and hex iteration, unit fields, classes, markers, fused tests, calls and built-ins.
//!
//! The interpreter's `Vm::step` runs them through these methods, and native code
//! (`native.rs`) calls the same methods directly for the instruction it knows at build
//! time, without `step`'s dispatch: the two back ends share each instruction's code.
//! Each returns what the instruction computed (the caller writes the destination
//! register or takes the branch), or the interpreter's located error.

use crate::board::Board;
use crate::error::RuntimeError;
use crate::op::{Builtin, Field, Op, Reg, Static, Test, NO_REG};
use crate::program::{FnId, Function};
use crate::value::Value;
use crate::vm::{Exec, Vm};

impl<'p> Vm<'p> {
    /// One step of a loop over the list in r[list] ([`crate::op::Op::IterNext`] and
    /// its rotated forms): the next element into r[dst] and r[idx] advanced, true; or
    /// false when the list is done. `start`: the first step (index 0).
    #[inline(always)]
    pub(crate) fn op_iter_list(
        &mut self,
        f: FnId,
        at: usize,
        base: usize,
        (list, idx, dst): (Reg, Reg, Reg),
        start: bool,
    ) -> Exec<bool> {
        let i = self.loop_index(f, at, base, idx, start)?;
        let item = match self.regs[base + list as usize] {
            Value::List(l) => match self.lists.get(l as usize) {
                Some(items) => items.get(i.max(0) as usize).copied(),
                None => return Err(self.located(f, at, RuntimeError::new("R0002", "dangling list"))),
            },
            other => {
                return Err(self.located(
                    f,
                    at,
                    RuntimeError::new("R0002", format!("expected a list, found {other:?}")),
                ))
            }
        };
        match item {
            Some(x) if i >= 0 => {
                self.regs[base + dst as usize] = x;
                self.regs[base + idx as usize] = Value::Int(i + 1);
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    /// The index a loop step reads: 0 on its first step, else r[idx].
    #[inline(always)]
    fn loop_index(&self, f: FnId, at: usize, base: usize, idx: Reg, start: bool) -> Exec<i64> {
        if start {
            return Ok(0);
        }
        match self.regs[base + idx as usize] {
            Value::Int(i) => Ok(i),
            other => Err(self.located(f, at, RuntimeError::new("R0002", format!("bad index {other:?}")))),
        }
    }

    /// One step of a loop over the units in hex r[hex] ([`crate::op::Op::IterAt`] and
    /// its rotated forms), as [`Vm::op_iter_list`].
    #[inline(always)]
    pub(crate) fn op_iter_at(
        &mut self,
        f: FnId,
        at: usize,
        base: usize,
        (hex, idx, dst): (Reg, Reg, Reg),
        start: bool,
    ) -> Exec<bool> {
        let h = match self.regs[base + hex as usize] {
            Value::Hex(h) => h,
            _ => return Err(self.located(f, at, RuntimeError::new("R0002", "UnitsAt: expected a hex"))),
        };
        let i = self.loop_index(f, at, base, idx, start)?;
        if i == 0 && self.rec.active {
            self.rec.hex(h, crate::memo::ALL_UNITS, &self.board);
        }
        let item = if i < 0 { None } else { self.occ.get(h as usize).and_then(|v| v.get(i as usize)) };
        match item {
            Some(&u) => {
                self.regs[base + dst as usize] = Value::Unit(u);
                self.regs[base + idx as usize] = Value::Int(i + 1);
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// A fused built-in test ([`crate::op::Op::BrTest`]) on r[x], r[y] and `k`.
    #[inline(always)]
    pub(crate) fn op_test(
        &mut self,
        f: FnId,
        func: &Function,
        at: usize,
        base: usize,
        (test, x, y, k): (Test, Reg, Reg, u16),
    ) -> Exec<bool> {
        let bad = |b: &str, what: &str| RuntimeError::new("R0002", format!("{b}: expected {what}"));
        let prog = self.prog;
        let (vx, vy) = (self.regs[base + x as usize], self.regs[base + y as usize]);
        Ok(match (test, vx) {
            (Test::Crosses, Value::Hex(a)) => match vy {
                Value::Hex(b) => {
                    let mask = Board::side_mask(&prog.map, &self.board, a, b);
                    k < 32 && mask & (1 << k) != 0
                }
                _ => return Err(self.located(f, at, bad("Crosses", "a hex"))),
            },
            (Test::InRegion, Value::Hex(h)) => match prog.map.regions.get(k as usize) {
                Some(region) => region.hexes.binary_search(&h).is_ok(),
                None => return Err(self.located(f, at, bad("InRegion", "a region"))),
            },
            (Test::OccupiedBy, Value::Hex(h)) => match vy {
                Value::Side(s) => {
                    if self.rec.active {
                        self.rec.hex(h, crate::memo::side_layer(s), &self.board);
                    }
                    self.occ
                        .get(h as usize)
                        .map(|v| v.iter().any(|&u| self.state.units[u as usize].side == s))
                        .unwrap_or(false)
                }
                _ => return Err(self.located(f, at, bad("OccupiedBy", "a side"))),
            },
            (Test::InEzoc, Value::Hex(h)) => match vy {
                Value::Side(s) => {
                    self.cur_para = func.paras.get(at).copied().unwrap_or(func.para);
                    match self.in_ezoc(h, s) {
                        Ok(b) => b,
                        Err(h) => return Err(self.relocated(f, at, h)),
                    }
                }
                _ => return Err(self.located(f, at, bad("InEzoc", "a side"))),
            },
            (t, _) => return Err(self.located(f, at, bad(&format!("{t:?}"), "a hex"))),
        })
    }

    /// A predicate fixed for the game ([`crate::op::Op::BrStatic`]).
    #[inline(always)]
    pub(crate) fn op_static(&mut self, what: Static, a: u16, b: u16) -> bool {
        match what {
            Static::Flag => self.flags.get(a as usize).copied().unwrap_or(false),
            Static::Optional => self.options.get(a as usize).copied().unwrap_or(false),
            Static::Ruling => {
                if let Some(r) = self.rulings_read.get_mut(a as usize) {
                    *r = true;
                }
                self.rulings.get(a as usize).copied() == Some(b as usize)
            }
        }
    }

    /// Whether unit r[u]'s type is of class `class` ([`crate::op::Op::IsClass`],
    /// [`crate::op::Op::BrClass`]), as the side whose view is active may see it.
    #[inline(always)]
    pub(crate) fn op_is_class(&mut self, f: FnId, at: usize, base: usize, u: Reg, class: u8) -> Exec<bool> {
        let prog = self.prog;
        match self.regs[base + u as usize] {
            Value::Unit(u) if self.view.is_some() && prog.hidden_type.is_some() => {
                match self.hidden_class(u, class) {
                    Some(v) => v,
                    None => Ok(prog.unit_has_class(u, self.face_of(u), class)),
                }
            }
            Value::Unit(u) => Ok(prog.unit_has_class(u, self.face_of(u), class)),
            other => Err(self.located(
                f,
                at,
                RuntimeError::new("R0002", format!("expected a unit, found {other:?}")),
            )),
        }
    }

    /// Whether r[obj] (a unit, hex or side) carries marker `marker`
    /// ([`crate::op::Op::HasMarker`], [`crate::op::Op::BrMarker`]).
    #[inline(always)]
    pub(crate) fn op_has_marker(&mut self, base: usize, obj: Reg, marker: u16) -> bool {
        let obj = self.regs[base + obj as usize];
        if self.rec.active {
            self.note_marker(obj, marker);
        }
        let bit = 1u64 << (marker as u64 % 64);
        let v = match obj {
            Value::Unit(u) => self.state.units.get(u as usize).map(|s| s.markers & bit != 0),
            Value::Hex(h) => self.state.hex_markers.get(h as usize).map(|m| m & bit != 0),
            Value::Side(s) => self.state.side_markers.get(s as usize).map(|m| m & bit != 0),
            _ => None,
        };
        v.unwrap_or(false)
    }

    /// The side of unit r[obj] (Nil for Nil) ([`crate::op::Op::Field`] of `side`).
    #[inline(always)]
    pub(crate) fn op_side(&mut self, f: FnId, at: usize, base: usize, obj: Reg) -> Exec<Value> {
        Ok(match self.regs[base + obj as usize] {
            Value::Unit(u) => match self.state.units.get(u as usize) {
                Some(c) => Value::Side(c.side),
                None => Value::Nil,
            },
            Value::Nil => Value::Nil,
            other => {
                return Err(self.located(f, at, RuntimeError::new("R0002", format!("no side on {other:?}"))))
            }
        })
    }

    /// A rating, the hex, the steps or whether on the map of unit r[obj] (Nil for Nil)
    /// ([`crate::op::Op::Field`]), as the side whose view is active may see it.
    #[inline(always)]
    pub(crate) fn op_unit_field(
        &mut self,
        f: FnId,
        at: usize,
        base: usize,
        obj: Reg,
        field: Field,
    ) -> Exec<Value> {
        let prog = self.prog;
        match self.regs[base + obj as usize] {
            Value::Unit(u) if (u as usize) < self.state.units.len() => {
                if self.rec.active {
                    self.rec.unit(&self.state, prog, u, &self.board);
                }
                match self.view.and_then(|_| self.hidden_value(u, field)) {
                    Some(v) => v,
                    None => Ok(self.unit_value(u, field)),
                }
            }
            Value::Nil => Ok(Value::Nil),
            other => Err(self.located(
                f,
                at,
                RuntimeError::new("R0002", format!("no field {field:?} on {other:?}")),
            )),
        }
    }

    /// A call of rulebook function `g` on r[args..args+argc] ([`crate::op::Op::Call`]);
    /// `trace`: the modifier sets it evaluates are logged (a procedure's statement).
    #[inline(always)]
    pub(crate) fn op_call(
        &mut self,
        func: &Function,
        at: usize,
        base: usize,
        (g, args, argc, trace): (FnId, Reg, u16, bool),
    ) -> Exec<Value> {
        if trace && !self.tracing && self.log.enabled() {
            self.tracing = true;
            self.trace_at = func.paras.get(at).copied().unwrap_or(func.para);
            let v = self.invoke(g, base + args as usize, argc as usize);
            self.tracing = false;
            v
        } else {
            self.invoke(g, base + args as usize, argc as usize)
        }
    }

    /// Built-in `b` on its operands ([`crate::op::Op::Builtin`]): the cheap static ones
    /// at once, the rest through the general call. The result goes to r[dst] unless
    /// `dst` is `NO_REG`.
    #[inline(always)]
    pub(crate) fn op_builtin(
        &mut self,
        f: FnId,
        func: &Function,
        at: usize,
        base: usize,
        (b, dst, a, argc): (Builtin, Reg, [Reg; 5], u8),
    ) -> Exec<()> {
        let v = match self.quick_builtin(b, &a, base) {
            Some(v) => v,
            None => {
                self.cur_para = func.paras.get(at).copied().unwrap_or(func.para);
                let n = (argc as usize).min(5);
                let mut vals = [Value::Nil; 5];
                for i in 0..n {
                    vals[i] = self.regs[base + a[i] as usize];
                }
                if self.rec.active {
                    self.note_builtin(b, &vals[..n]);
                }
                match self.builtin(b, &vals[..n]) {
                    Ok(v) => v,
                    Err(h) => return Err(self.relocated(f, at, h)),
                }
            }
        };
        if dst != NO_REG {
            self.regs[base + dst as usize] = v;
        }
        Ok(())
    }

    /// `Field` of a hex's terrain or of a terrain's attribute (static map data) into
    /// r[dst], with the paragraph set as the general path sets it; any other operand
    /// through the general path (`op`, the instruction), which decides, with its error.
    /// The next instruction's index.
    #[inline(always)]
    pub(crate) fn op_terrain_field(
        &mut self,
        f: FnId,
        func: &Function,
        at: usize,
        base: usize,
        op: Op,
        (obj, field, dst): (Reg, Field, Reg),
    ) -> Exec<usize> {
        let prog = self.prog;
        let v = match (self.regs[base + obj as usize], field) {
            (Value::Hex(h), Field::Terrain) => {
                Value::Terrain(prog.map.terrain.get(h as usize).copied().unwrap_or(0))
            }
            (Value::Terrain(t), Field::TerrainAttr(a)) => Value::Int(
                prog.terrains.get(t as usize).and_then(|d| d.attrs.get(a as usize)).copied().unwrap_or(0),
            ),
            _ => return self.op_general(f, func, at, base, op),
        };
        self.cur_para = func.paras.get(at).copied().unwrap_or(func.para);
        self.regs[base + dst as usize] = v;
        Ok(at + 1)
    }

    /// Any instruction `step` does not handle itself (effects, dice, decisions, the
    /// rarer fields and lists): through `exec_effect`, with the paragraph set and the
    /// movement cost memo told what it reads. The next instruction's index.
    #[inline(never)]
    pub(crate) fn op_general(
        &mut self,
        f: FnId,
        func: &Function,
        at: usize,
        base: usize,
        op: Op,
    ) -> Exec<usize> {
        self.cur_para = func.paras.get(at).copied().unwrap_or(func.para);
        if self.checkpoints {
            self.maybe_checkpoint(f, at, base, op);
        }
        if self.rec.active {
            self.note_op(op, base);
        }
        match self.exec_effect(op, base, at + 1) {
            Ok(next) => Ok(next),
            Err(h) => Err(self.relocated(f, at, h)),
        }
    }
}
