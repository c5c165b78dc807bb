//! The declarations of every built-in tool: names of both Gemini CLI
//! dialects, parameter aliases, Claude Code twins, kinds, default policy,
//! headless visibility and agent use. The tools (layer 2) implement them;
//! policy, hooks, sub-agents and config read them here.

use super::spec::{AgentUse, ClaudeTwin, DefaultPolicy, Headless, ModelUse, ParamMap, ToolSpec};
use gemini_rs_protocol::events::ToolKind;

/// Every built-in tool's declaration, in Gemini CLI's registration order
/// (the order of `tools::builtin::BUILTINS`).
pub static SPECS: &[&ToolSpec] = &[
    &LIST_DIRECTORY,
    &READ_FILE,
    &GREP,
    &GLOB,
    &REPLACE,
    &WRITE_FILE,
    &WEB_FETCH,
    &MCP_RESOURCES_READ,
    &MCP_RESOURCES_LIST,
    &SHELL,
    &BACKGROUND_LIST,
    &BACKGROUND_READ,
    &MEMORY,
    &WEB_SEARCH,
    &ASK_USER,
    &WRITE_TODOS,
    &PLAN_MODE_EXIT,
    &PLAN_MODE_ENTER,
    &READ_MANY_FILES,
    &ACTIVATE_SKILL,
    &INTERNAL_DOCS,
];

/// The declarations of every built-in tool, in [`SPECS`] order.
pub fn specs() -> impl Iterator<Item = &'static ToolSpec> {
    SPECS.iter().copied()
}

/// The built-in tool called `name`, by its name or an alias
/// (`grep_search`).
pub fn spec(name: &str) -> Option<&'static ToolSpec> {
    specs().find(|s| s.answers_to(name))
}

/// What `ActivateSkillTool` declares about itself.
pub static ACTIVATE_SKILL: ToolSpec = ToolSpec {
    name: "activate_skill",
    display_name: "Activate Skill",
    kind: ToolKind::Other,
    ..ToolSpec::BASE
};

/// What `AskUserTool` declares about itself: no default rule (as in
/// 0.61) and no confirmation, since the form itself is the user's say.
pub static ASK_USER: ToolSpec = ToolSpec {
    name: "ask_user",
    display_name: "Ask User",
    kind: ToolKind::Communicate,
    ..ToolSpec::BASE
};

/// What `list_background_processes` declares about itself.
pub static BACKGROUND_LIST: ToolSpec = ToolSpec {
    name: "list_background_processes",
    display_name: "List Background Processes",
    kind: ToolKind::Read,
    // Declared where the shell is: headless only in yolo, as 0.61 does.
    headless: Headless::YoloOnly,
    ..ToolSpec::BASE
};

/// What `read_background_output` declares about itself.
pub static BACKGROUND_READ: ToolSpec = ToolSpec {
    name: "read_background_output",
    display_name: "Read Background Output",
    kind: ToolKind::Read,
    headless: Headless::YoloOnly,
    ..ToolSpec::BASE
};

/// `path` is the later name of `dir_path`.
pub const GLOB_PARAM_ALIASES: ParamMap = &[("path", "dir_path")];

/// What `GlobTool` declares about itself.
pub static GLOB: ToolSpec = ToolSpec {
    name: "glob",
    display_name: "FindFiles",
    param_aliases: GLOB_PARAM_ALIASES,
    claude: Some(ClaudeTwin {
        name: "Glob",
        params: &[("pattern", "pattern"), ("path", "dir_path")],
    }),
    kind: ToolKind::Search,
    policy: DefaultPolicy::Allow,
    ..ToolSpec::BASE
};

/// Later names: `path` for `dir_path`, `include_pattern` for `include`.
pub const GREP_PARAM_ALIASES: ParamMap = &[("path", "dir_path"), ("include_pattern", "include")];

/// What `GrepTool` declares about itself.
pub static GREP: ToolSpec = ToolSpec {
    name: "search_file_content",
    display_name: "SearchText",
    aliases: &["grep_search"],
    param_aliases: GREP_PARAM_ALIASES,
    claude: Some(ClaudeTwin {
        name: "Grep",
        params: &[
            ("pattern", "pattern"),
            ("path", "dir_path"),
            ("glob", "include"),
        ],
    }),
    kind: ToolKind::Search,
    policy: DefaultPolicy::Allow,
    ..ToolSpec::BASE
};

/// What `InternalDocsTool` declares about itself.
pub static INTERNAL_DOCS: ToolSpec = ToolSpec {
    name: "get_internal_docs",
    display_name: "GetInternalDocs",
    kind: ToolKind::Think,
    agents: AgentUse::BuiltInAgentsOnly,
    ..ToolSpec::BASE
};

/// `path` is the later name of `dir_path`.
pub const LIST_DIRECTORY_PARAM_ALIASES: ParamMap = &[("path", "dir_path")];

/// What `ListDirectoryTool` declares about itself.
pub static LIST_DIRECTORY: ToolSpec = ToolSpec {
    name: "list_directory",
    display_name: "ReadFolder",
    param_aliases: LIST_DIRECTORY_PARAM_ALIASES,
    claude: Some(ClaudeTwin {
        name: "LS",
        params: &[("path", "dir_path"), ("ignore", "ignore")],
    }),
    kind: ToolKind::Read,
    policy: DefaultPolicy::Allow,
    ..ToolSpec::BASE
};

/// What `list_mcp_resources` declares about itself.
pub static MCP_RESOURCES_LIST: ToolSpec = ToolSpec {
    name: "list_mcp_resources",
    display_name: "List MCP Resources",
    kind: ToolKind::Search,
    // `read-only.toml` allows both.
    policy: DefaultPolicy::Allow,
    ..ToolSpec::BASE
};

