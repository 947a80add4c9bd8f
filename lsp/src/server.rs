//! The server loop: documents, analyses per rulebook directory, and the requests.

use crate::analysis::{split_item, Analysis};
use crate::lex::{self, TokKind};
use crate::texts::{self, RulesText};
use kriegsspiel_dsl::ast::Span;
use kriegsspiel_dsl::Severity;
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types as lt;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// How the session ended.
pub enum End {
    /// `shutdown` then `exit`.
    Clean,
    /// `exit` without `shutdown`, or the input closed.
    Abrupt,
}

#[derive(Default)]
struct State {
    /// Open buffers: path → text.
    docs: BTreeMap<PathBuf, String>,
    /// The URI the client used for a path (sent back as it came).
    uris: BTreeMap<PathBuf, String>,
    analyses: BTreeMap<PathBuf, Analysis>,
    dirty: BTreeSet<PathBuf>,
    /// Files given diagnostics per root (to clear them when they have none).
    published: BTreeMap<PathBuf, BTreeSet<PathBuf>>,
    texts_setting: Option<PathBuf>,
    /// Rules text per rulebook title (None: looked for, not found).
    texts: BTreeMap<String, Option<RulesText>>,
    builtins: Vec<(&'static str, &'static str)>,
    shutdown: bool,
}

fn err_response(id: RequestId, code: ErrorCode, msg: impl Into<String>) -> Response {
    Response::new_err(id, code as i32, msg.into())
}

