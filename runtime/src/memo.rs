//! Memo of the movement cost hook across searches, with read dependencies.
//!
//! The movement search calls the rulebook's `cost(unit, from, to)` once per edge it
//! explores, hundreds of thousands of times a game, and most answers do not change
//! from one search to the next: terrain and hexsides never change, and a move changes
//! the occupation of two hexes. The memo keeps each answer with what it read:
//!
//! - **Key.** The hook's unit parameter is checked once, on the bytecode, to be used
//!   only for its side, its type (and so its classes) and some markers
//!   ([`unit_param_view`]). Then the answer is a function of the unit's *signature*
//!   (type and current face, or the classes of that face; side; those marker bits), the
//!   edge and the rest of the state, and units
//!   with the same signature share answers. Otherwise there is no memo.
//! - **Dependencies.** While the hook runs, a [`Recorder`] notes the state it reads:
//!   the contents of a hex (units there and their state, hex markers: `Hex(h)`), of a
//!   hex and its neighbours (`Area(h)`, by `in_ezoc` and `adjacent_units`), or
//!   anything else that changes (`Global`: turn, phasing, tracks, side markers, cups,
//!   units off the map). Reads that cannot be summed up so (whole-map queries, table
//!   lookups that log) make the answer uncacheable.
//! - **Stamps.** Before a search, the state is compared with a copy taken at the
//!   previous search (when the state version moved): every hex whose contents changed,
//!   and its neighbours' areas, get the memo's clock (one tick per comparison) as
//!   stamp; other changes stamp `Global`. An answer computed at tick `v` holds while
//!   every stamp it depends on is at most `v`. Comparing the state itself (rather than
//!   instrumenting every effect) keeps the memo sound whatever instruction changed it.
//! - **Carried.** Because stamps are the memo's own ticks, not the state's version, a
//!   memo can pass from one game of a program to the next ([`CostMemo::carried`]): the
//!   next game's first search compares its state with the copy the last one left, so
//!   answers that read only the terrain, or hexes that hold the same units, still
//!   stand. Answers that read the scenario or the seating (not in the state) are dropped
//!   when those change; other options, flags or rulings start the memo over. A batch of
//!   games and a search agent's playouts pass it on so; most of a cold memo's misses are
//!   a signature's first search, which a carried memo has already answered.
//!
//! Answers are the hook's: the search, its results and the log are the same with the
//! memo or without. Under `debug_assertions` every hit is recomputed and compared.

use crate::board::Board;
use crate::op::{Field, Op, Reg};
use crate::program::{FnId, Program};
use crate::state::{State, UnitState, UnitStatus, OFF_MAP};

/// A dependency: bits 0-22 the hex, bit 23 the area flag, bits 24-31 the layers read.
/// Layer `k < 7` holds the units of side `k` (sides from 6 on share layer 6), layer 7
/// the hex markers: a unit of one side moving does not touch what was read of another.
type Dep = u32;
const HEX_BITS: u32 = 0x7F_FFFF;
const AREA: u32 = 1 << 23;
const LAYERS: usize = 8;
/// The layer of hex markers.
pub(crate) const MARKER_LAYER: u8 = 1 << 7;
/// Every side's units.
pub(crate) const ALL_UNITS: u8 = !MARKER_LAYER;
/// The answer tables of all signatures together stay under this size.
const MAX_BYTES: usize = 32 << 20;
/// Dependencies an answer may have besides `Global` (more: not cached).
const MAX_DEPS: usize = 2;

/// The layer of side `s`'s units.
#[inline]
pub(crate) fn side_layer(s: u8) -> u8 {
    1 << s.min(6)
}

/// The layers of every side but `s` (all of them when `s` shares its layer).
#[inline]
pub(crate) fn enemy_layers(s: u8) -> u8 {
    if s < 6 {
        ALL_UNITS & !side_layer(s)
    } else {
        ALL_UNITS
    }
}

fn dep_hex(d: Dep) -> u32 {
    d & HEX_BITS
}
fn dep_layers(d: Dep) -> u8 {
    (d >> 24) as u8
}

