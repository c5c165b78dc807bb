//! MCP resources: what a server lists (`resources/list`,
//! `resources/templates/list`) and reading one for an `@server:uri`
//! reference, whose contents become prompt parts as in Gemini CLI (text as
//! is, blobs as `[Binary resource content <mime>, <n> bytes]`).

use base64::Engine;
use gemini_rs_protocol::Part;
use rmcp::model::{ReadResourceRequestParams, ResourceContents};
use rmcp::{Peer, RoleClient};
use std::time::Duration;

/// A server's resources as listed at connection time.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ResourceList {
    /// `(uri, name, description)` of each resource.
    pub resources: Vec<(String, String, Option<String>)>,
    /// `(uriTemplate, name)` of each template.
    pub templates: Vec<(String, String)>,
}

/// Lists a server's resources and templates (empty when it has none).
pub async fn list(peer: &Peer<RoleClient>) -> ResourceList {
    let has = peer
        .peer_info()
        .is_some_and(|i| i.capabilities.resources.is_some());
    if !has {
        return ResourceList::default();
    }
    let resources = match peer.list_all_resources().await {
        Ok(list) => list
            .into_iter()
            .map(|r| (r.uri.clone(), r.name.clone(), r.description))
            .collect(),
        Err(e) => {
            tracing::debug!("resources/list failed: {e}");
            Vec::new()
        }
    };
    let templates = match peer.list_all_resource_templates().await {
        Ok(list) => list
            .into_iter()
            .map(|t| (t.uri_template.clone(), t.name))
            .collect(),
        Err(e) => {
            tracing::debug!("resources/templates/list failed: {e}");
            Vec::new()
        }
    };
    ResourceList {
        resources,
        templates,
    }
}

/// Why `resources/read` failed.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The server's connection is gone.
    #[error("MCP client for server '{server}' is not available or not connected.")]
    NotConnected {
        /// The server name.
        server: String,
    },
    /// No answer within the server's timeout.
    #[error("MCP error -32001: Request timed out")]
    TimedOut,
    /// The server answered with an error.
    #[error("{0}")]
    Service(#[from] rmcp::service::ServiceError),
}

/// Reads `uri` from the server behind `peer` (`None`: not connected, the
/// error names `server`) into prompt parts, within `timeout`.
pub async fn read(
    peer: Option<Peer<RoleClient>>,
    server: &str,
    timeout: Duration,
    uri: &str,
) -> Result<Vec<Part>, ReadError> {
    let Some(peer) = peer else {
        return Err(ReadError::NotConnected {
            server: server.to_string(),
        });
    };
    let read = tokio::time::timeout(
        timeout,
        peer.read_resource(ReadResourceRequestParams::new(uri)),
    )
    .await
    .map_err(|_| ReadError::TimedOut)??;
    let mut parts = Vec::new();
    for content in read.contents {
        match content {
            ResourceContents::TextResourceContents { text, .. } => parts.push(Part::text(text)),
            ResourceContents::BlobResourceContents {
                blob, mime_type, ..
            } => {
                let size = base64::engine::general_purpose::STANDARD
                    .decode(blob.as_bytes())
                    .map(|b| b.len())
                    .unwrap_or(0);
                let mime = mime_type.unwrap_or_else(|| "application/octet-stream".to_string());
                parts.push(Part::text(format!(
                    "[Binary resource content {mime}, {size} bytes]"
                )));
            }
            #[allow(unreachable_patterns)]
            other => {
                /// A future kind of contents that carries a text.
                #[derive(serde::Deserialize)]
                struct WithText {
                    text: String,
                }
                if let Ok(WithText { text }) =
                    serde_json::to_value(&other).and_then(serde_json::from_value)
                {
                    parts.push(Part::text(text));
                }
            }
        }
    }
    Ok(parts)
}

/// Whether `uri` is an instance of the RFC 6570 `template` (each `{...}`
/// standing for a non-empty value).
pub fn template_matches(template: &str, uri: &str) -> bool {
    let mut pattern = String::from("^");
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        pattern.push_str(&regex::escape(&rest[..open]));
        let Some(close) = rest[open..].find('}') else {
            return false;
        };
        pattern.push_str(".+?");
        rest = &rest[open + close + 1..];
    }
    pattern.push_str(&regex::escape(rest));
    pattern.push('$');
    regex::Regex::new(&pattern).is_ok_and(|re| re.is_match(uri))
}

#[cfg(test)]
mod tests {
    use super::template_matches;

    #[test]
    fn templates_match_their_instances() {
        assert!(template_matches(
            "demo://resource/dynamic/text/{id}",
            "demo://resource/dynamic/text/7"
        ));
        assert!(!template_matches(
            "demo://resource/dynamic/text/{id}",
            "demo://resource/dynamic/text/"
        ));
        assert!(!template_matches("demo://a/{x}", "demo://b/1"));
        assert!(template_matches("file:///{path}", "file:///a/b.txt"));
    }
}
