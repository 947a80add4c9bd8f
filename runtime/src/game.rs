//! Playing a scenario: set-up, the sequence of play, the log header and result line.

use crate::agent::{Agent, HeuristicAgent, RandomAgent, ScriptedAgent};
use crate::error::{GameResult, RuntimeError};
use crate::log::{Event, Log};
use crate::program::Program;
use crate::state::State;
use crate::value::Value;
use crate::vm::{Halt, Stats, Stop, Vm};
use serde_json::json;
use std::collections::BTreeMap;
use std::io::Write;

/// Which agent answers a side's decisions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AgentKind {
    Random,
    Heuristic,
    /// Choices read from a script (entries for this side).
    Scripted(Vec<serde_json::Value>),
    /// Monte Carlo search with this many playouts per decision (`search.rs`), and
    /// optionally a horizon in game turns after which a playout is scored by the
    /// rulebook's position score (`search:N:H`).
    Search(u32, Option<u32>),
}

impl AgentKind {
    pub fn name(&self) -> &'static str {
        match self {
            AgentKind::Random => "random",
            AgentKind::Heuristic => "heuristic",
            AgentKind::Scripted(_) => "scripted",
            AgentKind::Search(..) => "search",
        }
    }
}

/// Everything that determines a game: same options, same log.
#[derive(Clone, Debug)]
pub struct GameOptions {
    pub scenario: String,
    pub seed: u64,
    /// Agent per side name; sides not listed play `Random`. With a `players`
    /// declaration the agent of a player is the one given for any of its sides (two
    /// different kinds for one player's sides are refused).
    pub agents: BTreeMap<String, AgentKind>,
    /// How many players (a count the rulebook's `players` declaration offers); `None`:
    /// its first count, or one player per side without the declaration.
    pub players: Option<u8>,
    /// Ruling name -> alternative name; rulings not listed use their default.
    pub rulings: BTreeMap<String, String>,
    /// Optional rules switched on, by name.
    pub options: std::collections::BTreeSet<String>,
    /// Write the JSON Lines log.
    pub log: bool,
    /// Instruction budget for the whole game.
    pub budget: u64,
    /// Count calls and instructions per rulebook function (`GameOutcome::profile`).
    pub profile: bool,
    /// Check the rulebook's invariants (a broken one stops the game with R0015).
    /// Checking never changes a game that keeps them.
    pub invariants: bool,
    /// Count how often each paragraph's code runs (`GameOutcome::fired`).
    pub rules_fired: bool,
    /// The rulebook as the user named it, recorded in the log's header as `source`
    /// (so that `replay` finds the map and counters without being told).
    pub source: Option<String>,
    /// The rulebook compiled to Rust (`kriegsspiel build`): runs its functions in place
    /// of the interpreter, with the same log. `None`: the VM alone.
    pub native: Option<crate::native::Native>,
}

impl Default for GameOptions {
    fn default() -> GameOptions {
        GameOptions {
            scenario: String::new(),
            seed: 1,
            agents: BTreeMap::new(),
            players: None,
            rulings: BTreeMap::new(),
            options: Default::default(),
            log: true,
            budget: 200_000_000,
            profile: false,
            invariants: true,
            rules_fired: false,
            source: None,
            native: None,
        }
    }
}

/// What a finished game reports.
#[derive(Debug)]
pub struct GameOutcome {
    pub result: Result<GameResult, RuntimeError>,
    /// With `GameOptions::profile`: (function name, calls, instructions inclusive,
    /// instructions self), most expensive (self) first.
    pub profile: Vec<(String, u64, u64, u64)>,
    /// With `GameOptions::rules_fired`: per paragraph (indexed as `Program::paragraphs`),
    /// in how many calls of rulebook code (a procedure, `fn`, modifier set or trigger
    /// running once) instructions anchored to it ran. Empty without the option.
    pub fired: Vec<u64>,
    /// The log's lines (none when the log was streamed by [`play_streamed`]).
    pub log: Log,
    /// A streamed log that could not be written in full: the first write error.
    pub log_error: Option<std::io::Error>,
    pub stats: Stats,
    pub final_state: State,
}

/// `Stop::Horizon` reached where no search playout runs (only a playout sets one).
fn horizon_outside_a_playout() -> RuntimeError {
    RuntimeError::new("R0019", "a search horizon outside a search playout")
}