/// Is `a` (a hex or an area) included in `b`?
fn covers(b: Dep, a: Dep, board: &Board) -> bool {
    if dep_layers(a) & !dep_layers(b) != 0 {
        return false;
    }
    let (ha, hb) = (dep_hex(a), dep_hex(b));
    match (a & AREA != 0, b & AREA != 0) {
        (false, false) => ha == hb,
        (false, true) => ha == hb || board.direction(hb, ha).is_some(),
        (true, true) => ha == hb,
        (true, false) => false,
    }
}

/// What the running hook has read so far.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Recorder {
    pub active: bool,
    /// The unit whose signature is the key, and the markers of it the key holds.
    pub key_unit: u16,
    pub key_mask: u64,
    deps: [Dep; MAX_DEPS],
    n: u8,
    pub global: bool,
    /// Read what is fixed for a game but not in the state: the scenario's figures, the
    /// seating (it matters only when the memo passes to another game).
    pub context: bool,
    pub uncacheable: bool,
}

impl Recorder {
    pub fn start(key_unit: u16, key_mask: u64) -> Recorder {
        Recorder { active: true, key_unit, key_mask, ..Recorder::default() }
    }

    pub fn deps(&self) -> &[Dep] {
        &self.deps[..self.n as usize]
    }

    /// Layers `layers` of hex `h` were read.
    pub fn hex(&mut self, h: u32, layers: u8, board: &Board) {
        self.add(h, 0, layers, board)
    }

    /// Layers `layers` of hex `h` and its neighbours were read.
    pub fn area(&mut self, h: u32, layers: u8, board: &Board) {
        self.add(h, AREA, layers, board)
    }

    fn add(&mut self, h: u32, area: u32, layers: u8, board: &Board) {
        if h > HEX_BITS {
            self.uncacheable = true;
            return;
        }
        let d = h | area | (layers as u32) << 24;
        if self.deps().iter().any(|&e| covers(e, d, board)) {
            return;
        }
        // Drop what the new one covers; widen the same hex's layers.
        let mut d = d;
        let mut k = 0;
        while k < self.n as usize {
            let e = self.deps[k];
            let same_place = e & (HEX_BITS | AREA) == d & (HEX_BITS | AREA);
            if covers(d, e, board) || same_place {
                if same_place {
                    d |= e & !(HEX_BITS | AREA);
                }
                self.n -= 1;
                self.deps[k] = self.deps[self.n as usize];
            } else {
                k += 1;
            }
        }
        if (self.n as usize) < MAX_DEPS {
            self.deps[self.n as usize] = d;
            self.n += 1;
        } else {
            self.uncacheable = true;
        }
    }

    /// A read of unit `u`'s state (markers, steps, ratings, position).
    pub fn unit(&mut self, st: &State, prog: &Program, u: u16, board: &Board) {
        match (st.units.get(u as usize), prog.counters.get(u as usize)) {
            (Some(us), Some(_)) if on_map(us) => self.hex(us.hex, side_layer(us.side), board),
            _ => self.global = true,
        }
    }

    /// Fold what a nested computation read into this one.
    pub fn merge(&mut self, inner: &Recorder, board: &Board) {
        self.global |= inner.global;
        self.context |= inner.context;
        self.uncacheable |= inner.uncacheable;
        for &d in inner.deps() {
            self.add(dep_hex(d), d & AREA, dep_layers(d), board);
        }
    }

    /// Did this computation read nothing but layers `layers` of hex `h` and its
    /// neighbours?
    pub fn within_area(&self, h: u32, layers: u8, board: &Board) -> bool {
        let a = h | AREA | (layers as u32) << 24;
        !self.global && !self.uncacheable && self.deps().iter().all(|&d| covers(a, d, board))
    }
}

fn on_map(us: &UnitState) -> bool {
    us.status == UnitStatus::OnMap && us.hex != OFF_MAP
}

