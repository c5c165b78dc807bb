//! Gemini CLI's merge of settings layers: objects merge key by key, most
//! arrays and scalars are replaced by the later layer, a few lists are
//! unioned or concatenated, and each MCP server is replaced whole.

use serde_json::Value;

/// Lists whose entries from every layer are kept (duplicates dropped).
const UNION: &[&str] = &[
    "tools.exclude",
    "mcp.allowed",
    "mcp.excluded",
    "hooksConfig.disabled",
    "advanced.excludedEnvVars",
    "context.includeDirectories",
];

/// Objects whose members are replaced whole rather than merged.
const SHALLOW: &[&str] = &["mcpServers"];

/// Merges `over` into `base`; `path` is the dotted path of `base`.
pub fn merge_into(base: &mut Value, over: &Value, path: &str) {
    match (base, over) {
        (Value::Object(b), Value::Object(o)) => {
            let shallow = SHALLOW.contains(&path);
            for (key, value) in o {
                let child = if path.is_empty() {
                    key.clone()
                } else {
                    format!("{path}.{key}")
                };
                match b.get_mut(key) {
                    Some(existing) if !shallow => merge_into(existing, value, &child),
                    _ => {
                        b.insert(key.clone(), value.clone());
                    }
                }
            }
        }
        (Value::Array(b), Value::Array(o)) if is_concat(path) => b.extend(o.iter().cloned()),
        (Value::Array(b), Value::Array(o)) if UNION.contains(&path) => {
            for v in o {
                if !b.contains(v) {
                    b.push(v.clone());
                }
            }
        }
        (b, o) => *b = o.clone(),
    }
}

/// Hook definitions of every layer run (`hooks.<Event>` lists concatenate).
fn is_concat(path: &str) -> bool {
    path.strip_prefix("hooks.")
        .is_some_and(|rest| !rest.contains('.'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn merge_rules() {
        let mut base = json!({
            "a": {"b": 1, "c": [1]},
            "tools": {"exclude": ["x"]},
            "hooks": {"BeforeTool": [{"m": 1}]},
            "mcpServers": {"s": {"command": "a", "args": ["1"]}}
        });
        let over = json!({
            "a": {"c": [2]},
            "tools": {"exclude": ["x", "y"]},
            "hooks": {"BeforeTool": [{"m": 2}]},
            "mcpServers": {"s": {"url": "u"}}
        });
        merge_into(&mut base, &over, "");
        assert_eq!(
            base,
            json!({
                "a": {"b": 1, "c": [2]},
                "tools": {"exclude": ["x", "y"]},
                "hooks": {"BeforeTool": [{"m": 1}, {"m": 2}]},
                "mcpServers": {"s": {"url": "u"}}
            })
        );
    }
}
