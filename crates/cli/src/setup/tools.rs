//! The tool registry and the policy engine of a session: built-ins
//! (limited by `tools.core`), discovered and MCP tools, the policy files,
//! and which tools headless mode hides.

use super::SetupError;
use crate::args::Args;
use gemini_rs_core::config::{GeminiPaths, Settings};
use gemini_rs_core::policy::{
    ApprovalMode, PolicyEngine, headless_excluded_tools, load_policy_dir, load_policy_file,
};
use gemini_rs_core::tools::discovered::discover_tools;
use gemini_rs_core::tools::mcp::McpManager;
use gemini_rs_core::tools::{Tool, ToolRegistry, builtin};
use std::path::Path;
use std::sync::Arc;

/// Where system (admin) policies live.
const SYSTEM_POLICIES: &str = "/etc/gemini-cli/policies";

/// Builds the policy engine: defaults, settings rules, user and system
/// policy files and `--policy` files. A file that does not parse is a
/// configuration error (exit 52) naming the file and line.
pub fn policy(
    args: &Args,
    settings: &Settings,
    paths: &GeminiPaths,
    interactive: bool,
) -> Result<PolicyEngine, SetupError> {
    let engine = PolicyEngine::new(interactive)
        .with_saved_rules_file(paths.gemini_dir.join("policies").join("auto-saved.toml"));
    let mut allowed = settings.tools_allowed();
    allowed.extend(args.allowed_tools.iter().cloned());
    engine.add_settings_rules(&allowed, &settings.tools_exclude());
    let config_error = |e: gemini_rs_core::policy::PolicyFileError| {
        SetupError::new(52, "FatalConfigError", e.to_string())
    };
    engine.add_rules(load_policy_dir(&paths.gemini_dir.join("policies"), 2).map_err(config_error)?);
    engine.add_rules(load_policy_dir(Path::new(SYSTEM_POLICIES), 3).map_err(config_error)?);
    for file in &args.policy {
        engine.add_rules(load_policy_file(file, 2).map_err(config_error)?);
    }
    Ok(engine)
}

/// Runs `tools.discoveryCommand` (blocking, off the async threads). A
/// failing command ends the start-up, as in Gemini CLI.
pub async fn discovered(
    settings: &Settings,
    root: &Path,
) -> Result<Vec<Arc<dyn Tool>>, SetupError> {
    let settings = settings.clone();
    let root = root.to_path_buf();
    let joined = tokio::task::spawn_blocking(move || discover_tools(&settings, &root)).await;
    match joined {
        Ok(Ok(tools)) => Ok(tools),
        Ok(Err(e)) => {
            if let Some(line) = e.feedback() {
                eprintln!("{line}");
            }
            Err(SetupError::new(1, "Error", e.to_string()))
        }
        Err(e) => Err(SetupError::new(
            1,
            "Error",
            format!("Tool discovery failed: {e}"),
        )),
    }
}

/// The registry: built-ins (as `tools.core` allows), discovered tools, then
/// MCP tools (renamed `<server>__<tool>` on a clash), with `tools.exclude`,
/// policy-wide denials and, when nobody can be asked, the headless
/// exclusions applied.
#[allow(clippy::too_many_arguments)]
pub fn registry(
    args: &Args,
    settings: &Settings,
    policy: &PolicyEngine,
    mode: ApprovalMode,
    interactive: bool,
    discovered: Vec<Arc<dyn Tool>>,
    mcp: Option<&McpManager>,
) -> ToolRegistry {
    let mut registry = ToolRegistry::new();
    let core = settings.tools_core();
    for tool in builtin::builtin_tools() {
        let keep = core.as_ref().is_none_or(|core| {
            core.iter()
                .any(|c| c == tool.name() || c.starts_with(&format!("{}(", tool.name())))
        });
        if keep {
            registry.register(tool);
        }
    }
    // Later Gemini CLI releases call the search tool grep_search.
    registry.add_aliases([("grep_search".to_string(), "search_file_content".to_string())]);
    for tool in discovered {
        registry.register(tool);
    }
    if let Some(mcp) = mcp {
        for tool in mcp.tools(&|name| registry.is_registered(name)) {
            registry.register(tool);
        }
        registry.add_aliases(mcp.qualified_aliases());
        registry.add_aliases(mcp.mcp_prefixed_aliases());
        policy.add_rules(mcp.policy_rules());
    }
    registry.exclude(settings.tools_exclude());
    let denied: Vec<String> = registry
        .active_names()
        .into_iter()
        .filter(|name| policy.denies_always(name, mode))
        .collect();
    registry.exclude(denied);
    if !interactive {
        let mut allowed = settings.tools_allowed();
        allowed.extend(args.allowed_tools.iter().cloned());
        let hidden: Vec<String> = headless_excluded_tools(mode, &allowed)
            .into_iter()
            .filter(|name| !policy.allows_somewhere(name))
            .collect();
        registry.exclude(hidden);
    }
    registry
}
