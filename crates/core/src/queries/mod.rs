//! Session-less queries for subcommands and front ends that need no
//! session: recorded sessions, MCP servers (`mcp list`, `mcp auth`), the
//! hooks of every settings layer, installed extensions, agent skills, and the child
//! processes to end on the way out.

mod extension_check;
mod extensions;
mod hooks;
mod mcp;
mod sessions;
mod skills;

pub use extension_check::{ExtensionCheck, ExtensionSetting, check_extension};
pub use extensions::{
    ExtensionListing, ResolvedSetting, SettingSource, list_extensions, set_extension_enabled,
};
pub use hooks::{HookListing, HooksListing, hook_event_name, is_hook_event, list_hooks};
pub use mcp::{
    McpAuthError, McpSwitchError, OAuthServer, ServerList, ServerListing, ServerProbe,
    list_servers, list_untrusted, oauth_server, set_server_enabled,
};
pub use sessions::{
    SessionError, delete_session, export_session, fork_session, import_session, list_sessions,
    recorded_projects, session_exists, session_history,
};
pub use skills::{SkillListing, list_skills, skills_in_folder};

/// The `.env` variables of the project (or `~/.env`) that are not set yet
/// (`is_set`), in file order, for the binary to set before any thread
/// starts; in an untrusted folder only the credential variables.
pub fn dotenv_vars(
    root: &std::path::Path,
    home: &std::path::Path,
    trusted: bool,
    is_set: &dyn Fn(&str) -> bool,
) -> Vec<(String, String)> {
    crate::config::dotenv::dotenv_vars(root, home, trusted, is_set)
}

/// Ends every child process group the engine started (shell commands,
/// hooks, MCP servers): TERM, then KILL after `grace`. For the way out.
pub fn terminate_children(grace: std::time::Duration) {
    crate::process::terminate_all(grace);
}
