//! Claude Code's `prompt` hooks: the hook's prompt, `$ARGUMENTS` replaced
//! by the event's input JSON (or the input appended when it names none),
//! is sent to a model (the hook's `model`, else the session's) through
//! the session's content generator; its JSON answer `{"ok": bool,
//! "reason": ...}` decides. `ok: true` is a command hook's exit code 0
//! with no output; `ok: false` its exit code 2 with `[<prompt>]: <reason>`
//! as stderr (a block where the event blocks, as Claude Code does); an
//! answer that is not that JSON, or no answer, is a non-blocking error.

use super::config::CommandHook;
use super::http::Answer;
use crate::model::{ContentGenerator, ModelError};
use futures::future::BoxFuture;
use gemini_rs_protocol::{Content, GenerateContentRequest, GenerationConfig};
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// What a prompt hook asks of the model: the hook's own words decide.
const SYSTEM: &str = "You judge a condition for a hook of a coding agent. Read the condition and the \
event's input (JSON) the user gives you, and decide whether the condition holds. Answer with one JSON \
object and nothing else: {\"ok\": true, \"reason\": \"<why it holds>\"} or {\"ok\": false, \"reason\": \
\"<why it does not>\"}. Always include a reason.";

/// Asks a model for a prompt hook's verdict.
pub trait PromptJudge: Send + Sync + std::fmt::Debug {
    /// The model's text answer to `prompt` under `system`, from `model`
    /// (the session's when `None`), or why there is none.
    fn ask<'a>(
        &'a self,
        model: Option<&'a str>,
        system: &'a str,
        prompt: &'a str,
    ) -> BoxFuture<'a, Result<String, ModelError>>;
}

/// A [`PromptJudge`] on the session's content generator and model.
pub struct GeneratorJudge {
    /// The session's content generator.
    pub generator: Arc<dyn ContentGenerator>,
    /// The session's model.
    pub model: String,
}

impl std::fmt::Debug for GeneratorJudge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GeneratorJudge")
            .field("model", &self.model)
            .finish_non_exhaustive()
    }
}

impl PromptJudge for GeneratorJudge {
    fn ask<'a>(
        &'a self,
        model: Option<&'a str>,
        system: &'a str,
        prompt: &'a str,
    ) -> BoxFuture<'a, Result<String, ModelError>> {
        Box::pin(async move {
            let request = GenerateContentRequest {
                contents: vec![Content::user_text(prompt)],
                system_instruction: Some(Content::user_text(system)),
                generation_config: Some(GenerationConfig::default()),
                ..GenerateContentRequest::default()
            };
            let model = model.unwrap_or(&self.model);
            self.generator
                .generate(model, &request, CancellationToken::new())
                .await
                .map(|r| r.text())
        })
    }
}

/// The hook's prompt with `$ARGUMENTS` replaced by `input` (appended when
/// the prompt does not name it).
pub fn fill(prompt: &str, input: &str) -> String {
    if prompt.contains("$ARGUMENTS") {
        prompt.replace("$ARGUMENTS", input)
    } else {
        format!("{prompt}\n\n{input}")
    }
}

/// A judging model's verdict: `ok`, and a `reason` that is read only when
/// it is a string.
#[derive(Debug, serde::Deserialize)]
struct Verdict {
    ok: bool,
    #[serde(
        default,
        deserialize_with = "crate::config::lenient::wrong_type_as_none"
    )]
    reason: Option<String>,
}

/// A model's answer as `(ok, reason)`: the first JSON object in `text`
/// with a boolean `ok`.
pub fn verdict(text: &str) -> Option<(bool, String)> {
    let start = text.find('{')?;
    let end = text.rfind('}')?;
    let v: Verdict = serde_json::from_str(text.get(start..=end)?).ok()?;
    Some((v.ok, v.reason.unwrap_or_default()))
}

/// Runs the prompt hook `hook` (its prompt in `command`, its model in
/// `model`) on `input` with `judge`.
pub(super) async fn run(
    hook: &CommandHook,
    model: Option<&str>,
    input: &[u8],
    judge: Option<&dyn PromptJudge>,
) -> Answer {
    let Some(judge) = judge else {
        return Answer::Failed("no model to ask for a prompt hook".into());
    };
    let prompt = fill(&hook.command, &String::from_utf8_lossy(input));
    let limit = Duration::from_millis(hook.timeout_ms);
    let text = match tokio::time::timeout(limit, judge.ask(model, SYSTEM, &prompt)).await {
        Err(_) => return Answer::TimedOut,
        Ok(Err(why)) => return Answer::Failed(why.to_string()),
        Ok(Ok(text)) => text,
    };
    match verdict(&text) {
        Some((true, _)) => Answer::Exited {
            code: 0,
            stdout: String::new(),
            stderr: String::new(),
        },
        Some((false, reason)) => Answer::Exited {
            code: 2,
            stdout: String::new(),
            stderr: format!("[{}]: {reason}", hook.command),
        },
        None => Answer::Exited {
            code: 1,
            stdout: String::new(),
            stderr: format!("A prompt hook's model did not answer {{\"ok\": ...}}: {text}"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_and_verdicts() {
        assert_eq!(fill("Safe? $ARGUMENTS", "{}"), "Safe? {}");
        assert_eq!(fill("Safe?", "{}"), "Safe?\n\n{}");
        assert_eq!(
            verdict("```json\n{\"ok\": false, \"reason\": \"no\"}\n```"),
            Some((false, "no".into()))
        );
        assert_eq!(verdict("{\"ok\": true}"), Some((true, String::new())));
        assert_eq!(verdict("{\"ok\": \"yes\"}"), None);
        assert_eq!(verdict("sure"), None);
    }
}
