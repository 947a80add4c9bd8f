//! One rule, many times: Peter the Great's attack resolution, three ways.
//!
//! The rule (combat.ks `resolve`, the part after the players' decisions):
//!
//! - CS differential (7.1.2 A): `attack_strength(atk, def) - defense_strength(atk, def)`;
//!   each attacker's CS is halved, rounded up, when any defender is in a redoubt (7.8);
//!   each defender's CS is doubled in woods or buildings (TEC `defense` 2) and again in
//!   a redoubt (7.3); each unit adds the LR of the best friendly leader in its hex when
//!   it is the strongest unit of the group in that hex (ruling `leader_support`, default
//!   `strongest_unit`; ties go to the lower counter index) (8.1).
//! - Column shifts (7.3.2): -1 when an attacker is across a stream (or bridge) hexside
//!   from a defender, -1 across an entrenchment when the scenario flag `redoubts` is on;
//!   plus the phasing player's optional lower column (7.1.2 D).
//! - DRM (7.1.2 C): attacking unit's MR minus defending unit's MR, added to the roll.
//! - CRT (or DemoralizedCRT when the attacking army is demoralized, 10.3 B), columns
//!   and rows clamped.
//!
//! A [`Situation`] is one attack: the groups, the MR picks, the lower column and the
//! roll. Situations live on [`BoardSpec`]s: several attacks at least three hexes apart
//! on one map, each unit used once, so that a board is set up once (untimed) and then
//! all its attacks are resolved (timed). The implementations:
//!
//! - (a) [`Bench::run_vm`]: the compiled `bench_result` of [`crate::BENCH_KS`], which
//!   calls the encoding's own `attack_strength`, `defense_strength`, `column_shift`,
//!   `demoralized` and `lookup_shifted`.
//! - (b) [`Hand`]: hand-written Rust reading the same `Program` and `State`, with the
//!   per-counter ratings and per-hex terrain flattened once (the practical limit).
//! - (c) [`RhaiImpl`]: the same procedure as a Rhai script ([`RHAI_SCRIPT`]) over native
//!   getters registered on the same data: what a Rust game would otherwise embed.
//! - (d) [`Bench::run_native`]: (a) compiled to Rust by the native back end (issue 17),
//!   the same functions run by generated code.

use kriegsspiel_geo::{Grid, Hex, Layout};
use kriegsspiel_runtime::dice::Dice;
use kriegsspiel_runtime::program::{FnId, Program};
use kriegsspiel_runtime::state::{State, UnitStatus};
use kriegsspiel_runtime::{Session, Value};
use std::cell::Cell;
use std::rc::Rc;
use std::time::{Duration, Instant};

/// Number of situations the report and the criterion benches use.
pub const SITUATIONS: usize = 1000;
/// Seed of the situations and of the one dice stream.
pub const SEED: u64 = 20_260_705;
/// Attacks per board at most.
const PER_BOARD: usize = 8;

/// One attack to resolve.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Situation {
    pub atk: Vec<u16>,
    pub def: Vec<u16>,
    /// The attacking unit whose MR is compared (7.1.2 B), one of `atk`.
    pub a_pick: u16,
    /// The defending unit whose MR is compared, one of `def`.
    pub d_pick: u16,
    /// The optional lower column (0, -1 or -2; 7.1.2 D).
    pub lower: i64,
    /// The die roll, from the one dice stream.
    pub roll: i64,
}

/// A map set up for several attacks.
#[derive(Clone, Debug)]
pub struct BoardSpec {
    pub scenario: &'static str,
    /// Every unit on the map (all others are off it).
    pub placements: Vec<(u16, u32)>,
    /// Units at their reduced step.
    pub reduced: Vec<u16>,
    /// Hexes with a Redoubt marker.
    pub redoubts: Vec<u32>,
    /// Sides whose army is demoralized (AML lowered below the level).
    pub demoralized: Vec<u8>,
    pub attacks: Vec<Situation>,
}

/// Names the implementations resolve against, looked up once.
#[derive(Clone, Debug)]
pub struct Names {
    pub cs: usize,
    pub mr: usize,
    pub lr: usize,
    pub leader_class: u64,
    pub combat_class: u64,
    pub defense_attr: usize,
    pub stream_bit: u32,
    pub entrenchment_bit: u32,
    pub redoubt_bits: u64,
    pub redoubt_marker: usize,
    pub crt: usize,
    pub dcrt: usize,
    pub aml_slots: Vec<usize>,
    pub russian: u8,
    pub redoubts_flag: usize,
}

