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
    /// Layers (name, title, optional), the base first; empty without layers or options.
    pub layers: Vec<(String, String, bool)>,
    /// Every `replaces`, `amends` and `waives`, with both sides' paragraphs.
    pub supersessions: Vec<crate::layers::Supersession>,
    /// Paragraphs superseded by a layer always in play: (paragraph, by paragraph).
    pub superseded: Vec<(String, String)>,
    /// Books the text cites without containing them (`external KRO "title";`): (name, title).
    pub external_books: Vec<(String, String)>,
    /// External references, not verifiable: (anchor such as `KRO 5.225`, the paragraph
    /// of the declaration or statement citing it), sorted, each pair once.
    pub external: Vec<(String, String)>,
    /// Where each contents entry is written, in the order of `contents`.
    #[serde(skip)]
    pub contents_spans: Vec<kriegsspiel_dsl::ast::Span>,
    /// Faults of the rules text: the rulebook's `finding` declarations, then those the
    /// compiler found itself (an example that holds under one reading of a ruling only).
    pub findings: Vec<FindingOut>,
    /// Every anchor (as written, `8.2.D`) and where it is written, over every
    /// configuration compiled: `check --text` asks the text whether a lettered item
    /// exists; `report` shows what encodes each paragraph.
    #[serde(skip)]
    pub anchors: Vec<(String, kriegsspiel_dsl::ast::Span)>,
    /// Warnings the rulebook allows (`allow W0008 "reason";`), each with how many
    /// `check` left out.
    pub allowed: Vec<Allowed>,
    /// Coverage per part of a text in several parts (`Standard[12.]`, `Exclusive[12.]`:
    /// the name before `[`), in the order the parts first appear in the contents; empty
    /// for a text in one part.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<PartCounts>,
}

/// One part's paragraphs by status (`Report::parts`).
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq)]
pub struct PartCounts {
    pub part: String,
    pub paragraphs: usize,
    pub encoded: usize,
    pub waived: usize,
    pub superseded: usize,
    pub missing: usize,
}

/// One `allow` of the header: the code, the rulebook's reason, and how many warnings of
/// that code were left out.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Allowed {
    pub code: String,
    pub reason: String,
    pub count: usize,
}

/// The kinds a `finding` may have (docs/language.md 6.19b).
pub const FINDING_KINDS: &[&str] = &[
    "contradiction",
    "example_disagrees",
    "missing_data",
    "ambiguity",
    "wrong_reference",
    "typo",
    "unreachable",
];

/// A fault of the rules text, declared or found by the compiler.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct FindingOut {
    pub kind: String,
    pub description: String,
    /// The paragraphs involved, as written after `§`.
    pub paragraphs: Vec<String>,
    /// The ruling that resolves it, if any.
    pub ruling: Option<String>,
    /// `declared` (a `finding` of the rulebook) or `compiler` (W0005, W0008).
    pub source: String,
}

#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub enum ContentStatus {
    Encoded,
    Waived(String),
    /// Superseded by a higher layer: the paragraph that supersedes it.
    Superseded(String),
    Missing,
}

impl Report {
    /// Fill `parts` from the contents' statuses; a text in one part leaves it empty.
    pub fn count_parts(&mut self) {
        let mut parts: Vec<PartCounts> = Vec::new();
        for (number, _, status) in &self.contents {
            // The name before `[` (`Standard[12.]`); numbers without one have no part.
            let name = crate::contents::part_of(number);
            if name.is_empty() || name == number {
                continue;
            }
            let i = match parts.iter().position(|p| p.part == name) {
                Some(i) => i,
                None => {
                    parts.push(PartCounts { part: name.to_string(), ..PartCounts::default() });
                    parts.len() - 1
                }
            };
            let p = &mut parts[i];
            p.paragraphs += 1;
            match status {
                ContentStatus::Encoded => p.encoded += 1,
                ContentStatus::Waived(_) => p.waived += 1,
                ContentStatus::Superseded(_) => p.superseded += 1,
                ContentStatus::Missing => p.missing += 1,
            }
        }
        self.parts = if parts.len() > 1 { parts } else { Vec::new() };
    }

