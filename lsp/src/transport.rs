//! JSON-RPC over standard input and output with `Content-Length` framing.
//!
//! lsp-server's own stdio transport ends its reader thread on the first malformed
//! payload; ours answers it with a JSON-RPC error (`-32700` parse error, `-32600`
//! invalid request) and reads on, so that no input stops the server.

use lsp_server::{Connection, Message};
use std::io::{BufRead, Write};
use std::thread::JoinHandle;

/// The reader and writer threads; the server end of the channels is returned with them.
pub struct Io {
    writer: JoinHandle<()>,
}

impl Io {
    /// Wait until every message the server sent is written (call after dropping the
    /// server's connection).
    pub fn finish(self) {
        let _ = self.writer.join();
    }
}

/// One framed payload, or why there is none.
enum Frame {
    Body(Vec<u8>),
    /// A header block without a usable `Content-Length`.
    BadHeader(String),
    Eof,
}

fn read_frame(inp: &mut impl BufRead) -> Frame {
    let mut length: Option<usize> = None;
    let mut bad: Option<String> = None;
    let mut saw_header = false;
    loop {
        let mut line = Vec::new();
        match inp.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => return Frame::Eof,
            Ok(_) => {}
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\r', '\n']);
        if text.is_empty() {
            if !saw_header {
                // Stray blank line between messages.
                continue;
            }
            break;
        }
        saw_header = true;
        match text.split_once(':') {
            Some((name, value)) if name.trim().eq_ignore_ascii_case("content-length") => {
                match value.trim().parse::<usize>() {
                    Ok(n) if n <= 256 << 20 => length = Some(n),
                    _ => bad = Some(format!("bad Content-Length {:?}", value.trim())),
                }
            }
            Some(_) => {}
            None => bad = Some(format!("malformed header line {text:?}")),
        }
    }
    let Some(n) = length else {
        return Frame::BadHeader(bad.unwrap_or_else(|| "no Content-Length header".to_string()));
    };
    let mut body = vec![0; n];
    if inp.read_exact(&mut body).is_err() {
        return Frame::Eof;
    }
    Frame::Body(body)
}

fn write_raw(text: &str) {
    let out = std::io::stdout();
    let mut out = out.lock();
    let _ = write!(out, "Content-Length: {}\r\n\r\n", text.len());
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

fn error_response(id: serde_json::Value, code: i32, message: String) -> String {
    serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": { "code": code, "message": message },
    })
    .to_string()
}

/// Start the transport on stdin/stdout: returns the server's end of the connection.
pub fn stdio() -> (Connection, Io) {
    let (server, client) = Connection::memory();
    let Connection { sender: to_server, receiver: from_server } = client;
    // Reader: detached (it may block on stdin after `exit`; the process ends anyway).
    let _ = std::thread::Builder::new().name("ks-lsp-reader".into()).spawn(move || {
        let stdin = std::io::stdin();
        let mut inp = stdin.lock();
        loop {
            let body = match read_frame(&mut inp) {
                Frame::Eof => break,
                Frame::BadHeader(why) => {
                    write_raw(&error_response(serde_json::Value::Null, -32700, why));
                    continue;
                }
                Frame::Body(b) => b,
            };
            let value: serde_json::Value = match serde_json::from_slice(&body) {
                Ok(v) => v,
                Err(e) => {
                    write_raw(&error_response(serde_json::Value::Null, -32700, format!("parse error: {e}")));
                    continue;
                }
            };
            let id = value.get("id").cloned().unwrap_or(serde_json::Value::Null);
            let shaped = value.get("method").is_some()
                || value.get("result").is_some()
                || value.get("error").is_some();
            if !shaped {
                write_raw(&error_response(id, -32600, "invalid request: no method, result or error".into()));
                continue;
            }
            let msg: Message = match serde_json::from_value(value) {
                Ok(m) => m,
                Err(e) => {
                    write_raw(&error_response(id, -32600, format!("invalid request: {e}")));
                    continue;
                }
            };
            let exit = matches!(&msg, Message::Notification(n) if n.method == "exit");
            if to_server.send(msg).is_err() || exit {
                break;
            }
        }
    });
    let writer = std::thread::Builder::new().name("ks-lsp-writer".into()).spawn(move || {
        for msg in from_server {
            let out = std::io::stdout();
            let mut out = out.lock();
            if msg.write(&mut out).is_err() {
                break;
            }
        }
    });
    let writer = match writer {
        Ok(w) => w,
        // No thread: nothing can be written; the server still runs to its end.
        Err(_) => std::thread::spawn(|| {}),
    };
    (server, Io { writer })
}
