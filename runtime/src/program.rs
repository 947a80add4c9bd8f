//! The compiled rulebook: plain data that the compiler produces and the VM runs.
//!
//! Nothing here refers to source text except through paragraph ids and the
//! `spans` side tables of functions: the runtime depends on neither the DSL nor the
//! compiler. A `Program` is verified (`verify.rs`) before it is run.

use crate::op::Op;
use crate::value::Value;
use serde::{Deserialize, Serialize};

/// Index into [`Program::paragraphs`].
pub type ParaId = u16;
/// Index into [`Program::functions`].
pub type FnId = u32;

/// A whole compiled rulebook.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Program {
    pub title: String,
    /// Faces of the rulebook's die (`dice d6` gives 6).
    pub die_sides: u32,
    /// Added to each die of `die_sides` faces (`dice d10 faces 0..9` gives -1): the
    /// numbers printed on the rulebook's die. Dice of other sizes read 1..sides.
    #[serde(default)]
    pub die_offset: i64,
    /// Every paragraph the program cites, as written after `§`.
    pub paragraphs: Vec<String>,
    pub sides: Vec<String>,
    pub ratings: Vec<RatingDef>,
    pub classes: Vec<String>,
    pub unit_types: Vec<UnitTypeDef>,
    pub markers: Vec<MarkerDef>,
    pub tracks: Vec<TrackDef>,
    pub terrain_attrs: Vec<String>,
    pub terrains: Vec<FeatureDef>,
    pub hexside_attrs: Vec<String>,
    pub hexsides: Vec<FeatureDef>,
    /// Every result code of every `results` declaration; `Value::Sym` indexes this.
    pub symbols: Vec<SymbolDef>,
    pub tables: Vec<TableDef>,
    pub functions: Vec<Function>,
    /// Constant pool shared by all functions.
    pub consts: Vec<Value>,
    /// String pool (names, messages, log formats).
    pub strings: Vec<String>,
    pub hooks: Hooks,
    pub triggers: Vec<TriggerDef>,
    /// Interrupts, in declaration order: run after a unit moves between map hexes.
    #[serde(default)]
    pub interrupts: Vec<InterruptDef>,
    /// Per-unit tracks hidden from the other sides, with the estimate they see instead.
    #[serde(default)]
    pub hidden: Vec<HiddenDef>,
    /// The rules' "musts", in declaration order: checked at their points of play.
    #[serde(default)]
    pub invariants: Vec<InvariantDef>,
    /// The sequence of play: a procedure with no parameters.
    pub sequence: Option<FnId>,
    pub rulings: Vec<RulingDef>,
    pub flags: Vec<String>,
    /// Optional rules (`option` declarations), off unless a run switches them on.
    #[serde(default)]
    pub options: Vec<OptionDef>,
    /// The rulebook's layers (the base layer first), and which were compiled in.
    #[serde(default)]
    pub layers: Vec<LayerInfo>,
    /// Per paragraph (parallel to `paragraphs`): index into `layers` of the layer whose
    /// declarations anchor it (0, the base, when none or no layers).
    #[serde(default)]
    pub para_layer: Vec<u8>,
    /// The sequence of play's own codes (`step_codes`, "III.b"), and per paragraph (parallel
    /// to `paragraphs`) the index of its code, `u16::MAX` for none: the log's `step`.
    #[serde(default)]
    pub steps: Vec<String>,
    #[serde(default)]
    pub para_step: Vec<u16>,
    /// Cups of values drawn without replacement (`cup` declarations).
    #[serde(default)]
    pub cups: Vec<CupDef>,
    /// Decks of declared cards (`deck` declarations): each card is a result code.
    #[serde(default)]
    pub decks: Vec<DeckDef>,
    /// The attributes any deck's cards give (`ops`), numbering `Field::CardAttr`.
    #[serde(default)]
    pub card_attrs: Vec<String>,
    /// Lists of values per side (`hand` declarations).
    #[serde(default)]
    pub hands: Vec<HandDef>,
    /// Ratings hidden from the other sides (`hidden cs shown f`), with their estimates.
    #[serde(default)]
    pub hidden_ratings: Vec<HiddenRating>,
    /// A unit's type hidden from the other sides (`hidden type shown f`, blocks).
    #[serde(default)]
    pub hidden_type: Option<HiddenType>,
    /// The position score (`score f;`, a pure `fn(Side) -> Int`): what a search playout
    /// stopped at its horizon is scored by. Its paragraph in `score_para`.
    #[serde(default)]
    pub score: Option<FnId>,
    #[serde(default)]
    pub score_para: ParaId,
    pub map: MapDef,
    pub counters: Vec<CounterDef>,
    pub scenarios: Vec<ScenarioDef>,
    pub supplied: Vec<SuppliedDef>,
    /// Player counts offered and the sides each player runs (none: one per side).
    #[serde(default)]
    pub players: Option<crate::players::PlayersDef>,
    /// Loose teams of sides, in declaration order.
    #[serde(default)]
    pub teams: Vec<crate::players::TeamDef>,
    /// Derived control of the codes of results groups (Powers), in declaration order.
    #[serde(default)]
    pub controls: Vec<crate::players::ControlDef>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RatingDef {
    pub name: String,
    pub lo: i64,
    pub hi: i64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct UnitTypeDef {
    pub name: String,
    /// Bit i set: the type belongs to class i.
    pub classes: u64,
    pub steps: u8,
    pub para: ParaId,
    /// The faces (formations) a counter of this type shows, the first the one it starts
    /// in; empty for a type without formations (see `facing.rs`).
    #[serde(default)]
    pub faces: Vec<FaceDef>,
    /// Allowed changes of face: (from, to) indices into `faces`.
    #[serde(default)]
    pub transitions: Vec<(u8, u8)>,
}

/// One face of a counter (a formation): its name, its classes, the ratings it
/// replaces, and the paragraph that declares it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FaceDef {
    /// The formation's name: a code of the `Formation` results group.
    pub sym: u16,
    pub classes: u64,
    /// `(rating, values per step)` this face gives instead of the counter's.
    pub ratings: Vec<(u16, Vec<i64>)>,
    pub para: ParaId,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum MarkerOn {
    Unit,
    Hex,
    Side,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MarkerDef {
    pub name: String,
    pub on: MarkerOn,
    pub para: ParaId,
}

/// What a track is kept per, beyond sides, units and results groups: map spaces or
/// borders (its first key).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum SpaceKey {
    #[default]
    None,
    /// `per hex`: one value per map space, indexed by a `Hex` (an area on an area map).
    Space,
    /// `per border`: one value per hexside or area border, indexed by `border(a, b)`.
    Border,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TrackDef {
    pub name: String,
    pub per_side: bool,
    /// One value per counter, starting from the counter's rating of the same name.
    #[serde(default)]
    pub per_unit: bool,
    /// One value per code of a `results` group (the codes' symbol indices, in order).
    #[serde(default)]
    pub per_group: Vec<u16>,
    /// One value per map space (`per hex`: hexes or areas) or per border (`per border`:
    /// hexsides or area borders).
    #[serde(default)]
    pub key: SpaceKey,
    /// A second key (`track crossed per side per Border`): one value per pair of keys,
    /// the first key's index times the second key's width plus the second key's index.
    #[serde(default)]
    pub second: Option<TrackKey>,
    pub lo: i64,
    pub hi: i64,
    /// What the slots hold: numbers, or references kept as their index (-1 for nothing).
    #[serde(default)]
    pub holds: Holds,
    pub para: ParaId,
}

/// What a track's slots hold (`track target per unit: Unit`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Holds {
    /// Numbers, clamped into the track's range.
    #[default]
    Int,
    Unit,
    Hex,
    Side,
    /// A code of a results group.
    Code,
}

impl Holds {
    /// A slot's number as the value it holds; -1 (any negative) is nothing.
    pub fn value(self, x: i64) -> Value {
        match self {
            Holds::Int => Value::Int(x),
            _ if x < 0 => Value::Nil,
            Holds::Unit => u16::try_from(x).map(Value::Unit).unwrap_or(Value::Nil),
            Holds::Hex => u32::try_from(x).map(Value::Hex).unwrap_or(Value::Nil),
            Holds::Side => u8::try_from(x).map(Value::Side).unwrap_or(Value::Nil),
            Holds::Code => u16::try_from(x).map(Value::Sym).unwrap_or(Value::Nil),
        }
    }
    /// A value as the number a slot keeps; None when it is not of the track's kind.
    pub fn slot(self, v: Value) -> Option<i64> {
        match (self, v) {
            (Holds::Int, Value::Int(x)) => Some(x),
            (Holds::Int, _) => None,
            (_, Value::Nil) => Some(-1),
            (Holds::Unit, Value::Unit(u)) => Some(i64::from(u)),
            (Holds::Hex, Value::Hex(h)) => Some(i64::from(h)),
            (Holds::Side, Value::Side(s)) => Some(i64::from(s)),
            (Holds::Code, Value::Sym(c)) => Some(i64::from(c)),
            _ => None,
        }
    }
}

/// The second key of a track with two keys.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum TrackKey {
    Side,
    Unit,
    /// The codes of a `results` group (symbol indices, in order).
    Group(Vec<u16>),
}

