//! The rulebook's own text, when the user has it: found by title in a texts directory
//! (the `textsDir` setting, else `KRIEGSSPIEL_TEXTS`, else a `shared/rulebook-texts`
//! directory beside one of the rulebook's ancestors) and indexed by `kriegsspiel_text`.
//! No rulebook text is shipped with the editor support: hover shows what the user has.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// An indexed rules text.
pub struct RulesText {
    pub path: PathBuf,
    src: String,
    /// Number as cited (`7.1.2`, `7.1.2.A`) → (title, start, end) in `src`.
    paras: BTreeMap<String, (String, usize, usize)>,
}

impl RulesText {
    pub fn load(path: &Path) -> Option<RulesText> {
        let src = std::fs::read_to_string(path).ok()?;
        let idx = std::panic::catch_unwind(|| {
            let style = kriegsspiel_text::detect(&src);
            kriegsspiel_text::index(&src, &style)
        })
        .ok()?;
        let mut paras = BTreeMap::new();
        for p in &idx.paragraphs {
            paras.entry(idx.anchor(p)).or_insert((p.title.clone(), p.start, p.end));
        }
        Some(RulesText { path: path.to_path_buf(), src, paras })
    }

    /// The paragraph's title and text (the anchor's lettered item first, then its paragraph).
    pub fn paragraph(&self, anchor: &str) -> Option<(String, &str)> {
        let (base, _) = crate::analysis::split_item(anchor);
        let (title, s, e) = self.paras.get(anchor).or_else(|| self.paras.get(&base))?;
        let text = self.src.get(*s..(*e).min(self.src.len()))?;
        Some((title.clone(), text.trim()))
    }
}

fn slug(s: &str) -> String {
    let mut out = String::new();
    for w in s.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()) {
        if !out.is_empty() {
            out.push('-');
        }
        out.push_str(&w.to_lowercase());
    }
    out
}

/// Directories to look in for a rulebook at `root`.
pub fn candidate_dirs(setting: Option<&Path>, root: &Path) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if let Some(s) = setting {
        dirs.push(s.to_path_buf());
    }
    if let Some(env) = std::env::var_os("KRIEGSSPIEL_TEXTS") {
        if !env.is_empty() {
            dirs.push(PathBuf::from(env));
        }
    }
    for anc in root.ancestors() {
        let d = anc.join("shared").join("rulebook-texts");
        if d.is_dir() {
            dirs.push(d);
            break;
        }
    }
    dirs
}

/// The text file of the rulebook titled `title`: a `.txt` whose first non-empty line is
/// the title (ignoring case) or whose name is the title's slug.
pub fn find(dirs: &[PathBuf], title: &str) -> Option<PathBuf> {
    let want = slug(title);
    if want.is_empty() {
        return None;
    }
    for d in dirs {
        let Ok(rd) = std::fs::read_dir(d) else { continue };
        let mut files: Vec<PathBuf> = rd
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().map(|x| x == "txt").unwrap_or(false))
            .collect();
        files.sort();
        for f in &files {
            if f.file_stem().map(|s| slug(&s.to_string_lossy()) == want).unwrap_or(false) {
                return Some(f.clone());
            }
        }
        for f in &files {
            let Ok(text) = std::fs::read_to_string(f) else { continue };
            if text.lines().map(str::trim).find(|l| !l.is_empty()).map(|l| slug(l) == want).unwrap_or(false) {
                return Some(f.clone());
            }
        }
    }
    None
}
