//! The slash commands, one entry each: name, the aliases it also answers
//! to, its `/help` line (which completion offers too), whether it waits
//! for a running request, and its handler. `/help` lists the entries in
//! this order; an alias is accepted but neither listed nor completed. A new
//! command is one entry here and its handler.

use super::{plan, preferences, slash, slash_info};
use crate::ui::commands::args::Args;
use crate::ui::commands::info;
use crate::ui::control::App;

/// One slash command.
pub struct SlashCommand {
    /// The name typed after `/`.
    pub name: &'static str,
    /// Other names it answers to (not listed in `/help` or completion).
    pub aliases: &'static [&'static str],
    /// Its `/help` line, also the completion's detail.
    pub help: &'static str,
    /// Whether it waits (queued) while a request runs.
    pub wait: Wait,
    /// Runs it.
    pub run: fn(&mut App, &Args),
}

/// When a command waits for a running request to end, as a prompt typed
/// meanwhile does: the ones that work on the conversation.
pub enum Wait {
    /// Acts at once.
    Never,
    /// Always waits.
    Always,
    /// Waits for these arguments (the others act at once).
    When(fn(&Args) -> bool),
}

/// Every built-in slash command, in `/help` order.
pub static COMMANDS: &[SlashCommand] = &[
    SlashCommand {
        name: "help",
        aliases: &["?"],
        help: "Show help",
        wait: Wait::Never,
        run: help,
    },
    SlashCommand {
        name: "about",
        aliases: &[],
        help: "Show version info",
        wait: Wait::Never,
        run: slash_info::about,
    },
    SlashCommand {
        name: "chat",
        aliases: &[],
        help: "Browse recorded sessions, or manage conversations: /chat save|resume|delete <tag>, /chat list, /chat share <file.md|file.json>",
        wait: Wait::When(slash::chat_waits),
        run: slash::chat,
    },
    SlashCommand {
        name: "clear",
        aliases: &["new"],
        help: "Clear the screen and the conversation (also /new)",
        wait: Wait::Always,
        run: slash::clear,
    },
    SlashCommand {
        name: "commands",
        aliases: &[],
        help: "Custom command files: /commands list, /commands reload",
        wait: Wait::Never,
        run: slash_info::commands,
    },
    SlashCommand {
        name: "compress",
        aliases: &[],
        help: "Compress the context by replacing it with a summary",
        wait: Wait::Always,
        run: slash::compress,
    },
    SlashCommand {
        name: "copy",
        aliases: &[],
        help: "Copy the last answer to the clipboard",
        wait: Wait::Never,
        run: slash::copy,
    },
    SlashCommand {
        name: "export-session",
        aliases: &[],
        help: "Write this session to a JSON file: /export-session <file>",
        wait: Wait::When(|a| !a.rest().is_empty()),
        run: slash::export_session,
    },
    SlashCommand {
        name: "directory",
        aliases: &["dir"],
        help: "Workspace directories: /directory show|add <path>",
        wait: Wait::When(|a| a.sub() == Some("add") && !a.arg().is_empty()),
        run: slash::directory,
    },
    SlashCommand {
        name: "hooks",
        aliases: &[],
        help: "List the configured hooks",
        wait: Wait::Never,
        run: slash_info::hooks,
    },
    SlashCommand {
        name: "init",
        aliases: &[],
        help: "Analyse the project and write a starter GEMINI.md",
        wait: Wait::Always,
        run: slash::init,
    },
    SlashCommand {
        name: "mcp",
        aliases: &[],
        help: "MCP servers and their tools: /mcp | /mcp auth <server>",
        wait: Wait::When(|a| a.sub() == Some("auth") && !a.arg().is_empty()),
        run: slash::mcp,
    },
    SlashCommand {
        name: "memory",
        aliases: &[],
        help: "Context files: /memory show|add <fact>|refresh",
        wait: Wait::When(|a| match a.sub() {
            Some("add") => !a.arg().is_empty(),
            Some("refresh") => true,
            _ => false,
        }),
        run: slash::memory,
    },
    SlashCommand {
        name: "model",
        aliases: &[],
        help: "Switch the model: /model <name> (provider/model for other providers) or pick from a list",
        wait: Wait::When(|a| !a.rest().is_empty()),
        run: slash_info::model,
    },
    SlashCommand {
        name: "auth",
        aliases: &[],
        help: "Choose the model provider (Gemini API key, Vertex AI, others)",
        wait: Wait::Never,
        run: slash_info::auth,
    },
    SlashCommand {
        name: "plan",
        aliases: &[],
        help: "Switch to Plan Mode (read-only planning) and view the approved plan: /plan [goal] | copy",
        wait: Wait::When(|a| !a.rest().is_empty() && !plan::is_copy(a)),
        run: plan::command,
    },
    SlashCommand {
        name: "permissions",
        aliases: &[],
        help: "Change a folder's trust level: /permissions trust [dir]",
        wait: Wait::Never,
        run: slash_info::permissions,
    },
    SlashCommand {
        name: "restore",
        aliases: &[],
        help: "Restore files and conversation: /restore [id]",
        wait: Wait::Always,
        run: slash::restore,
    },
    SlashCommand {
        name: "rewind",
        aliases: &[],
        help: "Go back to before one of your prompts (conversation and/or file changes)",
        wait: Wait::Always,
        run: slash::rewind,
    },
    SlashCommand {
        name: "settings",
        aliases: &[],
        help: "Edit the user or workspace settings",
        wait: Wait::Never,
        run: slash_info::settings,
    },
    SlashCommand {
        name: "resume",
        aliases: &[],
        help: "Browse this project's sessions: /resume, then /resume <number or id>",
        wait: Wait::When(|a| !a.rest().is_empty()),
        run: slash::resume,
    },
    SlashCommand {
        name: "quit",
        aliases: &[],
        help: "Exit the CLI",
        wait: Wait::Never,
        run: slash_info::quit,
    },
    SlashCommand {
        name: "exit",
        aliases: &[],
        help: "Exit the CLI",
        wait: Wait::Never,
        run: slash_info::quit,
    },
    SlashCommand {
        name: "skills",
        aliases: &[],
        help: "List the agent skills: /skills list",
        wait: Wait::Never,
        run: slash_info::skills,
    },
    SlashCommand {
        name: "agents",
        aliases: &[],
        help: "Sub-agents: /agents list | acknowledge (new project agents)",
        wait: Wait::Never,
        run: slash::agents,
    },
    SlashCommand {
        name: "shells",
        aliases: &[],
        help: "Background shell commands: /shells | /shells stop <pid>",
        wait: Wait::Never,
        run: slash::shells,
    },
    SlashCommand {
        name: "bashes",
        aliases: &[],
        help: "Same as /shells",
        wait: Wait::Never,
        run: slash::shells,
    },
    SlashCommand {
        name: "tasks",
        aliases: &[],
        help: "Same as /shells (Gemini CLI 0.61's name)",
        wait: Wait::Never,
        run: slash::shells,
    },
    SlashCommand {
        name: "stats",
        aliases: &[],
        help: "Show session statistics",
        wait: Wait::Never,
        run: slash_info::stats,
    },
    SlashCommand {
        name: "theme",
        aliases: &[],
        help: "Change the colour theme: /theme [name]",
        wait: Wait::Never,
        run: slash_info::theme,
    },
    SlashCommand {
        name: "tools",
        aliases: &[],
        help: "List the available tools and their descriptions",
        wait: Wait::Never,
        run: slash_info::tools,
    },
    SlashCommand {
        name: "shortcuts",
        aliases: &[],
        help: "Show keyboard shortcuts",
        wait: Wait::Never,
        run: slash_info::shortcuts,
    },
    SlashCommand {
        name: "bug",
        aliases: &[],
        help: "Print a bug report to paste: /bug [description]",
        wait: Wait::Never,
        run: preferences::bug,
    },
    SlashCommand {
        name: "docs",
        aliases: &[],
        help: "Show where the documentation is",
        wait: Wait::Never,
        run: preferences::docs,
    },
    SlashCommand {
        name: "editor",
        aliases: &[],
        help: "Choose the external editor: /editor [name|none]",
        wait: Wait::Never,
        run: preferences::editor,
    },
    SlashCommand {
        name: "extensions",
        aliases: &[],
        help: "Extensions: /extensions list | enable|disable <name> [--scope user|workspace]",
        wait: Wait::Never,
        run: preferences::extensions,
    },
    SlashCommand {
        name: "policies",
        aliases: &[],
        help: "List the policy rules in force: /policies list",
        wait: Wait::Never,
        run: preferences::policies,
    },
    SlashCommand {
        name: "privacy",
        aliases: &[],
        help: "Show where your prompts and files go",
        wait: Wait::Never,
        run: preferences::privacy,
    },
    SlashCommand {
        name: "terminal-setup",
        aliases: &[],
        help: "Set up Shift+Enter for multi-line input in VS Code-like terminals",
        wait: Wait::Never,
        run: preferences::terminal_setup,
    },
    SlashCommand {
        name: "vim",
        aliases: &[],
        help: "Toggle vim editing of the prompt",
        wait: Wait::Never,
        run: preferences::vim,
    },
    SlashCommand {
        name: "summarize",
        aliases: &[],
        help: "Same as /compress",
        wait: Wait::Always,
        run: slash::compress,
    },
];

