//! The search agent (`--agent SIDE=search:N`): flat Monte Carlo over a decision's
//! options, with playouts that replay the game from its start, or from the start of the
//! current turn where the game left a checkpoint there (`checkpoint.rs`).
//!
//! A decision is reached deep inside the interpreter's Rust recursion (`run` calls
//! `invoke` calls `run`), so a running game cannot be copied at a decision. A playout
//! therefore *replays* it: a fresh VM on the same scenario, seed, rulings and options
//! answers every decision made so far (all sides, [`crate::agent::Decision`]) from the
//! record, which reproduces the game's state exactly (the dice are the game's until
//! then), and at the decision being searched it answers the candidate option and
//! *forks*: its dice are reseeded from the search's own generator (never the game's
//! future dice), the other sides' hidden track values are replaced by what the
//! searching side may see (the rulebook's `shown` estimate), and from there heuristic
//! agents play both sides to the end of the game. A won playout scores 2, a draw 1, a
//! loss (or an error) 0; the option with the best mean is chosen. A replayed decision
//! that does not match the record (another side, another number of options) stops the
//! playout (R0019) and is counted in the agent's notes: it would mean that the replay
//! is not the game.
//!
//! Candidates: the options in the rulebook's preference order (`prefer`, ties by
//! option order; declining scored by `or none prefer`, else 0), the best
//! `max(2, N / 4)` of them; the N playouts go round-robin over them. Ties go to the
//! preferred option. Where the search cannot look it answers as the heuristic agent:
//! fewer than 2 playouts or candidates, another side's `secret`/`sealed` decision not
//! yet revealed (the replay would read it), or a rulebook with hidden ratings or
//! hidden types (the playout cannot yet replace those by their estimates).

use crate::agent::{Agent, ChoiceRequest, Decision, HeuristicAgent};
use crate::checkpoint::Checkpoint;
use crate::dice::Dice;
use crate::error::RuntimeError;
use crate::log::Log;
use crate::memo::CostMemo;
use crate::players::Seating;
use crate::program::Program;
use crate::state::State;
use crate::value::Value;
use crate::vm::{Exec, Halt, Stop, Vm};

/// A playout's replay: the decisions to answer from the record, then the fork.
pub(crate) struct Replay {
    history: Vec<Decision>,
    cursor: usize,
    /// The answer at the fork.
    candidate: Option<u32>,
    /// Seed of the dice after the fork.
    dice_seed: u64,
    /// The searching player: other players' hidden values are estimated.
    viewer: usize,
    /// `search:N:H`: the playout stops when the game turn H turns after the fork's begins.
    horizon: Option<u32>,
}

impl<'p> Vm<'p> {
    /// Answer a decision of a replaying playout: from the record, or at the fork the
    /// candidate (then the playout's own dice and the searching side's view).
    pub(crate) fn replay_answer(&mut self, s: u8, count: usize, or_none: bool) -> Exec<Option<usize>> {
        let Some(r) = self.replay.as_mut() else { return Ok(None) };
        if let Some(&d) = r.history.get(r.cursor) {
            r.cursor += 1;
            if d.side != s || d.count as usize != count || d.or_none != or_none {
                return Err(diverged());
            }
            return Ok(d.answer.map(|a| a as usize));
        }
        let Some(r) = self.replay.take() else { return Ok(None) };
        if self.seats.player(s) != r.viewer {
            return Err(diverged());
        }
        self.dice = Dice::new(r.dice_seed, 0);
        if let Some(h) = r.horizon {
            self.stop_at_turn = Some(self.state.turn.saturating_add(i64::from(h.max(1))));
        }
        self.determinize(r.viewer)?;
        Ok(match r.candidate {
            Some(c) if (c as usize) < count => Some(c as usize),
            None if or_none => None,
            _ => return Err(diverged()),
        })
    }

    /// Replace other players' hidden track values by the rulebook's estimate of them
    /// (`hidden T shown F`: `F(unit)`), except where the revealing marker shows them.
    fn determinize(&mut self, viewer: usize) -> Exec<()> {
        let prog = self.prog;
        let mut writes = Vec::new();
        for h in &prog.hidden {
            let Some(t) = prog.tracks.get(h.track as usize) else { continue };
            for u in 0..self.state.units.len() {
                let side = self.state.units[u].side;
                if self.seats.player(side) == viewer || self.revealed(u as u16, h.revealed_by) {
                    continue;
                }
                let Some(slot) = prog.track_slot_in(&self.track_bases, h.track, Some(u)) else { continue };
                let v = self.call(h.shown, &[Value::Unit(u as u16)])?;
                let x = t.holds.slot(v).ok_or_else(|| {
                    RuntimeError::new(
                        "R0019",
                        format!("the estimate of hidden {} is not a value it holds", t.name),
                    )
                })?;
                writes.push((
                    slot,
                    if t.holds == crate::program::Holds::Int { x.clamp(t.lo, t.hi) } else { x },
                ));
            }
        }
        for (slot, x) in writes {
            if let Some(v) = self.state.tracks.get_mut(slot) {
                *v = x;
            }
        }
        self.version += 1;
        Ok(())
    }

