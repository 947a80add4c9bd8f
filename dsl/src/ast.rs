//! The spanned abstract syntax tree of the rules language.
//!
//! This is the contract between the parser (`lower.rs`, the only place that sees
//! pest) and the compiler. Every node that can be the subject of a diagnostic carries
//! a [`Span`]; every declaration carries the paragraph anchors it encodes.

use serde::Serialize;

/// Index of a source file in the [`crate::SourceMap`].
pub type FileId = u32;

/// A byte range in one source file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Default)]
pub struct Span {
    pub file: FileId,
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(file: FileId, start: usize, end: usize) -> Span {
        Span { file, start: start as u32, end: end as u32 }
    }
    /// The smallest span covering both (same file assumed; `self` wins otherwise).
    pub fn to(self, other: Span) -> Span {
        if self.file != other.file {
            return self;
        }
        Span { file: self.file, start: self.start.min(other.start), end: self.end.max(other.end) }
    }
}

/// A name with its location.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

/// A paragraph anchor as written: `§7.1.2`, `§7.1.2.B`, `§Rule 11.F`, `§Exclusive[12.]`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Anchor {
    /// The text after `§`, normalised (single spaces).
    pub text: String,
    pub span: Span,
}

/// A whole compilation unit: all files of one rulebook directory.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Rulebook {
    pub headers: Vec<Header>,
    pub contents: Vec<ContentsEntry>,
    /// `step_codes { ... }`: the sequence-of-play codes and the paragraphs each heads.
    pub steps: Vec<StepEntry>,
    pub decls: Vec<Decl>,
}

/// `"III.b" "Combat" { §S[146.] ... }`: a sequence-of-play code over its paragraphs.
#[derive(Clone, Debug, Serialize)]
pub struct StepEntry {
    pub code: String,
    pub title: Option<String>,
    pub paragraphs: Vec<Anchor>,
    pub span: Span,
}

#[derive(Clone, Debug, Serialize)]
pub struct Header {
    pub title: String,
    pub numbering: Vec<Ident>,
    pub dice: Option<Dice>,
    /// `parts Standard, Exclusive;`: paragraph namespaces that restart their numbers.
    pub parts: Vec<Ident>,
    /// `dice d10 faces 0..9;`: the numbers on the rulebook's die, lowest and highest.
    pub faces: Option<IntRange>,
    /// `external KRO "title";`: books the text cites without containing them.
    pub externals: Vec<(Ident, String)>,
    /// `allow W0008 "reason";`: warnings the rulebook accepts, each with its reason.
    pub allows: Vec<(Ident, String)>,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Dice {
    pub count: u32,
    pub sides: u32,
    pub span: Span,
}

#[derive(Clone, Debug, Serialize)]
pub struct ContentsEntry {
    pub anchor: Anchor,
    pub title: String,
    pub waived: Option<String>,
    pub span: Span,
}

/// A declaration with the anchors it encodes (at least one).
#[derive(Clone, Debug, Serialize)]
pub struct Decl {
    pub anchors: Vec<Anchor>,
    pub kind: DeclKind,
    pub span: Span,
    /// The layer of its file (`in layer NAME;` above it), if any: else the base layer.
    pub layer: Option<Ident>,
    /// `replaces` / `amends` written before the declaration, with the keyword's span.
    pub supersede: Option<(Supersede, Span)>,
}

/// What a declaration of a higher layer does to the lower one of the same name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Supersede {
    Replaces,
    Amends,
}

/// Where an invariant is checked, with the names it binds.
#[derive(Clone, Debug, Serialize)]
pub enum CheckPoint {
    /// `after phase P(s)` / `before phase P(s)`; `phase` is `None` for `any phase`.
    Phase { after: bool, phase: Option<Ident>, side: Ident },
    /// `after move(u, from, to)`.
    Move { unit: Ident, from: Ident, to: Ident },
    /// `after turn`.
    Turn,
}

