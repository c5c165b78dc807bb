//! `ask_user`: the model asks the user one to four questions (choices,
//! multi-select, yes/no, free text) and waits for the answers. Declared
//! only where a person answers through the front end (the terminal UI);
//! headless and ACP sessions leave it out, as Gemini CLI 0.61 does. The
//! parameter shape, the checks and the result texts are 0.61's.

use super::Builtin;
use super::Make;
use super::common::parse_params;
use crate::catalogue::builtins::ASK_USER as SPEC;
use crate::tools::spec::identity_from_spec;
use crate::tools::{Tool, ToolContext, ToolError, ToolInvocation, ToolResult};
use futures::future::BoxFuture;
use gemini_rs_protocol::events::{Question, QuestionType, QuestionsReply};
use serde::Deserialize;
use serde_json::{Map, Value, json};
use std::sync::{Arc, LazyLock};
use tokio_util::sync::CancellationToken;

/// Asks the front end: the call's id and the questions in, the user's
/// reply out (the session implements it; tools never import it).
pub type Asker =
    Arc<dyn Fn(String, Vec<Question>) -> BoxFuture<'static, QuestionsReply> + Send + Sync>;

const DESCRIPTION: &str = "Asks the user one to four questions and waits for the answers: to learn preferences, settle unclear requirements or let the user choose between approaches. Prefer choice questions whose options carry a short description, and allow several picks (multiSelect) when more than one option can apply. The user can always answer a choice or yes/no question with their own text instead (\"Other\").";

/// What the model sees when the user closed the form.
pub const DISMISSED: &str = "User dismissed ask_user dialog without answering.";

static SCHEMA: LazyLock<Value> = LazyLock::new(|| {
    json!({
        "type": "object",
        "required": ["questions"],
        "properties": {
            "questions": {
                "type": "array",
                "minItems": 1,
                "maxItems": 4,
                "items": {
                    "type": "object",
                    "required": ["question", "header", "type"],
                    "properties": {
                        "question": {
                            "type": "string",
                            "description": "The whole question, specific and ending with a question mark."
                        },
                        "header": {
                            "type": "string",
                            "description": "A label of one or two short words shown as the question's tab (\"Auth\", \"Database\")."
                        },
                        "type": {
                            "type": "string",
                            "enum": ["choice", "text", "yesno"],
                            "default": "choice",
                            "description": "'choice' (the default): pick among options; 'text': free-form answer; 'yesno': Yes or No. Choice and yes/no questions also offer an 'Other' answer with text."
                        },
                        "options": {
                            "type": "array",
                            "description": "For 'choice' questions: two to four options ('Other' is added by itself). Leave out for 'text' and 'yesno'.",
                            "items": {
                                "type": "object",
                                "required": ["label", "description"],
                                "properties": {
                                    "label": {
                                        "type": "string",
                                        "description": "What the user picks, in one to five words."
                                    },
                                    "description": {
                                        "type": "string",
                                        "description": "What choosing it means."
                                    }
                                }
                            }
                        },
                        "multiSelect": {
                            "type": "boolean",
                            "description": "For 'choice' questions: true lets the user pick several options."
                        },
                        "placeholder": {
                            "type": "string",
                            "description": "A hint shown in the empty text field ('text' questions, or the 'Other' answer)."
                        }
                    }
                }
            }
        }
    })
});

/// Its registration: only sessions whose front end answers questions
/// make it (with their [`Asker`]).
pub(super) const BUILTIN: Builtin = Builtin {
    make: Make::WithSessionData,
};

/// The `ask_user` tool.
pub struct AskUserTool {
    asker: Asker,
}

impl AskUserTool {
    /// The tool, asking through `asker`.
    pub fn new(asker: Asker) -> Self {
        AskUserTool { asker }
    }
}

#[derive(Deserialize)]
struct Params {
    questions: Vec<Question>,
}

impl Tool for AskUserTool {
    identity_from_spec!(SPEC);
    fn description(&self) -> &str {
        DESCRIPTION
    }
    fn parameter_schema(&self) -> &Value {
        &SCHEMA
    }
    fn build(
        &self,
        args: &Map<String, Value>,
        _ctx: &ToolContext,
    ) -> Result<Box<dyn ToolInvocation>, ToolError> {
        let params: Params = parse_params(args, &[])?;
        check(&params.questions).map_err(|e| ToolError::invalid_params(e.to_string()))?;
        Ok(Box::new(AskUserCall {
            questions: params.questions.into_iter().map(normalized).collect(),
            asker: self.asker.clone(),
        }))
    }
}

/// What 0.61 refuses beyond the schema, with its messages.
#[derive(Debug, thiserror::Error)]
enum BadQuestions {
    /// The list is empty.
    #[error("At least one question is required.")]
    None,
    /// A choice question (1-based) with fewer than 2 options.
    #[error("Question {0}: type='choice' requires 'options' array with 2-4 items.")]
    TooFewOptions(usize),
    /// A choice question (1-based) with more than 4 options.
    #[error("Question {0}: 'options' array must have at most 4 items.")]
    TooManyOptions(usize),
    /// An option (question, option; 1-based) without a label.
    #[error("Question {0}, option {1}: 'label' is required and must be a non-empty string.")]
    EmptyLabel(usize, usize),
}

