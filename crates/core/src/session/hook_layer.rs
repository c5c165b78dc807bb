//! The session's hook layer: the hooks of the settings and extensions,
//! with `hooksConfig.claudeCompat` those of Claude Code's settings files,
//! and the warnings about them.

use super::config::{SessionConfig, StartupNote};
use crate::config::Scope;
use crate::config::layer_view::LayerView;
use crate::events::{AgentEvent, EventSender};
use crate::extensions;
use crate::hooks::claude_settings::ClaudeSettingsHooks;
use crate::hooks::{HookConfig, HookEnv, HookMessage, HookSystem, Hooks, project_hooks_warning};
use std::sync::Arc;

/// The hooks of a session, read before its tools are (a Claude
/// `PreToolUse` hook decides which tools are declared headless), and the
/// warnings about them, noted when the hook system is built.
pub(super) struct HookSetup {
    config: HookConfig,
    claude_files: Vec<ClaudeSettingsHooks>,
    notes: Vec<StartupNote>,
}

impl HookSetup {
    /// The built-in tools a headless run hides (they would need a
    /// confirmation) that a Claude `PreToolUse` hook selects: declared
    /// anyway, since its `allow` lets the call run, as in Claude Code.
    pub fn hook_allowed_tools(&self) -> Vec<String> {
        if !self.config.enabled {
            return Vec::new();
        }
        crate::catalogue::builtins::specs()
            .map(|spec| spec.name)
            .filter(|name| crate::hooks::claude_pre_tool_use_selects(&self.config, name))
            .map(str::to_string)
            .collect()
    }
}

/// Reads the hooks of the settings, the extensions and (with
/// `hooksConfig.claudeCompat`) Claude Code's settings files.
pub(super) fn hook_setup(config: &SessionConfig) -> HookSetup {
    let (settings, root, trusted) = (&config.settings, config.root.as_path(), config.trusted);
    let mut hook_config = HookConfig::from_settings(settings, trusted);
    if trusted {
        for extension in config.extensions.iter() {
            if let Some(hooks) = extensions::extension_hooks(extension, root) {
                hook_config.add_hooks(&hooks, "extension");
            }
        }
    }
    let mut notes = Vec::new();
    let claude_files = claude_settings_hooks(config, &mut hook_config, &mut notes);
    notes.extend(hook_config.warnings.iter().map(|w| StartupNote {
        text: w.clone(),
        warning: true,
    }));
    HookSetup {
        config: hook_config,
        claude_files,
        notes,
    }
}

/// The hook system, when any hook is configured. Its messages become
/// [`AgentEvent::HookMessage`]s; config warnings and the first-sighting
/// warning for project hooks become start-up notes.
pub(super) fn hook_system(
    config: &SessionConfig,
    setup: HookSetup,
    mut env: HookEnv,
    events: EventSender,
    notes: &mut Vec<StartupNote>,
) -> (Option<Arc<dyn Hooks>>, Option<HookConfig>) {
    let (settings, root, trusted) = (&config.settings, config.root.as_path(), config.trusted);
    let HookSetup {
        config: hook_config,
        claude_files,
        notes: setup_notes,
    } = setup;
    notes.extend(setup_notes);
    if !hook_config.enabled || hook_config.events.is_empty() {
        return (None, None);
    }
    let trusted_file = config.paths.gemini_dir.join("trusted_hooks.json");
    let workspace_layer = settings.layer(Scope::Workspace).map(|(_, layer)| layer);
    if trusted {
        let project_claude = claude_files.iter().filter(|f| f.project);
        let sources = workspace_layer
            .and_then(|layer| LayerView::of(layer).hooks)
            .map(serde_json::Value::Object)
            .map(|h| (h, ".gemini/settings.json".to_string()))
            .into_iter()
            .chain(project_claude.map(|f| {
                let name = f.path.strip_prefix(root).unwrap_or(&f.path);
                (
                    serde_json::Value::Object(f.hooks.clone()),
                    name.display().to_string(),
                )
            }));
        for (hooks, file) in sources {
            if let Some(warning) = project_hooks_warning(root, &hooks, &trusted_file, &file) {
                notes.push(StartupNote {
                    text: warning,
                    warning: false,
                });
            }
        }
    }
    if env.sandbox.is_some() {
        let mut workspace = workspace_layer
            .map(|layer| HookConfig::from_value(layer, "project"))
            .unwrap_or_default();
        for file in claude_files.iter().filter(|f| f.project) {
            workspace.add_claude_hooks(&file.hooks, "project");
        }
        env.workspace_hooks = workspace
            .events
            .values()
            .flatten()
            .flat_map(|definition| {
                definition
                    .hooks
                    .iter()
                    .map(super::super::hooks::config::CommandHook::key)
            })
            .collect();
    }
    env.runs = Some(events.clone());
    let sink = Arc::new(move |msg: HookMessage| {
        events.emit_detached(AgentEvent::HookMessage {
            kind: msg.kind,
            text: msg.text,
        });
    });
    let system = HookSystem::new(hook_config.clone(), env, sink);
    (Some(Arc::new(system)), Some(hook_config))
}

/// With `hooksConfig.claudeCompat`, adds the hooks of the Claude Code
/// settings files as Claude hooks, in a trusted folder only; unreadable
/// files become start-up warnings.
fn claude_settings_hooks(
    config: &SessionConfig,
    hook_config: &mut HookConfig,
    notes: &mut Vec<StartupNote>,
) -> Vec<ClaudeSettingsHooks> {
    // In an untrusted folder no settings hook runs (Gemini CLI refuses
    // them all there), so neither does any of Claude Code's.
    if config.settings.typed().hooks_config.claude_compat != Some(true) || !config.trusted {
        return Vec::new();
    }
    let (files, errors) =
        crate::hooks::claude_settings::load(&config.root, &config.paths.home, config.trusted);
    notes.extend(errors.iter().map(|e| StartupNote {
        text: e.to_string(),
        warning: true,
    }));
    for file in &files {
        let source = file.path.display().to_string();
        if file.project {
            hook_config.add_claude_hooks(&file.hooks, &source);
        } else {
            hook_config.add_claude_user_hooks(&file.hooks, &source);
        }
    }
    files
}
