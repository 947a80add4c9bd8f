//! Built-in wargame primitives callable from rules: unit queries, geometry, movement,
//! zones of control, retreat, table lookups with column shifts.
//!
//! Compile-time names (regions, features, flags, rulings, tables) arrive as `Int`
//! indices that the compiler resolved and the verifier range-checked.

use crate::board::Board;
use crate::error::RuntimeError;
use crate::log::Event;
use crate::op::Builtin;
use crate::program::{FnId, ParaId, PreferScope};
use crate::state::{UnitStatus, OFF_MAP};
use crate::value::Value;
use crate::vm::{as_bool, as_int, Exec, Halt, Vm};
use kriegsspiel_geo::{self as geo, Hex};
use serde_json::json;

fn arg_err(b: Builtin, what: &str) -> RuntimeError {
    RuntimeError::new("R0002", format!("{b:?}: expected {what}"))
}

impl<'p> Vm<'p> {
    pub(crate) fn builtin(&mut self, b: Builtin, args: &[Value]) -> Exec<Value> {
        let a = |i: usize| -> Value { args.get(i).copied().unwrap_or(Value::Nil) };
        let side = |v: Value| match v {
            Value::Side(s) => Ok(s),
            _ => Err(arg_err(b, "a side")),
        };
        let hex = |v: Value| match v {
            Value::Hex(h) => Ok(h),
            _ => Err(arg_err(b, "a hex")),
        };
        let n_units = self.state.units.len();
        let unit = |v: Value| match v {
            Value::Unit(u) if (u as usize) < n_units => Ok(u),
            _ => Err(arg_err(b, "a unit")),
        };
        let idx = |v: Value| -> Result<usize, RuntimeError> {
            match v {
                Value::Int(i) if i >= 0 => Ok(i as usize),
                _ => Err(arg_err(b, "a resolved name")),
            }
        };
        let v = match b {
            Builtin::Units => {
                let s = side(a(0))?;
                let l = self.new_list();
                for (i, u) in self.state.units.iter().enumerate() {
                    if u.status == UnitStatus::OnMap && self.state.units[i].side == s {
                        self.lists[l as usize].push(Value::Unit(i as u16));
                    }
                }
                Value::List(l)
            }
            Builtin::UnitsAt => {
                let h = hex(a(0))?;
                let l = self.new_list();
                if let Some(here) = self.occ.get(h as usize) {
                    let items: &[u16] = here;
                    let list = &mut self.lists[l as usize];
                    list.extend(items.iter().map(|&u| Value::Unit(u)));
                }
                Value::List(l)
            }
            Builtin::AdjacentUnits => {
                let h = hex(a(0))?;
                let s = side(a(1))?;
                let l = self.new_list();
                let mut found: Vec<u16> = Vec::new();
                for d in 0..self.board.degree() {
                    if let Some(n) = self.board.neighbour(h, d) {
                        if let Some(here) = self.occ.get(n as usize) {
                            found.extend(
                                here.iter().copied().filter(|&u| self.state.units[u as usize].side == s),
                            );
                        }
                    }
                }
                found.sort_unstable();
                self.lists[l as usize].extend(found.into_iter().map(Value::Unit));
                Value::List(l)
            }
            Builtin::Neighbours => {
                let h = hex(a(0))?;
                let l = self.new_list();
                for d in 0..self.board.degree() {
                    if let Some(n) = self.board.neighbour(h, d) {
                        self.lists[l as usize].push(Value::Hex(n));
                    }
                }
                Value::List(l)
            }
            Builtin::Distance => Value::Int(self.board.distance(hex(a(0))?, hex(a(1))?)),
            Builtin::Other => {
                let s = side(a(0))?;
                let n = self.prog.sides.len().max(1) as u8;
                Value::Side((s + 1) % n)
            }
            Builtin::Len => Value::Int(self.list(a(0))?.len() as i64),
            Builtin::First => self.list(a(0))?.first().copied().unwrap_or(Value::Nil),
            Builtin::Contains => {
                let x = a(1);
                Value::Bool(self.list(a(0))?.contains(&x))
            }
            Builtin::Reachable => {
                let u = unit(a(0))?;
                self.reachable(u)?
            }
            Builtin::ReachableBy => {
                let u = unit(a(0))?;
                let m = self.mode_index(a(1))?;
                let reach = self.reach_all_by(u, Some(m))?;
                self.hex_list(&reach)
            }
            Builtin::ReachableFromBy => {
                let u = unit(a(0))?;
                let start = hex(a(1))?;
                let m = self.mode_index(a(2))?;
                let reach = self.reach_compute_from(u, start, Some(m))?;
                self.hex_list(&reach)
            }
            Builtin::RouteBy => {
                let u = unit(a(0))?;
                let dest = hex(a(1))?;
                let m = self.mode_index(a(2))?;
                let reach = self.reach_all_by(u, Some(m))?;
                let l = self.new_list();
                if let Some(path) = geo::path_to(&reach, Hex(dest)) {
                    self.lists[l as usize].extend(path.iter().skip(1).map(|h| Value::Hex(h.0)));
                }
                Value::List(l)
            }
            Builtin::ReachableFrom => {
                let u = unit(a(0))?;
                let start = hex(a(1))?;
                let reach = self.reach_compute_from(u, start, None)?;
                self.hex_list(&reach)
            }
            Builtin::Arrivals => {
                let s = side(a(0))?;
                let turn = self.state.turn;
                let mut due = Vec::new();
                for i in 0..self.state.units.len() {
                    let us = self.state.units[i];
                    if us.side == s
                        && us.status == crate::state::UnitStatus::Pending
                        && us.entry_hex != OFF_MAP
                        && (us.enters as i64) <= turn
                        && self.arrives_by_move(i as u16)
                    {
                        due.push(Value::Unit(i as u16));
                    }
                }
                let l = self.new_list();
                self.lists[l as usize].extend(due);
                Value::List(l)
            }
            Builtin::EntryHex => {
                let u = unit(a(0))?;
                match self.state.units[u as usize].entry_hex {
                    OFF_MAP => Value::Nil,
                    h => Value::Hex(h),
                }
            }
            Builtin::WithinFrom => {
                let s = side(a(0))?;
                let start = hex(a(1))?;
                self.within_from(s, start, as_int(a(2))?, as_int(a(3))?)?
            }
            Builtin::InEzoc => Value::Bool(self.in_ezoc(hex(a(0))?, side(a(1))?)?),
            Builtin::EnemyDistance => {
                let h = hex(a(0))?;
                let s = side(a(1))?;
                let mut best = i64::from(u16::MAX);
                for (i, us) in self.state.units.iter().enumerate() {
                    if us.status == UnitStatus::OnMap && self.state.units[i].side != s {
                        best = best.min(self.board.distance(h, us.hex));
                    }
                }
                Value::Int(best)
            }
            Builtin::OccupiedBy => {
                let h = hex(a(0))?;
                let s = side(a(1))?;
                let found = self
                    .occ
                    .get(h as usize)
                    .map(|v| v.iter().any(|&u| self.state.units[u as usize].side == s))
                    .unwrap_or(false);
                Value::Bool(found)
            }
            Builtin::Counters => {
                let s = side(a(0))?;
                let l = self.new_list();
                for (i, c) in self.state.units.iter().enumerate() {
                    if c.side == s {
                        self.lists[l as usize].push(Value::Unit(i as u16));
                    }
                }
                Value::List(l)
            }
            Builtin::Direction => {
                let (x, y) = (hex(a(0))?, hex(a(1))?);
                Value::Int(self.board.direction(x, y).map(|d| d as i64).unwrap_or(-1))
            }
            Builtin::Neighbour => {
                let h = hex(a(0))?;
                let d = as_int(a(1))?;
                match (0..i64::from(self.board.degree()))
                    .contains(&d)
                    .then(|| self.board.neighbour(h, d as u8))
                    .flatten()
                {
                    Some(n) => Value::Hex(n),
                    None => Value::Nil,
                }
            }
            Builtin::Route => {
                let u = unit(a(0))?;
                let dest = hex(a(1))?;
                let reach = self.reach_all(u)?;
                let l = self.new_list();
                if let Some(path) = geo::path_to(&reach, Hex(dest)) {
                    self.lists[l as usize].extend(path.iter().skip(1).map(|h| Value::Hex(h.0)));
                }
                Value::List(l)
            }
            Builtin::CanRetreat => {
                let u = unit(a(0))?;
                let n = as_int(a(1))?;
                Value::Bool(!self.retreat_candidates(u, n)?.is_empty())
            }
            Builtin::Optional => Value::Bool(self.options.get(idx(a(0))?).copied().unwrap_or(false)),
            Builtin::CupSize => {
                let c = idx(a(0))?;
                Value::Int(self.state.cups.get(c).map(|v| v.len() as i64).unwrap_or(0))
            }
            Builtin::DeckSize => {
                let c = idx(a(0))?;
                Value::Int(self.state.decks.get(c).map(|v| v.len() as i64).unwrap_or(0))
            }
            Builtin::DiscardSize => {
                let c = idx(a(0))?;
                Value::Int(self.state.discards.get(c).map(|v| v.len() as i64).unwrap_or(0))
            }
            Builtin::UnitId => Value::Int(unit(a(0))? as i64),
            Builtin::Present => Value::Bool(a(0) != Value::Nil),
            Builtin::InRegion => {
                let h = hex(a(0))?;
                let r = idx(a(1))?;
                let region = self.prog.map.regions.get(r).ok_or_else(|| arg_err(b, "a region"))?;
                Value::Bool(region.hexes.binary_search(&h).is_ok())
            }
            Builtin::RegionHexes => {
                let r = idx(a(0))?;
                let l = self.new_list();
                if let Some(region) = self.prog.map.regions.get(r) {
                    for &h in &region.hexes {
                        self.lists[l as usize].push(Value::Hex(h));
                    }
                }
                Value::List(l)
            }
            Builtin::Crosses => {
                let (x, y) = (hex(a(0))?, hex(a(1))?);
                let f = idx(a(2))?;
                let mask = Board::side_mask(&self.prog.map, &self.board, x, y);
                Value::Bool(f < 32 && mask & (1 << f) != 0)
            }
            Builtin::HexsideSum => {
                let (x, y) = (hex(a(0))?, hex(a(1))?);
                Value::Int(self.hexside_sum(x, y, idx(a(2))?))
            }
            Builtin::Turn => Value::Int(self.state.turn),
            Builtin::PlayerCount
            | Builtin::PlayerOf
            | Builtin::Teammates
            | Builtin::Sides
            | Builtin::Others
            | Builtin::Team
            | Builtin::PlayerSides => self.players_builtin(b, args)?,
            Builtin::Phasing => Value::Side(self.state.phasing),
            Builtin::ScenarioTurns => {
                Value::Int(self.prog.scenarios.get(self.scenario).map(|s| s.turns).unwrap_or(0))
            }
            Builtin::FirstTurn => {
                Value::Int(self.prog.scenarios.get(self.scenario).map(|s| s.first_turn).unwrap_or(1))
            }
            Builtin::Order => {
                let l = self.new_list();
                let order: Vec<u8> =
                    self.prog.scenarios.get(self.scenario).map(|s| s.order.clone()).unwrap_or_default();
                for s in order {
                    self.lists[l as usize].push(Value::Side(s));
                }
                Value::List(l)
            }
            Builtin::Flag => Value::Bool(self.flags.get(idx(a(0))?).copied().unwrap_or(false)),
            Builtin::InPhase => {
                Value::Bool(self.state.phase != u32::MAX && idx(a(0))? == self.state.phase as usize)
            }
            Builtin::Ruling => {
                let r = idx(a(0))?;
                let alt = idx(a(1))?;
                if let Some(seen) = self.rulings_read.get_mut(r) {
                    *seen = true;
                }
                Value::Bool(self.rulings.get(r).copied() == Some(alt))
            }
            Builtin::Retreat => {
                let u = unit(a(0))?;
                let n = as_int(a(1))?;
                Value::Bool(self.retreat(u, n)?)
            }
            Builtin::RetreatTo => {
                let u = unit(a(0))?;
                let n = as_int(a(1))?;
                let h = hex(a(2))?;
                Value::Bool(self.retreat_to(u, n, Some(h))?)
            }
            Builtin::RetreatEnds => {
                let u = unit(a(0))?;
                let n = as_int(a(1))?;
                let ends = self.retreat_ends(u, n)?;
                let l = self.new_list();
                self.lists[l as usize].extend(ends.into_iter().map(Value::Hex));
                Value::List(l)
            }
            Builtin::AtEdge => {
                let h = hex(a(0))?;
                let exits = self.prog.map.exit_edges;
                Value::Bool((0..6).any(|d| self.board.exit_bits(h, d) & exits != 0))
            }
            Builtin::LookupShifted | Builtin::LookupShiftedQuiet => {
                let t = idx(a(0))?;
                let key = as_int(a(1))?;
                let shift = as_int(a(2))?;
                let roll = as_int(a(3))?;
                self.lookup(t, key, shift, roll, b == Builtin::LookupShiftedQuiet)?
            }
            Builtin::Concat | Builtin::Union => {
                let mut items: Vec<Value> = self.list(a(0))?.to_vec();
                items.extend_from_slice(self.list(a(1))?);
                if b == Builtin::Union {
                    // First appearances, in order (no hash order: a linear scan).
                    let mut seen: Vec<Value> = Vec::with_capacity(items.len());
                    items.retain(|x| {
                        if seen.contains(x) {
                            false
                        } else {
                            seen.push(*x);
                            true
                        }
                    });
                }
                let l = self.new_list();
                self.lists[l as usize].extend(items);
                Value::List(l)
            }
            Builtin::LookupOdds | Builtin::LookupOddsQuiet => {
                let t = idx(a(0))?;
                let attack = as_int(a(1))?;
                let defense = as_int(a(2))?;
                let shift = as_int(a(3))?;
                let roll = as_int(a(4))?;
                let table =
                    self.prog.tables.get(t).ok_or_else(|| RuntimeError::new("R0001", "no such table"))?;
                let col = table.odds_column(attack, defense).ok_or_else(|| {
                    RuntimeError::new(
                        "R0006",
                        format!("{} has no column for odds {attack}:{defense}", table.name),
                    )
                })?;
                self.lookup_at(
                    t,
                    col,
                    shift,
                    roll,
                    format!("{attack}:{defense}"),
                    b == Builtin::LookupOddsQuiet,
                )?
            }
            Builtin::Min => Value::Int(as_int(a(0))?.min(as_int(a(1))?)),
            Builtin::Max => Value::Int(as_int(a(0))?.max(as_int(a(1))?)),
            Builtin::Abs => Value::Int(as_int(a(0))?.saturating_abs()),
            Builtin::Percent | Builtin::PercentUp | Builtin::PercentDown => {
                let (n, p) = (as_int(a(0))?, as_int(a(1))?);
                let x = n.checked_mul(p).ok_or_else(|| RuntimeError::new("R0005", "percent overflow"))?;
                Value::Int(match b {
                    Builtin::Percent => (x + 50).div_euclid(100),
                    Builtin::PercentUp => -((-x).div_euclid(100)),
                    _ => x.div_euclid(100),
                })
            }
            Builtin::Within => {
                let u = unit(a(0))?;
                let budget = as_int(a(1))?;
                let f = as_int(a(2))?;
                self.within(u, budget, f)?
            }
            Builtin::CeilDiv => {
                let (x, y) = (as_int(a(0))?, as_int(a(1))?);
                if y == 0 {
                    return Err(RuntimeError::new("R0005", "ceil_div by zero").into());
                }
                Value::Int(-((-x).div_euclid(y)))
            }
            Builtin::Exited => {
                let s = side(a(0))?;
                Value::Int(self.state.exited.get(s as usize).copied().unwrap_or(0))
            }
            Builtin::Relative => {
                let (u, h) = (unit(a(0))?, hex(a(1))?);
                self.relative_of(u, h)
            }
            Builtin::CanForm => {
                let u = unit(a(0))?;
                Value::Bool(self.can_form(u, a(1)))
            }
            Builtin::Border => {
                let (x, y) = (hex(a(0))?, hex(a(1))?);
                Value::Int(self.prog.map.border_of(x, y).map(|b| b as i64).unwrap_or(-1))
            }
            Builtin::LineOfSight => {
                let (x, y) = (hex(a(0))?, hex(a(1))?);
                if self.board.graph.is_some() {
                    // The compiler refuses line of sight on an area map (E0509).
                    return Err(RuntimeError::new(
                        "R0002",
                        "line_of_sight: an area map has no lines of sight",
                    )
                    .into());
                }
                if self.prog.hooks.los_hex.is_some() || self.prog.hooks.los_side.is_some() {
                    Value::Bool(self.line_of_sight_hooked(x, y)?)
                } else {
                    Value::Bool(self.line_of_sight(x, y))
                }
            }
        };
        Ok(v)
    }

