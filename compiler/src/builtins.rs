//! Signatures of the runtime's built-in primitives, as the type checker sees them.

use crate::types::{Iv, Ty, BIG};
use kriegsspiel_runtime::op::Builtin;

/// A parameter of a built-in.
#[derive(Clone, Debug)]
pub enum P {
    T(Ty),
    /// Any list.
    AnyList,
    /// The list's element type (second argument of `contains`).
    Elem,
    /// Any value.
    Any,
    /// A map region name.
    Region,
    /// A hexside feature name.
    Feature,
    /// A hexside attribute name.
    HexsideAttr,
    /// A scenario flag name.
    Flag,
    /// A ruling name followed by one of its alternatives.
    Ruling,
    Alt,
    /// A table name.
    Table,
    /// A cup name.
    Cup,
    /// A deck name.
    Deck,
    /// An optional rule's name.
    OptionRule,
    /// The name of a `fn (Unit, Hex, Hex) -> Int` (a step cost).
    StepFn,
    /// A formation (a code of the `Formation` group of `formations` declarations).
    Formation,
}

pub struct BSig {
    pub name: &'static str,
    pub b: Builtin,
    pub params: Vec<P>,
    pub ret: Ty,
    /// Changes the game (not allowed in `fn`).
    pub effect: bool,
    pub iv: Iv,
    pub doc: &'static str,
}

