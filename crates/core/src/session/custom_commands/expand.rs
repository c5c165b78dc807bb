//! A custom command's prompt for one invocation, in Gemini CLI's order:
//! `@{path}` injections first (a file's text as its own part, a folder's
//! files as `read_many_files` frames them), then `!{command}` injections
//! (run under the shell tool's policy and sandbox, `{{args}}` inside them
//! shell-escaped) and `{{args}}`; without `{{args}}` the invocation is
//! appended after a blank line when arguments were given.

use super::CustomCommand;
use super::error::{CommandError, InjectError};
use crate::policy::{ApprovalMode, Decision, PolicyEngine};
use crate::tools::builtin::shell::run_inline;
use crate::tools::builtin::{ReadManyFilesTool, ShellTool};
use crate::tools::{Tool, ToolContext};
use futures::future::BoxFuture;
use gemini_rs_protocol::Part;
use serde_json::json;
use tokio_util::sync::CancellationToken;

const ARGS: &str = "{{args}}";

/// Asks the user whether a prompt may run a shell command (the terminal
/// UI, an ACP client); sessions nobody can ask have none.
pub trait AskCommand: Sync {
    /// True when the user allows `command`.
    fn ask<'a>(&'a self, command: &'a str) -> BoxFuture<'a, bool>;
    /// `command`, allowed by [`AskCommand::ask`], starts running.
    fn running(&self, _command: &str) {}
    /// `command` ended: `ok` when it ran to exit code 0.
    fn ran(&self, _command: &str, _ok: bool) {}
}

/// What an invocation needs from the session.
pub struct Expansion<'a> {
    /// The tools' context (workspace, sandbox).
    pub ctx: &'a ToolContext,
    /// The policy `!{...}` commands are checked against.
    pub policy: &'a PolicyEngine,
    /// The approval mode now.
    pub mode: ApprovalMode,
    /// Ends running commands.
    pub cancel: &'a CancellationToken,
    /// Who approves commands the policy asks about.
    pub ask: Option<&'a dyn AskCommand>,
}

/// The user turn of `/name args` (`invocation` is what was typed) for a
/// command file's `prompt` template.
pub async fn expand(
    cmd: &CustomCommand,
    prompt: &str,
    args: &str,
    invocation: &str,
    env: &Expansion<'_>,
) -> Result<Vec<Part>, CommandError> {
    let uses_args = prompt.contains(ARGS);
    let mut parts = Vec::new();
    for piece in at_files(cmd, prompt, env).await? {
        match piece {
            Piece::Text(text) => {
                parts.push(Part::text(shell_and_args(cmd, &text, args, env).await?))
            }
            Piece::File(content) => parts.push(Part::text(content)),
        }
    }
    if !uses_args && !args.is_empty() {
        match parts.iter_mut().rev().find_map(|p| p.text.as_mut()) {
            Some(last) => {
                last.push_str("\n\n");
                last.push_str(invocation);
            }
            None => parts.push(Part::text(invocation)),
        }
    }
    parts.retain(|p| p.text.as_deref() != Some(""));
    Ok(parts)
}

/// A stretch of prompt text, or an injected file's content.
enum Piece {
    Text(String),
    File(String),
}

/// The `trigger{...}` injections of `text`: (start, end after `}`, inside),
/// braces balanced.
fn injections(
    cmd: &CustomCommand,
    text: &str,
    trigger: &'static str,
) -> Result<Vec<(usize, usize, String)>, CommandError> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(found) = text[from..].find(trigger) {
        let start = from + found;
        let body = start + trigger.len();
        let mut depth = 1;
        let mut end = None;
        for (i, c) in text[body..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(body + i);
                        break;
                    }
                }
                _ => {}
            }
        }
        let Some(end) = end else {
            return Err(CommandError::Unclosed {
                command: cmd.name.clone(),
                start,
                trigger,
            });
        };
        out.push((start, end + 1, text[body..end].trim().to_string()));
        from = end + 1;
    }
    Ok(out)
}

/// Splits `prompt` at its `@{path}` injections, reading each.
async fn at_files(
    cmd: &CustomCommand,
    prompt: &str,
    env: &Expansion<'_>,
) -> Result<Vec<Piece>, CommandError> {
    let mut out = Vec::new();
    let mut last = 0;
    for (start, end, path) in injections(cmd, prompt, "@{")? {
        out.push(Piece::Text(prompt[last..start].to_string()));
        out.push(Piece::File(read_injected(cmd, &path, env).await?));
        last = end;
    }
    out.push(Piece::Text(prompt[last..].to_string()));
    Ok(out)
}

