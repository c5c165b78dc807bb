//! A server's prompts (`prompts/list`, `prompts/get`), as MCP's types: the
//! session offers them as slash commands.

use super::client::McpConnection;
use super::error::PromptError;
use rmcp::model::{GetPromptRequestParams, GetPromptResult, Prompt};
use serde_json::{Map, Value, json};

impl McpConnection {
    /// The server's prompts; none when it offers none or the listing fails.
    pub async fn list_prompts(&self) -> Vec<Prompt> {
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
            Ok(Ok(prompts)) => prompts,
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
    ) -> Result<GetPromptResult, PromptError> {
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
        Ok(answer)
    }
}
