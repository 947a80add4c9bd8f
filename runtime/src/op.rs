//! The instruction set: register (slot) operands, resolved indices, no names or spans.
//!
//! Each function has `slots` registers; parameters occupy the first ones. Spans and
//! paragraphs live in side tables of [`crate::program::Function`], indexed by pc.

use crate::program::FnId;
use serde::{Deserialize, Serialize};

/// A register of the current frame.
pub type Reg = u16;
/// "No register" for optional operands.
pub const NO_REG: Reg = u16::MAX;

/// Attribute read by [`Op::Field`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Field {
    /// A unit's rating at its current step (0 if the counter has none).
    Rating(u16),
    /// The hex a unit occupies (Nil if off the map).
    Hex,
    Side,
    UnitType,
    /// Steps the unit has left (0 when eliminated; a unit removed from the map keeps its steps).
    Steps,
    /// Whether the unit is on the map.
    OnMap,
    /// Terrain of a hex.
    Terrain,
    /// Attribute of a terrain type.
    TerrainAttr(u16),
    /// An area map's own attribute of a space (`h.value`).
    AreaAttr(u16),
    /// A unit's facing: the hexside 0-5 it faces (or, facing a vertex, the hexside
    /// counter-clockwise of that vertex).
    Facing,
    /// Whether the unit faces a vertex rather than a hexside.
    VertexFacing,
    /// A unit's current face (formation), a `Formation` code; Nil for a type without faces.
    Formation,
    /// A card's attribute (index into `Program::card_attrs`).
    CardAttr(u16),
}

/// Comparison of a fused compare-and-branch ([`Op::BrCmp`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Cmp {
    /// Any two values.
    Eq,
    Ne,
    /// Ints.
    Lt,
    Le,
    Gt,
    Ge,
}

/// A predicate fixed for a whole game ([`Op::BrStatic`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Static {
    /// `flag(F)`: scenario flag `a`.
    Flag,
    /// `optional(O)`: optional rule `a` in play.
    Optional,
    /// `ruling(R, A)`: ruling `a` has alternative `b`.
    Ruling,
}

/// A built-in test of a fused branch ([`Op::BrTest`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Test {
    /// `crosses(r[x], r[y], feature k)`
    Crosses,
    /// `in_region(r[x], region k)`
    InRegion,
    /// `occupied_by(r[x], r[y])`
    OccupiedBy,
    /// `in_ezoc(r[x], r[y])`
    InEzoc,
}

