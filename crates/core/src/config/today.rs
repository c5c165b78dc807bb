//! Settings that today's Gemini CLI reads for features gemini-rs has,
//! under their current names: `general.defaultApprovalMode`,
//! `skills.enabled`, `tools.confirmationRequired` and
//! `modelConfigs.customAliases` (the keys v0.27.4 had under other names
//! are moved to these by [`super::legacy`]). The full old/new table is
//! `docs/settings.md`.

use super::Settings;
use crate::catalogue::dialect::{DIALECT_ENV, Dialect};
use gemini_rs_protocol::events::ApprovalMode;
use serde::Deserialize;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// `modelConfigs.*`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct ModelConfigsSettings {
    /// `modelConfigs.customAliases`: a name `--model` (or `model.name`)
    /// may use, standing for a model and its request settings.
    pub custom_aliases: BTreeMap<String, CustomAlias>,
    /// Keys not listed above.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One entry of `modelConfigs.customAliases`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct CustomAlias {
    /// Another alias whose settings this one starts from.
    pub extends: Option<String>,
    /// The model and its request settings.
    pub model_config: AliasModelConfig,
}

/// `modelConfig` of a custom alias.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct AliasModelConfig {
    /// The model the alias stands for.
    pub model: Option<String>,
    /// `generationConfig` fields (`thinkingConfig`, `temperature`, ...)
    /// laid over the defaults of every request.
    pub generate_content_config: Map<String, Value>,
}

/// A custom alias resolved through its `extends` chain.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ResolvedAlias {
    /// The model to call.
    pub model: String,
    /// Request settings to lay over the model's defaults.
    pub generate_content_config: Map<String, Value>,
}

/// How many `extends` links are followed (a loop ends there).
const MAX_EXTENDS: usize = 16;

impl Settings {
    /// The approval mode asked for by `general.defaultApprovalMode`, when
    /// no flag names one: `default`, `auto_edit` or `plan`. As in today's
    /// Gemini CLI, `yolo` is only for the command line; it and unknown
    /// values are left out (with a warning, [`Settings::today_notes`]).
    pub fn default_approval_mode(&self) -> Option<ApprovalMode> {
        match self.typed().general.default_approval_mode.as_deref()? {
            "default" => Some(ApprovalMode::Default),
            "auto_edit" => Some(ApprovalMode::AutoEdit),
            "plan" => Some(ApprovalMode::Plan),
            _ => None,
        }
    }

    /// Whether agent skills are on: `skills.enabled` (default true).
    pub fn skills_enabled(&self) -> bool {
        self.typed()
            .skills
            .enabled
            .unwrap_or(super::defaults::SKILLS_ENABLED)
    }

    /// `tools.confirmationRequired`.
    pub fn tools_confirmation_required(&self) -> Vec<String> {
        self.typed().tools.confirmation_required.clone()
    }

    /// `name` as a `modelConfigs.customAliases` entry: its model (the
    /// nearest in the `extends` chain that names one, else `name` itself)
    /// and its request settings, the extended alias's first and each
    /// child's laid over them. `None` when `name` is no custom alias.
    pub fn model_alias(&self, name: &str) -> Option<ResolvedAlias> {
        let aliases = &self.typed().model_configs.custom_aliases;
        let mut chain = vec![aliases.get(name)?];
        while let Some(parent) = chain
            .last()
            .and_then(|a| a.extends.as_deref())
            .and_then(|p| aliases.get(p))
        {
            if chain.len() >= MAX_EXTENDS {
                break;
            }
            chain.push(parent);
        }
        let model = chain
            .iter()
            .find_map(|a| a.model_config.model.clone())
            .unwrap_or_else(|| name.to_string());
        let mut config = Map::new();
        for alias in chain.iter().rev() {
            merge(&mut config, &alias.model_config.generate_content_config);
        }
        Some(ResolvedAlias {
            model,
            generate_content_config: config,
        })
    }

