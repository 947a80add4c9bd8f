//! A VM session outside a full game: call a rulebook's functions on a scenario's
//! state. For benchmarks, tests, and search players that evaluate rules directly.

use crate::agent::{Agent, HeuristicAgent};
use crate::error::RuntimeError;
use crate::log::Log;
use crate::program::{FnId, Program};
use crate::state::{State, UnitStatus};
use crate::value::Value;
use crate::vm::{Halt, Stop, Vm};

/// A scenario's initial state with a VM ready to call functions on it. Logging is off;
/// decisions, if any, go to heuristic agents.
pub struct Session<'p> {
    vm: Vm<'p>,
}

impl<'p> Session<'p> {
    pub fn new(prog: &'p Program, scenario: &str, seed: u64) -> Result<Session<'p>, String> {
        let si = prog.scenario(scenario).ok_or_else(|| format!("no scenario {scenario:?}"))?;
        let state = State::new(prog, &prog.scenarios[si]);
        let agents: Vec<Box<dyn Agent + 'p>> = (0..prog.sides.len())
            .map(|i| Box::new(HeuristicAgent::new(seed, i as u8)) as Box<dyn Agent>)
            .collect();
        let rulings = prog.rulings.iter().map(|r| r.default).collect();
        let vm = Vm::new(prog, state, si, seed, agents, Log::new(false), rulings, u64::MAX);
        Ok(Session { vm })
    }

    /// Run the rulebook's functions as native code (`None`: on the VM again). Code
    /// checked against another program is refused.
    pub fn use_native(&mut self, native: Option<crate::native::Native>) -> Result<(), String> {
        self.vm.native = match native {
            Some(n) => {
                Some(n.code_for(self.vm.prog).ok_or("the native code was checked against another program")?)
            }
            None => None,
        };
        Ok(())
    }

    /// A function, procedure or modifier set by name.
    pub fn function(&self, name: &str) -> Option<FnId> {
        self.vm.prog.functions.iter().position(|f| f.name == name).map(|i| i as FnId)
    }

    /// Call a function; a game end inside it is reported as an error.
    pub fn call(&mut self, f: FnId, args: &[Value]) -> Result<Value, RuntimeError> {
        match self.vm.call(f, args).map_err(Halt::into_stop) {
            Ok(v) => Ok(v),
            Err(Stop::Error(e)) => Err(e),
            Err(Stop::End(r)) => Err(RuntimeError::new("R0013", format!("the game ended: {}", r.reason))),
            Err(Stop::Horizon) => {
                Err(RuntimeError::new("R0019", "a search horizon outside a search playout"))
            }
        }
    }

    /// A list value for arguments; it lives until `clear_lists`.
    pub fn list(&mut self, items: &[Value]) -> Value {
        let l = self.vm.new_list();
        self.vm.lists[l as usize].extend_from_slice(items);
        Value::List(l)
    }

    /// Drop every list made with `list`.
    pub fn clear_lists(&mut self) {
        while let Some(mut v) = self.vm.lists.pop() {
            v.clear();
            self.vm.pool.push(v);
        }
    }

    /// Put a counter on the map at a hex (dense index), or take it off (`None`).
    pub fn place(&mut self, unit: u16, hex: Option<u32>) {
        if (unit as usize) >= self.vm.state.units.len() {
            return;
        }
        self.vm.state.units[unit as usize].status =
            if hex.is_some() { UnitStatus::OnMap } else { UnitStatus::Removed };
        self.vm.set_hex(unit, hex);
        self.vm.version += 1;
    }

    /// Rolls to use before the seeded dice.
    pub fn force_dice(&mut self, rolls: &[i64]) {
        self.vm.forced_dice.extend(rolls.iter().copied());
    }

    pub fn state(&self) -> &State {
        &self.vm.state
    }

    /// Instructions executed so far.
    pub fn instructions(&self) -> u64 {
        self.vm.instructions()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::op::Op;
    use crate::program::{FnKind, Function, MapDef, ScenarioDef};

    fn tiny_program() -> Program {
        Program {
            title: "t".into(),
            die_sides: 6,
            die_offset: 0,
            paragraphs: vec!["1.0".into()],
            sides: vec!["A".into(), "B".into()],
            functions: vec![Function {
                name: "id".into(),
                kind: FnKind::Fn,
                params: 1,
                slots: 1,
                code: vec![Op::Ret { src: 0 }],
                paras: vec![0],
                spans: vec![(0, 0, 0)],
                para: 0,
                param_names: vec!["x".into()],
                modifiers: None,
            }],
            map: MapDef { cols: 2, rows: 2, terrain: vec![0; 4], sides: vec![0; 24], ..MapDef::default() },
            scenarios: vec![ScenarioDef {
                id: "s".into(),
                title: "s".into(),
                turns: 1,
                first_turn: 1,
                order: vec![0, 1],
                track_starts: vec![],
                flags: vec![],
                placements: vec![],
                para: 0,
            }],
            ..Program::default()
        }
    }

    /// Calls from outside leave the register stack as they found it.
    #[test]
    fn calls_do_not_grow_the_register_stack() {
        let p = tiny_program();
        let mut s = Session::new(&p, "s", 1).expect("session");
        let f = s.function("id").expect("fn");
        for i in 0..10_000 {
            assert_eq!(s.call(f, &[Value::Int(i)]).expect("call"), Value::Int(i));
        }
        assert_eq!(s.vm.top, 0);
        assert!(s.vm.regs.len() <= 2);
    }
}
