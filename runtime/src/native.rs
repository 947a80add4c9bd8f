//! The runtime's side of the native back end (`kriegsspiel build`, crate
//! `kriegsspiel-native`): the interface generated code implements and the narrow set of
//! machine operations it calls.
//!
//! Generated code is the rulebook's bytecode translated to Rust, one function per
//! compiled function. Arithmetic, comparisons, moves, constants and control flow become
//! Rust; every other instruction runs through [`Machine::native_step`], the same code
//! the interpreter runs, so the two back ends cannot disagree about what an effect,
//! a built-in or a call does. The VM stays the reference semantics.
//!
//! **Budget:** the interpreter charges one step per instruction and stops with R0004
//! at the instruction that finds the budget empty. Generated code charges a straight
//! run of instructions at once, each run ending at the first instruction that may call
//! rulebook code (every instruction through `native_step`), so a callee sees the
//! budget the interpreter would give it; when a run does not fit, the function hands
//! over to the interpreter at the run's first instruction ([`Machine::native_resume`]),
//! which stops at the same instruction as a pure VM game. An error inside a run gives
//! back the steps of the instructions after it ([`Machine::native_fail`]). The
//! instruction count of a game is therefore the same on both back ends.
//!
//! The hot instructions (loops, unit fields, classes, markers, fused tests, calls and
//! built-ins) are known when the code is generated: generated code calls the
//! interpreter's own method for each (`instr.rs`) without `step`'s dispatch.
//!
//! Native code is not used while a run profiles functions (a per-instruction
//! measurement of the interpreter); rules fired it counts as the interpreter does.

use crate::error::RuntimeError;
use crate::program::{FnId, ParaId, Program};
use crate::value::Value;
use crate::vm::Vm;

/// Instruction `at`'s step charged, then `$op` run: its result, or `None` with the
/// function's outcome kept ([`Vm::native_tick`], [`Vm::native_keep`]). A macro, not a
/// method taking a closure: the closure was not always inlined into generated code,
/// which then paid a call for every class or marker test.
macro_rules! native_do {
    ($m:ident, $f:expr, $at:expr, $op:expr) => {
        if $m.native_tick($f, $at) {
            let r = $op;
            $m.native_keep(r)
        } else {
            None
        }
    };
}

pub use crate::op::{Builtin, Field, Reg, Static, Test};
pub use crate::vm::{Exec, Flow, Halt, Vm as Machine};

/// A rulebook compiled to Rust: what `kriegsspiel build` generates.
pub trait NativeCode: Sync {
    /// [`program_hash`] of the program the code was generated from. The runtime uses
    /// the code only for that program.
    fn program_hash(&self) -> u64;
    /// Run function `f` (its frame at `base`, arguments in place); `None` when the code
    /// has no translation of it (the interpreter runs it).
    fn run(&self, m: &mut Machine<'_>, f: FnId, base: usize) -> Option<Exec<Value>>;
}

/// Native code checked against the program it will run: made by [`Native::for_program`],
/// carried by `GameOptions::native`.
#[derive(Clone, Copy)]
pub struct Native {
    code: &'static dyn NativeCode,
    /// The program's shape when checked: its function count and instruction count.
    shape: (usize, usize),
}

impl std::fmt::Debug for Native {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Native({:#018x})", self.code.program_hash())
    }
}

impl Native {
    /// The code, if it was generated from this very program (by [`program_hash`]).
    pub fn for_program(code: &'static dyn NativeCode, prog: &Program) -> Result<Native, String> {
        let want = program_hash(prog);
        let have = code.program_hash();
        if want != have {
            return Err(format!(
                "the native code was built from another program (hash {have:#018x}, this rulebook compiles to {want:#018x}): rebuild it"
            ));
        }
        Ok(Native { code, shape: shape(prog) })
    }