/// Resolve ruling choices to alternative indices, or explain what is wrong.
pub fn resolve_rulings(prog: &Program, chosen: &BTreeMap<String, String>) -> Result<Vec<usize>, String> {
    let mut v: Vec<usize> = prog.rulings.iter().map(|r| r.default).collect();
    for (name, alt) in chosen {
        let Some(ri) = prog.rulings.iter().position(|r| &r.name == name) else {
            let known: Vec<&str> = prog.rulings.iter().map(|r| r.name.as_str()).collect();
            return Err(format!("no ruling named {name:?} (rulings: {})", known.join(", ")));
        };
        let r = &prog.rulings[ri];
        let Some(ai) = r.alternatives.iter().position(|(n, _)| n == alt) else {
            let alts: Vec<&str> = r.alternatives.iter().map(|(n, _)| n.as_str()).collect();
            return Err(format!(
                "ruling {name} has no alternative {alt:?} (alternatives: {})",
                alts.join(", ")
            ));
        };
        v[ri] = ai;
    }
    Ok(v)
}

/// Play one scenario to its end.
pub fn play(prog: &Program, opts: &GameOptions) -> Result<GameOutcome, String> {
    play_with(prog, opts, None, None)
}

/// Games of one program played one after another (on one thread), each handing the
/// next what it learnt of the movement costs: the cost hook's memo (`memo.rs`), whose
/// answers a game of the same scenario and seating reuses wherever what they read is
/// unchanged. Every game plays and logs exactly as it would alone; it only runs fewer
/// instructions (so `Stats::instructions`, the profile and the rules-fired counts of the
/// cost hook depend on the games played before it in the series).
pub struct Series<'p> {
    prog: &'p Program,
    memo: crate::memo::CostMemo,
}