/// The text an `@{path}` stands for, under `read_many_files`' checks.
async fn read_injected(
    cmd: &CustomCommand,
    path: &str,
    env: &Expansion<'_>,
) -> Result<String, CommandError> {
    let fail = |reason: InjectError| CommandError::Inject {
        command: cmd.name.clone(),
        path: path.to_string(),
        reason,
    };
    let ws = &env.ctx.workspace;
    let abs = ws.target_dir().join(path);
    ws.check_access(&abs)
        .map_err(|e| fail(InjectError::Access(e)))?;
    if abs.is_file() {
        let bytes = std::fs::read(&abs).map_err(|e| fail(e.into()))?;
        if bytes.iter().take(8192).any(|b| *b == 0) {
            return Err(fail(InjectError::NotText));
        }
        return Ok(String::from_utf8_lossy(&bytes).into_owned());
    }
    let tool = ReadManyFilesTool;
    let args = json!({"paths": [path]});
    let Some(args) = args.as_object() else {
        return Err(fail(InjectError::BadPath));
    };
    let invocation = tool
        .build(args, env.ctx)
        .map_err(|e| fail(InjectError::Tool(e.message)))?;
    let result = invocation.execute(env.ctx, env.cancel.clone()).await;
    if let Some(e) = result.error {
        return Err(fail(InjectError::Tool(e.message)));
    }
    Ok(result
        .llm_content
        .iter()
        .filter_map(|p| p.text.as_deref())
        .collect())
}

/// `text` with its `!{command}` injections replaced by their output and
/// `{{args}}` by the arguments.
async fn shell_and_args(
    cmd: &CustomCommand,
    text: &str,
    args: &str,
    env: &Expansion<'_>,
) -> Result<String, CommandError> {
    let found = injections(cmd, text, "!{")?;
    if found.is_empty() {
        return Ok(text.replace(ARGS, args));
    }
    let escaped = shell_escape(args);
    let commands: Vec<String> = found
        .iter()
        .map(|(_, _, c)| c.replace(ARGS, &escaped))
        .collect();
    for command in commands.iter().filter(|c| !c.is_empty()) {
        let call = json!({"command": command});
        match env.policy.decide(ShellTool.name(), &call, env.mode) {
            Decision::Allow => {}
            Decision::Deny => {
                return Err(CommandError::Blocked {
                    command: cmd.name.clone(),
                    shell: command.clone(),
                });
            }
            Decision::AskUser => {
                if let Some(ask) = env.ask {
                    if ask.ask(command).await {
                        continue;
                    }
                    return Err(CommandError::Declined {
                        command: cmd.name.clone(),
                        shell: command.clone(),
                    });
                }
                return Err(CommandError::NeedsApproval {
                    command: cmd.name.clone(),
                    shell: command.clone(),
                    allow: super::error::allow_argument(command),
                });
            }
        }
    }
    let mut out = String::new();
    let mut last = 0;
    for ((start, end, _), command) in found.iter().zip(&commands) {
        out.push_str(&text[last..*start].replace(ARGS, args));
        last = *end;
        if command.is_empty() {
            continue;
        }
        if let Some(ask) = env.ask {
            ask.running(command);
        }
        let run = run_inline(env.ctx, command, env.cancel).await;
        if let Some(ask) = env.ask {
            let ok = run.as_ref().is_ok_and(|r| {
                !r.aborted && r.signal.is_none() && r.exit_code.is_none_or(|c| c == 0)
            });
            ask.ran(command, ok);
        }
        let run = run.map_err(|source| CommandError::ShellStart {
            command: cmd.name.clone(),
            shell: command.clone(),
            source,
        })?;
        out.push_str(&run.output);
        if run.aborted {
            out.push_str(&format!("\n[Shell command '{command}' aborted]"));
        } else if let Some(code) = run.exit_code.filter(|c| *c != 0) {
            out.push_str(&format!(
                "\n[Shell command '{command}' exited with code {code}]"
            ));
        } else if let Some(signal) = run.signal {
            out.push_str(&format!(
                "\n[Shell command '{command}' terminated by signal {signal}]"
            ));
        }
    }
    out.push_str(&text[last..].replace(ARGS, args));
    Ok(out)
}

/// `s` as one bash word.
fn shell_escape(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}
