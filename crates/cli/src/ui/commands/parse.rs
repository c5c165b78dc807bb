//! The slash commands' table (names and help, also used by completion)
//! and parsing a typed line into a [`Command`].

/// Command names and their help, in `/help` order.
pub const COMMANDS: &[(&str, &str)] = &[
    ("help", "Show help"),
    ("about", "Show version info"),
    (
        "chat",
        "Browse recorded sessions, or manage conversations: /chat save|resume|delete <tag>, /chat list, /chat share <file.md|file.json>",
    ),
    ("clear", "Clear the screen and the conversation (also /new)"),
    (
        "commands",
        "Custom command files: /commands list, /commands reload",
    ),
    (
        "compress",
        "Compress the context by replacing it with a summary",
    ),
    ("copy", "Copy the last answer to the clipboard"),
    (
        "export-session",
        "Write this session to a JSON file: /export-session <file>",
    ),
    (
        "directory",
        "Workspace directories: /directory show|add <path>",
    ),
    ("hooks", "List the configured hooks"),
    ("init", "Analyse the project and write a starter GEMINI.md"),
    (
        "mcp",
        "MCP servers and their tools: /mcp | /mcp auth <server>",
    ),
    ("memory", "Context files: /memory show|add <fact>|refresh"),
    (
        "model",
        "Switch the model: /model <name> (provider/model for other providers) or pick from a list",
    ),
    (
        "auth",
        "Choose the model provider (Gemini API key, Vertex AI, others)",
    ),
    (
        "plan",
        "Switch to Plan Mode (read-only planning) and view the approved plan: /plan [goal] | copy",
    ),
    (
        "permissions",
        "Change a folder's trust level: /permissions trust [dir]",
    ),
    ("restore", "Restore files and conversation: /restore [id]"),
    (
        "rewind",
        "Go back to before one of your prompts (conversation and/or file changes)",
    ),
    ("settings", "Edit the user or workspace settings"),
    (
        "resume",
        "Browse this project's sessions: /resume, then /resume <number or id>",
    ),
    ("quit", "Exit the CLI"),
    ("exit", "Exit the CLI"),
    ("skills", "List the agent skills: /skills list"),
    (
        "agents",
        "Sub-agents: /agents list | acknowledge (new project agents)",
    ),
    (
        "shells",
        "Background shell commands: /shells | /shells stop <pid>",
    ),
    ("bashes", "Same as /shells"),
    ("tasks", "Same as /shells (Gemini CLI 0.61's name)"),
    ("stats", "Show session statistics"),
    ("theme", "Change the colour theme: /theme [name]"),
    ("tools", "List the available tools and their descriptions"),
    ("shortcuts", "Show keyboard shortcuts"),
    ("bug", "Print a bug report to paste: /bug [description]"),
    ("docs", "Show where the documentation is"),
    ("editor", "Choose the external editor: /editor [name|none]"),
    (
        "extensions",
        "Extensions: /extensions list | enable|disable <name> [--scope user|workspace]",
    ),
    ("policies", "List the policy rules in force: /policies list"),
    ("privacy", "Show where your prompts and files go"),
    (
        "terminal-setup",
        "Set up Shift+Enter for multi-line input in VS Code-like terminals",
    ),
    ("vim", "Toggle vim editing of the prompt"),
    ("summarize", "Same as /compress"),
];

