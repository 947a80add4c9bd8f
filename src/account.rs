//! The game account: a run log (JSON Lines, docs/language.md section 16) rendered for
//! people. `run` prints it on a terminal and `log FILE.jsonl` renders a saved log; both
//! go through `render`, so the two are the same text.
//!
//! The account is made from the log's events alone (no rulebook needed): turn and phase
//! headers, moves merged into one line per unit and move, runs of the same mark merged
//! into one line, a lookup with the procedure it is in and that procedure's arguments (who
//! attacks whom), the die and the row it was read on, losses, retreats, eliminations,
//! tracks, triggers, and the result with its paragraph. An event type the account does
//! not know is still shown, with its fields, so nothing in the log is hidden.

use serde_json::{Map, Value as Json};

/// A log line that is not a JSON object with a `type`: (line number from 1, message).
#[derive(Debug)]
pub(crate) struct BadLine {
    pub line: usize,
    pub message: String,
}

/// A log's lines as JSON objects with a `type` (blank lines are skipped); the first line
/// that is not one is the error.
pub(crate) fn parse(log: &str) -> Result<Vec<Map<String, Json>>, BadLine> {
    let mut events = Vec::new();
    for (i, line) in log.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let v: Json = serde_json::from_str(line)
            .map_err(|e| BadLine { line: i + 1, message: format!("not JSON: {e}") })?;
        let Json::Object(ev) = v else {
            return Err(BadLine { line: i + 1, message: "not a JSON object".into() });
        };
        if ev.get("type").and_then(Json::as_str).is_none() {
            return Err(BadLine { line: i + 1, message: "an event without a \"type\"".into() });
        }
        events.push(ev);
    }
    Ok(events)
}

/// Render a whole log (one JSON object per line; blank lines are skipped).
pub(crate) fn render(log: &str) -> Result<String, BadLine> {
    let mut a = Account::default();
    for ev in parse(log)? {
        let kind = s(&ev, "type").to_string();
        a.event(&kind, &ev);
    }
    a.flush();
    Ok(a.out)
}

/// One event's own account line(s), as the account would show it alone (no merging
/// with its neighbours), without indentation: the replay's caption for the event.
pub(crate) fn event_line(ev: &Map<String, Json>) -> String {
    let mut a = Account::default();
    if let Some(kind) = ev.get("type").and_then(Json::as_str) {
        a.event(kind, ev);
    }
    a.flush();
    a.out.lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join(" · ")
}

/// Indentation of an event inside a phase (and outside one, under its turn).
const IN_PHASE: &str = "    ";

/// Lines waiting for the next event to know whether they merge with it.
#[derive(Default)]
struct Account {
    out: String,
    /// A unit's move in progress: unit, first hex (None: from off the map), hexes so far,
    /// paragraph, who chose it (the decision just before: by, options).
    moving: Option<Moving>,
    /// A run of marks: (type, marker, paragraph, what).
    marks: Option<(String, String, String, Vec<String>)>,
    /// A roll not yet shown: it may be the die of the lookup that follows.
    roll: Option<Map<String, Json>>,
    /// A decision not yet shown: a move that follows it is its consequence.
    decision: Option<Map<String, Json>>,
}

struct Moving {
    unit: String,
    path: Vec<String>,
    from_off_map: bool,
    para: String,
    chosen: Option<(String, i64)>,
}

/// A value as text: strings bare, lists joined with ", ", null as "none".
fn text(v: Option<&Json>) -> String {
    match v {
        None | Some(Json::Null) => "none".into(),
        Some(Json::String(s)) => s.clone(),
        Some(Json::Array(items)) if items.is_empty() => "nobody".into(),
        Some(Json::Array(items)) => items.iter().map(|x| text(Some(x))).collect::<Vec<_>>().join(", "),
        Some(other) => other.to_string(),
    }
}

fn s<'a>(ev: &'a Map<String, Json>, k: &str) -> &'a str {
    ev.get(k).and_then(Json::as_str).unwrap_or("?")
}

fn int(ev: &Map<String, Json>, k: &str) -> Option<i64> {
    ev.get(k).and_then(Json::as_i64)
}

