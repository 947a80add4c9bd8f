//! Source files of one rulebook, addressed by [`FileId`].

use crate::ast::FileId;
use codespan_reporting::files::SimpleFiles;

/// The files of a compilation, in load order.
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    files: Vec<(String, String)>,
}

impl SourceMap {
    pub fn new() -> SourceMap {
        SourceMap::default()
    }
    pub fn add(&mut self, name: impl Into<String>, text: impl Into<String>) -> FileId {
        self.files.push((name.into(), text.into()));
        (self.files.len() - 1) as FileId
    }
    pub fn name(&self, id: FileId) -> &str {
        self.files.get(id as usize).map(|f| f.0.as_str()).unwrap_or("<unknown>")
    }
    pub fn text(&self, id: FileId) -> &str {
        self.files.get(id as usize).map(|f| f.1.as_str()).unwrap_or("")
    }
    pub fn len(&self) -> usize {
        self.files.len()
    }
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
    pub fn ids(&self) -> impl Iterator<Item = FileId> {
        0..self.files.len() as FileId
    }
    /// 1-based line and column of a byte offset.
    pub fn line_col(&self, id: FileId, offset: usize) -> (usize, usize) {
        let text = self.text(id);
        let offset = offset.min(text.len());
        let mut line = 1;
        let mut col = 1;
        for (i, ch) in text.char_indices() {
            if i >= offset {
                break;
            }
            if ch == '\n' {
                line += 1;
                col = 1;
            } else {
                col += 1;
            }
        }
        (line, col)
    }
    pub(crate) fn codespan_files(&self) -> SimpleFiles<&str, &str> {
        let mut files = SimpleFiles::new();
        for (n, t) in &self.files {
            files.add(n.as_str(), t.as_str());
        }
        files
    }
}