/// A parsed slash command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// `/help`.
    Help,
    /// `/theme [name]`.
    Theme(Option<String>),
    /// `/about`.
    About,
    /// `/chat list`.
    ChatList,
    /// `/chat save <tag>`.
    ChatSave(String),
    /// `/chat resume <tag>` (also `load`).
    ChatResume(String),
    /// `/resume [number or id]`: list this project's sessions, or switch
    /// to one.
    Resume(Option<String>),
    /// `/chat share [file]` (`.md` or `.json`).
    ChatShare(Option<String>),
    /// `/chat delete <tag>`.
    ChatDelete(String),
    /// `/clear`.
    Clear,
    /// `/compress`.
    Compress,
    /// `/copy`.
    Copy,
    /// `/export-session <file>`.
    ExportSession(String),
    /// `/directory show`.
    DirectoryShow,
    /// `/directory add <paths>`.
    DirectoryAdd(String),
    /// `/hooks`.
    Hooks,
    /// `/init`.
    Init,
    /// `/mcp`.
    Mcp,
    /// `/mcp auth <server>`.
    McpAuth(String),
    /// `/memory show`.
    MemoryShow,
    /// `/memory add <fact>`.
    MemoryAdd(String),
    /// `/memory refresh`.
    MemoryRefresh,
    /// `/model [name]`: switch to `name`, or pick from a list.
    Model(Option<String>),
    /// `/auth`: the provider picker.
    Auth,
    /// `/restore [id]`.
    Restore(Option<String>),
    /// `/rewind`.
    Rewind,
    /// `/settings`.
    Settings,
    /// `/quit`, `/exit`.
    Quit,
    /// `/stats`.
    Stats,
    /// `/tools`.
    Tools,
    /// `/skills` (`list`).
    Skills,
    /// `/agents` (`list`).
    Agents,
    /// `/agents acknowledge`: accept the new project agents.
    AgentsAcknowledge,
    /// `/skills enable|disable <name>`: true to enable.
    SkillSwitch(bool, String),
    /// `/shortcuts`.
    Shortcuts,
    /// `/shells` (`/bashes`): the background commands.
    Shells,
    /// `/shells stop <pid>`: end one.
    ShellStop(u32),
    /// `/bug [description]`.
    Bug(String),
    /// `/docs`.
    Docs,
    /// `/editor [name]`.
    Editor(Option<String>),
    /// `/extensions [list]`.
    Extensions,
    /// `/extensions enable|disable <name> [--scope s]`: on, name, scope.
    ExtensionSwitch(bool, String, String),
    /// `/policies [list]`.
    Policies,
    /// `/privacy`.
    Privacy,
    /// `/terminal-setup`.
    TerminalSetup,
    /// `/vim`.
    Vim,
    /// `/plan [goal]`: plan mode, then the goal as a prompt.
    Plan(Option<String>),
    /// `/plan copy`: the approved plan to the clipboard.
    PlanCopy,
    /// `/commands list`.
    CommandsList,
    /// `/permissions trust [dir]`.
    PermissionsTrust(Option<String>),
    /// `/commands reload`.
    CommandsReload,
    /// Recognised but not usable like this: the message.
    Usage(String),
    /// Not a command.
    Unknown(String),
}

/// The text after the first `n` words of `body`, trimmed.
fn rest_after(body: &str, n: usize) -> String {
    let mut rest = body.trim_start();
    for _ in 0..n {
        rest = rest.trim_start();
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        rest = &rest[end..];
    }
    rest.trim().to_string()
}

impl Command {
    /// True for commands that work on the conversation, so they wait for a
    /// running request to end (like a prompt typed meanwhile).
    pub fn needs_agent(&self) -> bool {
        match self {
            Command::ChatSave(_)
            | Command::ChatResume(_)
            | Command::ChatShare(_)
            | Command::Clear
            | Command::Compress
            | Command::Init
            | Command::MemoryAdd(_)
            | Command::MemoryRefresh
            | Command::Restore(_)
            | Command::Rewind
            | Command::Resume(Some(_))
            | Command::DirectoryAdd(_)
            | Command::ExportSession(_)
            | Command::McpAuth(_)
            | Command::Model(Some(_))
            | Command::Plan(Some(_)) => true,
            Command::Help
            | Command::About
            | Command::ChatList
            | Command::Resume(None)
            | Command::ChatDelete(_)
            | Command::Copy
            | Command::DirectoryShow
            | Command::Hooks
            | Command::Mcp
            | Command::MemoryShow
            | Command::Model(None)
            | Command::Auth
            | Command::Quit
            | Command::Settings
            | Command::Stats
            | Command::Tools
            | Command::Theme(_)
            | Command::Skills
            | Command::SkillSwitch(..)
            | Command::Agents
            | Command::AgentsAcknowledge
            | Command::Shortcuts
            | Command::Shells
            | Command::ShellStop(_)
            | Command::Bug(_)
            | Command::Docs
            | Command::Editor(_)
            | Command::Extensions
            | Command::ExtensionSwitch(..)
            | Command::Policies
            | Command::Privacy
            | Command::TerminalSetup
            | Command::Vim
            | Command::Plan(None)
            | Command::PlanCopy
            | Command::CommandsList
            | Command::CommandsReload
            | Command::PermissionsTrust(_)
            | Command::Usage(_)
            | Command::Unknown(_) => false,
        }
    }
}

