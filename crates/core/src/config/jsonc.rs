//! Settings files are JSON with comments (as `strip-json-comments` accepts)
//! and `$VAR` / `${VAR}` references in strings.

use serde_json::Value;

/// Replaces `//` and `/* */` comments outside strings by spaces, keeping
/// newlines, so parse errors still point at the right line and column.
pub fn strip_comments(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    let mut in_string = false;
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            out.push(b);
            if b == b'\\' && i + 1 < bytes.len() {
                out.push(bytes[i + 1]);
                i += 2;
                continue;
            }
            if b == b'"' {
                in_string = false;
            }
            i += 1;
            continue;
        }
        match (b, bytes.get(i + 1)) {
            (b'"', _) => {
                in_string = true;
                out.push(b);
                i += 1;
            }
            (b'/', Some(b'/')) => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    out.push(b' ');
                    i += 1;
                }
            }
            (b'/', Some(b'*')) => {
                out.extend_from_slice(b"  ");
                i += 2;
                while i < bytes.len() && !(bytes[i] == b'*' && bytes.get(i + 1) == Some(&b'/')) {
                    out.push(if bytes[i] == b'\n' { b'\n' } else { b' ' });
                    i += 1;
                }
                if i < bytes.len() {
                    out.extend_from_slice(b"  ");
                    i += 2;
                }
            }
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
    // Only ASCII bytes were replaced by ASCII spaces, so this stays UTF-8.
    String::from_utf8(out).unwrap_or_default()
}

/// Expands `$VAR` and `${VAR}` in every string of `value`; unknown
/// variables are left as written.
pub fn expand_env(value: &mut Value, env: &dyn Fn(&str) -> Option<String>) {
    match value {
        Value::String(s) if s.contains('$') => *s = expand_str(s, env),
        Value::Array(items) => items.iter_mut().for_each(|v| expand_env(v, env)),
        Value::Object(map) => map.values_mut().for_each(|v| expand_env(v, env)),
        _ => {}
    }
}

/// Expands `$VAR`, `${VAR}` and, as the shell and Gemini CLI 0.70 do,
/// `${VAR:-default}` (the default when VAR is unset or empty) and
/// `${VAR-default}` (the default only when VAR is unset) in one string.
/// An unknown variable without a default is left as written.
pub fn expand_str(s: &str, env: &dyn Fn(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(pos) = rest.find('$') {
        out.push_str(&rest[..pos]);
        let after = &rest[pos + 1..];
        let found = reference_at(after);
        let value = if found.name.is_empty() {
            None
        } else {
            match (env(found.name), found.default) {
                (Some(v), Some(d)) if v.is_empty() && d.if_empty => Some(d.text.to_string()),
                (Some(v), _) => Some(v),
                (None, Some(d)) => Some(d.text.to_string()),
                (None, None) => None,
            }
        };
        match value {
            Some(v) => out.push_str(&v),
            None => out.push_str(&rest[pos..pos + 1 + found.consumed]),
        }
        rest = &after[found.consumed..];
    }
    out.push_str(rest);
    out
}

/// The variables a string names (`$VAR`, `${VAR}`), as [`expand_str`]
/// would look them up.
pub fn references(s: &str) -> impl Iterator<Item = &str> {
    let mut rest = s;
    std::iter::from_fn(move || {
        loop {
            let pos = rest.find('$')?;
            let after = &rest[pos + 1..];
            let found = reference_at(after);
            rest = &after[found.consumed..];
            if !found.name.is_empty() {
                return Some(found.name);
            }
        }
    })
}

/// A `${VAR:-default}` / `${VAR-default}` default.
#[derive(Clone, Copy)]
struct Fallback<'a> {
    text: &'a str,
    /// `:-`: also when the variable is set but empty.
    if_empty: bool,
}

/// A reference right after a `$`.
struct Reference<'a> {
    /// The variable (empty when none).
    name: &'a str,
    default: Option<Fallback<'a>>,
    /// How many bytes it takes after the `$`.
    consumed: usize,
}

/// The variable reference right after a `$`.
fn reference_at(after: &str) -> Reference<'_> {
    let none = Reference {
        name: "",
        default: None,
        consumed: 0,
    };
    if let Some(inner) = after.strip_prefix('{') {
        let Some(end) = inner.find('}') else {
            return none;
        };
        let body = &inner[..end];
        let name_end = body
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(body.len());
        let (name, tail) = body.split_at(name_end);
        let default = if tail.is_empty() {
            None
        } else if let Some(text) = tail.strip_prefix(":-") {
            Some(Fallback {
                text,
                if_empty: true,
            })
        } else if let Some(text) = tail.strip_prefix('-') {
            Some(Fallback {
                text,
                if_empty: false,
            })
        } else {
            return none;
        };
        if !is_name(name) {
            return none;
        }
        Reference {
            name,
            default,
            consumed: end + 2,
        }
    } else {
        let end = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(after.len());
        Reference {
            name: &after[..end],
            default: None,
            consumed: end,
        }
    }
}