/// A terrain type or hexside feature with its attribute values (same order as the
/// program's `terrain_attrs` / `hexside_attrs`; absent attributes are 0).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FeatureDef {
    pub name: String,
    pub attrs: Vec<i64>,
    pub para: ParaId,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SymbolDef {
    pub name: String,
    /// The `results` declaration it belongs to.
    pub group: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Beyond {
    Clamp,
    Error,
}

/// A die-roll table: rows keyed by roll ranges, optional columns keyed by value ranges.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TableDef {
    pub name: String,
    pub para: ParaId,
    /// Inclusive column ranges in order; a table without columns has one column
    /// `(i64::MIN, i64::MAX)`.
    pub columns: Vec<(i64, i64)>,
    pub rows: Vec<(i64, i64)>,
    /// `cells[row * columns.len() + col]`.
    pub cells: Vec<Value>,
    pub beyond_rows: Beyond,
    pub beyond_columns: Beyond,
    /// Odds-ratio thresholds `(attacker, defender)` of the columns, ascending; empty for
    /// tables keyed by value ranges.
    #[serde(default)]
    pub odds: Vec<(i64, i64)>,
}

impl TableDef {
    /// Column for the odds `attack : defense`, rounded in the defender's favour: the
    /// highest threshold the odds reach. Integer cross-multiplication, no division.
    pub fn odds_column(&self, attack: i64, defense: i64) -> Option<usize> {
        if self.odds.is_empty() {
            return None;
        }
        let reached = |&(n, d): &(i64, i64)| -> bool {
            if defense <= 0 {
                return true; // no defence: infinite odds
            }
            (attack as i128) * (d as i128) >= (n as i128) * (defense as i128)
        };
        match self.odds.iter().rposition(reached) {
            Some(i) => Some(i),
            None if self.beyond_columns == Beyond::Clamp => Some(0),
            None => None,
        }
    }
    /// Column index holding `key`, or by clamping when allowed.
    pub fn column_of(&self, key: i64) -> Option<usize> {
        find_range(&self.columns, key, self.beyond_columns)
    }
    /// Row index holding `roll`, or by clamping when allowed.
    pub fn row_of(&self, roll: i64) -> Option<usize> {
        find_range(&self.rows, roll, self.beyond_rows)
    }
}