impl<'p> Series<'p> {
    pub fn new(prog: &'p Program) -> Series<'p> {
        Series { prog, memo: Default::default() }
    }

    /// [`play`] the next game of the series.
    pub fn play(&mut self, opts: &GameOptions) -> Result<GameOutcome, String> {
        play_with(self.prog, opts, None, Some(&mut self.memo))
    }

    /// [`play_streamed`] the next game of the series.
    pub fn play_streamed(
        &mut self,
        opts: &GameOptions,
        sink: Box<dyn Write + Send>,
    ) -> Result<GameOutcome, String> {
        play_with(self.prog, opts, Some(sink), Some(&mut self.memo))
    }
}

/// Play a game writing its log line by line to `sink` as it runs (the log is not kept
/// in memory: `GameOutcome::log` is empty, and a write error is `log_error`).
pub fn play_streamed(
    prog: &Program,
    opts: &GameOptions,
    sink: Box<dyn Write + Send>,
) -> Result<GameOutcome, String> {
    play_with(prog, opts, Some(sink), None)
}

fn play_with(
    prog: &Program,
    opts: &GameOptions,
    sink: Option<Box<dyn Write + Send>>,
    mut carried: Option<&mut crate::memo::CostMemo>,
) -> Result<GameOutcome, String> {
    let si = prog.scenario(&opts.scenario).ok_or_else(|| {
        let ids: Vec<&str> = prog.scenarios.iter().map(|s| s.id.as_str()).collect();
        format!("no scenario {:?} (scenarios: {})", opts.scenario, ids.join(", "))
    })?;
    for name in opts.agents.keys() {
        if !prog.sides.contains(name) {
            return Err(format!("no side named {name:?} (sides: {})", prog.sides.join(", ")));
        }
    }
    let rulings = resolve_rulings(prog, &opts.rulings)?;
    // An optional layer compiled in is in play; one with declarations of its own that
    // was not compiled in cannot be.
    let mut options = prog.options_compiled_in();
    for name in &opts.options {
        if prog.layers.iter().any(|l| &l.name == name && l.has_decls && !l.active) {
            return Err(format!(
                "optional rule {name:?} is a layer with declarations of its own: compile the rulebook with it \
                 in play (kriegsspiel run --option {name} does)"
            ));
        }
        match prog.options.iter().position(|o| &o.name == name) {
            Some(i) => options[i] = true,
            None => {
                let known: Vec<&str> = prog.options.iter().map(|o| o.name.as_str()).collect();
                return Err(format!("no optional rule named {name:?} (options: {})", known.join(", ")));
            }
        }
    }
    let sequence = prog.sequence.ok_or("the rulebook declares no sequence of play")?;
    // A horizon stops playouts short of the end, to be scored by the rulebook's score.
    if prog.score.is_none() {
        if let Some((side, AgentKind::Search(n, Some(h)))) =
            opts.agents.iter().find(|(_, k)| matches!(k, AgentKind::Search(_, Some(_))))
        {
            return Err(format!(
                "{side}=search:{n}:{h}: a horizon needs the rulebook's position score, and it declares none \
                 (`score f;`, docs/language.md 6.17e); search:{n} plays its playouts to the end"
            ));
        }
    }
    let scenario = &prog.scenarios[si];
    let state = State::new(prog, scenario);
    let seats = crate::players::Seating::for_count(prog, opts.players)?;
    let mut agents: Vec<Box<dyn Agent + '_>> = Vec::new();
    let mut agent_names = serde_json::Map::new();
    let mut players_json = Vec::new();
    // One agent per player (per side without a `players` declaration), seeded by the
    // player's index: a game without the declaration seeds its agents as before.
    for (i, sides) in seats.players.iter().enumerate() {
        let mut kind: Option<AgentKind> = None;
        for &s in sides {
            let name = &prog.sides[s as usize];
            if let Some(k) = opts.agents.get(name) {
                match &kind {
                    Some(prev) if prev != k => {
                        return Err(format!(
                            "the sides {} are played by one player: give them one agent",
                            sides
                                .iter()
                                .map(|&x| prog.sides[x as usize].as_str())
                                .collect::<Vec<_>>()
                                .join(", ")
                        ))
                    }
                    _ => kind = Some(k.clone()),
                }
            }
        }
        let kind = kind.unwrap_or(AgentKind::Random);
        for &s in sides {
            agent_names.insert(prog.sides[s as usize].clone(), json!(kind.name()));
        }
        players_json.push(json!({
            "player": seats.name(prog, i),
            "sides": sides.iter().map(|&s| prog.sides[s as usize].as_str()).collect::<Vec<_>>(),
            "agent": kind.name(),
        }));
        let a: Box<dyn Agent> = match kind {
            AgentKind::Random => Box::new(RandomAgent::new(opts.seed, i as u8)),
            AgentKind::Heuristic => Box::new(HeuristicAgent::new(opts.seed, i as u8)),
            AgentKind::Scripted(entries) => Box::new(ScriptedAgent::new(entries, opts.seed, i as u8)),
            AgentKind::Search(n, horizon) => {
                let setup = crate::search::Setup {
                    prog,
                    scenario: si,
                    seed: opts.seed,
                    rulings: rulings.clone(),
                    options: options.clone(),
                    seats: seats.clone(),
                    budget: opts.budget,
                    horizon,
                    native: opts.native,
                };
                Box::new(crate::search::SearchAgent::new(setup, n, i))
            }
        };
        agents.push(a);
    }
    let mut log = match sink {
        Some(w) => Log::streaming(w),
        None => Log::new(opts.log),
    };
    if log.enabled() {
        let ruling_map: serde_json::Map<String, serde_json::Value> = prog
            .rulings
            .iter()
            .zip(&rulings)
            .map(|(r, &a)| (r.name.clone(), json!(r.alternatives.get(a).map(|x| x.0.clone()))))
            .collect();
        let supplied: Vec<serde_json::Value> = prog
            .supplied
            .iter()
            .map(|s| json!({ "what": s.what, "reason": s.reason, "para": prog.para(s.para) }))
            .collect();
        let header = Event::Header {
            source: opts.source.clone(),
            rulebook: prog.title.clone(),
            scenario: scenario.id.clone(),
            scenario_title: scenario.title.clone(),
            seed: opts.seed,
            agents: agent_names,
            rulings: ruling_map,
            options: prog
                .options
                .iter()
                .zip(&options)
                .filter(|(_, &on)| on)
                .map(|(o, _)| json!({ "option": o.name, "title": o.title, "para": prog.para(o.para) }))
                .collect::<Vec<_>>(),
            supplied,
        };
        log.event("header", None, &header);
        // Rulebooks that declare players: the count chosen and who plays what.
        if seats.declared {
            log.event("players", None, &Event::Players { count: seats.players.len(), players: players_json });
        }
        // Rulebooks with declared layers: the layers in play, lowest first.
        if prog.layers.iter().any(|l| l.declared) {
            let layers: Vec<serde_json::Value> = prog
                .layers
                .iter()
                .filter(|l| l.active)
                .map(|l| json!({ "layer": l.name, "title": l.title }))
                .collect();
            log.event("layers", None, &Event::Layers { layers });
        }
    }
    let mut vm = Vm::new(prog, state, si, opts.seed, agents, log, rulings, opts.budget);
    vm.options = options;
    vm.seats = seats;
    vm.native = match opts.native {
        Some(n) => Some(n.code_for(prog).ok_or("the native code was checked against another program")?),
        None => None,
    };
    vm.check_invariants = opts.invariants && !prog.invariants.is_empty();
    if let Some(m) = carried.as_deref_mut() {
        vm.cost_memo = std::mem::take(m).carried(si, &vm.seats.players);
    }
    // A search agent resumes its playouts from the start of the current turn.
    vm.checkpoints = opts.agents.values().any(|k| matches!(k, AgentKind::Search(..)));
    if opts.profile {
        vm.profile = Some(Vec::new());
    }
    if opts.rules_fired {
        vm.fired = Some(crate::vm::Fired::new(prog.paragraphs.len()));
    }
    let run = vm.init_control().and_then(|_| vm.call(sequence, &[]));
    let result = match run.map_err(Halt::into_stop) {
        Ok(_) => Err(RuntimeError::new(
            "R0011",
            "the sequence of play finished without a victory determination (no win or draw)",
        )),
        Err(Stop::End(r)) => Ok(r),
        Err(Stop::Error(e)) => Err(e),
        Err(Stop::Horizon) => Err(horizon_outside_a_playout()),
    };
    for (i, a) in vm.agents.iter().enumerate() {
        let notes = a.notes();
        if !notes.is_empty() {
            let side = vm
                .seats
                .players
                .get(i)
                .and_then(|p| p.first())
                .and_then(|&s| prog.sides.get(s as usize))
                .cloned();
            vm.log.event("agent", None, &Event::Agent { side, agent: a.name(), notes });
        }
    }
    match &result {
        Ok(r) => {
            let end = Event::End {
                winner: r.winner.clone(),
                reason: r.reason.clone(),
                para: r.para.clone(),
                turn: r.turn,
                winners: r.winners.clone(),
                team: r.team.clone(),
            };
            vm.log.event("end", None, &end)
        }
        Err(e) => {
            let error = Event::Error {
                code: e.code.to_string(),
                message: e.message.clone(),
                para: e.para.clone(),
                function: e.function.clone(),
            };
            vm.log.event("error", None, &error)
        }
    }
    let mut stats = vm.stats;
    stats.instructions = vm.instructions();
    let mut profile: Vec<(String, u64, u64, u64)> = vm
        .profile
        .take()
        .unwrap_or_default()
        .into_iter()
        .enumerate()
        .filter(|(_, e)| e.0 > 0)
        .map(|(i, e)| (prog.functions.get(i).map(|f| f.name.clone()).unwrap_or_default(), e.0, e.1, e.2))
        .collect();
    profile.sort_by(|a, b| b.3.cmp(&a.3).then(a.0.cmp(&b.0)));
    let fired = vm.fired.take().map(|f| f.counts).unwrap_or_default();
    let log_error = vm.log.finish().err();
    if let Some(m) = carried {
        *m = std::mem::take(&mut vm.cost_memo);
    }
    Ok(GameOutcome { result, stats, final_state: vm.state, log: vm.log, log_error, profile, fired })
}

/// The example's situation set up and its procedures run: the VM ready to evaluate
/// expectations, or the outcome of a run that stopped with a runtime error. `logged`:
/// record the run's events (for the trace of a failed example).
fn example_vm<'p>(
    prog: &'p Program,
    ex: &ExampleRun,
    logged: bool,
    record_dice: bool,
) -> Result<(Vm<'p>, Option<RuntimeError>), (ExampleOutcome, Vec<bool>)> {
    let si = ex.scenario.unwrap_or(0);
    let Some(scenario) = prog.scenarios.get(si) else {
        return Err((
            ExampleOutcome::Error(RuntimeError::new("R0012", "examples need a scenario")),
            Vec::new(),
        ));
    };
    let mut state = State::new(prog, scenario);
    // Examples start from an empty map holding only the placed units.
    for u in state.units.iter_mut() {
        u.status = crate::state::UnitStatus::Pending;
        u.hex = crate::state::OFF_MAP;
    }
    for &(u, h) in ex.places {
        if let Some(us) = state.units.get_mut(u as usize) {
            us.status = crate::state::UnitStatus::OnMap;
            us.hex = h;
        }
    }
    for &(u, facing, face) in ex.starts {
        if let Some(us) = state.units.get_mut(u as usize) {
            us.facing = facing;
            us.face = face;
        }
    }
    state.turn = scenario.first_turn;
    let agents: Vec<Box<dyn Agent>> =
        (0..prog.sides.len()).map(|i| Box::new(HeuristicAgent::new(0, i as u8)) as Box<dyn Agent>).collect();
    let rulings: Vec<usize> = match &ex.rulings {
        Some(r) if r.len() == prog.rulings.len() => r.clone(),
        _ => prog.rulings.iter().map(|r| r.default).collect(),
    };
    let mut vm = Vm::new(prog, state, si, 0, agents, Log::new(logged), rulings, 10_000_000);
    vm.forced_dice = ex.dice.iter().copied().collect();
    if record_dice {
        vm.dice_record = Some(Vec::new());
    }
    // Examples set situations up by hand: they do not check invariants (6.17d).
    vm.check_invariants = false;
    // Optional layers compiled in are in play in their examples.
    vm.options = prog.options_compiled_in();
    for (f, args) in &ex.calls {
        match vm.call(*f, args).map_err(Halt::into_stop) {
            Ok(_) => {}
            Err(Stop::End(_)) => break,
            Err(Stop::Error(e)) => return Ok((vm, Some(e))),
            Err(Stop::Horizon) => return Ok((vm, Some(horizon_outside_a_playout()))),
        }
    }
    Ok((vm, None))
}

