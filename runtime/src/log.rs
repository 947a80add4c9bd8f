//! The JSON Lines game log: header, one event per line, final result line.
//!
//! Events are built only when logging is on, so headless batch runs pay nothing.

use serde_json::{json, Map, Value as Json};

/// Where log lines go.
#[derive(Debug, Default)]
pub struct Log {
    enabled: bool,
    pub lines: Vec<String>,
}

impl Log {
    pub fn new(enabled: bool) -> Log {
        Log { enabled, lines: Vec::new() }
    }
    #[inline]
    pub fn enabled(&self) -> bool {
        self.enabled
    }
    /// Switch event recording off or on (invariant checks evaluate rules silently).
    pub(crate) fn set_enabled(&mut self, on: bool) {
        self.enabled = on;
    }
    /// Append one event; `fields` must be a JSON object.
    pub fn event(&mut self, kind: &str, fields: Json) {
        if !self.enabled {
            return;
        }
        let mut obj = Map::new();
        obj.insert("type".into(), json!(kind));
        if let Json::Object(m) = fields {
            for (k, v) in m {
                obj.insert(k, v);
            }
        }
        self.lines.push(Json::Object(obj).to_string());
    }
    /// The whole log as text, one JSON object per line.
    pub fn text(&self) -> String {
        let mut s = String::new();
        for l in &self.lines {
            s.push_str(l);
            s.push('\n');
        }
        s
    }
}
