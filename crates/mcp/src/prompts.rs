//! A server's prompts (`prompts/list`, `prompts/get`), as plain JSON: the
//! session offers them as slash commands.

use super::client::McpConnection;
use super::error::PromptError;
use rmcp::model::GetPromptRequestParams;
use serde_json::{Map, Value, json};

impl McpConnection {
    /// The server's prompts (`{name, description, arguments: [{name,
    /// required}]}`); none when it offers none or the listing fails.
    pub async fn list_prompts(&self) -> Vec<Value> {
        let Some(peer) = self.peer() else {
            return Vec::new();
        };
        let offers = peer
            .peer_info()
            .is_some_and(|i| i.capabilities.prompts.is_some());
        if !offers {
            return Vec::new();
        }
        let listed = tokio::time::timeout(self.config.timeout(), peer.list_all_prompts()).await;
        match listed {
            Ok(Ok(prompts)) => prompts
                .iter()
                .filter_map(|p| serde_json::to_value(p).ok())
                .collect(),
            Ok(Err(e)) => {
                tracing::warn!(server = %self.config.name, "listing MCP prompts failed: {e}");
                Vec::new()
            }
            Err(_) => {
                tracing::warn!(server = %self.config.name, "listing MCP prompts timed out");
                Vec::new()
            }
        }
    }

    /// `prompts/get` with `arguments`: the result as JSON (`{messages}`).
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: Map<String, Value>,
    ) -> Result<Value, PromptError> {
        let peer = self.peer().ok_or_else(|| PromptError::NotConnected {
            server: self.config.name.clone(),
        })?;
        let params: GetPromptRequestParams =
            serde_json::from_value(json!({"name": name, "arguments": arguments}))?;
        let answer = tokio::time::timeout(self.config.timeout(), peer.get_prompt(params))
            .await
            .map_err(|_| PromptError::TimedOut {
                server: self.config.name.clone(),
            })??;
        Ok(serde_json::to_value(answer)?)
    }
}
