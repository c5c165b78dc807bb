//! When and how the agent compresses its history: automatically near the
//! context window, or on `/compress`, with the compaction hooks around it.

use super::{Agent, AgentEvent, compress};
use tokio_util::sync::CancellationToken;

impl Agent {
    /// Compresses the history when it nears the context window; a failure
    /// leaves it untouched and says so.
    pub(super) async fn maybe_compress(&mut self, cancel: &CancellationToken) {
        let estimate = match self.last_prompt_tokens {
            Some((tokens, len)) if len <= self.history.len() => {
                tokens + compress::estimate_tokens(&self.history[len..])
            }
            _ => compress::estimate_tokens(&self.history),
        };
        let window = self.config.context_windows.get(&self.config.model);
        if !compress::should_compress(estimate, window, self.config.compression_threshold) {
            return;
        }
        self.compress_with(cancel, "auto").await;
    }

    /// Summarises the older history now (`/compress`).
    pub async fn compress_now(&mut self, cancel: &CancellationToken) -> bool {
        self.compress_with(cancel, "manual").await
    }

    /// Fires PreCompress (`trigger`: `auto|manual`), compresses, then
    /// fires PostCompact (Claude hooks) once it did.
    async fn compress_with(&mut self, cancel: &CancellationToken, trigger: &str) -> bool {
        if let Some(hooks) = self.hooks.clone() {
            hooks.pre_compress(trigger).await;
        }
        let model = self.config.model.clone();
        match compress::compress(
            self.generator.as_ref(),
            &model,
            &self.history,
            cancel.clone(),
        )
        .await
        {
            Ok(history) => {
                let before = compress::estimate_tokens(&self.history);
                self.history = history;
                self.last_prompt_tokens = None;
                let after = compress::estimate_tokens(&self.history);
                self.emit(AgentEvent::Info {
                    message: format!(
                        "Chat history compressed from about {before} to about {after} tokens."
                    ),
                })
                .await;
                if let Some(hooks) = self.hooks.clone() {
                    let summary = compress::summary_of(&self.history);
                    hooks.post_compact(trigger, &summary).await;
                }
                true
            }
            // Before a request, a conversation too short to summarise
            // is simply sent; only `/compress` says there was nothing.
            Err(compress::CompressError::TooShort) if trigger == "auto" => false,
            Err(e) => {
                self.emit(AgentEvent::Warning {
                    message: e.to_string(),
                })
                .await;
                false
            }
        }
    }
}