fn find_range(ranges: &[(i64, i64)], v: i64, beyond: Beyond) -> Option<usize> {
    if let Some(i) = ranges.iter().position(|&(lo, hi)| lo <= v && v <= hi) {
        return Some(i);
    }
    if beyond == Beyond::Error || ranges.is_empty() {
        return None;
    }
    let first = ranges.first()?;
    if v < first.0 {
        Some(0)
    } else {
        Some(ranges.len() - 1)
    }
}

/// Compiled code of a `fn`, `procedure`, `modifiers` set or trigger condition.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Function {
    pub name: String,
    pub kind: FnKind,
    pub params: u16,
    /// Registers used (parameters first).
    pub slots: u16,
    pub code: Vec<Op>,
    /// Paragraph of each instruction (same length as `code`): the nearest anchor.
    pub paras: Vec<ParaId>,
    /// Source location of each instruction as `(file, start, end)` for error messages.
    pub spans: Vec<(u32, u32, u32)>,
    pub para: ParaId,
    /// Names of the parameters, in order (for the log: a lookup names the procedure's
    /// arguments). Empty for code compiled without them.
    #[serde(default)]
    pub param_names: Vec<String>,
    /// A modifier set's lines as the log shows them (None for other functions).
    #[serde(default)]
    pub modifiers: Option<ModSet>,
}

