//! Players, teams and derived control (docs/language.md 6.1b-6.1d).
//!
//! A rulebook's sides are fixed; who plays them is not. A `players` declaration says,
//! for each player count the game offers, which sides each player runs; a game is
//! played with one of those counts (`GameOptions::players`), one agent per player, and
//! a `choose ... by S` is answered by the agent of the player running S. Without the
//! declaration every side is its own player, as before.
//!
//! `teams` groups sides into loose teams (`teammates`, `team`); `control` names a `fn`
//! that computes which side controls each code of a `results` group (a Power), which
//! the VM re-evaluates after every change to the game and logs a `control` event when
//! the answer changes. Everything here is kept in vectors in declaration order: no
//! hash-map iteration.

use crate::error::RuntimeError;
use crate::op::Builtin;
use crate::program::{FnId, ParaId, Program};
use crate::value::Value;
use crate::vm::{Exec, Vm};
use serde::{Deserialize, Serialize};

/// `players { N { [A, B] [C] } ... }`: the player counts a game offers.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct PlayersDef {
    pub counts: Vec<PlayerCountDef>,
    pub para: ParaId,
}

/// One player count: the sides of each player, in player order.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PlayerCountDef {
    pub count: u8,
    pub players: Vec<Vec<u8>>,
}

/// `teams { Name { A, B } }`: one loose team.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TeamDef {
    pub name: String,
    pub sides: Vec<u8>,
    pub para: ParaId,
}

/// `control Group by f;`: the controlling side of each code of a results group.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ControlDef {
    /// The results group's name (a Power, say).
    pub group: String,
    /// Its codes (symbol indices), in declaration order.
    pub codes: Vec<u16>,
    /// `fn (Group) -> Side`: the controller, or nothing (no side controls it).
    pub func: FnId,
    pub para: ParaId,
}

/// Who plays which side in one game.
#[derive(Clone, Debug)]
pub struct Seating {
    /// The sides of each player, in player order.
    pub players: Vec<Vec<u8>>,
    /// The player of each side (index into `players`).
    pub player_of: Vec<u8>,
    /// Was the seating chosen from a `players` declaration (the log then names players)?
    pub declared: bool,
}

impl Seating {
    /// Every side its own player, in declaration order.
    pub fn one_per_side(sides: usize) -> Seating {
        Seating {
            players: (0..sides).map(|s| vec![s as u8]).collect(),
            player_of: (0..sides).map(|s| s as u8).collect(),
            declared: false,
        }
    }

    /// The player counts a program offers, ascending (the number of sides when it
    /// declares no `players`).
    pub fn offered(prog: &Program) -> Vec<u8> {
        match &prog.players {
            Some(p) => {
                let mut v: Vec<u8> = p.counts.iter().map(|c| c.count).collect();
                v.sort_unstable();
                v
            }
            None => vec![prog.sides.len() as u8],
        }
    }

    /// The seating for `n` players (`None`: the first count declared, or one player per
    /// side). An error names the counts offered.
    pub fn for_count(prog: &Program, n: Option<u8>) -> Result<Seating, String> {
        let Some(def) = &prog.players else {
            return match n {
                None => Ok(Seating::one_per_side(prog.sides.len())),
                Some(k) if k as usize == prog.sides.len() => Ok(Seating::one_per_side(prog.sides.len())),
                Some(k) => Err(format!(
                    "--players {k}: the rulebook declares no `players`, so it is played by {} players, one per side",
                    prog.sides.len()
                )),
            };
        };
        let chosen = match n {
            None => def.counts.first(),
            Some(k) => def.counts.iter().find(|c| c.count == k),
        };
        let Some(c) = chosen else {
            let offered: Vec<String> = Seating::offered(prog).iter().map(|k| k.to_string()).collect();
            return Err(format!(
                "--players {}: the rulebook offers {} players",
                n.unwrap_or(0),
                offered.join(", ")
            ));
        };
        let mut player_of = vec![0u8; prog.sides.len()];
        for (p, sides) in c.players.iter().enumerate() {
            for &s in sides {
                if let Some(slot) = player_of.get_mut(s as usize) {
                    *slot = p as u8;
                }
            }
        }
        Ok(Seating { players: c.players.clone(), player_of, declared: true })
    }

