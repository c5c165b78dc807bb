//! The JSON Schema of `settings.json`, derived from the typed settings
//! ([`super::TypedSettings`]) and committed as
//! `docs/schema/settings.schema.json`. Everything else about a key comes
//! from it: the `/settings` editor offers the keys marked `x-editable`
//! (with their `x-label`), `docs/settings.md`'s table of typed keys is
//! [`settings_table`], and [`unknown_warnings`] tells which keys of a settings
//! file no version reads. Defaults are the `default` keywords, written from
//! [`super::defaults`]. A JSON Schema is an open shape: it is walked as a
//! `Value`.

use super::TypedSettings;
use super::lenient::{self, Segment};
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::path::Path;
use std::sync::OnceLock;

/// The keys of Gemini CLI 0.61.0 and 0.27.4, from their own settings
/// schemas (`e2e/settings-reference-keys.mjs` writes the list); ` *` marks
/// a key whose children are free.
const REFERENCE_KEYS: &str = include_str!("reference_keys.txt");

/// Keys gemini-rs reads under an old name and moves (see `legacy`).
const LEGACY_KEYS: &[&str] = &[
    "toolDiscoveryCommand",
    "toolCallCommand",
    "mcpServerCommand",
];

/// The schema of `settings.json`, as committed.
pub fn settings_schema() -> Value {
    let mut schema = serde_json::to_value(schemars::schema_for!(TypedSettings)).unwrap_or_default();
    if let Some(root) = schema.as_object_mut() {
        root.insert("title".into(), json!("gemini-rs settings.json"));
        root.insert(
            "description".into(),
            json!(
                "Settings of gemini-rs (and of Gemini CLI 0.61 / 0.27.4: keys not listed here are accepted). Keys marked x-editable are offered by /settings."
            ),
        );
        if let Some(Value::Object(props)) = root.get_mut("properties") {
            let mut with_schema = Map::new();
            with_schema.insert(
                "$schema".into(),
                json!({"type": "string", "description": "The schema this file follows (for editors)."}),
            );
            with_schema.append(props);
            *props = with_schema;
        }
    }
    schema
}

/// The schema, built once.
fn schema() -> &'static Value {
    static SCHEMA: OnceLock<Value> = OnceLock::new();
    SCHEMA.get_or_init(settings_schema)
}

/// `node` with `$ref`s followed and an optional value's `null` branch
/// dropped.
fn resolve<'a>(root: &'a Value, node: &'a Value) -> &'a Value {
    if let Some(name) = node
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix("#/$defs/"))
        && let Some(target) = root.get("$defs").and_then(|d| d.get(name))
    {
        return resolve(root, target);
    }
    let branches = node.get("anyOf").or_else(|| node.get("oneOf"));
    if node.get("type").is_none()
        && let Some(Value::Array(options)) = branches
    {
        let real: Vec<&Value> = options
            .iter()
            .filter(|o| o.get("type") != Some(&json!("null")))
            .collect();
        if let [only] = real.as_slice() {
            return resolve(root, only);
        }
    }
    node
}

/// The object's listed properties, when `node` is a settings object
/// (rather than a map of free keys or a value).
fn properties(node: &Value) -> Option<&Map<String, Value>> {
    node.get("properties").and_then(Value::as_object)
}

/// What a key holds, as the editor edits it.
#[derive(Debug, Clone, PartialEq)]
pub enum SettingKind {
    /// `true` or `false`, with the default.
    Bool(bool),
    /// One of `values`; `default` when unset.
    Choice {
        /// The values, in the schema's order.
        values: Vec<String>,
        /// The default.
        default: String,
    },
    /// A whole number, with its default if it has one.
    Integer(Option<i64>),
    /// A number, with its default if it has one.
    Number(Option<f64>),
    /// Text, with its default if it has one.
    Text(Option<String>),
}

/// A key the schema marks `x-editable`.
#[derive(Debug, Clone, PartialEq)]
pub struct EditableSetting {
    /// The dotted key, e.g. `general.checkpointing.enabled`.
    pub key: String,
    /// Its `x-label`.
    pub label: String,
    /// Its type and default.
    pub kind: SettingKind,
}