fn is_name(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn defaults_apply_when_unset_and_with_colon_when_empty() {
        let env = |k: &str| match k {
            "SET" => Some("v".to_string()),
            "EMPTY" => Some(String::new()),
            _ => None,
        };
        assert_eq!(
            expand_str("${SET:-d}/${EMPTY:-d}/${NOPE:-d}", &env),
            "v/d/d"
        );
        assert_eq!(expand_str("${SET-d}/${EMPTY-d}/${NOPE-d}", &env), "v//d");
        assert_eq!(
            expand_str("${NOPE:-}x ${A:=b} ${NOPE}", &env),
            "x ${A:=b} ${NOPE}"
        );
        let names: Vec<&str> = references("${EMPTY:-d} ${X-y}").collect();
        assert_eq!(names, ["EMPTY", "X"]);
    }

    #[test]
    fn comments_go_strings_stay() {
        let text = "{\n // c\n \"a\": \"//x\", /* b\n */ \"b\": 1 }";
        let v: Value = serde_json::from_str(&strip_comments(text)).unwrap();
        assert_eq!(v, json!({"a": "//x", "b": 1}));
        assert_eq!(strip_comments(text).lines().count(), text.lines().count());
    }

    #[test]
    fn env_expansion() {
        let env = |k: &str| (k == "HOME").then(|| "/h".to_string());
        assert_eq!(
            expand_str("$HOME/x ${HOME} $NOPE ${NOPE} $", &env),
            "/h/x /h $NOPE ${NOPE} $"
        );
        let names: Vec<&str> = references("$A/x ${B_1} ${no t} $ $$C").collect();
        assert_eq!(names, ["A", "B_1", "C"]);
        let mut v = json!({"a": ["$HOME"], "b": {"c": "${HOME}"}});
        expand_env(&mut v, &env);
        assert_eq!(v, json!({"a": ["/h"], "b": {"c": "/h"}}));
    }

    mod properties {
        use super::*;
        use proptest::prelude::*;

        /// JSON values whose strings hold comment markers, quotes,
        /// backslashes and non-ASCII text.
        fn json_value() -> impl Strategy<Value = Value> {
            let leaf = prop_oneof![
                Just(Value::Null),
                any::<bool>().prop_map(Value::Bool),
                any::<i64>().prop_map(Value::from),
                r#"[a/*" \\é\n]{0,12}"#.prop_map(Value::String),
            ];
            leaf.prop_recursive(3, 24, 4, |inner| {
                prop_oneof![
                    proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                    proptest::collection::btree_map("[a-z/*]{1,4}", inner, 0..4)
                        .prop_map(|m| Value::Object(m.into_iter().collect())),
                ]
            })
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(64))]

            /// Comments added between the lines of valid JSON are stripped
            /// and it parses to the same value, on the same lines.
            #[test]
            fn stripped_comments_keep_the_json(
                value in json_value(),
                comments in proptest::collection::vec(
                    (proptest::option::of("[a-z \"/]{0,8}"), proptest::option::of("[a-z \"/é]{0,8}")),
                    64,
                ),
            ) {
                let pretty = serde_json::to_string_pretty(&value).unwrap();
                let mut text = String::new();
                for (line, (block, tail)) in pretty.lines().zip(comments.iter().cycle()) {
                    if let Some(b) = block {
                        text.push_str(&format!("/* {b} */"));
                    }
                    text.push_str(line);
                    if let Some(t) = tail {
                        text.push_str(&format!(" // {t}"));
                    }
                    text.push('\n');
                }
                let stripped = strip_comments(&text);
                prop_assert_eq!(stripped.lines().count(), text.lines().count());
                let back: Value = serde_json::from_str(&stripped).unwrap();
                prop_assert_eq!(&back, &value);
                // JSON without comments comes through unchanged.
                let compact = value.to_string();
                prop_assert_eq!(strip_comments(&compact), compact);
            }

            /// Any text keeps its byte length and line count (comments
            /// become spaces), never a panic.
            #[test]
            fn any_text_keeps_its_shape(text in "\\PC{0,40}|[/*\"\\\\\na é]{0,40}") {
                let stripped = strip_comments(&text);
                prop_assert_eq!(stripped.len(), text.len());
                prop_assert_eq!(stripped.matches('\n').count(), text.matches('\n').count());
            }
        }
    }
}