/// One player count of a `players` declaration.
#[derive(Clone, Debug, Serialize)]
pub struct PlayerCount {
    pub count: i64,
    pub span: Span,
    /// The sides of each player, in player order.
    pub players: Vec<Vec<Ident>>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Supplied {
    pub reason: String,
    pub span: Span,
}

/// What a track's slots hold.
#[derive(Clone, Debug, Serialize)]
pub enum TrackValues {
    /// `0..100`: numbers, clamped into the range.
    Range(IntRange),
    /// `Unit`, `Hex`, `Side` or a results group: a reference or nothing.
    Holds(Ident),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct IntRange {
    pub lo: i64,
    pub hi: i64,
    pub span: Span,
}

#[derive(Clone, Debug, Serialize)]
pub enum DeclKind {
    Sides(Vec<Ident>),
    /// `players { 2 { [A, B] [C, D] } 4 { [A] [B] [C] [D] } }`: per player count offered,
    /// the sides each player runs (a player is named by its first side).
    Players(Vec<PlayerCount>),
    /// `teams { Allied { A, B } }`: loose teams of sides.
    Teams(Vec<(Ident, Vec<Ident>)>),
    /// `control Power by controller;`: the side controlling each code of a `results`
    /// group is computed by a `fn (Group) -> Side` and watched for changes.
    Control {
        group: Ident,
        func: Ident,
    },
    Rating {
        name: Ident,
        range: IntRange,
        doc: Option<String>,
    },
    Classes(Vec<Ident>),
    Unit {
        name: Ident,
        classes: Vec<Ident>,
        steps: Option<(i64, Span)>,
    },
    Marker {
        name: Ident,
        target: MarkerTarget,
    },
    Track {
        name: Ident,
        per_side: bool,
        /// `per unit`: one value per counter (supply held by a leader...).
        per_unit: bool,
        /// `per Country`: one value per code of a `results` group.
        per_group: Option<Ident>,
        /// A second key (`track crossed per side per Border`): one value per pair.
        second: Option<TrackKey>,
        /// What each slot holds: a number in a range, or a reference (`: Unit`).
        values: TrackValues,
    },
    Terrain {
        name: Ident,
        supplied: Option<Supplied>,
        attrs: Vec<Attr>,
    },
    Hexside {
        name: Ident,
        supplied: Option<Supplied>,
        attrs: Vec<Attr>,
    },
    Results {
        name: Ident,
        codes: Vec<Ident>,
    },
    Table(Table),
    Modifiers(Modifiers),
    Fn {
        name: Ident,
        params: Vec<Param>,
        ret: TypeExpr,
        body: Expr,
    },
    Procedure {
        name: Ident,
        params: Vec<Param>,
        /// `-> Int`: the procedure returns a value (`return e;`) and is called in expressions.
        ret: Option<TypeExpr>,
        body: Block,
    },
    Movement(Vec<Hook>),
    /// `movement road { ... }`: a named movement mode, with hooks of its own (the unnamed
    /// `movement` block is the mode `normal`).
    MovementMode(Ident, Vec<Hook>),
    Retreat(Vec<Hook>),
    /// `line_of_sight { hex: f; hexside: g; }`: what blocks LOS.
    LineOfSight(Vec<Hook>),
    /// `cup Commands: Chit`: a cup of values drawn without replacement.
    Cup {
        name: Ident,
        ty: TypeExpr,
    },
    /// `deck Strategy { Muster { ops: 2 } event muster; }`: a deck of declared cards, the
    /// values of type `Strategy`.
    Deck {
        name: Ident,
        supplied: Option<Supplied>,
        cards: Vec<Card>,
    },
    /// `hand Hand: Strategy;`: a list of values per side, read `Hand[s]`.
    Hand {
        name: Ident,
        ty: TypeExpr,
    },
    /// `option surprise "The Russians Surprised"`: an optional rule, off unless a run
    /// switches it on (`--option surprise`); rules test it with `optional(surprise)`.
    OptionRule {
        name: Ident,
        title: String,
    },
    ZoneOfControl(Ident),
    Trigger {
        name: Ident,
        once: bool,
        /// `chained`: checked also after effects inside other triggers' bodies.
        chained: bool,
        when: Expr,
        body: Block,
    },
    /// `interrupt reaction(mover: Unit, from: Hex, dest: Hex) when COND { ... }`: runs
    /// after a unit moves from one map hex to another, before the mover goes on.
    Interrupt {
        name: Ident,
        params: Vec<Param>,
        when: Expr,
        body: Block,
    },
    /// `layer campaign "Campaign rules" above battle optional;`: a layer of rules over
    /// lower ones (the base layer, `base`, holds every declaration outside a layer).
    Layer {
        name: Ident,
        title: String,
        above: Vec<Ident>,
        optional: bool,
    },
    /// `waives §S[59.] "reason";`: those paragraphs of a lower layer have no effect once
    /// this declaration's layer is in play.
    Waives {
        targets: Vec<Anchor>,
        reason: String,
    },
    /// `invariant NAME "text" after phase Combat(s): COND;`: a rule's "must", checked by
    /// the VM at the point named.
    Invariant {
        name: Ident,
        text: String,
        point: CheckPoint,
        cond: Expr,
    },
    /// `hidden sp, supply shown estimate`: per-unit tracks a side does not see of the
    /// other sides' units; agents' `prefer` scores read `estimate(unit)` instead.
    Hidden {
        tracks: Vec<Ident>,
        shown: Ident,
        /// `revealed by M`: a unit carrying marker `M` is not hidden.
        revealed_by: Option<Ident>,
    },
    /// `score f;`: the rulebook's position score, a pure `fn(Side) -> Int` by which the
    /// search agent scores a playout stopped at its horizon.
    Score {
        func: Ident,
    },
    Sequence(Block),
    /// `formations Dragoons { Mounted; Dismounted: combat, infantry { ma: 5 }; Mounted <-> Dismounted; }`.
    Formations {
        unit: Ident,
        faces: Vec<Face>,
        changes: Vec<FaceChange>,
    },
    Ruling(Ruling),
    /// `finding KIND "what" [ruling NAME];`: a fault of the rules text met while encoding.
    Finding {
        kind: Ident,
        description: String,
        ruling: Option<Ident>,
    },
    Map(Map),
    Counters {
        supplied: Option<Supplied>,
        counters: Vec<Counter>,
    },
    Scenario(Scenario),
    Example(Example),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum MarkerTarget {
    Unit,
    Hex,
    Side,
}

#[derive(Clone, Debug, Serialize)]
pub struct Attr {
    pub name: Ident,
    pub value: Literal,
}

/// A card of a `deck`: `§3.1 Muster { ops: 2 } event muster;`.
#[derive(Clone, Debug, Serialize)]
pub struct Card {
    pub anchors: Vec<Anchor>,
    pub name: Ident,
    pub attrs: Vec<Attr>,
    /// The procedure run when the card is played (`procedure muster(s: Side)`).
    pub event: Option<Ident>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum LiteralKind {
    Int(i64),
    Ratio(i64, i64),
    Bool(bool),
    Str(String),
    Name(String),
}

#[derive(Clone, Debug, Serialize)]
pub struct Literal {
    pub kind: LiteralKind,
    pub span: Span,
}

// ------------------------------------------------------------------ tables

#[derive(Clone, Debug, Serialize)]
pub struct Table {
    pub name: Ident,
    pub supplied: Option<Supplied>,
    pub roll: Option<Dice>,
    /// The result type (a `results` declaration) of the cells; `None` for Int cells.
    pub result: Option<Ident>,
    pub columns: Option<Columns>,
    pub beyond_rows: Option<(Beyond, Span)>,
    pub beyond_columns: Option<(Beyond, Span)>,
    pub rows: Vec<TableRow>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Beyond {
    Clamp,
    Error,
}

#[derive(Clone, Debug, Serialize)]
pub struct Columns {
    pub key: Ident,
    /// Value ranges (differentials, ratings); empty for odds columns.
    pub ranges: Vec<OpenRange>,
    /// Odds-ratio thresholds `attacker:defender` (`1:2 | 1:1 | 2:1`); empty for ranges.
    /// A column covers ratios at or above its threshold and below the next one.
    pub odds: Vec<(i64, i64, Span)>,
    pub span: Span,
}

/// `lo..hi`, `..hi`, `lo..` or a single value; bounds inclusive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct OpenRange {
    pub lo: Option<i64>,
    pub hi: Option<i64>,
    pub span: Span,
}

#[derive(Clone, Debug, Serialize)]
pub struct TableRow {
    pub lo: i64,
    pub hi: i64,
    pub key_span: Span,
    pub cells: Vec<Cell>,
    pub span: Span,
}

#[derive(Clone, Debug, Serialize)]
pub enum Cell {
    Code(Ident),
    Int(i64, Span),
}

impl Cell {
    pub fn span(&self) -> Span {
        match self {
            Cell::Code(i) => i.span,
            Cell::Int(_, s) => *s,
        }
    }
}

// ------------------------------------------------------------------ modifiers

#[derive(Clone, Debug, Serialize)]
pub struct Modifiers {
    pub name: Ident,
    pub params: Vec<Param>,
    pub lines: Vec<ModifierLine>,
    pub round: Option<(RoundDir, Span)>,
    pub cap: Option<IntRange>,
    pub best_only: bool,
}

#[derive(Clone, Debug, Serialize)]
pub struct ModifierLine {
    pub anchor: Option<Anchor>,
    /// Further anchors (`§7.2 §7.3 +1 when ...`): paragraphs the line also encodes.
    pub also: Vec<Anchor>,
    pub effect: ModEffect,
    pub when: Expr,
    pub span: Span,
}

#[derive(Clone, Debug, Serialize)]
pub enum ModEffect {
    /// `+2`, `-1`, or `+lr` (a parameter or rating name evaluated at run time).
    Add { negative: bool, amount: AddAmount },
    /// `x2`, `x1/2`.
    Mul { num: i64, den: i64 },
}

#[derive(Clone, Debug, Serialize)]
pub enum AddAmount {
    Int(i64),
    Name(Ident),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum RoundDir {
    Up,
    Down,
}

// ------------------------------------------------------------------ functions

#[derive(Clone, Debug, Serialize)]
pub struct Param {
    pub name: Ident,
    pub ty: TypeExpr,
}

#[derive(Clone, Debug, Serialize)]
pub enum TypeExpr {
    Named(Ident),
    List(Box<TypeExpr>, Span),
}

impl TypeExpr {
    pub fn span(&self) -> Span {
        match self {
            TypeExpr::Named(i) => i.span,
            TypeExpr::List(_, s) => *s,
        }
    }
}

/// `name: fn_name;` or `name: [end f, each g];` inside `movement` / `retreat`.
#[derive(Clone, Debug, Serialize)]
pub struct Hook {
    pub name: Ident,
    pub value: HookValue,
}

#[derive(Clone, Debug, Serialize)]
pub enum HookValue {
    Fn(Ident),
    List(Vec<(Option<HookScope>, Ident)>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum HookScope {
    End,
    Each,
}

#[derive(Clone, Debug, Serialize)]
pub struct Ruling {
    pub name: Ident,
    pub question: String,
    pub alternatives: Vec<RulingAlt>,
}

#[derive(Clone, Debug, Serialize)]
pub struct RulingAlt {
    pub is_default: bool,
    pub name: Ident,
    pub reading: String,
}

// ------------------------------------------------------------------ map, counters, scenarios

#[derive(Clone, Debug, Serialize)]
pub struct Map {
    pub title: String,
    pub supplied: Option<Supplied>,
    pub grid: Option<Grid>,
    pub default_terrain: Option<Ident>,
    pub terrain: Vec<(Ident, Vec<HexItem>)>,
    pub hexsides: Vec<(Ident, Vec<SideItem>)>,
    pub regions: Vec<(Ident, Vec<HexItem>)>,
    pub exit_edges: Vec<Ident>,
    /// `ids RRCC columns from 0 rows from 1;`: the printed hex-id scheme.
    pub ids: Option<IdsClause>,
    /// `areas { ... }`: the areas of an area map, in order (several blocks concatenate).
    pub areas: Vec<AreaDecl>,
    /// `borders { ... }`: the borders of an area map.
    pub borders: Vec<BorderDecl>,
    pub span: Span,
}

/// `ids CCRR|RRCC [columns from N] [rows from N];`
#[derive(Clone, Copy, Debug, Serialize)]
pub struct IdsClause {
    pub row_first: bool,
    pub first_col: Option<i64>,
    pub first_row: Option<i64>,
    pub span: Span,
}

/// One area of an area map: name, terrain (else the map's default) and attributes.
#[derive(Clone, Debug, Serialize)]
pub struct AreaDecl {
    pub name: Ident,
    pub terrain: Option<Ident>,
    pub attrs: Vec<Attr>,
    pub span: Span,
}

/// Borders between areas (a pair `A|B` or a `path(A B C)`), with their kinds
/// (hexside features).
#[derive(Clone, Debug, Serialize)]
pub struct BorderDecl {
    pub item: SideItem,
    pub kinds: Vec<Ident>,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, Serialize)]
pub struct Grid {
    pub cols: i64,
    pub rows: i64,
    pub even_down: bool,
    pub span: Span,
}

/// A hex id as written on the map (`0412`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HexLit {
    pub text: String,
    pub span: Span,
}

#[derive(Clone, Debug, Serialize)]
pub enum HexItem {
    One(HexLit),
    /// Every hex whose column and row lie between the two corners.
    Rect(HexLit, HexLit),
}

#[derive(Clone, Debug, Serialize)]
pub enum SideItem {
    Pair(HexLit, HexLit),
    Path(Vec<HexLit>),
}

#[derive(Clone, Debug, Serialize)]
pub struct Counter {
    pub side: Ident,
    pub name: String,
    pub name_span: Span,
    pub unit_type: Ident,
    /// Rating values; several values are per step, strongest first.
    pub values: Vec<(Ident, Vec<i64>)>,
    /// `Column { ma: 6 }`: values printed on one face of the counter (`formations`).
    pub face_values: Vec<(Ident, Vec<(Ident, Vec<i64>)>)>,
    pub span: Span,
}

#[derive(Clone, Debug, Serialize)]
pub struct Scenario {
    pub id: String,
    pub title: String,
    pub turns: Option<(i64, Span)>,
    /// `start turn N;`: the turn the scenario begins on (1 when absent).
    pub first_turn: Option<(i64, Span)>,
    pub order: Vec<Ident>,
    pub track_starts: Vec<TrackStart>,
    pub flags: Vec<(Ident, bool)>,
    pub setups: Vec<Setup>,
    pub span: Span,
}

#[derive(Clone, Debug, Serialize)]
pub struct TrackStart {
    pub track: Ident,
    pub values: Vec<(Ident, i64)>,
    pub span: Span,
}

#[derive(Clone, Debug, Serialize)]
pub struct Setup {
    pub anchor: Option<Anchor>,
    pub side: Ident,
    pub supplied: Option<Supplied>,
    pub placements: Vec<Placement>,
    pub span: Span,
}

#[derive(Clone, Debug, Serialize)]
pub struct Placement {
    pub unit: String,
    pub unit_span: Span,
    pub hex: HexLit,
    /// `enters turn N at HEX`: a reinforcement.
    pub enters_turn: Option<i64>,
    /// Where the entry turn is written.
    pub enters_span: Option<Span>,
    /// `arrives turn N at HEX`: due on turn N at the hex, brought on by the rules' move.
    pub arrives: bool,
    /// `facing 2`, `facing vertex 2`, `in Column`.
    pub start: UnitStart,
}

/// How a placed unit starts: its facing and face.
#[derive(Clone, Debug, Default, Serialize)]
pub struct UnitStart {
    /// `facing [vertex] N`: the number, whether a vertex, and where it is written.
    pub facing: Option<(i64, bool, Span)>,
    /// `in Column`.
    pub face: Option<Ident>,
}

/// One face of a unit type's counters (`formations`).
#[derive(Clone, Debug, Serialize)]
pub struct Face {
    pub anchors: Vec<Anchor>,
    pub name: Ident,
    /// `: combat, infantry`: the classes while showing this face (the type's if absent).
    pub classes: Option<Vec<Ident>>,
    /// `{ ma: 5 }`: ratings instead of the counter's (several values: per step).
    pub ratings: Vec<(Ident, Vec<i64>)>,
    pub span: Span,
}

/// `A -> B;` (or `A <-> B;`, both ways): a change of face allowed.
#[derive(Clone, Debug, Serialize)]
pub struct FaceChange {
    pub anchors: Vec<Anchor>,
    pub from: Ident,
    pub to: Ident,
    pub both: bool,
    pub span: Span,
}

#[derive(Clone, Debug, Serialize)]
pub struct Example {
    pub title: String,
    pub items: Vec<ExampleItem>,
}

#[derive(Clone, Debug, Serialize)]
pub enum ExampleItem {
    Scenario(String, Span),
    Place { unit: String, hex: HexLit, span: Span, start: UnitStart },
    Dice(Vec<i64>, Span),
    Run { procedure: Ident, args: Vec<Expr>, span: Span },
    Expect(Expr),
}

// ------------------------------------------------------------------ statements

#[derive(Clone, Debug, Serialize)]
pub struct Block {
    pub stmts: Vec<Stmt>,
    pub span: Span,
}

#[derive(Clone, Debug, Serialize)]
pub struct Stmt {
    pub anchor: Option<Anchor>,
    /// Further anchors of the statement: paragraphs it also encodes (its events carry
    /// the first anchor's paragraph).
    pub also: Vec<Anchor>,
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(Clone, Debug, Serialize)]
pub enum StmtKind {
    /// `sealed { let x = choose ...; ... }`: choices made at once, none seeing another.
    Sealed(Block),
    Let {
        name: Ident,
        value: Expr,
    },
    Set {
        name: Ident,
        value: Expr,
    },
    /// `clear t;` / `clear t[k];`: a track holding references emptied.
    /// `reveal x by S "what";`: a `secret` choice of side `S` made public (logged).
    Reveal {
        value: Expr,
        by: Expr,
        what: String,
    },
    ClearTrack {
        track: Ident,
        index: Vec<Expr>,
    },
    /// `set t[k] = e;` / `set t[a, b] = e;`: a keyed track set to a value.
    SetTrack {
        track: Ident,
        index: Vec<Expr>,
        value: Expr,
    },
    If {
        cond: Expr,
        then: Block,
        els: Option<Block>,
    },
    For {
        var: Ident,
        iter: Expr,
        body: Block,
    },
    While {
        cond: Expr,
        body: Block,
    },
    Turns {
        count: Expr,
        body: Block,
    },
    Phase {
        name: Ident,
        side: Expr,
        body: Block,
    },
    Call {
        name: Ident,
        args: Vec<Expr>,
    },
    /// `return;` or, in a procedure with a result type, `return e;`.
    Return(Option<Expr>),
    /// `break;`: leave the innermost `while`, `for` or `turns` loop.
    Break,
    Move {
        unit: Expr,
        to: Expr,
    },
    Eliminate(Expr),
    Remove(Expr),
    LoseStep(Expr),
    /// `regain_step u;`: the unit goes back up one step (no effect at full strength).
    RegainStep(Expr),
    Mark {
        target: Expr,
        marker: Ident,
    },
    Unmark {
        target: Expr,
        marker: Ident,
    },
    Adjust {
        track: Ident,
        index: Option<Expr>,
        /// The second key of a track with two keys (`adjust t[a, b] by n;`).
        index2: Option<Expr>,
        by: Expr,
    },
    Retreat {
        unit: Expr,
        hexes: Expr,
        /// `retreat u by n to h;`: the retreat ends in this hex (the owner's choice).
        to: Option<Expr>,
    },
    Win {
        side: Expr,
        reason: String,
    },
    Draw {
        reason: String,
    },
    Log {
        message: String,
        args: Vec<Expr>,
    },
    /// `put x in Cup;`
    Put {
        value: Expr,
        cup: Ident,
    },
    /// `empty Cup;`
    Empty(Ident),
    /// `draw from Deck to Hand[s];`
    DrawCard {
        deck: Ident,
        hand: Ident,
        side: Expr,
    },
    /// `discard c from Hand[s];` (`play: false`) or `play c from Hand[s];` (`play: true`).
    CardOut {
        card: Expr,
        hand: Ident,
        side: Expr,
        play: bool,
    },
    /// `reshuffle Deck;`
    Reshuffle(Ident),
    /// `transfer u to s;`
    Transfer {
        unit: Expr,
        side: Expr,
    },
    /// `face u to d;` / `face u to vertex d;`
    Face {
        unit: Expr,
        dir: Expr,
        vertex: bool,
    },
    /// `form u Column;` (the formation is a name: a formation or a local holding one).
    Form {
        unit: Expr,
        formation: Expr,
    },
}

// ------------------------------------------------------------------ expressions

#[derive(Clone, Debug, Serialize)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Quant {
    Sum,
    Count,
    Any,
    All,
    Min,
    Max,
    Filter,
    /// `map x in list: expr`: the list of the body's values.
    Map,
    /// `argmax x in list: expr`: the element whose body is greatest (the first such in
    /// list order); nothing for an empty list. `argmin` likewise the least.
    ArgMax,
    ArgMin,
}

#[derive(Clone, Debug, Serialize)]
pub enum ExprKind {
    Int(i64),
    Bool(bool),
    Str(String),
    /// `@0412`
    Hex(String),
    Name(String),
    Neg(Box<Expr>),
    Not(Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    If(Box<Expr>, Box<Expr>, Box<Expr>),
    Call(Ident, Vec<Expr>),
    Field(Box<Expr>, Ident),
    /// `t[a]` or `t[a, b]`: table lookup or per-side track read.
    Index(Box<Expr>, Box<Expr>, Option<Box<Expr>>),
    Is(Box<Expr>, Ident),
    Has(Box<Expr>, Ident),
    Roll(Dice),
    /// `roll n d6`: `n` dice thrown at once, each die's value in a `List<Int>`.
    RollPool {
        count: Box<Expr>,
        sides: u32,
    },
    /// `let x = e; body` (from a `fn` body block): `x` is bound in `body`.
    Let {
        name: Ident,
        value: Box<Expr>,
        body: Box<Expr>,
    },
    /// `draw from Cup`: a random value taken out of the cup (nothing if it is empty).
    DrawFrom(Ident),
    Choose {
        var: Ident,
        from: Box<Expr>,
        by: Box<Expr>,
        prefer: Option<Box<Expr>>,
        or_none: bool,
        /// `or none prefer S`: the score of declining (0 when absent).
        none_score: Option<Box<Expr>>,
        /// `secret`: kept from the other sides' views until a `reveal`.
        secret: bool,
        /// `private`: kept from the other sides' views for good (never revealed).
        private: bool,
        what: String,
    },
    Quant {
        q: Quant,
        var: Ident,
        iter: Box<Expr>,
        filter: Option<Box<Expr>>,
        body: Option<Box<Expr>>,
    },
    List(Vec<Expr>),
}

/// A key of a track (`per side`, `per unit`, `per Country`).
#[derive(Clone, Debug, Serialize)]
pub enum TrackKey {
    Side,
    Unit,
    Group(Ident),
}