/// What the log says of a modifier set: its lines in order, and whether only the
/// largest applicable addition counts (`best;`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModSet {
    pub lines: Vec<ModLine>,
    pub best: bool,
}

/// One line of a modifier set as the log shows it: its paragraph and its effect as
/// written (`x2`, `x1/2`, `+1`, `-terrain_bonus`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModLine {
    pub para: ParaId,
    pub effect: String,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum FnKind {
    #[default]
    Fn,
    Procedure,
    Modifiers,
    Trigger,
}

/// Rule hooks that parameterise the built-in wargame primitives.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Hooks {
    /// `fn(Unit) -> Bool`: does this unit exert a zone of control?
    pub zoc: Option<FnId>,
    /// `fn(Unit) -> Int`: movement points available (in the rulebook's MP unit).
    pub move_allowance: Option<FnId>,
    /// `fn(Unit, Hex, Hex) -> Int`: cost to move between adjacent hexes, negative = prohibited.
    pub move_cost: Option<FnId>,
    /// `fn(Unit, Hex) -> Bool`: entering this hex ends the unit's movement.
    pub move_stop: Option<FnId>,
    /// `fn() -> Int`: no step costs less (lets the search skip hopeless steps; a cost
    /// below it is runtime error R0014).
    #[serde(default)]
    pub move_minimum: Option<FnId>,
    /// The `stop` hook is `fn(Unit, Hex, Hex) -> Bool`: it sees the step made (the hex
    /// left and the hex entered, so the hexside crossed), not only the hex entered.
    #[serde(default)]
    pub move_stop_crossing: bool,
    /// Declared movement modes (`movement road { ... }`), the default first (its hooks
    /// are also the `move_*` fields above); empty when only an unnamed block is declared.
    #[serde(default)]
    pub move_modes: Vec<MoveMode>,
    /// `fn(Unit, Hex, Hex) -> Bool`: may the retreating unit step between these hexes?
    pub retreat_enter: Option<FnId>,
    /// `fn(Unit, Hex) -> Bool`: may a retreat end in this hex (stacking)?
    pub retreat_end: Option<FnId>,
    /// Lexicographic preferences for retreat paths: `fn(Unit, Hex) -> Int`, greater is better.
    pub retreat_prefer: Vec<(PreferScope, FnId)>,
    /// `fn(Hex, Hex, Hex) -> Bool`: does hex `h` block LOS from `from` to `to`?
    pub los_hex: Option<FnId>,
    /// `fn(Hex, Hex, Hex, Hex) -> Bool`: does the hexside between the first two hexes
    /// block LOS from `from` to `to`?
    pub los_side: Option<FnId>,
    pub move_para: ParaId,
    pub retreat_para: ParaId,
    pub zoc_para: ParaId,
}

/// One movement mode: its code (of the results group `Mode`) and its hooks, with the
/// meanings of the `move_*` hooks of [`Hooks`].
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct MoveMode {
    pub sym: u16,
    pub allowance: Option<FnId>,
    pub cost: Option<FnId>,
    pub stop: Option<FnId>,
    pub stop_crossing: bool,
    pub minimum: Option<FnId>,
    pub para: ParaId,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum PreferScope {
    /// Scored on the hex where the retreat ends.
    End,
    /// Summed over every hex entered.
    Each,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TriggerDef {
    pub name: String,
    pub once: bool,
    /// Also checked after the effects of other triggers' bodies (a cascade), nested up
    /// to `MAX_CHAIN` deep.
    #[serde(default)]
    pub chained: bool,
    pub cond: FnId,
    pub body: FnId,
    pub para: ParaId,
}

/// A hidden per-unit track: while an agent of side S scores a choice, reading the track
/// of a unit of another side calls `shown(unit)` instead.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct HiddenDef {
    pub track: u16,
    pub shown: FnId,
    pub para: ParaId,
    /// `revealed by M`: a unit carrying marker `M` is not hidden.
    #[serde(default)]
    pub revealed_by: Option<u16>,
}

/// An interrupt: after a `move` takes a unit from one map hex to another (outside any
/// interrupt), if `cond(mover, from, to)` holds, `body(mover, from, to)` runs before the
/// mover's procedure goes on.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct InterruptDef {
    pub name: String,
    pub cond: FnId,
    pub body: FnId,
    pub para: ParaId,
}

