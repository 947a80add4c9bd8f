//! The interpreter loop: register frames, a step budget, list arena with watermarks.
//!
//! `Vm::call` runs one function to completion. Effects and built-ins live in
//! `effects.rs` and `builtins.rs`; game set-up and the public entry point in `game.rs`.

use crate::agent::Agent;
use crate::board::Board;
use crate::dice::Dice;
use crate::error::{GameResult, RuntimeError};
use crate::log::Log;
use crate::op::{Field, Op, Reg, NO_REG};
use crate::program::{FnId, Function, ParaId, Program};
use crate::state::State;
use crate::value::Value;
use std::fmt;

/// Why execution stopped before a function returned: one pointer to the [`Stop`], so
/// that `Exec<T>` stays small. Every instruction method and call returns one; with the
/// stop inline, `Exec<Value>` was 136 bytes, returned through memory on the hottest paths.
pub struct Halt(Box<Stop>);

/// What stopped execution.
#[derive(Debug)]
pub enum Stop {
    /// The game ended (win or draw).
    End(GameResult),
    Error(RuntimeError),
    /// A search playout reached its horizon (`search:N:H`): the game is cut short, to be
    /// scored by the rulebook's position score. Never seen outside a playout.
    Horizon,
}

impl Halt {
    #[cold]
    pub fn end(r: GameResult) -> Halt {
        Halt(Box::new(Stop::End(r)))
    }
    #[cold]
    pub fn horizon() -> Halt {
        Halt(Box::new(Stop::Horizon))
    }
    /// What stopped execution, taken out of its box (to match on).
    pub fn into_stop(self) -> Stop {
        *self.0
    }
}

impl fmt::Debug for Halt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl From<RuntimeError> for Halt {
    #[cold]
    fn from(e: RuntimeError) -> Halt {
        Halt(Box::new(Stop::Error(e)))
    }
}

pub type Exec<T> = Result<T, Halt>;

/// Where control goes after one instruction.
#[derive(Debug)]
pub enum Flow {
    /// On to this instruction.
    Next(usize),
    /// The function returned this value.
    Ret(Value),
}

/// Counters a run reports.
#[derive(Clone, Copy, Debug, Default)]
pub struct Stats {
    pub instructions: u64,
    pub decisions: u64,
    pub rolls: u64,
}

/// Maximum call depth (rulebook recursion).
const MAX_DEPTH: u32 = 256;

