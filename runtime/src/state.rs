//! Game state: flat, `Clone`, no pointers, cheap to copy for search players.

use crate::program::{Program, ScenarioDef};
use serde::Serialize;

/// Hex index meaning "not on the map".
pub const OFF_MAP: u32 = u32::MAX;

/// Where a counter is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum UnitStatus {
    /// Not yet in play (a reinforcement waiting for its turn, or not in the scenario).
    Pending,
    OnMap,
    Eliminated,
    /// Left the map without being eliminated (retreat off map, failed rally).
    Removed,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct UnitState {
    pub hex: u32,
    /// Current step: 0 is the strongest side.
    pub step: u8,
    pub status: UnitStatus,
    /// Bit i: marker i (unit markers).
    pub markers: u64,
    /// Turn at which a pending reinforcement enters (0 = not in the scenario).
    pub enters: i16,
    /// Hex where a pending reinforcement enters.
    pub entry_hex: u32,
    /// Facing on a hex map (see `facing.rs`): bits 0-2 the hexside 0-5 the unit faces
    /// (numbered as `direction()`), bit 3 set for a vertex facing (the vertex clockwise
    /// of that hexside).
    pub facing: u8,
    /// Current face (formation) among the unit type's declared faces (0: the first).
    pub face: u8,
    /// The side that owns the unit now (the counter's side until a `transfer`).
    pub side: u8,
}

/// The whole state of a game in progress.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct State {
    pub turn: i64,
    pub phase: u32,
    pub phasing: u8,
    pub units: Vec<UnitState>,
    /// Bit i: hex marker i, per hex.
    pub hex_markers: Vec<u64>,
    /// Bit i: side marker i, per side.
    pub side_markers: Vec<u64>,
    pub tracks: Vec<i64>,
    pub triggers_fired: Vec<bool>,
    /// Units of each side that left the map (retreat or exit), not eliminated.
    pub exited: Vec<i64>,
    /// Contents of each cup, in the order put in.
    pub cups: Vec<Vec<crate::value::Value>>,
    /// Each deck's cards left to draw (card codes), in declared order at the start.
    pub decks: Vec<Vec<crate::value::Value>>,
    /// Each deck's discard pile, in the order discarded.
    pub discards: Vec<Vec<crate::value::Value>>,
    /// Each hand of each side: `hands[hand * sides + side]`.
    pub hands: Vec<Vec<crate::value::Value>>,
}

impl State {
    /// The initial state of a scenario: placements on the map, reinforcements pending,
    /// tracks at their start values.
    pub fn new(program: &Program, scenario: &ScenarioDef) -> State {
        let n_hex = program.map.cols as usize * program.map.rows as usize;
        let mut units = vec![
            UnitState {
                hex: OFF_MAP,
                step: 0,
                status: UnitStatus::Pending,
                markers: 0,
                enters: 0,
                entry_hex: OFF_MAP,
                facing: 0,
                face: 0,
                side: 0,
            };
            program.counters.len()
        ];
        for (u, c) in units.iter_mut().zip(&program.counters) {
            u.side = c.side;
        }
        for p in &scenario.placements {
            if let Some(u) = units.get_mut(p.counter as usize) {
                u.facing = p.facing;
                u.face = p.face;
                match p.enters_turn {
                    None => {
                        u.hex = p.hex;
                        u.status = UnitStatus::OnMap;
                    }
                    Some(t) => {
                        u.enters = t.clamp(0, i16::MAX as i64) as i16;
                        u.entry_hex = p.hex;
                    }
                }
            }
        }
        let mut tracks = vec![0i64; program.track_slots()];
        // Slots found from the tracks' first slots, computed once.
        let bases = program.track_bases();
        // Every track's slots are contiguous from its base (`Program::track_slot_in`):
        // each starts at the low end of its range, except that a per-unit track of
        // integers starts at each counter's rating of the same name (first step), if any.
        for (i, t) in program.tracks.iter().enumerate() {
            let base = bases[i];
            let width = program.track_width(t);
            // The vector starts zeroed (a large one as fresh zero pages, untouched until
            // written), so a track starting at 0 needs no pass over its slots.
            if t.lo != 0 {
                if let Some(slots) = tracks.get_mut(base..base + width) {
                    slots.fill(t.lo);
                }
            }
            if t.per_unit && t.second.is_none() {
                // A track of references starts empty whatever the counters' ratings.
                let Some(r) = program.rating_index(&t.name).filter(|_| t.holds == crate::program::Holds::Int)
                else {
                    continue;
                };
                for (u, c) in program.counters.iter().enumerate().take(width) {
                    let start =
                        c.values.get(r).and_then(|v| v.as_ref()).and_then(|steps| steps.first().copied());
                    if let (Some(v), Some(slot)) = (start, tracks.get_mut(base + u)) {
                        *slot = v.clamp(t.lo, t.hi);
                    }
                }
            }
        }
        for &(track, side, v) in &scenario.track_starts {
            if let Some(slot) = program.track_slot_in(&bases, track, side.map(usize::from)) {
                tracks[slot] = v;
            }
        }
        State {
            turn: 0,
            phase: u32::MAX,
            phasing: 0,
            units,
            hex_markers: vec![0; n_hex],
            side_markers: vec![0; program.sides.len()],
            tracks,
            triggers_fired: vec![false; program.triggers.len()],
            exited: vec![0; program.sides.len()],
            cups: vec![Vec::new(); program.cups.len()],
            decks: program
                .decks
                .iter()
                .map(|d| d.cards.iter().map(|c| crate::value::Value::Sym(c.sym)).collect())
                .collect(),
            discards: vec![Vec::new(); program.decks.len()],
            hands: vec![Vec::new(); program.hands.len() * program.sides.len()],
        }
    }

    /// Bytes a copy of this state occupies (for search players), heap included.
    pub fn size_bytes(&self) -> usize {
        std::mem::size_of::<State>()
            + self.units.len() * std::mem::size_of::<UnitState>()
            + self.hex_markers.len() * 8
            + self.side_markers.len() * 8
            + self.tracks.len() * 8
            + self.triggers_fired.len()
            + self.exited.len() * 8
            + self.cups.iter().map(|c| c.len() * std::mem::size_of::<crate::value::Value>()).sum::<usize>()
            + [&self.decks, &self.discards, &self.hands]
                .iter()
                .flat_map(|v| v.iter())
                .map(|c| c.len() * std::mem::size_of::<crate::value::Value>())
                .sum::<usize>()
    }
}
