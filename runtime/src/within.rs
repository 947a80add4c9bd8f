//! `within(unit, budget, step_fn)`: the hexes a cost-bounded search reaches from a
//! unit's hex with a rulebook-written step cost, for zones and lines that are not a unit's
//! movement (reaction zones, supply lines, command radii).

use crate::error::RuntimeError;
use crate::program::FnId;
use crate::state::OFF_MAP;
use crate::value::Value;
use crate::vm::{Exec, Vm};

impl Vm<'_> {
    /// Hexes reachable from unit `u`'s hex for at most `budget`, each step `a -> b`
    /// costing `step(u, a, b)` (a negative cost forbids the step), the start included,
    /// in map order (by hex index); nothing for a unit off the map.
    pub(crate) fn within(&mut self, u: u16, budget: i64, step: i64) -> Exec<Value> {
        let f =
            FnId::try_from(step).map_err(|_| RuntimeError::new("R0001", format!("no function #{step}")))?;
        let budget = budget.clamp(0, i32::MAX as i64) as i32;
        let start = self.state.units[u as usize].hex;
        if start == OFF_MAP {
            let l = self.new_list();
            return Ok(Value::List(l));
        }
        let reach = self.hooked_search(start, budget, 0, None, |vm, from, to, _| {
            vm.call(f, &[Value::Unit(u), Value::Hex(from.0), Value::Hex(to.0)])
        })?;
        Ok(self.hex_list(&reach))
    }

    /// Is unit `u` placed `arrives turn N at HEX` in this scenario (brought on by the
    /// rules' move rather than placed at the start of its turn)?
    pub(crate) fn arrives_by_move(&self, u: u16) -> bool {
        self.prog
            .scenarios
            .get(self.scenario)
            .is_some_and(|s| s.placements.iter().any(|p| p.counter == u && p.arrives))
    }

    /// `within_from(side, start, budget, step)`: as `within`, from a hex rather than a
    /// unit's, each step `a -> b` costing `step(side, a, b)`.
    pub(crate) fn within_from(&mut self, side: u8, start: u32, budget: i64, step: i64) -> Exec<Value> {
        let f =
            FnId::try_from(step).map_err(|_| RuntimeError::new("R0001", format!("no function #{step}")))?;
        let budget = budget.clamp(0, i32::MAX as i64) as i32;
        if start == OFF_MAP || start >= self.board.hex_count() {
            let l = self.new_list();
            return Ok(Value::List(l));
        }
        let reach = self.hooked_search(start, budget, 0, None, |vm, from, to, _| {
            vm.call(f, &[Value::Side(side), Value::Hex(from.0), Value::Hex(to.0)])
        })?;
        Ok(self.hex_list(&reach))
    }
}
