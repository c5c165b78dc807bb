//! `-m auto`: before each prompt a small classifier call picks the flash or
//! the pro model for it, as Gemini CLI v0.27.4's router does; a quota error
//! that outlasts the retries moves the session to flash. Replayed sessions
//! make no classifier call (the recording decides), so every recording
//! replays unchanged.

use crate::model::{ContentGenerator, ModelError};
use gemini_rs_protocol::{
    Content, GenerateContentRequest, GenerationConfig, Part, Role, ThinkingConfig,
};
use serde_json::{Map, json};
use tokio_util::sync::CancellationToken;

/// The models `auto` chooses between.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AutoRouting {
    /// For simple requests (and after a persistent quota error).
    pub flash: String,
    /// For complex requests; the choice when nothing can be classified.
    pub pro: String,
    /// The model that classifies.
    pub classifier: String,
    /// Whether to classify at all (not when replaying a recording).
    pub classify: bool,
}

impl AutoRouting {
    /// The routing of an `auto` model name, or `None` for a concrete model.
    pub fn for_model(name: &str, classify: bool) -> Option<AutoRouting> {
        let (flash, pro) = match name {
            "auto" | "auto-gemini-2.5" => ("gemini-2.5-flash", "gemini-2.5-pro"),
            "auto-gemini-3" => ("gemini-3-flash-preview", "gemini-3-pro-preview"),
            _ => return None,
        };
        Some(AutoRouting {
            flash: flash.to_string(),
            pro: pro.to_string(),
            classifier: "gemini-2.5-flash-lite".to_string(),
            classify,
        })
    }

    /// The model for the next prompt: the classifier's choice, else pro.
    pub async fn choose(
        &self,
        generator: &dyn ContentGenerator,
        history: &[Content],
        prompt: &str,
        cancel: &CancellationToken,
    ) -> String {
        if !self.classify {
            return self.pro.clone();
        }
        let request = classifier_request(history, prompt);
        let answer = generator
            .generate(&self.classifier, &request, cancel.clone())
            .await;
        match answer.map(|r| r.text()) {
            Ok(text) => match choice(&text) {
                Some(Choice::Flash) => self.flash.clone(),
                Some(Choice::Pro) => self.pro.clone(),
                None => {
                    tracing::warn!("the model router's answer was not understood: {text}");
                    self.pro.clone()
                }
            },
            Err(e) => {
                tracing::warn!(
                    "the model router's classifier failed, using {}: {e}",
                    self.pro
                );
                self.pro.clone()
            }
        }
    }
}

/// Whether `error` is a quota error that retries did not cure.
pub fn is_persistent_quota_error(error: &ModelError) -> bool {
    match error {
        ModelError::RateLimited { .. } => true,
        ModelError::RetriesExhausted { last, .. } => is_persistent_quota_error(last),
        ModelError::AtProvider { error, .. } => is_persistent_quota_error(error),
        ModelError::Provider { status, .. } => *status == 429,
        _ => false,
    }
}

/// What the classifier may answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Choice {
    Flash,
    Pro,
}

/// The `model_choice` of the classifier's JSON answer.
fn choice(text: &str) -> Option<Choice> {
    let start = text.find('{')?;
    let end = text.rfind('}')?;
    /// The classifier's answer.
    #[derive(serde::Deserialize)]
    struct Answer {
        model_choice: String,
    }
    let answer: Answer = serde_json::from_str(text.get(start..=end)?).ok()?;
    match answer.model_choice.as_str() {
        "flash" => Some(Choice::Flash),
        "pro" => Some(Choice::Pro),
        _ => None,
    }
}

/// Our instructions to the classifier.
const CLASSIFIER_PROMPT: &str = "You route requests of a coding agent to one of two models. \
Choose \"flash\" for simple, well-defined work: a question with a direct answer, reading or \
listing a few files, a small local edit, running one command. Choose \"pro\" for work that needs \
planning or deep reasoning: changes across several files, debugging an unclear failure, design \
or architecture questions, anything ambiguous. Consider the recent conversation for context. \
Answer with JSON only: {\"reasoning\": \"<one short sentence>\", \"model_choice\": \"flash\" or \"pro\"}.";

/// Recent turns given to the classifier for context.
const CONTEXT_TURNS: usize = 4;

/// The classifier call: recent history (text only), the new prompt, a JSON
/// schema for the answer and a small thinking budget.
fn classifier_request(history: &[Content], prompt: &str) -> GenerateContentRequest {
    let mut contents: Vec<Content> = history
        .iter()
        .rev()
        .filter_map(|c| {
            let parts: Vec<Part> = c
                .parts
                .iter()
                .filter(|p| !p.is_thought())
                .filter_map(|p| p.text.clone())
                .map(Part::text)
                .collect();
            (!parts.is_empty()).then(|| Content { parts, ..c.clone() })
        })
        .take(CONTEXT_TURNS)
        .collect();
    contents.reverse();
    contents.push(Content::new(Role::User, vec![Part::text(prompt)]));
    let mut extra = Map::new();
    extra.insert("responseMimeType".into(), json!("application/json"));
    extra.insert(
        "responseJsonSchema".into(),
        json!({"type": "object", "properties": {
            "reasoning": {"type": "string"},
            "model_choice": {"type": "string", "enum": ["flash", "pro"]}},
            "required": ["reasoning", "model_choice"]}),
    );
    GenerateContentRequest {
        contents,
        system_instruction: Some(Content::user_text(CLASSIFIER_PROMPT)),
        generation_config: Some(GenerationConfig {
            temperature: Some(0.into()),
            thinking_config: Some(ThinkingConfig {
                thinking_budget: Some(512),
                ..ThinkingConfig::default()
            }),
            extra,
            ..GenerationConfig::default()
        }),
        ..GenerateContentRequest::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_read_leniently() {
        assert_eq!(
            choice(r#"{"reasoning": "simple", "model_choice": "flash"}"#),
            Some(Choice::Flash)
        );
        assert_eq!(
            choice("```json\n{\"model_choice\":\"pro\"}\n```"),
            Some(Choice::Pro)
        );
        assert_eq!(choice("pro"), None);
        assert_eq!(choice(r#"{"model_choice": "ultra"}"#), None);
    }

    #[test]
    fn only_auto_names_route() {
        assert_eq!(
            AutoRouting::for_model("auto", true).unwrap().pro,
            "gemini-2.5-pro"
        );
        assert_eq!(
            AutoRouting::for_model("auto-gemini-3", true).unwrap().flash,
            "gemini-3-flash-preview"
        );
        assert!(AutoRouting::for_model("gemini-2.5-pro", true).is_none());
    }

    #[test]
    fn quota_errors_are_recognised_through_retries() {
        let quota = ModelError::RateLimited {
            message: "q".into(),
        };
        let wrapped = ModelError::RetriesExhausted {
            attempts: 5,
            last: Box::new(quota),
        };
        assert!(is_persistent_quota_error(&wrapped));
        assert!(!is_persistent_quota_error(&ModelError::Cancelled));
    }
}