/// One memoised answer (16 bytes: the tables are walked by every search).
#[derive(Clone, Copy, Debug, Default)]
struct Entry {
    /// The memo's clock + 1 when the answer was computed (0: empty).
    ver: u32,
    cost: i16,
    n: u8,
    /// [`GLOBAL`] and [`CONTEXT`]: the answer read what those stamps date.
    flags: u8,
    deps: [Dep; MAX_DEPS],
}
const GLOBAL: u8 = 1;
const CONTEXT: u8 = 2;
const _: () = assert!(std::mem::size_of::<Entry>() == 16);

/// The memo of one movement-cost hook (see the module documentation).
#[derive(Debug, Default)]
pub(crate) struct CostMemo {
    /// Checked once: `Some(mask)` when the hook sees its unit only through its side,
    /// type and the markers in `mask`.
    view: Option<Option<View>>,
    sigs: Vec<(u64, u8, u64)>,
    tables: Vec<Vec<Entry>>,
    /// Per layer and hex: the version of the last change of the hex, and of the hex or
    /// a neighbour.
    hex_stamp: [Vec<u32>; LAYERS],
    area_stamp: [Vec<u32>; LAYERS],
    global_stamp: u32,
    /// The tick from which the game is another one than the answers read ([`CONTEXT`]).
    context_stamp: u32,
    /// The memo's own clock: one tick per comparison. Stamps and answers are dated by
    /// it, not by the state version, so that the memo can outlive its game ([`carried`]).
    ///
    /// [`carried`]: CostMemo::carried
    clock: u32,
    /// Version of the last comparison, and the state then.
    synced: Option<u64>,
    snap: Option<State>,
    /// Options, flags and rulings at the last comparison (a change clears the memo).
    fixed: (Vec<bool>, Vec<bool>, Vec<usize>),
    /// The game the answers were computed in: its scenario and the sides of each player
    /// (built-ins read both, and neither is in the state).
    context: Option<(usize, Vec<Vec<u8>>)>,
    pub hits: u64,
    pub misses: u64,
    /// Neighbour slots per space of the board the tables were made for (6 on hexes).
    deg: usize,
}

impl CostMemo {
    /// The memo handed to a new game of the same program, with scenario `scenario` and
    /// players `players`: its answers are kept for a game in the same context (each one
    /// still stands only while what it read is as it was when computed: the first
    /// search compares the new game's state with the memo's copy, and the clock goes
    /// on), and dropped for any other.
    pub(crate) fn carried(mut self, scenario: usize, players: &[Vec<u8>]) -> CostMemo {
        if self.context.as_ref().is_none_or(|(s, p)| *s != scenario || p[..] != *players) {
            // Answers that read the scenario or the seating no longer hold from the next
            // tick on (the next search's comparison).
            self.context_stamp = self.clock + 1;
            self.context = Some((scenario, players.to_vec()));
        }
        self.synced = None;
        self.hits = 0;
        self.misses = 0;
        self
    }