    /// Table lookup with a column shift; logs a lookup event.
    pub(crate) fn lookup(&mut self, t: usize, key: i64, shift: i64, roll: i64, quiet: bool) -> Exec<Value> {
        let prog = self.prog;
        let table = prog.tables.get(t).ok_or_else(|| RuntimeError::new("R0001", "no such table"))?;
        let col0 = table
            .column_of(key)
            .ok_or_else(|| RuntimeError::new("R0006", format!("{} has no column for {key}", table.name)))?;
        self.lookup_at(t, col0, shift, roll, key.to_string(), quiet)
    }

    /// Lookup in column `col0` shifted by `shift` (clamped to the table), row by `roll`.
    fn lookup_at(
        &mut self,
        t: usize,
        col0: usize,
        shift: i64,
        roll: i64,
        key: String,
        quiet: bool,
    ) -> Exec<Value> {
        let prog = self.prog;
        let table = prog.tables.get(t).ok_or_else(|| RuntimeError::new("R0001", "no such table"))?;
        let ncols = table.columns.len() as i64;
        let col = (col0 as i64 + shift).clamp(0, ncols - 1) as usize;
        let row = table.row_of(roll).ok_or_else(|| {
            RuntimeError::new(
                "R0007",
                format!(
                    "roll {roll} is off table {} (rows {}..{})",
                    table.name,
                    rows_lo(table),
                    rows_hi(table)
                ),
            )
        })?;
        let cell = table.cells.get(row * table.columns.len() + col).copied().unwrap_or(Value::Nil);
        if !quiet && self.log.enabled() {
            let colname = match table.odds.get(col) {
                Some(&(n, d)) => format!("{n}:{d}"),
                None => {
                    let (lo, hi) = table.columns[col];
                    range_label(lo, hi)
                }
            };
            let (in_fn, args) = match self.caller_args() {
                Some((f, a)) => (Some(f), Some(a)),
                None => (None, None),
            };
            let event = Event::Lookup {
                turn: self.state.turn,
                para: prog.para(table.para).to_string(),
                step: prog.step_of(table.para).map(String::from),
                at: prog.para(self.cur_para).to_string(),
                table: table.name.clone(),
                key,
                column: colname,
                shift,
                row: roll,
                result: self.label(cell),
                in_fn,
                args,
            };
            self.log.event("lookup", None, &event);
        }
        Ok(cell)
    }