    pub fn render(&self) -> String {
        let pct =
            |n: usize| if self.paragraphs == 0 { 0.0 } else { 100.0 * n as f64 / self.paragraphs as f64 };
        let mut s = String::new();
        s.push_str(&format!("{}\n", self.title));
        s.push_str(&format!(
            "  paragraphs: {} in contents — {} encoded ({:.1}%), {} waived ({:.1}%), {}{} missing ({:.1}%)\n",
            self.paragraphs,
            self.encoded.len(),
            pct(self.encoded.len()),
            self.waived.len(),
            pct(self.waived.len()),
            if self.superseded.is_empty() {
                String::new()
            } else {
                format!("{} superseded ({:.1}%), ", self.superseded.len(), pct(self.superseded.len()))
            },
            self.missing.len(),
            pct(self.missing.len())
        ));
        for p in &self.parts {
            s.push_str(&format!(
                "    {}: {} — {} encoded, {} waived, {} superseded, {} missing\n",
                p.part, p.paragraphs, p.encoded, p.waived, p.superseded, p.missing
            ));
        }
        if self.layers.iter().skip(1).any(|l| !l.2)
            || (!self.supersessions.is_empty() && !self.layers.is_empty())
        {
            let names: Vec<String> = self
                .layers
                .iter()
                .map(|(n, _, opt)| if *opt { format!("{n} (optional)") } else { n.clone() })
                .collect();
            s.push_str(&format!("  layers: {}\n", names.join(", ")));
        }
        if !self.supersessions.is_empty() {
            s.push_str(&format!("  supersessions: {}\n", self.supersessions.len()));
            for x in &self.supersessions {
                let paras = |v: &[String]| v.iter().map(|p| format!("§{p}")).collect::<Vec<_>>().join(" ");
                s.push_str(&format!(
                    "    {} {} {} ({}) [layer {}]\n",
                    paras(&x.by),
                    x.how,
                    x.what,
                    paras(&x.of),
                    x.layer
                ));
            }
        }
        if !self.external_books.is_empty() {
            let cited: std::collections::BTreeSet<&str> =
                self.external.iter().map(|(a, _)| a.as_str()).collect();
            s.push_str(&format!(
                "  external references: {} paragraph(s) of {} book(s) without text, cited {} time(s); listed, not verified\n",
                cited.len(),
                self.external_books.len(),
                self.external.len()
            ));
            for (name, title) in &self.external_books {
                let mine: Vec<String> = self
                    .external
                    .iter()
                    .filter(|(a, _)| crate::contents::external_parts(a).is_some_and(|(b, _)| b == name))
                    .map(|(a, by)| format!("§{a} (by §{by})"))
                    .collect();
                s.push_str(&format!("    {name} \"{title}\": {}\n", mine.len()));
                for m in mine {
                    s.push_str(&format!("      {m}\n"));
                }
            }
        }
        s.push_str(&format!("  supplied items: {}\n", self.supplied.len()));
        for (what, reason, para) in &self.supplied {
            s.push_str(&format!("    §{para} {what}: {reason}\n"));
        }
        s.push_str(&format!("  rulings: {}\n", self.rulings.len()));
        if !self.allowed.is_empty() {
            s.push_str(&format!(
                "  allowed warnings: {}\n",
                self.allowed.iter().map(|a| a.count).sum::<usize>()
            ));
            for a in &self.allowed {
                s.push_str(&format!("    {} ×{}: {}\n", a.code, a.count, a.reason));
            }
        }
        if !self.findings.is_empty() {
            let mut kinds: Vec<String> = Vec::new();
            for k in FINDING_KINDS {
                let n = self.findings.iter().filter(|f| f.kind == *k).count();
                if n > 0 {
                    kinds.push(format!("{k} ×{n}"));
                }
            }
            s.push_str(&format!("  findings in the text: {} ({})\n", self.findings.len(), kinds.join(", ")));
            for f in &self.findings {
                let paras = f.paragraphs.iter().map(|p| format!("§{p}")).collect::<Vec<_>>().join(" ");
                let ruling = f.ruling.as_ref().map(|r| format!(" [ruling {r}]")).unwrap_or_default();
                let by = if f.source == "compiler" { " (found by the compiler)" } else { "" };
                s.push_str(&format!("    {paras} {}: {}{ruling}{by}\n", f.kind, f.description));
            }
        }
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