/// One typed key that holds a value (not a settings object).
struct Leaf<'a> {
    key: String,
    node: &'a Value,
    /// The field's own annotations (description, default, x-...), which
    /// sit beside a `$ref` rather than in its target.
    field: &'a Value,
}

/// Every typed key holding a value, in the schema's order.
fn leaves(root: &Value) -> Vec<Leaf<'_>> {
    fn walk<'a>(root: &'a Value, node: &'a Value, prefix: &str, out: &mut Vec<Leaf<'a>>) {
        let Some(props) = properties(node) else {
            return;
        };
        for (name, field) in props {
            let key = if prefix.is_empty() {
                name.clone()
            } else {
                format!("{prefix}.{name}")
            };
            let target = resolve(root, field);
            if properties(target).is_some() {
                walk(root, target, &key, out);
            } else {
                out.push(Leaf {
                    key,
                    node: target,
                    field,
                });
            }
        }
    }
    let mut out = Vec::new();
    walk(root, root, "", &mut out);
    out
}

/// The JSON types a leaf accepts, without `null`.
fn types(node: &Value) -> Vec<String> {
    let named = |v: &Value| -> Vec<String> {
        match v {
            Value::String(s) => vec![s.clone()],
            Value::Array(a) => a
                .iter()
                .filter_map(|t| t.as_str().map(String::from))
                .collect(),
            _ => Vec::new(),
        }
    };
    let mut out = node.get("type").map(named).unwrap_or_default();
    if let Some(Value::Array(options)) = node.get("anyOf").or_else(|| node.get("oneOf")) {
        out.extend(
            options
                .iter()
                .flat_map(|o| o.get("type").map(named).unwrap_or_default()),
        );
    }
    out.retain(|t| t != "null");
    out.dedup();
    out
}

/// The keys `/settings` offers, in the schema's order.
pub fn editable_settings() -> Vec<EditableSetting> {
    let root = schema();
    leaves(root)
        .into_iter()
        .filter(|l| l.field.get("x-editable") == Some(&Value::Bool(true)))
        .filter_map(|l| {
            let default = l.field.get("default");
            let types = types(l.node);
            let has = |t: &str| types.iter().any(|x| x == t);
            let kind = if let Some(Value::Array(values)) = l.field.get("enum") {
                let values: Vec<String> = values
                    .iter()
                    .filter_map(|v| v.as_str().map(String::from))
                    .collect();
                let default = default
                    .and_then(Value::as_str)
                    .map(String::from)
                    .or_else(|| values.first().cloned())?;
                SettingKind::Choice { values, default }
            } else if has("boolean") {
                SettingKind::Bool(default.and_then(Value::as_bool).unwrap_or(false))
            } else if has("integer") {
                SettingKind::Integer(default.and_then(Value::as_i64))
            } else if has("number") {
                SettingKind::Number(default.and_then(Value::as_f64))
            } else if has("string") {
                SettingKind::Text(default.and_then(Value::as_str).map(String::from))
            } else {
                return None;
            };
            let label = l
                .field
                .get("x-label")
                .and_then(Value::as_str)
                .unwrap_or(&l.key)
                .to_string();
            Some(EditableSetting {
                key: l.key,
                label,
                kind,
            })
        })
        .collect()
}

/// The Markdown table of every typed key (key, type, default, meaning),
/// as `docs/settings.md` carries it between its `settings-table` marks.
pub fn settings_table() -> String {
    let root = schema();
    let mut out = String::from("| Key | Type | Default | Meaning |\n|---|---|---|---|\n");
    for leaf in leaves(root) {
        if leaf.key == "$schema" {
            continue;
        }
        let mut kinds = types(leaf.node);
        if kinds.is_empty() {
            kinds.push("any".into());
        }
        let default = match leaf.field.get("default") {
            None | Some(Value::Null) => String::new(),
            Some(d) => format!("`{d}`"),
        };
        let meaning = meaning(&leaf.key, leaf.field);
        let edit = if leaf.field.get("x-editable") == Some(&Value::Bool(true)) {
            " (in `/settings`)"
        } else {
            ""
        };
        out.push_str(&format!(
            "| `{}` | {} | {default} | {meaning}{edit} |\n",
            leaf.key,
            kinds.join(" or ")
        ));
    }
    out
}

