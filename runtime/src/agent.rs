//! Agents answer choice points: random, scripted from a file, or a simple heuristic.
//!
//! A choice point offers options (hexes, units, result codes...) with an optional
//! preference score per option written by the rulebook (`prefer` in `choose`), which
//! is what the heuristic agent maximises.

use crate::dice::Dice;
use std::collections::BTreeMap;

/// What an agent sees of one decision.
pub struct ChoiceRequest<'a> {
    pub side: u8,
    pub side_name: &'a str,
    /// What is being chosen ("movement destination").
    pub what: &'a str,
    /// Paragraph of the choice point.
    pub para: &'a str,
    /// Number of options.
    pub count: usize,
    /// Option labels (hex ids, unit names, codes) in option order; empty unless the
    /// agent asked for them (`wants_labels`).
    pub labels: &'a [String],
    /// Rulebook preference per option (greater is better), if any.
    pub scores: Option<&'a [i64]>,
    /// May the agent decline?
    pub or_none: bool,
    /// The rulebook's score of declining (`or none prefer S`), if given; 0 otherwise.
    pub none_score: Option<i64>,
    /// Every decision answered by an agent before this one, all sides, in order (what
    /// the search agent replays; the other agents ignore it).
    pub history: &'a [Decision],
    /// Does another side hold a `secret` or `sealed` decision not yet revealed? (The
    /// search agent cannot replay the game without reading it, so it does not search.)
    pub unrevealed: bool,
    /// The game as it stood when the current turn began, where the game could be copied
    /// there (`checkpoint.rs`): a search resumes its playouts from it.
    pub resume: Option<&'a crate::checkpoint::Checkpoint>,
}

/// One decision an agent answered: who, how many options (and whether declining was
/// allowed), and the answer (an option index, or `None` for declining).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decision {
    pub side: u8,
    pub count: u32,
    pub or_none: bool,
    pub answer: Option<u32>,
}

/// An answer: an option index, or `None` to decline (only when `or_none`).
pub trait Agent {
    fn name(&self) -> String;
    /// Does this agent read the rulebook's preference scores? (Skips computing them.)
    fn wants_scores(&self) -> bool {
        true
    }
    /// Does this agent read the option labels? (Skips formatting them.)
    fn wants_labels(&self) -> bool {
        false
    }
    /// Anything the agent has to report at the end of the game (for the log).
    fn notes(&self) -> Vec<String> {
        Vec::new()
    }
    fn choose(&mut self, req: &ChoiceRequest) -> Option<usize>;
}

/// Uniformly random among the options (and "none" when allowed).
pub struct RandomAgent {
    dice: Dice,
}

impl RandomAgent {
    pub fn new(seed: u64, side: u8) -> RandomAgent {
        RandomAgent { dice: Dice::new(seed, 100 + side as u64) }
    }
}

impl Agent for RandomAgent {
    fn name(&self) -> String {
        "random".into()
    }
    fn wants_scores(&self) -> bool {
        false
    }
    fn choose(&mut self, req: &ChoiceRequest) -> Option<usize> {
        let n = req.count as u32 + u32::from(req.or_none);
        if n == 0 {
            return None;
        }
        let k = self.dice.below(n) as usize;
        if k < req.count {
            Some(k)
        } else {
            None
        }
    }
}

/// Takes the option with the greatest rulebook preference; ties go to a seeded random
/// pick among the best, so that heuristic games still vary by seed. Without scores it
/// takes the first option. Where declining is allowed it declines when declining scores
/// better than every option: the rulebook's `or none prefer S` score, else 0 (so by
/// default it declines when every option scores below zero).
pub struct HeuristicAgent {
    dice: Dice,
}

impl HeuristicAgent {
    pub fn new(seed: u64, side: u8) -> HeuristicAgent {
        HeuristicAgent { dice: Dice::new(seed, 200 + side as u64) }
    }
}

impl Agent for HeuristicAgent {
    fn name(&self) -> String {
        "heuristic".into()
    }
    fn choose(&mut self, req: &ChoiceRequest) -> Option<usize> {
        if req.count == 0 {
            return None;
        }
        let Some(scores) = req.scores else { return Some(0) };
        let best = scores.iter().copied().max()?;
        if req.or_none && req.none_score.unwrap_or(0) > best {
            return None;
        }
        let ties: Vec<usize> = (0..scores.len()).filter(|&i| scores[i] == best).collect();
        let k = self.dice.below(ties.len() as u32) as usize;
        ties.get(k).copied()
    }
}