/// A running game.
pub struct Vm<'p> {
    pub prog: &'p Program,
    pub state: State,
    pub scenario: usize,
    pub(crate) dice: Dice,
    pub(crate) agents: Vec<Box<dyn Agent + 'p>>,
    pub log: Log,
    /// Active alternative per ruling.
    pub rulings: Vec<usize>,
    /// Optional rules in play, by option index.
    pub(crate) options: Vec<bool>,
    pub(crate) flags: Vec<bool>,
    pub(crate) regs: Vec<Value>,
    /// First register above the innermost frame.
    pub(crate) top: usize,
    /// Per-function profile when enabled: (calls, instructions inclusive, self).
    pub profile: Option<Vec<(u64, u64, u64)>>,
    /// Instructions spent in callees of each active frame (for self counts).
    prof_children: Vec<u64>,
    pub(crate) lists: Vec<Vec<Value>>,
    pub(crate) pool: Vec<Vec<Value>>,
    /// Instructions left before the run is stopped (a faulty rulebook cannot loop forever).
    pub budget: u64,
    /// The budget at the start, so that `instructions()` = start - left.
    pub(crate) budget_start: u64,
    depth: u32,
    pub(crate) in_trigger: bool,
    /// Inside a `sealed` block: its decisions so far (by, what, choice), for the reveal.
    pub(crate) sealed: Option<Vec<serde_json::Value>>,
    /// Check the rulebook's invariants at their points (on unless switched off).
    pub(crate) check_invariants: bool,
    /// An interrupt body is running (interrupts do not nest).
    pub(crate) in_interrupt: bool,
    /// The side whose agent is scoring a choice: hidden tracks of other sides' units
    /// read as their public estimate.
    pub(crate) view: Option<u8>,
    /// Which rulings the game has read so far (for the examples' ruling runs).
    pub(crate) rulings_read: Vec<bool>,
    pub(crate) board: Board,
    pub stats: Stats,
    /// Scripted dice for examples: consumed before the seeded dice.
    pub(crate) forced_dice: std::collections::VecDeque<i64>,
    /// Enumerating an example's dice (`game::enumerate_example`): every roll is
    /// recorded, and a roll past the forced ones reads its lowest face instead of the
    /// generator's.
    pub(crate) dice_record: Option<Vec<crate::dice::RolledDie>>,
    /// Paragraph of the instruction being executed (for events).
    pub(crate) cur_para: u16,
    /// Units on the map per hex, in unit order (derived from `state`).
    pub(crate) occ: Vec<Vec<u16>>,
    /// Bumped by every change of the game state (see `check_triggers`).
    pub(crate) version: u64,
    /// The last movement search: (unit, state version, result), reused by `route`.
    pub(crate) reach_cache: Option<(u16, u8, u64, Vec<kriegsspiel_geo::Reach>)>,
    /// Enemy-ZOC answers per side and hex for the current state version: 0 unknown,
    /// 1 no, 2 yes. The ZOC hook is pure, so answers hold until the state changes.
    pub(crate) ezoc_cache: (u64, Vec<Vec<u8>>),
    /// What the running memoised hook reads (see `memo.rs`).
    pub(crate) rec: crate::memo::Recorder,
    /// Movement costs across searches (see `memo.rs`).
    pub(crate) cost_memo: crate::memo::CostMemo,
    /// Who plays which side (agents are indexed by player).
    pub(crate) seats: crate::players::Seating,
    /// The controller of each code of each `control` declaration, as last logged.
    pub(crate) control_now: Vec<Value>,
    /// The first state slot of each track (`Program::track_bases`).
    pub(crate) track_bases: Vec<usize>,
    /// Control is being evaluated (its `fn`s are pure; no re-entry).
    pub(crate) in_control: bool,
    /// The state `control_now` was computed from: control `fn`s are pure functions of
    /// the state, so an unchanged state needs no re-evaluation (`check_control`).
    pub(crate) control_state: Option<crate::state::State>,
    /// How many chained triggers are firing inside one another's bodies.
    pub(crate) chain_depth: u32,
    /// The active calls, innermost last: (function, first register of its frame). A
    /// lookup's log line names the procedure it is in and that procedure's arguments.
    pub(crate) frames: Vec<(FnId, usize)>,
    /// With `GameOptions::rules_fired`: per paragraph, the calls in which its code ran.
    pub(crate) fired: Option<Fired>,
    /// A procedure's traced call is running (`Op::Call`'s `trace`): the modifier sets it
    /// evaluates are logged with the lines that applied.
    pub(crate) tracing: bool,
    /// The paragraph of the traced call's statement.
    pub(crate) trace_at: ParaId,
    /// The traced modifier sets running, innermost last: (call depth, the lines that
    /// applied with their amounts).
    pub(crate) mod_open: Vec<(u32, Vec<(u16, Value)>)>,
    /// Every decision an agent answered so far, in order (what a search replays).
    pub(crate) history: Vec<crate::agent::Decision>,
    /// Per side: `secret` decisions not yet followed by a `reveal` of that side.
    pub(crate) secrets_pending: Vec<u32>,
    /// Inside a `sealed` block: the length of `history` when it began.
    pub(crate) sealed_from: Option<usize>,
    /// A search playout replaying the game's decisions up to its fork (`search.rs`).
    pub(crate) replay: Option<Box<crate::search::Replay>>,
    /// A search playout after its fork stops when a game turn at or after this one begins
    /// (`search:N:H`, `Stop::Horizon`).
    pub(crate) stop_at_turn: Option<i64>,
    /// The rulebook compiled to Rust (`native.rs`): runs its functions in place of the
    /// interpreter, except while a profile is counted.
    pub(crate) native: Option<&'static dyn crate::native::NativeCode>,
    /// What a native function stopped by an instruction returns (`native.rs`).
    pub(crate) native_out: Option<Exec<Value>>,
    /// Copy the game whenever the sequence of play begins a turn (a search agent plays;
    /// `checkpoint.rs`), the latest copy kept here for the agents' requests.
    pub(crate) checkpoints: bool,
    pub(crate) checkpoint: Option<Box<crate::checkpoint::Checkpoint>>,
}

/// Rules fired: per paragraph, in how many calls of rulebook code (a procedure, `fn`,
/// modifier set or trigger running once) its instructions ran.
#[derive(Default)]
pub(crate) struct Fired {
    pub(crate) counts: Vec<u64>,
    /// The last call that counted each paragraph.
    stamps: Vec<u64>,
    /// Calls so far (the id of the latest).
    calls: u64,
}

impl Fired {
    pub(crate) fn new(paragraphs: usize) -> Fired {
        Fired { counts: vec![0; paragraphs], stamps: vec![0; paragraphs], calls: 0 }
    }
}