/// What `read_mcp_resource` declares about itself.
pub static MCP_RESOURCES_READ: ToolSpec = ToolSpec {
    name: "read_mcp_resource",
    display_name: "Read MCP Resource",
    kind: ToolKind::Read,
    policy: DefaultPolicy::Allow,
    ..ToolSpec::BASE
};

/// What `MemoryTool` declares about itself.
pub static MEMORY: ToolSpec = ToolSpec {
    name: "save_memory",
    display_name: "SaveMemory",
    kind: ToolKind::Think,
    policy: DefaultPolicy::Ask,
    ..ToolSpec::BASE
};

/// What `enter_plan_mode` declares (its policy comes from the plan rules).
pub static PLAN_MODE_ENTER: ToolSpec = ToolSpec {
    name: "enter_plan_mode",
    display_name: "Enter Plan Mode",
    ..ToolSpec::BASE
};

/// What `exit_plan_mode` declares.
pub static PLAN_MODE_EXIT: ToolSpec = ToolSpec {
    name: "exit_plan_mode",
    display_name: "Exit Plan Mode",
    ..ToolSpec::BASE
};

/// Later names of `file_path`.
pub const READ_FILE_PARAM_ALIASES: ParamMap =
    &[("path", "file_path"), ("absolute_path", "file_path")];

/// What `ReadFileTool` declares about itself.
pub static READ_FILE: ToolSpec = ToolSpec {
    name: "read_file",
    display_name: "ReadFile",
    param_aliases: READ_FILE_PARAM_ALIASES,
    claude: Some(ClaudeTwin {
        name: "Read",
        params: &[
            ("file_path", "file_path"),
            ("offset", "offset"),
            ("limit", "limit"),
        ],
    }),
    kind: ToolKind::Read,
    policy: DefaultPolicy::Allow,
    ..ToolSpec::BASE
};

/// `paths` is the later name of `include`.
pub const READ_MANY_FILES_PARAM_ALIASES: ParamMap = &[("paths", "include")];

/// What `ReadManyFilesTool` declares about itself.
pub static READ_MANY_FILES: ToolSpec = ToolSpec {
    name: "read_many_files",
    display_name: "ReadManyFiles",
    param_aliases: READ_MANY_FILES_PARAM_ALIASES,
    kind: ToolKind::Read,
    policy: DefaultPolicy::Allow,
    ..ToolSpec::BASE
};

/// What `ReplaceTool` declares about itself.
pub static REPLACE: ToolSpec = ToolSpec {
    name: "replace",
    display_name: "Edit",
    claude: Some(ClaudeTwin {
        name: "Edit",
        params: &[
            ("file_path", "file_path"),
            ("old_string", "old_string"),
            ("new_string", "new_string"),
            ("replace_all", "allow_multiple"),
        ],
    }),
    kind: ToolKind::Edit,
    policy: DefaultPolicy::AskUnlessAutoEdit,
    headless: Headless::FromAutoEdit,
    ..ToolSpec::BASE
};

/// `directory` is the later name of `dir_path`.
pub const SHELL_PARAM_ALIASES: ParamMap = &[("directory", "dir_path")];

/// What `ShellTool` declares about itself.
pub static SHELL: ToolSpec = ToolSpec {
    name: "run_shell_command",
    display_name: "Shell",
    param_aliases: SHELL_PARAM_ALIASES,
    claude: Some(ClaudeTwin {
        name: "Bash",
        params: &[
            ("command", "command"),
            ("description", "description"),
            ("run_in_background", "is_background"),
        ],
    }),
    kind: ToolKind::Execute,
    policy: DefaultPolicy::Ask,
    headless: Headless::YoloOnly,
    ..ToolSpec::BASE
};

/// What `WebFetchTool` declares about itself.
pub static WEB_FETCH: ToolSpec = ToolSpec {
    name: "web_fetch",
    display_name: "WebFetch",
    // Claude's `url` has no parameter of its own: our `prompt` carries
    // the URLs.
    claude: Some(ClaudeTwin {
        name: "WebFetch",
        params: &[("prompt", "prompt")],
    }),
    kind: ToolKind::Fetch,
    policy: DefaultPolicy::Ask,
    headless: Headless::FromAutoEdit,
    ..ToolSpec::BASE
};

/// What `WebSearchTool` declares about itself.
pub static WEB_SEARCH: ToolSpec = ToolSpec {
    name: "google_web_search",
    display_name: "GoogleSearch",
    claude: Some(ClaudeTwin {
        name: "WebSearch",
        params: &[("query", "query")],
    }),
    kind: ToolKind::Search,
    policy: DefaultPolicy::Allow,
    model: ModelUse::Required,
    ..ToolSpec::BASE
};

/// What `WriteFileTool` declares about itself.
pub static WRITE_FILE: ToolSpec = ToolSpec {
    name: "write_file",
    display_name: "WriteFile",
    claude: Some(ClaudeTwin {
        name: "Write",
        params: &[("file_path", "file_path"), ("content", "content")],
    }),
    kind: ToolKind::Edit,
    policy: DefaultPolicy::AskUnlessAutoEdit,
    headless: Headless::FromAutoEdit,
    ..ToolSpec::BASE
};

/// What `WriteTodosTool` declares about itself.
pub static WRITE_TODOS: ToolSpec = ToolSpec {
    name: "write_todos",
    display_name: "WriteTodos",
    kind: ToolKind::Other,
    ..ToolSpec::BASE
};