/// A layer of rules (language.md 6.15e). A program is compiled for one set of layers in
/// play (`active`); an optional layer with declarations of its own must be compiled in
/// to be played.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct LayerInfo {
    pub name: String,
    pub title: String,
    pub optional: bool,
    pub active: bool,
    pub has_decls: bool,
    /// Declared with `layer` (not only an `option`).
    pub declared: bool,
}

/// Where an invariant is checked. A phase is named by its string id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum CheckAt {
    /// At the start of every phase of this name (`None`: every phase); `cond(side)`.
    BeforePhase(Option<u32>),
    /// At the end of every phase of this name (`None`: every phase); `cond(side)`.
    AfterPhase(Option<u32>),
    /// After every move of a unit between map hexes (a `move` or a retreat);
    /// `cond(unit, from, to)`.
    AfterMove,
    /// At the end of every turn; `cond()`.
    AfterTurn,
}

/// A rule's "must": `cond` (a pure fn over the check point's values) must hold at
/// every point `at` of a game. `witnesses`, when the condition is `all x in L where W:
/// C`, lists the `x` that break it (same parameters).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct InvariantDef {
    pub name: String,
    /// What the invariant says, in the encoder's words.
    pub text: String,
    pub at: CheckAt,
    pub cond: FnId,
    pub witnesses: Option<FnId>,
    /// Its anchors, first first.
    pub paras: Vec<ParaId>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct OptionDef {
    pub name: String,
    pub title: String,
    pub para: ParaId,
}

/// A deck of cards: its cards (result codes), their attributes and event procedures.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct DeckDef {
    pub name: String,
    pub cards: Vec<CardDef>,
    pub para: ParaId,
}

/// One card of a deck.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CardDef {
    /// The card's code (index into `symbols`).
    pub sym: u16,
    /// Per `Program::card_attrs`: the card's value (0 / false when it gives none).
    pub values: Vec<i64>,
    /// The procedure `(Side)` run when the card is played.
    pub event: Option<FnId>,
    /// The card's own paragraph (its anchor, else the deck's).
    pub para: ParaId,
}

/// A hand: one list of values per side.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct HandDef {
    pub name: String,
    pub para: ParaId,
}

/// A rating hidden from the other sides: in side S's view, reading it of a unit of
/// another side calls `shown(unit)` instead.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct HiddenRating {
    pub rating: u16,
    pub shown: FnId,
    pub para: ParaId,
    /// `revealed by M`: a unit carrying marker `M` is not hidden.
    #[serde(default)]
    pub revealed_by: Option<u16>,
}

/// Units' types hidden from the other sides: in side S's view, the type (and the
/// classes) of a unit of another side is `shown(unit)`'s.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct HiddenType {
    pub shown: FnId,
    pub para: ParaId,
    /// `revealed by M`: a unit carrying marker `M` is not hidden.
    #[serde(default)]
    pub revealed_by: Option<u16>,
}

