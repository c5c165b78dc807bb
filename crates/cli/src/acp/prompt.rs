//! ACP to core: a prompt's content blocks as parts, and the client's MCP
//! servers as settings entries.

use agent_client_protocol::v1::schema as acp;
use agent_client_protocol::{Error, ErrorCode};
use gemini_rs_protocol::Part;
use serde_json::{Map, Value, json};

/// An ACP prompt as parts: text, resource links as `@path` references
/// (expanded like typed ones), embedded resources as framed text, images
/// and audio as inline data.
pub fn prompt_parts(blocks: Vec<acp::ContentBlock>) -> Result<Vec<Part>, Error> {
    let mut parts = Vec::new();
    for block in blocks {
        match block {
            acp::ContentBlock::Text(t) => parts.push(Part::text(t.text)),
            acp::ContentBlock::ResourceLink(link) => match link.uri.strip_prefix("file://") {
                Some(path) => parts.push(Part::text(format!("@{path}"))),
                None => parts.push(Part::text(format!("[{}]({})", link.name, link.uri))),
            },
            acp::ContentBlock::Resource(embedded) => match embedded.resource {
                acp::EmbeddedResourceResource::TextResourceContents(res) => {
                    parts.push(Part::text(format!(
                        "\n--- Content from referenced context: {} ---\n{}\n--- End of content ---",
                        res.uri, res.text
                    )))
                }
                acp::EmbeddedResourceResource::BlobResourceContents(res) => {
                    let mime = res
                        .mime_type
                        .unwrap_or_else(|| "application/octet-stream".to_string());
                    parts.push(Part::inline_data(&mime, &res.blob));
                }
                _ => return Err(unsupported("an embedded resource of an unknown kind")),
            },
            acp::ContentBlock::Image(image) => {
                parts.push(Part::inline_data(&image.mime_type, &image.data))
            }
            acp::ContentBlock::Audio(audio) => {
                parts.push(Part::inline_data(&audio.mime_type, &audio.data))
            }
            _ => return Err(unsupported("a content block of an unknown type")),
        }
    }
    Ok(parts)
}

fn unsupported(what: &str) -> Error {
    Error::new(
        ErrorCode::INVALID_PARAMS,
        format!("unsupported prompt: {what}"),
    )
}

/// The client's MCP servers (`session/new`) as settings' `mcpServers`
/// entries: stdio (`command`, `args`, `env`), `http` and `sse`.
pub fn mcp_servers(servers: Vec<acp::McpServer>) -> Vec<(String, Value)> {
    let pairs = |list: Vec<(String, String)>| -> Map<String, Value> {
        list.into_iter()
            .map(|(k, v)| (k, Value::String(v)))
            .collect()
    };
    let headers =
        |list: Vec<acp::HttpHeader>| pairs(list.into_iter().map(|h| (h.name, h.value)).collect());
    servers
        .into_iter()
        .filter_map(|server| match server {
            acp::McpServer::Http(s) => Some((
                s.name,
                json!({"httpUrl": s.url, "headers": headers(s.headers)}),
            )),
            acp::McpServer::Sse(s) => {
                Some((s.name, json!({"url": s.url, "headers": headers(s.headers)})))
            }
            acp::McpServer::Stdio(s) => {
                let env = pairs(s.env.into_iter().map(|e| (e.name, e.value)).collect());
                Some((
                    s.name,
                    json!({"command": s.command, "args": s.args, "env": env}),
                ))
            }
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    fn blocks(v: Value) -> Vec<acp::ContentBlock> {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn prompt_blocks_become_parts() {
        let parts = prompt_parts(blocks(json!([
            {"type": "text", "text": "look at"},
            {"type": "resource_link", "uri": "file:///w/a.rs", "name": "a.rs"},
            {"type": "resource", "resource": {"uri": "file:///w/b.rs", "text": "fn b() {}"}},
            {"type": "image", "data": "AAAA", "mimeType": "image/png"},
        ])))
        .unwrap();
        assert_eq!(parts[1].text.as_deref(), Some("@/w/a.rs"));
        assert!(parts[2].text.as_deref().unwrap().contains("fn b() {}"));
        assert_eq!(
            parts[3].inline_data.as_ref().unwrap().mime_type,
            "image/png"
        );
        // An unknown block type does not parse at all: the SDK answers
        // invalid params.
        assert!(
            serde_json::from_value::<Vec<acp::ContentBlock>>(json!([{"type": "video"}])).is_err()
        );
    }

    #[test]
    fn mcp_servers_become_settings_entries() {
        let servers: Vec<acp::McpServer> = serde_json::from_value(json!([
            {"name": "local", "command": "/bin/srv", "args": ["-v"], "env": [{"name": "K", "value": "V"}]},
            {"type": "http", "name": "remote", "url": "https://h/mcp", "headers": [{"name": "A", "value": "B"}]},
        ]))
        .unwrap();
        let entries = mcp_servers(servers);
        assert_eq!(
            entries[0],
            (
                "local".to_string(),
                json!({"command": "/bin/srv", "args": ["-v"], "env": {"K": "V"}})
            )
        );
        assert_eq!(
            entries[1],
            (
                "remote".to_string(),
                json!({"httpUrl": "https://h/mcp", "headers": {"A": "B"}})
            )
        );
    }
}
