//! The JSON Lines game log: header, one event per line, final result line.
//!
//! Every line is serialised from a typed [`Event`] (docs/language.md section 16 lists
//! the kinds and their fields). Events are built only when logging is on, so headless
//! batch runs pay nothing. A log either keeps its lines (for the account, the views,
//! the tests) or streams each line to a writer as the game runs ([`Log::streaming`]).
//!
//! A label (a unit's name, a space's id, a side, a code, or a key that may be any of
//! these, an array of two keys, or null) is kept as a JSON value: [`Label`].

use serde::Serialize;
use serde_json::Value as Json;
use std::io::Write;

/// A value as the log names it (see [`crate::vm::Vm::label`]).
pub type Label = Json;

/// Where and when an event happened: the fields every in-game event carries after
/// its `type`. Events of the set-up and the end (header, agents, end) have none.
#[derive(Debug, Clone, Serialize)]
pub struct Ctx<'a> {
    pub turn: i64,
    /// The phase being played, "" between phases.
    pub phase: &'a str,
    /// The phasing side (null before any phase).
    pub side: Option<&'a str>,
    /// The paragraph of the rule that caused the event.
    pub para: &'a str,
    /// Its sequence-of-play code (`step_codes`), when the rulebook declares them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step: Option<&'a str>,
    /// The layer of that rule, when above the base rules.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub layer: Option<&'a str>,
}

/// One event of the game log. Serialised without its kind (see [`Event::kind`]), which
/// the line writes first as `type`.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Event {
    /// The first line of a log: what was played, by whom, with which rulings and options.
    Header {
        /// The rulebook as the user named it (`run`'s argument), when known.
        #[serde(skip_serializing_if = "Option::is_none")]
        source: Option<String>,
        rulebook: String,
        scenario: String,
        scenario_title: String,
        seed: u64,
        agents: serde_json::Map<String, Json>,
        rulings: serde_json::Map<String, Json>,
        options: Vec<Json>,
        supplied: Vec<Json>,
    },
    /// The player count chosen and who plays which sides (6.1b).
    Players { count: usize, players: Vec<Json> },
    /// The layers in play, lowest first (6.15e).
    Layers { layers: Vec<Json> },
    /// A die or a pool of dice rolled.
    Roll {
        dice: String,
        value: i64,
        #[serde(skip_serializing_if = "Option::is_none")]
        dice_values: Option<Vec<i64>>,
    },
    /// A table read in a procedure: the roll, the column and the result.
    Lookup {
        turn: i64,
        para: String,
        /// The sequence-of-play code of `para` (`step_codes`), when it has one.
        #[serde(skip_serializing_if = "Option::is_none")]
        step: Option<String>,
        at: String,
        table: String,
        /// The column key (a number, or the odds of an odds table), as text.
        key: String,
        column: String,
        shift: i64,
        row: i64,
        result: Label,
        /// The function the lookup was made in and its named arguments (who attacks whom).
        #[serde(rename = "in", skip_serializing_if = "Option::is_none")]
        in_fn: Option<Json>,
        #[serde(skip_serializing_if = "Option::is_none")]
        args: Option<Json>,
    },
    /// The modifier lines that applied to a value (6.11).
    Modifiers {
        turn: i64,
        para: String,
        /// The sequence-of-play code of `para` (`step_codes`), when it has one.
        #[serde(skip_serializing_if = "Option::is_none")]
        step: Option<String>,
        at: String,
        set: String,
        args: serde_json::Map<String, Json>,
        base: Label,
        applied: Vec<Json>,
        result: Label,
        #[serde(skip_serializing_if = "Option::is_none")]
        best: Option<bool>,
    },
    /// A track changed: `by` for a number track's change, `set` for the value a `set`
    /// asked; a track of references has only `value` (null when cleared).
    Track {
        track: String,
        of: Label,
        #[serde(skip_serializing_if = "Option::is_none")]
        by: Option<i64>,
        value: Label,
        #[serde(skip_serializing_if = "Option::is_none")]
        set: Option<i64>,
    },
    /// A step regained or lost.
    Step { unit: String, steps_left: i64 },
    /// A player's decision (sealed ones are revealed later).
    Decision {
        by: Option<String>,
        what: String,
        options: usize,
        choice: Label,
        #[serde(skip_serializing_if = "Option::is_none")]
        player: Option<Json>,
        #[serde(skip_serializing_if = "Option::is_none")]
        sealed: Option<bool>,
        /// A `secret` choice: kept from the other sides' views until its `reveal`.
        #[serde(skip_serializing_if = "Option::is_none")]
        secret: Option<bool>,
        /// A `private` choice: kept from the other sides' views for good.
        #[serde(skip_serializing_if = "Option::is_none")]
        private: Option<bool>,
    },
    /// A unit moved (from null: onto the map).
    Move { unit: String, from: Option<String>, to: String },
    /// A marker set or cleared.
    Marker { marker: String, on: Label },
    /// A `log` statement's text.
    Note { message: String },
    /// A value drawn from a cup.
    CupDraw { cup: Option<String>, drawn: Label, left: usize },
    /// A card drawn from a deck into a hand.
    CardDraw { deck: Option<String>, drawn: Label, to: Option<String>, hand: Option<String>, left: usize },
    /// A card played or discarded from a hand.
    Card { card: Label, by: Option<String>, hand: Option<String> },
    /// A deck's discards returned to it.
    Reshuffle { deck: Option<String>, returned: usize, left: usize },
    /// A unit changed sides.
    Transfer { unit: String, from: Option<String>, to: Option<String> },
    /// A turn, a phase or a phase's end: the kind and the context say which.
    Point {},
    /// A reinforcement entered at its hex.
    Enter { unit: String, at: String },
    /// The decisions of a sealed block, revealed together (or one `secret` choice, by
    /// a `reveal` statement).
    Reveal { decisions: Vec<Json> },
    /// A unit eliminated.
    Eliminate { unit: String },
    /// A unit taken off the map (off_map: it left by an edge).
    Remove { unit: String, from: String, off_map: bool },
    /// An interrupt fired by a move.
    Interrupt { interrupt: String, mover: String, at: String },
    /// A trigger fired.
    Trigger { trigger: String },
    /// A retreat by the retreat hooks.
    Retreat {
        turn: i64,
        para: String,
        /// The sequence-of-play code of `para` (`step_codes`), when it has one.
        #[serde(skip_serializing_if = "Option::is_none")]
        step: Option<String>,
        at: String,
        unit: String,
        from: String,
        path: Vec<String>,
        off_map: bool,
    },
    /// A unit's facing changed.
    Face {
        unit: String,
        facing: i64,
        #[serde(skip_serializing_if = "Option::is_none")]
        vertex: Option<bool>,
    },
    /// A unit changed face (formation).
    Form { unit: String, from: String, to: String },
    /// Control of a Power moved (6.1d).
    Control { of: String, power: Label, from: Label, to: Label, at: String },
    /// An agent's notes at the end of the game.
    Agent { side: Option<String>, agent: String, notes: Vec<String> },
    /// The last line of a finished game.
    End {
        winner: Option<String>,
        reason: String,
        para: String,
        turn: i64,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        winners: Vec<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        team: Option<String>,
    },
    /// The last line of a game stopped by a runtime error.
    Error { code: String, message: String, para: String, function: String },
}