impl Names {
    pub fn new(prog: &Program) -> Names {
        let pos = |v: &[String], n: &str| v.iter().position(|x| x == n).unwrap_or_else(|| panic!("no {n}"));
        let rating = |n: &str| prog.rating_index(n).unwrap_or_else(|| panic!("no rating {n}"));
        let feature = |n: &str| prog.hexsides.iter().position(|f| f.name == n).expect("hexside") as u32;
        let marker = |n: &str| prog.markers.iter().position(|m| m.name == n).expect("marker");
        let table = |n: &str| prog.tables.iter().position(|t| t.name == n).expect("table");
        let aml = prog.tracks.iter().position(|t| t.name == "aml").expect("aml track") as u16;
        Names {
            cs: rating("cs"),
            mr: rating("mr"),
            lr: rating("lr"),
            leader_class: 1 << pos(&prog.classes, "leader"),
            combat_class: 1 << pos(&prog.classes, "combat"),
            defense_attr: pos(&prog.terrain_attrs, "defense"),
            stream_bit: 1 << feature("Stream"),
            entrenchment_bit: 1 << feature("Entrenchment"),
            redoubt_bits: (1 << marker("Redoubt")) | (1 << marker("RedoubtUC")),
            redoubt_marker: marker("Redoubt"),
            crt: table("CRT"),
            dcrt: table("DemoralizedCRT"),
            aml_slots: (0..prog.sides.len())
                .map(|s| prog.track_slot(aml, Some(s as u8)).expect("aml slot"))
                .collect(),
            russian: pos(&prog.sides, "Russian") as u8,
            redoubts_flag: pos(&prog.flags, "redoubts"),
        }
    }

    fn classes(prog: &Program, u: u16) -> u64 {
        let t = prog.counters[u as usize].unit_type as usize;
        prog.unit_types[t].classes
    }
}

/// The map's grid, as the VM's board builds it.
pub fn grid(prog: &Program) -> Grid {
    let layout = if prog.map.even_down { Layout::EvenColumnsDown } else { Layout::OddColumnsDown };
    Grid::new(prog.map.cols, prog.map.rows, 1, 1, layout).expect("the map's grid")
}

/// Is the scenario's `redoubts` flag on?
pub fn redoubts_on(prog: &Program, names: &Names, scenario: &str) -> bool {
    let si = prog.scenario(scenario).expect("scenario");
    prog.scenarios[si].flags.iter().any(|&(f, v)| f as usize == names.redoubts_flag && v)
}

// ------------------------------------------------------------------ situations

