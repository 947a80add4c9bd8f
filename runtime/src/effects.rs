//! Instructions with effects on the game: dice, table lookups, decisions, lists,
//! unit and track changes, the turn and phase markers; triggers; log events.

use crate::agent::ChoiceRequest;
use crate::error::{GameResult, RuntimeError};
use crate::op::{Field, Op, NO_REG};
use crate::program::{CheckAt, MarkerOn, TrackKey};

/// The most dice one `roll n d6` throws.
const MAX_POOL: i64 = 1000;
/// How deep chained triggers may fire inside one another's bodies (R0017 beyond).
const MAX_CHAIN: u32 = 32;
use crate::log::{Ctx, Event};
use crate::state::{UnitStatus, OFF_MAP};
use crate::value::Value;
use crate::vm::{as_bool, as_int, Exec, Halt, Vm};
use serde_json::{json, Value as Json};

impl<'p> Vm<'p> {
    /// A loggable label for a value (unit name, hex id, side, code...).
    pub fn label(&self, v: Value) -> Json {
        let p = self.prog;
        match v {
            Value::Nil => Json::Null,
            Value::Int(i) => json!(i),
            Value::Bool(b) => json!(b),
            Value::Side(s) => json!(p.sides.get(s as usize).map(|x| x.as_str()).unwrap_or("?")),
            Value::Unit(u) => json!(p.counters.get(u as usize).map(|c| c.name.as_str()).unwrap_or("?")),
            Value::Hex(h) => json!(self.board.label(h)),
            Value::Sym(s) => json!(p.symbols.get(s as usize).map(|x| x.name.as_str()).unwrap_or("?")),
            Value::Terrain(t) => json!(p.terrains.get(t as usize).map(|x| x.name.as_str()).unwrap_or("?")),
            Value::UnitType(t) => {
                json!(p.unit_types.get(t as usize).map(|x| x.name.as_str()).unwrap_or("?"))
            }
            Value::List(_) => match self.list(v) {
                Ok(items) => Json::Array(items.iter().map(|&x| self.label(x)).collect()),
                Err(_) => Json::Null,
            },
        }
    }

    pub(crate) fn label_string(&self, v: Value) -> String {
        match self.label(v) {
            Json::String(s) => s,
            other => other.to_string(),
        }
    }