    /// The session's dialect: `env` (the value of `GEMINI_RS_DIALECT`),
    /// else `general.dialect`, else today's; a value naming neither
    /// dialect is passed over with a warning.
    pub fn dialect(&self, env: Option<&str>) -> (Dialect, Option<String>) {
        let setting = self.typed().general.dialect.as_deref();
        let mut note = None;
        for (source, value) in [(DIALECT_ENV, env), ("general.dialect", setting)] {
            let Some(value) = value else { continue };
            match Dialect::parse(value) {
                Some(dialect) => return (dialect, note),
                None => {
                    note.get_or_insert(format!(
                        "{source} is \"{value}\", which is not one of today or 0.27; ignored."
                    ));
                }
            }
        }
        (Dialect::Today, note)
    }

    /// Warnings about today's keys holding values that cannot be used.
    pub fn today_notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        if let Some(mode) = &self.typed().general.default_approval_mode
            && self.default_approval_mode().is_none()
        {
            notes.push(format!(
                "Setting 'general.defaultApprovalMode' has the value \"{mode}\", which is not one of default, auto_edit or plan (yolo only from the command line); the default mode is used."
            ));
        }
        notes
    }
}

/// Lays `over` onto `base`, objects key by key, other values replaced.
pub(crate) fn merge(base: &mut Map<String, Value>, over: &Map<String, Value>) {
    for (key, value) in over {
        match (base.get_mut(key), value) {
            (Some(Value::Object(b)), Value::Object(o)) => merge(b, o),
            _ => {
                base.insert(key.clone(), value.clone());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn dialect_from_environment_then_setting() {
        let s = |v: Value| Settings::from_value(v);
        let old = s(serde_json::json!({"general": {"dialect": "0.27"}}));
        assert_eq!(old.dialect(None).0, Dialect::V027);
        assert_eq!(old.dialect(Some("today")).0, Dialect::Today);
        let (d, note) = old.dialect(Some("0.3"));
        assert_eq!(d, Dialect::V027);
        assert!(note.is_some_and(|n| n.starts_with("GEMINI_RS_DIALECT is \"0.3\"")));
        assert_eq!(
            s(serde_json::json!({})).dialect(None),
            (Dialect::Today, None)
        );
    }

    #[test]
    fn approval_mode_from_settings() {
        let mode = |v: Value| Settings::from_value(v).default_approval_mode();
        assert_eq!(
            mode(json!({"general": {"defaultApprovalMode": "auto_edit"}})),
            Some(ApprovalMode::AutoEdit)
        );
        assert_eq!(
            mode(json!({"tools": {"approvalMode": "plan"}})),
            Some(ApprovalMode::Plan)
        );
        let yolo = Settings::from_value(json!({"general": {"defaultApprovalMode": "yolo"}}));
        assert_eq!(yolo.default_approval_mode(), None);
        assert_eq!(yolo.today_notes().len(), 1);
        assert_eq!(mode(json!({})), None);
    }

    #[test]
    fn aliases_extend_and_override() {
        let s = Settings::from_value(json!({"modelConfigs": {"customAliases": {
            "base": {"modelConfig": {"model": "gemini-3-pro-preview",
                "generateContentConfig": {"temperature": 0.2, "thinkingConfig": {"includeThoughts": true}}}},
            "deep": {"extends": "base", "modelConfig": {
                "generateContentConfig": {"thinkingConfig": {"thinkingLevel": "LOW"}}}},
            "loop": {"extends": "loop"}
        }}}));
        let deep = s.model_alias("deep").unwrap();
        assert_eq!(deep.model, "gemini-3-pro-preview");
        assert_eq!(
            Value::Object(deep.generate_content_config),
            json!({"temperature": 0.2, "thinkingConfig": {"includeThoughts": true, "thinkingLevel": "LOW"}})
        );
        assert_eq!(s.model_alias("loop").unwrap().model, "loop");
        assert!(s.model_alias("gemini-2.5-pro").is_none());
    }

    #[test]
    fn skills_switch() {
        assert!(Settings::from_value(json!({})).skills_enabled());
        assert!(!Settings::from_value(json!({"skills": {"enabled": false}})).skills_enabled());
        assert!(!Settings::from_value(json!({"experimental": {"skills": false}})).skills_enabled());
    }
}
