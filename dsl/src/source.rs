//! Source files of one rulebook, addressed by [`FileId`].

use crate::ast::FileId;

/// One file: its name, its text and where each of its lines starts (computed once, so
/// that locating a diagnostic is a binary search, not a scan from the top of the file).
#[derive(Clone, Debug, Default)]
struct SourceFile {
    name: String,
    text: String,
    line_starts: Vec<usize>,
}

/// The files of a compilation, in load order.
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

impl SourceMap {
    pub fn new() -> SourceMap {
        SourceMap::default()
    }
    pub fn add(&mut self, name: impl Into<String>, text: impl Into<String>) -> FileId {
        let text = text.into();
        let line_starts = std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect();
        self.files.push(SourceFile { name: name.into(), text, line_starts });
        (self.files.len() - 1) as FileId
    }
    pub fn name(&self, id: FileId) -> &str {
        self.files.get(id as usize).map(|f| f.name.as_str()).unwrap_or("<unknown>")
    }
    pub fn text(&self, id: FileId) -> &str {
        self.files.get(id as usize).map(|f| f.text.as_str()).unwrap_or("")
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
    /// 0-based index of the line holding byte `offset` (the last line past the end).
    pub fn line_index(&self, id: FileId, offset: usize) -> usize {
        match self.files.get(id as usize) {
            Some(f) => f.line_starts.partition_point(|&s| s <= offset).saturating_sub(1),
            None => 0,
        }
    }
    /// Byte range of 0-based line `line` (without its line break), clamped to the file.
    pub fn line_range(&self, id: FileId, line: usize) -> std::ops::Range<usize> {
        let Some(f) = self.files.get(id as usize) else {
            return 0..0;
        };
        let len = f.text.len();
        let start = f.line_starts.get(line).copied().unwrap_or(len).min(len);
        let end = f.line_starts.get(line + 1).map(|&e| e - 1).unwrap_or(len).clamp(start, len);
        start..end
    }
    /// 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, id: FileId, offset: usize) -> (usize, usize) {
        let text = self.text(id);
        let offset = offset.min(text.len());
        let line = self.line_index(id, offset);
        let start = self.line_range(id, line).start.min(offset);
        let col = text[start..].char_indices().take_while(|&(i, _)| start + i < offset).count();
        (line + 1, col + 1)
    }
}
