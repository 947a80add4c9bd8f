//! kriegsspiel-lsp: the language server behind `kriegsspiel lsp` (see docs/editors.md).
//!
//! A rulebook is a directory of `.ks` files compiled as one unit: the server compiles
//! the directory of each open file with the open buffers' unsaved text laid over the
//! files on disk, and publishes the compiler's own diagnostics (code, span, paragraphs).
//! It answers hover, go to definition, find references, completion and document
//! symbols from the same analysis.
//!
//! Built on `lsp-server` (synchronous: a channel of messages, no async runtime; the
//! server rust-analyzer uses) and `lsp-types`; the stdio framing is ours
//! (`transport`), so that a malformed message is answered with an error instead of
//! ending the server.

mod analysis;
mod lex;
mod pos;
mod server;
mod texts;
mod transport;

/// Serve the protocol on standard input and output. Returns the process exit code:
/// 0 after `shutdown` then `exit`, 1 otherwise (as the protocol asks).
pub fn run_stdio() -> u8 {
    let (conn, io) = transport::stdio();
    let end = server::run(&conn);
    drop(conn);
    io.finish();
    match end {
        server::End::Clean => 0,
        server::End::Abrupt => 1,
    }
}
