//! An extension's files as Gemini CLI writes them: the manifest
//! (`gemini-extension.json`) and the install record
//! (`.gemini-extension-install.json`). Both are read leniently, as Gemini
//! CLI's JavaScript reads them: a field of the wrong type reads as absent.

use crate::lenient::{from_object, present, strings_of_list, wrong_type_as_none};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

/// `gemini-extension.json`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Manifest {
    /// The extension's name.
    #[serde(default, deserialize_with = "wrong_type_as_none")]
    pub name: Option<String>,
    /// Its version.
    #[serde(default, deserialize_with = "wrong_type_as_none")]
    pub version: Option<String>,
    /// Its MCP servers by name, each entry as written (read by the MCP
    /// server configuration's own reader).
    #[serde(default, deserialize_with = "wrong_type_as_none")]
    pub mcp_servers: Option<Map<String, Value>>,
    /// Tool names (or `name(args)`) to hide.
    #[serde(default, deserialize_with = "strings_of_list")]
    pub exclude_tools: Option<Vec<String>>,
    /// Its context files: one name or a list.
    #[serde(default, deserialize_with = "one_or_many")]
    pub context_file_name: Option<Vec<String>>,
    /// Its plan-mode section.
    #[serde(default, deserialize_with = "wrong_type_as_none")]
    pub plan: Option<PlanSection>,
    /// The values it asks for at install time.
    #[serde(default, deserialize_with = "wrong_type_as_none")]
    settings: Option<Vec<Value>>,
}

/// A manifest's `plan`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct PlanSection {
    /// `directory`, as written (checked by the reader, which names a bad
    /// value in its warning).
    #[serde(default, deserialize_with = "present")]
    pub directory: Option<Value>,
}

/// One of a manifest's `settings`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ManifestSetting {
    /// Its label.
    #[serde(default, deserialize_with = "wrong_type_as_none")]
    pub name: Option<String>,
    /// What it is for.
    #[serde(default, deserialize_with = "wrong_type_as_none")]
    pub description: Option<String>,
    /// The environment variable that carries it.
    #[serde(default, deserialize_with = "wrong_type_as_none")]
    pub env_var: Option<String>,
    /// Whether its value is a secret (listed as `***`).
    #[serde(default, deserialize_with = "wrong_type_as_none")]
    pub sensitive: Option<bool>,
}

impl Manifest {
    /// The manifest in `value` (its default when it is not an object).
    pub fn from_value(value: &Value) -> Self {
        from_object(value)
    }

    /// Its `settings`, in order.
    pub fn settings(&self) -> Vec<ManifestSetting> {
        self.settings.iter().flatten().map(from_object).collect()
    }
}

/// `.gemini-extension-install.json`: where an installed extension came
/// from.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct InstallRecord {
    /// A folder, a git URL, or the linked folder.
    #[serde(default, deserialize_with = "wrong_type_as_none")]
    pub source: Option<String>,
    /// `local`, `git` or `link`.
    #[serde(rename = "type", default, deserialize_with = "wrong_type_as_none")]
    pub kind: Option<String>,
}

impl InstallRecord {
    /// The record in `value` (its default when it is not an object).
    pub fn from_value(value: &Value) -> Self {
        from_object(value)
    }

    /// Whether it records a linked extension.
    pub fn is_link(&self) -> bool {
        self.kind.as_deref() == Some("link")
    }
}

/// A string as a list of one; a list keeps its strings; anything else
/// reads as absent.
fn one_or_many<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<String>>, D::Error> {
    match Value::deserialize(d)? {
        Value::String(s) => Ok(Some(vec![s])),
        other => strings_of_list(other).map_err(serde::de::Error::custom),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_manifest_reads_leniently() {
        let m = Manifest::from_value(&json!({"name": "x", "version": 3,
            "excludeTools": ["a", 1], "contextFileName": "C.md", "plan": {"directory": 5},
            "settings": [{"envVar": "K", "name": "Key"}, "odd"]}));
        assert_eq!(m.name.as_deref(), Some("x"));
        assert_eq!(m.version, None);
        assert_eq!(m.exclude_tools, Some(vec!["a".to_string()]));
        assert_eq!(m.context_file_name, Some(vec!["C.md".to_string()]));
        assert_eq!(m.plan.as_ref().unwrap().directory, Some(json!(5)));
        let settings = m.settings();
        assert_eq!(settings.len(), 2);
        assert_eq!(settings[0].env_var.as_deref(), Some("K"));
        assert_eq!(settings[1], ManifestSetting::default());
        assert_eq!(Manifest::from_value(&json!([1])), Manifest::default());
        let many = Manifest::from_value(&json!({"contextFileName": ["A.md", 2], "plan": "x"}));
        assert_eq!(many.context_file_name, Some(vec!["A.md".to_string()]));
        assert_eq!(many.plan, None);
    }

    #[test]
    fn an_install_record_round_trips() {
        let r = InstallRecord {
            source: Some("/src".into()),
            kind: Some("link".into()),
        };
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(v, json!({"source": "/src", "type": "link"}));
        assert!(InstallRecord::from_value(&v).is_link());
    }
}