/// The fixed set of attack situations: `n` attacks on boards, deterministic in `seed`.
/// Rolls come from one dice stream (`Dice::new(seed, 0)`), in situation order.
pub fn situations(prog: &Program, n: usize, seed: u64) -> Vec<BoardSpec> {
    let names = Names::new(prog);
    let grid = grid(prog);
    let mut rng = Dice::new(seed, 1);
    let mut dice = Dice::new(seed, 0);
    let pick = |rng: &mut Dice, n: usize| rng.below(n as u32) as usize;
    let chance = |rng: &mut Dice, pct: u32| rng.below(100) < pct;

    let n_hex = grid.hex_count();
    let defense = |h: u32| {
        let t = prog.map.terrain[h as usize] as usize;
        prog.terrains[t].attrs.get(names.defense_attr).copied().unwrap_or(0)
    };
    let sides_of = |h: u32, bit: u32| (0..6).any(|d| prog.map.sides[h as usize * 6 + d] & bit != 0);
    let interior: Vec<u32> =
        (0..n_hex).filter(|&h| grid.neighbours(Hex(h)).iter().all(|n| n.is_some())).collect();
    let streams: Vec<u32> = interior.iter().copied().filter(|&h| sides_of(h, names.stream_bit)).collect();
    let trenches: Vec<u32> =
        interior.iter().copied().filter(|&h| sides_of(h, names.entrenchment_bit)).collect();
    let cover: Vec<u32> = interior.iter().copied().filter(|&h| defense(h) >= 2).collect();
    assert!(!streams.is_empty() && !cover.is_empty(), "the map has streams and cover");

    let units_of = |side: u8, class: u64| -> Vec<u16> {
        (0..prog.counters.len() as u16)
            .filter(|&u| prog.counters[u as usize].side == side && Names::classes(prog, u) & class != 0)
            .filter(|&u| Names::classes(prog, u) & names.leader_class == 0 || class == names.leader_class)
            .collect()
    };
    let sides = prog.sides.len() as u8;

    let mut boards = Vec::new();
    let mut total = 0usize;
    while total < n {
        let scenario = if chance(&mut rng, 30) { "14.2" } else { "14.4" };
        let mut pools: Vec<(Vec<u16>, Vec<u16>)> =
            (0..sides).map(|s| (units_of(s, names.combat_class), units_of(s, names.leader_class))).collect();
        let mut board = BoardSpec {
            scenario,
            placements: Vec::new(),
            reduced: Vec::new(),
            redoubts: Vec::new(),
            demoralized: (0..sides).filter(|_| chance(&mut rng, 25)).collect(),
            attacks: Vec::new(),
        };
        let mut centres: Vec<u32> = Vec::new();
        let mut tries = 0;
        while board.attacks.len() < PER_BOARD && total < n && tries < 200 {
            tries += 1;
            let (d_hex, feature) = match pick(&mut rng, 10) {
                0..=2 => (streams[pick(&mut rng, streams.len())], names.stream_bit),
                3 | 4 if !trenches.is_empty() => {
                    (trenches[pick(&mut rng, trenches.len())], names.entrenchment_bit)
                }
                5 | 6 => (cover[pick(&mut rng, cover.len())], 0),
                _ => (interior[pick(&mut rng, interior.len())], 0),
            };
            if centres.iter().any(|&c| grid.distance(Hex(c), Hex(d_hex)) < 3) {
                continue;
            }
            let att = pick(&mut rng, sides as usize) as u8;
            let dfn = (att + 1) % sides;
            let na = 1 + pick(&mut rng, 3);
            let nd = 1 + pick(&mut rng, 3);
            if pools[att as usize].0.len() < na || pools[dfn as usize].0.len() < nd {
                break;
            }
            centres.push(d_hex);
            let take = |rng: &mut Dice, pool: &mut Vec<u16>| pool.swap_remove(pick(rng, pool.len()));
            let def: Vec<u16> = (0..nd).map(|_| take(&mut rng, &mut pools[dfn as usize].0)).collect();
            let atk: Vec<u16> = (0..na).map(|_| take(&mut rng, &mut pools[att as usize].0)).collect();
            // Attackers stand in one or two of the defender's neighbours, so that several
            // share a hex (the leader ruling) and some sit across a stream.
            let nbrs: Vec<u32> = grid.neighbours(Hex(d_hex)).iter().flatten().map(|h| h.0).collect();
            let mut spots = [nbrs[pick(&mut rng, nbrs.len())], nbrs[pick(&mut rng, nbrs.len())]];
            let across: Vec<u32> = (0..6u8)
                .filter(|&d| prog.map.sides[d_hex as usize * 6 + d as usize] & feature != 0)
                .filter_map(|d| grid.neighbour(Hex(d_hex), d).map(|h| h.0))
                .collect();
            if !across.is_empty() && chance(&mut rng, 75) {
                spots[0] = across[pick(&mut rng, across.len())];
            }
            for &d in &def {
                board.placements.push((d, d_hex));
            }
            for (i, &a) in atk.iter().enumerate() {
                let h = if i == 0 { spots[0] } else { spots[pick(&mut rng, 2)] };
                board.placements.push((a, h));
            }
            let mut leaders = |rng: &mut Dice, side: u8, hex: u32, pct: u32, board: &mut BoardSpec| {
                let pool = &mut pools[side as usize].1;
                if !pool.is_empty() && chance(rng, pct) {
                    let l = pool.swap_remove(pick(rng, pool.len()));
                    board.placements.push((l, hex));
                }
            };
            leaders(&mut rng, dfn, d_hex, 35, &mut board);
            leaders(&mut rng, dfn, d_hex, 10, &mut board);
            let a_hex = spots[pick(&mut rng, 2)];
            leaders(&mut rng, att, a_hex, 40, &mut board);
            leaders(&mut rng, att, spots[0], 10, &mut board);
            if chance(&mut rng, if scenario == "14.2" { 30 } else { 10 }) {
                board.redoubts.push(d_hex);
            }
            let a_pick = atk[pick(&mut rng, atk.len())];
            let d_pick = def[pick(&mut rng, def.len())];
            let lower = [0, 0, 0, -1, -2][pick(&mut rng, 5)];
            let roll = dice.die(prog.die_sides);
            board.attacks.push(Situation { atk, def, a_pick, d_pick, lower, roll });
            total += 1;
        }
        for &(u, _) in &board.placements {
            if prog.counters[u as usize].steps >= 2 && chance(&mut rng, 25) {
                board.reduced.push(u);
            }
        }
        boards.push(board);
    }
    boards
}

// ------------------------------------------------------------------ (b) by hand

/// One counter's ratings by step, flattened.
#[derive(Clone, Copy, Debug, Default)]
struct Flat {
    side: u8,
    leader: bool,
    cs: [i64; 4],
    mr: [i64; 4],
    lr: [i64; 4],
}