impl Program {
    /// The deck and position of a card code, if it is one.
    pub fn card(&self, sym: u16) -> Option<(usize, usize)> {
        self.decks
            .iter()
            .enumerate()
            .find_map(|(d, deck)| deck.cards.iter().position(|c| c.sym == sym).map(|i| (d, i)))
    }
    /// The sequence-of-play code (`step_codes`) of a paragraph, if it has one.
    pub fn step_of(&self, para: ParaId) -> Option<&str> {
        self.para_step.get(para as usize).and_then(|&s| self.steps.get(s as usize)).map(String::as_str)
    }
    /// Does anything hide information from the other sides (agents' views)?
    pub fn has_views(&self) -> bool {
        !self.hidden.is_empty() || !self.hidden_ratings.is_empty() || self.hidden_type.is_some()
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CupDef {
    pub name: String,
    pub para: ParaId,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RulingDef {
    pub name: String,
    pub question: String,
    pub alternatives: Vec<(String, String)>,
    pub default: usize,
    pub paras: Vec<ParaId>,
}

/// The map: a rectangle of hexes in CCRR numbering with terrain and hexside features.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct MapDef {
    pub title: String,
    pub cols: u16,
    pub rows: u16,
    pub even_down: bool,
    /// Terrain index per hex (dense index `(col-1) * rows + (row-1)`).
    pub terrain: Vec<u16>,
    /// Feature bit mask per hex and direction: `sides[hex * 6 + dir]`.
    pub sides: Vec<u32>,
    pub regions: Vec<RegionDef>,
    /// Map edges units may leave by (bit 0 north, 1 east, 2 south, 3 west).
    pub exit_edges: u8,
    pub para: ParaId,
    /// An area map's areas, by name, in declaration order (the space index); empty on a
    /// hex map. On an area map `cols` is the number of areas and `rows` is 1, so the
    /// per-space tables have one entry per area.
    #[serde(default)]
    pub areas: Vec<String>,
    /// An area map's borders, as pairs of area indices (each once, lower index first).
    #[serde(default)]
    pub borders: Vec<(u32, u32)>,
    /// An area map's neighbour slots per area (the most borders of any area; at least
    /// 1): `sides` holds `areas.len() * degree` masks. 0 on a hex map (six hexsides).
    #[serde(default)]
    pub degree: u8,
    /// Names of the areas' own attributes (`value`, `capital`...), read as `h.value`.
    #[serde(default)]
    pub area_attrs: Vec<String>,
    /// Attribute values per space: `area_values[space * area_attrs.len() + attr]`.
    #[serde(default)]
    pub area_values: Vec<i64>,
    /// How printed hex ids are written (column or row first, numbering from 00 or 01).
    #[serde(default)]
    pub scheme: IdScheme,
}

/// The printed hex-id scheme of a hex map. The default is column-first, numbered from
/// 01 (`CCRR`, `0101` the north-west hex).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IdScheme {
    /// Row digits first (`RRCC`).
    #[serde(default)]
    pub row_first: bool,
    /// The printed number of the first (west) column: 0 or 1.
    #[serde(default = "one")]
    pub first_col: u16,
    /// The printed number of the first (north) row: 0 or 1.
    #[serde(default = "one")]
    pub first_row: u16,
}

fn one() -> u16 {
    1
}

impl Default for IdScheme {
    fn default() -> IdScheme {
        IdScheme { row_first: false, first_col: 1, first_row: 1 }
    }
}

impl MapDef {
    /// Whether the map is an area map (spaces are named areas, not hexes).
    pub fn is_areas(&self) -> bool {
        !self.areas.is_empty()
    }

    /// Neighbour slots per space: 6 on a hex map.
    pub fn degree(&self) -> usize {
        if self.is_areas() {
            usize::from(self.degree.max(1))
        } else {
            6
        }
    }

    /// Number of spaces (hexes or areas).
    pub fn space_count(&self) -> usize {
        self.cols as usize * self.rows as usize
    }

    /// The grid of a hex map (`None` on an area map or a map without a grid).
    pub fn grid(&self) -> Option<kriegsspiel_geo::Grid> {
        if self.is_areas() {
            return None;
        }
        let layout = if self.even_down {
            kriegsspiel_geo::Layout::EvenColumnsDown
        } else {
            kriegsspiel_geo::Layout::OddColumnsDown
        };
        kriegsspiel_geo::Grid::new(self.cols, self.rows, 1, 1, layout)
    }

    /// Number of borders: an area map's borders, a hex map's hexside numbers.
    pub fn border_count(&self) -> usize {
        match self.grid() {
            Some(g) => g.hexside_count() as usize,
            None => self.borders.len(),
        }
    }