/// Runs a slash command line: a built-in one, else a custom command (the
/// session expands it), else a warning.
pub fn command(app: &mut App, line: &str) {
    let args = Args::new(line);
    let name = args.name();
    match find(name) {
        Some(c) => (c.run)(app, &args),
        None if app.ctx.info.commands().iter().any(|c| c.name == name) => {
            app.send_prompt(line.to_string());
        }
        None => app
            .state
            .warn(&format!("Unknown command: /{name}. Type /help.")),
    }
}

/// `/help`: the commands, the custom ones, then the shortcuts.
fn help(app: &mut App, _: &Args) {
    let lines = info::help_lines(&listed(), &app.ctx.info.commands());
    app.state.push_lines(lines);
}

/// The command `name` (or an alias) stands for.
pub fn find(name: &str) -> Option<&'static SlashCommand> {
    COMMANDS
        .iter()
        .find(|c| c.name == name || c.aliases.contains(&name))
}

/// `(name, help)` of every command, in `/help` order: what `/help` lists
/// and completion offers.
pub fn listed() -> Vec<(&'static str, &'static str)> {
    COMMANDS.iter().map(|c| (c.name, c.help)).collect()
}

/// True when `line` is a built-in command that waits while a request runs.
pub fn waits(line: &str) -> bool {
    let args = Args::new(line);
    match find(args.name()).map(|c| &c.wait) {
        Some(Wait::Always) => true,
        Some(Wait::When(when)) => when(&args),
        Some(Wait::Never) | None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_aliases_are_found_once() {
        for c in COMMANDS {
            for name in std::iter::once(&c.name).chain(c.aliases) {
                let owners = COMMANDS
                    .iter()
                    .filter(|o| o.name == *name || o.aliases.contains(name))
                    .count();
                assert_eq!(owners, 1, "/{name} answers more than once");
            }
        }
        assert_eq!(find("new").map(|c| c.name), Some("clear"));
        assert_eq!(find("?").map(|c| c.name), Some("help"));
        assert_eq!(find("dir").map(|c| c.name), Some("directory"));
        assert!(find("nope").is_none());
    }

    #[test]
    fn conversation_commands_wait_and_listings_do_not() {
        for line in [
            "/chat save t",
            "/chat resume t",
            "/chat load t",
            "/chat share",
            "/clear",
            "/new",
            "/compress",
            "/summarize",
            "/init",
            "/memory add x",
            "/memory refresh",
            "/restore",
            "/rewind",
            "/resume 2",
            "/directory add ../x",
            "/export-session s.json",
            "/mcp auth gh",
            "/model gemini-2.5-pro",
            "/plan a goal",
            "/plan copy the api",
        ] {
            assert!(waits(line), "{line} should wait");
        }
        for line in [
            "/chat",
            "/chat list",
            "/chat save",
            "/chat delete t",
            "/resume",
            "/memory",
            "/memory add",
            "/model",
            "/plan",
            "/plan copy",
            "/mcp",
            "/mcp auth",
            "/shells stop 4",
            "/agents acknowledge",
            "/help",
            "/vim",
            "/nope",
        ] {
            assert!(!waits(line), "{line} should not wait");
        }
    }
}
