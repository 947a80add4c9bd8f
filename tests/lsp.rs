//! The language server, driven as an editor drives it: the built binary runs
//! `kriegsspiel lsp`, and these tests speak JSON-RPC to it over stdio with
//! `Content-Length` framing (initialize, didOpen/didChange, publishDiagnostics, hover,
//! definition, references, completion, documentSymbol, shutdown/exit), on a small
//! inline rulebook written to a temporary directory and on rulebooks/peter-the-great.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

// ------------------------------------------------------------------ harness

struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    rx: Receiver<Value>,
    next_id: i64,
    /// Notifications received while waiting for a response.
    notes: Vec<Value>,
}

/// Read one framed message; None at the end of the stream.
fn read_msg(r: &mut impl BufRead) -> Option<Value> {
    let mut len = None;
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(v) = line.strip_prefix("Content-Length: ") {
            len = v.parse::<usize>().ok();
        }
    }
    let mut body = vec![0; len?];
    r.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

impl Client {
    /// Start the server with these environment variables (KRIEGSSPIEL_TEXTS is always
    /// set, so that no text outside the test is found by accident) and initialize it.
    fn start(texts: &Path, init_options: Value) -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_kriegsspiel"))
            .arg("lsp")
            .env("KRIEGSSPIEL_TEXTS", texts)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn kriegsspiel lsp");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            while let Some(m) = read_msg(&mut r) {
                if tx.send(m).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        let mut c = Client { child, stdin, rx, next_id: 0, notes: Vec::new() };
        let r = c.request("initialize", json!({ "capabilities": {}, "initializationOptions": init_options }));
        let caps = &r["result"]["capabilities"];
        for cap in ["hoverProvider", "definitionProvider", "referencesProvider", "documentSymbolProvider"] {
            assert_eq!(caps[cap], json!(true), "{cap} in {r}");
        }
        assert!(caps["completionProvider"].is_object(), "{r}");
        c.notify("initialized", json!({}));
        c
    }

    fn raw(&mut self, bytes: &[u8]) {
        let w = self.stdin.as_mut().expect("stdin open");
        w.write_all(bytes).expect("write");
        w.flush().expect("flush");
    }

    fn send(&mut self, v: &Value) {
        let body = v.to_string();
        self.raw(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes());
    }

    fn recv(&mut self) -> Value {
        self.rx.recv_timeout(Duration::from_secs(120)).expect("the server answers within 2 minutes")
    }

    /// Wait for the response with this id (null for a parse error's answer).
    fn response(&mut self, id: &Value) -> Value {
        loop {
            let m = self.recv();
            if m.get("method").is_some() {
                self.notes.push(m);
            } else if &m["id"] == id {
                return m;
            }
        }
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = json!(self.next_id);
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        self.response(&id)
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({ "jsonrpc": "2.0", "method": method, "params": params }));
    }

    /// The next diagnostics published for `uri`.
    fn diagnostics(&mut self, uri: &str) -> Vec<Value> {
        loop {
            let pos = self
                .notes
                .iter()
                .position(|n| n["method"] == "textDocument/publishDiagnostics" && n["params"]["uri"] == uri);
            if let Some(i) = pos {
                let n = self.notes.remove(i);
                return n["params"]["diagnostics"].as_array().cloned().unwrap_or_default();
            }
            let m = self.recv();
            self.notes.push(m);
        }
    }

    fn open(&mut self, path: &Path) -> String {
        let uri = uri(path);
        let text = std::fs::read_to_string(path).expect("read");
        self.notify(
            "textDocument/didOpen",
            json!({ "textDocument": { "uri": uri, "languageId": "kriegsspiel", "version": 1, "text": text } }),
        );
        uri
    }

    fn change(&mut self, uri: &str, version: i64, text: &str) {
        self.notify(
            "textDocument/didChange",
            json!({ "textDocument": { "uri": uri, "version": version }, "contentChanges": [{ "text": text }] }),
        );
    }

    fn at(&mut self, method: &str, uri: &str, (line, character): (u32, u32)) -> Value {
        let mut params =
            json!({ "textDocument": { "uri": uri }, "position": { "line": line, "character": character } });
        if method == "textDocument/references" {
            params["context"] = json!({ "includeDeclaration": true });
        }
        self.request(method, params)
    }

    /// shutdown, exit; the server's exit code.
    fn shutdown(mut self) -> i32 {
        let r = self.request("shutdown", Value::Null);
        assert_eq!(r["result"], Value::Null, "{r}");
        assert!(r.get("error").is_none(), "{r}");
        self.notify("exit", Value::Null);
        drop(self.stdin.take());
        wait(&mut self.child)
    }
}