/// What a failed example shows: the values of `probes` (functions of no parameters,
/// evaluated after the example's run, as its expectations are: the two sides of a
/// failed comparison), each as a label (`0203`, `"1st Foot"`, `3`) or the runtime
/// error that stopped it, and the events the run logged (JSON Lines, the run log's
/// shape), which the rules that produced the values wrote.
pub struct ExampleDetail {
    pub values: Vec<Result<String, RuntimeError>>,
    pub events: Vec<String>,
}

/// Run an example again with its events logged, and evaluate `probes` after it. A run
/// that stops with a runtime error gives no values (the error is already its outcome).
pub fn example_detail(prog: &Program, ex: &ExampleRun, probes: &[crate::program::FnId]) -> ExampleDetail {
    let mut vm = match example_vm(prog, ex, true, false) {
        Ok((vm, None)) => vm,
        _ => return ExampleDetail { values: Vec::new(), events: Vec::new() },
    };
    let events = std::mem::take(&mut vm.log.lines);
    let values = probes
        .iter()
        .map(|&f| match vm.call(f, &[]).map_err(Halt::into_stop) {
            Ok(v) => Ok(vm.label_string(v)),
            Err(Stop::Error(e)) => Err(e),
            Err(Stop::End(_)) => Err(RuntimeError::new("R0012", "the game ended while evaluating")),
            Err(Stop::Horizon) => Err(horizon_outside_a_playout()),
        })
        .collect();
    ExampleDetail { values, events }
}