/// The attack resolution written by hand in Rust: the practical limit.
pub struct Hand {
    pub names: Names,
    counters: Vec<Flat>,
    /// Leaders of each side (counter indices).
    leaders: Vec<Vec<u16>>,
    /// TEC `defense` per hex.
    defense: Vec<i64>,
    /// Hexside feature masks, `sides[hex * 6 + dir]` (the map's).
    sides: Vec<u32>,
    grid: Grid,
    crt: kriegsspiel_runtime::program::TableDef,
    dcrt: kriegsspiel_runtime::program::TableDef,
}

impl Hand {
    pub fn new(prog: &Program) -> Hand {
        let names = Names::new(prog);
        let steps = |c: &kriegsspiel_runtime::program::CounterDef, r: usize| {
            let mut out = [0i64; 4];
            if let Some(Some(v)) = c.values.get(r) {
                for (i, o) in out.iter_mut().enumerate() {
                    *o = v.get(i).or(v.last()).copied().unwrap_or(0);
                }
            }
            out
        };
        let counters: Vec<Flat> = prog
            .counters
            .iter()
            .enumerate()
            .map(|(u, c)| Flat {
                side: c.side,
                leader: Names::classes(prog, u as u16) & names.leader_class != 0,
                cs: steps(c, names.cs),
                mr: steps(c, names.mr),
                lr: steps(c, names.lr),
            })
            .collect();
        let leaders = (0..prog.sides.len())
            .map(|s| {
                (0..counters.len() as u16)
                    .filter(|&u| counters[u as usize].leader && counters[u as usize].side == s as u8)
                    .collect()
            })
            .collect();
        let defense = prog
            .map
            .terrain
            .iter()
            .map(|&t| prog.terrains[t as usize].attrs.get(names.defense_attr).copied().unwrap_or(0))
            .collect();
        Hand {
            crt: prog.tables[names.crt].clone(),
            dcrt: prog.tables[names.dcrt].clone(),
            names,
            counters,
            leaders,
            defense,
            sides: prog.map.sides.clone(),
            grid: grid(prog),
        }
    }

    #[inline]
    fn hex(st: &State, u: u16) -> u32 {
        st.units[u as usize].hex
    }
    #[inline]
    fn step(st: &State, u: u16) -> usize {
        (st.units[u as usize].step as usize).min(3)
    }
    #[inline]
    fn cs(&self, st: &State, u: u16) -> i64 {
        self.counters[u as usize].cs[Self::step(st, u)]
    }
    #[inline]
    fn mr(&self, st: &State, u: u16) -> i64 {
        self.counters[u as usize].mr[Self::step(st, u)]
    }
    #[inline]
    fn in_redoubt(&self, st: &State, h: u32) -> bool {
        st.hex_markers[h as usize] & self.names.redoubt_bits != 0
    }

    /// `best_lr`: the best LR of the side's leaders in the hex (0 when none).
    fn best_lr(&self, st: &State, h: u32, side: u8) -> i64 {
        let mut best = 0;
        let mut first = true;
        for &l in &self.leaders[side as usize] {
            let us = &st.units[l as usize];
            if us.status == UnitStatus::OnMap && us.hex == h {
                let lr = self.counters[l as usize].lr[Self::step(st, l)];
                best = if first { lr } else { best.max(lr) };
                first = false;
            }
        }
        best
    }

    /// `leader_bonus` under `leader_support = strongest_unit`.
    fn leader_bonus(&self, st: &State, u: u16, group: &[u16]) -> i64 {
        let (h, c) = (Self::hex(st, u), self.cs(st, u));
        let outranked = group.iter().any(|&v| {
            v != u && Self::hex(st, v) == h && {
                let vc = self.cs(st, v);
                vc > c || (vc == c && v < u)
            }
        });
        if outranked {
            0
        } else {
            self.best_lr(st, h, self.counters[u as usize].side)
        }
    }

    fn crosses(&self, a: u32, b: u32, bit: u32) -> bool {
        match self.grid.direction(Hex(a), Hex(b)) {
            Some(d) => self.sides[a as usize * 6 + d as usize] & bit != 0,
            None => false,
        }
    }

    fn across(&self, st: &State, atk: &[u16], def: &[u16], bit: u32) -> bool {
        atk.iter().any(|&a| {
            def.iter().any(|&d| {
                let (x, y) = (Self::hex(st, a), Self::hex(st, d));
                self.grid.distance(Hex(x), Hex(y)) == 1 && self.crosses(x, y, bit)
            })
        })
    }