/// " (§P)" for an event with a paragraph, "" without.
fn para(ev: &Map<String, Json>) -> String {
    match ev.get("para").and_then(Json::as_str) {
        Some(p) if !p.is_empty() => format!(" (§{p})"),
        _ => String::new(),
    }
}

fn signed(n: i64) -> String {
    if n >= 0 {
        format!("+{n}")
    } else {
        n.to_string()
    }
}

impl Account {
    fn line(&mut self, indent: &str, text: &str) {
        self.out.push_str(indent);
        self.out.push_str(text);
        self.out.push('\n');
    }

    /// Show everything waiting (before an event that does not merge with it).
    fn flush(&mut self) {
        self.flush_decision();
        self.flush_moving();
        self.flush_marks();
        self.flush_roll();
    }

    fn flush_decision(&mut self) {
        if let Some(d) = self.decision.take() {
            let choice = text(d.get("choice"));
            let options = int(&d, "options").unwrap_or(0);
            let t = format!("{} chooses {}: {choice} (of {options}){}", s(&d, "by"), s(&d, "what"), para(&d));
            self.line(IN_PHASE, &t);
        }
    }

    fn flush_moving(&mut self) {
        if let Some(m) = self.moving.take() {
            let hexes = m.path.len().saturating_sub(1);
            let route = match m.path.split_first() {
                Some((first, rest)) if m.from_off_map && rest.is_empty() => format!("is placed at {first}"),
                Some((first, rest)) if m.from_off_map => {
                    format!("is placed at {first}, then moves {}", rest.join(" → "))
                }
                _ => format!("moves {}", m.path.join(" → ")),
            };
            let plural = if hexes == 1 { "" } else { "es" };
            let mut notes = Vec::new();
            if hexes > 0 {
                notes.push(format!("{hexes} hex{plural}"));
            }
            if let Some((side, n)) = &m.chosen {
                notes.push(format!("{side} chose among {n}"));
            }
            let notes = if notes.is_empty() { String::new() } else { format!(" ({})", notes.join(", ")) };
            let t = format!("{} {route}{notes} (§{})", m.unit, m.para);
            self.line(IN_PHASE, &t);
        }
    }

    fn flush_marks(&mut self) {
        if let Some((kind, marker, p, what)) = self.marks.take() {
            let verb = if kind == "mark" { "marked" } else { "unmarked" };
            let p = if p.is_empty() { String::new() } else { format!(" (§{p})") };
            let t = format!("{verb} {marker}: {}{p}", what.join(", "));
            self.line(IN_PHASE, &t);
        }
    }

    fn flush_roll(&mut self) {
        if let Some(r) = self.roll.take() {
            let t = format!("roll {} = {}{}", s(&r, "dice"), roll_value(&r), para(&r));
            self.line(IN_PHASE, &t);
        }
    }