pub fn signatures() -> Vec<BSig> {
    use P::*;
    let s = |name, b, params, ret, effect, doc| BSig { name, b, params, ret, effect, iv: Iv::ANY, doc };
    let mut v = vec![
        s(
            "units",
            Builtin::Units,
            vec![T(Ty::Side)],
            Ty::list(Ty::Unit),
            false,
            "the side's units on the map",
        ),
        s("units_at", Builtin::UnitsAt, vec![T(Ty::Hex)], Ty::list(Ty::Unit), false, "units in a hex"),
        s(
            "adjacent_units",
            Builtin::AdjacentUnits,
            vec![T(Ty::Hex), T(Ty::Side)],
            Ty::list(Ty::Unit),
            false,
            "the side's units next to a hex",
        ),
        s(
            "neighbours",
            Builtin::Neighbours,
            vec![T(Ty::Hex)],
            Ty::list(Ty::Hex),
            false,
            "the hexes around a hex",
        ),
        s(
            "distance",
            Builtin::Distance,
            vec![T(Ty::Hex), T(Ty::Hex)],
            Ty::Int,
            false,
            "hexes between two hexes",
        ),
        s("other", Builtin::Other, vec![T(Ty::Side)], Ty::Side, false, "the opposing side"),
        s("player_count", Builtin::PlayerCount, vec![], Ty::Int, false, "the number of players in this game"),
        s(
            "player",
            Builtin::PlayerOf,
            vec![T(Ty::Side)],
            Ty::Int,
            false,
            "the number (1, 2, ...) of the player running the side",
        ),
        s(
            "teammates",
            Builtin::Teammates,
            vec![T(Ty::Side), T(Ty::Side)],
            Ty::Bool,
            false,
            "the two sides are one side, on one team, or run by one player",
        ),
        s("sides", Builtin::Sides, vec![], Ty::list(Ty::Side), false, "every side, in player order"),
        s(
            "others",
            Builtin::Others,
            vec![T(Ty::Side)],
            Ty::list(Ty::Side),
            false,
            "every other side, in player order",
        ),
        s(
            "team",
            Builtin::Team,
            vec![T(Ty::Side)],
            Ty::list(Ty::Side),
            false,
            "the sides of the side's team, in player order (the side alone if it is on none)",
        ),
        s(
            "player_sides",
            Builtin::PlayerSides,
            vec![T(Ty::Side)],
            Ty::list(Ty::Side),
            false,
            "the sides run by the player running the side",
        ),
        s("len", Builtin::Len, vec![AnyList], Ty::Int, false, "number of elements"),
        s("contains", Builtin::Contains, vec![AnyList, Elem], Ty::Bool, false, "list membership"),
        s(
            "union",
            Builtin::Union,
            vec![AnyList, AnyList],
            Ty::Error,
            false,
            "the elements of both lists, each once, in order of first appearance",
        ),
        s(
            "first",
            Builtin::First,
            vec![AnyList],
            Ty::Error,
            false,
            "the first element of a list; nothing for an empty list (test with present)",
        ),
        s(
            "reachable",
            Builtin::Reachable,
            vec![T(Ty::Unit)],
            Ty::list(Ty::Hex),
            false,
            "hexes the unit can reach by the movement hooks",
        ),
        s(
            "in_ezoc",
            Builtin::InEzoc,
            vec![T(Ty::Hex), T(Ty::Side)],
            Ty::Bool,
            false,
            "hex in an enemy zone of control",
        ),
        s(
            "enemy_distance",
            Builtin::EnemyDistance,
            vec![T(Ty::Hex), T(Ty::Side)],
            Ty::Int,
            false,
            "distance to the nearest enemy unit",
        ),
        s(
            "occupied_by",
            Builtin::OccupiedBy,
            vec![T(Ty::Hex), T(Ty::Side)],
            Ty::Bool,
            false,
            "any unit of the side in the hex",
        ),
        s(
            "in_region",
            Builtin::InRegion,
            vec![T(Ty::Hex), Region],
            Ty::Bool,
            false,
            "hex belongs to a map region",
        ),
        s("region_hexes", Builtin::RegionHexes, vec![Region], Ty::list(Ty::Hex), false, "a region's hexes"),
        s(
            "crosses",
            Builtin::Crosses,
            vec![T(Ty::Hex), T(Ty::Hex), Feature],
            Ty::Bool,
            false,
            "the shared hexside carries a feature",
        ),
        s(
            "hexside_sum",
            Builtin::HexsideSum,
            vec![T(Ty::Hex), T(Ty::Hex), HexsideAttr],
            Ty::Int,
            false,
            "sum of an attribute over the hexside's features",
        ),
        s("turn", Builtin::Turn, vec![], Ty::Int, false, "current game turn"),
        s("phasing", Builtin::Phasing, vec![], Ty::Side, false, "the phasing side"),
        s("scenario_turns", Builtin::ScenarioTurns, vec![], Ty::Int, false, "the scenario's last turn"),
        s("first_turn", Builtin::FirstTurn, vec![], Ty::Int, false, "the turn the scenario begins on"),
        s("order", Builtin::Order, vec![], Ty::list(Ty::Side), false, "the scenario's player-turn order"),
        s("flag", Builtin::Flag, vec![Flag], Ty::Bool, false, "a scenario flag"),
        s(
            "ruling",
            Builtin::Ruling,
            vec![Ruling, Alt],
            Ty::Bool,
            false,
            "is this alternative of a ruling in force",
        ),
        s(
            "try_retreat",
            Builtin::Retreat,
            vec![T(Ty::Unit), T(Ty::Int)],
            Ty::Bool,
            true,
            "retreat by the retreat hooks; false if impossible",
        ),
        s("at_edge", Builtin::AtEdge, vec![T(Ty::Hex)], Ty::Bool, false, "hex on an edge units may leave by"),
        s(
            "lookup_shifted",
            Builtin::LookupShifted,
            vec![Table, T(Ty::Int), T(Ty::Int), T(Ty::Int)],
            Ty::Error,
            false,
            "table lookup with a column shift",
        ),
        s(
            "lookup_odds",
            Builtin::LookupOdds,
            vec![Table, T(Ty::Int), T(Ty::Int), T(Ty::Int), T(Ty::Int)],
            Ty::Error,
            false,
            "odds-ratio table lookup: attack, defense, column shift, roll",
        ),
        s("min", Builtin::Min, vec![T(Ty::Int), T(Ty::Int)], Ty::Int, false, "lesser of two"),
        s("max", Builtin::Max, vec![T(Ty::Int), T(Ty::Int)], Ty::Int, false, "greater of two"),
        s("abs", Builtin::Abs, vec![T(Ty::Int)], Ty::Int, false, "absolute value"),
        s(
            "percent",
            Builtin::Percent,
            vec![T(Ty::Int), T(Ty::Int)],
            Ty::Int,
            false,
            "p% of n to the nearest whole number, halves up",
        ),
        s(
            "percent_up",
            Builtin::PercentUp,
            vec![T(Ty::Int), T(Ty::Int)],
            Ty::Int,
            false,
            "p% of n, rounded up",
        ),
        s(
            "percent_down",
            Builtin::PercentDown,
            vec![T(Ty::Int), T(Ty::Int)],
            Ty::Int,
            false,
            "p% of n, rounded down",
        ),
        s(
            "within",
            Builtin::Within,
            vec![T(Ty::Unit), T(Ty::Int), StepFn],
            Ty::list(Ty::Hex),
            false,
            "hexes reachable from the unit's hex within a budget, by a step-cost fn (Unit, Hex, Hex) -> Int",
        ),
        s("ceil_div", Builtin::CeilDiv, vec![T(Ty::Int), T(Ty::Int)], Ty::Int, false, "division rounding up"),
        s(
            "exited",
            Builtin::Exited,
            vec![T(Ty::Side)],
            Ty::Int,
            false,
            "units of the side that left the map",
        ),
        s(
            "line_of_sight",
            Builtin::LineOfSight,
            vec![T(Ty::Hex), T(Ty::Hex)],
            Ty::Bool,
            false,
            "unblocked line of sight",
        ),
        s(
            "counters",
            Builtin::Counters,
            vec![T(Ty::Side)],
            Ty::list(Ty::Unit),
            false,
            "every counter of the side, on the map or not",
        ),
        s(
            "id",
            Builtin::UnitId,
            vec![T(Ty::Unit)],
            Ty::Int,
            false,
            "the counter's index, a stable tie-breaker",
        ),
        s(
            "present",
            Builtin::Present,
            vec![Any],
            Ty::Bool,
            false,
            "false for the empty answer of `choose ... or none`",
        ),
        s("cup_size", Builtin::CupSize, vec![Cup], Ty::Int, false, "values left in a cup"),
        s("deck_size", Builtin::DeckSize, vec![Deck], Ty::Int, false, "cards left to draw in a deck"),
        s("discard_size", Builtin::DiscardSize, vec![Deck], Ty::Int, false, "cards on a deck's discard pile"),
        s("optional", Builtin::Optional, vec![OptionRule], Ty::Bool, false, "is this optional rule in play"),
        s(
            "direction",
            Builtin::Direction,
            vec![T(Ty::Hex), T(Ty::Hex)],
            Ty::Int,
            false,
            "direction 0-5 from the first hex to an adjacent second, else -1",
        ),
        s(
            "neighbour",
            Builtin::Neighbour,
            vec![T(Ty::Hex), T(Ty::Int)],
            Ty::Hex,
            false,
            "the adjacent hex in a direction (test with present: none off the map)",
        ),
        s(
            "route",
            Builtin::Route,
            vec![T(Ty::Unit), T(Ty::Hex)],
            Ty::list(Ty::Hex),
            false,
            "the hexes a move to the hex enters, in order",
        ),
        s(
            "border",
            Builtin::Border,
            vec![T(Ty::Hex), T(Ty::Hex)],
            Ty::Int,
            false,
            "the number of the border (hexside) between two adjacent spaces, for tracks per border; -1 if not adjacent",
        ),
        s(
            "relative",
            Builtin::Relative,
            vec![T(Ty::Unit), T(Ty::Hex)],
            Ty::Int,
            false,
            "the hexside toward an adjacent hex counted clockwise from the unit's facing (0 the faced one); -1 if not adjacent",
        ),
        s(
            "can_form",
            Builtin::CanForm,
            vec![T(Ty::Unit), Formation],
            Ty::Bool,
            false,
            "may the unit change from its current face to this formation (a declared change)",
        ),
        s(
            "can_retreat",
            Builtin::CanRetreat,
            vec![T(Ty::Unit), T(Ty::Int)],
            Ty::Bool,
            false,
            "would a retreat of that many hexes be possible",
        ),
    ];
    for b in v.iter_mut() {
        b.iv = match b.name {
            "distance" | "enemy_distance" | "len" | "turn" | "scenario_turns" | "first_turn" | "exited"
            | "abs" | "cup_size" | "deck_size" | "discard_size" => Iv::new(0, BIG),
            "relative" => Iv::new(-1, 5),
            _ => Iv::ANY,
        };
    }
    v
}
