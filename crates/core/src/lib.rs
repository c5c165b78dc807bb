//! The gemini-rs engine: settings, model clients, the workspace boundary,
//! tools, the scheduler that runs them, the agent loop and the session
//! task every front end drives. No terminal code.
//!
//! One door: every module is private. A front end starts a [`Session`]
//! from a [`SessionConfig`] (built from the one [`Startup`] load), submits
//! ops and watches events (the serde types of `gemini_rs_protocol::events`)
//! through the [`SessionHandle`], and asks what the session is made of
//! through its [`SessionView`]. Subcommands that need no session use the
//! session-less queries ([`list_sessions`], [`list_servers`],
//! [`list_hooks`], [`list_extensions`], ...).
//!
//! Layers inside, each importing only from those above it in this list:
//! `config`, `workspace`, `model`, `policy`, `sandbox`, `checkpoint`,
//! `process`, `limits`, `skills`, `subagents`, `telemetry` (1); `tools` (2); `events` (3); `hooks` (4);
//! `scheduler` (5); `agent` (6); `session`, `startup`, `queries` (7).

#![deny(missing_docs)]
// A library writes nothing to stdout: that is the front end's (and the
// protocol's, on stdio transports); its tests may print.
#![cfg_attr(not(test), deny(clippy::print_stdout))]

mod agent;
mod catalogue;
mod checkpoint;
mod config;
mod events;
mod extensions;
mod hooks;
mod limits;
mod model;
mod policy;
mod process;
mod queries;
mod recording;
mod sandbox;
mod scheduler;
mod session;
mod skills;
mod startup;
mod subagents;
mod telemetry;
#[cfg(test)]
mod test_peers;
mod tools;
mod workspace;

pub use agent::{OutputSchema, OutputSchemaError};
pub use catalogue::claude::twins as claude_tool_twins;
pub use catalogue::dialect::{DIALECT_ENV, Dialect};
pub use catalogue::headless::Headless as HeadlessShape;
pub use catalogue::texts::Stream as ListingStream;
pub use config::defaults as setting_defaults;
pub use config::dotenv::parse as parse_dotenv;
pub use config::input_file::{InputFileError, MAX_INPUT_BYTES, read_input};
pub use config::jsonc::strip_comments as strip_json_comments;
pub use config::trust::{Trust as FolderTrust, TrustLevel, save as save_folder_trust};
pub use config::{ConfigError, Env, FolderContents, GeminiPaths, Scope as SettingsScope, Settings};
pub use config::{
    EditableSetting, SettingKind, editable_settings, settings_schema, settings_table,
};
pub use config::{flush_registrations, write_registrations_behind};
pub use limits::{LimitHit, ResourceLimits, Scope as LimitScope, Usage as ResourceUsage};
pub use model::ReplayMode;
pub use model::discovery::{
    DiscoveryError, GEMINI_MODELS, LocalKind, LocalServer, PROBE_PORTS_VAR, ProviderModels,
    list_anthropic_models, list_openai_models, probe_local, probe_ports,
};
pub use queries::{
    ExtensionCheck, ExtensionListing, ExtensionSetting, HookListing, HooksListing, McpAuthError,
    McpSwitchError, OAuthServer, ResolvedSetting, ServerList, ServerListing, ServerProbe,
    SessionError, SettingSource, SkillListing, check_extension, delete_session, dotenv_vars,
    export_session, fork_session, hook_event_name, import_session, is_hook_event, list_extensions,
    list_hooks, list_servers, list_sessions, list_skills, list_untrusted, oauth_server,
    recorded_projects, session_exists, session_history, set_extension_enabled, set_server_enabled,
    skills_in_folder, terminate_children,
};
pub use recording::{TrajectoryPathError, check_trajectory_path};
pub use session::{
    CommandFolder, FileContents, FileReadError, OpSender, PathEntry, PolicyListing, Session,
    SessionConfig, SessionHandle, SessionKind, SessionView, StartError, StartErrorKind,
    StartupNote, WorkspaceFile, mode_allowed_untrusted, unattended_reply, untrusted_mode_refusal,
};
pub use startup::{Startup, folder_trust};
pub use tools::{ClientFs, ClientFsError};
pub use workspace::template::{
    CopyKind, TemplateError, WorkingCopy, check_template, enter_user_namespace,
};
pub use workspace::{write_atomic, write_atomic_within};
