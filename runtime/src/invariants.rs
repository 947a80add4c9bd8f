//! The rules' "musts": `invariant` declarations checked at their points of play.
//!
//! An invariant's condition is a pure function of the values its check point binds
//! (the phasing side, or the mover and the two hexes of a move). Checking one never
//! changes the game: no log lines (and the current paragraph is restored), no rolls, no decisions, and the instructions it
//! spends are given back to the step budget, so a game plays the same with checking on
//! or off (`GameOptions::invariants`). A broken invariant stops the game with R0015,
//! naming its paragraphs, its name and text, the turn, the phase, and the units or
//! hexes that break it.

use crate::error::RuntimeError;
use crate::program::CheckAt;
use crate::value::Value;
use crate::vm::{Exec, Vm};

impl Vm<'_> {
    /// Check every invariant whose point matches `at`, with the point's values `args`.
    pub(crate) fn check_invariants(&mut self, at: CheckAt, args: &[Value]) -> Exec<()> {
        if !self.check_invariants {
            return Ok(());
        }
        let prog = self.prog;
        for inv in &prog.invariants {
            let applies = match (inv.at, at) {
                (CheckAt::BeforePhase(None), CheckAt::BeforePhase(_))
                | (CheckAt::AfterPhase(None), CheckAt::AfterPhase(_)) => true,
                (a, b) => a == b,
            };
            if !applies {
                continue;
            }
            let (budget, stats, enabled, para) = (self.budget, self.stats, self.log.enabled(), self.cur_para);
            self.log.set_enabled(false);
            let held = self.call(inv.cond, args);
            let held = match held {
                Ok(Value::Bool(b)) => Ok(b),
                Ok(other) => Err(RuntimeError::new(
                    "R0002",
                    format!("invariant {} gave {other:?}, not a Bool", inv.name),
                )
                .into()),
                Err(e) => Err(e),
            };
            // Those that break an `all`, by name.
            let witnesses: Vec<String> = match (&held, inv.witnesses) {
                (Ok(false), Some(w)) => match self.call(w, args) {
                    Ok(list) => self.list(list).map(|items| items.to_vec()).unwrap_or_default(),
                    Err(_) => Vec::new(),
                },
                _ => Vec::new(),
            }
            .into_iter()
            .map(|v| self.label_string(v))
            .collect();
            self.log.set_enabled(enabled);
            self.cur_para = para;
            self.budget = budget;
            self.stats = stats;
            if !held? {
                return Err(self.broken(inv, args, &witnesses).into());
            }
        }
        Ok(())
    }

    #[cold]
    fn broken(
        &self,
        inv: &crate::program::InvariantDef,
        args: &[Value],
        witnesses: &[String],
    ) -> RuntimeError {
        let prog = self.prog;
        let paras: Vec<String> = inv.paras.iter().map(|&p| format!("§{}", prog.para(p))).collect();
        let phase = if self.state.phase == u32::MAX {
            "none".to_string()
        } else {
            prog.string(self.state.phase).to_string()
        };
        let side = prog.sides.get(self.state.phasing as usize).map(String::as_str).unwrap_or("?");
        let at = match inv.at {
            CheckAt::BeforePhase(_) => format!("at the start of phase {phase} ({side})"),
            CheckAt::AfterPhase(_) => format!("at the end of phase {phase} ({side})"),
            CheckAt::AfterMove => {
                let l: Vec<String> = args.iter().map(|&v| self.label_string(v)).collect();
                format!("after the move of {} from {} to {} (phase {phase})", l[0], l[1], l[2])
            }
            CheckAt::AfterTurn => "at the end of the turn".to_string(),
        };
        let involved = if witnesses.is_empty() {
            String::new()
        } else {
            format!("; involved: {}", witnesses.join(", "))
        };
        let mut e = RuntimeError::new(
            "R0015",
            format!(
                "invariant `{}` ({}) broken: \"{}\", turn {}, {at}{involved}",
                inv.name,
                paras.join(" "),
                inv.text,
                self.state.turn
            ),
        );
        e.para = prog.para(inv.paras[0]).to_string();
        e.function = inv.name.clone();
        e.span = prog.functions.get(inv.cond as usize).and_then(|f| f.spans.first().copied());
        e
    }
}