/// Replays choices from a JSON file: `{"Swedish": ["0412", "none", 2, ...], ...}`.
/// Each entry is an option label, an option index, or `"none"`. When a side's list
/// runs out, the fallback agent answers (and an `agent` event before the result says so).
pub struct ScriptedAgent {
    queue: std::collections::VecDeque<serde_json::Value>,
    fallback: HeuristicAgent,
    pub used_fallback: bool,
    pub errors: Vec<String>,
}

impl ScriptedAgent {
    pub fn new(entries: Vec<serde_json::Value>, seed: u64, side: u8) -> ScriptedAgent {
        ScriptedAgent {
            queue: entries.into(),
            fallback: HeuristicAgent::new(seed, side),
            used_fallback: false,
            errors: Vec::new(),
        }
    }

    /// Parse a script file's text into per-side entry lists.
    pub fn parse_script(text: &str) -> Result<BTreeMap<String, Vec<serde_json::Value>>, String> {
        let v: serde_json::Value =
            serde_json::from_str(text).map_err(|e| format!("script is not valid JSON: {e}"))?;
        let obj = v.as_object().ok_or("script must be a JSON object keyed by side name")?;
        let mut out = BTreeMap::new();
        for (side, list) in obj {
            let arr = list.as_array().ok_or(format!("entries for {side} must be a JSON array"))?;
            out.insert(side.clone(), arr.clone());
        }
        Ok(out)
    }
}

impl Agent for ScriptedAgent {
    fn name(&self) -> String {
        "scripted".into()
    }
    fn wants_labels(&self) -> bool {
        true
    }
    fn notes(&self) -> Vec<String> {
        let mut n = self.errors.clone();
        if self.used_fallback {
            n.push("the script ran out; the heuristic agent answered the remaining choices".into());
        }
        n
    }
    fn choose(&mut self, req: &ChoiceRequest) -> Option<usize> {
        let Some(entry) = self.queue.pop_front() else {
            self.used_fallback = true;
            return self.fallback.choose(req);
        };
        match &entry {
            serde_json::Value::String(s) if s == "none" && req.or_none => None,
            serde_json::Value::String(s) => match req.labels.iter().position(|l| l == s) {
                Some(i) => Some(i),
                None => {
                    self.errors.push(format!(
                        "scripted choice {s:?} is not an option for {} (§{})",
                        req.what, req.para
                    ));
                    self.fallback.choose(req)
                }
            },
            serde_json::Value::Number(n) => match n.as_u64() {
                Some(i) if (i as usize) < req.count => Some(i as usize),
                _ => {
                    self.errors
                        .push(format!("scripted index {n} is out of range for {} (§{})", req.what, req.para));
                    self.fallback.choose(req)
                }
            },
            other => {
                self.errors.push(format!("scripted entry {other} is neither a label nor an index"));
                self.fallback.choose(req)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req<'a>(labels: &'a [String], scores: Option<&'a [i64]>) -> ChoiceRequest<'a> {
        ChoiceRequest {
            side: 0,
            side_name: "A",
            what: "test",
            para: "1.0",
            count: labels.len(),
            labels,
            scores,
            or_none: false,
            none_score: None,
            history: &[],
            unrevealed: false,
            resume: None,
        }
    }

    #[test]
    fn heuristic_takes_best() {
        let labels: Vec<String> = vec!["a".into(), "b".into(), "c".into()];
        let scores = [1, 5, 3];
        let mut h = HeuristicAgent::new(1, 0);
        assert_eq!(h.choose(&req(&labels, Some(&scores))), Some(1));
    }

    #[test]
    fn random_in_range() {
        let labels: Vec<String> = vec!["a".into(), "b".into()];
        let mut r = RandomAgent::new(3, 0);
        for _ in 0..50 {
            assert!(r.choose(&req(&labels, None)).unwrap_or(9) < 2);
        }
    }

    #[test]
    fn scripted_by_label_then_fallback() {
        let labels: Vec<String> = vec!["0101".into(), "0102".into()];
        let mut s = ScriptedAgent::new(vec![serde_json::json!("0102")], 1, 0);
        assert_eq!(s.choose(&req(&labels, None)), Some(1));
        assert!(!s.used_fallback);
        let _ = s.choose(&req(&labels, None));
        assert!(s.used_fallback);
    }
}