impl<'p> Vm<'p> {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        prog: &'p Program,
        state: State,
        scenario: usize,
        seed: u64,
        agents: Vec<Box<dyn Agent + 'p>>,
        log: Log,
        rulings: Vec<usize>,
        budget: u64,
    ) -> Vm<'p> {
        let flags = (0..prog.flags.len())
            .map(|i| {
                prog.scenarios
                    .get(scenario)
                    .and_then(|s| s.flags.iter().find(|(f, _)| *f as usize == i))
                    .map(|(_, v)| *v)
                    .unwrap_or(false)
            })
            .collect();
        Vm {
            prog,
            state,
            scenario,
            dice: Dice::new(seed, 0),
            agents,
            log,
            options: vec![false; prog.options.len()],
            rulings,
            flags,
            regs: Vec::with_capacity(1024),
            top: 0,
            profile: None,
            prof_children: Vec::new(),
            lists: Vec::new(),
            pool: Vec::new(),
            budget,
            budget_start: budget,
            depth: 0,
            in_trigger: false,
            sealed: None,
            check_invariants: !prog.invariants.is_empty(),
            in_interrupt: false,
            view: None,
            rulings_read: vec![false; prog.rulings.len()],
            board: Board::new(&prog.map),
            stats: Stats::default(),
            forced_dice: Default::default(),
            dice_record: None,
            cur_para: 0,
            occ: Vec::new(),
            version: 0,
            reach_cache: None,
            ezoc_cache: (u64::MAX, Vec::new()),
            rec: Default::default(),
            cost_memo: Default::default(),
            seats: crate::players::Seating::one_per_side(prog.sides.len()),
            control_now: Vec::new(),
            in_control: false,
            control_state: None,
            track_bases: prog.track_bases(),
            chain_depth: 0,
            frames: Vec::new(),
            fired: None,
            tracing: false,
            trace_at: 0,
            mod_open: Vec::new(),
            history: Vec::new(),
            secrets_pending: vec![0; prog.sides.len()],
            sealed_from: None,
            replay: None,
            stop_at_turn: None,
            native: None,
            native_out: None,
            checkpoints: false,
            checkpoint: None,
        }
        .with_occupancy()
    }

    fn with_occupancy(mut self) -> Self {
        self.rebuild_occupancy();
        self
    }

    /// Recompute the per-hex unit lists from the state.
    pub(crate) fn rebuild_occupancy(&mut self) {
        let n = self.board.hex_count() as usize;
        self.occ = vec![Vec::new(); n];
        for (i, u) in self.state.units.iter().enumerate() {
            if u.status == crate::state::UnitStatus::OnMap {
                if let Some(v) = self.occ.get_mut(u.hex as usize) {
                    v.push(i as u16);
                }
            }
        }
    }

    /// Put unit `u` in hex `h` (on the map), or take it off (`None`), keeping the
    /// per-hex lists in unit order. The status is the caller's business.
    pub(crate) fn set_hex(&mut self, u: u16, h: Option<u32>) {
        let old = self.state.units[u as usize].hex;
        if let Some(v) = self.occ.get_mut(old as usize) {
            v.retain(|&x| x != u);
        }
        match h {
            Some(h) => {
                self.state.units[u as usize].hex = h;
                if let Some(v) = self.occ.get_mut(h as usize) {
                    let pos = v.partition_point(|&x| x < u);
                    v.insert(pos, u);
                }
            }
            None => self.state.units[u as usize].hex = crate::state::OFF_MAP,
        }
    }

    /// Rulebook calls active (the Rust recursion of the interpreter and native code).
    pub(crate) fn depth(&self) -> u32 {
        self.depth
    }

    /// The sequence of play's frame at `base`, entered as `call` would, for a VM resumed
    /// from a checkpoint (`checkpoint.rs`): its registers are already in place.
    pub(crate) fn enter_resumed(&mut self, f: FnId, base: usize) {
        self.depth = 1;
        self.frames = vec![(f, base)];
    }

    /// Instructions executed so far.
    pub fn instructions(&self) -> u64 {
        self.budget_start - self.budget
    }

    /// Call function `f` with `args`; returns its value.
    pub fn call(&mut self, f: FnId, args: &[Value]) -> Exec<Value> {
        let base = self.top;
        let need = base + args.len();
        if self.regs.len() < need {
            self.regs.resize(need, Value::Nil);
        }
        self.regs[base..need].copy_from_slice(args);
        self.top = need;
        // Hooks and scores called by the runtime are evaluations, not traced statements.
        let tracing = std::mem::replace(&mut self.tracing, false);
        let r = self.invoke(f, base, args.len());
        self.tracing = tracing;
        // Pop the pushed arguments too: hooks run hundreds of thousands of times a game.
        self.top = base;
        r
    }

    /// Run `f` with its `argc` arguments already at `regs[args..]`; the frame starts at
    /// `top` (arguments are copied into it).
    pub(crate) fn invoke(&mut self, f: FnId, args: usize, argc: usize) -> Exec<Value> {
        let prog = self.prog;
        let func = match prog.functions.get(f as usize) {
            Some(func) => func,
            None => return Err(RuntimeError::new("R0001", format!("no function #{f}")).into()),
        };
        let (base, mark) = self.enter(f, func, args, argc)?;
        let n = argc.min(func.slots as usize);
        let traced = self.tracing && func.modifiers.is_some();
        let (traced_args, traced_at): (Vec<Value>, ParaId) = if traced {
            self.mod_open.push((self.depth, Vec::new()));
            (self.regs[base..base + n].to_vec(), self.trace_at)
        } else {
            (Vec::new(), 0)
        };
        let result = if self.profile.is_some() {
            let before = self.instructions();
            self.prof_children.push(0);
            let r = self.run(f, base);
            let inclusive = self.instructions() - before;
            let children = self.prof_children.pop().unwrap_or(0);
            if let Some(parent) = self.prof_children.last_mut() {
                *parent += inclusive;
            }
            if let Some(p) = self.profile.as_mut() {
                if p.len() <= f as usize {
                    p.resize(f as usize + 1, (0, 0, 0));
                }
                let e = &mut p[f as usize];
                e.0 += 1;
                e.1 += inclusive;
                e.2 += inclusive.saturating_sub(children);
            }
            r
        } else if let Some(code) = self.native {
            match code.run(self, f, base) {
                Some(r) => r,
                None => self.run(f, base),
            }
        } else {
            self.run(f, base)
        };
        if traced {
            let applied = self.mod_open.pop().map(|(_, lines)| lines).unwrap_or_default();
            if let (false, Ok(v)) = (applied.is_empty(), &result) {
                self.log_modifiers(f, &traced_args, traced_at, &applied, *v);
            }
        }
        self.leave(base, mark, result)
    }

    /// A call's frame: the `slots` registers above the top, the arguments copied from
    /// `args`; its base and the list watermark [`Vm::leave`] frees down to.
    #[inline(always)]
    pub(crate) fn enter(
        &mut self,
        f: FnId,
        func: &Function,
        args: usize,
        argc: usize,
    ) -> Exec<(usize, usize)> {
        if self.depth >= MAX_DEPTH {
            return Err(self.located(
                f,
                0,
                RuntimeError::new("R0003", "call depth limit reached (recursive rules?)"),
            ));
        }
        // The frame is the `slots` registers above the top. They are not cleared: the
        // compiler writes every register before reading it, so a frame never sees the
        // values of an earlier one, and hot hooks skip initialising large frames.
        let base = self.top;
        let need = base + func.slots as usize;
        if self.regs.len() < need {
            self.regs.resize(need, Value::Nil);
        }
        let n = argc.min(func.slots as usize);
        self.regs.copy_within(args..args + n, base);
        // Under debug assertions (tests) the rest of the frame is cleared: bytecode that
        // reads a register before writing it (only corrupted bytecode can) then reads
        // nothing, the same every time, and the memo's recompute check stays meaningful.
        #[cfg(debug_assertions)]
        for r in &mut self.regs[base + n..need] {
            *r = Value::Nil;
        }
        self.top = need;
        let mark = self.lists.len();
        self.depth += 1;
        self.frames.push((f, base));
        Ok((base, mark))
    }

    /// The end of a call entered at `base` with list watermark `mark`: the frame popped
    /// and the lists it made freed, keeping a returned list alive.
    #[inline(always)]
    pub(crate) fn leave(&mut self, base: usize, mark: usize, result: Exec<Value>) -> Exec<Value> {
        self.depth -= 1;
        self.frames.pop();
        self.top = base;
        match result {
            // Only corrupted bytecode can return a list that does not exist.
            Ok(Value::List(l)) if l as usize >= self.lists.len() => {
                self.release_lists(mark);
                Err(RuntimeError::new("R0002", "dangling list").into())
            }
            Ok(Value::List(l)) if l as usize >= mark => {
                self.lists.swap(mark, l as usize);
                self.release_lists(mark + 1);
                Ok(Value::List(mark as u32))
            }
            other => {
                self.release_lists(mark);
                other
            }
        }
    }

    fn release_lists(&mut self, keep: usize) {
        while self.lists.len() > keep {
            if let Some(mut v) = self.lists.pop() {
                v.clear();
                self.pool.push(v);
            }
        }
    }

    pub(crate) fn new_list(&mut self) -> u32 {
        let v = self.pool.pop().unwrap_or_default();
        self.lists.push(v);
        (self.lists.len() - 1) as u32
    }

    pub(crate) fn list(&self, v: Value) -> Result<&[Value], RuntimeError> {
        match v {
            Value::List(i) => self
                .lists
                .get(i as usize)
                .map(|l| l.as_slice())
                .ok_or_else(|| RuntimeError::new("R0002", "dangling list")),
            other => Err(RuntimeError::new("R0002", format!("expected a list, found {other:?}"))),
        }
    }

    /// R0004 at instruction `at` of `f`: the step budget is spent (the interpreter's
    /// loop and native code stop alike).
    #[cold]
    pub(crate) fn out_of_budget(&self, f: FnId, at: usize) -> Halt {
        self.located(f, at, RuntimeError::new("R0004", "step budget exhausted: the rules may loop forever"))
    }

    #[cold]
    pub(crate) fn located(&self, f: FnId, pc: usize, mut e: RuntimeError) -> Halt {
        self.locate(f, pc, &mut e);
        e.into()
    }

    /// `h` located at instruction `pc` of `f` when it is an error (a game end or horizon
    /// passes through as it is).
    #[cold]
    pub(crate) fn relocated(&self, f: FnId, pc: usize, mut h: Halt) -> Halt {
        if let Stop::Error(e) = &mut *h.0 {
            self.locate(f, pc, e);
        }
        h
    }

    /// Fill in what `e` does not yet say of where it arose: instruction `pc` of `f`.
    fn locate(&self, f: FnId, pc: usize, e: &mut RuntimeError) {
        if let Some(func) = self.prog.functions.get(f as usize) {
            if e.para.is_empty() {
                let p = func.paras.get(pc).copied().unwrap_or(func.para);
                e.para = self.prog.para(p).to_string();
            }
            if e.span.is_none() {
                e.span = func.spans.get(pc).copied();
            }
            if e.function.is_empty() {
                e.function = func.name.clone();
            }
        }
    }

    fn run(&mut self, f: FnId, base: usize) -> Exec<Value> {
        self.run_from(f, base, 0, None)
    }

    /// A new call of rulebook code for rules fired (0 when they are not counted).
    #[inline(always)]
    pub(crate) fn new_call_id(&mut self) -> u64 {
        match self.fired.as_mut() {
            Some(fd) => {
                fd.calls += 1;
                fd.calls
            }
            None => 0,
        }
    }

    /// Count paragraph `p` as fired in call `call_id` (once per call).
    #[inline(always)]
    pub(crate) fn fire(&mut self, call_id: u64, p: ParaId) {
        if let Some(fd) = self.fired.as_mut() {
            if let Some(stamp) = fd.stamps.get_mut(p as usize) {
                if *stamp != call_id {
                    *stamp = call_id;
                    fd.counts[p as usize] += 1;
                }
            }
        }
    }

    /// Interpret `f` from instruction `pc` on, its frame at `base` (from 0: a call; a
    /// native function hands over here when its budget runs short, see `native.rs`).
    /// `call`: the rules-fired id of the call and the last paragraph it counted, when
    /// native code hands it over (a new call otherwise).
    pub(crate) fn run_from(
        &mut self,
        f: FnId,
        base: usize,
        mut pc: usize,
        call: Option<(u64, ParaId)>,
    ) -> Exec<Value> {
        let prog = self.prog;
        let func = &prog.functions[f as usize];
        let code = &func.code[..];
        // Rules fired: this call's id and the paragraph of its last instruction run.
        let (call_id, mut last_para) = match call {
            Some(c) => c,
            None => (self.new_call_id(), ParaId::MAX),
        };
        loop {
            let Some(&op) = code.get(pc) else {
                return Ok(Value::Nil);
            };
            let at = pc;
            if self.fired.is_some() {
                let p = func.paras.get(at).copied().unwrap_or(func.para);
                if p != last_para {
                    last_para = p;
                    self.fire(call_id, p);
                }
            }
            if self.budget == 0 {
                return Err(self.out_of_budget(f, at));
            }
            self.budget -= 1;
            // Matched, not `?`: with `?` LLVM converted the result on every step (5% of a
            // VM game in callgrind; docs/performance.md, boxed errors).
            match self.step(f, func, at, base, op) {
                Ok(Flow::Next(next)) => pc = next,
                Ok(Flow::Ret(v)) => return Ok(v),
                Err(h) => return Err(h),
            }
        }
    }

    /// Execute instruction `op` (at `at` of `f`, frame at `base`), its budget already
    /// charged: where control goes next. The interpreter's loop and the native back
    /// end's generic instructions both run it, so the two cannot differ.
    #[inline(always)]
    pub(crate) fn step(&mut self, f: FnId, func: &'p Function, at: usize, base: usize, op: Op) -> Exec<Flow> {
        let prog = self.prog;
        let mut pc = at + 1;
        macro_rules! r {
            ($x:expr) => {
                self.regs[base + $x as usize]
            };
        }
        macro_rules! tri {
            ($e:expr) => {
                match $e {
                    Ok(v) => v,
                    Err(e) => return Err(self.located(f, at, e)),
                }
            };
        }
        match op {
            Op::Const { dst, k } => {
                // A plain copy: building the value through `Option` made the compiler
                // copy it in overlapping pieces, stalling store forwarding.
                if let Some(v) = prog.consts.get(k as usize) {
                    r!(dst) = *v;
                }
            }
            Op::Mov { dst, src } => r!(dst) = r!(src),
            Op::Add { dst, a, b } => r!(dst) = tri!(int2(r!(a), r!(b), i64::checked_add)),
            Op::Sub { dst, a, b } => r!(dst) = tri!(int2(r!(a), r!(b), i64::checked_sub)),
            Op::AddK { dst, a, k } => r!(dst) = tri!(int2(r!(a), Value::Int(k as i64), i64::checked_add)),
            Op::Mul { dst, a, b } => r!(dst) = tri!(int2(r!(a), r!(b), i64::checked_mul)),
            Op::Div { dst, a, b } => {
                r!(dst) = tri!(int2(r!(a), r!(b), |x, y| {
                    if y == 0 {
                        None
                    } else {
                        Some(x.div_euclid(y))
                    }
                }))
            }
            Op::Rem { dst, a, b } => {
                r!(dst) = tri!(int2(r!(a), r!(b), |x, y| {
                    if y == 0 {
                        None
                    } else {
                        Some(x.rem_euclid(y))
                    }
                }))
            }
            Op::Eq { dst, a, b } => r!(dst) = Value::Bool(r!(a) == r!(b)),
            Op::Ne { dst, a, b } => r!(dst) = Value::Bool(r!(a) != r!(b)),
            Op::Lt { dst, a, b } => r!(dst) = tri!(cmp(r!(a), r!(b), |o| o.is_lt())),
            Op::Le { dst, a, b } => r!(dst) = tri!(cmp(r!(a), r!(b), |o| o.is_le())),
            Op::Gt { dst, a, b } => r!(dst) = tri!(cmp(r!(a), r!(b), |o| o.is_gt())),
            Op::Ge { dst, a, b } => r!(dst) = tri!(cmp(r!(a), r!(b), |o| o.is_ge())),
            Op::Neg { dst, a } => {
                let x = tri!(as_int(r!(a)));
                r!(dst) = Value::Int(tri!(x.checked_neg().ok_or_else(overflow)));
            }
            Op::Not { dst, a } => r!(dst) = Value::Bool(!tri!(as_bool(r!(a)))),
            Op::Jump { to } => pc = to as usize,
            Op::JumpIf { cond, to } => {
                if tri!(as_bool(r!(cond))) {
                    pc = to as usize
                }
            }
            Op::JumpIfNot { cond, to } => {
                if !tri!(as_bool(r!(cond))) {
                    pc = to as usize
                }
            }
            Op::BrCmp { cmp: c, a, b, to, when } => {
                if compare(c, r!(a), r!(b)).map_err(|e| self.located(f, at, e))? == when {
                    pc = to as usize;
                }
            }
            Op::BrCmpK { cmp: c, a, k, to, when } => {
                let y = prog.consts.get(k as usize).copied().unwrap_or(Value::Nil);
                if compare(c, r!(a), y).map_err(|e| self.located(f, at, e))? == when {
                    pc = to as usize;
                }
            }
            Op::BrTest { test, x, y, k, to, when } => {
                if self.op_test(f, func, at, base, (test, x, y, k))? == when {
                    pc = to as usize;
                }
            }
            Op::BrStatic { what, a, b, to, when } => {
                if self.op_static(what, a, b) == when {
                    pc = to as usize;
                }
            }
            Op::BrClass { u, class, to, when } => {
                if self.op_is_class(f, at, base, u, class)? == when {
                    pc = to as usize;
                }
            }
            Op::BrMarker { obj, marker, to, when } => {
                if self.op_has_marker(base, obj, marker) == when {
                    pc = to as usize;
                }
            }
            Op::Call { f: g, args, argc, dst, trace } => {
                r!(dst) = self.op_call(func, at, base, (g, args, argc, trace))?;
            }
            Op::ModApplied { line, amt } => {
                if let Some((depth, lines)) = self.mod_open.last_mut() {
                    if *depth == self.depth {
                        let v = if amt == NO_REG { Value::Nil } else { r!(amt) };
                        lines.push((line, v));
                    }
                }
            }
            // Hot list and unit queries are handled here rather than in `exec_effect`.
            // Loop steps: forward ones jump out when done, rotated ones (`Back`) jump
            // back to the body while elements remain.
            Op::IterNext { list, idx, dst, done: to } | Op::IterStart { list, idx, dst, done: to } => {
                if !self.op_iter_list(f, at, base, (list, idx, dst), matches!(op, Op::IterStart { .. }))? {
                    pc = to as usize;
                }
            }
            Op::IterNextBack { list, idx, dst, body } => {
                if self.op_iter_list(f, at, base, (list, idx, dst), false)? {
                    pc = body as usize;
                }
            }
            Op::IterAt { hex, idx, dst, done: to } | Op::IterAtStart { hex, idx, dst, done: to } => {
                if !self.op_iter_at(f, at, base, (hex, idx, dst), matches!(op, Op::IterAtStart { .. }))? {
                    pc = to as usize;
                }
            }
            Op::IterAtBack { hex, idx, dst, body } => {
                if self.op_iter_at(f, at, base, (hex, idx, dst), false)? {
                    pc = body as usize;
                }
            }
            Op::IsClass { dst, u, class } => r!(dst) = Value::Bool(self.op_is_class(f, at, base, u, class)?),
            Op::HasMarker { dst, obj, marker } => {
                r!(dst) = Value::Bool(self.op_has_marker(base, obj, marker))
            }
            Op::Field { dst, obj, field: Field::Side } => r!(dst) = self.op_side(f, at, base, obj)?,
            // Unit attributes (the other fields go through `exec_effect`).
            Op::Field {
                dst,
                obj,
                field: field @ (Field::Rating(_) | Field::Hex | Field::Steps | Field::OnMap),
            } => r!(dst) = self.op_unit_field(f, at, base, obj, field)?,
            Op::ListNew { dst } => {
                let l = self.new_list();
                r!(dst) = Value::List(l);
            }
            Op::ListPush { list, v } => {
                let x = r!(v);
                match r!(list) {
                    Value::List(l) if (l as usize) < self.lists.len() => self.lists[l as usize].push(x),
                    other => {
                        let e = RuntimeError::new("R0002", format!("push onto {other:?}"));
                        return Err(self.located(f, at, e));
                    }
                }
            }
            Op::Ret { src } => return Ok(Flow::Ret(r!(src))),
            Op::RetNil => return Ok(Flow::Ret(Value::Nil)),
            Op::Builtin { b, dst, a, argc } => self.op_builtin(f, func, at, base, (b, dst, a, argc))?,
            // A hex's terrain and a terrain's attributes: static map data.
            Op::Field { dst, obj, field: field @ (Field::Terrain | Field::TerrainAttr(_)) } => {
                pc = self.op_terrain_field(f, func, at, base, op, (obj, field, dst))?
            }
            _ => pc = self.op_general(f, func, at, base, op)?,
        }

        Ok(Flow::Next(pc))
    }

    /// The cheap, static built-ins without the general call (`None`: take the general
    /// path, which also reports wrong operands).
    #[inline]
    pub(crate) fn quick_builtin(&self, b: crate::op::Builtin, a: &[Reg; 5], base: usize) -> Option<Value> {
        use crate::op::Builtin as B;
        let arg = |i: usize| self.regs.get(base + a[i] as usize).copied();
        let idx = |v: Option<Value>| match v {
            Some(Value::Int(i)) if i >= 0 => Some(i as usize),
            _ => None,
        };
        let hex2 = || match (arg(0), arg(1)) {
            (Some(Value::Hex(x)), Some(Value::Hex(y))) => Some((x, y)),
            _ => None,
        };
        Some(match b {
            B::Flag => Value::Bool(*self.flags.get(idx(arg(0))?)?),
            B::Optional => Value::Bool(*self.options.get(idx(arg(0))?)?),
            B::Other => match arg(0)? {
                Value::Side(s) => Value::Side(s.wrapping_add(1) % self.prog.sides.len().max(1) as u8),
                _ => return None,
            },
            B::Min | B::Max => match (arg(0)?, arg(1)?) {
                (Value::Int(x), Value::Int(y)) => Value::Int(if b == B::Min { x.min(y) } else { x.max(y) }),
                _ => return None,
            },
            B::UnitId => match arg(0)? {
                Value::Unit(u) if (u as usize) < self.state.units.len() => Value::Int(u as i64),
                _ => return None,
            },
            B::Distance => {
                let (x, y) = hex2()?;
                Value::Int(self.board.distance(x, y))
            }
            B::Crosses => {
                let (x, y) = hex2()?;
                let f = idx(arg(2))?;
                let mask = Board::side_mask(&self.prog.map, &self.board, x, y);
                Value::Bool(f < 32 && mask & (1 << f) != 0)
            }
            B::HexsideSum => {
                let (x, y) = hex2()?;
                Value::Int(self.hexside_sum(x, y, idx(arg(2))?))
            }
            B::InRegion => match arg(0)? {
                Value::Hex(h) => {
                    let region = self.prog.map.regions.get(idx(arg(1))?)?;
                    Value::Bool(region.hexes.binary_search(&h).is_ok())
                }
                _ => return None,
            },
            // State reads: the general path records them for the cost memo.
            B::Turn if !self.rec.active => Value::Int(self.state.turn),
            B::OccupiedBy if !self.rec.active => match (arg(0)?, arg(1)?) {
                (Value::Hex(h), Value::Side(s)) => Value::Bool(
                    self.occ
                        .get(h as usize)
                        .map(|v| v.iter().any(|&u| self.state.units[u as usize].side == s))
                        .unwrap_or(false),
                ),
                _ => return None,
            },
            _ => return None,
        })
    }

    /// Register read for effect helpers.
    #[inline]
    pub(crate) fn reg(&self, base: usize, r: Reg) -> Value {
        self.regs.get(base + r as usize).copied().unwrap_or(Value::Nil)
    }
    #[inline]
    pub(crate) fn set_reg(&mut self, base: usize, r: Reg, v: Value) {
        if let Some(slot) = self.regs.get_mut(base + r as usize) {
            *slot = v;
        }
    }
}