pub fn capabilities() -> lt::ServerCapabilities {
    lt::ServerCapabilities {
        text_document_sync: Some(lt::TextDocumentSyncCapability::Options(lt::TextDocumentSyncOptions {
            open_close: Some(true),
            change: Some(lt::TextDocumentSyncKind::FULL),
            save: Some(lt::TextDocumentSyncSaveOptions::Supported(true)),
            ..Default::default()
        })),
        hover_provider: Some(lt::HoverProviderCapability::Simple(true)),
        definition_provider: Some(lt::OneOf::Left(true)),
        references_provider: Some(lt::OneOf::Left(true)),
        document_symbol_provider: Some(lt::OneOf::Left(true)),
        completion_provider: Some(lt::CompletionOptions {
            trigger_characters: Some(vec!["§".to_string()]),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// Run the protocol on `conn` until `exit` or the end of input.
pub fn run(conn: &Connection) -> End {
    let mut st = State { builtins: kriegsspiel_compiler::builtin_functions(), ..Default::default() };
    let mut initialized = false;
    loop {
        let msg = match conn.receiver.recv() {
            Ok(m) => m,
            Err(_) => return End::Abrupt,
        };
        match msg {
            Message::Request(req) => {
                if !initialized {
                    if req.method == "initialize" {
                        if let Some(opts) = req.params.get("initializationOptions") {
                            st.apply_settings(opts);
                        }
                        let result = serde_json::json!({
                            "capabilities": capabilities(),
                            "serverInfo": { "name": "kriegsspiel", "version": env!("CARGO_PKG_VERSION") },
                        });
                        initialized = true;
                        let _ = conn.sender.send(Response::new_ok(req.id, result).into());
                    } else {
                        let r = err_response(
                            req.id,
                            ErrorCode::ServerNotInitialized,
                            "the server is not initialized",
                        );
                        let _ = conn.sender.send(r.into());
                    }
                    continue;
                }
                st.refresh(conn);
                // A bug of ours must not take the editor's server down: answer an error.
                let id = req.id.clone();
                let method = req.method.clone();
                let resp = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| st.request(req))) {
                    Ok(r) => r,
                    Err(_) => {
                        err_response(id, ErrorCode::InternalError, format!("internal error in {method}"))
                    }
                };
                let _ = conn.sender.send(resp.into());
            }
            Message::Notification(n) => {
                if n.method == "exit" {
                    return if st.shutdown { End::Clean } else { End::Abrupt };
                }
                if initialized {
                    st.notification(n);
                }
                // Coalesce: analyse once the queue of pending messages is empty.
                if conn.receiver.is_empty() {
                    st.refresh(conn);
                }
            }
            Message::Response(_) => {}
        }
    }
}

fn params<P: serde::de::DeserializeOwned>(v: Value) -> Result<P, String> {
    serde_json::from_value(v).map_err(|e| format!("invalid params: {e}"))
}

/// `file:///a/b%20c.ks` → `/a/b c.ks`.
pub fn uri_to_path(uri: &str) -> Option<PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    let path = match rest.find('/') {
        Some(i) => &rest[i..],
        None => return None,
    };
    let path = path.split(['?', '#']).next().unwrap_or("");
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex =
                std::str::from_utf8(&bytes[i + 1..i + 3]).ok().and_then(|h| u8::from_str_radix(h, 16).ok());
            if let Some(b) = hex {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    let s = String::from_utf8(out).ok()?;
    // `/c:/x` on Windows.
    let s = if s.len() > 2 && s.as_bytes()[2] == b':' && cfg!(windows) { s[1..].to_string() } else { s };
    Some(PathBuf::from(s))
}

pub fn path_to_uri(path: &Path) -> String {
    let mut out = String::from("file://");
    let s = path.to_string_lossy().replace('\\', "/");
    if !s.starts_with('/') {
        out.push('/');
    }
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn md(text: String) -> lt::Hover {
    lt::Hover {
        contents: lt::HoverContents::Markup(lt::MarkupContent {
            kind: lt::MarkupKind::Markdown,
            value: text,
        }),
        range: None,
    }
}

fn symbol_kind(kind: &str) -> lt::SymbolKind {
    match kind {
        "fn" | "procedure" | "modifiers" | "interrupt" | "trigger" => lt::SymbolKind::FUNCTION,
        "rating" | "track" => lt::SymbolKind::PROPERTY,
        "unit type" => lt::SymbolKind::CLASS,
        "table" => lt::SymbolKind::STRUCT,
        "results" | "ruling" | "sides" | "classes" => lt::SymbolKind::ENUM,
        "optional rule" | "layer" => lt::SymbolKind::MODULE,
        "invariant" => lt::SymbolKind::CONSTANT,
        "sequence" => lt::SymbolKind::EVENT,
        "marker" | "cup" => lt::SymbolKind::VARIABLE,
        _ => lt::SymbolKind::OBJECT,
    }
}

fn completion_kind(kind: &str) -> lt::CompletionItemKind {
    match kind {
        "fn" | "procedure" | "modifiers" | "interrupt" | "trigger" => lt::CompletionItemKind::FUNCTION,
        "rating" | "track" => lt::CompletionItemKind::PROPERTY,
        "unit type" | "unit class" => lt::CompletionItemKind::CLASS,
        "result code" | "ruling alternative" | "side" => lt::CompletionItemKind::ENUM_MEMBER,
        "results" | "ruling" => lt::CompletionItemKind::ENUM,
        "table" => lt::CompletionItemKind::STRUCT,
        "optional rule" | "layer" => lt::CompletionItemKind::MODULE,
        _ => lt::CompletionItemKind::VARIABLE,
    }
}

impl State {
    fn apply_settings(&mut self, v: &Value) {
        // Accept `{textsDir}` and `{kriegsspiel: {textsDir}}` (VS Code's settings section).
        let v = v.get("kriegsspiel").unwrap_or(v);
        if let Some(d) = v.get("textsDir") {
            let dir = d.as_str().filter(|s| !s.trim().is_empty()).map(PathBuf::from);
            if dir != self.texts_setting {
                self.texts_setting = dir;
                self.texts.clear();
            }
        }
    }

    fn root_of(path: &Path) -> Option<PathBuf> {
        path.parent().map(Path::to_path_buf)
    }

    fn mark(&mut self, path: &Path) {
        if let Some(r) = Self::root_of(path) {
            self.dirty.insert(r);
        }
    }

    fn notification(&mut self, n: Notification) {
        match n.method.as_str() {
            "textDocument/didOpen" => {
                if let Ok(p) = params::<lt::DidOpenTextDocumentParams>(n.params) {
                    if let Some(path) = uri_to_path(p.text_document.uri.as_str()) {
                        self.uris.insert(path.clone(), p.text_document.uri.as_str().to_string());
                        self.docs.insert(path.clone(), p.text_document.text);
                        self.mark(&path);
                    }
                }
            }
            "textDocument/didChange" => {
                if let Ok(p) = params::<lt::DidChangeTextDocumentParams>(n.params) {
                    if let Some(path) = uri_to_path(p.text_document.uri.as_str()) {
                        // Full sync: the last change holds the whole text.
                        if let Some(c) = p.content_changes.into_iter().rev().find(|c| c.range.is_none()) {
                            self.docs.insert(path.clone(), c.text);
                            self.mark(&path);
                        }
                    }
                }
            }
            "textDocument/didSave" => {
                if let Ok(p) = params::<lt::DidSaveTextDocumentParams>(n.params) {
                    if let Some(path) = uri_to_path(p.text_document.uri.as_str()) {
                        if let Some(t) = p.text {
                            self.docs.insert(path.clone(), t);
                        }
                        self.mark(&path);
                    }
                }
            }
            "textDocument/didClose" => {
                if let Ok(p) = params::<lt::DidCloseTextDocumentParams>(n.params) {
                    if let Some(path) = uri_to_path(p.text_document.uri.as_str()) {
                        self.docs.remove(&path);
                        self.mark(&path);
                    }
                }
            }
            "workspace/didChangeConfiguration" => {
                if let Some(s) = n.params.get("settings") {
                    let s = s.clone();
                    self.apply_settings(&s);
                }
            }
            _ => {}
        }
    }

    /// Re-analyse every rulebook whose files changed and publish its diagnostics.
    fn refresh(&mut self, conn: &Connection) {
        let dirty = std::mem::take(&mut self.dirty);
        for root in dirty {
            let a = Analysis::build(&root, &self.docs);
            self.publish(conn, &a);
            self.analyses.insert(root, a);
        }
    }

    fn uri(&self, path: &Path) -> String {
        self.uris.get(path).cloned().unwrap_or_else(|| path_to_uri(path))
    }

    fn location(&self, a: &Analysis, span: Span) -> Option<Value> {
        let path = a.files.get(span.file as usize)?;
        Some(serde_json::json!({ "uri": self.uri(path), "range": a.range(span) }))
    }

    fn publish(&mut self, conn: &Connection, a: &Analysis) {
        let mut per_file: BTreeMap<PathBuf, Vec<Value>> = BTreeMap::new();
        // Open files always get an answer (an empty list clears old ones); others only
        // when they have diagnostics, or had some.
        for p in &a.files {
            if self.docs.contains_key(p) {
                per_file.insert(p.clone(), Vec::new());
            }
        }
        for d in &a.diagnostics {
            let Some(path) = a.files.get(d.span.file as usize).or(a.files.first()) else { continue };
            let mut message = d.message.clone();
            if !d.paragraphs.is_empty() {
                let ps: Vec<String> = d.paragraphs.iter().map(|p| format!("§{p}")).collect();
                message.push_str(&format!(" [{}]", ps.join(", ")));
            }
            for n in &d.notes {
                message.push_str(&format!("\n{n}"));
            }
            let related: Vec<Value> = d
                .labels
                .iter()
                .filter_map(|(s, t)| {
                    self.location(a, *s).map(|loc| serde_json::json!({ "location": loc, "message": t }))
                })
                .collect();
            let severity = match d.severity {
                Severity::Error => 1,
                Severity::Warning => 2,
                Severity::Note => 3,
            };
            let mut v = serde_json::json!({
                "range": a.range(d.span),
                "severity": severity,
                "code": d.code,
                "source": "kriegsspiel",
                "message": message,
            });
            if !related.is_empty() {
                v["relatedInformation"] = Value::Array(related);
            }
            if !d.paragraphs.is_empty() {
                v["data"] = serde_json::json!({ "paragraphs": d.paragraphs });
            }
            per_file.entry(path.clone()).or_default().push(v);
        }
        let before = self.published.remove(&a.root).unwrap_or_default();
        for p in before {
            per_file.entry(p).or_default();
        }
        let mut now = BTreeSet::new();
        for (path, diags) in per_file {
            if !diags.is_empty() {
                now.insert(path.clone());
            }
            let params = serde_json::json!({ "uri": self.uri(&path), "diagnostics": diags });
            let n = Notification::new("textDocument/publishDiagnostics".to_string(), params);
            let _ = conn.sender.send(n.into());
        }
        self.published.insert(a.root.clone(), now);
    }

    /// Build the analysis holding `uri` if there is none yet.
    fn ensure(&mut self, uri: &str) -> Result<(), String> {
        let path = uri_to_path(uri).ok_or_else(|| format!("not a file URI: {uri}"))?;
        let root = Self::root_of(&path).ok_or_else(|| format!("no directory for {uri}"))?;
        if !self.analyses.contains_key(&root) {
            let a = Analysis::build(&root, &self.docs);
            self.analyses.insert(root, a);
        }
        Ok(())
    }

    /// The analysis holding `uri` and the file's id in it.
    fn analysis_for(&self, uri: &str) -> Result<(&Analysis, u32), String> {
        let path = uri_to_path(uri).ok_or_else(|| format!("not a file URI: {uri}"))?;
        let root = Self::root_of(&path).ok_or_else(|| format!("no directory for {uri}"))?;
        let a = self.analyses.get(&root).ok_or("no analysis")?;
        let id = a
            .file_id(&path)
            .ok_or_else(|| format!("{} is not a .ks file of its rulebook", path.display()))?;
        Ok((a, id))
    }

    fn request(&mut self, req: Request) -> Response {
        let id = req.id.clone();
        if self.shutdown {
            return err_response(id, ErrorCode::InvalidRequest, "the server is shut down");
        }
        let result = match req.method.as_str() {
            "shutdown" => {
                self.shutdown = true;
                Ok(Value::Null)
            }
            "initialize" => Err((ErrorCode::InvalidRequest, "initialize was already received".to_string())),
            "textDocument/hover" => params::<lt::HoverParams>(req.params)
                .map_err(|e| (ErrorCode::InvalidParams, e))
                .and_then(|p| {
                    self.hover(&p.text_document_position_params).map_err(|e| (ErrorCode::RequestFailed, e))
                }),
            "textDocument/definition" => params::<lt::GotoDefinitionParams>(req.params)
                .map_err(|e| (ErrorCode::InvalidParams, e))
                .and_then(|p| {
                    self.definition(&p.text_document_position_params)
                        .map_err(|e| (ErrorCode::RequestFailed, e))
                }),
            "textDocument/references" => params::<lt::ReferenceParams>(req.params)
                .map_err(|e| (ErrorCode::InvalidParams, e))
                .and_then(|p| self.references(&p).map_err(|e| (ErrorCode::RequestFailed, e))),
            "textDocument/completion" => params::<lt::CompletionParams>(req.params)
                .map_err(|e| (ErrorCode::InvalidParams, e))
                .and_then(|p| {
                    self.completion(&p.text_document_position).map_err(|e| (ErrorCode::RequestFailed, e))
                }),
            "textDocument/documentSymbol" => params::<lt::DocumentSymbolParams>(req.params)
                .map_err(|e| (ErrorCode::InvalidParams, e))
                .and_then(|p| {
                    self.symbols(p.text_document.uri.as_str()).map_err(|e| (ErrorCode::RequestFailed, e))
                }),
            m => Err((ErrorCode::MethodNotFound, format!("unknown method {m}"))),
        };
        match result {
            Ok(v) => Response::new_ok(id, v),
            Err((code, msg)) => err_response(id, code, msg),
        }
    }

    fn token(
        &self,
        pos: &lt::TextDocumentPositionParams,
    ) -> Result<(&Analysis, u32, Option<lex::Tok>), String> {
        let (a, f) = self.analysis_for(pos.text_document.uri.as_str())?;
        let text = a.text(f);
        let off = a.lines.get(f as usize).map(|li| li.offset(text, pos.position)).unwrap_or(0);
        let tok = a.tokens.get(f as usize).and_then(|t| lex::token_at(t, off)).cloned();
        Ok((a, f, tok))
    }

    /// A local binding of the identifier token `tok` (not a declared name).
    fn local_of(a: &Analysis, f: u32, tok: &lex::Tok) -> Option<(Span, Vec<Span>)> {
        if tok.kind != TokKind::Ident || a.defs_named(&tok.text).next().is_some() {
            return None;
        }
        a.local(f, tok.start, &tok.text)
    }

    fn anchor_line(a: &Analysis, anchor: &str) -> String {
        let (base, _) = split_item(anchor);
        match a.contents.get(&base) {
            Some((title, _)) => format!("§{anchor} {title}"),
            None => format!("§{anchor}"),
        }
    }

    fn hover(&mut self, pos: &lt::TextDocumentPositionParams) -> Result<Value, String> {
        self.ensure(pos.text_document.uri.as_str())?;
        // Load the rules text first (the only change a hover makes).
        let (a, _, tok) = self.token(pos)?;
        if matches!(&tok, Some(t) if t.kind == TokKind::Anchor) {
            if let Some(title) = a.title.clone() {
                if !self.texts.contains_key(&title) {
                    let dirs = texts::candidate_dirs(self.texts_setting.as_deref(), &a.root);
                    let t = texts::find(&dirs, &title).and_then(|p| RulesText::load(&p));
                    self.texts.insert(title, t);
                }
            }
        }
        let (a, f, tok) = self.token(pos)?;
        let Some(tok) = tok else { return Ok(Value::Null) };
        let text = match tok.kind {
            TokKind::Anchor => {
                let (base, _) = split_item(&tok.text);
                let title = a.title.clone();
                let mut s = match a.contents.get(&base) {
                    Some((t, _)) => format!("**§{}** {t}", tok.text),
                    None => format!("**§{}**: not in the rulebook's contents", tok.text),
                };
                if let Some(title) = title {
                    if let Some(Some(rt)) = self.texts.get(&title) {
                        if let Some((_, body)) = rt.paragraph(&tok.text) {
                            let mut body = body.to_string();
                            if body.len() > 3000 {
                                let mut cut = 3000;
                                while !body.is_char_boundary(cut) {
                                    cut -= 1;
                                }
                                body.truncate(cut);
                                body.push_str(" …");
                            }
                            let file = rt
                                .path
                                .file_name()
                                .map(|f| f.to_string_lossy().into_owned())
                                .unwrap_or_default();
                            s.push_str(&format!("\n\n---\n\n{body}\n\n*({file})*"));
                        }
                    }
                }
                s
            }
            TokKind::Ident => {
                let defs: Vec<_> = a.defs_named(&tok.text).collect();
                if !defs.is_empty() {
                    let parts: Vec<String> = defs
                        .iter()
                        .map(|d| {
                            let mut s = format!("```kriegsspiel\n{}\n```\n\n*{}*", d.first_line, d.kind);
                            if !d.detail.is_empty() {
                                s.push_str(&format!(" `{}`", d.detail));
                            }
                            if !d.anchors.is_empty() {
                                let an: Vec<String> =
                                    d.anchors.iter().map(|x| Self::anchor_line(a, x)).collect();
                                s.push_str(&format!("\n\n{}", an.join("  \n")));
                            }
                            s
                        })
                        .collect();
                    parts.join("\n\n---\n\n")
                } else if let Some((n, doc)) = self.builtins.iter().find(|(n, _)| *n == tok.text) {
                    format!("*built-in* `{n}`: {doc}")
                } else if let Some((bind, _)) = Self::local_of(a, f, &tok) {
                    let text = a.text(bind.file);
                    let ls = text[..bind.start as usize].rfind('\n').map(|i| i + 1).unwrap_or(0);
                    let le = text[bind.start as usize..]
                        .find('\n')
                        .map(|i| i + bind.start as usize)
                        .unwrap_or(text.len());
                    format!("```kriegsspiel\n{}\n```\n\n*local* `{}`", text[ls..le].trim(), tok.text)
                } else {
                    return Ok(Value::Null);
                }
            }
        };
        serde_json::to_value(md(text)).map_err(|e| e.to_string())
    }

    fn definition(&mut self, pos: &lt::TextDocumentPositionParams) -> Result<Value, String> {
        self.ensure(pos.text_document.uri.as_str())?;
        let (a, f, tok) = self.token(pos)?;
        let Some(tok) = tok else { return Ok(Value::Null) };
        let spans: Vec<Span> = match tok.kind {
            TokKind::Ident => match Self::local_of(a, f, &tok) {
                Some((bind, _)) => vec![bind],
                None => a.defs_named(&tok.text).map(|d| d.span).collect(),
            },
            TokKind::Anchor => {
                a.contents.get(&split_item(&tok.text).0).map(|(_, s)| *s).into_iter().collect()
            }
        };
        let locs: Vec<Value> = spans.iter().filter_map(|s| self.location(a, *s)).collect();
        Ok(if locs.is_empty() { Value::Null } else { Value::Array(locs) })
    }

    fn references(&mut self, p: &lt::ReferenceParams) -> Result<Value, String> {
        self.ensure(p.text_document_position.text_document.uri.as_str())?;
        let (a, f, tok) = self.token(&p.text_document_position)?;
        let Some(tok) = tok else { return Ok(Value::Null) };
        let local = Self::local_of(a, f, &tok);
        let spans: Vec<Span> = match tok.kind {
            TokKind::Ident if local.is_some() => {
                let (bind, uses) = local.unwrap_or_default();
                uses.into_iter().filter(|s| p.context.include_declaration || *s != bind).collect()
            }
            TokKind::Ident => {
                let decls: Vec<Span> = a.defs_named(&tok.text).map(|d| d.span).collect();
                a.occurrences(&tok.text)
                    .into_iter()
                    .filter(|s| p.context.include_declaration || !decls.contains(s))
                    .collect()
            }
            TokKind::Anchor => {
                let base = split_item(&tok.text).0;
                let mut v = Vec::new();
                for (f, toks) in a.tokens.iter().enumerate() {
                    for t in toks {
                        if t.kind == TokKind::Anchor && split_item(&t.text).0 == base {
                            v.push(Span::new(f as u32, t.start, t.end));
                        }
                    }
                }
                v
            }
        };
        Ok(Value::Array(spans.iter().filter_map(|s| self.location(a, *s)).collect()))
    }

    fn completion(&mut self, pos: &lt::TextDocumentPositionParams) -> Result<Value, String> {
        self.ensure(pos.text_document.uri.as_str())?;
        let builtins = self.builtins.clone();
        let (a, f, _) = self.token(pos)?;
        let text = a.text(f);
        let off = a.lines.get(f as usize).map(|li| li.offset(text, pos.position)).unwrap_or(0);
        // The word before the cursor, and whether `§` starts it.
        let before = &text[..off.min(text.len())];
        let word_start = before
            .char_indices()
            .rev()
            .take_while(|(_, c)| c.is_ascii_alphanumeric() || *c == '_' || *c == '.')
            .last()
            .map(|(i, _)| i)
            .unwrap_or(before.len());
        let mut items = Vec::new();
        if before[..word_start].ends_with('§') {
            for (n, (title, _)) in &a.contents {
                items.push(serde_json::json!({
                    "label": n, "kind": lt::CompletionItemKind::REFERENCE, "detail": title,
                }));
            }
        } else {
            let mut seen = BTreeSet::new();
            for d in &a.defs {
                if seen.insert(d.name.clone()) {
                    let detail = if d.detail.is_empty() {
                        d.kind.to_string()
                    } else {
                        format!("{} {}", d.kind, d.detail)
                    };
                    items.push(serde_json::json!({
                        "label": d.name, "kind": completion_kind(d.kind), "detail": detail,
                    }));
                }
            }
            for (n, doc) in builtins {
                if seen.insert(n.to_string()) {
                    items.push(serde_json::json!({
                        "label": n, "kind": lt::CompletionItemKind::FUNCTION, "detail": format!("built-in: {doc}"),
                    }));
                }
            }
            for k in lex::KEYWORDS {
                if seen.insert(k.to_string()) {
                    items.push(serde_json::json!({ "label": k, "kind": lt::CompletionItemKind::KEYWORD }));
                }
            }
        }
        Ok(serde_json::json!({ "isIncomplete": false, "items": items }))
    }

    fn symbols(&mut self, uri: &str) -> Result<Value, String> {
        self.ensure(uri)?;
        let (a, f) = self.analysis_for(uri)?;
        let Some(outline) = a.outline.get(f as usize) else { return Ok(Value::Array(Vec::new())) };
        // Group by paragraph, in order of first appearance.
        let mut groups: Vec<(Option<String>, Vec<&crate::analysis::Outline>)> = Vec::new();
        for o in outline {
            match groups.iter_mut().find(|(p, _)| *p == o.paragraph) {
                Some(g) => g.1.push(o),
                None => groups.push((o.paragraph.clone(), vec![o])),
            }
        }
        let sym = |name: String, detail: Option<String>, kind: lt::SymbolKind, range, sel, children| {
            #[allow(deprecated)]
            lt::DocumentSymbol {
                name,
                detail,
                kind,
                tags: None,
                deprecated: None,
                range,
                selection_range: sel,
                children,
            }
        };
        let mut out = Vec::new();
        for (para, items) in groups {
            let children: Vec<lt::DocumentSymbol> = items
                .iter()
                .map(|o| {
                    let name = if o.label.is_empty() { o.kind.to_string() } else { o.label.clone() };
                    sym(
                        name,
                        Some(o.kind.to_string()),
                        symbol_kind(o.kind),
                        a.range(o.span),
                        a.range(o.name_span),
                        None,
                    )
                })
                .collect();
            let span = items.iter().map(|o| o.span).reduce(|x, y| x.to(y)).unwrap_or_default();
            let sel = items.first().map(|o| o.name_span).unwrap_or_default();
            match para {
                Some(p) => {
                    let title = a.contents.get(&p).map(|(t, _)| t.clone());
                    let name = match &title {
                        Some(t) => format!("§{p} {t}"),
                        None => format!("§{p}"),
                    };
                    out.push(sym(
                        name,
                        None,
                        lt::SymbolKind::NAMESPACE,
                        a.range(span),
                        a.range(sel),
                        Some(children),
                    ));
                }
                None => out.extend(children),
            }
        }
        serde_json::to_value(out).map_err(|e| e.to_string())
    }
}