    /// The innermost call's function name and its named arguments as labels (for the
    /// lookup's log line: who attacks whom); None for a function without parameter names.
    fn caller_args(&self) -> Option<(serde_json::Value, serde_json::Value)> {
        let &(f, base) = self.frames.last()?;
        let func = self.prog.functions.get(f as usize)?;
        if func.param_names.is_empty() {
            return None;
        }
        let mut args = serde_json::Map::new();
        for (i, name) in func.param_names.iter().enumerate() {
            let v = self.regs.get(base + i).copied().unwrap_or(Value::Nil);
            args.insert(name.clone(), self.label(v));
        }
        Some((json!(func.name), serde_json::Value::Object(args)))
    }

    /// Log a traced modifier set's evaluation: its arguments, the base value, each line
    /// that applied (paragraph, effect as written, the amount added) and the result.
    pub(crate) fn log_modifiers(
        &mut self,
        f: FnId,
        argv: &[Value],
        at: ParaId,
        applied: &[(u16, Value)],
        result: Value,
    ) {
        let prog = self.prog;
        let Some(func) = prog.functions.get(f as usize) else { return };
        let Some(set) = &func.modifiers else { return };
        let (base, named) = match argv.split_last() {
            Some((b, rest)) => (*b, rest),
            None => (Value::Nil, argv),
        };
        let mut args = serde_json::Map::new();
        for (name, v) in func.param_names.iter().zip(named) {
            args.insert(name.clone(), self.label(*v));
        }
        let lines: Vec<serde_json::Value> = applied
            .iter()
            .map(|&(i, amount)| {
                let line = set.lines.get(i as usize);
                let mut o = serde_json::Map::new();
                o.insert("para".into(), json!(line.map(|l| prog.para(l.para)).unwrap_or("")));
                o.insert("effect".into(), json!(line.map(|l| l.effect.as_str()).unwrap_or("")));
                // The amount register holds the magnitude; the effect as written has the sign.
                if let (Value::Int(a), Some(l)) = (amount, line) {
                    o.insert("amount".into(), json!(if l.effect.starts_with('-') { -a } else { a }));
                }
                serde_json::Value::Object(o)
            })
            .collect();
        let event = Event::Modifiers {
            turn: self.state.turn,
            para: prog.para(func.para).to_string(),
            step: prog.step_of(func.para).map(String::from),
            at: prog.para(at).to_string(),
            set: func.name.clone(),
            args,
            base: self.label(base),
            applied: lines,
            result: self.label(result),
            best: set.best.then_some(true),
        };
        self.log.event("modifiers", None, &event);
    }

