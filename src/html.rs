//! What the HTML pages (`report`, `run --games --html`, `replay`) share: escaping text
//! for HTML and embedding JSON data in a page.

/// Text as HTML (element content and quoted attribute values).
pub(crate) fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            _ => o.push(c),
        }
    }
    o
}

/// JSON to place inside `<script type="application/json">`: `<` is written as `\u003c`
/// so that no string in the data can close the script element (`</script>`) or open a
/// comment; the JSON value is unchanged.
pub(crate) fn script_json(v: &serde_json::Value) -> String {
    v.to_string().replace('<', "\\u003c")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes() {
        assert_eq!(esc("a<b & \"c\" 'd'>"), "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;");
        let v = serde_json::json!({ "s": "</script><!--" });
        let j = script_json(&v);
        assert!(!j.contains('<'));
        assert_eq!(serde_json::from_str::<serde_json::Value>(&j).unwrap(), v);
    }
}