fn wait(child: &mut Child) -> i32 {
    for _ in 0..600 {
        if let Ok(Some(s)) = child.try_wait() {
            return s.code().unwrap_or(-1);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    panic!("the server did not exit within 30 s");
}

fn uri(path: &Path) -> String {
    let mut s = String::from("file://");
    for b in path.to_string_lossy().bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            s.push(b as char);
        } else {
            s.push_str(&format!("%{b:02X}"));
        }
    }
    s
}

/// (line, UTF-16 column) of the `nth` occurrence of `needle` in `text`, plus `shift` bytes.
fn pos(text: &str, needle: &str, nth: usize, shift: usize) -> (u32, u32) {
    let off = text.match_indices(needle).nth(nth).map(|(i, _)| i + shift).expect("needle in text");
    let line = text[..off].matches('\n').count() as u32;
    let start = text[..off].rfind('\n').map(|i| i + 1).unwrap_or(0);
    (line, text[start..off].encode_utf16().count() as u32)
}

fn fresh_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("kriegsspiel-lsp-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

fn hover_text(r: &Value) -> String {
    r["result"]["contents"]["value"].as_str().unwrap_or("").to_string()
}

/// The text a location points at.
fn located(loc: &Value) -> (String, String) {
    let path = loc["uri"].as_str().and_then(|u| u.strip_prefix("file://")).unwrap_or("");
    let text = std::fs::read_to_string(path.replace("%20", " ")).unwrap_or_default();
    let line = loc["range"]["start"]["line"].as_u64().unwrap_or(0) as usize;
    let (c0, c1) = (
        loc["range"]["start"]["character"].as_u64().unwrap_or(0),
        loc["range"]["end"]["character"].as_u64().unwrap_or(0),
    );
    let l: Vec<u16> = text.lines().nth(line).unwrap_or("").encode_utf16().collect();
    let s = String::from_utf16_lossy(l.get(c0 as usize..c1 as usize).unwrap_or(&[]));
    let file = Path::new(path).file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
    (file, s)
}

// ------------------------------------------------------------------ the inline rulebook

const PRELUDE: &str = r#"rulebook "Lsp Test Game" {
  numbering dotted lettered;
  dice d6;
}

contents {
  §1.0 "Sides"
  §2.0 "Units"
  §4.0 "Sequence"
  §4.1 "Costs"
}

§1.0 sides { Blue, Red }
§2.0 rating ma: 0..9 "movement allowance"
"#;

const RULES: &str = r#"// Costs of movement.
§4.1 fn cost(u: Unit) -> Int = u.ma + 1;

§4.0 procedure turn_of(s: Side) {
  for u in units(s) {
    log "cost {}", cost(u);
  }
}

§4.0 sequence { turns 3 { call turn_of(Blue); } }
"#;

/// A stand-in for a rules text, in our own words (the repository ships no rulebook text).
const TEXT: &str = "Lsp Test Game\n\n4.0 Sequence\nInvented for the test: the sides take turns.\n\n4.1 Costs\nInvented for the test: entering a hex costs the allowance plus one.\n";

fn inline_rulebook(tag: &str) -> (PathBuf, PathBuf) {
    let dir = fresh_dir(tag);
    let book = dir.join("book");
    std::fs::create_dir_all(&book).expect("book dir");
    std::fs::write(book.join("prelude.ks"), PRELUDE).expect("write");
    std::fs::write(book.join("rules.ks"), RULES).expect("write");
    let texts = dir.join("texts");
    std::fs::create_dir_all(&texts).expect("texts dir");
    (book, texts)
}