    /// Is hex `h` in a zone of control exerted by an enemy of `side`?
    pub(crate) fn in_ezoc(&mut self, h: u32, side: u8) -> Exec<bool> {
        let Some(zoc) = self.prog.hooks.zoc else { return Ok(false) };
        if self.ezoc_cache.0 != self.version {
            let n = self.board.hex_count() as usize;
            let sides = self.prog.sides.len();
            let cache = &mut self.ezoc_cache.1;
            cache.resize(sides, Vec::new());
            for c in cache.iter_mut() {
                c.clear();
                c.resize(n, 0);
            }
            self.ezoc_cache.0 = self.version;
        }
        // 1 / 2: no / yes, read only hex h and its neighbours; 3 / 4: read more (for the
        // cost memo, `memo.rs`).
        if let Some(c @ 1..=4) = self.ezoc_cache.1.get(side as usize).and_then(|c| c.get(h as usize)).copied()
        {
            if self.rec.active {
                if c > 2 {
                    self.rec.uncacheable = true;
                }
                let enemies = crate::memo::enemy_layers(side);
                self.rec.area(h, enemies, &self.board);
            }
            return Ok(c % 2 == 0);
        }
        let outer = std::mem::replace(&mut self.rec, crate::memo::Recorder::start(u16::MAX, 0));
        // Only the enemies' units around h are read (unless the hook reads more).
        let enemies = crate::memo::enemy_layers(side);
        self.rec.area(h, enemies, &self.board);
        let answer = self.in_ezoc_uncached(h, side, zoc);
        let inner = std::mem::replace(&mut self.rec, outer);
        let answer = answer?;
        if self.rec.active {
            self.rec.merge(&inner, &self.board);
        }
        if let Some(slot) = self.ezoc_cache.1.get_mut(side as usize).and_then(|c| c.get_mut(h as usize)) {
            *slot = u8::from(answer) + 1 + if inner.within_area(h, enemies, &self.board) { 0 } else { 2 };
        }
        Ok(answer)
    }

