//! The `hooks` section of the settings (§9.1): events, definitions, command
//! hooks, the on/off switches and the disabled list.

use crate::config::lenient::{from_object, wrong_type_as_none as lenient};
use crate::config::{Settings, TypedSettings};
use serde::Deserialize;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

pub use super::event::HookEvent;

/// Default hook timeout in milliseconds.
pub const DEFAULT_TIMEOUT_MS: u64 = 60_000;

/// Keys inside `hooks` that are settings, not events.
const NON_EVENT_KEYS: [&str; 3] = ["enabled", "disabled", "notifications"];

/// The contract a hook was written for: Gemini CLI's, or Claude Code's
/// (declared under a Claude Code event name, or read from
/// `.claude/settings.json`): its input, matchers and output.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum HookDialect {
    /// Gemini CLI's names and fields.
    #[default]
    Gemini,
    /// Claude Code's tool names, parameter names, fields and exit codes.
    Claude,
}

impl HookEvent {
    /// The name hooks of `dialect` know the event by.
    pub fn name_in(self, dialect: HookDialect) -> &'static str {
        match dialect {
            HookDialect::Gemini => self.as_str(),
            HookDialect::Claude => self.claude_name().unwrap_or(self.as_str()),
        }
    }

    /// Parses a settings key: a Gemini CLI event name or a Claude Code one.
    pub fn from_key(key: &str) -> Option<HookEvent> {
        HookEvent::parse_key(key).map(|(event, _)| event)
    }

    /// Parses a settings key with the dialect it declares: a Claude Code
    /// name that differs from Gemini CLI's (`PreToolUse`, `Stop`,
    /// `PostToolUseFailure`, ...) makes a Claude hook; the names both share
    /// (`SessionStart`, `SessionEnd`, `Notification`) stay Gemini's.
    pub fn parse_key(key: &str) -> Option<(HookEvent, HookDialect)> {
        if key == "SubAgentStop" {
            return Some((HookEvent::SubagentStop, HookDialect::Claude));
        }
        if let Some(e) = HookEvent::all().find(|e| !e.claude_only() && e.as_str() == key) {
            return Some((e, HookDialect::Gemini));
        }
        HookEvent::all()
            .find(|e| e.claude_name() == Some(key))
            .map(|e| (e, HookDialect::Claude))
    }
}

/// One hook: a `type: "command"` hook, or (from the user's Claude Code
/// settings) a `type: "http"` one, whose URL stands in `command`.
#[derive(Debug, Clone, PartialEq)]
pub struct CommandHook {
    /// Optional display name.
    pub name: Option<String>,
    /// The shell command (`bash -c`); an http hook's URL.
    pub command: String,
    /// Timeout in milliseconds.
    pub timeout_ms: u64,
    /// Optional description.
    pub description: Option<String>,
    /// Extra environment variables.
    pub env: Vec<(String, String)>,
    /// The contract it was written for.
    pub dialect: HookDialect,
    /// Set for a `type: "http"` hook: the input is POSTed to its URL.
    pub http: Option<HttpHook>,
    /// Set for a Claude `type: "prompt"` hook (its prompt in `command`):
    /// a model judges the event.
    pub prompt: Option<PromptHook>,
}

/// What a `prompt` hook asks besides its prompt (Claude Code's `prompt`
/// hook).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PromptHook {
    /// The model to ask (the session's when `None`).
    pub model: Option<String>,
}

/// What an http hook sends besides its input (Claude Code's `http` hook).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HttpHook {
    /// The request's headers, `$VAR` and `${VAR}` not yet replaced.
    pub headers: Vec<(String, String)>,
    /// The environment variables the headers may name (`allowedEnvVars`);
    /// any other `$VAR` becomes empty.
    pub allowed_env_vars: Vec<String>,
}

impl CommandHook {
    /// The name shown in messages: the name, else the command.
    pub fn display_name(&self) -> &str {
        match self.name.as_deref() {
            Some(n) if !n.is_empty() => n,
            _ => &self.command,
        }
    }

    /// The dedup key `name:command` (`getHookKey`).
    pub fn key(&self) -> String {
        format!("{}:{}", self.name.as_deref().unwrap_or(""), self.command)
    }
}

/// One entry of `hooks.<Event>[]`.
#[derive(Debug, Clone, PartialEq)]
pub struct HookDefinition {
    /// The matcher, if any.
    pub matcher: Option<String>,
    /// Run the event's hooks one after another.
    pub sequential: bool,
    /// The command hooks.
    pub hooks: Vec<CommandHook>,
    /// The contract its hooks were written for (decides how the matcher
    /// reads tool names).
    pub dialect: HookDialect,
}

/// The parsed hook configuration of a run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HookConfig {
    /// False when `hooksConfig.enabled` or `tools.enableHooks` is false.
    pub enabled: bool,
    /// Definitions per event, in settings order.
    pub events: BTreeMap<HookEvent, Vec<HookDefinition>>,
    /// `hooksConfig.disabled`: hook names, or commands of unnamed hooks.
    pub disabled: Vec<String>,
    /// Warnings to show (unknown event names), not printed here.
    pub warnings: Vec<String>,
}

