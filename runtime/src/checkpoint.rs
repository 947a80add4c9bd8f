//! Checkpoints: the game as it stood when a game turn began, for the search agent's
//! playouts to resume from instead of replaying the game from its start.
//!
//! A decision is reached deep inside the interpreter's Rust recursion, so a running game
//! cannot be copied at a decision (`search.rs`). But when the sequence of play itself
//! begins a turn (`Op::TurnBegin` in the sequence's own frame, no other call active), the
//! only Rust frame of the game is the sequence's, and everything the game is (state,
//! dice, registers, lists, caches keyed by the state version, the decisions so far) is
//! plain data. A game with a search agent copies that data at every such turn start. A
//! playout then starts a VM from the latest copy, resumes the sequence at that
//! instruction, replays only the decisions made since (from the record, as before) and
//! forks at the searched decision as before. The replayed prefix shrinks from the whole
//! game so far to the current turn's part of it.
//!
//! A resumed playout is the replayed one: same state, same dice, same decisions, so the
//! same outcome. Under `debug_assertions` every resumed playout is also replayed from the
//! start and the two compared (`search.rs`). Two things differ on purpose: the resumed
//! VM's movement-cost memo is not the game's (it is the one the agent hands from playout
//! to playout; a cache, answers are the hook's with it or without it), and its step
//! budget counts from the checkpoint.

use crate::agent::Agent;
use crate::dice::Dice;
use crate::log::Log;
use crate::op::Op;
use crate::program::{FnId, Program};
use crate::state::State;
use crate::value::Value;
use crate::vm::{Exec, Vm};

/// The game at the start of a turn of the sequence of play (see the module's notes).
pub struct Checkpoint {
    scenario: usize,
    state: State,
    dice: Dice,
    rulings: Vec<usize>,
    options: Vec<bool>,
    flags: Vec<bool>,
    /// The registers up to the top of the sequence's frame.
    regs: Vec<Value>,
    lists: Vec<Vec<Value>>,
    rulings_read: Vec<bool>,
    view: Option<u8>,
    cur_para: u16,
    version: u64,
    reach_cache: Option<(u16, u8, u64, Vec<kriegsspiel_geo::Reach>)>,
    ezoc_cache: (u64, Vec<Vec<u8>>),
    seats: crate::players::Seating,
    control_now: Vec<Value>,
    control_state: Option<State>,
    secrets_pending: Vec<u32>,
    stats: crate::vm::Stats,
    /// The sequence's frame: its function, first register, and the `TurnBegin` to resume at.
    f: FnId,
    base: usize,
    pc: usize,
    /// Decisions answered before the checkpoint (a prefix of the game's record).
    history_len: usize,
}

impl Checkpoint {
    /// How many of the game's recorded decisions were made before it.
    pub fn decisions_before(&self) -> usize {
        self.history_len
    }
}

impl<'p> Vm<'p> {
    /// At `op` (instruction `at` of `f`, frame at `base`), before it runs: copy the game
    /// when `op` begins a turn in the sequence's own frame and nothing else is active.
    /// Where the game is elsewhere the previous checkpoint stays (any earlier one is as
    /// good a start, only longer to replay from).
    #[inline]
    pub(crate) fn maybe_checkpoint(&mut self, f: FnId, at: usize, base: usize, op: Op) {
        if !matches!(op, Op::TurnBegin { .. }) {
            return;
        }
        let quiet = self.depth() == 1
            && self.frames.len() == 1
            && self.frames[0] == (f, base)
            && self.prog.sequence == Some(f)
            && !self.in_trigger
            && !self.in_interrupt
            && !self.in_control
            && !self.tracing
            && self.mod_open.is_empty()
            && self.sealed.is_none()
            && self.sealed_from.is_none()
            && self.chain_depth == 0
            && self.replay.is_none()
            && self.stop_at_turn.is_none()
            && self.forced_dice.is_empty()
            && self.dice_record.is_none()
            && !self.rec.active;
        if !quiet {
            return;
        }
        self.checkpoint = Some(Box::new(Checkpoint {
            scenario: self.scenario,
            state: self.state.clone(),
            dice: self.dice.clone(),
            rulings: self.rulings.clone(),
            options: self.options.clone(),
            flags: self.flags.clone(),
            regs: self.regs[..self.top].to_vec(),
            lists: self.lists.clone(),
            rulings_read: self.rulings_read.clone(),
            view: self.view,
            cur_para: self.cur_para,
            version: self.version,
            reach_cache: self.reach_cache.clone(),
            ezoc_cache: self.ezoc_cache.clone(),
            seats: self.seats.clone(),
            control_now: self.control_now.clone(),
            control_state: self.control_state.clone(),
            secrets_pending: self.secrets_pending.clone(),
            stats: self.stats,
            f,
            base,
            pc: at,
            history_len: self.history.len(),
        }));
    }

    /// A VM at checkpoint `cp`, with `agents`, a log that keeps nothing, and `budget`
    /// steps from there; [`Vm::run_resumed`] runs the rest of the game.
    pub(crate) fn resumed(
        prog: &'p Program,
        cp: &Checkpoint,
        history: &[crate::agent::Decision],
        agents: Vec<Box<dyn Agent + 'p>>,
        budget: u64,
    ) -> Vm<'p> {
        let mut vm = Vm::new(
            prog,
            cp.state.clone(),
            cp.scenario,
            0,
            agents,
            Log::new(false),
            cp.rulings.clone(),
            budget,
        );
        vm.dice = cp.dice.clone();
        vm.options = cp.options.clone();
        vm.flags = cp.flags.clone();
        vm.regs.clear();
        vm.regs.extend_from_slice(&cp.regs);
        vm.top = cp.regs.len();
        vm.lists = cp.lists.clone();
        vm.rulings_read = cp.rulings_read.clone();
        vm.view = cp.view;
        vm.cur_para = cp.cur_para;
        vm.version = cp.version;
        vm.reach_cache = cp.reach_cache.clone();
        vm.ezoc_cache = cp.ezoc_cache.clone();
        vm.seats = cp.seats.clone();
        vm.control_now = cp.control_now.clone();
        vm.control_state = cp.control_state.clone();
        vm.secrets_pending = cp.secrets_pending.clone();
        vm.stats = cp.stats;
        vm.history = history.get(..cp.history_len).unwrap_or(history).to_vec();
        vm.enter_resumed(cp.f, cp.base);
        vm
    }

    /// Run the sequence of play on from the checkpoint the VM was made from.
    pub(crate) fn run_resumed(&mut self, cp: &Checkpoint) -> Exec<Value> {
        self.run_from(cp.f, cp.base, cp.pc, None)
    }
}