    /// The result symbol (index into `Program::symbols`) of one attack.
    pub fn resolve(&self, st: &State, redoubts_on: bool, s: &Situation) -> u16 {
        let (atk, def) = (&s.atk[..], &s.def[..]);
        let halve = def.iter().any(|&d| self.in_redoubt(st, Self::hex(st, d)));
        let mut attack = 0;
        for &a in atk {
            let cs = self.cs(st, a);
            let cs = if halve { -((-cs).div_euclid(2)) } else { cs };
            attack += cs + self.leader_bonus(st, a, atk);
        }
        let mut defense = 0;
        for &d in def {
            let h = Self::hex(st, d);
            let mut m = match self.defense[h as usize] {
                2 => 2,
                3 => 3,
                _ => 1,
            };
            if self.in_redoubt(st, h) {
                m *= 2;
            }
            defense += self.cs(st, d) * m + self.leader_bonus(st, d, def);
        }
        let mut shift = s.lower;
        if self.across(st, atk, def, self.names.stream_bit) {
            shift -= 1;
        }
        if redoubts_on && self.across(st, atk, def, self.names.entrenchment_bit) {
            shift -= 1;
        }
        let roll = s.roll + self.mr(st, s.a_pick) - self.mr(st, s.d_pick);
        let side = self.counters[s.a_pick as usize].side as usize;
        let level = if side as u8 == self.names.russian { 33 } else { 23 };
        let table = if st.tracks[self.names.aml_slots[side]] <= level { &self.dcrt } else { &self.crt };
        let col0 = table.column_of(attack - defense).unwrap_or(0) as i64;
        let col = (col0 + shift).clamp(0, table.columns.len() as i64 - 1) as usize;
        let row = table.row_of(roll).unwrap_or(0);
        match table.cells[row * table.columns.len() + col] {
            Value::Sym(x) => x,
            other => panic!("CRT cell is not a result: {other:?}"),
        }
    }
}

// ------------------------------------------------------------------ (c) Rhai

/// The attack resolution as a Rhai script. `{RUSSIAN}`, `{CRT}` and `{DCRT}` are
/// replaced by the program's indices before compiling (as a developer would bind them).
/// Helpers take the group as `this` (method-call style), which Rhai passes by
/// reference, rather than as an argument, which it would copy.
pub const RHAI_SCRIPT: &str = r#"
// 8.1.1-8.1.2, ruling leader_support = strongest_unit: does u get its hex's leader?
fn leads(u) {
    let h = hex(u);
    let c = cs(u);
    for v in this {
        if v != u && hex(v) == h {
            let vc = cs(v);
            if vc > c || (vc == c && v < u) { return false; }
        }
    }
    true
}

// 8.1.3
fn leader_bonus(u) {
    if this.leads(u) { best_lr(hex(u), side(u)) } else { 0 }
}

// 7.8
fn any_in_redoubt() {
    for d in this { if in_redoubt(hex(d)) { return true; } }
    false
}

// 7.1.2 A, 7.3.1, 7.8: attackers halved (rounded up) against a redoubt, plus leaders.
fn attack_strength(def) {
    let halve = def.any_in_redoubt();
    let total = 0;
    for a in this {
        let c = cs(a);
        if halve { c = (c + 1) / 2; }
        total += c + this.leader_bonus(a);
    }
    total
}

// 7.3 A, 7.3.1, 7.8: defenders x2 in woods or buildings, x3 on defense 3, x2 in a redoubt.
fn defense_strength() {
    let total = 0;
    for d in this {
        let h = hex(d);
        let td = terrain_defense(h);
        let m = 1;
        if td == 2 { m *= 2; }
        if td == 3 { m *= 3; }
        if in_redoubt(h) { m *= 2; }
        total += cs(d) * m + this.leader_bonus(d);
    }
    total
}

// 7.3.2
fn across_stream(def) {
    for a in this {
        for d in def {
            if distance(hex(a), hex(d)) == 1 && crosses_stream(hex(a), hex(d)) { return true; }
        }
    }
    false
}

// 7.3.2, 14.4.3 A
fn across_entrenchment(def) {
    for a in this {
        for d in def {
            if distance(hex(a), hex(d)) == 1 && crosses_entrenchment(hex(a), hex(d)) { return true; }
        }
    }
    false
}

fn column_shift(def) {
    let shift = 0;
    if this.across_stream(def) { shift -= 1; }
    if flag_redoubts() && this.across_entrenchment(def) { shift -= 1; }
    shift
}

// 10.3, 10.5 B
fn demoralized(s) {
    let level = if s == {RUSSIAN} { 33 } else { 23 };
    aml(s) <= level
}

// 7.1.2 A-E, 10.3 B
fn resolve(atk, def, a_pick, d_pick, lower, r) {
    let diff = atk.attack_strength(def) - def.defense_strength();
    let shift = atk.column_shift(def) + lower;
    let roll = r + mr(a_pick) - mr(d_pick);
    let table = if demoralized(side(a_pick)) { {DCRT} } else { {CRT} };
    lookup_shifted(table, diff, shift, roll)
}
"#;

/// What the Rhai natives read: the flattened program and each board's state.
struct World {
    hand: Hand,
    states: Vec<State>,
    redoubts_on: Vec<bool>,
    cur: Cell<usize>,
}