    /// The number of the border between adjacent spaces `a` and `b` (either order).
    pub fn border_of(&self, a: u32, b: u32) -> Option<usize> {
        match self.grid() {
            Some(g) => {
                g.hexside_between(kriegsspiel_geo::Hex(a), kriegsspiel_geo::Hex(b)).map(|s| s.0 as usize)
            }
            None => self.borders.binary_search(&(a.min(b), a.max(b))).ok(),
        }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RegionDef {
    pub name: String,
    pub hexes: Vec<u32>,
}

/// One counter of the order of battle.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CounterDef {
    pub name: String,
    pub side: u8,
    pub unit_type: u16,
    /// `values[rating][step]`; `None` when the counter has no such rating.
    pub values: Vec<Option<Vec<i64>>>,
    pub steps: u8,
    /// `(face, rating, values per step)` printed on one face of the counter (6.4b),
    /// before the face's own ratings and the counter's.
    #[serde(default)]
    pub face_values: Vec<(u8, u16, Vec<i64>)>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ScenarioDef {
    pub id: String,
    pub title: String,
    /// The last turn (`turns N;`).
    pub turns: i64,
    /// The turn the scenario begins on (`start turn N;`): the sequence's `turns` loop
    /// counts from it.
    #[serde(default = "turn_one")]
    pub first_turn: i64,
    pub order: Vec<u8>,
    /// Start value per track slot (see `State::track_slot`).
    pub track_starts: Vec<(u16, Option<u8>, i64)>,
    pub flags: Vec<(u16, bool)>,
    pub placements: Vec<PlacementDef>,
    pub para: ParaId,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PlacementDef {
    pub counter: u16,
    pub hex: u32,
    /// `Some(t)`: enters as a reinforcement at the start of turn `t`.
    pub enters_turn: Option<i64>,
    /// `arrives turn N at HEX`: not placed at the start of turn N but listed by
    /// `arrivals(side)` from then on, for the rules to move on from the hex.
    #[serde(default)]
    pub arrives: bool,
    /// `facing N` (the `UnitState::facing` encoding).
    #[serde(default)]
    pub facing: u8,
    /// `in Column`: the face it starts in.
    #[serde(default)]
    pub face: u8,
}

fn turn_one() -> i64 {
    1
}

/// A datum that is not from the rulebook text, with the reason it was supplied.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SuppliedDef {
    pub what: String,
    pub reason: String,
    pub para: ParaId,
}

impl Program {
    /// Per option: is it an optional layer compiled into this program (so in play)?
    pub fn options_compiled_in(&self) -> Vec<bool> {
        self.options.iter().map(|o| self.layers.iter().any(|l| l.name == o.name && l.active)).collect()
    }

    pub fn para(&self, id: ParaId) -> &str {
        self.paragraphs.get(id as usize).map(|s| s.as_str()).unwrap_or("?")
    }
    pub fn string(&self, id: u32) -> &str {
        self.strings.get(id as usize).map(|s| s.as_str()).unwrap_or("?")
    }
    /// Does counter `u`'s unit type belong to class `class`? (False for an unknown
    /// counter or class.)
    /// `face` is the unit's current face (its classes when its type has faces).
    #[inline]
    pub fn unit_has_class(&self, u: u16, face: u8, class: u8) -> bool {
        let mask = self.unit_classes(u, face);
        class < 64 && mask & (1u64 << class) != 0
    }

    /// The classes of counter `u` showing face `face`.
    #[inline]
    pub fn unit_classes(&self, u: u16, face: u8) -> u64 {
        let t = self.counters.get(u as usize).map(|c| c.unit_type as usize).unwrap_or(0);
        match self.unit_types.get(t) {
            Some(ty) if ty.faces.is_empty() => ty.classes,
            Some(ty) => ty.faces.get(face as usize).map(|f| f.classes).unwrap_or(ty.classes),
            None => 0,
        }
    }

    pub fn rating_index(&self, name: &str) -> Option<usize> {
        self.ratings.iter().position(|r| r.name == name)
    }
    pub fn scenario(&self, id: &str) -> Option<usize> {
        self.scenarios.iter().position(|s| s.id == id)
    }
    /// Slots of tracks in the state: per-side tracks take one slot per side, per-unit
    /// tracks one per counter.
    pub fn track_slot(&self, track: u16, side: Option<u8>) -> Option<usize> {
        self.track_slot_at(track, side.map(|s| s as usize))
    }

    /// As `track_slot`, with the side or counter index.
    pub fn track_slot_at(&self, track: u16, index: Option<usize>) -> Option<usize> {
        let mut slot = 0usize;
        for (i, t) in self.tracks.iter().enumerate() {
            let width = self.track_width(t);
            if i == track as usize {
                let w2 = self.track_width2(t);
                return match (
                    t.per_side || t.per_unit || !t.per_group.is_empty() || t.key != SpaceKey::None,
                    index,
                ) {
                    (true, Some(x)) if x < self.track_width1(t) => Some(slot + x * w2),
                    (false, _) => Some(slot),
                    _ => None,
                };
            }
            slot += width;
        }
        None
    }

    /// The first slot of every track (the widths of the tracks before it), so that
    /// `track_slot_in` finds a slot without walking the tracks.
    pub fn track_bases(&self) -> Vec<usize> {
        let mut bases = Vec::with_capacity(self.tracks.len());
        let mut slot = 0usize;
        for t in &self.tracks {
            bases.push(slot);
            slot += self.track_width(t);
        }
        bases
    }

    /// As `track_slot_at`, with `bases` from `track_bases`.
    pub fn track_slot_in(&self, bases: &[usize], track: u16, index: Option<usize>) -> Option<usize> {
        let t = self.tracks.get(track as usize)?;
        let slot = *bases.get(track as usize)?;
        let w2 = self.track_width2(t);
        match (t.per_side || t.per_unit || !t.per_group.is_empty() || t.key != SpaceKey::None, index) {
            (true, Some(x)) if x < self.track_width1(t) => Some(slot + x * w2),
            (false, _) => Some(slot),
            _ => None,
        }
    }

    /// As `track_slot2`, with `bases` from `track_bases`.
    pub fn track_slot2_in(&self, bases: &[usize], track: u16, a: usize, b: usize) -> Option<usize> {
        let t = self.tracks.get(track as usize)?;
        if t.second.is_none() || b >= self.track_width2(t) {
            return None;
        }
        self.track_slot_in(bases, track, Some(a)).map(|first| first + b)
    }

    /// The width of a track's second key (1 without one).
    pub fn track_width2(&self, t: &TrackDef) -> usize {
        match &t.second {
            None => 1,
            Some(TrackKey::Side) => self.sides.len(),
            Some(TrackKey::Unit) => self.counters.len(),
            Some(TrackKey::Group(codes)) => codes.len(),
        }
    }

    /// The slot of a track with two keys, from the first and second key's indices.
    pub fn track_slot2(&self, track: u16, a: usize, b: usize) -> Option<usize> {
        let t = self.tracks.get(track as usize)?;
        let w2 = self.track_width2(t);
        if t.second.is_none() || b >= w2 {
            return None;
        }
        self.track_slot_at(track, Some(a)).map(|first| first + b)
    }

    /// Slots a track takes: one per key, or per pair of keys.
    pub fn track_width(&self, t: &TrackDef) -> usize {
        self.track_width1(t) * self.track_width2(t)
    }

    /// The width of a track's first key (1 for a plain track).
    pub fn track_width1(&self, t: &TrackDef) -> usize {
        if t.key == SpaceKey::Space {
            self.map.space_count()
        } else if t.key == SpaceKey::Border {
            self.map.border_count()
        } else if t.per_unit {
            self.counters.len()
        } else if !t.per_group.is_empty() {
            t.per_group.len()
        } else if t.per_side {
            self.sides.len()
        } else {
            1
        }
    }

    pub fn track_slots(&self) -> usize {
        self.tracks.iter().map(|t| self.track_width(t)).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn odds_table(beyond: Beyond) -> TableDef {
        TableDef {
            name: "T".into(),
            para: 0,
            columns: vec![(i64::MIN, i64::MAX); 4],
            rows: vec![(1, 6)],
            cells: vec![Value::Int(0); 4],
            beyond_rows: Beyond::Clamp,
            beyond_columns: beyond,
            odds: vec![(1, 2), (1, 1), (2, 1), (3, 1)],
        }
    }

    #[test]
    fn odds_round_in_the_defenders_favour() {
        let t = odds_table(Beyond::Clamp);
        assert_eq!(t.odds_column(5, 2), Some(2)); // 2.5:1 reads 2:1
        assert_eq!(t.odds_column(2, 1), Some(2)); // exactly 2:1
        assert_eq!(t.odds_column(5, 3), Some(1)); // 1.67:1 reads 1:1
        assert_eq!(t.odds_column(1, 2), Some(0)); // exactly 1:2
        assert_eq!(t.odds_column(1, 3), Some(0)); // below the first column: clamped
        assert_eq!(t.odds_column(9, 1), Some(3)); // above the last column
        assert_eq!(t.odds_column(4, 0), Some(3)); // no defence
        assert_eq!(odds_table(Beyond::Error).odds_column(1, 3), None);
    }
}
