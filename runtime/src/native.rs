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
//! Native code is not used while a run counts rules fired or profiles functions: those
//! are per-instruction measurements of the interpreter.

use crate::error::RuntimeError;
use crate::program::{FnId, Program};
use crate::value::Value;
use crate::vm::Vm;

pub use crate::op::Reg;
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
    /// Charge `n` steps for a straight run of instructions; false (nothing charged)
    /// when the budget holds fewer: the caller hands over to [`Vm::native_resume`].
    #[inline(always)]
    pub fn native_charge(&mut self, n: u64) -> bool {
        if self.budget >= n {
            self.budget -= n;
            true
        } else {
            false
        }
    }

    /// Go on interpreting `f` from instruction `pc` (the registers are shared).
    #[cold]
    pub fn native_resume(&mut self, f: FnId, base: usize, pc: usize) -> Exec<Value> {
        self.run_from(f, base, pc)
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

    /// Run instruction `at` of `f` as the interpreter does (its step already charged).
    #[inline(never)]
    pub fn native_step(&mut self, f: FnId, at: usize, base: usize) -> Exec<Flow> {
        let prog = self.prog;
        let func = &prog.functions[f as usize];
        self.step(f, func, at, base, func.code[at])
    }

    /// An error at instruction `at` of `f`, located as the interpreter locates it; the
    /// `refund` steps charged for the instructions after it are given back.
    #[cold]
    pub fn native_fail(&mut self, f: FnId, at: usize, e: RuntimeError, refund: u64) -> Halt {
        self.budget += refund;
        self.located(f, at, e)
    }
}

/// The interpreter's arithmetic and comparisons, for generated code.
pub mod ops {
    use super::*;
    use crate::vm::{as_bool, as_int, cmp, compare, int2};
    pub use crate::op::Cmp;

    #[inline(always)]
    pub fn add(a: Value, b: Value) -> Result<Value, RuntimeError> {
        int2(a, b, i64::checked_add)
    }
    #[inline(always)]
    pub fn sub(a: Value, b: Value) -> Result<Value, RuntimeError> {
        int2(a, b, i64::checked_sub)
    }
    #[inline(always)]
    pub fn add_k(a: Value, k: i32) -> Result<Value, RuntimeError> {
        int2(a, Value::Int(k as i64), i64::checked_add)
    }
    #[inline(always)]
    pub fn mul(a: Value, b: Value) -> Result<Value, RuntimeError> {
        int2(a, b, i64::checked_mul)
    }
    #[inline(always)]
    pub fn div(a: Value, b: Value) -> Result<Value, RuntimeError> {
        int2(a, b, |x, y| if y == 0 { None } else { Some(x.div_euclid(y)) })
    }
    #[inline(always)]
    pub fn rem(a: Value, b: Value) -> Result<Value, RuntimeError> {
        int2(a, b, |x, y| if y == 0 { None } else { Some(x.rem_euclid(y)) })
    }
    #[inline(always)]
    pub fn lt(a: Value, b: Value) -> Result<Value, RuntimeError> {
        cmp(a, b, |o| o.is_lt())
    }
    #[inline(always)]
    pub fn le(a: Value, b: Value) -> Result<Value, RuntimeError> {
        cmp(a, b, |o| o.is_le())
    }
    #[inline(always)]
    pub fn gt(a: Value, b: Value) -> Result<Value, RuntimeError> {
        cmp(a, b, |o| o.is_gt())
    }
    #[inline(always)]
    pub fn ge(a: Value, b: Value) -> Result<Value, RuntimeError> {
        cmp(a, b, |o| o.is_ge())
    }
    #[inline(always)]
    pub fn neg(a: Value) -> Result<Value, RuntimeError> {
        let x = as_int(a)?;
        x.checked_neg().map(Value::Int).ok_or_else(crate::vm::overflow)
    }
    #[inline(always)]
    pub fn not(a: Value) -> Result<Value, RuntimeError> {
        Ok(Value::Bool(!as_bool(a)?))
    }
    #[inline(always)]
    pub fn truth(a: Value) -> Result<bool, RuntimeError> {
        as_bool(a)
    }
    /// A fused comparison's test ([`crate::op::Op::BrCmp`]).
    #[inline(always)]
    pub fn test(c: Cmp, a: Value, b: Value) -> Result<bool, RuntimeError> {
        compare(c, a, b)
    }
}
