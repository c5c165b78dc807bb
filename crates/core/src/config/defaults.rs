//! The default of every typed setting that has one, in one place: the
//! accessors of [`super::Settings`] and the engine fall back to these, and
//! the settings schema (`docs/schema/settings.schema.json`, its `default`
//! keywords) states them, so the `/settings` editor and `docs/settings.md`
//! show the same values the engine uses.

/// `general.defaultApprovalMode`.
pub const DEFAULT_APPROVAL_MODE: &str = "default";
/// `general.checkpointing.enabled`.
pub const CHECKPOINTING: bool = false;
/// `general.vimMode`.
pub const VIM_MODE: bool = false;
/// `model.maxSessionTurns` (-1: no limit).
pub const MAX_SESSION_TURNS: i64 = -1;
/// `model.compressionThreshold` (share of the context window).
pub const COMPRESSION_THRESHOLD: f64 = 0.5;
/// `model.disableLoopDetection`.
pub const DISABLE_LOOP_DETECTION: bool = false;
/// `useWriteTodos`.
pub const USE_WRITE_TODOS: bool = true;
/// `skills.enabled`.
pub const SKILLS_ENABLED: bool = true;
/// `experimental.enableAgents`.
pub const ENABLE_AGENTS: bool = false;
/// `hooksConfig.enabled`.
pub const HOOKS_ENABLED: bool = true;
/// `hooksConfig.claudeCompat`.
pub const CLAUDE_COMPAT: bool = false;
/// `security.folderTrust.enabled` (true, as in today's Gemini CLI).
pub const FOLDER_TRUST: bool = true;
/// `context.fileFiltering.respectGitIgnore`.
pub const RESPECT_GIT_IGNORE: bool = true;
/// `context.fileFiltering.respectGeminiIgnore`.
pub const RESPECT_GEMINI_IGNORE: bool = true;
/// `context.fileName`.
pub const CONTEXT_FILE_NAME: &str = "GEMINI.md";
/// `tools.shell.pager`.
pub const SHELL_PAGER: &str = "cat";
/// `tools.shell.backgroundCompletionBehavior`.
pub const BACKGROUND_COMPLETION: &str = "silent";
/// `admin.mcp.enabled`.
pub const ADMIN_MCP_ENABLED: bool = true;
/// `ui.accessibility.screenReader`.
pub const SCREEN_READER: bool = false;