    /// The code, if `prog` is the program it was checked against (a cheap test of its
    /// shape: a game does not hash the program again).
    pub(crate) fn code_for(&self, prog: &Program) -> Option<&'static dyn NativeCode> {
        (shape(prog) == self.shape).then_some(self.code)
    }
}

fn shape(prog: &Program) -> (usize, usize) {
    (prog.functions.len(), prog.functions.iter().map(|f| f.code.len()).sum())
}

/// A call entered by native code ([`Vm::native_enter`]).
pub struct NativeFrame {
    base: usize,
    mark: usize,
}

impl NativeFrame {
    /// Where the callee's registers start.
    #[inline(always)]
    pub fn base(&self) -> usize {
        self.base
    }
}

/// A stable hash of a compiled program (64-bit FNV-1a over its JSON form): native
/// code built from one program is never run with another.
pub fn program_hash(prog: &Program) -> u64 {
    let bytes = serde_json::to_vec(prog).unwrap_or_default();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

impl<'p> Vm<'p> {
    /// Charge `n` steps for a straight run of written-out instructions; false (nothing
    /// charged) when the budget holds fewer: the caller hands over to
    /// [`Vm::native_resume`].
    #[inline(always)]
    pub fn native_charge(&mut self, n: u64) -> bool {
        if self.budget >= n {
            self.budget -= n;
            true
        } else {
            false
        }
    }

    /// Go on interpreting `f` from instruction `pc` (the registers are shared), as the
    /// same call `call`, whose last paragraph counted was `last`, for rules fired.
    #[cold]
    pub fn native_resume(&mut self, f: FnId, base: usize, pc: usize, call: u64, last: ParaId) -> Exec<Value> {
        self.run_from(f, base, pc, Some((call, last)))
    }

    /// The rules-fired id of a call of a native function (0 when rules fired are not
    /// counted), as the interpreter takes one for each call it runs.
    #[inline(always)]
    pub fn native_call(&mut self) -> u64 {
        self.new_call_id()
    }

    /// Paragraph `p`'s code is about to run in call `call` whose last paragraph run was
    /// `*last` (rules fired, counted as the interpreter counts them: when the paragraph
    /// changes, once per call; nothing when they are not counted).
    #[inline(always)]
    pub fn native_fired(&mut self, call: u64, last: &mut ParaId, p: ParaId) {
        if self.fired.is_some() && *last != p {
            *last = p;
            self.fire(call, p);
        }
    }

    /// Register `r` of the frame at `base`.
    #[inline(always)]
    pub fn native_get(&self, base: usize, r: Reg) -> Value {
        self.regs[base + r as usize]
    }

    #[inline(always)]
    pub fn native_set(&mut self, base: usize, r: Reg, v: Value) {
        self.regs[base + r as usize] = v;
    }

    /// Run instruction `at` of `f` as the interpreter does, its step charged here; false
    /// when the function stops there ([`Vm::native_stop`] has its result).
    #[inline(never)]
    pub fn native_op(&mut self, f: FnId, at: usize, base: usize) -> bool {
        matches!(self.native_flow(f, at, base), Some(Flow::Next(_)))
    }

    /// A branch instruction `at` of `f` decided as the interpreter decides it: the next
    /// instruction, or `usize::MAX` when the function stops there ([`Vm::native_stop`]).
    #[inline(never)]
    pub fn native_branch(&mut self, f: FnId, at: usize, base: usize) -> usize {
        match self.native_flow(f, at, base) {
            Some(Flow::Next(pc)) => pc,
            _ => usize::MAX,
        }
    }

    #[inline(always)]
    fn native_flow(&mut self, f: FnId, at: usize, base: usize) -> Option<Flow> {
        if !self.native_tick(f, at) {
            return None;
        }
        let prog = self.prog;
        let func = &prog.functions[f as usize];
        match self.step(f, func, at, base, func.code[at]) {
            Ok(Flow::Ret(v)) => {
                self.native_out = Some(Ok(v));
                None
            }
            Ok(next) => Some(next),
            Err(h) => {
                self.native_out = Some(Err(h));
                None
            }
        }
    }

    /// Charge instruction `at`'s step, or stop there with R0004 as the interpreter does.
    #[inline(always)]
    fn native_tick(&mut self, f: FnId, at: usize) -> bool {
        if self.budget == 0 {
            self.native_out = Some(Err(self.out_of_budget(f, at)));
            return false;
        }
        self.budget -= 1;
        true
    }

    /// The instruction's result, or `None` with the function's outcome kept for
    /// [`Vm::native_stop`].
    #[inline(always)]
    fn native_keep<T>(&mut self, r: Exec<T>) -> Option<T> {
        match r {
            Ok(v) => Some(v),
            Err(h) => {
                self.native_out = Some(Err(h));
                None
            }
        }
    }

    // The instructions below are known when the code is generated: each runs the
    // interpreter's own code for it (`instr.rs`) without `step`'s dispatch, its step
    // charged here. `None` (or false): the function stops ([`Vm::native_stop`]).
    // They are inlined into generated code in optimised builds without debug
    // assertions (release, `run --native`) and called in test builds, where inlining
    // them into every rulebook's code at once costs more compile time than it saves.

    /// `IterNext`/`IterStart`/`IterNextBack` at `at`: whether an element was taken.
    #[cfg_attr(not(debug_assertions), inline)]
    pub fn native_iter(
        &mut self,
        f: FnId,
        at: usize,
        base: usize,
        regs: (Reg, Reg, Reg),
        start: bool,
    ) -> Option<bool> {
        native_do!(self, f, at, self.op_iter_list(f, at, base, regs, start))
    }

    /// `IterAt`/`IterAtStart`/`IterAtBack` at `at`: whether a unit was taken.
    #[cfg_attr(not(debug_assertions), inline)]
    pub fn native_iter_at(
        &mut self,
        f: FnId,
        at: usize,
        base: usize,
        regs: (Reg, Reg, Reg),
        start: bool,
    ) -> Option<bool> {
        native_do!(self, f, at, self.op_iter_at(f, at, base, regs, start))
    }

    /// `BrTest`'s test at `at`.
    #[cfg_attr(not(debug_assertions), inline)]
    pub fn native_test(&mut self, f: FnId, at: usize, base: usize, t: (Test, Reg, Reg, u16)) -> Option<bool> {
        let prog = self.prog;
        native_do!(self, f, at, self.op_test(f, &prog.functions[f as usize], at, base, t))
    }

    /// `BrStatic`'s predicate at `at`.
    #[cfg_attr(not(debug_assertions), inline)]
    pub fn native_static(&mut self, f: FnId, at: usize, what: Static, a: u16, b: u16) -> Option<bool> {
        native_do!(self, f, at, Ok(self.op_static(what, a, b)))
    }

    /// `IsClass`/`BrClass` at `at`.
    #[cfg_attr(not(debug_assertions), inline)]
    pub fn native_is_class(&mut self, f: FnId, at: usize, base: usize, u: Reg, class: u8) -> Option<bool> {
        native_do!(self, f, at, self.op_is_class(f, at, base, u, class))
    }

    /// `HasMarker`/`BrMarker` at `at`.
    #[cfg_attr(not(debug_assertions), inline)]
    pub fn native_has_marker(
        &mut self,
        f: FnId,
        at: usize,
        base: usize,
        obj: Reg,
        marker: u16,
    ) -> Option<bool> {
        native_do!(self, f, at, Ok(self.op_has_marker(base, obj, marker)))
    }

    /// `Field` of `side` at `at`.
    #[cfg_attr(not(debug_assertions), inline)]
    pub fn native_side(&mut self, f: FnId, at: usize, base: usize, obj: Reg) -> Option<Value> {
        native_do!(self, f, at, self.op_side(f, at, base, obj))
    }

    /// `Field` of a rating, `hex`, `steps` or `on_map` at `at`.
    #[cfg_attr(not(debug_assertions), inline)]
    pub fn native_unit_field(
        &mut self,
        f: FnId,
        at: usize,
        base: usize,
        obj: Reg,
        field: Field,
    ) -> Option<Value> {
        native_do!(self, f, at, self.op_unit_field(f, at, base, obj, field))
    }

    /// `Field` of a hex's terrain or a terrain's attribute at `at`, written to `dst`
    /// (any other operand through the interpreter's general path, as `step` does).
    #[cfg_attr(not(debug_assertions), inline)]
    pub fn native_terrain_field(
        &mut self,
        f: FnId,
        at: usize,
        base: usize,
        (obj, field, dst): (Reg, Field, Reg),
    ) -> bool {
        let func = &self.prog.functions[f as usize];
        native_do!(self, f, at, self.op_terrain_field(f, func, at, base, func.code[at], (obj, field, dst)))
            .is_some()
    }

    /// `Call` at `at`: the callee's value.
    #[inline(never)]
    pub fn native_invoke(
        &mut self,
        f: FnId,
        at: usize,
        base: usize,
        call: (FnId, Reg, u16, bool),
    ) -> Option<Value> {
        let prog = self.prog;
        native_do!(self, f, at, self.op_call(&prog.functions[f as usize], at, base, call))
    }

    /// Whether a `Call` (its `trace` flag; `modifiers`: the callee is a modifier set)
    /// opens no modifier trace now, so that [`Vm::invoke`] would do no more than enter
    /// and leave the callee's frame: native code may then call it directly
    /// ([`Vm::native_enter`]). (With the log off, as in batch runs, no call traces.)
    #[inline(always)]
    pub fn native_plain_call(&self, trace: bool, modifiers: bool) -> bool {
        if self.tracing {
            !modifiers
        } else {
            !(trace && self.log.enabled())
        }
    }

    /// The start of a direct call from native code to native function `g` (a `Call`
    /// at `at` for which [`Vm::native_plain_call`] holds): its step charged and its
    /// frame entered, as `invoke` enters it. The
    /// caller runs `g`'s generated function at the frame's base ([`NativeFrame::base`])
    /// and ends the call with [`Vm::native_leave`]. Native code runs only while the
    /// machine has it and does not profile, so `invoke` would run `g` natively too.
    #[cfg_attr(not(debug_assertions), inline)]
    pub fn native_enter(
        &mut self,
        f: FnId,
        at: usize,
        base: usize,
        (g, args, argc): (FnId, Reg, u16),
    ) -> Option<NativeFrame> {
        let prog = self.prog;
        let (base, mark) = native_do!(
            self,
            f,
            at,
            match prog.functions.get(g as usize) {
                Some(func) => self.enter(g, func, base + args as usize, argc as usize),
                None => Err(RuntimeError::new("R0001", format!("no function #{g}")).into()),
            }
        )?;
        Some(NativeFrame { base, mark })
    }

    /// The end of a direct call ([`Vm::native_enter`]) that returned `r`: the callee's
    /// value, as [`Vm::invoke`] gives it back.
    #[cfg_attr(not(debug_assertions), inline)]
    pub fn native_leave(&mut self, call: NativeFrame, r: Exec<Value>) -> Option<Value> {
        let r = self.leave(call.base, call.mark, r);
        self.native_keep(r)
    }

    /// `Builtin` at `at` (its result written to its register).
    #[cfg_attr(not(debug_assertions), inline)]
    pub fn native_builtin(
        &mut self,
        f: FnId,
        at: usize,
        base: usize,
        op: (Builtin, Reg, [Reg; 5], u8),
    ) -> bool {
        let prog = self.prog;
        native_do!(self, f, at, self.op_builtin(f, &prog.functions[f as usize], at, base, op)).is_some()
    }

    /// What a function stopped by [`Vm::native_op`] or [`Vm::native_branch`] returns.
    #[cold]
    pub fn native_stop(&mut self) -> Exec<Value> {
        self.native_out.take().unwrap_or(Ok(Value::Nil))
    }

    /// A written-out instruction `at` of `f` failed (a wrong operand, an overflow): the
    /// interpreter's error for it, the `refund` steps charged for the instructions after
    /// it given back. (The instruction has no effect, so the interpreter runs it again
    /// to say what went wrong, exactly as a VM game would.)
    #[cold]
    #[inline(never)]
    pub fn native_fail(&mut self, f: FnId, at: usize, base: usize, refund: u64) -> Halt {
        self.budget += refund;
        let prog = self.prog;
        let func = &prog.functions[f as usize];
        match self.step(f, func, at, base, func.code[at]) {
            Err(h) => h,
            Ok(_) => RuntimeError::new(
                "R0001",
                format!(
                    "internal: native code failed where the VM does not ({} instruction {at})",
                    func.name
                ),
            )
            .into(),
        }
    }
}

/// The interpreter's arithmetic and comparisons for generated code: `None` where the
/// interpreter reports an error (the caller then asks [`Vm::native_fail`] for it).
pub mod ops {
    use super::*;
    pub use crate::op::Cmp;

    #[inline(always)]
    fn int2(a: Value, b: Value, f: impl Fn(i64, i64) -> Option<i64>) -> Option<Value> {
        match (a, b) {
            (Value::Int(x), Value::Int(y)) => f(x, y).map(Value::Int),
            _ => None,
        }
    }
    #[inline(always)]
    fn ord(a: Value, b: Value, f: impl Fn(i64, i64) -> bool) -> Option<Value> {
        match (a, b) {
            (Value::Int(x), Value::Int(y)) => Some(Value::Bool(f(x, y))),
            _ => None,
        }
    }
    #[inline(always)]
    pub fn add(a: Value, b: Value) -> Option<Value> {
        int2(a, b, i64::checked_add)
    }
    #[inline(always)]
    pub fn sub(a: Value, b: Value) -> Option<Value> {
        int2(a, b, i64::checked_sub)
    }
    #[inline(always)]
    pub fn add_k(a: Value, k: i32) -> Option<Value> {
        int2(a, Value::Int(k as i64), i64::checked_add)
    }
    #[inline(always)]
    pub fn mul(a: Value, b: Value) -> Option<Value> {
        int2(a, b, i64::checked_mul)
    }
    #[inline(always)]
    pub fn div(a: Value, b: Value) -> Option<Value> {
        int2(a, b, |x, y| if y == 0 { None } else { Some(x.div_euclid(y)) })
    }
    #[inline(always)]
    pub fn rem(a: Value, b: Value) -> Option<Value> {
        int2(a, b, |x, y| if y == 0 { None } else { Some(x.rem_euclid(y)) })
    }
    #[inline(always)]
    pub fn lt(a: Value, b: Value) -> Option<Value> {
        ord(a, b, |x, y| x < y)
    }
    #[inline(always)]
    pub fn le(a: Value, b: Value) -> Option<Value> {
        ord(a, b, |x, y| x <= y)
    }
    #[inline(always)]
    pub fn gt(a: Value, b: Value) -> Option<Value> {
        ord(a, b, |x, y| x > y)
    }
    #[inline(always)]
    pub fn ge(a: Value, b: Value) -> Option<Value> {
        ord(a, b, |x, y| x >= y)
    }
    #[inline(always)]
    pub fn neg(a: Value) -> Option<Value> {
        match a {
            Value::Int(x) => x.checked_neg().map(Value::Int),
            _ => None,
        }
    }
    #[inline(always)]
    pub fn not(a: Value) -> Option<Value> {
        match a {
            Value::Bool(x) => Some(Value::Bool(!x)),
            _ => None,
        }
    }
    #[inline(always)]
    pub fn truth(a: Value) -> Option<bool> {
        a.as_bool()
    }
    /// A fused comparison's test ([`crate::op::Op::BrCmp`]): equality of any values,
    /// order of Ints.
    #[inline(always)]
    pub fn test(c: Cmp, a: Value, b: Value) -> Option<bool> {
        match c {
            Cmp::Eq => Some(a == b),
            Cmp::Ne => Some(a != b),
            _ => match (a, b) {
                (Value::Int(x), Value::Int(y)) => Some(match c {
                    Cmp::Lt => x < y,
                    Cmp::Le => x <= y,
                    Cmp::Gt => x > y,
                    _ => x >= y,
                }),
                _ => None,
            },
        }
    }
}