/// A line: the kind, the context, the event's own fields, in that order.
#[derive(Serialize)]
struct Line<'a> {
    #[serde(rename = "type")]
    kind: &'a str,
    #[serde(flatten)]
    ctx: Option<&'a Ctx<'a>>,
    #[serde(flatten)]
    event: &'a Event,
}

/// Where log lines go.
#[derive(Default)]
pub struct Log {
    enabled: bool,
    /// The lines, when the log keeps them (not streaming).
    pub lines: Vec<String>,
    sink: Option<Box<dyn Write + Send>>,
    /// The first error writing to the sink; later lines are dropped.
    error: Option<std::io::Error>,
    buf: Vec<u8>,
}

impl std::fmt::Debug for Log {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Log")
            .field("enabled", &self.enabled)
            .field("lines", &self.lines.len())
            .field("streaming", &self.sink.is_some())
            .finish()
    }
}

impl Log {
    pub fn new(enabled: bool) -> Log {
        Log { enabled, ..Log::default() }
    }
    /// A log that writes each line to `sink` as the game runs and keeps none.
    pub fn streaming(sink: Box<dyn Write + Send>) -> Log {
        Log { enabled: true, sink: Some(sink), ..Log::default() }
    }
    #[inline]
    pub fn enabled(&self) -> bool {
        self.enabled
    }
    /// Switch event recording off or on (invariant checks evaluate rules silently).
    pub(crate) fn set_enabled(&mut self, on: bool) {
        self.enabled = on;
    }
    /// Record one event of kind `kind` with its context (None for the set-up and end lines).
    pub fn event(&mut self, kind: &str, ctx: Option<&Ctx<'_>>, event: &Event) {
        if !self.enabled {
            return;
        }
        self.buf.clear();
        // Serialising plain data into memory cannot fail.
        if serde_json::to_writer(&mut self.buf, &Line { kind, ctx, event }).is_err() {
            return;
        }
        match self.sink.as_mut() {
            None => self.lines.push(String::from_utf8_lossy(&self.buf).into_owned()),
            Some(w) if self.error.is_none() => {
                self.buf.push(b'\n');
                if let Err(e) = w.write_all(&self.buf) {
                    self.error = Some(e);
                }
            }
            Some(_) => {}
        }
    }
    /// Flush a streaming log; the first write error, if any.
    pub fn finish(&mut self) -> std::io::Result<()> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        match self.sink.as_mut() {
            Some(w) => w.flush(),
            None => Ok(()),
        }
    }
    /// Is the log written to a sink rather than kept?
    pub fn is_streaming(&self) -> bool {
        self.sink.is_some()
    }
    /// The whole log as text, one JSON object per line (empty when streamed).
    pub fn text(&self) -> String {
        let mut s = String::new();
        for l in &self.lines {
            s.push_str(l);
            s.push('\n');
        }
        s
    }
}
