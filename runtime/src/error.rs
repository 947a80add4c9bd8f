//! Runtime errors: a code, a message, the paragraph, and the source location.

use std::fmt;

/// An error raised while playing: a faulty rulebook (type confusion that the
/// verifier could not see, step budget exhausted, a roll off a table) or bad input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuntimeError {
    /// Stable code, `R0xxx` (docs/errors.md).
    pub code: &'static str,
    pub message: String,
    /// Paragraph of the instruction that failed.
    pub para: String,
    /// `(file, start, end)` of the instruction's source, if known.
    pub span: Option<(u32, u32, u32)>,
    /// Function the error arose in.
    pub function: String,
}

impl RuntimeError {
    #[cold]
    pub fn new(code: &'static str, message: impl Into<String>) -> RuntimeError {
        RuntimeError {
            code,
            message: message.into(),
            para: String::new(),
            span: None,
            function: String::new(),
        }
    }
}

impl fmt::Display for RuntimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "error[{}]: {}", self.code, self.message)?;
        if !self.para.is_empty() {
            write!(f, " (§{})", self.para)?;
        }
        if !self.function.is_empty() {
            write!(f, " in {}", self.function)?;
        }
        Ok(())
    }
}

impl std::error::Error for RuntimeError {}

/// How a game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameResult {
    /// Winning side's name; `None` for a draw.
    pub winner: Option<String>,
    /// When several sides share the victory (`win team(s)`), each of them; then
    /// `winner` joins their names with `+`. Empty for one winner or a draw.
    pub winners: Vec<String>,
    /// The team whose sides are exactly the winners, if any.
    pub team: Option<String>,
    pub reason: String,
    pub para: String,
    pub turn: i64,
}
