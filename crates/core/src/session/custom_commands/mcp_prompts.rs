//! MCP prompts as slash commands: `/<prompt-name>` with arguments given as
//! `--name=value` (quoted values may hold spaces) or by position, as Gemini
//! CLI parses them; the prompt's messages become the user turn.

use super::error::CommandError;
use super::{CommandSource, CustomCommand, PromptArgument};
use crate::tools::mcp::{McpConnection, McpManager};
use gemini_rs_protocol::Part;
use rmcp::model::{ContentBlock, ResourceContents};
use serde_json::{Map, Value};

/// The prompts of every connected server as commands.
pub async fn mcp_prompt_commands(mcp: &McpManager) -> Vec<CustomCommand> {
    let mut out = Vec::new();
    for conn in mcp.connections() {
        out.extend(connection_prompt_commands(&conn).await);
    }
    out
}

/// The prompts of one server as commands.
pub async fn connection_prompt_commands(conn: &McpConnection) -> Vec<CustomCommand> {
    let mut out = Vec::new();
    for prompt in conn.list_prompts().await {
        let arguments = prompt
            .arguments
            .into_iter()
            .flatten()
            .map(|a| PromptArgument {
                name: a.name,
                required: a.required == Some(true),
            })
            .collect();
        let description = prompt
            .description
            .unwrap_or_else(|| "Invoke this MCP prompt".to_string());
        out.push(CustomCommand {
            name: prompt.name,
            description,
            source: CommandSource::McpPrompt {
                server: conn.config.name.clone(),
                arguments,
            },
        });
    }
    out
}

/// The user turn of an MCP prompt invoked with `args`.
pub async fn prompt_turn(
    mcp: &McpManager,
    cmd: &CustomCommand,
    args: &str,
) -> Result<Vec<Part>, CommandError> {
    let CommandSource::McpPrompt { server, arguments } = &cmd.source else {
        return Err(CommandError::NotMcpPrompt {
            command: cmd.name.clone(),
        });
    };
    let inputs = parse_args(args, arguments)?;
    let conn = mcp
        .connections()
        .into_iter()
        .find(|c| c.config.name == *server)
        .ok_or_else(|| CommandError::NoServer {
            server: server.clone(),
        })?;
    let result = conn.get_prompt(&cmd.name, inputs).await?;
    let parts: Vec<Part> = result
        .messages
        .into_iter()
        .filter_map(|m| message_part(m.content))
        .collect();
    if parts.is_empty() {
        return Err(CommandError::EmptyPrompt);
    }
    Ok(parts)
}

/// One message's content as a part: text, an image, or a resource's text.
fn message_part(content: ContentBlock) -> Option<Part> {
    match content {
        ContentBlock::Text(t) => Some(Part::text(t.text)),
        ContentBlock::Image(i) => Some(Part::inline_data(i.mime_type, i.data)),
        ContentBlock::Audio(a) => Some(Part::inline_data(a.mime_type, a.data)),
        ContentBlock::Resource(r) => match r.resource {
            ResourceContents::TextResourceContents { text, .. } => Some(Part::text(text)),
            ResourceContents::BlobResourceContents {
                mime_type, blob, ..
            } => Some(Part::inline_data(
                mime_type.unwrap_or_else(|| "application/octet-stream".into()),
                blob,
            )),
            _ => None,
        },
        _ => None,
    }
}

/// `--name=value` / `--name="a b"` pairs and positional words, matched to
/// the prompt's arguments as Gemini CLI matches them: named first; with one
/// required argument unfilled, every positional word goes to it; else the
/// words fill the unfilled required ones in order.
fn parse_args(
    args: &str,
    arguments: &[PromptArgument],
) -> Result<Map<String, Value>, CommandError> {
    let mut named = Map::new();
    let mut positional_text = String::new();
    let mut rest = args;
    while let Some(at) = rest.find("--") {
        let after = &rest[at + 2..];
        let key_len = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(after.len());
        if key_len == 0 || !after[key_len..].starts_with('=') {
            positional_text.push_str(&rest[..at + 2]);
            rest = after;
            continue;
        }
        positional_text.push_str(&rest[..at]);
        let key = &after[..key_len];
        let value_start = &after[key_len + 1..];
        let (value, used) = word(value_start);
        named.insert(key.to_string(), Value::String(value));
        rest = &value_start[used..];
    }
    positional_text.push_str(rest);
    let mut positional = Vec::new();
    let mut text = positional_text.trim();
    while !text.is_empty() {
        let (value, used) = word(text);
        positional.push(value);
        text = text[used..].trim_start();
    }
    let mut inputs = Map::new();
    for arg in arguments {
        if let Some(v) = named.get(&arg.name).filter(|v| v.as_str() != Some("")) {
            inputs.insert(arg.name.clone(), v.clone());
        }
    }
    let unfilled: Vec<&PromptArgument> = arguments
        .iter()
        .filter(|a| a.required && !inputs.contains_key(&a.name))
        .collect();
    if let [only] = unfilled.as_slice() {
        inputs.insert(only.name.clone(), Value::String(positional.join(" ")));
        return Ok(inputs);
    }
    let mut missing = Vec::new();
    for (i, arg) in unfilled.iter().enumerate() {
        match positional.get(i) {
            Some(v) => {
                inputs.insert(arg.name.clone(), Value::String(v.clone()));
            }
            None => missing.push(format!("--{}", arg.name)),
        }
    }
    if !missing.is_empty() {
        return Err(CommandError::MissingArguments(missing));
    }
    Ok(inputs)
}

/// A quoted (escapes removed) or space-delimited word at the start of `s`,
/// and the bytes it used.
fn word(s: &str) -> (String, usize) {
    if let Some(body) = s.strip_prefix('"') {
        let mut out = String::new();
        let mut chars = body.char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '\\' => {
                    if let Some((_, next)) = chars.next() {
                        out.push(next);
                    }
                }
                '"' => return (out, i + 2),
                _ => out.push(c),
            }
        }
        return (out, s.len());
    }
    let end = s.find(' ').unwrap_or(s.len());
    (s[..end].to_string(), end)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(names: &[(&str, bool)]) -> Vec<PromptArgument> {
        names
            .iter()
            .map(|(n, r)| PromptArgument {
                name: n.to_string(),
                required: *r,
            })
            .collect()
    }

    #[test]
    fn named_and_positional_arguments() {
        let a = args(&[("city", true), ("state", false)]);
        let got = parse_args(r#"--state="New York" Buffalo"#, &a).unwrap();
        assert_eq!(got["city"], "Buffalo");
        assert_eq!(got["state"], "New York");
        // One required argument left: all the words go to it.
        let got = parse_args("San Francisco Bay", &a).unwrap();
        assert_eq!(got["city"], "San Francisco Bay");
        let two = args(&[("a", true), ("b", true)]);
        let got = parse_args("x y", &two).unwrap();
        assert_eq!(
            (got["a"].as_str(), got["b"].as_str()),
            (Some("x"), Some("y"))
        );
        assert_eq!(
            parse_args("x", &two).unwrap_err().to_string(),
            "Missing required argument(s): --b"
        );
    }
}