impl HookConfig {
    /// Parses the merged settings. `folder_trusted` false (folder trust on
    /// and the folder untrusted) drops every hook, as Gemini CLI tags all
    /// settings hooks *project* and refuses them there.
    pub fn from_settings(settings: &Settings, folder_trusted: bool) -> HookConfig {
        let mut config = HookConfig::from_typed(settings.typed(), "project");
        if !folder_trusted {
            config.events.clear();
        }
        config
    }

    /// Parses a settings object (`hooks`, `hooksConfig`, `tools.enableHooks`),
    /// e.g. one layer; `source` names it in warnings.
    pub fn from_value(settings: &Value, source: &str) -> HookConfig {
        HookConfig::from_typed(Settings::from_value(settings.clone()).typed(), source)
    }

    /// Parses the typed settings; `source` names them in warnings.
    pub fn from_typed(settings: &TypedSettings, source: &str) -> HookConfig {
        let enabled = settings
            .hooks_config
            .enabled
            .unwrap_or(crate::config::defaults::HOOKS_ENABLED)
            && settings.tools.enable_hooks.unwrap_or(true);
        let mut config = HookConfig {
            enabled,
            events: BTreeMap::new(),
            disabled: settings.hooks_config.disabled.clone(),
            warnings: Vec::new(),
        };
        config.add_hooks(&settings.hooks, source);
        config
    }

    /// Adds the events of one `hooks` object.
    pub fn add_hooks(&mut self, hooks: &Map<String, Value>, source: &str) {
        self.add_with(hooks, source, None);
    }

    /// Adds the `hooks` object of a project's Claude Code settings file
    /// (`.claude/settings.json`): every hook in it is a Claude hook and
    /// its timeouts count seconds, as Claude Code reads them. Its `http`
    /// hooks are skipped with a warning.
    pub fn add_claude_hooks(&mut self, hooks: &Map<String, Value>, source: &str) {
        self.add_with(hooks, source, Some(false));
    }

    /// [`HookConfig::add_claude_hooks`] for the user's own file
    /// (`~/.claude/settings.json`), whose `http` hooks run.
    pub fn add_claude_user_hooks(&mut self, hooks: &Map<String, Value>, source: &str) {
        self.add_with(hooks, source, Some(true));
    }

    /// `claude_file`: `None` for a Gemini settings object, else whether
    /// the Claude Code file may declare `http` hooks (the user's).
    fn add_with(&mut self, hooks: &Map<String, Value>, source: &str, claude_file: Option<bool>) {
        for (key, defs) in hooks {
            if NON_EVENT_KEYS.contains(&key.as_str()) {
                continue;
            }
            let Some((event, mut dialect)) = HookEvent::parse_key(key) else {
                self.warnings.push(format!(
                    "Invalid hook event name: \"{key}\" from {source} config. Skipping."
                ));
                continue;
            };
            if claude_file.is_some() {
                if event.claude_name().is_none() {
                    self.warnings.push(format!(
                        "\"{key}\" is not a Claude Code hook event (from {source} config). Skipping."
                    ));
                    continue;
                }
                dialect = HookDialect::Claude;
            }
            let Some(defs) = defs.as_array() else {
                continue;
            };
            let reader = HookReader {
                dialect,
                seconds: claude_file.is_some(),
                http: claude_file == Some(true),
            };
            let mut warnings = Vec::new();
            let parsed: Vec<HookDefinition> = defs
                .iter()
                .filter_map(|d| reader.definition(d, &mut warnings))
                .collect();
            self.warnings.extend(
                warnings
                    .into_iter()
                    .map(|w| format!("{w} (from {source} config)")),
            );
            self.events.entry(event).or_default().extend(parsed);
        }
    }

    /// True when some enabled hook of `event` is a Claude hook.
    pub fn has_claude(&self, event: HookEvent) -> bool {
        self.enabled
            && self.events.get(&event).is_some_and(|defs| {
                defs.iter()
                    .any(|d| d.dialect == HookDialect::Claude && !d.hooks.is_empty())
            })
    }

    /// True when hooks run at all and `event` has at least one hook.
    pub fn has_event(&self, event: HookEvent) -> bool {
        self.enabled
            && self
                .events
                .get(&event)
                .is_some_and(|d| d.iter().any(|d| !d.hooks.is_empty()))
    }

    /// True when `hook` is listed in `hooksConfig.disabled`.
    pub fn is_disabled(&self, hook: &CommandHook) -> bool {
        let name = hook.display_name();
        self.disabled.iter().any(|d| d == name)
    }

    /// Every configured hook with its event and whether it is enabled
    /// (for `hooks list`).
    pub fn list(&self) -> Vec<(HookEvent, &HookDefinition, &CommandHook, bool)> {
        let mut out = Vec::new();
        for (event, defs) in &self.events {
            for def in defs {
                for hook in &def.hooks {
                    out.push((*event, def, hook, self.enabled && !self.is_disabled(hook)));
                }
            }
        }
        out
    }
}