/// 0.61's checks beyond the schema, with its messages.
fn check(questions: &[Question]) -> Result<(), BadQuestions> {
    if questions.is_empty() {
        return Err(BadQuestions::None);
    }
    for (i, q) in questions.iter().enumerate() {
        let n = i + 1;
        if q.kind == QuestionType::Choice {
            if q.options.len() < 2 {
                return Err(BadQuestions::TooFewOptions(n));
            }
            if q.options.len() > 4 {
                return Err(BadQuestions::TooManyOptions(n));
            }
        }
        for (j, o) in q.options.iter().enumerate() {
            if o.label.trim().is_empty() {
                return Err(BadQuestions::EmptyLabel(n, j + 1));
            }
        }
    }
    Ok(())
}

/// Models often send `\n` escaped: it becomes a line break, and option
/// descriptions are trimmed.
fn normalized(mut q: Question) -> Question {
    let unescape = |s: &str| s.replace("\\r\\n", "\n").replace("\\n", "\n");
    q.question = unescape(&q.question);
    q.header = unescape(&q.header);
    q.placeholder = q.placeholder.as_deref().map(unescape);
    for o in &mut q.options {
        o.label = unescape(&o.label);
        o.description = unescape(o.description.trim());
    }
    q
}

struct AskUserCall {
    questions: Vec<Question>,
    asker: Asker,
}

impl ToolInvocation for AskUserCall {
    fn description(&self) -> String {
        let asked: Vec<&str> = self.questions.iter().map(|q| q.question.as_str()).collect();
        format!("Asking user: {}", asked.join(", "))
    }

    fn execute<'a>(
        &'a self,
        ctx: &'a ToolContext,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            let call_id = ctx.call_id.clone().unwrap_or_default();
            let asked = (self.asker)(call_id, self.questions.clone());
            let reply = tokio::select! {
                reply = asked => reply,
                _ = cancel.cancelled() => QuestionsReply::Dismiss,
            };
            result(&self.questions, reply)
        })
    }
}

/// The result the model and the user see.
fn result(questions: &[Question], reply: QuestionsReply) -> ToolResult {
    let answers = match reply {
        QuestionsReply::Dismiss => return ToolResult::text(DISMISSED, "User dismissed dialog"),
        QuestionsReply::Submit(answers) => answers,
    };
    let llm = json!({ "answers": answers }).to_string();
    if answers.is_empty() {
        return ToolResult::text(llm, "User submitted without answering questions.");
    }
    let mut display = String::from("**User answered:**");
    for (index, answer) in &answers {
        let header = index
            .parse::<usize>()
            .ok()
            .and_then(|i| questions.get(i))
            .map_or_else(|| format!("Q{index}"), |q| q.header.clone());
        let prefix = format!("  {header} → ");
        let indent = " ".repeat(prefix.chars().count());
        display.push('\n');
        display.push_str(&prefix);
        display.push_str(&answer.replace('\n', &format!("\n{indent}")));
    }
    ToolResult::text(llm, display)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::builtin::test_fixture::ToolFixture;
    use std::collections::BTreeMap;

    fn tool(reply: QuestionsReply) -> Arc<dyn Tool> {
        let asker: Asker = Arc::new(move |_, _| {
            let reply = reply.clone();
            Box::pin(async move { reply })
        });
        Arc::new(AskUserTool::new(asker))
    }

    fn one_choice() -> Value {
        json!({"questions": [{
            "question": "Which DB?", "header": "DB", "type": "choice",
            "options": [{"label": "Postgres", "description": "sql"},
                        {"label": "Mongo", "description": " docs "}]
        }]})
    }

    #[tokio::test]
    async fn answers_go_back_as_json_keyed_by_index() {
        let answers = BTreeMap::from([("0".to_string(), "Postgres".to_string())]);
        let fx = ToolFixture::new(tool(QuestionsReply::Submit(answers)), &[]);
        let r = fx.run(one_choice()).await;
        assert_eq!(r.llm_text(), r#"{"answers":{"0":"Postgres"}}"#);
        assert_eq!(
            r.display.as_text(),
            Some("**User answered:**\n  DB → Postgres")
        );
    }

    #[tokio::test]
    async fn a_dismissal_and_an_empty_submission_say_so() {
        let fx = ToolFixture::new(tool(QuestionsReply::Dismiss), &[]);
        assert_eq!(fx.run(one_choice()).await.llm_text(), DISMISSED);
        let fx = ToolFixture::new(tool(QuestionsReply::Submit(BTreeMap::new())), &[]);
        let r = fx.run(one_choice()).await;
        assert_eq!(r.llm_text(), r#"{"answers":{}}"#);
        assert_eq!(
            r.display.as_text(),
            Some("User submitted without answering questions.")
        );
    }

    #[tokio::test]
    async fn a_choice_needs_two_options() {
        let fx = ToolFixture::new(tool(QuestionsReply::Dismiss), &[]);
        let r = fx
            .run(
                json!({"questions": [{"question": "Q?", "header": "H", "type": "choice",
                "options": [{"label": "only", "description": ""}]}]}),
            )
            .await;
        let err = r.error.expect("refused");
        assert_eq!(
            err.message,
            "Question 1: type='choice' requires 'options' array with 2-4 items."
        );
        let r = fx
            .run(json!({"questions": [{"question": "Q?", "header": "H", "type": "text"}]}))
            .await;
        assert!(r.error.is_none(), "{:?}", r.error);
    }
}