    fn in_ezoc_uncached(&mut self, h: u32, side: u8, zoc: crate::program::FnId) -> Exec<bool> {
        for d in 0..self.board.degree() {
            let Some(n) = self.board.neighbour(h, d) else { continue };
            let mut k = 0;
            while let Some(&i) = self.occ.get(n as usize).and_then(|v| v.get(k)) {
                k += 1;
                if self.state.units[i as usize].side != side {
                    let v = self.call(zoc, &[Value::Unit(i)])?;
                    if as_bool(v)? {
                        return Ok(true);
                    }
                }
            }
        }
        Ok(false)
    }

    fn reachable(&mut self, u: u16) -> Exec<Value> {
        let reach = self.reach_all(u)?;
        Ok(self.hex_list(&reach))
    }

    /// The hexes a search reached, in its order, as a new list.
    pub(crate) fn hex_list(&mut self, reach: &[geo::Reach]) -> Value {
        let l = self.new_list();
        self.lists[l as usize].extend(reach.iter().map(|r| Value::Hex(r.hex.0)));
        Value::List(l)
    }

    /// Every hex unit `u` can reach by the movement hooks, with routes.
    fn reach_all(&mut self, u: u16) -> Exec<Vec<geo::Reach>> {
        self.reach_all_by(u, None)
    }

    /// The index in `move_modes` of a mode's code (a `Mode` value).
    fn mode_index(&self, v: Value) -> Exec<usize> {
        match v {
            Value::Sym(s) => self
                .prog
                .hooks
                .move_modes
                .iter()
                .position(|m| m.sym == s)
                .ok_or_else(|| RuntimeError::new("R0002", "not a movement mode").into()),
            _ => Err(RuntimeError::new("R0002", "a movement mode was expected").into()),
        }
    }

    /// The hooks of mode `mode` (an index of `move_modes`), or of the default mode.
    fn mode_hooks(&self, mode: Option<usize>) -> ModeHooks {
        let h = &self.prog.hooks;
        match mode.and_then(|m| h.move_modes.get(m)) {
            Some(m) => ModeHooks {
                allowance: m.allowance,
                cost: m.cost,
                stop: m.stop,
                stop_crossing: m.stop_crossing,
                minimum: m.minimum,
            },
            None => ModeHooks {
                allowance: h.move_allowance,
                cost: h.move_cost,
                stop: h.move_stop,
                stop_crossing: h.move_stop_crossing,
                minimum: h.move_minimum,
            },
        }
    }

    /// As [`reach_all`](Self::reach_all), by the hooks of a declared mode.
    fn reach_all_by(&mut self, u: u16, mode: Option<usize>) -> Exec<Vec<geo::Reach>> {
        let key = mode.map(|m| m.min(254) as u8 + 1).unwrap_or(0);
        if let Some((cu, cm, cv, r)) = &self.reach_cache {
            if *cu == u && *cm == key && *cv == self.version {
                return Ok(r.clone());
            }
        }
        let version = self.version;
        let r = self.reach_compute_from(u, self.state.units[u as usize].hex, mode)?;
        // Hooks are pure, so computing them did not change the state.
        self.reach_cache = Some((u, key, version, r.clone()));
        Ok(r)
    }

    /// The movement search of unit `u` started from hex `start` (its own hex for
    /// `reachable`; any hex for `reachable_from`), by the hooks of `mode` (the default
    /// mode for `None`).
    fn reach_compute_from(&mut self, u: u16, start: u32, mode: Option<usize>) -> Exec<Vec<geo::Reach>> {
        let hooks = self.mode_hooks(mode);
        let (Some(allow_f), Some(cost_f)) = (hooks.allowance, hooks.cost) else {
            return Err(RuntimeError::new("R0008", "the rulebook declares no movement hooks").into());
        };
        let stop_f = hooks.stop;
        if start == OFF_MAP || start >= self.board.hex_count() {
            return Ok(Vec::new());
        }
        let allowance = as_int(self.call(allow_f, &[Value::Unit(u)])?)?.clamp(0, i32::MAX as i64) as i32;
        let minimum = match hooks.minimum {
            Some(f) => as_int(self.call(f, &[])?)?.clamp(0, i32::MAX as i64) as i32,
            None => 0,
        };
        if let (Some(sf), true) = (stop_f, hooks.stop_crossing) {
            return self.reach_halting(u, start, allowance, minimum, cost_f, sf);
        }
        let mut reach = self.reach_pass(u, start, allowance, minimum, cost_f, None)?;
        // Hexes where movement must stop are kept, but nothing is reached through them.
        if let Some(sf) = stop_f {
            let mut stops = vec![false; self.board.hex_count() as usize];
            let mut any = false;
            for r in &reach {
                if r.hex.0 != start && as_bool(self.call(sf, &[Value::Unit(u), Value::Hex(r.hex.0)])?)? {
                    stops[r.hex.0 as usize] = true;
                    any = true;
                }
            }
            if any {
                reach = self.reach_pass(u, start, allowance, minimum, cost_f, Some(&stops))?;
            }
        }
        Ok(reach)
    }

    /// The cost memo serves the default mode's cost hook only (it keys answers by what
    /// that hook reads).
    fn memo_for(&mut self, cost_f: crate::program::FnId, u: u16) -> Option<(usize, u64)> {
        if Some(cost_f) == self.prog.hooks.move_cost {
            self.memo_prepare(cost_f, u)
        } else {
            None
        }
    }