#[cold]
fn overflow() -> RuntimeError {
    RuntimeError::new("R0005", "integer overflow or division by zero")
}

#[inline]
pub(crate) fn as_int(v: Value) -> Result<i64, RuntimeError> {
    match v {
        Value::Int(i) => Ok(i),
        other => Err(RuntimeError::new("R0002", format!("expected an Int, found {other:?}"))),
    }
}

#[inline]
pub(crate) fn as_bool(v: Value) -> Result<bool, RuntimeError> {
    match v {
        Value::Bool(b) => Ok(b),
        other => Err(RuntimeError::new("R0002", format!("expected a Bool, found {other:?}"))),
    }
}

#[inline]
fn int2(a: Value, b: Value, f: impl Fn(i64, i64) -> Option<i64>) -> Result<Value, RuntimeError> {
    let (x, y) = (as_int(a)?, as_int(b)?);
    f(x, y).map(Value::Int).ok_or_else(overflow)
}

/// A comparison of [`Op::BrCmp`]: equality of any values, order of Ints.
#[inline(always)]
fn compare(c: crate::op::Cmp, x: Value, y: Value) -> Result<bool, RuntimeError> {
    use crate::op::Cmp;
    Ok(match c {
        Cmp::Eq => x == y,
        Cmp::Ne => x != y,
        _ => match (x, y) {
            (Value::Int(x), Value::Int(y)) => match c {
                Cmp::Lt => x < y,
                Cmp::Le => x <= y,
                Cmp::Gt => x > y,
                _ => x >= y,
            },
            _ => {
                cmp(x, y, |o| o.is_lt())?;
                false
            }
        },
    })
}

#[inline]
fn cmp(a: Value, b: Value, f: impl Fn(std::cmp::Ordering) -> bool) -> Result<Value, RuntimeError> {
    let (x, y) = (as_int(a)?, as_int(b)?);
    Ok(Value::Bool(f(x.cmp(&y))))
}

#[cfg(test)]
mod size_tests {
    use super::*;
    use std::mem::size_of;

    /// Results on the hot paths stay small (errors are boxed): an inline error made them
    /// over 100 bytes, written through memory by every instruction.
    #[test]
    fn results_stay_small() {
        assert_eq!(size_of::<RuntimeError>(), 8);
        assert!(size_of::<Result<Value, RuntimeError>>() <= 16);
        assert!(size_of::<Result<i64, RuntimeError>>() <= 16);
        assert!(size_of::<Exec<bool>>() <= 16);
        assert!(size_of::<Exec<usize>>() <= 16);
        assert!(size_of::<Exec<Value>>() <= 16, "{}", size_of::<Exec<Value>>());
        assert_eq!(size_of::<Halt>(), 8);
    }
}