    /// Does a player other than side `s`'s hold a secret or sealed decision that has not
    /// been revealed?
    pub(crate) fn unrevealed_for(&self, s: u8) -> bool {
        let me = self.seats.player(s);
        let secret =
            self.secrets_pending.iter().enumerate().any(|(o, &n)| n > 0 && self.seats.player(o as u8) != me);
        let sealed = self.sealed_from.is_some_and(|from| {
            self.history.get(from..).unwrap_or(&[]).iter().any(|d| self.seats.player(d.side) != me)
        });
        secret || sealed
    }
}

fn diverged() -> Halt {
    RuntimeError::new("R0019", "a search playout's replay left the course of the game").into()
}

/// What a playout needs to replay the game: its program, scenario, seed and set-up.
#[derive(Clone)]
pub struct Setup<'p> {
    pub prog: &'p Program,
    pub scenario: usize,
    pub seed: u64,
    pub rulings: Vec<usize>,
    pub options: Vec<bool>,
    pub seats: Seating,
    pub budget: u64,
    /// `search:N:H`: playouts stop H game turns after their fork and are scored by the
    /// rulebook's position score (`score f;`); `None`, they play to the end.
    pub horizon: Option<u32>,
    /// The game's native code, for the playouts too.
    pub native: Option<crate::native::Native>,
}

/// How one playout ended, for the searching player.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Playout {
    /// 2 won, 1 drawn, 0 lost.
    Scored(u32),
    /// Stopped at the horizon: the searching player's position score less the best of
    /// the other players' (`d`), scored `1 + d / (|d| + 1)`, between a loss and a win.
    Horizon(i64),
    /// The replay did not reproduce the game (a bug; counted in the notes).
    Diverged,
    /// The playout stopped with another runtime error (scored as a loss).
    Failed,
}

/// Replay the game with `history`, answer `candidate` at the fork, play on with
/// heuristic agents and the dice of `playout_seed`. From checkpoint `from` when given
/// (the replay then starts at the decisions made since it), else from the start.
fn playout<'p>(
    setup: &Setup<'p>,
    history: &[Decision],
    candidate: Option<u32>,
    player: usize,
    playout_seed: u64,
    from: Option<&Checkpoint>,
    memo: &mut CostMemo,
) -> (Playout, Option<Vm<'p>>) {
    let prog = setup.prog;
    let Some(sequence) = prog.sequence else { return (Playout::Failed, None) };
    let Some(scenario) = prog.scenarios.get(setup.scenario) else { return (Playout::Failed, None) };
    let agents: Vec<Box<dyn Agent + 'p>> = (0..setup.seats.players.len())
        .map(|i| Box::new(HeuristicAgent::new(playout_seed, i as u8)) as Box<dyn Agent>)
        .collect();
    let from = from.filter(|cp| cp.decisions_before() <= history.len());
    let mut vm = match from {
        Some(cp) => Vm::resumed(prog, cp, history, agents, setup.budget),
        None => {
            let mut vm = Vm::new(
                prog,
                State::new(prog, scenario),
                setup.scenario,
                setup.seed,
                agents,
                Log::new(false),
                setup.rulings.clone(),
                setup.budget,
            );
            vm.options = setup.options.clone();
            vm.seats = setup.seats.clone();
            vm
        }
    };
    vm.native = setup.native.and_then(|n| n.code_for(prog));
    // The movement costs the previous playouts found (the caller takes the memo back).
    vm.cost_memo = std::mem::take(memo).carried(setup.scenario, &setup.seats.players);
    // Checking invariants never changes a game that keeps them (the game checks them).
    vm.check_invariants = false;
    vm.replay = Some(Box::new(Replay {
        history: history.to_vec(),
        cursor: from.map_or(0, |cp| cp.decisions_before()),
        candidate,
        dice_seed: playout_seed,
        viewer: player,
        horizon: setup.horizon,
    }));
    let run = match from {
        Some(cp) => vm.run_resumed(cp),
        None => vm.init_control().and_then(|_| vm.call(sequence, &[])),
    };
    if vm.replay.is_some() {
        return (Playout::Diverged, Some(vm));
    }
    let p = match run.map_err(Halt::into_stop) {
        Err(Stop::End(r)) => {
            let mine = |name: &str| {
                setup.seats.players.get(player).is_some_and(|sides| {
                    sides.iter().any(|&s| prog.sides.get(s as usize).is_some_and(|n| n == name))
                })
            };
            if r.winners.iter().any(|w| mine(w)) || r.winner.as_deref().is_some_and(mine) {
                Playout::Scored(2)
            } else if r.winner.is_none() {
                Playout::Scored(1)
            } else {
                Playout::Scored(0)
            }
        }
        Err(Stop::Horizon) => match prog.score {
            Some(f) => position(&mut vm, setup, f, player).map_or(Playout::Failed, Playout::Horizon),
            None => Playout::Failed,
        },
        Err(Stop::Error(e)) if e.code == "R0019" => Playout::Diverged,
        _ => Playout::Failed,
    };
    (p, Some(vm))
}

