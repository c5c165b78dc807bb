//! `hooks list`: the hooks of every settings layer, grouped by event in the
//! order they run, each with its source file and whether it runs here.

use crate::config::{ConfigError, Scope, Settings};
use crate::hooks::HookConfig;
use crate::startup::Startup;
use std::collections::HashSet;

/// The settings layers in merge order, with the name shown for each.
const LAYERS: [(Scope, &str); 4] = [
    (Scope::SystemDefaults, "system defaults"),
    (Scope::User, "user"),
    (Scope::Workspace, "project"),
    (Scope::System, "system"),
];

/// One configured hook of one settings file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookListing {
    /// The event it runs on (`BeforeTool`, ...).
    pub event: String,
    /// Its matcher.
    pub matcher: Option<String>,
    /// Whether the event's hooks run one after another.
    pub sequential: bool,
    /// Its name.
    pub name: Option<String>,
    /// The command it runs.
    pub command: String,
    /// Its description.
    pub description: Option<String>,
    /// Its timeout in milliseconds.
    pub timeout_ms: u64,
    /// The layer it comes from (`user`, `project`, ...).
    pub source: &'static str,
    /// The settings file.
    pub file: String,
    /// `None` when it runs, else why not.
    pub disabled: Option<String>,
    /// Set when an identical hook of the same event comes earlier: it runs
    /// once.
    pub duplicate: bool,
}

/// Every hook of every settings layer of the start-up's folder, and the
/// warnings about malformed hook settings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HooksListing {
    /// The hooks, grouped by event (layers in merge order within).
    pub hooks: Vec<HookListing>,
    /// One line per malformed entry.
    pub warnings: Vec<String>,
    /// Whether the folder is trusted (no hook runs when it is not).
    pub trusted: bool,
}

/// Lists the hooks of every layer, the project's included even when the
/// folder is not trusted (so they show as not running).
pub fn list_hooks(startup: &Startup) -> Result<HooksListing, ConfigError> {
    let all_layers = all_layers(startup)?;
    let typed = startup.settings.typed();
    let runtime = HookConfig::from_typed(typed, "project");
    let switched_off = if typed.hooks_config.enabled == Some(false) {
        Some("hooksConfig.enabled is false")
    } else if typed.tools.enable_hooks == Some(false) {
        Some("tools.enableHooks is false")
    } else {
        None
    };
    let mut warnings = Vec::new();
    let mut out = Vec::new();
    for (scope, source) in LAYERS {
        let Some((path, value)) = all_layers.layer(scope) else {
            continue;
        };
        let config = HookConfig::from_value(value, source);
        warnings.extend(config.warnings.iter().cloned());
        for (event, defs) in &config.events {
            for def in defs {
                for hook in &def.hooks {
                    let disabled = if !startup.trusted {
                        Some("untrusted folder".to_string())
                    } else if let Some(why) = switched_off {
                        Some(why.to_string())
                    } else if runtime.is_disabled(hook) {
                        Some("listed in hooksConfig.disabled".to_string())
                    } else {
                        None
                    };
                    out.push((
                        *event,
                        HookListing {
                            event: event.name_in(hook.dialect).to_string(),
                            matcher: def.matcher.clone(),
                            sequential: def.sequential,
                            name: hook.name.clone(),
                            command: hook.command.clone(),
                            description: hook.description.clone(),
                            timeout_ms: hook.timeout_ms,
                            source,
                            file: path.display().to_string(),
                            disabled,
                            duplicate: false,
                        },
                    ));
                }
            }
        }
    }
    // Stable: layers stay in merge order within an event.
    out.sort_by_key(|(event, _)| *event);
    let mut seen = HashSet::new();
    for (event, e) in out.iter_mut().filter(|(_, e)| e.disabled.is_none()) {
        let key = (
            *event,
            format!("{}:{}", e.name.as_deref().unwrap_or(""), e.command),
        );
        e.duplicate = !seen.insert(key);
    }
    Ok(HooksListing {
        hooks: out.into_iter().map(|(_, e)| e).collect(),
        warnings,
        trusted: startup.trusted,
    })
}

/// Every layer that exists, the project's included whatever the trust.
fn all_layers(startup: &Startup) -> Result<Settings, ConfigError> {
    let var = |k: &str| startup.env.raw(k);
    Ok(Settings::load(&startup.root, &startup.paths, true, &var)?.settings)
}

/// True when a settings key names an event gemini-rs runs: Gemini CLI's
/// names and Claude Code's (`PreToolUse`, `SubagentStop`, ...).
pub fn is_hook_event(key: &str) -> bool {
    crate::hooks::HookEvent::from_key(key).is_some()
}

/// The Gemini CLI event a settings key names: a Gemini event name as it is,
/// a Claude Code event with a Gemini twin (`PreToolUse`) as the twin's name;
/// `None` for anything else.
pub fn hook_event_name(key: &str) -> Option<&'static str> {
    crate::hooks::HookEvent::from_key(key)
        .filter(|e| !e.claude_only())
        .map(crate::hooks::HookEvent::as_str)
}
