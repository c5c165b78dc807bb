//! A `SKILL.md` front matter as the Agent Skills specification
//! (agentskills.io) defines it, every key checked against its limits:
//! `name` (1-64 lowercase letters, digits and single hyphens, not at either
//! end, equal to the skill's folder name), `description` (1-1024
//! characters), `license`, `compatibility` (1-500 characters), `metadata`
//! (a map of strings) and the experimental `allowed-tools` (tool names or
//! patterns, separated by spaces or commas, or a YAML list). Keys outside
//! the specification (Claude Code's `model`, `argument-hint`, ...) are left
//! alone.

use serde_yaml_ng::Value;
use std::collections::BTreeMap;

/// Longest `name`.
const MAX_NAME: usize = 64;
/// Longest `description`.
const MAX_DESCRIPTION: usize = 1024;
/// Longest `compatibility`.
const MAX_COMPATIBILITY: usize = 500;

/// The keys of a valid front matter.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct SkillMeta {
    /// `name`.
    pub name: String,
    /// `description`.
    pub description: String,
    /// `license`.
    pub license: Option<String>,
    /// `compatibility`: the environment the skill needs.
    pub compatibility: Option<String>,
    /// `metadata`: free string pairs.
    pub metadata: BTreeMap<String, String>,
    /// `allowed-tools`: what the model may call while the skill is active
    /// (`None` when the key is absent: no restriction).
    pub allowed_tools: Option<Vec<String>>,
}

/// Why a front matter is invalid: the key and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{key}` {problem}")]
pub struct KeyError {
    /// The key.
    pub key: &'static str,
    /// What is wrong.
    pub problem: String,
}

fn bad(key: &'static str, problem: impl Into<String>) -> KeyError {
    KeyError {
        key,
        problem: problem.into(),
    }
}

/// Checks the parsed front matter `yaml`; `folder` is the name of the
/// skill's folder (`None` for a built-in skill).
pub(crate) fn validate(yaml: &Value, folder: Option<&str>) -> Result<SkillMeta, KeyError> {
    let Value::Mapping(map) = yaml else {
        return Err(bad("name", "is missing (the front matter is not a map)"));
    };
    let get = |key: &str| map.get(Value::String(key.to_string()));
    let name = required_text(get("name"), "name", MAX_NAME)?;
    check_name(&name)?;
    if let Some(folder) = folder
        && folder != name
    {
        return Err(bad(
            "name",
            format!("`{name}` differs from its folder's name `{folder}`"),
        ));
    }
    let description = required_text(get("description"), "description", MAX_DESCRIPTION)?;
    let license = optional_text(get("license"), "license", usize::MAX)?;
    let compatibility = optional_text(get("compatibility"), "compatibility", MAX_COMPATIBILITY)?;
    let metadata = metadata(get("metadata"))?;
    let allowed_tools = get("allowed-tools").map(allowed_tools).transpose()?;
    Ok(SkillMeta {
        name,
        description,
        license,
        compatibility,
        metadata,
        allowed_tools,
    })
}

/// A string key that must be there, 1 to `max` characters once trimmed.
fn required_text(value: Option<&Value>, key: &'static str, max: usize) -> Result<String, KeyError> {
    optional_text(value, key, max)?.ok_or_else(|| bad(key, "is missing"))
}

/// A string key that may be absent; when present, 1 to `max` characters.
fn optional_text(
    value: Option<&Value>,
    key: &'static str,
    max: usize,
) -> Result<Option<String>, KeyError> {
    let text = match value {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::String(s)) => s.trim().to_string(),
        Some(_) => return Err(bad(key, "must be a string")),
    };
    let chars = text.chars().count();
    if chars == 0 {
        return Err(bad(key, "is empty"));
    }
    if chars > max {
        return Err(bad(key, format!("has {chars} characters (at most {max})")));
    }
    Ok(Some(text))
}

/// Lowercase letters, digits and hyphens; no hyphen first, last or twice
/// in a row.
fn check_name(name: &str) -> Result<(), KeyError> {
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-'))
    {
        return Err(bad(
            "name",
            format!("`{name}` has `{c}` (only lowercase letters, digits and hyphens)"),
        ));
    }
    if name.starts_with('-') || name.ends_with('-') {
        return Err(bad(
            "name",
            format!("`{name}` starts or ends with a hyphen"),
        ));
    }
    if name.contains("--") {
        return Err(bad("name", format!("`{name}` has two hyphens in a row")));
    }
    Ok(())
}

/// `metadata`: a map whose keys and values are strings (numbers and
/// booleans are taken as written).
fn metadata(value: Option<&Value>) -> Result<BTreeMap<String, String>, KeyError> {
    let map = match value {
        None | Some(Value::Null) => return Ok(BTreeMap::new()),
        Some(Value::Mapping(map)) => map,
        Some(_) => return Err(bad("metadata", "must be a map of strings")),
    };
    let scalar = |v: &Value| match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    };
    map.iter()
        .map(|(k, v)| match (scalar(k), scalar(v)) {
            (Some(k), Some(v)) => Ok((k, v)),
            (Some(k), None) => Err(bad("metadata", format!("`{k}` is not a string"))),
            _ => Err(bad("metadata", "has a key that is not a string")),
        })
        .collect()
}

