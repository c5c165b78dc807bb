//! "Modify with editor": a tool whose edit proposal the user may rewrite
//! says, in its confirmation details, which of its arguments take the
//! rewritten text. Front ends only hand back the text; the argument names
//! stay with the tool that owns them.

use super::ConfirmationDetails;
use serde_json::{Map, Value};

/// How the user's rewrite of a proposed file content becomes the call's
/// changed arguments (merged into the call by the scheduler, which then
/// rebuilds the call and asks again).
#[derive(Debug, Clone, PartialEq)]
pub struct Modifiable {
    /// The argument that receives the edited text (`content` for
    /// write_file).
    pub edited_argument: String,
    /// Arguments set alongside it, fixed when the proposal was made
    /// (replace's `old_string` becomes the whole current file).
    pub also_set: Map<String, Value>,
}

impl Modifiable {
    /// The edited text goes to `argument`, nothing else changes.
    pub fn new(argument: impl Into<String>) -> Self {
        Modifiable {
            edited_argument: argument.into(),
            also_set: Map::new(),
        }
    }

    /// Also sets `argument` to `value` when the user modifies the proposal.
    pub fn with(mut self, argument: impl Into<String>, value: impl Into<Value>) -> Self {
        self.also_set.insert(argument.into(), value.into());
        self
    }

    /// The changed arguments for the user's `edited` text.
    pub fn arguments(&self, edited: String) -> Map<String, Value> {
        let mut args = self.also_set.clone();
        args.insert(self.edited_argument.clone(), Value::String(edited));
        args
    }
}

impl ConfirmationDetails {
    /// How the proposal can be rewritten in an editor; None when the tool
    /// offers no modification.
    pub fn modifiable(&self) -> Option<&Modifiable> {
        match self {
            ConfirmationDetails::Edit { modifiable, .. } => modifiable.as_ref(),
            ConfirmationDetails::Exec { .. }
            | ConfirmationDetails::Mcp { .. }
            | ConfirmationDetails::Info { .. } => None,
        }
    }

    /// The arguments that replace the call's after the user rewrote the
    /// proposed content into `edited` (None when it cannot be modified);
    /// send them with `ConfirmationResponse::modified`.
    pub fn modified_args(&self, edited: String) -> Option<Map<String, Value>> {
        self.modifiable().map(|m| m.arguments(edited))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use crate::tools::builtin::test_fixture::ToolFixture;
    use crate::tools::builtin::{MemoryTool, ReplaceTool, WriteFileTool};
    use crate::tools::{Tool, ToolContext};
    use serde_json::json;
    use std::sync::Arc;

    /// The details the tool shows for `args` in a project holding `a.txt`.
    async fn details(tool: Arc<dyn Tool>, args: Value) -> ConfirmationDetails {
        let f = ToolFixture::new(tool.clone(), &[("a.txt", b"old all")]);
        let ctx: &ToolContext = &f.ctx;
        let built = f.registry.build(tool.name(), &args, ctx).unwrap();
        built.invocation.confirmation(ctx).await.unwrap()
    }

    #[tokio::test]
    async fn modified_args_per_tool() {
        let w = details(
            Arc::new(WriteFileTool::new()),
            json!({"file_path": "a.txt", "content": "proposed"}),
        )
        .await;
        let w = w.modified_args("mine".into()).unwrap();
        assert_eq!(Value::Object(w), json!({"content": "mine"}));

        let r = details(
            Arc::new(ReplaceTool),
            json!({"file_path": "a.txt", "instruction": "i", "old_string": "old", "new_string": "new"}),
        )
        .await;
        let r = r.modified_args("new all".into()).unwrap();
        assert_eq!(
            Value::Object(r),
            json!({"old_string": "old all", "new_string": "new all", "expected_replacements": 1})
        );

        let m = details(Arc::new(MemoryTool), json!({"fact": "x"})).await;
        let m = m.modified_args("facts".into()).unwrap();
        assert_eq!(Value::Object(m), json!({"modified_content": "facts"}));
    }

    #[test]
    fn other_details_cannot_be_modified() {
        let info = ConfirmationDetails::Info {
            title: "t".into(),
            prompt: "p".into(),
            urls: vec![],
        };
        assert!(info.modified_args("x".into()).is_none());
        let edit = ConfirmationDetails::Edit {
            title: "t".into(),
            file_name: "a.txt".into(),
            file_path: "/w/a.txt".into(),
            file_diff: String::new(),
            original_content: None,
            new_content: "proposed".into(),
            modifiable: None,
        };
        assert!(edit.modified_args("x".into()).is_none());
    }
}