/// Run an example: place units, force dice, call procedures in order, evaluate expectations.
/// `expects` are functions returning Bool. Returns the failed expectations' indices.
pub struct ExampleRun<'a> {
    pub scenario: Option<usize>,
    pub places: &'a [(u16, u32)],
    /// `place ... facing N in F`: per placed unit, its facing and face.
    pub starts: &'a [(u16, u8, u8)],
    pub dice: &'a [i64],
    pub calls: Vec<(crate::program::FnId, Vec<Value>)>,
    pub expects: &'a [crate::program::FnId],
    /// Ruling alternatives in force (index per ruling); `None`: the defaults.
    pub rulings: Option<Vec<usize>>,
}

/// Outcome of one example.
#[derive(Debug)]
pub enum ExampleOutcome {
    Passed,
    Failed(Vec<usize>),
    Error(RuntimeError),
}

pub fn run_example(prog: &Program, ex: &ExampleRun) -> ExampleOutcome {
    run_example_traced(prog, ex).0
}

/// One way an example's dice can fall: the rolls in order, the ways out of all the
/// dice's outcomes that it happens (`ways / outcomes` is its exact probability), the
/// run's log and whether the example's expectations held.
#[derive(Debug)]
pub struct DiceBranch {
    pub rolls: Vec<crate::dice::RolledDie>,
    pub ways: u128,
    pub outcomes: u128,
    pub log: String,
    pub outcome: ExampleOutcome,
}