/// A key's description for the table, without the key's own name that
/// the doc comments start with.
fn meaning(key: &str, field: &Value) -> String {
    let text = field
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or("")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let last = key.rsplit('.').next().unwrap_or(key);
    let mut rest = text.as_str();
    for name in [key, last] {
        if let Some(after) = rest.strip_prefix(&format!("`{name}`")) {
            rest = after.trim_start_matches([':', '.']).trim_start();
            break;
        }
    }
    rest.replace('|', "\\|")
}

/// The reference releases' keys: key -> whether its children are free.
fn reference() -> &'static HashMap<&'static str, bool> {
    static KEYS: OnceLock<HashMap<&'static str, bool>> = OnceLock::new();
    KEYS.get_or_init(|| {
        REFERENCE_KEYS
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| match l.strip_suffix(" *") {
                Some(key) => (key, true),
                None => (l, false),
            })
            .collect()
    })
}

/// The keys of `file` (one settings file's value) that neither gemini-rs
/// nor Gemini CLI 0.61 / 0.27.4 reads, outermost first; below a free map
/// (`mcpServers`, `hooks`, `model.providers`, ...) nothing is checked. The
/// top-level `$schema` is known.
fn unknown_paths(file: &Value) -> Vec<Vec<String>> {
    let root = schema();
    let mut out = Vec::new();
    if let Value::Object(map) = file {
        walk_unknown(root, Some(root), &mut Vec::new(), map, &mut out);
    }
    out
}

/// One warning per unknown key of the settings file `path` (holding
/// `file`), naming the file, the key and where it is.
pub(crate) fn unknown_warnings(path: &Path, file: &Value) -> Vec<String> {
    unknown_paths(file)
        .into_iter()
        .map(|keys| {
            let segments: Vec<Segment> = keys.iter().cloned().map(Segment::Key).collect();
            let at = match lenient::position_in_file(path, &segments) {
                Some((line, column)) => format!(" at line {line}, column {column}"),
                None => String::new(),
            };
            format!(
                "Unknown setting '{}' in {}{at}; it is ignored.",
                keys.join("."),
                path.display()
            )
        })
        .collect()
}

