//! The summary `check` prints: coverage, provenance, rulings, examples.

use serde::Serialize;

/// Counts and lists for `kriegsspiel check`.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Report {
    pub title: String,
    pub paragraphs: usize,
    pub encoded: Vec<String>,
    pub waived: Vec<(String, String)>,
    pub missing: Vec<String>,
    pub supplied: Vec<(String, String, String)>,
    pub rulings: Vec<String>,
    pub examples_run: usize,
    pub examples_passed: usize,
    pub tables: usize,
    pub functions: usize,
    /// Invariants (the rules' "musts" the VM checks): (name, paragraphs).
    pub invariants: Vec<(String, Vec<String>)>,
    /// Contents entries (number, title, status) for `--text` coverage.
    pub contents: Vec<(String, String, ContentStatus)>,
}

#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub enum ContentStatus {
    Encoded,
    Waived(String),
    Missing,
}

impl Report {
    pub fn render(&self) -> String {
        let pct =
            |n: usize| if self.paragraphs == 0 { 0.0 } else { 100.0 * n as f64 / self.paragraphs as f64 };
        let mut s = String::new();
        s.push_str(&format!("{}\n", self.title));
        s.push_str(&format!(
            "  paragraphs: {} in contents — {} encoded ({:.1}%), {} waived ({:.1}%), {} missing ({:.1}%)\n",
            self.paragraphs,
            self.encoded.len(),
            pct(self.encoded.len()),
            self.waived.len(),
            pct(self.waived.len()),
            self.missing.len(),
            pct(self.missing.len())
        ));
        s.push_str(&format!("  supplied items: {}\n", self.supplied.len()));
        for (what, reason, para) in &self.supplied {
            s.push_str(&format!("    §{para} {what}: {reason}\n"));
        }
        s.push_str(&format!("  rulings: {}\n", self.rulings.len()));
        s.push_str(&format!("  invariants: {}\n", self.invariants.len()));
        s.push_str(&format!("  examples: {} run, {} passed\n", self.examples_run, self.examples_passed));
        s.push_str(&format!("  tables: {}, compiled functions: {}\n", self.tables, self.functions));
        if !self.missing.is_empty() {
            s.push_str(&format!(
                "  missing: {}\n",
                self.missing.iter().map(|m| format!("§{m}")).collect::<Vec<_>>().join(" ")
            ));
        }
        s
    }
}