    fn reach_pass(
        &mut self,
        u: u16,
        start: u32,
        allowance: i32,
        minimum: i32,
        cost_f: crate::program::FnId,
        stops: Option<&[bool]>,
    ) -> Exec<Vec<geo::Reach>> {
        let memo = self.memo_for(cost_f, u);
        self.hooked_search(start, allowance, minimum, stops, |vm, from, to, dir| {
            vm.memo_cost(memo, cost_f, u, from.0, to.0, dir)
        })
    }

    /// The movement search when the `stop` hook sees each step (`fn(Unit, Hex, Hex) ->
    /// Bool`): a hex entered by a step that halts is reached but not left, while the same
    /// hex entered by another step may be passed through. A least-cost search over (hex,
    /// halted) states; each hex is reported by its cheaper state, except that a hex a
    /// reported route passes through is reported by its state that may go on, so that
    /// every route (`route`) is a legal move. Ties go to the lowest-indexed previous hex.
    fn reach_halting(
        &mut self,
        u: u16,
        start: u32,
        allowance: i32,
        minimum: i32,
        cost_f: crate::program::FnId,
        stop_f: crate::program::FnId,
    ) -> Exec<Vec<geo::Reach>> {
        use std::cmp::Reverse;
        const NONE: u32 = u32::MAX;
        let n = self.board.hex_count() as usize;
        let memo = self.memo_for(cost_f, u);
        let mut spent = vec![i32::MAX; 2 * n];
        let mut prev = vec![NONE; 2 * n];
        let mut done = vec![false; 2 * n];
        let mut heap = std::collections::BinaryHeap::new();
        spent[2 * start as usize] = 0;
        heap.push(Reverse((0i32, 2 * start)));
        while let Some(Reverse((d, st))) = heap.pop() {
            let si = st as usize;
            if done[si] || d != spent[si] {
                continue;
            }
            done[si] = true;
            if st & 1 == 1 || (minimum > 0 && d.saturating_add(minimum) > allowance) {
                continue;
            }
            let h = st / 2;
            for dir in 0..self.board.degree() {
                let Some(nb) = self.board.neighbour(h, dir) else { continue };
                let c = match self.memo_cost(memo, cost_f, u, h, nb, dir)? {
                    Value::Int(c) if c >= 0 && c < minimum as i64 => {
                        return Err(RuntimeError::new(
                            "R0014",
                            format!("a step cost {c}, below the movement minimum {minimum}"),
                        )
                        .into())
                    }
                    Value::Int(c) if c >= 0 => c.min(i32::MAX as i64) as i32,
                    _ => continue,
                };
                let Some(nd) = d.checked_add(c).filter(|&nd| nd <= allowance) else { continue };
                let halts = as_bool(self.call(stop_f, &[Value::Unit(u), Value::Hex(h), Value::Hex(nb)])?)?;
                let ns = 2 * nb as usize + usize::from(halts);
                if done[ns] {
                    continue;
                }
                if nd < spent[ns] {
                    spent[ns] = nd;
                    prev[ns] = st;
                    heap.push(Reverse((nd, ns as u32)));
                } else if nd == spent[ns] {
                    prev[ns] = prev[ns].min(st);
                }
            }
        }
        // Each hex by its cheaper state (the free one on a tie)...
        let mut chosen: Vec<Option<usize>> = (0..n)
            .map(|h| {
                let (f, t) = (spent[2 * h], spent[2 * h + 1]);
                if f == i32::MAX && t == i32::MAX {
                    None
                } else if f <= t {
                    Some(2 * h)
                } else {
                    Some(2 * h + 1)
                }
            })
            .collect();
        // ...but by its free state where a reported route goes on from it.
        for h in 0..n {
            let Some(mut st) = chosen[h] else { continue };
            while prev[st] != NONE {
                let p = prev[st] as usize;
                chosen[p / 2] = Some(p);
                st = p;
            }
        }
        Ok(chosen
            .iter()
            .enumerate()
            .filter_map(|(h, c)| {
                let st = (*c)?;
                Some(geo::Reach {
                    hex: Hex(h as u32),
                    spent: spent[st],
                    prev: (prev[st] != NONE).then(|| Hex(prev[st] / 2)),
                })
            })
            .collect())
    }

    /// The sum of hexside attribute `attr` over the features of the hexside between
    /// `x` and `y` (0 when they are not adjacent).
    #[inline]
    pub(crate) fn hexside_sum(&self, x: u32, y: u32, attr: usize) -> i64 {
        let mask = Board::side_mask(&self.prog.map, &self.board, x, y);
        let mut sum = 0i64;
        for (f, def) in self.prog.hexsides.iter().enumerate() {
            if f < 32 && mask & (1 << f) != 0 {
                sum += def.attrs.get(attr).copied().unwrap_or(0);
            }
        }
        sum
    }