/// One entry of `hooks.<Event>[]` as written in the settings; a field of
/// the wrong type reads as absent, unknown fields are ignored.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct WireDefinition {
    #[serde(deserialize_with = "lenient")]
    matcher: Option<String>,
    #[serde(deserialize_with = "lenient")]
    sequential: Option<bool>,
    /// The hooks, each still to be read with [`WireHook`].
    #[serde(deserialize_with = "lenient")]
    pub(super) hooks: Option<Vec<Value>>,
}

/// One hook of a definition as written in the settings.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct WireHook {
    #[serde(rename = "type", deserialize_with = "lenient")]
    kind: Option<String>,
    /// `command`.
    #[serde(deserialize_with = "lenient")]
    pub(super) command: Option<String>,
    /// `name`.
    #[serde(deserialize_with = "lenient")]
    pub(super) name: Option<String>,
    #[serde(deserialize_with = "lenient")]
    description: Option<String>,
    #[serde(deserialize_with = "lenient")]
    timeout: Option<f64>,
    #[serde(deserialize_with = "lenient")]
    env: Option<Map<String, Value>>,
    /// An http hook's `url`.
    #[serde(deserialize_with = "lenient")]
    url: Option<String>,
    /// An http hook's `headers`.
    #[serde(deserialize_with = "lenient")]
    headers: Option<Map<String, Value>>,
    /// An http hook's `allowedEnvVars`.
    #[serde(rename = "allowedEnvVars", deserialize_with = "lenient")]
    allowed_env_vars: Option<Vec<Value>>,
    /// A prompt hook's `prompt`.
    #[serde(deserialize_with = "lenient")]
    prompt: Option<String>,
    /// A prompt hook's `model`.
    #[serde(deserialize_with = "lenient")]
    model: Option<String>,
}

/// How the hooks of one settings object are read.
struct HookReader {
    /// The contract they were written for.
    dialect: HookDialect,
    /// Their timeouts count seconds (a Claude Code settings file).
    seconds: bool,
    /// `type: "http"` hooks may run (the user's Claude Code settings).
    http: bool,
}

impl HookReader {
    /// One definition; `None` when it has no `hooks` array.
    fn definition(&self, def: &Value, warnings: &mut Vec<String>) -> Option<HookDefinition> {
        let wire: WireDefinition = from_object(def);
        Some(HookDefinition {
            hooks: wire
                .hooks?
                .iter()
                .filter_map(|h| self.hook(h, warnings))
                .collect(),
            matcher: wire.matcher,
            sequential: wire.sequential.unwrap_or(false),
            dialect: self.dialect,
        })
    }

    /// One hook; `None` unless it is a command hook with a command, or an
    /// http hook with a URL where http hooks may run.
    fn hook(&self, hook: &Value, warnings: &mut Vec<String>) -> Option<CommandHook> {
        if !hook.is_object() {
            return None;
        }
        let wire: WireHook = from_object(hook);
        let mut prompt = None;
        let (command, http) = match wire.kind.as_deref() {
            Some("command") => (wire.command.clone(), None),
            Some("http") if self.http => (wire.url.clone(), Some(wire.http_parts())),
            Some("prompt") if self.dialect == HookDialect::Claude => {
                prompt = Some(PromptHook {
                    model: wire.model.clone().filter(|m| !m.is_empty()),
                });
                (wire.prompt.clone(), None)
            }
            Some("http") if self.dialect == HookDialect::Claude => {
                warnings.push(
                    "An http hook runs only from the user's ~/.claude/settings.json; skipped"
                        .to_string(),
                );
                return None;
            }
            kind => {
                if self.dialect == HookDialect::Claude && kind == Some("agent") {
                    warnings.push(
                        "A Claude Code \"agent\" hook does not run here (only \"command\", \"http\" and \"prompt\" hooks do); skipped"
                            .to_string(),
                    );
                }
                tracing::warn!("Discarding hook of unsupported type {kind:?}");
                return None;
            }
        };
        let command = command.filter(|c| !c.is_empty())?;
        let timeout_ms =
            wire.timeout
                .filter(|t| t.is_finite() && *t > 0.0)
                .map_or(DEFAULT_TIMEOUT_MS, |t| {
                    if self.seconds {
                        (t * 1000.0).round() as u64
                    } else {
                        t as u64
                    }
                });
        Some(CommandHook {
            name: wire.name,
            command,
            timeout_ms,
            description: wire.description,
            env: string_pairs(wire.env),
            dialect: self.dialect,
            http,
            prompt,
        })
    }
}

impl WireHook {
    /// An http hook's headers and allowed variables.
    fn http_parts(&self) -> HttpHook {
        HttpHook {
            headers: string_pairs(self.headers.clone()),
            allowed_env_vars: self
                .allowed_env_vars
                .iter()
                .flatten()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect(),
        }
    }
}

/// An object's entries as strings (a non-string value as its JSON).
fn string_pairs(map: Option<Map<String, Value>>) -> Vec<(String, String)> {
    map.map(|m| {
        m.into_iter()
            .map(|(k, v)| {
                let v = match v {
                    Value::String(s) => s,
                    other => other.to_string(),
                };
                (k, v)
            })
            .collect()
    })
    .unwrap_or_default()
}

#[cfg(test)]
mod tests;