    fn event(&mut self, kind: &str, ev: &Map<String, Json>) {
        // Merges first: a move continuing the one in progress, a mark like the last one.
        match kind {
            "move" => {
                let unit = s(ev, "unit").to_string();
                let from = ev.get("from").and_then(Json::as_str).map(str::to_string);
                let to = s(ev, "to").to_string();
                if let Some(m) = &mut self.moving {
                    if m.unit == unit && from.as_deref() == m.path.last().map(String::as_str) {
                        m.path.push(to);
                        return;
                    }
                }
                // A decision just before a move is where the move goes: fold it in.
                let chosen =
                    self.decision.take().map(|d| (s(&d, "by").to_string(), int(&d, "options").unwrap_or(0)));
                self.flush();
                let from_off_map = from.is_none();
                let mut path: Vec<String> = from.into_iter().collect();
                path.push(to);
                let p = ev.get("para").and_then(Json::as_str).unwrap_or("").to_string();
                self.moving = Some(Moving { unit, path, from_off_map, para: p, chosen });
                return;
            }
            "mark" | "unmark" => {
                let marker = s(ev, "marker").to_string();
                let p = ev.get("para").and_then(Json::as_str).unwrap_or("").to_string();
                let on = text(ev.get("on"));
                if let Some((k, m, q, what)) = &mut self.marks {
                    if k == kind && *m == marker && *q == p {
                        what.push(on);
                        return;
                    }
                }
                self.flush();
                self.marks = Some((kind.to_string(), marker, p, vec![on]));
                return;
            }
            "lookup" => {
                let die = self.roll.take();
                self.flush();
                self.lookup(ev, die);
                return;
            }
            _ => {}
        }
        self.flush();
        let p = para(ev);
        match kind {
            "header" => {
                let mut t = format!("{} — scenario {}", s(ev, "rulebook"), s(ev, "scenario"));
                if let Some(title) = ev.get("scenario_title").and_then(Json::as_str) {
                    t.push_str(&format!(" \"{title}\""));
                }
                t.push_str(&format!(", seed {}", ev.get("seed").map(|v| v.to_string()).unwrap_or_default()));
                self.line("", &t);
                if let Some(Json::Object(agents)) = ev.get("agents") {
                    let list: Vec<String> =
                        agents.iter().map(|(k, v)| format!("{k} {}", text(Some(v)))).collect();
                    self.line("", &format!("agents: {}", list.join(", ")));
                }
                if let Some(Json::Object(r)) = ev.get("rulings") {
                    if !r.is_empty() {
                        let list: Vec<String> =
                            r.iter().map(|(k, v)| format!("{k}={}", text(Some(v)))).collect();
                        self.line("", &format!("rulings: {}", list.join(", ")));
                    }
                }
                if let Some(Json::Array(o)) = ev.get("options") {
                    if !o.is_empty() {
                        self.line("", &format!("options: {}", text(Some(&Json::Array(o.clone())))));
                    }
                }
                if let Some(Json::Array(sup)) = ev.get("supplied") {
                    if !sup.is_empty() {
                        self.line(
                            "",
                            &format!(
                                "supplied data (not from the rulebook): {} items, listed in the log's header",
                                sup.len()
                            ),
                        );
                    }
                }
            }
            "layers" => {
                if let Some(Json::Array(ls)) = ev.get("layers") {
                    let list: Vec<String> = ls
                        .iter()
                        .map(|l| match l.get("title").and_then(Json::as_str) {
                            Some(t) => format!("{} ({t})", text(l.get("layer"))),
                            None => text(l.get("layer")),
                        })
                        .collect();
                    self.line("", &format!("layers: {}", list.join(", ")));
                }
            }
            "players" => {
                if let Some(Json::Array(ps)) = ev.get("players") {
                    let list: Vec<String> = ps
                        .iter()
                        .map(|x| {
                            format!(
                                "{}: {} ({})",
                                text(x.get("player")),
                                text(x.get("sides")),
                                text(x.get("agent"))
                            )
                        })
                        .collect();
                    self.line("", &format!("players: {}", list.join("; ")));
                }
            }
            "agent" => {
                let t = format!(
                    "{} is played by the {} agent: {}",
                    s(ev, "side"),
                    s(ev, "agent"),
                    text(ev.get("notes"))
                );
                self.line("", &t);
            }
            "turn" => {
                self.out.push('\n');
                self.line("", &format!("Turn {}{p}", int(ev, "turn").unwrap_or(0)));
            }
            "phase" => {
                let side =
                    ev.get("side").and_then(Json::as_str).map(|x| format!(" — {x}")).unwrap_or_default();
                self.line("  ", &format!("{} phase{side}{p}", s(ev, "phase")));
            }
            "phase_end" => {}
            "decision" => {
                // Held: the move that may follow shows it.
                self.decision = Some(ev.clone());
            }
            "roll" => {
                self.roll = Some(ev.clone());
            }
            "modifiers" => {
                let t = modifiers_line(ev);
                self.line(IN_PHASE, &t);
            }
            "retreat" => {
                let path = text(ev.get("path"));
                let off = if ev.get("off_map").and_then(Json::as_bool) == Some(true) {
                    ", off the map"
                } else {
                    ""
                };
                let t = format!("{} retreats from {}: {path}{off}{p}", s(ev, "unit"), s(ev, "from"));
                self.line(IN_PHASE, &t);
            }
            "remove" => {
                let off =
                    if ev.get("off_map").and_then(Json::as_bool) == Some(true) { " off the map" } else { "" };
                self.line(
                    IN_PHASE,
                    &format!("{} removed from {}{off}{p}", s(ev, "unit"), text(ev.get("from"))),
                );
            }
            "eliminate" => self.line(IN_PHASE, &format!("{} eliminated{p}", s(ev, "unit"))),
            "step_loss" => {
                let left = int(ev, "steps_left").unwrap_or(0);
                self.line(IN_PHASE, &format!("{} loses a step, {left} left{p}", s(ev, "unit")));
            }
            "step_gain" => {
                let left = int(ev, "steps_left").unwrap_or(0);
                self.line(IN_PHASE, &format!("{} regains a step, {left} left{p}", s(ev, "unit")));
            }
            "face" => self.line(IN_PHASE, &format!("{} faces {}{p}", s(ev, "unit"), text(ev.get("facing")))),
            "form" => {
                let t = format!(
                    "{} changes formation {} → {}{p}",
                    s(ev, "unit"),
                    text(ev.get("from")),
                    text(ev.get("to"))
                );
                self.line(IN_PHASE, &t);
            }
            "track" => {
                let of = match ev.get("of") {
                    None | Some(Json::Null) => String::new(),
                    Some(v) => format!(" of {}", text(Some(v))),
                };
                let value = ev.get("value").map(|v| text(Some(v))).unwrap_or_default();
                // A track of references has no `by`: it is set to a unit or space, or cleared.
                let change = if !ev.contains_key("by") && !matches!(ev.get("value"), Some(v) if !v.is_null())
                {
                    "cleared".to_string()
                } else if ev.contains_key("set") || !ev.contains_key("by") {
                    format!("set to {value}")
                } else {
                    format!("{} → {value}", int(ev, "by").map(signed).unwrap_or_default())
                };
                self.line(IN_PHASE, &format!("{}{of} {change}{p}", s(ev, "track")));
            }
            "enter" => {
                self.line(IN_PHASE, &format!("{} arrives at {}{p}", s(ev, "unit"), text(ev.get("at"))))
            }
            "trigger" => self.line(IN_PHASE, &format!("trigger {} fires{p}", s(ev, "trigger"))),
            "note" => self.line(IN_PHASE, &format!("note: {}{p}", text(ev.get("message")))),
            // A card drawn from a deck into a side's hand (face down in another side's
            // view: `drawn` null).
            "draw" if ev.contains_key("deck") => {
                let card = match ev.get("drawn") {
                    None | Some(Json::Null) => "a card".to_string(),
                    Some(c) => text(Some(c)),
                };
                let t = format!(
                    "{} draws {card} from {} into {} ({} left){p}",
                    s(ev, "to"),
                    s(ev, "deck"),
                    s(ev, "hand"),
                    text(ev.get("left"))
                );
                self.line(IN_PHASE, &t);
            }
            "draw" => {
                let t = format!(
                    "drawn from {}: {} ({} left){p}",
                    s(ev, "cup"),
                    text(ev.get("drawn")),
                    text(ev.get("left"))
                );
                self.line(IN_PHASE, &t);
            }
            "play" | "discard" => {
                let verb = if kind == "play" { "plays" } else { "discards" };
                let t = format!("{} {verb} {} from {}{p}", s(ev, "by"), text(ev.get("card")), s(ev, "hand"));
                self.line(IN_PHASE, &t);
            }
            "reshuffle" => {
                let t = format!(
                    "{} reshuffled: {} cards back from the discards, {} to draw{p}",
                    s(ev, "deck"),
                    text(ev.get("returned")),
                    text(ev.get("left"))
                );
                self.line(IN_PHASE, &t);
            }
            "control" => {
                let t = format!(
                    "control of {} ({}): {} → {}{p}",
                    text(ev.get("power")),
                    text(ev.get("of")),
                    text(ev.get("from")),
                    text(ev.get("to"))
                );
                self.line(IN_PHASE, &t);
            }
            "reveal" => {
                let list: Vec<String> = match ev.get("decisions") {
                    Some(Json::Array(ds)) => ds
                        .iter()
                        .map(|d| {
                            format!(
                                "{} {}: {}",
                                text(d.get("by")),
                                text(d.get("what")),
                                text(d.get("choice"))
                            )
                        })
                        .collect(),
                    _ => Vec::new(),
                };
                self.line(IN_PHASE, &format!("sealed decisions revealed: {}{p}", list.join("; ")));
            }
            "end" => {
                self.out.push('\n');
                let who = match ev.get("winner") {
                    None | Some(Json::Null) => "draw".to_string(),
                    Some(w) => format!("{} wins", text(Some(w))),
                };
                let team = ev.get("team").map(|t| format!(" (team {})", text(Some(t)))).unwrap_or_default();
                let t = format!(
                    "Result: {who}{team} — {}{p}, turn {}",
                    s(ev, "reason"),
                    ev.get("turn").map(|v| text(Some(v))).unwrap_or_default()
                );
                self.line("", &t);
            }
            "error" => {
                self.out.push('\n');
                let t = format!(
                    "Stopped by error {}: {}{p}, in {}",
                    s(ev, "code"),
                    s(ev, "message"),
                    text(ev.get("function"))
                );
                self.line("", &t);
            }
            _ => {
                // An event the account does not know yet: its fields as they are.
                let skip = ["type", "turn", "phase", "side", "para"];
                let fields: Vec<String> = ev
                    .iter()
                    .filter(|(k, _)| !skip.contains(&k.as_str()))
                    .map(|(k, v)| format!("{k} {}", text(Some(v))))
                    .collect();
                self.line(IN_PHASE, &format!("{kind}: {}{p}", fields.join(", ")));
            }
        }
    }