/// Built-in functions of the wargame primitives (see `builtins.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[repr(u16)]
pub enum Builtin {
    /// `units(side) -> List<Unit>`: the side's units on the map.
    Units,
    /// `units_at(hex) -> List<Unit>`.
    UnitsAt,
    /// `adjacent_units(hex, side) -> List<Unit>`: the side's units next to the hex.
    AdjacentUnits,
    /// `neighbours(hex) -> List<Hex>`.
    Neighbours,
    /// `distance(hex, hex) -> Int`.
    Distance,
    /// `other(side) -> Side` (two-sided games: the opponent).
    Other,
    /// `len(list) -> Int`.
    Len,
    /// `reachable(unit) -> List<Hex>`: hexes the unit can reach this phase (start included).
    Reachable,
    /// `in_ezoc(hex, side) -> Bool`: is the hex in a zone of control of `side`'s enemies?
    InEzoc,
    /// `enemy_distance(hex, side) -> Int`: distance to the nearest enemy combat unit.
    EnemyDistance,
    /// `in_region(hex, Region) -> Bool`.
    InRegion,
    /// `region_hexes(Region) -> List<Hex>`.
    RegionHexes,
    /// `crosses(hex, hex, Feature) -> Bool`: does the shared hexside carry the feature?
    Crosses,
    /// `hexside_sum(hex, hex, attr) -> Int`: sum of an attribute over the hexside's features.
    HexsideSum,
    /// `turn() -> Int`.
    Turn,
    /// `phasing() -> Side`.
    Phasing,
    /// `scenario_turns() -> Int`.
    ScenarioTurns,
    /// `order() -> List<Side>`: the scenario's player-turn order.
    Order,
    /// `flag(Flag) -> Bool`: a scenario flag.
    Flag,
    /// `ruling(Ruling, Alternative) -> Bool`: is that alternative in force?
    Ruling,
    /// `retreat(unit, hexes) -> Bool`: retreat by the rulebook's priorities; false if impossible.
    Retreat,
    /// `at_edge(hex) -> Bool`: does the hex lie on an edge units may leave by?
    AtEdge,
    /// `lookup_shifted(Table, key, shift, roll) -> cell`.
    LookupShifted,
    /// `lookup_odds(Table, attack, defense, shift, roll) -> cell`: odds-ratio columns.
    LookupOdds,
    /// `lookup_shifted` and `lookup_odds` in pure code: not logged.
    LookupShiftedQuiet,
    LookupOddsQuiet,
    /// `a + b` on lists: the elements of `a`, then those of `b`.
    Concat,
    /// `union(a, b)`: the elements of `a`, then those of `b`, each once, in order of
    /// first appearance.
    Union,
    /// `min(a, b)`, `max(a, b)`, `abs(a)`, `ceil_div(a, b)`.
    Min,
    Max,
    Abs,
    CeilDiv,
    /// `contains(list, value) -> Bool`.
    Contains,
    /// `exited(side) -> Int`: units of the side that left the map by retreat or exit.
    Exited,
    /// `occupied_by(hex, side) -> Bool`: does any unit of the side stand in the hex?
    OccupiedBy,
    /// `line_of_sight(hex, hex) -> Bool`: LOS by the terrain attribute `blocks_los` and
    /// hexside attribute `blocks_los`; units block (hexes with combat units).
    LineOfSight,
    /// `id(unit) -> Int`: the counter's index (a stable tie-breaker).
    UnitId,
    /// `counters(side) -> List<Unit>`: every counter of the side, on the map or not.
    Counters,
    /// `direction(a, b) -> Int`: 0-5 clockwise from north for adjacent hexes, else -1.
    Direction,
    /// `neighbour(h, dir) -> Hex`: Nil off the map (test with `present`).
    Neighbour,
    /// `route(unit, hex) -> List<Hex>`: the hexes a move to `hex` enters, in order.
    Route,
    /// `can_retreat(unit, n) -> Bool`: would a retreat of n hexes be possible?
    CanRetreat,
    /// `optional(Option) -> Bool`: is this optional rule in play?
    Optional,
    /// `cup_size(Cup) -> Int`: values left in a cup.
    CupSize,
    /// `deck_size(Deck) -> Int`: cards left to draw in a deck.
    DeckSize,
    /// `discard_size(Deck) -> Int`: cards on a deck's discard pile.
    DiscardSize,
    /// `present(x) -> Bool`: false for the empty answer of `choose ... or none`.
    Present,
    /// `first(list) -> T`: the first element; nothing for an empty list (test with `present`).
    First,
    /// `percent(n, p) -> Int`: p% of n, to the nearest whole number, halves up.
    Percent,
    /// `percent_up(n, p)`, `percent_down(n, p)`: p% of n rounded up / down.
    PercentUp,
    PercentDown,
    /// `within(unit, budget, step_fn) -> List<Hex>`: hexes reachable from the unit's hex
    /// for at most `budget`, each step a→b costing `step_fn(unit, a, b)` (negative: no
    /// passage).
    Within,
    /// `border(a, b) -> Int`: the number of the border (hexside) between two adjacent
    /// spaces, the index of a track `per border`; -1 when they are not adjacent.
    Border,
    /// Players and teams (runtime/src/players.rs): `player_count()`, `player(side)`,
    /// `teammates(a, b)`, `sides()`, `others(side)`, `team(side)`, `player_sides(side)`.
    PlayerCount,
    PlayerOf,
    Teammates,
    Sides,
    Others,
    Team,
    PlayerSides,
    /// `relative(unit, hex) -> Int`: the hexside of the unit's hex toward the adjacent
    /// hex, counted clockwise from the unit's facing (0 the faced hexside); -1 when not
    /// adjacent or off the map.
    Relative,
    /// `can_form(unit, formation) -> Bool`: does the unit's type declare a change from
    /// its current face to this one?
    CanForm,
    /// `first_turn() -> Int`: the turn the scenario begins on (`start turn N;`, else 1).
    FirstTurn,
    /// `reachable_from(unit, hex) -> List<Hex>`: the unit's movement search (its hooks,
    /// its allowance) started from the hex instead of its own: an entry hex, a hex it
    /// is not in.
    ReachableFrom,
    /// `within_from(side, hex, budget, step) -> List<Hex>`: a search from a hex, each
    /// step `a -> b` costing `step(side, a, b)` (a supply line traced from a source).
    WithinFrom,
    /// `arrivals(side) -> List<Unit>`: the side's units placed `arrives turn N at HEX`
    /// whose turn has come and that are not yet on the map, in counter order.
    Arrivals,
    /// `entry_hex(unit) -> Hex`: the hex a reinforcement enters or arrives at
    /// ("nothing" for a unit without one).
    EntryHex,
    /// `reachable_by(unit, mode) -> List<Hex>`: the movement search by a declared mode's
    /// hooks (`movement road { ... }`).
    ReachableBy,
    /// `reachable_from_by(unit, hex, mode) -> List<Hex>`: the same, from a hex.
    ReachableFromBy,
    /// `route_by(unit, hex, mode) -> List<Hex>`: the hexes a move by the mode enters.
    RouteBy,
    /// `try_retreat_to(unit, n, hex) -> Bool` (and `retreat u by n to h;`): a retreat of
    /// `n` among the legal paths ending in the hex, ranked by `prefer`; false if none.
    RetreatTo,
    /// `retreat_ends(unit, n) -> List<Hex>`: where a legal retreat of `n` ends, in map order.
    RetreatEnds,
    /// `in_phase(Phase) -> Bool`: is the innermost phase being played this one? The
    /// argument is the phase name's index in the string pool (as `PhaseBegin`'s).
    InPhase,
}