    /// A cost-bounded search from `start` whose step costs come from rulebook code
    /// (`step(vm, from, to, dir)`: an `Int`, negative forbids the step). The first
    /// runtime error stops the search and is returned; a cost below a positive
    /// `minimum` is R0014. Hexes in `stops` are reached but not passed through.
    pub(crate) fn hooked_search(
        &mut self,
        start: u32,
        allowance: i32,
        minimum: i32,
        stops: Option<&[bool]>,
        mut step: impl FnMut(&mut Self, Hex, Hex, u8) -> Exec<Value>,
    ) -> Exec<Vec<geo::Reach>> {
        let grid = self.board.grid.clone();
        let graph = self.board.graph.take();
        let mut scratch = std::mem::take(&mut self.board.scratch);
        let mut err: Option<Halt> = None;
        let mut reach = Vec::new();
        {
            let err1 = &mut err;
            let this = &mut *self;
            let cost = |from: Hex, to: Hex, dir: u8| -> Option<i32> {
                if err1.is_some() {
                    return None;
                }
                match step(this, from, to, dir) {
                    Ok(Value::Int(c)) if c >= 0 && c < minimum as i64 => {
                        *err1 = Some(
                            RuntimeError::new(
                                "R0014",
                                format!("a step cost {c}, below the movement minimum {minimum}"),
                            )
                            .into(),
                        );
                        None
                    }
                    Ok(Value::Int(c)) if c >= 0 => Some(c.min(i32::MAX as i64) as i32),
                    Ok(_) => None,
                    Err(e) => {
                        *err1 = Some(e);
                        None
                    }
                }
            };
            let stop = |h: Hex| stops.map(|s| s.get(h.0 as usize).copied().unwrap_or(false)).unwrap_or(false);
            match &graph {
                Some(g) => geo::reachable_bounded_into(
                    g,
                    Hex(start),
                    allowance,
                    minimum,
                    cost,
                    stop,
                    &mut scratch,
                    &mut reach,
                ),
                None => geo::reachable_bounded_into(
                    &grid,
                    Hex(start),
                    allowance,
                    minimum,
                    cost,
                    stop,
                    &mut scratch,
                    &mut reach,
                ),
            };
        }
        self.board.scratch = scratch;
        self.board.graph = graph;
        match err {
            Some(e) => Err(e),
            None => Ok(reach),
        }
    }

    /// Legal retreat paths of `n` hexes for unit `u` (by the enter and end hooks).
    fn retreat_candidates(&mut self, u: u16, n: i64) -> Exec<Vec<(Vec<u32>, Option<u8>)>> {
        let start = self.state.units[u as usize].hex;
        if start == OFF_MAP || n <= 0 {
            return Ok(Vec::new());
        }
        let n = n.min(geo::MAX_RETREAT as i64) as u32;
        let hooks = self.prog.hooks.clone();
        let grid = self.board.grid.clone();
        let graph = self.board.graph.take();
        let exits = self.prog.map.exit_edges;
        let mut candidates: Vec<(Vec<u32>, Option<u8>)> = Vec::new();
        let mut err: Option<Halt> = None;
        {
            let err1 = &mut err;
            let this = &mut *self;
            let may_enter = |from: Hex, to: Hex, _step: u32| -> bool {
                if err1.is_some() {
                    return false;
                }
                let Some(f) = hooks.retreat_enter else { return true };
                match this.call(f, &[Value::Unit(u), Value::Hex(from.0), Value::Hex(to.0)]) {
                    Ok(Value::Bool(b)) => b,
                    Ok(_) => false,
                    Err(e) => {
                        *err1 = Some(e);
                        false
                    }
                }
            };
            let may_exit = |from: Hex, dir: u8| grid.exit_edges(from, dir).bits() & exits != 0;
            let visit = |p: &[Hex], exit: Option<u8>| {
                candidates.push((p.iter().map(|h| h.0).collect(), exit));
            };
            match &graph {
                Some(g) => geo::for_each_retreat_path(g, Hex(start), n, may_enter, may_exit, visit),
                None => geo::for_each_retreat_path(&grid, Hex(start), n, may_enter, may_exit, visit),
            };
        }
        self.board.graph = graph;
        if let Some(e) = err {
            return Err(e);
        }
        if let Some(end_f) = hooks.retreat_end {
            let mut kept = Vec::with_capacity(candidates.len());
            for c in candidates {
                let ok = match (c.1, c.0.last()) {
                    (Some(_), _) | (None, None) => true,
                    (None, Some(&last)) => as_bool(self.call(end_f, &[Value::Unit(u), Value::Hex(last)])?)?,
                };
                if ok {
                    kept.push(c);
                }
            }
            candidates = kept;
        }
        Ok(candidates)
    }

    /// Retreat unit `u` by `n` hexes by the rulebook's retreat hooks. Returns false when
    /// no legal retreat exists (the unit stays put; the rules decide what follows).
    fn retreat(&mut self, u: u16, n: i64) -> Exec<bool> {
        self.retreat_to(u, n, None)
    }

    /// The hexes where a legal retreat of `n` (by the enter and end hooks) ends, in map
    /// order: the places the owning player may choose among (retreats off the map are
    /// not in it).
    fn retreat_ends(&mut self, u: u16, n: i64) -> Exec<Vec<u32>> {
        let at = self.cur_para;
        let candidates = self.retreat_candidates(u, n)?;
        self.cur_para = at;
        let mut ends: Vec<u32> = candidates
            .iter()
            .filter(|(_, exit)| exit.is_none())
            .filter_map(|(p, _)| p.last().copied())
            .collect();
        ends.sort_unstable();
        ends.dedup();
        Ok(ends)
    }

