//! The parts of one settings layer read apart from the merged settings:
//! its `mcpServers` and `hooks` objects, and an entry's `command`. A part
//! of the wrong type reads as absent (the merged settings report it).

use super::lenient::{from_object, wrong_type_as_none as lenient};
use serde::Deserialize;
use serde_json::{Map, Value};

/// One layer's `mcpServers` and `hooks`.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct LayerView {
    /// `mcpServers`: server name -> its entry.
    #[serde(deserialize_with = "lenient")]
    pub mcp_servers: Option<Map<String, Value>>,
    /// `hooks`: event name -> its hook groups.
    #[serde(deserialize_with = "lenient")]
    pub hooks: Option<Map<String, Value>>,
}

impl LayerView {
    /// The view of a layer's JSON.
    pub fn of(layer: &Value) -> Self {
        from_object(layer)
    }
}

/// An MCP server entry's or a hook's `command`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct CommandEntry {
    /// The command line (absent for other transports).
    #[serde(deserialize_with = "lenient")]
    pub command: Option<String>,
}

impl CommandEntry {
    /// The `command` of an entry, when it is a string.
    pub fn command_of(entry: &Value) -> Option<String> {
        from_object::<CommandEntry>(entry).command
    }
}

/// One group of `hooks.<Event>[]`, as far as its commands go.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct HookGroupView {
    /// The group's hooks (each read with [`CommandEntry`]).
    #[serde(deserialize_with = "lenient")]
    pub hooks: Option<Vec<Value>>,
}