    /// A table lookup: the procedure and its arguments (who attacks whom), then the key,
    /// column, shift, the die and modifier that gave the row, and the result.
    fn lookup(&mut self, ev: &Map<String, Json>, die: Option<Map<String, Json>>) {
        if let (Some(f), Some(Json::Object(args))) = (ev.get("in").and_then(Json::as_str), ev.get("args")) {
            let list: Vec<String> = args.iter().map(|(k, v)| format!("{k} {}", text(Some(v)))).collect();
            self.line(IN_PHASE, &format!("{f}: {}", list.join("; ")));
        }
        let row = int(ev, "row");
        let roll = match (&die, row) {
            (Some(d), Some(row)) => match int(d, "value") {
                Some(v) if v != row => {
                    format!("roll {} = {v}{}, {} = row {row}", s(d, "dice"), para(d), signed(row - v))
                }
                _ => format!("roll {} = {}{}, row {row}", s(d, "dice"), roll_value(d), para(d)),
            },
            (None, Some(row)) => format!("row {row}"),
            (_, None) => String::new(),
        };
        let shift = match int(ev, "shift") {
            Some(0) | None => String::new(),
            Some(n) => format!(", {} column{}", signed(n), if n.abs() == 1 { "" } else { "s" }),
        };
        let at = at_para(ev);
        let t = format!(
            "{}{}: {}{shift} → column {}; {roll} → {}{at}",
            s(ev, "table"),
            para(ev),
            text(ev.get("key")),
            text(ev.get("column")),
            text(ev.get("result"))
        );
        let indent = if ev.contains_key("in") { "      " } else { IN_PHASE };
        self.line(indent, &t);
    }
}