    /// The player running a side.
    pub fn player(&self, side: u8) -> usize {
        self.player_of.get(side as usize).copied().unwrap_or(0) as usize
    }

    /// A player's name: that of its first side.
    pub fn name<'a>(&self, prog: &'a Program, player: usize) -> &'a str {
        self.players
            .get(player)
            .and_then(|s| s.first())
            .and_then(|&s| prog.sides.get(s as usize))
            .map(|s| s.as_str())
            .unwrap_or("?")
    }

    /// The sides in player order: each player's sides in the order listed.
    pub fn order(&self) -> impl Iterator<Item = u8> + '_ {
        self.players.iter().flatten().copied()
    }
}

/// Check the players, teams and control declarations of a program (part of `verify`):
/// every player count seats every side exactly once, every index is in range.
pub fn verify(p: &Program) -> Result<(), String> {
    let n = p.sides.len();
    if let Some(def) = &p.players {
        for c in &def.counts {
            let mut seen = vec![false; n];
            for &s in c.players.iter().flatten() {
                match seen.get_mut(s as usize) {
                    Some(x) if !*x => *x = true,
                    _ => return Err(format!("players {}: a side missing or seated twice", c.count)),
                }
            }
            if seen.iter().any(|x| !x) || c.players.len() != c.count as usize {
                return Err(format!("players {}: not every side seated", c.count));
            }
        }
    }
    for t in &p.teams {
        if t.sides.iter().any(|&s| s as usize >= n) {
            return Err(format!("team {}: a missing side", t.name));
        }
    }
    for c in &p.controls {
        let fn_ok = p.functions.get(c.func as usize).map(|f| f.params == 1).unwrap_or(false);
        if !fn_ok
            || c.codes.iter().any(|&k| k as usize >= p.symbols.len())
            || c.para as usize >= p.paragraphs.len()
        {
            return Err(format!("control of {}: bad function, code or paragraph", c.group));
        }
    }
    Ok(())
}

/// The team of a side (its index in `prog.teams`), if any.
fn team_of(prog: &Program, s: u8) -> Option<usize> {
    prog.teams.iter().position(|t| t.sides.contains(&s))
}

/// The name of the team whose sides are exactly `sides` (in any order), if any.
pub fn team_named(prog: &Program, sides: &[u8]) -> Option<String> {
    prog.teams
        .iter()
        .find(|t| t.sides.len() == sides.len() && t.sides.iter().all(|s| sides.contains(s)))
        .map(|t| t.name.clone())
}

impl<'p> Vm<'p> {
    /// The built-ins of players and teams.
    pub(crate) fn players_builtin(&mut self, b: Builtin, args: &[Value]) -> Exec<Value> {
        let side = |i: usize| match args.get(i) {
            Some(Value::Side(s)) if (*s as usize) < self.prog.sides.len() => Ok(*s),
            _ => Err(RuntimeError::new("R0002", format!("{b:?}: expected a side"))),
        };
        let sides: Vec<u8> = match b {
            Builtin::PlayerCount => return Ok(Value::Int(self.seats.players.len() as i64)),
            Builtin::PlayerOf => return Ok(Value::Int(self.seats.player(side(0)?) as i64 + 1)),
            Builtin::Teammates => {
                let (a, c) = (side(0)?, side(1)?);
                let same_team =
                    team_of(self.prog, a).is_some() && team_of(self.prog, a) == team_of(self.prog, c);
                return Ok(Value::Bool(a == c || same_team || self.seats.player(a) == self.seats.player(c)));
            }
            Builtin::Sides => self.seats.order().collect(),
            Builtin::Others => {
                let s = side(0)?;
                self.seats.order().filter(|&x| x != s).collect()
            }
            Builtin::Team => {
                let s = side(0)?;
                match team_of(self.prog, s) {
                    Some(t) => self.seats.order().filter(|x| self.prog.teams[t].sides.contains(x)).collect(),
                    None => vec![s],
                }
            }
            Builtin::PlayerSides => {
                let p = self.seats.player(side(0)?);
                self.seats.players.get(p).cloned().unwrap_or_default()
            }
            _ => return Err(RuntimeError::new("R0001", format!("{b:?} is not a players built-in")).into()),
        };
        let l = self.new_list();
        self.lists[l as usize].extend(sides.into_iter().map(Value::Side));
        Ok(Value::List(l))
    }