/// Every way the dice of an example's run can fall, each with its exact probability:
/// the run is replayed with the rolls forced, depth first, a roll past the forced ones
/// reading its lowest total, until every total of every roll has been taken (the
/// example's own `roll` dice are ignored). Decisions are the heuristic agents' as in
/// `check`; randomness other than dice (cup draws) keeps the example's seed. Err when
/// the runs pass `max_runs` or a probability does not fit in 128 bits.
pub fn enumerate_example(
    prog: &Program,
    ex: &ExampleRun,
    max_runs: usize,
) -> Result<Vec<DiceBranch>, String> {
    let mut out = Vec::new();
    let mut prefix: Vec<i64> = Vec::new();
    loop {
        if out.len() >= max_runs {
            return Err(format!("the dice fall in more than {max_runs} ways"));
        }
        let run = ExampleRun { dice: &prefix, calls: ex.calls.clone(), rulings: ex.rulings.clone(), ..*ex };
        let (outcome, _, rolls, log) = run_example_with(prog, &run, true);
        let rolls = rolls.unwrap_or_default();
        let (mut ways, mut outcomes) = (1u128, 1u128);
        for r in &rolls {
            let (w, t) = r.ways().ok_or("a roll with too many dice to count")?;
            ways = ways.checked_mul(w).ok_or("too many rolls to count exactly")?;
            outcomes = outcomes.checked_mul(t).ok_or("too many rolls to count exactly")?;
        }
        // The next branch: the last roll that can still go higher does, the rest go.
        let mut next = rolls.clone();
        loop {
            match next.last_mut() {
                None => {
                    out.push(DiceBranch { rolls, ways, outcomes, log, outcome });
                    return Ok(out);
                }
                Some(r) if r.value < r.highest() => {
                    r.value += 1;
                    break;
                }
                Some(_) => {
                    next.pop();
                }
            }
        }
        prefix = next.iter().map(|r| r.value).collect();
        out.push(DiceBranch { rolls, ways, outcomes, log, outcome });
    }
}

/// As [`run_example`], with the rulings the run read (by index): an alternative of a
/// ruling the run never read cannot change its outcome.
pub fn run_example_traced(prog: &Program, ex: &ExampleRun) -> (ExampleOutcome, Vec<bool>) {
    let (outcome, read, _, _) = run_example_with(prog, ex, false);
    (outcome, read)
}

/// Run an example; with `enumerate`, with its log on and every roll recorded (a roll
/// past the forced dice reads its lowest total).
fn run_example_with(
    prog: &Program,
    ex: &ExampleRun,
    enumerate: bool,
) -> (ExampleOutcome, Vec<bool>, Option<Vec<crate::dice::RolledDie>>, String) {
    let (mut vm, error) = match example_vm(prog, ex, enumerate, enumerate) {
        Ok(x) => x,
        Err((outcome, read)) => return (outcome, read, None, String::new()),
    };
    let mut error = error;
    let mut failed = Vec::new();
    // The expectations are evaluations: not in the log.
    vm.log.set_enabled(false);
    if error.is_none() {
        for (i, &f) in ex.expects.iter().enumerate() {
            match vm.call(f, &[]).map_err(Halt::into_stop) {
                Ok(Value::Bool(true)) => {}
                Ok(_) => failed.push(i),
                Err(Stop::Error(e)) => {
                    error = Some(e);
                    break;
                }
                Err(Stop::End(_) | Stop::Horizon) => failed.push(i),
            }
        }
    }
    let outcome = match error {
        Some(e) => ExampleOutcome::Error(e),
        None if failed.is_empty() => ExampleOutcome::Passed,
        None => ExampleOutcome::Failed(failed),
    };
    let log = vm.log.text();
    (outcome, std::mem::take(&mut vm.rulings_read), vm.dice_record.take(), log)
}