/// A roll's value, with each die of a pool.
/// A modifier set that changed a value: `defense_terrain(Drabanterna): 3 → 6 (x2 §7.3.A)`.
fn modifiers_line(ev: &Map<String, Json>) -> String {
    let args = match ev.get("args") {
        Some(Json::Object(a)) if !a.is_empty() => {
            format!("({})", a.values().map(|v| text(Some(v))).collect::<Vec<_>>().join(", "))
        }
        _ => String::new(),
    };
    let lines: Vec<String> = match ev.get("applied") {
        Some(Json::Array(ls)) => ls
            .iter()
            .filter_map(Json::as_object)
            .map(|l| {
                let effect = s(l, "effect");
                // A named amount shows its value: `+bonus (2)`.
                let amount = match int(l, "amount") {
                    Some(a) if effect.parse::<i64>().ok() != Some(a) => format!(" ({})", signed(a)),
                    _ => String::new(),
                };
                match l.get("para").and_then(Json::as_str) {
                    Some(p) if !p.is_empty() => format!("{effect}{amount} §{p}"),
                    _ => format!("{effect}{amount}"),
                }
            })
            .collect(),
        _ => Vec::new(),
    };
    let best = if ev.get("best").and_then(Json::as_bool) == Some(true) { "the best of " } else { "" };
    // In a side's view, values read from another side's hidden unit are not shown.
    let hidden = ev.get("hidden").and_then(Json::as_bool) == Some(true);
    if hidden {
        return format!("{}{args}: not seen{}", s(ev, "set"), at_para(ev));
    }
    let value = |k: &str| text(ev.get(k));
    format!(
        "{}{args}: {} → {} ({best}{}){}",
        s(ev, "set"),
        value("base"),
        value("result"),
        lines.join(", "),
        at_para(ev)
    )
}