    /// Prepare for a search by unit `u` at state version `version`: the key of the unit,
    /// or `None` when the hook cannot be memoised.
    #[allow(clippy::too_many_arguments)]
    pub fn prepare(
        &mut self,
        prog: &Program,
        cost_f: FnId,
        state: &State,
        version: u64,
        board: &Board,
        fixed: (&[bool], &[bool], &[usize]),
        u: u16,
    ) -> Option<(usize, u64)> {
        let view = (*self.view.get_or_insert_with(|| unit_param_view(prog, cost_f)))?;
        let n = board.hex_count() as usize;
        if self.deg != usize::from(board.degree()) {
            // A new board shape (never within one game): start over.
            self.deg = usize::from(board.degree());
            self.snap = None;
        }
        if self.synced != Some(version) {
            // Stamps are u32: after four billion comparisons, start over.
            if self.clock >= u32::MAX - 2 {
                self.clock = 0;
                self.snap = None;
            }
            self.clock += 1;
            let now = self.clock;
            let same_fixed = self.fixed.0 == fixed.0 && self.fixed.1 == fixed.1 && self.fixed.2 == fixed.2;
            match &self.snap {
                Some(old) if same_fixed && self.hex_stamp[0].len() == n => diff(
                    old,
                    state,
                    prog,
                    now,
                    board,
                    &mut self.hex_stamp,
                    &mut self.area_stamp,
                    &mut self.global_stamp,
                ),
                _ => {
                    // First search, or options changed: start over.
                    self.sigs.clear();
                    self.tables.clear();
                    self.hex_stamp = std::array::from_fn(|_| vec![0; n]);
                    self.area_stamp = std::array::from_fn(|_| vec![0; n]);
                    self.global_stamp = 0;
                    self.context_stamp = 0;
                    self.fixed = (fixed.0.to_vec(), fixed.1.to_vec(), fixed.2.to_vec());
                }
            }
            match &mut self.snap {
                Some(s) => copy_state(s, state),
                None => self.snap = Some(state.clone()),
            }
            self.synced = Some(version);
        }
        let c = prog.counters.get(u as usize)?;
        let us = state.units.get(u as usize)?;
        let markers = us.markers & view.markers;
        // Type and face, else the classes tested (those of the unit's current face); the
        // side if read; the markers tested.
        let kind = if view.unit_type {
            (1 << 63) | c.unit_type as u64 | (us.face as u64) << 16
        } else {
            prog.unit_classes(u, us.face) & view.classes & !(1 << 63)
        };
        let key = (kind, if view.side { us.side } else { 0 }, markers);
        let sig = match self.sigs.iter().position(|&k| k == key) {
            Some(i) => i,
            None => {
                // Bounded memory: past the cap, new signatures go without a memo.
                let bytes = (self.sigs.len() + 1) * n * self.deg * std::mem::size_of::<Entry>();
                if bytes > MAX_BYTES {
                    return None;
                }
                self.sigs.push(key);
                self.tables.push(vec![Entry::default(); n * self.deg]);
                self.sigs.len() - 1
            }
        };
        Some((sig, view.markers))
    }

    /// The memoised cost of the step from `from` in direction `dir`, if still valid.
    #[inline]
    pub fn get(&self, sig: usize, from: u32, dir: u8, version: u64) -> Option<i32> {
        // The state changed since the comparison (a hook with effects, in a faulty
        // program): the stamps do not describe it.
        if self.synced != Some(version) {
            return None;
        }
        let e = self.tables.get(sig)?.get(from as usize * self.deg + dir as usize)?;
        if e.ver == 0
            || (e.flags & GLOBAL != 0 && self.global_stamp >= e.ver)
            || (e.flags & CONTEXT != 0 && self.context_stamp >= e.ver)
        {
            return None;
        }
        for &d in &e.deps[..e.n as usize] {
            let stamps = if d & AREA != 0 { &self.area_stamp } else { &self.hex_stamp };
            let (h, mut layers) = (dep_hex(d) as usize, dep_layers(d));
            while layers != 0 {
                let l = layers.trailing_zeros() as usize;
                layers &= layers - 1;
                if stamps[l].get(h).map(|&s| s >= e.ver).unwrap_or(true) {
                    return None;
                }
            }
        }
        Some(i32::from(e.cost))
    }

    pub fn put(&mut self, sig: usize, from: u32, dir: u8, version: u64, cost: i64, rec: &Recorder) {
        let Ok(cost) = i16::try_from(cost) else { return };
        let v = self.clock + 1;
        // Only answers computed at the version the stamps describe.
        if rec.uncacheable || self.synced != Some(version) {
            return;
        }
        let Some(e) =
            self.tables.get_mut(sig).and_then(|t| t.get_mut(from as usize * self.deg + dir as usize))
        else {
            return;
        };
        let flags = if rec.global { GLOBAL } else { 0 } | if rec.context { CONTEXT } else { 0 };
        *e = Entry { ver: v, cost, deps: rec.deps, n: rec.n, flags };
    }
}

