//! Byte offsets to LSP positions (lines and UTF-16 code units) and back.

use lsp_types::{Position, Range};

/// Line starts of one text.
#[derive(Clone, Debug, Default)]
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(text.bytes().enumerate().filter(|(_, b)| *b == b'\n').map(|(i, _)| i + 1));
        LineIndex { starts }
    }

    /// The position of a byte offset (clamped to the text, and back to a char boundary).
    pub fn position(&self, text: &str, offset: usize) -> Position {
        let mut offset = offset.min(text.len());
        while offset > 0 && !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = match self.starts.binary_search(&offset) {
            Ok(l) => l,
            Err(l) => l.saturating_sub(1),
        };
        let start = self.starts.get(line).copied().unwrap_or(0).min(offset);
        let col: usize = text[start..offset].chars().map(char::len_utf16).sum();
        Position { line: line as u32, character: col as u32 }
    }

    pub fn range(&self, text: &str, start: usize, end: usize) -> Range {
        Range { start: self.position(text, start), end: self.position(text, end.max(start)) }
    }

    /// The byte offset of a position; past the end of a line is its end, past the last
    /// line the end of the text.
    pub fn offset(&self, text: &str, pos: Position) -> usize {
        let Some(&start) = self.starts.get(pos.line as usize) else {
            return text.len();
        };
        let start = start.min(text.len());
        let end = self.starts.get(pos.line as usize + 1).map(|e| e - 1).unwrap_or(text.len()).min(text.len());
        let mut units = 0usize;
        for (i, ch) in text[start..end.max(start)].char_indices() {
            if units >= pos.character as usize {
                return start + i;
            }
            units += ch.len_utf16();
        }
        end.max(start)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_columns_round_trip() {
        let text = "ab\n§7.1 x\n\nlast";
        let li = LineIndex::new(text);
        let x = text.find('x').unwrap_or(0);
        let p = li.position(text, x);
        assert_eq!((p.line, p.character), (1, 5));
        assert_eq!(li.offset(text, p), x);
        assert_eq!(li.offset(text, Position { line: 9, character: 0 }), text.len());
        assert_eq!(li.offset(text, Position { line: 0, character: 99 }), 2);
        let end = li.position(text, text.len());
        assert_eq!((end.line, end.character), (3, 4));
    }
}