/// One instruction. Comments give the effect on registers `r[..]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Op {
    /// r[dst] = consts[k]
    Const {
        dst: Reg,
        k: u32,
    },
    /// r[dst] = r[src]
    Mov {
        dst: Reg,
        src: Reg,
    },
    /// r[dst] = r[a] + r[b] (Int; overflow is a runtime error)
    Add {
        dst: Reg,
        a: Reg,
        b: Reg,
    },
    Sub {
        dst: Reg,
        a: Reg,
        b: Reg,
    },
    /// r[dst] = r[a] + k (Int; a literal operand, also for `- k` and counting)
    AddK {
        dst: Reg,
        a: Reg,
        k: i32,
    },
    Mul {
        dst: Reg,
        a: Reg,
        b: Reg,
    },
    /// Floor division; division by zero is a runtime error.
    Div {
        dst: Reg,
        a: Reg,
        b: Reg,
    },
    Rem {
        dst: Reg,
        a: Reg,
        b: Reg,
    },
    /// r[dst] = r[a] == r[b] (any type)
    Eq {
        dst: Reg,
        a: Reg,
        b: Reg,
    },
    Ne {
        dst: Reg,
        a: Reg,
        b: Reg,
    },
    Lt {
        dst: Reg,
        a: Reg,
        b: Reg,
    },
    Le {
        dst: Reg,
        a: Reg,
        b: Reg,
    },
    Gt {
        dst: Reg,
        a: Reg,
        b: Reg,
    },
    Ge {
        dst: Reg,
        a: Reg,
        b: Reg,
    },
    Neg {
        dst: Reg,
        a: Reg,
    },
    Not {
        dst: Reg,
        a: Reg,
    },
    /// pc = to
    Jump {
        to: u32,
    },
    /// if r[cond] { pc = to }
    JumpIf {
        cond: Reg,
        to: u32,
    },
    /// if !r[cond] { pc = to }
    JumpIfNot {
        cond: Reg,
        to: u32,
    },
    /// if (r[a] cmp r[b]) == when { pc = to } (a comparison and its branch in one)
    BrCmp {
        cmp: Cmp,
        a: Reg,
        b: Reg,
        to: u32,
        when: bool,
    },
    /// if (r[a] cmp consts[k]) == when { pc = to } (a comparison with a constant)
    BrCmpK {
        cmp: Cmp,
        a: Reg,
        k: u16,
        to: u32,
        when: bool,
    },
    /// if (flag, optional rule or ruling) == when { pc = to }
    BrStatic {
        what: Static,
        a: u16,
        b: u16,
        to: u32,
        when: bool,
    },
    /// if test(r[x], r[y], k) == when { pc = to } (a built-in test and its branch in one)
    BrTest {
        test: Test,
        x: Reg,
        y: Reg,
        k: u16,
        to: u32,
        when: bool,
    },
    /// if (unit r[u]'s type belongs to class `class`) == when { pc = to }
    BrClass {
        u: Reg,
        class: u8,
        to: u32,
        when: bool,
    },
    /// if (r[obj] carries marker `marker`) == when { pc = to }
    BrMarker {
        obj: Reg,
        marker: u16,
        to: u32,
        when: bool,
    },
    /// r[dst] = f(r[args..args+argc]). `trace`: a call made by a procedure's statement
    /// (not a score): while it runs, the modifier sets it evaluates are logged.
    Call {
        f: FnId,
        args: Reg,
        argc: u16,
        dst: Reg,
        trace: bool,
    },
    /// Line `line` of the running modifier set applied, adding r[amt] (NO_REG for a
    /// multiplier); recorded for the log when the set's evaluation is traced.
    ModApplied {
        line: u16,
        amt: Reg,
    },
    /// r[dst] = builtin(r[a[0]], .., r[a[argc-1]]) (at most five operands; dst may be NO_REG)
    Builtin {
        b: Builtin,
        dst: Reg,
        a: [Reg; 5],
        argc: u8,
    },
    /// return r[src]
    Ret {
        src: Reg,
    },
    /// return Nil
    RetNil,
    /// r[dst] = sum of `count` dice of `sides` faces; logged as a roll event.
    Roll {
        dst: Reg,
        count: u8,
        sides: u16,
    },
    /// r[dst] = tables[table][row_of(r[row])][column_of(r[col])]; logged as a result event.
    /// `col` is NO_REG for tables without columns.
    Lookup {
        dst: Reg,
        table: u16,
        col: Reg,
        row: Reg,
        /// Not logged: a lookup evaluated in pure code (a `fn`, a modifier set, a
        /// condition, a score) is an evaluation, not an event of the game.
        quiet: bool,
    },
    /// r[dst] = a List<Int> of r[count] dice of `sides` faces, each die's value;
    /// logged as one roll event.
    RollPool {
        dst: Reg,
        count: Reg,
        sides: u16,
    },
    /// r[dst] = value of a track with two keys r[a], r[b].
    TrackGet2 {
        dst: Reg,
        track: u16,
        a: Reg,
        b: Reg,
    },
    /// Effect: set a track (keys r[a], r[b], each NO_REG when absent) to r[v], or with
    /// `add`, to its value + r[v]; clamped to its range.
    TrackPut {
        track: u16,
        a: Reg,
        b: Reg,
        v: Reg,
        add: bool,
    },
    /// Effect: the unit regains a step (none at full strength or off the map).
    RegainStep {
        u: Reg,
    },
    /// r[dst] = an element of list r[list] chosen by side r[side]'s agent; r[scores] (a list
    /// of Int parallel to the options, or NO_REG) guides heuristic agents. With `or_none`
    /// the agent may decline (r[dst] = Nil). Logged as a decision event.
    Choose {
        dst: Reg,
        list: Reg,
        scores: Reg,
        side: Reg,
        what: u32,
        or_none: bool,
        /// `secret`: the decision is kept from the other sides' views until a `Reveal`.
        secret: bool,
        /// `private`: the decision is kept from the other sides' views for good.
        private: bool,
    },
    /// r[dst] = does side r[side]'s agent read preference scores, with more than one
    /// option in list r[list]? (Random agents do not: their scores are never computed.)
    WantsScores {
        dst: Reg,
        side: Reg,
        list: Reg,
    },
    /// r[dst] = new empty list
    ListNew {
        dst: Reg,
    },
    /// push r[v] onto list r[list]
    ListPush {
        list: Reg,
        v: Reg,
    },
    /// if r[idx] >= len(r[list]) { pc = done } else { r[dst] = r[list][r[idx]]; r[idx] += 1 }
    IterNext {
        list: Reg,
        idx: Reg,
        dst: Reg,
        done: u32,
    },
    /// The units in hex r[hex], in unit order, without building the list of
    /// `units_at(h)` (quantifiers only: an expression cannot move units):
    /// if r[idx] >= their count { pc = done } else { r[dst] = the r[idx]-th; r[idx] += 1 }
    IterAt {
        hex: Reg,
        idx: Reg,
        dst: Reg,
        done: u32,
    },
    /// The first step of a rotated loop: if the list is empty { pc = done } else
    /// { r[dst] = its first element; r[idx] = 1 } (no index to initialise).
    IterStart {
        list: Reg,
        idx: Reg,
        dst: Reg,
        done: u32,
    },
    /// The same for [`Op::IterAt`].
    IterAtStart {
        hex: Reg,
        idx: Reg,
        dst: Reg,
        done: u32,
    },
    /// The bottom of a rotated loop: if another element follows, it goes to r[dst],
    /// r[idx] += 1 and pc = body; else the loop is done (falls through).
    IterNextBack {
        list: Reg,
        idx: Reg,
        dst: Reg,
        body: u32,
    },
    /// The same for [`Op::IterAt`].
    IterAtBack {
        hex: Reg,
        idx: Reg,
        dst: Reg,
        body: u32,
    },
    /// r[dst] = field of r[obj]
    Field {
        dst: Reg,
        obj: Reg,
        field: Field,
    },
    /// r[dst] = unit r[u]'s type belongs to class `class`
    IsClass {
        dst: Reg,
        u: Reg,
        class: u8,
    },
    /// r[dst] = unit or hex r[obj] carries marker `marker`
    HasMarker {
        dst: Reg,
        obj: Reg,
        marker: u16,
    },
    /// r[dst] = track value (side r[side] for per-side tracks, else NO_REG)
    TrackGet {
        dst: Reg,
        track: u16,
        side: Reg,
    },
    /// Effect: set the track to its value + r[by], clamped to its range.
    Adjust {
        track: u16,
        side: Reg,
        by: Reg,
    },
    /// Effect: place unit r[u] in hex r[h].
    MoveUnit {
        u: Reg,
        h: Reg,
    },
    /// Effect: the unit is eliminated (counts as eliminated).
    Eliminate {
        u: Reg,
    },
    /// Effect: the unit leaves the map without counting as eliminated.
    Remove {
        u: Reg,
    },
    /// Effect: the unit loses one step (eliminated at its last).
    LoseStep {
        u: Reg,
    },
    /// Effect: the unit faces hexside r[dir] (0-5), or with `vertex` the vertex
    /// clockwise of it; logged `face`.
    Face {
        u: Reg,
        dir: Reg,
        vertex: bool,
    },
    /// Effect: the unit changes to face (formation) r[f], a `Formation` code, by a
    /// declared transition (R0018 otherwise); logged `form`.
    Form {
        u: Reg,
        f: Reg,
    },
    Mark {
        obj: Reg,
        marker: u16,
    },
    Unmark {
        obj: Reg,
        marker: u16,
    },
    /// End the game: side r[side] wins for `reason`.
    Win {
        side: Reg,
        reason: u32,
    },
    /// End the game drawn.
    Draw {
        reason: u32,
    },
    /// Log event with a message `fmt` (`{}` placeholders) and r[args..args+argc].
    Log {
        fmt: u32,
        args: Reg,
        argc: u16,
    },
    /// Effect: put r[v] into cup `cup`.
    CupPut {
        cup: u16,
        v: Reg,
    },
    /// r[dst] = a value drawn at random from cup `cup` and taken out (Nil if empty); logged.
    CupDraw {
        dst: Reg,
        cup: u16,
    },
    /// Effect: empty cup `cup`.
    CupEmpty {
        cup: u16,
    },
    /// r[dst] = side r[side]'s hand `hand` (a new list).
    HandGet {
        dst: Reg,
        hand: u16,
        side: Reg,
    },
    /// Effect: a random card of deck `deck` into side r[side]'s hand `hand`; logged `draw`.
    DrawCard {
        deck: u16,
        hand: u16,
        side: Reg,
    },
    /// Effect: card r[card] out of side r[side]'s hand onto its deck's discards (R0017
    /// if it is not there); logged `discard`, or with `play` logged `play` and its event run.
    CardOut {
        card: Reg,
        hand: u16,
        side: Reg,
        play: bool,
    },
    /// Effect: deck `deck`'s discards back into it; logged `reshuffle`.
    Reshuffle {
        deck: u16,
    },
    /// Effect: unit r[u] now belongs to side r[side]; logged `transfer`.
    Transfer {
        u: Reg,
        side: Reg,
    },
    /// Start game turn r[turn]: logs, brings on reinforcements.
    TurnBegin {
        turn: Reg,
    },
    /// Start of a `sealed` block: the decisions until `SealedEnd` are secret and
    /// simultaneous (logged as sealed, revealed together at the end).
    SealedBegin,
    /// End of a `sealed` block: logs the `reveal` of its decisions.
    SealedEnd,
    /// A `secret` choice made public: logs a `reveal` of value r[value] chosen by side
    /// r[side], described by string `what`.
    Reveal {
        value: Reg,
        side: Reg,
        what: u32,
    },
    /// End of a game turn: checks the `after turn` invariants.
    TurnEnd,
    /// Start phase `name` with phasing side r[side]; logs.
    PhaseBegin {
        name: u32,
        side: Reg,
    },
    PhaseEnd,
}
const _: () = assert!(std::mem::size_of::<Op>() <= 16, "instructions stay 16 bytes");