/// `dst = src.clone()`, reusing `dst`'s buffers (the derived `clone_from` allocates).
pub(crate) fn copy_state(dst: &mut State, src: &State) {
    // Most comparisons find little changed: copy only what differs.
    fn copy<T: Clone + PartialEq>(d: &mut Vec<T>, s: &[T]) {
        if d[..] != *s {
            d.clear();
            d.extend_from_slice(s);
        }
    }
    // Every field, by name: a field added to `State` must be copied here and compared
    // in `diff` (this stops compiling until it is).
    let State {
        turn,
        phase,
        phasing,
        units,
        hex_markers,
        side_markers,
        tracks,
        triggers_fired,
        exited,
        cups,
        decks,
        discards,
        hands,
    } = src;
    dst.turn = *turn;
    dst.phase = *phase;
    dst.phasing = *phasing;
    copy(&mut dst.units, units);
    copy(&mut dst.hex_markers, hex_markers);
    copy(&mut dst.side_markers, side_markers);
    copy(&mut dst.tracks, tracks);
    copy(&mut dst.triggers_fired, triggers_fired);
    copy(&mut dst.exited, exited);
    dst.cups.resize_with(cups.len(), Vec::new);
    for (d, s) in dst.cups.iter_mut().zip(cups) {
        copy(d, s);
    }
    for (dv, sv) in [(&mut dst.decks, decks), (&mut dst.discards, discards), (&mut dst.hands, hands)] {
        dv.resize_with(sv.len(), Vec::new);
        for (d, s) in dv.iter_mut().zip(sv) {
            copy(d, s);
        }
    }
}

/// Stamp what changed between `old` and `new` with `now`.
#[allow(clippy::too_many_arguments)]
fn diff(
    old: &State,
    new: &State,
    _prog: &Program,
    now: u32,
    board: &Board,
    hex_stamp: &mut [Vec<u32>; LAYERS],
    area_stamp: &mut [Vec<u32>; LAYERS],
    global: &mut u32,
) {
    let mut bump = |h: u32, layer: u8| {
        let l = (layer.trailing_zeros() as usize).min(LAYERS - 1);
        if let Some(s) = hex_stamp[l].get_mut(h as usize) {
            *s = now;
        }
        if let Some(s) = area_stamp[l].get_mut(h as usize) {
            *s = now;
        }
        for d in 0..board.degree() {
            if let Some(n) = board.neighbour(h, d) {
                if let Some(s) = area_stamp[l].get_mut(n as usize) {
                    *s = now;
                }
            }
        }
    };
    if old.units.len() != new.units.len() || old.hex_markers.len() != new.hex_markers.len() {
        *global = now;
        for h in 0..board.hex_count() {
            for l in 0..LAYERS {
                bump(h, 1 << l);
            }
        }
        return;
    }
    for (a, b) in old.units.iter().zip(&new.units) {
        if a != b {
            for us in [a, b] {
                let layer = side_layer(us.side);
                if on_map(us) {
                    bump(us.hex, layer);
                } else {
                    *global = now;
                }
            }
        }
    }
    if old.hex_markers != new.hex_markers {
        for (h, (a, b)) in old.hex_markers.iter().zip(&new.hex_markers).enumerate() {
            if a != b {
                bump(h as u32, MARKER_LAYER);
            }
        }
    }
    if old.turn != new.turn
        || old.phase != new.phase
        || old.phasing != new.phasing
        || old.side_markers != new.side_markers
        || old.tracks != new.tracks
        || old.triggers_fired != new.triggers_fired
        || old.exited != new.exited
        || old.cups != new.cups
        || old.decks != new.decks
        || old.discards != new.discards
        || old.hands != new.hands
    {
        *global = now;
    }
}

/// How function `f` uses its parameter 0 (a unit): `Some(view)` when only for its side,
/// its type, its classes and its markers (in `f` and the functions it passes the unit
/// to), with the classes and markers tested; `None` for any other use (compared,
/// returned, passed to a built-in, its position or ratings read...).
pub(crate) fn unit_param_view(prog: &Program, f: FnId) -> Option<View> {
    let mut v = View::default();
    let mut stack = Vec::new();
    view(prog, f, &[0], &mut v, &mut stack)?;
    Some(v)
}

/// What a function sees of a unit parameter (see [`unit_param_view`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct View {
    pub side: bool,
    pub unit_type: bool,
    pub classes: u64,
    pub markers: u64,
}