/// The Rhai engine, its compiled script and the situations as Rhai arrays.
pub struct RhaiImpl {
    engine: rhai::Engine,
    ast: rhai::AST,
    world: Rc<World>,
    /// Per board, per attack: (atk, def) as Rhai arrays.
    args: Vec<Vec<(rhai::Array, rhai::Array)>>,
}

impl RhaiImpl {
    /// An engine with the natives registered and the script compiled; `states` are
    /// the boards' states (same order as `boards`).
    pub fn new(prog: &Program, boards: &[BoardSpec], states: Vec<State>) -> RhaiImpl {
        let hand = Hand::new(prog);
        let names = hand.names.clone();
        let redoubts_on = boards.iter().map(|b| redoubts_on(prog, &names, b.scenario)).collect();
        let world = Rc::new(World { hand, states, redoubts_on, cur: Cell::new(0) });
        let mut engine = rhai::Engine::new();
        engine.set_max_expr_depths(0, 0);
        macro_rules! native {
            ($name:literal, |$h:ident, $st:ident, $on:ident $(, $a:ident)*| $body:expr) => {{
                let w = world.clone();
                engine.register_fn($name, move |$($a: i64),*| {
                    let i = w.cur.get();
                    let ($h, $st, $on) = (&w.hand, &w.states[i], w.redoubts_on[i]);
                    let _ = ($h, $st, $on);
                    $body
                });
            }};
        }
        native!("cs", |h, st, on, u| h.cs(st, u as u16));
        native!("mr", |h, st, on, u| h.mr(st, u as u16));
        native!("side", |h, st, on, u| h.counters[u as usize].side as i64);
        native!("hex", |h, st, on, u| Hand::hex(st, u as u16) as i64);
        native!("terrain_defense", |h, st, on, x| h.defense[x as usize]);
        native!("in_redoubt", |h, st, on, x| h.in_redoubt(st, x as u32));
        native!("distance", |h, st, on, a, b| h.grid.distance(Hex(a as u32), Hex(b as u32)) as i64);
        native!("crosses_stream", |h, st, on, a, b| h.crosses(a as u32, b as u32, h.names.stream_bit));
        native!("crosses_entrenchment", |h, st, on, a, b| h.crosses(
            a as u32,
            b as u32,
            h.names.entrenchment_bit
        ));
        native!("flag_redoubts", |h, st, on| on);
        native!("best_lr", |h, st, on, x, s| h.best_lr(st, x as u32, s as u8));
        native!("aml", |h, st, on, s| st.tracks[h.names.aml_slots[s as usize]]);
        native!("lookup_shifted", |h, st, on, t, key, shift, roll| {
            let table = if t as usize == h.names.dcrt { &h.dcrt } else { &h.crt };
            let col0 = table.column_of(key).unwrap_or(0) as i64;
            let col = (col0 + shift).clamp(0, table.columns.len() as i64 - 1) as usize;
            let row = table.row_of(roll).unwrap_or(0);
            match table.cells[row * table.columns.len() + col] {
                Value::Sym(x) => x as i64,
                _ => -1,
            }
        });
        let script = RHAI_SCRIPT
            .replace("{RUSSIAN}", &names.russian.to_string())
            .replace("{CRT}", &names.crt.to_string())
            .replace("{DCRT}", &names.dcrt.to_string());
        let ast = engine.compile(&script).unwrap_or_else(|e| panic!("Rhai script: {e}"));
        let to_array =
            |v: &[u16]| -> rhai::Array { v.iter().map(|&u| rhai::Dynamic::from(u as i64)).collect() };
        let args = boards
            .iter()
            .map(|b| b.attacks.iter().map(|s| (to_array(&s.atk), to_array(&s.def))).collect())
            .collect();
        RhaiImpl { engine, ast, world, args }
    }

    /// Resolve attack `i` of board `b` (its state must be selected with `select`).
    pub fn resolve(&self, b: usize, i: usize, s: &Situation) -> u16 {
        let (atk, def) = &self.args[b][i];
        let opts = rhai::CallFnOptions::new().eval_ast(false).rewind_scope(true);
        let mut scope = rhai::Scope::new();
        let r: i64 = self
            .engine
            .call_fn_with_options(
                opts,
                &mut scope,
                &self.ast,
                "resolve",
                (atk.clone(), def.clone(), s.a_pick as i64, s.d_pick as i64, s.lower, s.roll),
            )
            .unwrap_or_else(|e| panic!("Rhai resolve: {e}"));
        r as u16
    }

    /// Make the natives read board `b`'s state.
    pub fn select(&self, b: usize) {
        self.world.cur.set(b);
    }
}