#[test]
fn inline_rulebook_diagnostics_follow_unsaved_edits() {
    let (book, texts) = inline_rulebook("diags");
    let mut c = Client::start(&texts, json!({}));
    let rules = c.open(&book.join("rules.ks"));
    assert_eq!(c.diagnostics(&rules), Vec::<Value>::new(), "a clean rulebook has no diagnostics");

    // An unsaved edit: the misspelt call is an error of the directory's compilation.
    let broken = RULES.replace("cost(u);", "cosst(u);");
    c.change(&rules, 2, &broken);
    let d = c.diagnostics(&rules);
    let codes: Vec<&str> = d.iter().map(|x| x["code"].as_str().unwrap_or("")).collect();
    assert_eq!(codes, ["E0109", "W0001"], "the error, and `cost` now unused: {d:?}");
    assert_eq!(d[0]["severity"], 1);
    assert_eq!(d[0]["source"], "kriegsspiel");
    let (line, col) = pos(&broken, "cosst", 0, 0);
    assert_eq!(d[0]["range"]["start"], json!({ "line": line, "character": col }), "{d:?}");
    assert_eq!(d[0]["range"]["end"], json!({ "line": line, "character": col + 5 }), "{d:?}");
    let msg = d[0]["message"].as_str().unwrap_or("");
    assert!(msg.contains("unknown function `cosst`") && msg.contains("[§4.0]"), "{msg}");
    assert!(msg.contains("did you mean `cost`"), "notes are part of the message: {msg}");
    assert_eq!(
        std::fs::read_to_string(book.join("rules.ks")).unwrap_or_default(),
        RULES,
        "the file is untouched"
    );

    // A declaration clashing with one in another file of the rulebook (not open): the
    // diagnostic's secondary label points into that file.
    c.change(&rules, 3, &format!("{RULES}\n§2.0 rating ma: 0..5 \"again\"\n"));
    let d = c.diagnostics(&rules);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0]["code"], "E0101", "{d:?}");
    let rel = &d[0]["relatedInformation"][0];
    assert_eq!(rel["location"]["uri"], json!(uri(&book.join("prelude.ks"))), "{d:?}");
    assert_eq!(rel["location"]["range"]["start"], json!({ "line": 13, "character": 12 }), "{d:?}");
    assert_eq!(rel["message"], "first declared here");

    // A buffer that does not parse: a syntax error, and the server goes on.
    c.change(&rules, 4, "§4.1 fn cost(u: Unit -> = ;;;\n\u{0}§§§ \"unterminated");
    let d = c.diagnostics(&rules);
    assert!(!d.is_empty() && d.iter().all(|x| x["code"].as_str().unwrap_or("").starts_with('E')), "{d:?}");
    let r = c.at("textDocument/hover", &rules, (0, 8));
    assert!(r.get("error").is_none(), "{r}");
    let r = c.request("textDocument/documentSymbol", json!({ "textDocument": { "uri": rules } }));
    assert_eq!(r["result"], json!([]), "a file that does not parse has no symbols: {r}");

    // Fixed again: the diagnostics are cleared.
    c.change(&rules, 5, RULES);
    assert_eq!(c.diagnostics(&rules), Vec::<Value>::new());
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn inline_rulebook_navigation() {
    let (book, texts) = inline_rulebook("nav");
    std::fs::write(texts.join("some-other-game.txt"), "Another Game\n\n4.1 Costs\nNot this one.\n")
        .expect("write");
    std::fs::write(texts.join("lsp-test-game.txt"), TEXT).expect("write");
    let mut c = Client::start(&texts, json!({}));
    let rules = c.open(&book.join("rules.ks"));
    let prelude = uri(&book.join("prelude.ks"));
    assert_eq!(c.diagnostics(&rules), Vec::<Value>::new());

    // Hover on a use of a declared name: first line, kind and type, anchors with titles.
    let h = hover_text(&c.at("textDocument/hover", &rules, pos(RULES, "cost(u);", 0, 1)));
    assert!(h.contains("fn cost(u: Unit) -> Int = u.ma + 1;"), "{h}");
    assert!(h.contains("*fn* `fn(u: Unit) -> Int`"), "{h}");
    assert!(h.contains("§4.1 Costs"), "{h}");
    // A name declared in the other file.
    let h = hover_text(&c.at("textDocument/hover", &rules, pos(RULES, "u.ma", 0, 3)));
    assert!(h.contains("rating ma: 0..9") && h.contains("*rating* `0..9 (movement allowance)`"), "{h}");
    assert!(h.contains("§2.0 Units"), "{h}");
    // A built-in.
    let h = hover_text(&c.at("textDocument/hover", &rules, pos(RULES, "units(s)", 0, 2)));
    assert!(h.starts_with("*built-in* `units`"), "{h}");
    // An anchor: the contents title, and the paragraph of the rules text found by title.
    let h = hover_text(&c.at("textDocument/hover", &rules, pos(RULES, "§4.1", 0, 3)));
    assert!(h.contains("**§4.1** Costs"), "{h}");
    assert!(
        h.contains("entering a hex costs the allowance plus one") && h.contains("(lsp-test-game.txt)"),
        "{h}"
    );
    assert!(!h.contains("Not this one"), "{h}");
    // Nothing to say inside a comment.
    let r = c.at("textDocument/hover", &rules, pos(RULES, "Costs of", 0, 1));
    assert_eq!(r["result"], Value::Null, "{r}");

    // Go to definition: within the file and across files; an anchor goes to its contents entry.
    let r = c.at("textDocument/definition", &rules, pos(RULES, "cost(u);", 0, 0));
    let locs = r["result"].as_array().cloned().unwrap_or_default();
    assert_eq!(locs.len(), 1, "{r}");
    assert_eq!(locs[0]["uri"], json!(rules));
    assert_eq!(locs[0]["range"]["start"], json!({ "line": 1, "character": 8 }), "{r}");
    let r = c.at("textDocument/definition", &rules, pos(RULES, "Blue", 0, 1));
    let locs = r["result"].as_array().cloned().unwrap_or_default();
    assert_eq!(locs.len(), 1, "{r}");
    assert_eq!(locs[0]["uri"], json!(prelude));
    assert_eq!(located(&locs[0]), ("prelude.ks".to_string(), "Blue".to_string()));
    let r = c.at("textDocument/definition", &rules, pos(RULES, "§4.0", 0, 2));
    let locs = r["result"].as_array().cloned().unwrap_or_default();
    assert_eq!(locs.len(), 1, "{r}");
    assert_eq!(located(&locs[0]).0, "prelude.ks");
    assert_eq!(
        locs[0]["range"]["start"]["line"],
        json!(PRELUDE.lines().position(|l| l.contains("§4.0")).unwrap_or(0))
    );

    // Locals: a loop variable, a parameter; each in its own declaration.
    let r = c.at("textDocument/definition", &rules, pos(RULES, "cost(u);", 0, 5));
    let locs = r["result"].as_array().cloned().unwrap_or_default();
    assert_eq!(locs.len(), 1, "{r}");
    assert_eq!(locs[0]["range"]["start"], json!({ "line": 4, "character": 6 }), "the `u` of `for u`: {r}");
    let r = c.at("textDocument/definition", &rules, pos(RULES, "u.ma", 0, 0));
    let locs = r["result"].as_array().cloned().unwrap_or_default();
    assert_eq!(locs.len(), 1, "{r}");
    assert_eq!(
        locs[0]["range"]["start"],
        json!({ "line": 1, "character": 13 }),
        "the parameter of cost: {r}"
    );
    let r = c.at("textDocument/references", &rules, pos(RULES, "units(s)", 0, 6));
    let lines: Vec<Value> = r["result"]
        .as_array()
        .map(|a| a.iter().map(|l| l["range"]["start"].clone()).collect())
        .unwrap_or_default();
    assert_eq!(lines, [json!({ "line": 3, "character": 23 }), json!({ "line": 4, "character": 17 })], "{r}");
    let h = hover_text(&c.at("textDocument/hover", &rules, pos(RULES, "cost(u);", 0, 5)));
    assert!(h.contains("for u in units(s) {") && h.contains("*local* `u`"), "{h}");

    // References: the declaration and the uses, across files.
    let r = c.at("textDocument/references", &rules, pos(RULES, "ma + 1", 0, 0));
    let locs = r["result"].as_array().cloned().unwrap_or_default();
    let found: Vec<(String, String)> = locs.iter().map(located).collect();
    assert_eq!(
        found,
        [("prelude.ks".to_string(), "ma".to_string()), ("rules.ks".to_string(), "ma".to_string())],
        "{r}"
    );
    let r = c.at("textDocument/references", &rules, pos(RULES, "§4.0", 0, 2));
    assert_eq!(r["result"].as_array().map(|a| a.len()), Some(3), "contents entry and two anchors: {r}");

    // Completion: declared names, built-ins, keywords; after `§`, the contents' paragraphs.
    let r = c.at("textDocument/completion", &rules, pos(RULES, "cost(u);", 0, 2));
    let items = r["result"]["items"].as_array().cloned().unwrap_or_default();
    let label = |l: &str| items.iter().find(|i| i["label"] == l).cloned();
    assert_eq!(label("cost").map(|i| i["kind"].clone()), Some(json!(3)), "cost is a function: {r}");
    assert!(label("turn_of").is_some() && label("ma").is_some() && label("Blue").is_some(), "{r}");
    assert!(label("distance")
        .map(|i| i["detail"].as_str().unwrap_or("").starts_with("built-in"))
        .unwrap_or(false));
    assert_eq!(label("procedure").map(|i| i["kind"].clone()), Some(json!(14)), "keyword: {r}");
    assert!(label("4.1").is_none(), "no anchors outside `§`");
    let edited = RULES.replace("§4.0 sequence", "§4.\n§4.0 sequence");
    c.change(&rules, 2, &edited);
    let r = c.at("textDocument/completion", &rules, pos(&edited, "§4.\n", 0, "§4.".len()));
    let items = r["result"]["items"].as_array().cloned().unwrap_or_default();
    let anchors: Vec<(String, String)> = items
        .iter()
        .map(|i| {
            (i["label"].as_str().unwrap_or("").to_string(), i["detail"].as_str().unwrap_or("").to_string())
        })
        .collect();
    assert_eq!(anchors.len(), 4, "{r}");
    assert!(anchors.contains(&("4.1".to_string(), "Costs".to_string())), "{r}");
    c.change(&rules, 3, RULES);

    // Document symbols, grouped by paragraph.
    let r = c.request("textDocument/documentSymbol", json!({ "textDocument": { "uri": rules } }));
    let syms = r["result"].as_array().cloned().unwrap_or_default();
    let names: Vec<&str> = syms.iter().map(|s| s["name"].as_str().unwrap_or("")).collect();
    assert_eq!(names, ["§4.1 Costs", "§4.0 Sequence"], "{r}");
    let kids: Vec<&str> = syms[1]["children"]
        .as_array()
        .map(|a| a.iter().map(|s| s["name"].as_str().unwrap_or("")).collect())
        .unwrap_or_default();
    assert_eq!(kids, ["turn_of", "sequence"], "{r}");
    assert_eq!(syms[0]["children"][0]["name"], "cost");
    assert_eq!(syms[0]["children"][0]["selectionRange"]["start"], json!({ "line": 1, "character": 8 }));
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn hover_without_a_rules_text_shows_the_title_only() {
    let (book, texts) = inline_rulebook("notext");
    let mut c = Client::start(&texts, json!({}));
    let rules = c.open(&book.join("rules.ks"));
    let h = hover_text(&c.at("textDocument/hover", &rules, pos(RULES, "§4.1", 0, 3)));
    assert_eq!(h, "**§4.1** Costs");
    // The setting points at a directory that has it: the text shows.
    let other = texts.parent().map(|p| p.join("elsewhere")).unwrap_or_default();
    std::fs::create_dir_all(&other).expect("dir");
    std::fs::write(other.join("whatever.txt"), TEXT).expect("write");
    c.notify(
        "workspace/didChangeConfiguration",
        json!({ "settings": { "kriegsspiel": { "textsDir": other } } }),
    );
    let h = hover_text(&c.at("textDocument/hover", &rules, pos(RULES, "§4.1", 0, 3)));
    assert!(h.contains("Invented for the test: entering a hex") && h.contains("(whatever.txt)"), "{h}");
    // An anchor that is not in the contents.
    c.change(&rules, 2, &RULES.replace("§4.1 fn", "§4.7 fn"));
    let h = hover_text(&c.at("textDocument/hover", &rules, pos(RULES, "§4.1", 0, 3)));
    assert!(h.contains("**§4.7**: not in the rulebook's contents"), "{h}");
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn malformed_messages_get_errors_and_the_server_goes_on() {
    let (book, texts) = inline_rulebook("robust");
    // A request before initialize.
    let mut child = Command::new(env!("CARGO_BIN_EXE_kriegsspiel"))
        .arg("lsp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    let body = json!({ "jsonrpc": "2.0", "id": 1, "method": "textDocument/hover", "params": {} }).to_string();
    let _ = write!(stdin, "Content-Length: {}\r\n\r\n{body}", body.len());
    let _ = stdin.flush();
    let mut out = BufReader::new(child.stdout.take().expect("stdout"));
    let r = read_msg(&mut out).expect("an answer");
    assert_eq!(r["error"]["code"], -32002, "{r}");
    drop(stdin);
    assert_eq!(wait(&mut child), 1, "input closed without exit");

    let mut c = Client::start(&texts, json!({ "textsDir": 42 }));
    // Not JSON.
    c.raw(b"Content-Length: 9\r\n\r\n{\"id\": 1,");
    assert_eq!(c.response(&Value::Null)["error"]["code"], -32700);
    // JSON, but not a message.
    c.send(&json!({ "jsonrpc": "2.0", "id": 77, "params": [] }));
    assert_eq!(c.response(&json!(77))["error"]["code"], -32600);
    // No Content-Length.
    c.raw(b"Content-Type: x\r\n\r\n");
    assert_eq!(c.response(&Value::Null)["error"]["code"], -32700);
    // Unknown method, bad params, a file that is not there, positions past the end.
    assert_eq!(c.request("textDocument/frobnicate", json!({}))["error"]["code"], -32601);
    assert_eq!(c.request("textDocument/hover", json!({ "x": 1 }))["error"]["code"], -32602);
    let r = c.at("textDocument/hover", "file:///no/such/dir/x.ks", (0, 0));
    assert!(r["error"]["code"].is_i64(), "{r}");
    let r = c.at("textDocument/hover", "http://example.invalid/x.ks", (0, 0));
    assert!(r["error"]["code"].is_i64(), "{r}");
    let rules = c.open(&book.join("rules.ks"));
    for p in [(999, 0), (0, 999), (3, 4000)] {
        for m in [
            "textDocument/hover",
            "textDocument/definition",
            "textDocument/references",
            "textDocument/completion",
        ] {
            let r = c.at(m, &rules, p);
            assert!(r.get("error").is_none(), "{m} {p:?}: {r}");
        }
    }
    // Notifications with bad params are ignored.
    c.notify("textDocument/didChange", json!({ "textDocument": 5 }));
    c.notify("textDocument/didOpen", json!(null));
    // Still serving.
    let h = hover_text(&c.at("textDocument/hover", &rules, pos(RULES, "cost(u);", 0, 1)));
    assert!(h.contains("fn cost"), "{h}");
    assert_eq!(c.request("initialize", json!({}))["error"]["code"], -32600);
    assert_eq!(c.shutdown(), 0);
}

// ------------------------------------------------------------------ Peter the Great

fn peter() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("rulebooks").join("peter-the-great")
}

#[test]
fn peter_the_great() {
    let dir = peter();
    let combat_path = dir.join("combat.ks");
    let combat = std::fs::read_to_string(&combat_path).expect("combat.ks");
    // The texts directory next to the workspace, when there is one (never in the repo).
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("shared").join("rulebook-texts");
    let have_text = shared.join("peter-the-great.txt").is_file();
    let mut c = Client::start(&shared, json!({}));
    let uri_c = c.open(&combat_path);
    assert_eq!(c.diagnostics(&uri_c), Vec::<Value>::new(), "Peter compiles clean");

    // Hover on a use of a procedure declared in the same file.
    let use_at = pos(&combat, "call take_step_loss(u)", 0, "call ".len() + 2);
    let h = hover_text(&c.at("textDocument/hover", &uri_c, use_at));
    assert!(h.contains("procedure take_step_loss(u: Unit) {"), "{h}");
    assert!(h.contains("§10.2 Loss of Morale Points"), "{h}");
    // Definition of a rating declared in rulebook.ks.
    let r = c.at("textDocument/definition", &uri_c, pos(&combat, "a.mr", 0, 2));
    let locs = r["result"].as_array().cloned().unwrap_or_default();
    assert_eq!(
        locs.iter().map(located).collect::<Vec<_>>(),
        [("rulebook.ks".to_string(), "mr".to_string())],
        "{r}"
    );
    // References across the rulebook's files.
    let r = c.at("textDocument/references", &uri_c, use_at);
    let locs = r["result"].as_array().cloned().unwrap_or_default();
    let found: Vec<(String, String)> = locs.iter().map(located).collect();
    assert!(found.iter().all(|(_, t)| t == "take_step_loss"), "{found:?}");
    let mut files: Vec<&str> = found.iter().map(|(f, _)| f.as_str()).collect();
    files.dedup();
    assert_eq!(files, ["combat.ks", "examples.ks", "firezones.ks"], "{found:?}");
    let in_combat = found.iter().filter(|(f, _)| f == "combat.ks").count();
    assert_eq!(in_combat, combat.matches("take_step_loss").count(), "{found:?}");

    // Hover on an anchor: the title, and the text's paragraph where the text is there.
    let h = hover_text(&c.at("textDocument/hover", &uri_c, pos(&combat, "§10.2 §10.2.A", 0, 2)));
    assert!(h.starts_with("**§10.2** Loss of Morale Points"), "{h}");
    assert_eq!(h.contains("(peter-the-great.txt)"), have_text, "{h}");

    // Document symbols: declarations grouped under their paragraph.
    let r = c.request("textDocument/documentSymbol", json!({ "textDocument": { "uri": uri_c } }));
    let syms = r["result"].as_array().cloned().unwrap_or_default();
    let group = syms.iter().find(|s| s["name"] == "§10.2 Loss of Morale Points").cloned().unwrap_or_default();
    let kids = group["children"].as_array().cloned().unwrap_or_default();
    assert!(kids.iter().any(|k| k["name"] == "take_step_loss" && k["detail"] == "procedure"), "{group}");

    // An unsaved edit that breaks a use: the compiler's error, at the edit.
    let broken = combat.replacen("call take_step_loss(u);", "call take_step_los(u);", 1);
    c.change(&uri_c, 2, &broken);
    let d = c.diagnostics(&uri_c);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(
        d[0]["range"]["start"],
        json!({ "line": pos(&broken, "take_step_los(", 0, 0).0, "character": pos(&broken, "take_step_los(", 0, 0).1 }),
        "{d:?}"
    );
    assert!(d[0]["code"].as_str().unwrap_or("").starts_with("E01"), "{d:?}");
    c.change(&uri_c, 3, &combat);
    assert_eq!(c.diagnostics(&uri_c), Vec::<Value>::new());
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn truncated_and_garbled_buffers_never_stop_the_server() {
    let dir = peter();
    let combat_path = dir.join("combat.ks");
    let combat = std::fs::read_to_string(&combat_path).expect("combat.ks");
    let texts = fresh_dir("garbled");
    let mut c = Client::start(&texts, json!({}));
    let uri_c = c.open(&combat_path);
    assert_eq!(c.diagnostics(&uri_c), Vec::<Value>::new());
    let cuts: Vec<usize> = (1..40).map(|i| i * combat.len() / 40).collect();
    let mut version = 1;
    for (k, cut) in cuts.into_iter().enumerate() {
        let mut cut = cut;
        while !combat.is_char_boundary(cut) {
            cut -= 1;
        }
        let mut half = cut / 2;
        while !combat.is_char_boundary(half) {
            half -= 1;
        }
        // Every other buffer also loses a slice from its middle.
        let text = if k % 2 == 0 {
            combat[..cut].to_string()
        } else {
            format!("{}{}", &combat[..half], &combat[cut..])
        };
        version += 1;
        c.change(&uri_c, version, &text);
        let d = c.diagnostics(&uri_c);
        assert!(d.iter().all(|x| x["code"].is_string() && x["range"].is_object()), "{d:?}");
        let last = text.lines().count() as u32;
        for p in [(0, 0), (last.saturating_sub(1), 3), (last / 2, 10), (last, 0)] {
            for m in [
                "textDocument/hover",
                "textDocument/definition",
                "textDocument/references",
                "textDocument/completion",
            ] {
                let r = c.at(m, &uri_c, p);
                assert!(r.get("error").is_none(), "{m} {p:?} at cut {cut}: {r}");
            }
        }
        let r = c.request("textDocument/documentSymbol", json!({ "textDocument": { "uri": uri_c } }));
        assert!(r["result"].is_array(), "{r}");
    }
    c.change(&uri_c, version + 1, &combat);
    assert_eq!(c.diagnostics(&uri_c), Vec::<Value>::new());
    assert_eq!(c.shutdown(), 0);
}