/// `/chat list|save|resume|delete|share`; bare `/chat` browses the
/// recorded sessions.
fn chat(sub: Option<&str>, body: &str) -> Command {
    let arg = rest_after(body, 2);
    match sub {
        Some("list") => Command::ChatList,
        Some("save") => need(
            &arg,
            "Missing tag. Usage: /chat save <tag>",
            Command::ChatSave,
        ),
        Some("resume" | "load") => need(
            &arg,
            "Missing tag. Usage: /chat resume <tag>",
            Command::ChatResume,
        ),
        Some("share") => {
            let file = rest_after(body, 2);
            Command::ChatShare((!file.is_empty()).then_some(file))
        }
        Some("delete") => need(
            &arg,
            "Missing tag. Usage: /chat delete <tag>",
            Command::ChatDelete,
        ),
        // Bare `/chat` browses the recorded sessions, as `/resume` does.
        None => Command::Resume(None),
        _ => Command::Usage(
            "Usage: /chat list | save <tag> | resume <tag> | delete <tag> | share <file>".into(),
        ),
    }
}

/// The command `make` builds from `arg`, or `usage` when `arg` is empty.
fn need(arg: &str, usage: &str, make: fn(String) -> Command) -> Command {
    if arg.is_empty() {
        Command::Usage(usage.to_string())
    } else {
        make(arg.to_string())
    }
}