/// Under `debug_assertions`: the playout resumed from a checkpoint is the one replayed
/// from the start (same outcome, final state, decisions and dice).
#[cfg(debug_assertions)]
fn check_resumed(
    setup: &Setup,
    history: &[Decision],
    candidate: Option<u32>,
    player: usize,
    seed: u64,
    resumed: &(Playout, Option<Vm>),
) {
    let replayed = playout(setup, history, candidate, player, seed, None, &mut CostMemo::default());
    assert_eq!(resumed.0, replayed.0, "a resumed playout's outcome is the replayed one's");
    if let (Some(a), Some(b)) = (&resumed.1, &replayed.1) {
        assert!(a.state == b.state, "a resumed playout ends in the replayed one's state");
        assert_eq!(a.history, b.history, "a resumed playout makes the replayed one's decisions");
        assert_eq!(a.dice.clone().word(), b.dice.clone().word(), "and leaves its dice where it does");
    }
}

/// The searching player's position score less the best of the other players' (a
/// player's score: the best of its sides'), by the rulebook's `score f;`.
fn position(vm: &mut Vm, setup: &Setup, f: crate::program::FnId, player: usize) -> Option<i64> {
    let (mut mine, mut theirs) = (i64::MIN, i64::MIN);
    for (p, sides) in setup.seats.players.iter().enumerate() {
        for &s in sides {
            let v = vm.call(f, &[Value::Side(s)]).ok()?.as_int()?;
            let best = if p == player { &mut mine } else { &mut theirs };
            *best = (*best).max(v);
        }
    }
    if mine == i64::MIN || theirs == i64::MIN {
        return None;
    }
    Some(mine.saturating_sub(theirs))
}

/// A playout's value on the scale of won 2, drawn 1, lost 0.
fn value(p: Playout) -> f64 {
    match p {
        Playout::Scored(s) => f64::from(s),
        Playout::Horizon(d) => {
            let d = d as f64;
            1.0 + d / (d.abs() + 1.0)
        }
        Playout::Diverged | Playout::Failed => 0.0,
    }
}

/// Monte Carlo search with `playouts` playouts per decision (see the module's notes).
pub struct SearchAgent<'p> {
    setup: Setup<'p>,
    playouts: u32,
    player: usize,
    rng: Dice,
    fallback: HeuristicAgent,
    searched: u64,
    fell_back_secret: u64,
    fell_back_hidden: u64,
    run: u64,
    diverged: u64,
    failed: u64,
    /// Playouts stopped at the horizon and scored by the position score.
    truncated: u64,
    /// Playouts resumed from the current turn's checkpoint (the rest replayed the game
    /// from its start).
    resumed: u64,
    /// The movement-cost memo, handed from each playout to the next (`memo.rs`).
    memo: CostMemo,
}

