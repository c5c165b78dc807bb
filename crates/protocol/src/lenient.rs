//! Lenient reading of user-written JSON (settings entries, MCP server
//! entries, hook output): a field of the wrong type reads as absent
//! instead of failing the whole object. Shared by the engine and the MCP
//! client.

use serde::de::{self, DeserializeOwned};
use serde_json::Value;

/// For `#[serde(deserialize_with)]` on an `Option` field: a value of
/// another type reads as absent instead of failing the whole object.
pub fn wrong_type_as_none<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: de::Deserializer<'de>,
    T: DeserializeOwned,
{
    let value = <Value as de::Deserialize>::deserialize(d)?;
    Ok(T::deserialize(value).ok())
}

/// For `#[serde(deserialize_with)]`: a list keeps its strings and drops
/// other members; anything but a list reads as absent.
pub fn strings_of_list<'de, D>(d: D) -> Result<Option<Vec<String>>, D::Error>
where
    D: de::Deserializer<'de>,
{
    Ok(match <Value as de::Deserialize>::deserialize(d)? {
        Value::Array(items) => Some(
            items
                .into_iter()
                .filter_map(|v| match v {
                    Value::String(s) => Some(s),
                    _ => None,
                })
                .collect(),
        ),
        _ => None,
    })
}

/// For `#[serde(default, deserialize_with)]` on an `Option<Value>` field:
/// a field that is there reads as present whatever its value, `null`
/// included (serde alone reads a `null` as absent).
pub fn present<'de, D>(d: D) -> Result<Option<Value>, D::Error>
where
    D: de::Deserializer<'de>,
{
    <Value as de::Deserialize>::deserialize(d).map(Some)
}

/// `T` read strictly from `value`; the error names the field that does
/// not fit, by its path (`message.parts[0].text: invalid type: ...`).
pub fn typed<T: DeserializeOwned>(value: Value) -> Result<T, FieldPathError> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        FieldPathError {
            path: if path == "." { String::new() } else { path },
            message: e.into_inner().to_string(),
        }
    })
}

/// Why a value does not fit its type, and where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{message}", if path.is_empty() { String::new() } else { format!("{path}: ") })]
pub struct FieldPathError {
    /// The path of the field (empty for the value itself).
    pub path: String,
    /// What is wrong with it.
    pub message: String,
}

/// `T` read from a JSON object; its default for anything else (serde would
/// read an array positionally) or when the object does not fit.
pub fn from_object<T: DeserializeOwned + Default>(v: &Value) -> T {
    if v.is_object() {
        T::deserialize(v).unwrap_or_default()
    } else {
        T::default()
    }
}