    /// When and where an event happens: turn, phase, phasing side, the paragraph of the
    /// rule running and, for a rule from a layer above the base, the layer.
    fn ctx(&self) -> Ctx<'p> {
        let prog = self.prog;
        let layer = match prog.para_layer.get(self.cur_para as usize) {
            Some(&l) if l != 0 => prog.layers.get(l as usize).map(|info| info.name.as_str()),
            _ => None,
        };
        Ctx {
            turn: self.state.turn,
            phase: if self.state.phase == u32::MAX { "" } else { prog.string(self.state.phase) },
            side: prog.sides.get(self.state.phasing as usize).map(String::as_str),
            para: prog.para(self.cur_para),
            step: prog.step_of(self.cur_para),
            layer,
        }
    }

    /// What a die of `sides` faces adds to its 1..sides reading: the rulebook's die
    /// may be numbered otherwise (`dice d10 faces 0..9`).
    fn face_offset(&self, sides: u16) -> i64 {
        if sides as u32 == self.prog.die_sides {
            self.prog.die_offset
        } else {
            0
        }
    }

    /// Log an in-game event with its context.
    pub(crate) fn event(&mut self, kind: &str, event: Event) {
        if !self.log.enabled() {
            return;
        }
        let ctx = self.ctx();
        self.log.event(kind, Some(&ctx), &event);
    }

    fn unit_of(&self, v: Value) -> Result<u16, RuntimeError> {
        match v {
            Value::Unit(u) if (u as usize) < self.state.units.len() => Ok(u),
            other => Err(RuntimeError::new("R0002", format!("expected a unit, found {other:?}"))),
        }
    }

    /// In the view of the side scoring a choice (6.17c): the estimate its rulebook shows
    /// of a hidden rating or type of another side's unit; None when nothing is hidden.
    pub(crate) fn hidden_value(&mut self, u: u16, field: Field) -> Option<Exec<Value>> {
        let viewer = self.view?;
        if self.state.units.get(u as usize)?.side == viewer {
            return None;
        }
        let (shown, revealed_by) = match field {
            Field::Rating(r) => {
                let h = self.prog.hidden_ratings.iter().find(|h| h.rating == r)?;
                (h.shown, h.revealed_by)
            }
            Field::UnitType => {
                let h = self.prog.hidden_type.as_ref()?;
                (h.shown, h.revealed_by)
            }
            _ => return None,
        };
        // An answer that depends on the view (or on the revealing marker) is not one to
        // keep in the movement memo.
        if self.rec.active {
            self.rec.uncacheable = true;
        }
        if self.revealed(u, revealed_by) {
            return None;
        }
        // The estimate is computed in full view, then the view resumes.
        self.view = None;
        let v = self.call(shown, &[Value::Unit(u)]);
        self.view = Some(viewer);
        Some(v)
    }

    /// `u is class` in the view of the side scoring a choice: the classes of the type it
    /// is shown as, when types are hidden and the unit is another side's.
    pub(crate) fn hidden_class(&mut self, u: u16, class: u8) -> Option<Exec<bool>> {
        self.view?;
        self.prog.hidden_type.as_ref()?;
        Some(match self.hidden_value(u, Field::UnitType)? {
            Ok(Value::UnitType(t)) => Ok(self
                .prog
                .unit_types
                .get(t as usize)
                .map(|ty| class < 64 && ty.classes & (1u64 << class) != 0)
                .unwrap_or(false)),
            Ok(_) => Ok(false),
            Err(e) => Err(e),
        })
    }

    /// Does unit `u` carry the marker that reveals it (`hidden ... revealed by M`)?
    pub(crate) fn revealed(&self, u: u16, marker: Option<u16>) -> bool {
        match (marker, self.state.units.get(u as usize)) {
            (Some(m), Some(us)) => us.markers & (1u64 << (m as u64 % 64)) != 0,
            _ => false,
        }
    }

    /// An option's label as the agent of side `s` reads it: with `hidden type`, another
    /// side's unit is a block in its space ("B block in Paris"), not a name (6.17c),
    /// unless it carries the marker that reveals it.
    fn agent_label(&self, v: Value, s: u8) -> String {
        if let (Value::Unit(u), Some(ht)) = (v, self.prog.hidden_type.as_ref()) {
            if let Some(us) = self
                .state
                .units
                .get(u as usize)
                .filter(|us| us.side != s && !self.revealed(u, ht.revealed_by))
            {
                let owner = self.prog.sides.get(us.side as usize).cloned().unwrap_or_default();
                let at = match self.unit_value(u, Field::Hex) {
                    Value::Hex(h) => self.board.label(h),
                    _ => "reserve".into(),
                };
                return format!("{owner} block in {at}");
            }
        }
        self.label_string(v)
    }

    fn hand_slot(&self, hand: u16, s: u8) -> Option<usize> {
        let i = hand as usize * self.prog.sides.len() + s as usize;
        (i < self.state.hands.len()).then_some(i)
    }

    fn side_of(&self, v: Value) -> Result<u8, RuntimeError> {
        match v {
            Value::Side(s) if (s as usize) < self.prog.sides.len() => Ok(s),
            other => Err(RuntimeError::new("R0002", format!("expected a side, found {other:?}"))),
        }
    }

    #[inline]
    pub(crate) fn unit_value(&self, u: u16, field: Field) -> Value {
        let us = &self.state.units[u as usize];
        let c = &self.prog.counters[u as usize];
        match field {
            Field::Rating(r) => {
                if let Some(v) = self.face_rating(u, r, us.step) {
                    return Value::Int(v);
                }
                let v = c
                    .values
                    .get(r as usize)
                    .and_then(|o| o.as_ref())
                    .and_then(|steps| steps.get(us.step as usize).or(steps.last()))
                    .copied()
                    .unwrap_or(0);
                Value::Int(v)
            }
            Field::Hex => {
                if us.status == UnitStatus::OnMap && us.hex != OFF_MAP {
                    Value::Hex(us.hex)
                } else {
                    Value::Nil
                }
            }
            Field::Side => Value::Side(us.side),
            Field::UnitType => Value::UnitType(c.unit_type),
            Field::Steps => Value::Int(match us.status {
                UnitStatus::Eliminated => 0,
                _ => c.steps as i64 - us.step as i64,
            }),
            Field::OnMap => Value::Bool(us.status == UnitStatus::OnMap),
            Field::Facing => Value::Int(i64::from(crate::facing::hexside(us.facing))),
            Field::VertexFacing => Value::Bool(us.facing & crate::facing::VERTEX != 0),
            Field::Formation => self.formation_value(u),
            Field::Terrain | Field::TerrainAttr(_) | Field::AreaAttr(_) | Field::CardAttr(_) => Value::Nil,
        }
    }

    /// Execute an instruction other than arithmetic, control flow and calls.
    /// Returns the next pc.
    pub(crate) fn exec_effect(&mut self, op: Op, base: usize, pc: usize) -> Exec<usize> {
        match op {
            Op::Roll { dst, count, sides } => {
                let offset = self.face_offset(sides);
                let v = match self.forced_dice.pop_front() {
                    Some(v) => v,
                    None if self.dice_record.is_some() => (1 + offset) * count as i64,
                    None => self.dice.roll(count as u32, sides as u32) + offset * count as i64,
                };
                if let Some(rec) = &mut self.dice_record {
                    rec.push(crate::dice::RolledDie {
                        count: count as u32,
                        sides: sides as u32,
                        offset,
                        value: v,
                    });
                }
                self.stats.rolls += 1;
                self.set_reg(base, dst, Value::Int(v));
                self.event(
                    "roll",
                    Event::Roll { dice: format!("{count}d{sides}"), value: v, dice_values: None },
                );
            }
            Op::Lookup { dst, table, col, row, quiet } => {
                let key = if col == NO_REG { 0 } else { as_int(self.reg(base, col))? };
                let roll = as_int(self.reg(base, row))?;
                let v = self.lookup(table as usize, key, 0, roll, quiet)?;
                self.set_reg(base, dst, v);
            }
            Op::RollPool { dst, count, sides } => {
                let n = as_int(self.reg(base, count))?;
                if !(0..=MAX_POOL).contains(&n) {
                    return Err(RuntimeError::new(
                        "R0016",
                        format!("roll of {n} dice: a pool holds 0 to {MAX_POOL} dice"),
                    )
                    .into());
                }
                let mut faces = Vec::with_capacity(n as usize);
                let offset = self.face_offset(sides);
                for _ in 0..n {
                    let v = match self.forced_dice.pop_front() {
                        Some(v) => v,
                        None if self.dice_record.is_some() => 1 + offset,
                        None => self.dice.roll(1, sides as u32) + offset,
                    };
                    if let Some(rec) = &mut self.dice_record {
                        rec.push(crate::dice::RolledDie { count: 1, sides: sides as u32, offset, value: v });
                    }
                    faces.push(v);
                }
                self.stats.rolls += 1;
                let l = self.new_list();
                self.lists[l as usize].extend(faces.iter().map(|&v| Value::Int(v)));
                self.set_reg(base, dst, Value::List(l));
                let sum: i64 = faces.iter().sum();
                self.event(
                    "roll",
                    Event::Roll { dice: format!("{n}d{sides}"), value: sum, dice_values: Some(faces) },
                );
            }
            Op::TrackGet2 { dst, track, a, b } => {
                let slot = self.track_slot2(base, track, a, b)?;
                let v = self.state.tracks[slot];
                let holds = self.prog.tracks.get(track as usize).map(|t| t.holds).unwrap_or_default();
                self.set_reg(base, dst, holds.value(v));
            }
            Op::TrackPut { track, a, b, v, add } => {
                let holds = self.prog.tracks.get(track as usize).map(|t| t.holds).unwrap_or_default();
                if holds != crate::program::Holds::Int {
                    return self.put_reference(base, track, a, b, v, add).map(|()| pc);
                }
                let x = as_int(self.reg(base, v))?;
                let slot = self.put_slot(base, track, a, b)?;
                let def = &self.prog.tracks[track as usize];
                let old = self.state.tracks[slot];
                let new = if add { old.saturating_add(x) } else { x }.clamp(def.lo, def.hi);
                self.state.tracks[slot] = new;
                // Effects are logged, not non-events: an adjustment by zero, or a set to
                // the value the track already holds, writes no line.
                let changed = if add { x != 0 } else { new != old };
                if changed && self.log.enabled() {
                    let of = self.keys_label(base, a, b);
                    let (by, set) = if add { (x, None) } else { (new - old, Some(x)) };
                    let track = def.name.clone();
                    self.event("track", Event::Track { track, of, by: Some(by), value: json!(new), set });
                }
                self.check_triggers()?;
            }
            Op::RegainStep { u } => {
                let u = self.unit_of(self.reg(base, u))?;
                let st = &mut self.state.units[u as usize];
                if st.status != UnitStatus::OnMap || st.step == 0 {
                    return Ok(pc);
                }
                st.step -= 1;
                let left = self.prog.counters[u as usize].steps - st.step;
                let name = self.prog.counters[u as usize].name.clone();
                self.event("step_gain", Event::Step { unit: name, steps_left: i64::from(left) });
                self.check_triggers()?;
            }
            Op::Choose { dst, list, scores, side, what, or_none, secret, private } => {
                self.view = None;
                let options: Vec<Value> = self.list(self.reg(base, list))?.to_vec();
                let mut score_vals: Option<Vec<i64>> = if scores == NO_REG
                    || self.reg(base, scores) == Value::Nil
                {
                    None
                } else {
                    Some(self.list(self.reg(base, scores))?.iter().map(|v| v.as_int().unwrap_or(0)).collect())
                };
                // `or none prefer S`: the score of declining follows the options' scores.
                let none_score = match score_vals.as_mut() {
                    Some(v) if v.len() == options.len() + 1 => v.pop(),
                    _ => None,
                };
                let s = match self.reg(base, side) {
                    Value::Side(s) => s,
                    other => return Err(RuntimeError::new("R0002", format!("choose by {other:?}")).into()),
                };
                let mut asked = false;
                let chosen = if options.is_empty() {
                    if !or_none {
                        return Err(RuntimeError::new(
                            "R0009",
                            format!("nothing to choose for {}", self.prog.string(what)),
                        )
                        .into());
                    }
                    None
                } else if options.len() == 1 && !or_none {
                    Some(0)
                } else if self.replay.is_some() {
                    // A search playout replaying the game up to its fork.
                    asked = true;
                    self.replay_answer(s, options.len(), or_none)?
                } else {
                    asked = true;
                    let wants =
                        self.agents.get(self.seats.player(s)).map(|a| a.wants_labels()).unwrap_or(false);
                    let labels: Vec<String> = if wants {
                        options.iter().map(|&o| self.agent_label(o, s)).collect()
                    } else {
                        Vec::new()
                    };
                    let para = self.prog.para(self.cur_para).to_string();
                    let side_name = self.prog.sides.get(s as usize).cloned().unwrap_or_default();
                    let req = ChoiceRequest {
                        side: s,
                        side_name: &side_name,
                        what: self.prog.string(what),
                        para: &para,
                        count: options.len(),
                        labels: &labels,
                        scores: score_vals.as_deref(),
                        or_none,
                        none_score,
                        history: &self.history,
                        unrevealed: self.unrevealed_for(s),
                        resume: self.checkpoint.as_deref(),
                    };
                    let agent = self
                        .agents
                        .get_mut(self.seats.player(s))
                        .ok_or_else(|| RuntimeError::new("R0010", "no agent for side"))?;
                    let c = agent.choose(&req);
                    match c {
                        Some(i) if i < options.len() => Some(i),
                        None if or_none => None,
                        _ => Some(0),
                    }
                };
                self.stats.decisions += 1;
                if asked {
                    let answer = chosen.map(|i| i as u32);
                    let d = crate::agent::Decision { side: s, count: options.len() as u32, or_none, answer };
                    self.history.push(d);
                    if secret && self.sealed_from.is_none() {
                        if let Some(n) = self.secrets_pending.get_mut(s as usize) {
                            *n += 1;
                        }
                    }
                }
                let v = chosen.map(|i| options[i]).unwrap_or(Value::Nil);
                self.set_reg(base, dst, v);
                if self.log.enabled() && (options.len() > 1 || or_none) {
                    let by = self.prog.sides.get(s as usize).cloned();
                    let choice = self.label(v);
                    let player =
                        self.seats.declared.then(|| json!(self.seats.name(self.prog, self.seats.player(s))));
                    let what = self.prog.string(what).to_string();
                    // A private choice in a sealed block stays out of the block's reveal.
                    let sealed = match self.sealed.as_mut() {
                        Some(_) if private => Some(true),
                        Some(list) => {
                            list.push(json!({ "by": by, "what": what, "choice": choice }));
                            Some(true)
                        }
                        None => None,
                    };
                    let options = options.len();
                    let secret = secret.then_some(true);
                    let private = private.then_some(true);
                    self.event(
                        "decision",
                        Event::Decision { by, what, options, choice, player, sealed, secret, private },
                    );
                }
            }
            Op::WantsScores { dst, side, list } => {
                let many = self.list(self.reg(base, list)).map(|l| l.len() > 1).unwrap_or(false);
                let wants = match self.reg(base, side) {
                    // A replayed decision is answered from the record: no scores.
                    Value::Side(_) if self.replay.is_some() => false,
                    Value::Side(s) => {
                        self.agents.get(self.seats.player(s)).map(|a| a.wants_scores()).unwrap_or(false)
                    }
                    _ => false,
                };
                // Scores are computed in the chooser's view (hidden tracks, 6.17c).
                if many && wants && self.prog.has_views() {
                    if let Value::Side(s) = self.reg(base, side) {
                        self.view = Some(s);
                    }
                }
                self.set_reg(base, dst, Value::Bool(many && wants));
            }
            Op::ListNew { dst } => {
                let l = self.new_list();
                self.set_reg(base, dst, Value::List(l));
            }
            Op::ListPush { list, v } => {
                let x = self.reg(base, v);
                match self.reg(base, list) {
                    Value::List(l) if (l as usize) < self.lists.len() => self.lists[l as usize].push(x),
                    other => return Err(RuntimeError::new("R0002", format!("push onto {other:?}")).into()),
                }
            }
            Op::IterNext { list, idx, dst, done } => {
                let i = as_int(self.reg(base, idx))?;
                let items = self.list(self.reg(base, list))?;
                if i < 0 || i as usize >= items.len() {
                    return Ok(done as usize);
                }
                let x = items[i as usize];
                self.set_reg(base, dst, x);
                self.set_reg(base, idx, Value::Int(i + 1));
            }
            Op::Field { dst, obj, field } => {
                let o = self.reg(base, obj);
                let v = match (o, field) {
                    (Value::Unit(u), f) if (u as usize) < self.state.units.len() => {
                        match self.view.and_then(|_| self.hidden_value(u, f)) {
                            Some(v) => v?,
                            None => self.unit_value(u, f),
                        }
                    }
                    (Value::Hex(h), Field::Terrain) => {
                        Value::Terrain(self.prog.map.terrain.get(h as usize).copied().unwrap_or(0))
                    }
                    (Value::Hex(h), Field::AreaAttr(a)) => {
                        let map = &self.prog.map;
                        let k = map.area_attrs.len();
                        Value::Int(map.area_values.get(h as usize * k + a as usize).copied().unwrap_or(0))
                    }
                    (Value::Sym(c), Field::CardAttr(a)) => Value::Int(
                        self.prog
                            .card(c)
                            .and_then(|(d, i)| self.prog.decks[d].cards[i].values.get(a as usize).copied())
                            .unwrap_or(0),
                    ),
                    (Value::Terrain(t), Field::TerrainAttr(a)) => Value::Int(
                        self.prog
                            .terrains
                            .get(t as usize)
                            .and_then(|d| d.attrs.get(a as usize))
                            .copied()
                            .unwrap_or(0),
                    ),
                    (Value::Nil, _) => Value::Nil,
                    (o, f) => {
                        return Err(RuntimeError::new("R0002", format!("no field {f:?} on {o:?}")).into())
                    }
                };
                self.set_reg(base, dst, v);
            }
            Op::IsClass { dst, u, class } => {
                let u = self.unit_of(self.reg(base, u))?;
                let v = match self.hidden_class(u, class) {
                    Some(v) => v?,
                    None => self.prog.unit_has_class(u, self.face_of(u), class),
                };
                self.set_reg(base, dst, Value::Bool(v));
            }
            Op::HasMarker { dst, obj, marker } => {
                let bit = 1u64 << (marker as u64 % 64);
                let v = match self.reg(base, obj) {
                    Value::Unit(u) => self.state.units.get(u as usize).map(|s| s.markers & bit != 0),
                    Value::Hex(h) => self.state.hex_markers.get(h as usize).map(|m| m & bit != 0),
                    Value::Side(s) => self.state.side_markers.get(s as usize).map(|m| m & bit != 0),
                    _ => None,
                };
                self.set_reg(base, dst, Value::Bool(v.unwrap_or(false)));
            }
            Op::TrackGet { dst, track, side } => {
                if let (Some(viewer), Value::Unit(u)) = (self.view, self.reg(base, side)) {
                    if let Some(h) = self.prog.hidden.iter().find(|h| h.track == track) {
                        let owner = self.state.units.get(u as usize).map(|c| c.side);
                        if owner.is_some() && owner != Some(viewer) && !self.revealed(u, h.revealed_by) {
                            // The estimate is computed in full view, then the view resumes.
                            self.view = None;
                            let v = self.call(h.shown, &[Value::Unit(u)]);
                            self.view = Some(viewer);
                            self.set_reg(base, dst, v?);
                            return Ok(pc);
                        }
                    }
                }
                let slot = self.track_index_slot(base, track, side)?;
                let v = self.state.tracks[slot];
                let holds = self.prog.tracks.get(track as usize).map(|t| t.holds).unwrap_or_default();
                self.set_reg(base, dst, holds.value(v));
            }
            Op::Adjust { track, side, by } => {
                let who = if side == NO_REG { Value::Nil } else { self.reg(base, side) };
                let d = as_int(self.reg(base, by))?;
                let slot = self.track_index_slot(base, track, side)?;
                let def = &self.prog.tracks[track as usize];
                let old = self.state.tracks[slot];
                let new = old.saturating_add(d).clamp(def.lo, def.hi);
                self.state.tracks[slot] = new;
                // An adjustment by zero is not an event of the game: no log line.
                if d != 0 && self.log.enabled() {
                    let of = match (def.key, who) {
                        // A border by the two spaces it joins: "Paris|Lyon", "0304|0305".
                        (crate::program::SpaceKey::Border, Value::Int(i)) => json!(self.border_label(i)),
                        _ => self.label(who),
                    };
                    let track = def.name.clone();
                    self.event(
                        "track",
                        Event::Track { track, of, by: Some(d), value: json!(new), set: None },
                    );
                }
                self.check_triggers()?;
            }
            Op::MoveUnit { u, h } => {
                let u = self.unit_of(self.reg(base, u))?;
                let h = match self.reg(base, h) {
                    Value::Hex(h) if h < self.board.hex_count() => h,
                    other => return Err(RuntimeError::new("R0002", format!("move to {other:?}")).into()),
                };
                let from = self.state.units[u as usize].hex;
                self.state.units[u as usize].status = UnitStatus::OnMap;
                self.set_hex(u, Some(h));
                if self.log.enabled() {
                    let name = self.prog.counters[u as usize].name.clone();
                    let from = (from != OFF_MAP).then(|| self.board.label(from).to_string());
                    let to = self.board.label(h).to_string();
                    self.event("move", Event::Move { unit: name, from, to });
                }
                self.check_triggers()?;
                if from != OFF_MAP && from != h {
                    self.check_invariants(
                        CheckAt::AfterMove,
                        &[Value::Unit(u), Value::Hex(from), Value::Hex(h)],
                    )?;
                    self.run_interrupts(u, from, h)?;
                }
            }
            Op::Eliminate { u } => {
                let u = self.unit_of(self.reg(base, u))?;
                self.eliminate_unit(u)?;
            }
            Op::Remove { u } => {
                let u = self.unit_of(self.reg(base, u))?;
                self.remove_unit(u, false)?;
            }
            Op::LoseStep { u } => {
                let u = self.unit_of(self.reg(base, u))?;
                let steps = self.prog.counters[u as usize].steps;
                let st = &mut self.state.units[u as usize];
                if st.status != UnitStatus::OnMap {
                    return Ok(pc);
                }
                if st.step + 1 >= steps {
                    self.eliminate_unit(u)?;
                } else {
                    st.step += 1;
                    let left = steps - st.step;
                    let name = self.prog.counters[u as usize].name.clone();
                    self.event("step_loss", Event::Step { unit: name, steps_left: i64::from(left) });
                    self.check_triggers()?;
                }
            }
            Op::Face { u, dir, vertex } => {
                self.exec_face(self.reg(base, u), self.reg(base, dir), vertex)?;
            }
            Op::Form { u, f } => {
                self.exec_form(self.reg(base, u), self.reg(base, f))?;
            }
            Op::Mark { obj, marker } | Op::Unmark { obj, marker } => {
                let set = matches!(op, Op::Mark { .. });
                let bit = 1u64 << (marker as u64 % 64);
                let target = self.reg(base, obj);
                let on = self.prog.markers.get(marker as usize).map(|m| m.on);
                let slot: Option<&mut u64> = match (target, on) {
                    (Value::Unit(u), Some(MarkerOn::Unit)) => {
                        self.state.units.get_mut(u as usize).map(|s| &mut s.markers)
                    }
                    (Value::Hex(h), Some(MarkerOn::Hex)) => self.state.hex_markers.get_mut(h as usize),
                    (Value::Side(s), Some(MarkerOn::Side)) => self.state.side_markers.get_mut(s as usize),
                    _ => None,
                };
                let Some(m) = slot else {
                    return Err(RuntimeError::new("R0002", format!("cannot mark {target:?}")).into());
                };
                let before = *m & bit != 0;
                if set {
                    *m |= bit
                } else {
                    *m &= !bit
                }
                if before != set && self.log.enabled() {
                    let name = self.prog.markers[marker as usize].name.clone();
                    let what = self.label(target);
                    self.event(if set { "mark" } else { "unmark" }, Event::Marker { marker: name, on: what });
                }
                if before != set {
                    self.check_triggers()?;
                }
            }
            Op::Win { side, reason } => {
                let sides: Vec<u8> = match self.reg(base, side) {
                    Value::Side(s) => vec![s],
                    // `win team(s)`, `win [A, B]`: several sides share the victory.
                    v @ Value::List(_) => {
                        let mut out = Vec::new();
                        for x in self.list(v)?.iter() {
                            match x {
                                Value::Side(s) if !out.contains(s) => out.push(*s),
                                Value::Side(_) => {}
                                other => {
                                    return Err(RuntimeError::new("R0002", format!("win by {other:?}")).into())
                                }
                            }
                        }
                        out
                    }
                    other => return Err(RuntimeError::new("R0002", format!("win by {other:?}")).into()),
                };
                if sides.is_empty() {
                    return Err(RuntimeError::new("R0002", "win by an empty list of sides").into());
                }
                let names: Vec<String> = sides
                    .iter()
                    .map(|&s| self.prog.sides.get(s as usize).cloned().unwrap_or_default())
                    .collect();
                return Err(Halt::end(GameResult {
                    winner: Some(names.join("+")),
                    winners: if names.len() > 1 { names } else { Vec::new() },
                    team: if sides.len() > 1 { crate::players::team_named(self.prog, &sides) } else { None },
                    reason: self.prog.string(reason).to_string(),
                    para: self.prog.para(self.cur_para).to_string(),
                    turn: self.state.turn,
                }));
            }
            Op::Draw { reason } => {
                return Err(Halt::end(GameResult {
                    winner: None,
                    winners: Vec::new(),
                    team: None,
                    reason: self.prog.string(reason).to_string(),
                    para: self.prog.para(self.cur_para).to_string(),
                    turn: self.state.turn,
                }));
            }
            Op::Log { fmt, args, argc } => {
                if self.log.enabled() {
                    let f = self.prog.string(fmt).to_string();
                    let mut out = String::new();
                    let mut it = f.split("{}");
                    if let Some(first) = it.next() {
                        out.push_str(first);
                    }
                    for (i, piece) in it.enumerate() {
                        let v = if i < argc as usize { self.reg(base, args + i as u16) } else { Value::Nil };
                        out.push_str(&self.label_string(v));
                        out.push_str(piece);
                    }
                    self.event("note", Event::Note { message: out });
                }
            }
            Op::CupPut { cup, v } => {
                let x = self.reg(base, v);
                if let Some(c) = self.state.cups.get_mut(cup as usize) {
                    c.push(x);
                }
                self.check_triggers()?;
            }
            Op::CupEmpty { cup } => {
                if let Some(c) = self.state.cups.get_mut(cup as usize) {
                    c.clear();
                }
                self.check_triggers()?;
            }
            Op::CupDraw { dst, cup } => {
                let n = self.state.cups.get(cup as usize).map(|c| c.len()).unwrap_or(0);
                let drawn = if n == 0 {
                    Value::Nil
                } else {
                    let i = self.dice.below(n as u32) as usize;
                    self.state.cups[cup as usize].remove(i)
                };
                self.set_reg(base, dst, drawn);
                if self.log.enabled() {
                    let name = self.prog.cups.get(cup as usize).map(|c| c.name.clone());
                    let label = self.label(drawn);
                    self.event("draw", Event::CupDraw { cup: name, drawn: label, left: n.saturating_sub(1) });
                }
                self.check_triggers()?;
            }
            Op::HandGet { dst, hand, side } => {
                let s = self.side_of(self.reg(base, side))?;
                let items = self.hand_slot(hand, s).map(|i| self.state.hands[i].clone()).unwrap_or_default();
                let l = self.new_list();
                self.lists[l as usize].extend(items);
                self.set_reg(base, dst, Value::List(l));
            }
            Op::DrawCard { deck, hand, side } => {
                let s = self.side_of(self.reg(base, side))?;
                let slot =
                    self.hand_slot(hand, s).ok_or_else(|| RuntimeError::new("R0002", "no such hand"))?;
                let n = self.state.decks.get(deck as usize).map(|c| c.len()).unwrap_or(0);
                let drawn = if n == 0 {
                    Value::Nil
                } else {
                    let i = self.dice.below(n as u32) as usize;
                    self.state.decks[deck as usize].remove(i)
                };
                if drawn != Value::Nil {
                    self.state.hands[slot].push(drawn);
                }
                if self.log.enabled() {
                    let name = self.prog.decks.get(deck as usize).map(|d| d.name.clone());
                    let hname = self.prog.hands.get(hand as usize).map(|h| h.name.clone());
                    let to = self.prog.sides.get(s as usize).cloned();
                    let label = self.label(drawn);
                    let left = n.saturating_sub(1);
                    self.event("draw", Event::CardDraw { deck: name, drawn: label, to, hand: hname, left });
                }
                self.check_triggers()?;
            }
            Op::CardOut { card, hand, side, play } => {
                let s = self.side_of(self.reg(base, side))?;
                let c = self.reg(base, card);
                let slot =
                    self.hand_slot(hand, s).ok_or_else(|| RuntimeError::new("R0002", "no such hand"))?;
                let Some(at) = self.state.hands[slot].iter().position(|&x| x == c) else {
                    let hname =
                        self.prog.hands.get(hand as usize).map(|h| h.name.clone()).unwrap_or_default();
                    let side_name = self.prog.sides.get(s as usize).cloned().unwrap_or_default();
                    return Err(RuntimeError::new(
                        "R0099",
                        format!("{} is not in {side_name}'s hand `{hname}`", self.label_string(c)),
                    )
                    .into());
                };
                self.state.hands[slot].remove(at);
                let found = match c {
                    Value::Sym(sym) => self.prog.card(sym),
                    _ => None,
                };
                if let Some((d, _)) = found {
                    self.state.discards[d].push(c);
                }
                let hname = self.prog.hands.get(hand as usize).map(|h| h.name.clone());
                let by = self.prog.sides.get(s as usize).cloned();
                let label = self.label(c);
                if !play {
                    self.event("discard", Event::Card { card: label, by, hand: hname });
                    self.check_triggers()?;
                    return Ok(pc);
                }
                let (para, event) = match found {
                    Some((d, i)) => {
                        let cd = &self.prog.decks[d].cards[i];
                        (Some(cd.para), cd.event)
                    }
                    None => (None, None),
                };
                let saved = self.cur_para;
                if let Some(p) = para {
                    self.cur_para = p;
                }
                self.event("play", Event::Card { card: label, by, hand: hname });
                self.check_triggers()?;
                if let Some(ev) = event {
                    self.call(ev, &[Value::Side(s)])?;
                }
                self.cur_para = saved;
            }
            Op::Reshuffle { deck } => {
                let d = deck as usize;
                if d < self.state.decks.len() {
                    let back = std::mem::take(&mut self.state.discards[d]);
                    let n = back.len();
                    self.state.decks[d].extend(back);
                    // A shuffled deck has no order: keep it in declared card order, so a
                    // draw depends on which cards are in it, not on the order discarded.
                    let prog = self.prog;
                    self.state.decks[d].sort_by_key(|&c| match c {
                        Value::Sym(sym) => prog.card(sym).map(|x| x.1).unwrap_or(usize::MAX),
                        _ => usize::MAX,
                    });
                    let name = self.prog.decks.get(d).map(|x| x.name.clone());
                    let left = self.state.decks[d].len();
                    self.event("reshuffle", Event::Reshuffle { deck: name, returned: n, left });
                }
                self.check_triggers()?;
            }
            Op::Transfer { u, side } => {
                let u = self.unit_of(self.reg(base, u))?;
                let s = self.side_of(self.reg(base, side))?;
                let from = self.state.units[u as usize].side;
                if from != s {
                    self.state.units[u as usize].side = s;
                    self.rebuild_occupancy();
                    let name = self.prog.counters[u as usize].name.clone();
                    let f = self.prog.sides.get(from as usize).cloned();
                    let t = self.prog.sides.get(s as usize).cloned();
                    self.event("transfer", Event::Transfer { unit: name, from: f, to: t });
                    self.check_triggers()?;
                }
            }
            Op::TurnBegin { turn } => {
                let t = as_int(self.reg(base, turn))?;
                if self.stop_at_turn.is_some_and(|h| t >= h) {
                    return Err(Halt::horizon());
                }
                self.state.turn = t;
                self.event("turn", Event::Point {});
                // Reinforcements due this turn enter at their hex.
                for i in 0..self.state.units.len() {
                    let us = self.state.units[i];
                    if us.status == UnitStatus::Pending
                        && us.enters as i64 == t
                        && us.entry_hex != OFF_MAP
                        && !self.arrives_by_move(i as u16)
                    {
                        self.state.units[i].status = UnitStatus::OnMap;
                        self.set_hex(i as u16, Some(us.entry_hex));
                        if self.log.enabled() {
                            let name = self.prog.counters[i].name.clone();
                            let at = self.board.label(us.entry_hex).to_string();
                            self.event("enter", Event::Enter { unit: name, at });
                        }
                    }
                }
                self.check_triggers()?;
            }
            Op::PhaseBegin { name, side } => {
                self.version += 1;
                if let Value::Side(s) = self.reg(base, side) {
                    self.state.phasing = s;
                }
                self.state.phase = name;
                self.event("phase", Event::Point {});
                let s = Value::Side(self.state.phasing);
                self.check_invariants(CheckAt::BeforePhase(Some(name)), &[s])?;
            }
            Op::PhaseEnd => {
                if self.state.phase != u32::MAX {
                    let s = Value::Side(self.state.phasing);
                    self.check_invariants(CheckAt::AfterPhase(Some(self.state.phase)), &[s])?;
                }
                self.event("phase_end", Event::Point {});
                self.state.phase = u32::MAX;
            }
            Op::TurnEnd => self.check_invariants(CheckAt::AfterTurn, &[])?,
            Op::SealedBegin => {
                self.sealed = Some(Vec::new());
                self.sealed_from = Some(self.history.len());
            }
            Op::Reveal { value, side, what } => {
                if let Ok(s) = self.side_of(self.reg(base, side)) {
                    if let Some(n) = self.secrets_pending.get_mut(s as usize) {
                        *n = n.saturating_sub(1);
                    }
                }
                if self.log.enabled() {
                    let by = self.prog.sides.get(self.side_of(self.reg(base, side))? as usize).cloned();
                    let choice = self.label(self.reg(base, value));
                    let what = self.prog.string(what).to_string();
                    let decision = json!({ "by": by, "what": what, "choice": choice });
                    self.event("reveal", Event::Reveal { decisions: vec![decision] });
                }
            }
            Op::SealedEnd => {
                self.sealed_from = None;
                if let Some(list) = self.sealed.take() {
                    self.event("reveal", Event::Reveal { decisions: list });
                }
            }
            other => {
                return Err(RuntimeError::new("R0001", format!("unexpected instruction {other:?}")).into());
            }
        }
        Ok(pc)
    }

    /// The state slot of a track read or adjusted with index register `side` (a side, a
    /// unit, or NO_REG for a global track).
    fn track_index_slot(&self, base: usize, track: u16, side: crate::op::Reg) -> Result<usize, RuntimeError> {
        let index = self.track_key(base, track, side)?;
        self.prog
            .track_slot_in(&self.track_bases, track, index)
            .ok_or_else(|| RuntimeError::new("R0002", "bad track index"))
    }

    /// The index of a track's (first) key held in register `side` (None for NO_REG).
    fn track_key(
        &self,
        base: usize,
        track: u16,
        side: crate::op::Reg,
    ) -> Result<Option<usize>, RuntimeError> {
        let index = if side == NO_REG {
            None
        } else {
            match self.reg(base, side) {
                Value::Side(s) => Some(s as usize),
                Value::Unit(u) => Some(u as usize),
                Value::Hex(h) => Some(h as usize),
                Value::Int(i) if i >= 0 => Some(i as usize),
                Value::Sym(c) => self
                    .prog
                    .tracks
                    .get(track as usize)
                    .and_then(|t| t.per_group.iter().position(|&x| x == c)),
                other => return Err(RuntimeError::new("R0002", format!("track index {other:?}"))),
            }
        };
        Ok(index)
    }

    /// The slot of a track with two keys from the key registers.
    /// `set t[k] = x;` or `clear t[k];` of a track holding references: the slot keeps the
    /// reference's index (-1 for nothing); the log names the reference.
    fn put_reference(
        &mut self,
        base: usize,
        track: u16,
        a: crate::op::Reg,
        b: crate::op::Reg,
        v: crate::op::Reg,
        add: bool,
    ) -> Result<(), Halt> {
        let def = &self.prog.tracks[track as usize];
        let value = self.reg(base, v);
        let x = match (add, def.holds.slot(value)) {
            (false, Some(x)) => x,
            _ => {
                let m = format!("track `{}` holds {:?}, not {value:?}", def.name, def.holds);
                return Err(RuntimeError::new("R0002", m).into());
            }
        };
        let slot = self.put_slot(base, track, a, b)?;
        let old = self.state.tracks[slot];
        self.state.tracks[slot] = x;
        // Setting the reference the track already holds is not an event.
        if x != old && self.log.enabled() {
            let of = self.keys_label(base, a, b);
            let value = self.label(def.holds.value(x));
            let track = def.name.clone();
            self.event("track", Event::Track { track, of, by: None, value, set: None });
        }
        self.check_triggers()
    }

    /// The slot a `set`, `clear` or `adjust` with keys `a` and `b` writes (NO_REG where
    /// absent).
    fn put_slot(
        &self,
        base: usize,
        track: u16,
        a: crate::op::Reg,
        b: crate::op::Reg,
    ) -> Result<usize, RuntimeError> {
        if b == NO_REG {
            self.track_index_slot(base, track, a)
        } else {
            self.track_slot2(base, track, a, b)
        }
    }

    /// A track event's `of`: null for a plain track, the key's label, or both keys'.
    fn keys_label(&self, base: usize, a: crate::op::Reg, b: crate::op::Reg) -> Json {
        match (a == NO_REG, b == NO_REG) {
            (true, _) => Json::Null,
            (false, true) => self.label(self.reg(base, a)),
            (false, false) => json!([self.label(self.reg(base, a)), self.label(self.reg(base, b))]),
        }
    }

    fn track_slot2(
        &self,
        base: usize,
        track: u16,
        a: crate::op::Reg,
        b: crate::op::Reg,
    ) -> Result<usize, RuntimeError> {
        let bad = || RuntimeError::new("R0002", "bad track index");
        let t = self.prog.tracks.get(track as usize).ok_or_else(bad)?;
        let first = self.track_key(base, track, a)?.ok_or_else(bad)?;
        let second = match (&t.second, self.reg(base, b)) {
            (Some(TrackKey::Side), Value::Side(s)) => s as usize,
            (Some(TrackKey::Unit), Value::Unit(u)) => u as usize,
            (Some(TrackKey::Group(codes)), Value::Sym(c)) => {
                codes.iter().position(|&x| x == c).ok_or_else(bad)?
            }
            (_, other) => return Err(RuntimeError::new("R0002", format!("track key {other:?}"))),
        };
        self.prog.track_slot2_in(&self.track_bases, track, first, second).ok_or_else(bad)
    }

    /// A border's name in logs: the two spaces it joins, `A|B` (a hexside at the map edge
    /// names its one hex).
    fn border_label(&self, i: i64) -> String {
        let map = &self.prog.map;
        let pair = match map.grid() {
            Some(g) => u32::try_from(i)
                .ok()
                .and_then(|i| g.hexside_hexes(kriegsspiel_geo::Hexside(i)))
                .map(|[a, b]| (a.map(|h| h.0), b.map(|h| h.0))),
            None => {
                usize::try_from(i).ok().and_then(|i| map.borders.get(i)).map(|&(a, b)| (Some(a), Some(b)))
            }
        };
        match pair {
            Some((a, b)) => {
                [a, b].iter().flatten().map(|&h| self.board.label(h)).collect::<Vec<_>>().join("|")
            }
            None => format!("#{i}"),
        }
    }

    pub(crate) fn eliminate_unit(&mut self, u: u16) -> Exec<()> {
        let st = &mut self.state.units[u as usize];
        if st.status != UnitStatus::OnMap {
            return Ok(());
        }
        st.status = UnitStatus::Eliminated;
        self.set_hex(u, None);
        let name = self.prog.counters[u as usize].name.clone();
        self.event("eliminate", Event::Eliminate { unit: name });
        self.check_triggers()
    }

    /// Take a unit off the map without counting it as eliminated.
    pub(crate) fn remove_unit(&mut self, u: u16, exited: bool) -> Exec<()> {
        let st = &mut self.state.units[u as usize];
        if st.status != UnitStatus::OnMap {
            return Ok(());
        }
        st.status = UnitStatus::Removed;
        let from = st.hex;
        self.set_hex(u, None);
        let side = self.state.units[u as usize].side as usize;
        if exited {
            if let Some(x) = self.state.exited.get_mut(side) {
                *x += 1;
            }
        }
        if self.log.enabled() {
            let name = self.prog.counters[u as usize].name.clone();
            let from = self.board.label(from).to_string();
            self.event("remove", Event::Remove { unit: name, from, off_map: exited });
        }
        self.check_triggers()
    }

    /// After unit `u` moved from map hex `from` to `to`: run every interrupt whose
    /// condition holds, in declaration order, before the mover goes on. Moves made by
    /// an interrupt body do not interrupt again.
    pub(crate) fn run_interrupts(&mut self, u: u16, from: u32, to: u32) -> Exec<()> {
        if self.in_interrupt || self.prog.interrupts.is_empty() {
            return Ok(());
        }
        self.in_interrupt = true;
        let result = (|| {
            for i in 0..self.prog.interrupts.len() {
                let (cond, body, para) = {
                    let d = &self.prog.interrupts[i];
                    (d.cond, d.body, d.para)
                };
                let args = [Value::Unit(u), Value::Hex(from), Value::Hex(to)];
                if as_bool(self.call(cond, &args)?)? {
                    if self.log.enabled() {
                        let saved = self.cur_para;
                        self.cur_para = para;
                        let name = self.prog.interrupts[i].name.clone();
                        let unit = self.prog.counters[u as usize].name.clone();
                        let at = self.board.label(to).to_string();
                        self.event("interrupt", Event::Interrupt { interrupt: name, mover: unit, at });
                        self.cur_para = saved;
                    }
                    self.call(body, &args)?;
                }
            }
            Ok(())
        })();
        self.in_interrupt = false;
        result
    }

    /// Evaluate every trigger's condition; fire those that have just become true (a
    /// `once` trigger fires at most once per game). Not re-entrant.
    pub(crate) fn check_triggers(&mut self) -> Exec<()> {
        // Every effect ends here: the state changed.
        self.version += 1;
        self.check_control()?;
        if self.prog.triggers.is_empty() {
            return Ok(());
        }
        // Inside a trigger body only `chained` triggers are checked (a cascade, one
        // level deeper each time); the others wait for the next change outside.
        let nested = self.in_trigger;
        if nested {
            if !self.prog.triggers.iter().any(|t| t.chained) {
                return Ok(());
            }
            if self.chain_depth >= MAX_CHAIN {
                return Err(RuntimeError::new(
                    "R0017",
                    format!(
                        "chained triggers fired more than {MAX_CHAIN} deep (a cascade that does not settle)"
                    ),
                )
                .into());
            }
        }
        self.in_trigger = true;
        self.chain_depth += u32::from(nested);
        let result = (|| {
            for (i, t) in self.prog.triggers.iter().enumerate() {
                if (t.once && self.state.triggers_fired[i]) || (nested && !t.chained) {
                    continue;
                }
                let holds = as_bool(self.call(t.cond, &[])?)?;
                let was = self.state.triggers_fired[i];
                if !t.once {
                    // Edge-triggered: fires when the condition becomes true.
                    self.state.triggers_fired[i] = holds;
                }
                if holds && !was {
                    self.state.triggers_fired[i] = true;
                    let saved = self.cur_para;
                    self.cur_para = t.para;
                    self.event("trigger", Event::Trigger { trigger: t.name.clone() });
                    self.cur_para = saved;
                    self.call(t.body, &[])?;
                }
            }
            Ok(())
        })();
        self.chain_depth -= u32::from(nested);
        self.in_trigger = nested;
        result
    }
}