/// Parses `/name args`.
pub fn parse(line: &str) -> Command {
    let body = line.trim().trim_start_matches('/');
    let mut words = body.split_whitespace();
    let name = words.next().unwrap_or("");
    let sub = words.next();
    let arg = rest_after(body, 2);
    match (name, sub) {
        ("help" | "?", _) => Command::Help,
        ("about", _) => Command::About,
        ("chat", _) => chat(sub, body),
        ("clear" | "new", _) => Command::Clear,
        ("permissions", Some("trust")) => {
            Command::PermissionsTrust(Some(arg).filter(|a| !a.is_empty()))
        }
        ("permissions", _) => Command::Usage(super::permissions::USAGE.into()),
        ("commands", Some("list")) => Command::CommandsList,
        ("commands", Some("reload")) => Command::CommandsReload,
        ("commands", _) => Command::Usage(super::custom::USAGE.into()),
        ("plan", Some("copy")) if rest_after(body, 2).is_empty() => Command::PlanCopy,
        ("plan", _) => Command::Plan(Some(rest_after(body, 1)).filter(|g| !g.is_empty())),
        ("resume", _) => Command::Resume(Some(rest_after(body, 1)).filter(|a| !a.is_empty())),
        ("compress" | "summarize", _) => Command::Compress,
        ("copy", _) => Command::Copy,
        ("export-session", _) => match rest_after(body, 1) {
            file if file.is_empty() => Command::Usage(
                "Usage: /export-session <file>, for example /export-session ./session.json".into(),
            ),
            file => Command::ExportSession(file),
        },
        ("directory" | "dir", Some("show") | None) => Command::DirectoryShow,
        ("directory" | "dir", Some("add")) => need(
            &arg,
            "Please provide at least one path to add.",
            Command::DirectoryAdd,
        ),
        ("directory" | "dir", Some(_)) => {
            Command::Usage("Usage: /directory show | add <path>[,<path>...]".into())
        }
        ("hooks", _) => Command::Hooks,
        ("init", _) => Command::Init,
        ("mcp", Some("auth")) if !arg.is_empty() => Command::McpAuth(arg),
        ("mcp", Some("auth")) => Command::Usage("Usage: /mcp auth <server>".to_string()),
        ("mcp", _) => Command::Mcp,
        ("memory", Some("show") | None) => Command::MemoryShow,
        ("memory", Some("add")) => need(
            &arg,
            "Usage: /memory add <text to remember>",
            Command::MemoryAdd,
        ),
        ("memory", Some("refresh")) => Command::MemoryRefresh,
        ("memory", Some(_)) => Command::Usage("Usage: /memory show | add <fact> | refresh".into()),
        ("model", _) => {
            let name = rest_after(body, 1);
            Command::Model((!name.is_empty()).then_some(name))
        }
        ("auth", _) => Command::Auth,
        ("restore", _) => Command::Restore(sub.map(str::to_string)),
        ("rewind", _) => Command::Rewind,
        ("settings", _) => Command::Settings,
        ("quit" | "exit", _) => Command::Quit,
        ("stats", _) => Command::Stats,
        ("tools", _) => Command::Tools,
        ("theme", _) => {
            let name = rest_after(body, 1);
            Command::Theme((!name.is_empty()).then_some(name))
        }
        ("skills", None | Some("list")) => Command::Skills,
        ("skills", Some(which @ ("enable" | "disable"))) if !arg.is_empty() => {
            Command::SkillSwitch(which == "enable", arg)
        }
        ("skills", Some(_)) => {
            Command::Usage("Usage: /skills list | enable <name> | disable <name>".to_string())
        }
        ("agents", None | Some("list")) => Command::Agents,
        ("agents", Some("acknowledge")) => Command::AgentsAcknowledge,
        ("agents", Some(_)) => Command::Usage("Usage: /agents list | acknowledge".to_string()),
        ("shortcuts", _) => Command::Shortcuts,
        ("shells" | "bashes" | "tasks", None | Some("list")) => Command::Shells,
        ("shells" | "bashes" | "tasks", Some("stop" | "kill")) => match arg.parse() {
            Ok(pid) => Command::ShellStop(pid),
            Err(_) => Command::Usage("Usage: /shells stop <pid>".to_string()),
        },
        ("shells" | "bashes" | "tasks", Some(_)) => {
            Command::Usage("Usage: /shells | /shells stop <pid>".to_string())
        }
        ("bug", _) => Command::Bug(rest_after(body, 1)),
        ("docs", _) => Command::Docs,
        ("editor", _) => {
            let name = rest_after(body, 1);
            Command::Editor((!name.is_empty()).then_some(name))
        }
        ("extensions", None | Some("list")) => Command::Extensions,
        ("extensions", Some(which @ ("enable" | "disable"))) => extension_switch(which, &arg),
        ("extensions", Some(_)) => Command::Usage(EXTENSIONS_USAGE.to_string()),
        ("policies", None | Some("list")) => Command::Policies,
        ("policies", Some(_)) => Command::Usage("Usage: /policies list".to_string()),
        ("privacy", _) => Command::Privacy,
        ("terminal-setup", _) => Command::TerminalSetup,
        ("vim", _) => Command::Vim,
        _ => Command::Unknown(name.to_string()),
    }
}

const EXTENSIONS_USAGE: &str = "Usage: /extensions list | enable <name> [--scope user|workspace] | disable <name> [--scope user|workspace]";