fn walk_unknown(
    root: &Value,
    ours: Option<&Value>,
    path: &mut Vec<String>,
    map: &Map<String, Value>,
    out: &mut Vec<Vec<String>>,
) {
    for (name, value) in map {
        let top = path.is_empty();
        path.push(name.clone());
        let key = path.join(".");
        let typed = ours
            .and_then(properties)
            .and_then(|p| p.get(name))
            .map(|f| resolve(root, f));
        let theirs = reference().get(key.as_str()).copied();
        let legacy = top && LEGACY_KEYS.contains(&name.as_str());
        if typed.is_none() && theirs.is_none() && !legacy {
            out.push(path.clone());
        } else {
            let free = theirs == Some(true) || typed.is_some_and(|t| properties(t).is_none());
            if let (Value::Object(children), false) = (value, free) {
                walk_unknown(root, typed, path, children, out);
            }
        }
        path.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    const TABLE_START: &str = "<!-- settings-table:start -->\n";
    const TABLE_END: &str = "<!-- settings-table:end -->";

    fn docs(name: &str) -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../docs")
            .join(name)
    }

    /// `docs/schema/settings.schema.json` and `docs/settings.md`'s table
    /// match the typed settings; `UPDATE_SCHEMAS=1 cargo test -p
    /// gemini-rs-core config::schema` rewrites both.
    #[test]
    fn the_committed_schema_and_table_match_the_types() {
        let update = std::env::var_os("UPDATE_SCHEMAS").is_some();
        let generated = serde_json::to_string_pretty(&settings_schema()).unwrap() + "\n";
        let path = docs("schema/settings.schema.json");
        if update {
            std::fs::write(&path, &generated).unwrap();
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == generated,
            "{} is out of date: run `UPDATE_SCHEMAS=1 cargo test -p gemini-rs-core config::schema` and commit it",
            path.display()
        );
        let path = docs("settings.md");
        let text = std::fs::read_to_string(&path).unwrap();
        let (Some(start), Some(end)) = (text.find(TABLE_START), text.find(TABLE_END)) else {
            panic!("{} lacks its settings-table marks", path.display());
        };
        let start = start + TABLE_START.len();
        let table = settings_table();
        if update {
            let new = format!("{}{table}{}", &text[..start], &text[end..]);
            std::fs::write(&path, new).unwrap();
        } else {
            assert!(
                text[start..end] == table,
                "{}'s table is out of date: run `UPDATE_SCHEMAS=1 cargo test -p gemini-rs-core config::schema`",
                path.display()
            );
        }
    }

    /// Every key of the schema is typed: a settings file holding each
    /// editable key at its default validates and reads back.
    #[test]
    fn the_schema_validates_its_own_defaults() {
        let validator = jsonschema::validator_for(&settings_schema()).unwrap();
        let mut file = json!({"$schema": "https://example.invalid/settings.schema.json"});
        for s in editable_settings() {
            let value = match s.kind {
                SettingKind::Bool(b) => json!(b),
                SettingKind::Choice { default, .. } => json!(default),
                SettingKind::Integer(n) => json!(n.unwrap_or(1)),
                SettingKind::Number(n) => json!(n.unwrap_or(1.0)),
                SettingKind::Text(t) => json!(t.unwrap_or_else(|| "x".into())),
            };
            let mut here = &mut file;
            let parts: Vec<&str> = s.key.split('.').collect();
            for p in &parts[..parts.len() - 1] {
                here = here
                    .as_object_mut()
                    .unwrap()
                    .entry(p.to_string())
                    .or_insert_with(|| json!({}));
            }
            here[parts[parts.len() - 1]] = value;
        }
        let errors: Vec<String> = validator
            .iter_errors(&file)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{errors:?}");
        assert!(unknown_paths(&file).is_empty());
        assert!(!validator.is_valid(&json!({"model": {"maxSessionTurns": "ten"}})));
    }

    #[test]
    fn unknown_keys_spare_typed_and_reference_keys() {
        let file = json!({
            "$schema": "x",
            "model": {"name": "m", "nmae": "typo", "providers": {"p": {"anything": 1}}},
            "ui": {"hideBanner": true, "footer": {"hideCWD": true}, "bogus": 1},
            "mcpServers": {"s": {"whatever": 1}},
            "toolCallCommand": "c",
            "general": {"checkpointing": {"enabled": true, "x": 1}},
            "hooks": {"BeforeTool": []},
            "madeUp": {"a": 1}
        });
        let unknown: Vec<String> = unknown_paths(&file).iter().map(|p| p.join(".")).collect();
        assert_eq!(
            unknown,
            [
                "model.nmae",
                "ui.bogus",
                "general.checkpointing.x",
                "madeUp"
            ]
        );
    }

    /// A file setting every key of Gemini CLI 0.61.0's and 0.27.4's own
    /// schemas gets no unknown-key warning.
    #[test]
    fn every_reference_key_is_known() {
        let mut file = json!({});
        for key in reference().keys() {
            let mut here = &mut file;
            for part in key.split('.') {
                if !here.is_object() {
                    *here = json!({});
                }
                here = here
                    .as_object_mut()
                    .unwrap()
                    .entry(part.to_string())
                    .or_insert(json!(1));
            }
        }
        assert!(reference().len() > 250);
        assert_eq!(unknown_paths(&file), Vec::<Vec<String>>::new());
    }

    #[test]
    fn editable_keys_carry_their_defaults() {
        let all = editable_settings();
        let find = |k: &str| all.iter().find(|s| s.key == k).map(|s| s.kind.clone());
        assert_eq!(
            find("general.checkpointing.enabled"),
            Some(SettingKind::Bool(super::super::defaults::CHECKPOINTING))
        );
        assert_eq!(
            find("model.maxSessionTurns"),
            Some(SettingKind::Integer(Some(-1)))
        );
        assert_eq!(
            find("model.compressionThreshold"),
            Some(SettingKind::Number(Some(0.5)))
        );
        assert_eq!(
            find("general.defaultApprovalMode"),
            Some(SettingKind::Choice {
                values: vec!["default".into(), "auto_edit".into(), "plan".into()],
                default: "default".into()
            })
        );
        assert_eq!(find("general.vimMode"), Some(SettingKind::Bool(false)));
        assert_eq!(find("model.name"), Some(SettingKind::Text(None)));
        assert!(find("tools.allowed").is_none());
    }
}