    /// The controller of every code of every `control` declaration, in declaration
    /// order (nothing: no side).
    fn controllers(&mut self) -> Exec<Vec<Value>> {
        let prog = self.prog;
        let mut out = Vec::new();
        for c in &prog.controls {
            for &code in &c.codes {
                let v = self.call(c.func, &[Value::Sym(code)])?;
                out.push(match v {
                    Value::Side(_) | Value::Nil => v,
                    other => {
                        return Err(RuntimeError::new(
                            "R0002",
                            format!("control of {}: expected a side, found {other:?}", c.group),
                        )
                        .into())
                    }
                });
            }
        }
        Ok(out)
    }

    /// Note who controls what now, without logging (the game's start).
    pub(crate) fn init_control(&mut self) -> Exec<()> {
        if self.prog.controls.is_empty() {
            return Ok(());
        }
        self.control_now = self.controllers()?;
        self.note_control_state();
        Ok(())
    }

    /// After a change to the game: re-evaluate control and log each change with the
    /// paragraph of the `control` declaration (the rule that derives it) and the
    /// paragraph of the change that caused it (`at`).
    pub(crate) fn check_control(&mut self) -> Exec<()> {
        if self.prog.controls.is_empty() || self.in_control {
            return Ok(());
        }
        // Control `fn`s are pure functions of the state (the program and the seating
        // are fixed for a game): with the state as at the last evaluation, every
        // controller is as last noted, and nothing is logged. Not while an agent's
        // view redacts hidden values.
        if self.view.is_none()
            && !self.control_now.is_empty()
            && self.control_state.as_ref().is_some_and(|s| *s == self.state)
        {
            return Ok(());
        }
        self.in_control = true;
        let at_para = self.cur_para;
        let now = self.controllers();
        self.cur_para = at_para;
        self.in_control = false;
        let now = now?;
        if self.control_now.len() != now.len() {
            // First evaluation outside a game (an example, a session): no events.
            self.control_now = now;
            self.note_control_state();
            return Ok(());
        }
        let prog = self.prog;
        let mut i = 0;
        for c in &prog.controls {
            for &code in &c.codes {
                let (old, new) = (self.control_now[i], now[i]);
                if old != new && self.log.enabled() {
                    let at = prog.para(at_para).to_string();
                    let saved = self.cur_para;
                    self.cur_para = c.para;
                    let (power, from, to) = (self.label(Value::Sym(code)), self.label(old), self.label(new));
                    let of = c.group.clone();
                    self.event("control", crate::log::Event::Control { of, power, from, to, at });
                    self.cur_para = saved;
                }
                i += 1;
            }
        }
        self.control_now = now;
        self.note_control_state();
        Ok(())
    }

    /// Remember the state control was last evaluated in (reusing the buffers).
    fn note_control_state(&mut self) {
        if self.view.is_some() {
            self.control_state = None;
            return;
        }
        match &mut self.control_state {
            Some(s) => crate::memo::copy_state(s, &self.state),
            None => self.control_state = Some(self.state.clone()),
        }
    }
}