// ------------------------------------------------------------------ (a) VM, and the harness

/// A board with its VM session set up and the call arguments of its attacks.
pub struct Prepared<'p> {
    pub spec: BoardSpec,
    pub session: Session<'p>,
    pub args: Vec<[Value; 6]>,
    pub redoubts_on: bool,
}

/// Which implementation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Impl {
    Vm,
    /// The same rulebook code compiled to Rust (`kriegsspiel build`, issue 17).
    Native,
    Hand,
    Rhai,
}

/// Everything the attack benchmark needs, set up once.
pub struct Bench<'p> {
    pub prog: &'p Program,
    pub boards: Vec<Prepared<'p>>,
    pub hand: Hand,
    pub rhai: RhaiImpl,
    pub f: FnId,
    /// `bench_result` and the rulebook compiled to Rust (`None` for a program other
    /// than Peter plus `bench.ks`).
    pub native: Option<kriegsspiel_runtime::native::Native>,
    pub situations: usize,
}

/// Set up a board's session: every unit off the map but the board's, steps, redoubts,
/// demoralized armies.
pub fn prepare<'p>(prog: &'p Program, spec: &BoardSpec, names: &Names) -> Session<'p> {
    let mut s = Session::new(prog, spec.scenario, SEED).expect("scenario");
    for u in 0..prog.counters.len() as u16 {
        s.place(u, None);
    }
    for &(u, h) in &spec.placements {
        s.place(u, Some(h));
    }
    let f = |n: &str| s.function(n).unwrap_or_else(|| panic!("no {n}"));
    let (reduce, redoubt, aml) = (f("bench_reduce"), f("bench_redoubt"), f("bench_aml"));
    for &u in &spec.reduced {
        s.call(reduce, &[Value::Unit(u)]).expect("bench_reduce");
    }
    for &h in &spec.redoubts {
        s.call(redoubt, &[Value::Hex(h)]).expect("bench_redoubt");
    }
    for &side in &spec.demoralized {
        let now = s.state().tracks[names.aml_slots[side as usize]];
        let level = if side == names.russian { 33 } else { 23 };
        s.call(aml, &[Value::Side(side), Value::Int(level - 3 - now)]).expect("bench_aml");
    }
    debug_assert!(spec
        .redoubts
        .iter()
        .all(|&h| s.state().hex_markers[h as usize] >> names.redoubt_marker & 1 == 1));
    s
}

