//! `ui.*`: the terminal UI's settings that gemini-rs honours (the other
//! `ui.*` keys of Gemini CLI are accepted and ignored).

use super::defaults as d;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};

/// `ui.*`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct UiSettings {
    /// `ui.theme`: the colour theme's name (`/theme` chooses it).
    pub theme: Option<String>,
    /// `ui.accessibility`.
    pub accessibility: AccessibilitySettings,
    /// Keys not listed above.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `ui.accessibility.*`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct AccessibilitySettings {
    /// `ui.accessibility.screenReader`: start the terminal UI in screen
    /// reader mode, as `--screen-reader` does.
    #[schemars(extend("x-editable" = true, "x-label" = "Screen reader mode", "default" = d::SCREEN_READER))]
    pub screen_reader: Option<bool>,
    /// Keys not listed above.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
