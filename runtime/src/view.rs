//! Per-side views of a game log (`run --view SIDE`, docs/language.md 6.17c and 16).
//!
//! The full log is the referee's record. A side's view is the same log with what that
//! side could not see taken out, line by line, in order:
//!
//! - the card drawn into another side's hand (`draw` from a deck to another hand);
//! - another side's `sealed` decisions before their `reveal`;
//! - the values of hidden per-unit tracks (`hidden t shown f`) of other sides' units;
//! - with `hidden type`, the names of other sides' units (their identity): each is shown
//!   as `"<Side> block <n>"`, numbered in the order the view first meets it;
//! - another side's `secret` decisions (shown by the rulebook's `reveal` when it says);
//! - another side's `private` decisions (never shown: only what they do, as far as the
//!   rest of these rules let it be seen);
//! - with `revealed by M` on a `hidden` declaration, a unit carrying marker `M` (followed
//!   through the log's `mark` and `unmark` events) is not hidden by it: its name or value
//!   shows while the marker is on, and the same alias returns when it comes off;
//! - with anything hidden, what a modifier set evaluated for another side's unit gave
//!   (its base, the lines that applied, the result).
//!
//! Ownership follows `transfer` events. A `note` written by the rulebook's `log`
//! statement is the rulebook's own words and passes unchanged.

use crate::program::Program;
use serde_json::{Map, Value as Json};
use std::collections::{BTreeMap, BTreeSet};

/// What a side may see of another side's units, tracks and hands.
struct Viewer<'a> {
    prog: &'a Program,
    side: String,
    /// Owner of each counter, by name (changed by `transfer`).
    owner: BTreeMap<String, String>,
    /// Aliases given so far, by counter name, and how many per side.
    alias: BTreeMap<String, String>,
    count: BTreeMap<String, usize>,
    /// Hidden tracks by name, with the name of the marker that reveals a unit's value.
    hidden_tracks: Vec<(String, Option<String>)>,
    /// The marker that reveals a unit's identity (`hidden type ... revealed by M`).
    type_revealed_by: Option<String>,
    /// Every declaration's revealing marker, `None` for one that has none.
    revealers: Vec<Option<String>>,
    /// The revealing markers on each unit now (unit -> markers).
    marks: BTreeMap<String, BTreeSet<String>>,
}

