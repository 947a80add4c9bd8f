//! Runtime errors: a code, a message, the paragraph, and the source location.

use std::fmt;

/// An error raised while playing: a faulty rulebook (type confusion that the
/// verifier could not see, step budget exhausted, a roll off a table) or bad input.
///
/// One pointer to its [`ErrorInfo`] (read through it: `e.code`, `e.para`): every
/// instruction and built-in returns a `Result` that may hold one, and a 104-byte error
/// inline made all of those results large and returned through memory.
#[derive(Clone, PartialEq, Eq)]
pub struct RuntimeError(Box<ErrorInfo>);

/// What a [`RuntimeError`] says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ErrorInfo {
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
        RuntimeError(Box::new(ErrorInfo {
            code,
            message: message.into(),
            para: String::new(),
            span: None,
            function: String::new(),
        }))
    }
}

impl std::ops::Deref for RuntimeError {
    type Target = ErrorInfo;
    fn deref(&self) -> &ErrorInfo {
        &self.0
    }
}

impl std::ops::DerefMut for RuntimeError {
    fn deref_mut(&mut self) -> &mut ErrorInfo {
        &mut self.0
    }
}

/// As the struct it was before it was boxed (logs and tests print it so).
impl fmt::Debug for RuntimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let e = &*self.0;
        f.debug_struct("RuntimeError")
            .field("code", &e.code)
            .field("message", &e.message)
            .field("para", &e.para)
            .field("span", &e.span)
            .field("function", &e.function)
            .finish()
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