impl<'p> Bench<'p> {
    /// `prog` must be [`crate::peter_with_bench`].
    pub fn new(prog: &'p Program, n: usize) -> Bench<'p> {
        let specs = situations(prog, n, SEED);
        let names = Names::new(prog);
        let f = prog.functions.iter().position(|f| f.name == "bench_result").expect("bench_result") as FnId;
        let mut boards = Vec::new();
        for spec in &specs {
            let mut session = prepare(prog, spec, &names);
            let args = spec
                .attacks
                .iter()
                .map(|s| {
                    let atk: Vec<Value> = s.atk.iter().map(|&u| Value::Unit(u)).collect();
                    let def: Vec<Value> = s.def.iter().map(|&u| Value::Unit(u)).collect();
                    [
                        session.list(&atk),
                        session.list(&def),
                        Value::Unit(s.a_pick),
                        Value::Unit(s.d_pick),
                        Value::Int(s.lower),
                        Value::Int(s.roll),
                    ]
                })
                .collect();
            let redoubts_on = redoubts_on(prog, &names, spec.scenario);
            boards.push(Prepared { spec: spec.clone(), session, args, redoubts_on });
        }
        let states = boards.iter().map(|b| b.session.state().clone()).collect();
        let rhai = RhaiImpl::new(prog, &specs, states);
        let native =
            kriegsspiel_runtime::native::Native::for_program(&crate::peter_bench_native::CODE, prog).ok();
        Bench { prog, boards, hand: Hand::new(prog), rhai, f, native, situations: n }
    }

    /// (a) Resolve board `b`'s attacks on the VM, appending the results.
    pub fn run_vm(&mut self, b: usize, out: &mut Vec<u16>) {
        let board = &mut self.boards[b];
        for args in &board.args {
            match board.session.call(self.f, args) {
                Ok(Value::Sym(s)) => out.push(s),
                other => panic!("bench_result returned {other:?}"),
            }
        }
    }

    /// (d) Resolve board `b`'s attacks by the same function compiled to Rust.
    pub fn run_native(&mut self, b: usize, out: &mut Vec<u16>) {
        let native = self.native.expect("native code is built for Peter plus bench.ks only");
        let board = &mut self.boards[b];
        board.session.use_native(Some(native)).unwrap_or_else(|e| panic!("{e}"));
        for args in &board.args {
            match board.session.call(self.f, args) {
                Ok(Value::Sym(s)) => out.push(s),
                other => panic!("bench_result returned {other:?}"),
            }
        }
        let _ = board.session.use_native(None);
    }

    /// (b) Resolve board `b`'s attacks by hand-written Rust.
    pub fn run_hand(&self, b: usize, out: &mut Vec<u16>) {
        let board = &self.boards[b];
        let st = board.session.state();
        for s in &board.spec.attacks {
            out.push(self.hand.resolve(st, board.redoubts_on, std::hint::black_box(s)));
        }
    }

    /// (c) Resolve board `b`'s attacks with the Rhai script.
    pub fn run_rhai(&self, b: usize, out: &mut Vec<u16>) {
        for (i, s) in self.boards[b].spec.attacks.iter().enumerate() {
            out.push(self.rhai.resolve(b, i, s));
        }
    }

    fn run(&mut self, which: Impl, b: usize, out: &mut Vec<u16>) {
        match which {
            Impl::Vm => self.run_vm(b, out),
            Impl::Native => self.run_native(b, out),
            Impl::Hand => self.run_hand(b, out),
            Impl::Rhai => self.run_rhai(b, out),
        }
    }

    /// Resolve every situation once with `which`; the total time spent resolving and
    /// the results in situation order. Each board is set up and resolved once untimed
    /// (so its state is in cache, as in a game or a search), then resolved timed.
    pub fn sweep(&mut self, which: Impl) -> (Duration, Vec<u16>) {
        let mut out = Vec::with_capacity(self.situations);
        let mut warm = Vec::with_capacity(PER_BOARD);
        let mut total = Duration::ZERO;
        for b in 0..self.boards.len() {
            if which == Impl::Rhai {
                self.rhai.select(b);
            }
            warm.clear();
            self.run(which, b, &mut warm);
            let t = Instant::now();
            self.run(which, b, &mut out);
            total += t.elapsed();
        }
        (total, out)
    }

    /// The results of all three, checked equal; panics with the first difference. The
    /// native code, when there is one, must give the VM's results too.
    pub fn check_agreement(&mut self) -> Vec<u16> {
        let (_, vm) = self.sweep(Impl::Vm);
        if self.native.is_some() {
            let (_, native) = self.sweep(Impl::Native);
            assert_eq!(native, vm, "native code and VM disagree");
        }
        let (_, hand) = self.sweep(Impl::Hand);
        let (_, rhai) = self.sweep(Impl::Rhai);
        let all: Vec<&Situation> = self.boards.iter().flat_map(|b| b.spec.attacks.iter()).collect();
        for i in 0..vm.len().max(hand.len()).max(rhai.len()) {
            let (v, h, r) = (vm.get(i), hand.get(i), rhai.get(i));
            assert!(
                v == h && h == r,
                "situation {i} disagrees: vm {v:?}, hand {h:?}, rhai {r:?}: {:?}",
                all.get(i)
            );
        }
        vm
    }

    /// How many situations have each feature (to show the set is varied).
    pub fn coverage(&self) -> Coverage {
        let mut c = Coverage::default();
        for b in &self.boards {
            let st = b.session.state();
            for s in &b.spec.attacks {
                let h = |u: u16| st.units[u as usize].hex;
                let stream = self.hand.across(st, &s.atk, &s.def, self.hand.names.stream_bit);
                let trench =
                    b.redoubts_on && self.hand.across(st, &s.atk, &s.def, self.hand.names.entrenchment_bit);
                c.stream += stream as usize;
                c.entrenchment += trench as usize;
                c.redoubt += s.def.iter().any(|&d| self.hand.in_redoubt(st, h(d))) as usize;
                c.cover += s.def.iter().any(|&d| self.hand.defense[h(d) as usize] >= 2) as usize;
                let side = self.hand.counters[s.a_pick as usize].side;
                c.demoralized += b.spec.demoralized.contains(&side) as usize;
                let led = |g: &[u16]| g.iter().any(|&u| self.hand.leader_bonus(st, u, g) > 0);
                c.leaders += (led(&s.atk) || led(&s.def)) as usize;
                c.shared_hex += s.atk.iter().any(|&a| s.atk.iter().any(|&b| a != b && h(a) == h(b))) as usize;
                c.reduced += s.atk.iter().chain(&s.def).any(|u| b.spec.reduced.contains(u)) as usize;
            }
        }
        c
    }
}

/// Feature counts over the situations.
#[derive(Clone, Copy, Debug, Default)]
pub struct Coverage {
    pub stream: usize,
    pub entrenchment: usize,
    pub redoubt: usize,
    pub cover: usize,
    pub demoralized: usize,
    pub leaders: usize,
    pub shared_hex: usize,
    pub reduced: usize,
}