/// `, at §P` for an event's `at` field, or nothing.
fn at_para(ev: &Map<String, Json>) -> String {
    match ev.get("at").and_then(Json::as_str) {
        Some(a) if !a.is_empty() => format!(", at §{a}"),
        _ => String::new(),
    }
}

fn roll_value(r: &Map<String, Json>) -> String {
    let v = text(r.get("value"));
    match r.get("dice_values") {
        Some(Json::Array(ds)) => {
            format!("{v} ({})", ds.iter().map(|d| text(Some(d))).collect::<Vec<_>>().join("+"))
        }
        _ => v,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_lines_are_checked() {
        assert!(parse("{\"type\":\"header\"}\n\n{\"type\":\"move\"}\n").is_ok());
        assert_eq!(parse("{\"type\":\"header\"}\nnope").unwrap_err().line, 2);
        assert!(parse("[1]").unwrap_err().message.contains("not a JSON object"));
        assert!(parse("{\"a\":1}").unwrap_err().message.contains("without a \"type\""));
    }

    #[test]
    fn moves_merge_and_decisions_fold_in() {
        let log = r#"{"type":"turn","turn":1,"para":"3.2"}
{"type":"phase","turn":1,"phase":"Movement","side":"Red","para":"3.1"}
{"type":"decision","turn":1,"by":"Red","what":"destination","options":5,"choice":"0103","para":"4.0"}
{"type":"move","turn":1,"unit":"A","from":"0101","to":"0102","para":"4.0"}
{"type":"move","turn":1,"unit":"A","from":"0102","to":"0103","para":"4.0"}
{"type":"move","turn":1,"unit":"B","from":"0201","to":"0202","para":"4.0"}
{"type":"mark","turn":1,"marker":"Done","on":"A","para":"4.1"}
{"type":"mark","turn":1,"marker":"Done","on":"B","para":"4.1"}
{"type":"roll","turn":1,"dice":"1d6","value":4,"para":"5.1"}
{"type":"lookup","turn":1,"para":"5.0","at":"5.2","table":"Crt","key":"3","column":"3..","shift":-1,"row":5,"result":"DR","in":"attack","args":{"atk":["A"],"def":["C"]}}
{"type":"end","winner":"Red","reason":"held","para":"6.0","turn":1}
"#;
        let got = render(log).unwrap();
        let want = "
Turn 1 (§3.2)
  Movement phase — Red (§3.1)
    A moves 0101 → 0102 → 0103 (2 hexes, Red chose among 5) (§4.0)
    B moves 0201 → 0202 (1 hex) (§4.0)
    marked Done: A, B (§4.1)
    attack: atk A; def C
      Crt (§5.0): 3, -1 column → column 3..; roll 1d6 = 4 (§5.1), +1 = row 5 → DR, at §5.2

Result: Red wins — held (§6.0), turn 1
";
        assert_eq!(got, want);
    }

    #[test]
    fn bad_lines_are_reported_with_their_number() {
        let e = render("{\"type\":\"turn\"}\n\nnot json\n").unwrap_err();
        assert_eq!(e.line, 3);
        let e = render("[1]\n").unwrap_err();
        assert_eq!((e.line, e.message.as_str()), (1, "not a JSON object"));
        let e = render("{\"turn\":1}\n").unwrap_err();
        assert!(e.message.contains("type"), "{}", e.message);
    }

    #[test]
    fn unknown_events_show_their_fields() {
        let got = render("{\"type\":\"weather\",\"turn\":2,\"para\":\"9.1\",\"sky\":\"rain\"}\n").unwrap();
        assert_eq!(got, "    weather: sky rain (§9.1)\n");
    }
}