fn view(prog: &Program, f: FnId, params: &[Reg], mask: &mut View, stack: &mut Vec<FnId>) -> Option<()> {
    if stack.contains(&f) || stack.len() > 16 {
        return None;
    }
    let func = prog.functions.get(f as usize)?;
    // Registers that may hold the unit: the parameters and every `Mov` destination
    // from one of them (flow-insensitive, so conservative).
    let mut tainted = vec![false; func.slots as usize];
    for &p in params {
        *tainted.get_mut(p as usize)? = true;
    }
    let t = |tainted: &[bool], r: Reg| tainted.get(r as usize).copied().unwrap_or(false);
    loop {
        let mut changed = false;
        for op in &func.code {
            if let Op::Mov { dst, src } = *op {
                if t(&tainted, src) && !t(&tainted, dst) {
                    *tainted.get_mut(dst as usize)? = true;
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    stack.push(f);
    for op in &func.code {
        let reads: &[Reg] = match op {
            Op::Mov { .. } => &[],
            Op::Field { obj, field: Field::Side, .. } => {
                mask.side |= t(&tainted, *obj);
                &[]
            }
            Op::Field { obj, field: Field::UnitType, .. } => {
                mask.unit_type |= t(&tainted, *obj);
                &[]
            }
            Op::IsClass { u, class, .. } | Op::BrClass { u, class, .. } => {
                if t(&tainted, *u) {
                    mask.classes |= 1u64 << (*class as u64 % 64);
                }
                &[]
            }
            Op::HasMarker { obj, marker, .. } | Op::BrMarker { obj, marker, .. } => {
                if t(&tainted, *obj) {
                    mask.markers |= 1u64 << (*marker as u64 % 64);
                }
                &[]
            }
            Op::Call { f: g, args, argc, .. } => {
                let ps: Vec<Reg> = (0..*argc).filter(|&i| t(&tainted, args.saturating_add(i))).collect();
                if !ps.is_empty() {
                    view(prog, *g, &ps, mask, stack)?;
                }
                &[]
            }
            Op::Const { .. } | Op::Jump { .. } | Op::RetNil | Op::ListNew { .. } | Op::ModApplied { .. } => {
                &[]
            }
            Op::Add { a, b, .. }
            | Op::Sub { a, b, .. }
            | Op::Mul { a, b, .. }
            | Op::Div { a, b, .. }
            | Op::Rem { a, b, .. }
            | Op::Eq { a, b, .. }
            | Op::Ne { a, b, .. }
            | Op::Lt { a, b, .. }
            | Op::Le { a, b, .. }
            | Op::Gt { a, b, .. }
            | Op::Ge { a, b, .. } => {
                if t(&tainted, *a) || t(&tainted, *b) {
                    return None;
                }
                &[]
            }
            Op::Neg { a, .. } | Op::Not { a, .. } | Op::AddK { a, .. } => std::slice::from_ref(a),
            Op::JumpIf { cond, .. } | Op::JumpIfNot { cond, .. } => std::slice::from_ref(cond),
            Op::BrCmpK { a, .. } => std::slice::from_ref(a),
            Op::BrStatic { .. } => &[],
            Op::BrTest { x, y, .. } => {
                if t(&tainted, *x) || t(&tainted, *y) {
                    return None;
                }
                &[]
            }
            Op::BrCmp { a, b, .. } => {
                if t(&tainted, *a) || t(&tainted, *b) {
                    return None;
                }
                &[]
            }
            Op::Ret { src } => std::slice::from_ref(src),
            Op::Builtin { a, argc, .. } => &a[..(*argc as usize).min(5)],
            Op::ListPush { list, v } => {
                if t(&tainted, *list) || t(&tainted, *v) {
                    return None;
                }
                &[]
            }
            Op::IterAt { hex, idx, .. }
            | Op::IterAtBack { hex, idx, .. }
            | Op::IterAtStart { hex, idx, .. } => {
                if t(&tainted, *hex) || t(&tainted, *idx) {
                    return None;
                }
                &[]
            }
            Op::IterNext { list, idx, .. }
            | Op::IterNextBack { list, idx, .. }
            | Op::IterStart { list, idx, .. } => {
                if t(&tainted, *list) || t(&tainted, *idx) {
                    return None;
                }
                &[]
            }
            Op::Field { obj, .. } => std::slice::from_ref(obj),
            Op::TrackGet { side, .. } => std::slice::from_ref(side),
            // Anything else: no unit may flow into it.
            other => {
                if any_reg(other, func.slots).iter().any(|&r| t(&tainted, r)) {
                    return None;
                }
                &[]
            }
        };
        if reads.iter().any(|&r| t(&tainted, r)) {
            return None;
        }
    }
    stack.pop();
    Some(())
}

/// Every register an instruction other than those `view` knows could read: all of
/// the frame (conservative).
fn any_reg(_op: &Op, slots: u16) -> Vec<Reg> {
    (0..slots).collect()
}

impl<'p> crate::vm::Vm<'p> {
    /// Record what instruction `op` (one not handled inline by the loop) reads.
    #[cold]
    pub(crate) fn note_op(&mut self, op: Op, base: usize) {
        match op {
            Op::Field { obj, field, .. } => match (self.reg(base, obj), field) {
                (
                    _,
                    Field::Side
                    | Field::UnitType
                    | Field::Terrain
                    | Field::TerrainAttr(_)
                    | Field::AreaAttr(_),
                ) => {}
                (crate::value::Value::Unit(u), _) => self.rec.unit(&self.state, self.prog, u, &self.board),
                _ => {}
            },
            Op::IsClass { .. } | Op::ListNew { .. } | Op::ListPush { .. } | Op::IterNext { .. } => {}
            Op::HasMarker { obj, marker, .. } => self.note_marker(self.reg(base, obj), marker),
            Op::TrackGet { .. } | Op::TrackGet2 { .. } => self.rec.global = true,
            // Dice, lookups (logged), decisions, effects: not a pure reading.
            _ => self.rec.uncacheable = true,
        }
    }

    /// Record a marker test on `obj`.
    #[cold]
    pub(crate) fn note_marker(&mut self, obj: crate::value::Value, marker: u16) {
        use crate::value::Value;
        let bit = 1u64 << (marker as u64 % 64);
        match obj {
            Value::Unit(u) if u == self.rec.key_unit && self.rec.key_mask & bit != 0 => {}
            Value::Unit(u) => self.rec.unit(&self.state, self.prog, u, &self.board),
            Value::Hex(h) => self.rec.hex(h, MARKER_LAYER, &self.board),
            Value::Side(_) => self.rec.global = true,
            _ => {}
        }
    }

    /// Record what built-in `b` reads (before it runs).
    #[cold]
    pub(crate) fn note_builtin(&mut self, b: crate::op::Builtin, args: &[crate::value::Value]) {
        use crate::op::Builtin as B;
        use crate::value::Value;
        let hex0 = args.first().and_then(|v| match v {
            Value::Hex(h) => Some(*h),
            _ => None,
        });
        let side1 = args.get(1).and_then(|v| match v {
            Value::Side(s) => Some(*s),
            _ => None,
        });
        match (b, hex0, side1) {
            (B::UnitsAt, Some(h), _) => self.rec.hex(h, ALL_UNITS, &self.board),
            (B::OccupiedBy, Some(h), Some(s)) => self.rec.hex(h, side_layer(s), &self.board),
            (B::AdjacentUnits, Some(h), Some(s)) => self.rec.area(h, side_layer(s), &self.board),
            // `in_ezoc` records its own reads (see `in_ezoc`).
            (B::InEzoc, Some(_), Some(_)) => {}
            (B::UnitsAt | B::OccupiedBy | B::AdjacentUnits | B::InEzoc, _, _) => self.rec.uncacheable = true,
            _ => self.note_other(b),
        }
    }

    fn note_other(&mut self, b: crate::op::Builtin) {
        use crate::op::Builtin as B;
        match b {
            B::Turn | B::Phasing | B::InPhase | B::Exited | B::CupSize | B::DeckSize | B::DiscardSize => {
                self.rec.global = true
            }
            // Fixed for the whole game, but not for the next one of a series.
            B::ScenarioTurns
            | B::FirstTurn
            | B::Order
            | B::PlayerCount
            | B::PlayerOf
            | B::Teammates
            | B::Team
            | B::PlayerSides => self.rec.context = true,
            // Fixed for the program (options, flags and rulings are compared too).
            B::Neighbours
            | B::Distance
            | B::Other
            | B::Len
            | B::Contains
            | B::InRegion
            | B::RegionHexes
            | B::Crosses
            | B::HexsideSum
            | B::Flag
            | B::Ruling
            | B::AtEdge
            | B::Min
            | B::Max
            | B::Abs
            | B::CeilDiv
            | B::UnitId
            | B::Counters
            | B::Direction
            | B::Neighbour
            | B::Optional
            | B::Border
            | B::Sides
            | B::Others
            | B::Present => {}
            // Whole-map queries, searches, logged lookups, effects.
            _ => self.rec.uncacheable = true,
        }
    }
}

impl<'p> crate::vm::Vm<'p> {
    /// Before a search by unit `u`: its memo key, if the cost hook can be memoised.
    pub(crate) fn memo_prepare(&mut self, cost_f: FnId, u: u16) -> Option<(usize, u64)> {
        let fixed = (&self.options[..], &self.flags[..], &self.rulings[..]);
        self.cost_memo.prepare(self.prog, cost_f, &self.state, self.version, &self.board, fixed, u)
    }

    /// `cost_f(u, from, to)` (`to` lies in direction `dir` of `from`), from the memo
    /// when it holds an answer still valid.
    #[inline]
    pub(crate) fn memo_cost(
        &mut self,
        memo: Option<(usize, u64)>,
        cost_f: FnId,
        u: u16,
        from: u32,
        to: u32,
        dir: u8,
    ) -> crate::vm::Exec<crate::value::Value> {
        if let Some((sig, _)) = memo {
            if let Some(c) = self.cost_memo.get(sig, from, dir, self.version) {
                self.cost_memo.hits += 1;
                #[cfg(debug_assertions)]
                self.memo_check(cost_f, u, from, to, c);
                return Ok(crate::value::Value::Int(c as i64));
            }
        }
        self.memo_miss(memo, cost_f, u, from, to, dir)
    }

    /// Under `debug_assertions`: a memoised answer equals a fresh one.
    #[cfg(debug_assertions)]
    fn memo_check(&mut self, cost_f: FnId, u: u16, from: u32, to: u32, c: i32) {
        use crate::value::Value;
        // Not while profiling: the profile counts instructions as the budget spent, and
        // this check runs outside the budget (it would also inflate the hook's counts).
        if self.profile.is_some() {
            return;
        }
        // Recomputed outside the step budget (which may be nearly spent).
        let budget = self.budget;
        self.budget = u64::MAX / 2;
        let fresh = self.call(cost_f, &[Value::Unit(u), Value::Hex(from), Value::Hex(to)]);
        self.budget = budget;
        debug_assert_eq!(fresh.ok(), Some(Value::Int(c as i64)), "stale movement cost memo");
    }

    /// No valid answer: run the hook, recording its reads, and keep the answer.
    #[inline(never)]
    fn memo_miss(
        &mut self,
        memo: Option<(usize, u64)>,
        cost_f: FnId,
        u: u16,
        from: u32,
        to: u32,
        dir: u8,
    ) -> crate::vm::Exec<crate::value::Value> {
        use crate::value::Value;
        let args = [Value::Unit(u), Value::Hex(from), Value::Hex(to)];
        let Some((sig, mask)) = memo else { return self.call(cost_f, &args) };
        self.cost_memo.misses += 1;
        let outer = std::mem::replace(&mut self.rec, Recorder::start(u, mask));
        let r = self.call(cost_f, &args);
        let rec = std::mem::replace(&mut self.rec, outer);
        if let Ok(Value::Int(c)) = r {
            self.cost_memo.put(sig, from, dir, self.version, c, &rec);
        }
        r
    }
}