/// `enable|disable <name> [--scope user|workspace]` (`--scope=...` too).
fn extension_switch(which: &str, args: &str) -> Command {
    let mut words = args.split_whitespace();
    let (mut name, mut scope) = (None, "user".to_string());
    while let Some(w) = words.next() {
        if let Some(s) = w.strip_prefix("--scope=") {
            scope = s.to_string();
        } else if w == "--scope" {
            match words.next() {
                Some(s) => scope = s.to_string(),
                None => return Command::Usage(EXTENSIONS_USAGE.to_string()),
            }
        } else if name.is_none() {
            name = Some(w.to_string());
        } else {
            return Command::Usage(EXTENSIONS_USAGE.to_string());
        }
    }
    match name {
        Some(name) => Command::ExtensionSwitch(which == "enable", name, scope),
        None => Command::Usage(EXTENSIONS_USAGE.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_commands() {
        assert_eq!(parse("/help"), Command::Help);
        assert_eq!(parse("/chat list"), Command::ChatList);
        assert_eq!(parse("/memory"), Command::MemoryShow);
        assert_eq!(parse("/nope"), Command::Unknown("nope".into()));
        assert_eq!(
            parse("/chat save my tag"),
            Command::ChatSave("my tag".into())
        );
        assert_eq!(parse("/chat load x"), Command::ChatResume("x".into()));
        assert_eq!(parse("/resume"), Command::Resume(None));
        assert_eq!(parse("/plan copy"), Command::PlanCopy);
        assert_eq!(parse("/chat"), Command::Resume(None));
        assert_eq!(parse("/new"), Command::Clear);
        assert_eq!(parse("/tasks"), Command::Shells);
        assert_eq!(parse("/commands reload"), Command::CommandsReload);
        assert_eq!(
            parse("/permissions trust ../x"),
            Command::PermissionsTrust(Some("../x".into()))
        );
        assert_eq!(parse("/permissions trust"), Command::PermissionsTrust(None));
        assert!(matches!(parse("/commands"), Command::Usage(_)));
        assert_eq!(parse("/plan"), Command::Plan(None));
        assert_eq!(
            parse("/plan copy the api"),
            Command::Plan(Some("copy the api".into()))
        );
        assert_eq!(parse("/resume 2"), Command::Resume(Some("2".into())));
        assert!(matches!(parse("/chat save"), Command::Usage(_)));
        assert_eq!(
            parse("/memory add  I like  tea "),
            Command::MemoryAdd("I like  tea".into())
        );
        assert_eq!(parse("/memory refresh"), Command::MemoryRefresh);
        assert_eq!(parse("/restore"), Command::Restore(None));
        assert_eq!(parse("/restore abc"), Command::Restore(Some("abc".into())));
        assert_eq!(
            parse("/directory add ../x"),
            Command::DirectoryAdd("../x".into())
        );
        assert_eq!(parse("/directory"), Command::DirectoryShow);
        assert_eq!(parse("/mcp"), Command::Mcp);
        assert_eq!(parse("/mcp auth gh"), Command::McpAuth("gh".into()));
        assert_eq!(parse("/skills"), Command::Skills);
        assert_eq!(parse("/agents"), Command::Agents);
        assert_eq!(parse("/agents acknowledge"), Command::AgentsAcknowledge);
        assert!(matches!(parse("/agents x"), Command::Usage(_)));
        assert_eq!(parse("/skills list"), Command::Skills);
        assert_eq!(
            parse("/export-session out dir/s.json"),
            Command::ExportSession("out dir/s.json".into())
        );
        assert!(matches!(parse("/export-session"), Command::Usage(_)));
        assert_eq!(
            parse("/skills disable x"),
            Command::SkillSwitch(false, "x".into())
        );
        assert!(matches!(parse("/skills disable"), Command::Usage(_)));
        assert_eq!(parse("/shells"), Command::Shells);
        assert_eq!(parse("/bashes"), Command::Shells);
        assert_eq!(parse("/shells stop 42"), Command::ShellStop(42));
        assert_eq!(parse("/bashes kill 7"), Command::ShellStop(7));
        assert!(matches!(parse("/shells stop x"), Command::Usage(_)));
        assert_eq!(parse("/bug it  broke"), Command::Bug("it  broke".into()));
        assert_eq!(parse("/editor"), Command::Editor(None));
        assert_eq!(parse("/editor vim"), Command::Editor(Some("vim".into())));
        assert_eq!(parse("/extensions"), Command::Extensions);
        assert_eq!(
            parse("/extensions disable ext1 --scope workspace"),
            Command::ExtensionSwitch(false, "ext1".into(), "workspace".into())
        );
        assert_eq!(
            parse("/extensions enable ext1"),
            Command::ExtensionSwitch(true, "ext1".into(), "user".into())
        );
        assert!(matches!(parse("/extensions enable"), Command::Usage(_)));
        assert_eq!(parse("/policies list"), Command::Policies);
        assert_eq!(parse("/vim"), Command::Vim);
    }
}