impl<'p> SearchAgent<'p> {
    /// The agent of `player` (its index in the seating), `playouts` per decision.
    pub fn new(setup: Setup<'p>, playouts: u32, player: usize) -> SearchAgent<'p> {
        let seed = setup.seed;
        SearchAgent {
            setup,
            playouts,
            player,
            rng: Dice::new(seed, 300 + player as u64),
            fallback: HeuristicAgent::new(seed, player as u8),
            searched: 0,
            fell_back_secret: 0,
            fell_back_hidden: 0,
            run: 0,
            diverged: 0,
            failed: 0,
            truncated: 0,
            resumed: 0,
            memo: CostMemo::default(),
        }
    }

    /// The candidates in preference order: option indices, `None` for declining.
    fn candidates(req: &ChoiceRequest, keep: usize) -> Vec<Option<u32>> {
        let score = |c: &Option<u32>| match (c, req.scores) {
            (Some(i), Some(s)) => s.get(*i as usize).copied().unwrap_or(0),
            (None, Some(_)) => req.none_score.unwrap_or(0),
            _ => 0,
        };
        let mut all: Vec<Option<u32>> = (0..req.count as u32).map(Some).collect();
        if req.or_none {
            all.push(None);
        }
        // Stable: ties keep option order (declining last).
        all.sort_by_key(|c| std::cmp::Reverse(score(c)));
        all.truncate(keep);
        all
    }
}

impl Agent for SearchAgent<'_> {
    fn name(&self) -> String {
        "search".into()
    }
    fn notes(&self) -> Vec<String> {
        let mut n = vec![format!(
            "{} playouts per decision: {} decisions searched with {} playouts",
            self.playouts, self.searched, self.run
        )];
        if self.run > 0 {
            n.push(format!(
                "{} playouts resumed from the start of their turn, {} replayed from the start of the game",
                self.resumed,
                self.run - self.resumed
            ));
        }
        if let Some(h) = self.setup.horizon {
            let f = self.setup.prog.score.and_then(|f| self.setup.prog.functions.get(f as usize));
            n.push(format!(
                "horizon {} game turn{} after the fork: {} playouts stopped there and scored by `{}`, {} ended before it",
                h,
                if h == 1 { "" } else { "s" },
                self.truncated,
                f.map(|f| f.name.as_str()).unwrap_or("?"),
                self.run - self.truncated - self.failed - self.diverged,
            ));
        }
        if self.fell_back_secret > 0 {
            n.push(format!(
                "{} decisions answered by the heuristic: another side's secret choice was not yet revealed",
                self.fell_back_secret
            ));
        }
        if self.fell_back_hidden > 0 {
            n.push(format!(
                "{} decisions answered by the heuristic: hidden ratings or types are not estimated in playouts",
                self.fell_back_hidden
            ));
        }
        if self.failed > 0 {
            n.push(format!("{} playouts stopped with a runtime error (scored as lost)", self.failed));
        }
        if self.diverged > 0 {
            n.push(format!("{} playouts did not replay the game (R0019; scored as lost)", self.diverged));
        }
        n
    }
    fn choose(&mut self, req: &ChoiceRequest) -> Option<usize> {
        let keep = (self.playouts as usize / 4).max(2);
        let cands = SearchAgent::candidates(req, keep);
        if self.playouts < 2 || cands.len() < 2 {
            return self.fallback.choose(req);
        }
        if req.unrevealed {
            self.fell_back_secret += 1;
            return self.fallback.choose(req);
        }
        let prog = self.setup.prog;
        if !prog.hidden_ratings.is_empty() || prog.hidden_type.is_some() {
            self.fell_back_hidden += 1;
            return self.fallback.choose(req);
        }
        self.searched += 1;
        let mut total = vec![0f64; cands.len()];
        let mut plays = vec![0u64; cands.len()];
        for i in 0..self.playouts as usize {
            let k = i % cands.len();
            let seed = self.rng.word();
            self.run += 1;
            let from = req.resume;
            if from.is_some() {
                self.resumed += 1;
            }
            let mut out =
                playout(&self.setup, req.history, cands[k], self.player, seed, from, &mut self.memo);
            #[cfg(debug_assertions)]
            if from.is_some() {
                check_resumed(&self.setup, req.history, cands[k], self.player, seed, &out);
            }
            if let Some(vm) = &mut out.1 {
                self.memo = std::mem::take(&mut vm.cost_memo);
            }
            let p = out.0;
            match p {
                Playout::Scored(_) => {}
                Playout::Horizon(_) => self.truncated += 1,
                Playout::Diverged => self.diverged += 1,
                Playout::Failed => self.failed += 1,
            }
            total[k] += value(p);
            plays[k] += 1;
        }
        // Best mean; ties to the earlier (preferred) candidate.
        let mut best = 0;
        for k in 1..cands.len() {
            if total[k] * plays[best] as f64 > total[best] * plays[k] as f64 {
                best = k;
            }
        }
        cands[best].map(|c| c as usize)
    }
}