impl<'a> Viewer<'a> {
    fn new(prog: &'a Program, side: &str) -> Viewer<'a> {
        let owner = prog
            .counters
            .iter()
            .map(|c| (c.name.clone(), prog.sides.get(c.side as usize).cloned().unwrap_or_default()))
            .collect();
        let marker = |m: Option<u16>| m.and_then(|m| prog.markers.get(m as usize)).map(|d| d.name.clone());
        let hidden_tracks = prog
            .hidden
            .iter()
            .filter_map(|h| {
                prog.tracks.get(h.track as usize).map(|t| (t.name.clone(), marker(h.revealed_by)))
            })
            .collect();
        let type_revealed_by = prog.hidden_type.as_ref().and_then(|h| marker(h.revealed_by));
        let revealers = prog
            .hidden
            .iter()
            .map(|h| h.revealed_by)
            .chain(prog.hidden_ratings.iter().map(|h| h.revealed_by))
            .chain(prog.hidden_type.iter().map(|h| h.revealed_by))
            .map(marker)
            .collect();
        Viewer {
            prog,
            side: side.to_string(),
            owner,
            alias: BTreeMap::new(),
            count: BTreeMap::new(),
            hidden_tracks,
            type_revealed_by,
            revealers,
            marks: BTreeMap::new(),
        }
    }

    /// Does `unit` carry `marker` now (a revealing marker)?
    fn carries(&self, unit: &str, marker: &Option<String>) -> bool {
        match marker {
            Some(m) => self.marks.get(unit).is_some_and(|on| on.contains(m)),
            None => false,
        }
    }

    /// Is every hidden declaration's marker on `unit`, so that nothing of it is hidden?
    fn open(&self, unit: &str) -> bool {
        self.revealers.iter().all(|m| self.carries(unit, m))
    }

    fn foreign(&self, unit: &str) -> bool {
        self.owner.get(unit).map(|o| *o != self.side).unwrap_or(false)
    }

    /// The name a unit goes by in this view.
    fn name(&mut self, unit: &str) -> String {
        if self.prog.hidden_type.is_none()
            || !self.foreign(unit)
            || self.carries(unit, &self.type_revealed_by)
        {
            return unit.to_string();
        }
        if let Some(a) = self.alias.get(unit) {
            return a.clone();
        }
        let owner = self.owner.get(unit).cloned().unwrap_or_default();
        let n = self.count.entry(owner.clone()).or_insert(0);
        *n += 1;
        let a = format!("{owner} block {n}");
        self.alias.insert(unit.to_string(), a.clone());
        a
    }

    /// Replace every unit name in a value by the name this view gives it.
    fn rename(&mut self, v: &mut Json) {
        match v {
            Json::String(s) if self.owner.contains_key(s.as_str()) => *s = self.name(s),
            Json::Array(items) => items.iter_mut().for_each(|x| self.rename(x)),
            Json::Object(m) => {
                for (k, x) in m.iter_mut() {
                    // The rulebook's own words, and the log's context fields, are not names.
                    if !matches!(k.as_str(), "type" | "message" | "what" | "reason" | "para" | "phase") {
                        self.rename(x);
                    }
                }
            }
            _ => {}
        }
    }

    /// One log line as this side saw it.
    fn line(&mut self, m: &mut Map<String, Json>) {
        let kind = m.get("type").and_then(|t| t.as_str()).unwrap_or("").to_string();
        let by_other = |m: &Map<String, Json>, key: &str, side: &str| {
            m.get(key).and_then(|b| b.as_str()).map(|b| b != side).unwrap_or(false)
        };
        match kind.as_str() {
            "header" => {
                m.insert("view".into(), Json::String(self.side.clone()));
            }
            "mark" | "unmark" => {
                if let (Some(u), Some(mk)) =
                    (m.get("on").and_then(|x| x.as_str()), m.get("marker").and_then(|x| x.as_str()))
                {
                    if self.owner.contains_key(u) && self.revealers.iter().any(|r| r.as_deref() == Some(mk)) {
                        if kind == "mark" {
                            self.marks.entry(u.to_string()).or_default().insert(mk.to_string());
                        } else if let Some(on) = self.marks.get_mut(u) {
                            on.remove(mk);
                        }
                    }
                }
            }
            "transfer" => {
                if let (Some(u), Some(to)) =
                    (m.get("unit").and_then(|x| x.as_str()), m.get("to").and_then(|x| x.as_str()))
                {
                    self.owner.insert(u.to_string(), to.to_string());
                }
            }
            // A card drawn into another side's hand is seen face down.
            "draw" if m.contains_key("deck") && by_other(m, "to", &self.side) => {
                m.insert("drawn".into(), Json::Null);
                m.insert("hidden".into(), Json::Bool(true));
            }
            // Another side's sealed or secret decision is seen only at its reveal; a
            // private one never.
            "decision"
                if ["sealed", "secret", "private"]
                    .iter()
                    .any(|k| m.get(*k).and_then(|s| s.as_bool()) == Some(true))
                    && by_other(m, "by", &self.side) =>
            {
                m.insert("choice".into(), Json::Null);
                m.insert("hidden".into(), Json::Bool(true));
            }
            "track" => {
                let of = m.get("of").and_then(|o| o.as_str()).filter(|o| self.foreign(o));
                let hidden = match (m.get("track").and_then(|t| t.as_str()), of) {
                    (Some(t), Some(o)) => {
                        self.hidden_tracks.iter().any(|(h, by)| h == t && !self.carries(o, by))
                    }
                    _ => false,
                };
                if hidden {
                    m.insert("by".into(), Json::Null);
                    m.insert("value".into(), Json::Null);
                    m.insert("hidden".into(), Json::Bool(true));
                }
            }
            // A modifier set evaluated for another side's unit may read a hidden rating or
            // track: with anything hidden, only its name and arguments are shown.
            "modifiers"
                if self.prog.hidden_type.is_some()
                    || !self.hidden_tracks.is_empty()
                    || !self.prog.hidden_ratings.is_empty() =>
            {
                let mut names = Vec::new();
                if let Some(Json::Object(args)) = m.get("args") {
                    for v in args.values() {
                        collect_strings(v, &mut names);
                    }
                }
                if names.iter().any(|n| self.foreign(n) && !self.open(n)) {
                    for k in ["base", "result"] {
                        m.insert(k.into(), Json::Null);
                    }
                    // Which lines applied can tell a hidden value too (`x2 when u.str > 3`).
                    m.insert("applied".into(), Json::Array(Vec::new()));
                    m.insert("hidden".into(), Json::Bool(true));
                }
            }
            _ => {}
        }
        if self.prog.hidden_type.is_some() {
            let mut v = Json::Object(std::mem::take(m));
            self.rename(&mut v);
            if let Json::Object(x) = v {
                *m = x;
            }
        }
    }
}

/// Every string in a value (unit names among them).
fn collect_strings(v: &Json, out: &mut Vec<String>) {
    match v {
        Json::String(s) => out.push(s.clone()),
        Json::Array(items) => items.iter().for_each(|x| collect_strings(x, out)),
        _ => {}
    }
}

/// The log `text` (JSON Lines, as `Log::text` writes it) as side `side` saw it. An
/// unknown side is an error naming the sides; a line that is not a JSON object passes
/// unchanged.
pub fn side_view(prog: &Program, text: &str, side: &str) -> Result<String, String> {
    if !prog.sides.iter().any(|s| s == side) {
        return Err(format!("unknown side `{side}`: the sides are {}", prog.sides.join(", ")));
    }
    let mut v = Viewer::new(prog, side);
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        match serde_json::from_str::<Json>(line) {
            Ok(Json::Object(mut m)) => {
                v.line(&mut m);
                out.push_str(&Json::Object(m).to_string());
            }
            _ => out.push_str(line),
        }
        out.push('\n');
    }
    Ok(out)
}
