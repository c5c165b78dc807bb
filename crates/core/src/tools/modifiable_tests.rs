//! "Modify with editor": which arguments each tool's proposal rewrites.

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