    /// A retreat of `n` by the hooks; with `end`, only among the legal paths that end in
    /// that hex (the owner's choice), ranked by the `prefer` list as always.
    fn retreat_to(&mut self, u: u16, n: i64, end: Option<u32>) -> Exec<bool> {
        let start = self.state.units[u as usize].hex;
        if start == OFF_MAP || n <= 0 {
            return Ok(start != OFF_MAP);
        }
        // The hooks run nested calls that move `cur_para`: keep the statement's.
        let at = self.cur_para;
        let mut candidates = self.retreat_candidates(u, n)?;
        if let Some(e) = end {
            candidates.retain(|(p, exit)| exit.is_none() && p.last() == Some(&e));
        }
        if candidates.is_empty() {
            return Ok(false);
        }
        let hooks = self.prog.hooks.clone();
        // Score: lexicographic over the prefer hooks, greater first; ties by path order.
        let mut best: Option<(Vec<i64>, usize)> = None;
        for (ci, (path, _exit)) in candidates.iter().enumerate() {
            let mut key = Vec::with_capacity(hooks.retreat_prefer.len());
            for &(scope, f) in &hooks.retreat_prefer {
                let k = match scope {
                    PreferScope::End => {
                        let last = path.last().copied().unwrap_or(start);
                        as_int(self.call(f, &[Value::Unit(u), Value::Hex(last)])?)?
                    }
                    PreferScope::Each => {
                        let mut s = 0i64;
                        for &h in path {
                            s = s.saturating_add(as_int(self.call(f, &[Value::Unit(u), Value::Hex(h)])?)?);
                        }
                        s
                    }
                };
                key.push(k);
            }
            let better = match &best {
                None => true,
                Some((bk, _)) => key > *bk,
            };
            if better {
                best = Some((key, ci));
            }
        }
        self.cur_para = at;
        let Some((_, ci)) = best else { return Ok(false) };
        let (path, exit) = candidates.swap_remove(ci);
        let from = start;
        if let Some(&last) = path.last() {
            self.set_hex(u, Some(last));
        }
        if self.log.enabled() {
            let event = Event::Retreat {
                turn: self.state.turn,
                para: self.prog.para(self.prog.hooks.retreat_para).to_string(),
                step: self.prog.step_of(self.prog.hooks.retreat_para).map(String::from),
                at: self.prog.para(self.cur_para).to_string(),
                unit: self.prog.counters[u as usize].name.clone(),
                from: self.board.label(from).to_string(),
                path: path.iter().map(|&h| self.board.label(h).to_string()).collect(),
                off_map: exit.is_some(),
            };
            self.log.event("retreat", None, &event);
        }
        if exit.is_some() {
            self.remove_unit(u, true)?;
        }
        self.check_triggers()?;
        match path.last() {
            Some(&last) if exit.is_none() && last != from => {
                let args = [Value::Unit(u), Value::Hex(from), Value::Hex(last)];
                self.check_invariants(crate::program::CheckAt::AfterMove, &args)?;
            }
            _ => {}
        }
        Ok(true)
    }

    /// LOS by the rulebook's `line_of_sight` hooks; the end hexes never block.
    fn line_of_sight_hooked(&mut self, x: u32, y: u32) -> Exec<bool> {
        let grid = self.board.grid.clone();
        let (hf, sf) = (self.prog.hooks.los_hex, self.prog.hooks.los_side);
        let mut err: Option<Halt> = None;
        let clear = {
            let this = std::cell::RefCell::new(&mut *self);
            let errc = std::cell::RefCell::new(&mut err);
            let call_bool = |f: crate::program::FnId, args: &[Value]| -> bool {
                if errc.borrow().is_some() {
                    return true;
                }
                match this.borrow_mut().call(f, args) {
                    Ok(Value::Bool(b)) => b,
                    Ok(_) => false,
                    Err(e) => {
                        **errc.borrow_mut() = Some(e);
                        true
                    }
                }
            };
            let hex_blocks = |h: Hex| match hf {
                Some(f) => call_bool(f, &[Value::Hex(h.0), Value::Hex(x), Value::Hex(y)]),
                None => false,
            };
            let side_blocks = |s: geo::Hexside| {
                let Some(f) = sf else { return false };
                match grid.hexside_hexes(s) {
                    Some([Some(a), Some(b)]) => {
                        call_bool(f, &[Value::Hex(a.0), Value::Hex(b.0), Value::Hex(x), Value::Hex(y)])
                    }
                    _ => false,
                }
            };
            geo::line_of_sight(&grid, Hex(x), Hex(y), hex_blocks, side_blocks)
                .map(|l| l.is_clear())
                .unwrap_or(false)
        };
        match err {
            Some(e) => Err(e),
            None => Ok(clear),
        }
    }

    fn line_of_sight(&self, x: u32, y: u32) -> bool {
        let prog = self.prog;
        let blocks_t = prog.terrain_attrs.iter().position(|a| a == "blocks_los");
        let blocks_s = prog.hexside_attrs.iter().position(|a| a == "blocks_los");
        let occupied = |h: u32| {
            self.state.units.iter().enumerate().any(|(i, us)| {
                us.status == UnitStatus::OnMap
                    && us.hex == h
                    && prog.counters[i].values.first().map(|v| v.is_some()).unwrap_or(false)
            })
        };
        let hex_blocks = |h: Hex| {
            let t = prog.map.terrain.get(h.0 as usize).copied().unwrap_or(0) as usize;
            let tb = blocks_t
                .and_then(|a| prog.terrains.get(t).and_then(|d| d.attrs.get(a)))
                .map(|&v| v != 0)
                .unwrap_or(false);
            tb || occupied(h.0)
        };
        let side_blocks = |s: geo::Hexside| {
            let Some(a) = blocks_s else { return false };
            let Some([Some(h1), Some(h2)]) = self.board.grid.hexside_hexes(s) else { return false };
            let mask = Board::side_mask(&prog.map, &self.board, h1.0, h2.0);
            prog.hexsides
                .iter()
                .enumerate()
                .any(|(f, d)| f < 32 && mask & (1 << f) != 0 && d.attrs.get(a).copied().unwrap_or(0) != 0)
        };
        geo::line_of_sight(&self.board.grid, Hex(x), Hex(y), hex_blocks, side_blocks)
            .map(|l| l.is_clear())
            .unwrap_or(false)
    }
}

fn rows_lo(t: &crate::program::TableDef) -> i64 {
    t.rows.first().map(|r| r.0).unwrap_or(0)
}
fn rows_hi(t: &crate::program::TableDef) -> i64 {
    t.rows.last().map(|r| r.1).unwrap_or(0)
}

pub(crate) fn range_label(lo: i64, hi: i64) -> String {
    match (lo == i64::MIN, hi == i64::MAX) {
        (true, true) => "all".into(),
        (true, false) => format!("..{hi}"),
        (false, true) => format!("{lo}.."),
        (false, false) if lo == hi => format!("{lo}"),
        _ => format!("{lo}..{hi}"),
    }
}

/// The hooks of one movement mode, as the search reads them.
struct ModeHooks {
    allowance: Option<crate::program::FnId>,
    cost: Option<crate::program::FnId>,
    stop: Option<crate::program::FnId>,
    stop_crossing: bool,
    minimum: Option<crate::program::FnId>,
}