/// `allowed-tools`: a string of entries separated by spaces or commas
/// (spaces inside parentheses belong to the entry: `Bash(git diff:*)`),
/// or a list of strings.
fn allowed_tools(value: &Value) -> Result<Vec<String>, KeyError> {
    let entries = match value {
        Value::String(s) => split_entries(s),
        Value::Sequence(list) => list
            .iter()
            .map(|v| match v {
                Value::String(s) => Ok(s.trim().to_string()),
                _ => Err(bad("allowed-tools", "must list strings")),
            })
            .collect::<Result<Vec<_>, _>>()?,
        _ => {
            return Err(bad(
                "allowed-tools",
                "must be a string or a list of strings",
            ));
        }
    };
    for entry in &entries {
        check_entry(entry)?;
    }
    Ok(entries.into_iter().filter(|e| !e.is_empty()).collect())
}

/// An entry is a tool name, optionally with `(specifier)` after it.
fn check_entry(entry: &str) -> Result<(), KeyError> {
    let name = match entry.split_once('(') {
        Some((name, rest)) if rest.ends_with(')') && !rest[..rest.len() - 1].contains(')') => name,
        Some(_) => {
            return Err(bad(
                "allowed-tools",
                format!("has `{entry}`, whose parentheses do not close"),
            ));
        }
        None => entry,
    };
    let valid = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '*' | '.'));
    if !valid {
        return Err(bad(
            "allowed-tools",
            format!("has `{entry}`, which is not a tool name"),
        ));
    }
    Ok(())
}

/// Splits on spaces and commas outside parentheses.
fn split_entries(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut depth = 0usize;
    for c in text.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ => {}
        }
        if depth == 0 && (c.is_whitespace() || c == ',') {
            if !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
        } else {
            current.push(c);
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(yaml: &str, folder: Option<&str>) -> Result<SkillMeta, KeyError> {
        let value: Value = serde_yaml_ng::from_str(yaml).unwrap_or(Value::Null);
        validate(&value, folder)
    }

    #[test]
    fn every_key_is_read() {
        let meta = check(
            "name: git-log\ndescription: Reads the log.\nlicense: MIT\ncompatibility: needs git\nmetadata:\n  author: me\n  version: 1.0\nallowed-tools: Bash(git log:*) Read, Grep\n",
            Some("git-log"),
        )
        .unwrap_or_default();
        assert_eq!(meta.license.as_deref(), Some("MIT"));
        assert_eq!(meta.compatibility.as_deref(), Some("needs git"));
        assert_eq!(
            meta.metadata.get("version").map(String::as_str),
            Some("1.0")
        );
        assert_eq!(
            meta.allowed_tools,
            Some(vec![
                "Bash(git log:*)".to_string(),
                "Read".to_string(),
                "Grep".to_string()
            ])
        );
    }

    #[test]
    fn each_limit_names_its_key() {
        let key = |yaml: &str, folder| check(yaml, folder).map(|_| "").unwrap_or_else(|e| e.key);
        assert_eq!(key("name: Pdf\ndescription: d\n", None), "name");
        assert_eq!(key("name: -pdf\ndescription: d\n", None), "name");
        assert_eq!(key("name: a--b\ndescription: d\n", None), "name");
        assert_eq!(
            key(&format!("name: {}\ndescription: d\n", "a".repeat(65)), None),
            "name"
        );
        assert_eq!(key("name: pdf\ndescription: d\n", Some("other")), "name");
        assert_eq!(key("name: pdf\n", None), "description");
        assert_eq!(
            key(
                &format!("name: pdf\ndescription: {}\n", "d".repeat(1025)),
                None
            ),
            "description"
        );
        assert_eq!(
            key(
                &format!(
                    "name: pdf\ndescription: d\ncompatibility: {}\n",
                    "c".repeat(501)
                ),
                None
            ),
            "compatibility"
        );
        assert_eq!(
            key("name: pdf\ndescription: d\nlicense: [a]\n", None),
            "license"
        );
        assert_eq!(
            key("name: pdf\ndescription: d\nmetadata: [a]\n", None),
            "metadata"
        );
        assert_eq!(
            key("name: pdf\ndescription: d\nmetadata:\n  a: [b]\n", None),
            "metadata"
        );
        assert_eq!(
            key("name: pdf\ndescription: d\nallowed-tools: Bash(git\n", None),
            "allowed-tools"
        );
        assert_eq!(
            key("name: pdf\ndescription: d\nallowed-tools: 3\n", None),
            "allowed-tools"
        );
        assert_eq!(
            key("name: pdf\ndescription: d\nmodel: opus\n", Some("pdf")),
            ""
        );
    }
}
