//! `get_internal_docs`: gemini-rs's own documentation, bundled in the
//! binary, for the `cli_help` agent. Without a path it lists the files;
//! with one it returns that file.

use super::common::parse_params;
use super::{Builtin, Make};
use crate::catalogue::builtins::INTERNAL_DOCS as SPEC;
use crate::tools::spec::identity_from_spec;
use crate::tools::{Tool, ToolContext, ToolError, ToolErrorKind, ToolInvocation, ToolResult};
use futures::future::BoxFuture;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use std::sync::LazyLock;
use tokio_util::sync::CancellationToken;

/// The bundled documents: path -> text.
const DOCS: [(&str, &str); 2] = [
    ("README.md", include_str!("../../../../../README.md")),
    ("agents.md", include_str!("../../../../../docs/agents.md")),
];

static SCHEMA: LazyLock<Value> = LazyLock::new(|| {
    json!({
        "type": "object",
        "properties": {
            "path": {
                "type": "string",
                "description": "The documentation file to read (e.g. 'README.md'); without it, the files are listed."
            }
        }
    })
});

/// The `get_internal_docs` tool (display name `GetInternalDocs`).
pub struct InternalDocsTool;

/// Its registration (the session makes it when it has what it needs).
pub(super) const BUILTIN: Builtin = Builtin {
    make: Make::WithSessionData,
};

impl Tool for InternalDocsTool {
    identity_from_spec!(SPEC);
    fn description(&self) -> &str {
        "Returns one of this CLI's documentation files, or the list of them when no path is given."
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
        Ok(Box::new(params))
    }
}

#[derive(Deserialize)]
struct Params {
    path: Option<String>,
}

impl ToolInvocation for Params {
    fn description(&self) -> String {
        match &self.path {
            Some(p) => format!("Reading internal documentation: {p}"),
            None => "Listing all available internal documentation.".to_string(),
        }
    }

    fn execute<'a>(
        &'a self,
        _ctx: &'a ToolContext,
        _cancel: CancellationToken,
    ) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move { read(self.path.as_deref()) })
    }
}

fn read(path: Option<&str>) -> ToolResult {
    let Some(path) = path.filter(|p| !p.is_empty()) else {
        let list: Vec<String> = DOCS.iter().map(|(p, _)| format!("- {p}")).collect();
        return ToolResult::text(
            format!(
                "Available gemini-rs documentation files:\n\n{}",
                list.join("\n")
            ),
            format!("Found {} documentation files.", DOCS.len()),
        );
    };
    let wanted = path.trim_start_matches("./");
    match DOCS.iter().find(|(p, _)| *p == wanted) {
        Some((_, text)) => ToolResult::text(
            text.to_string(),
            format!("Successfully read documentation: {path}"),
        ),
        None => {
            let msg = format!("no documentation file named '{path}'");
            ToolResult::error(
                ToolErrorKind::ExecutionFailed,
                format!("Error accessing internal documentation: {msg}"),
                format!("Failed to access documentation: {msg}"),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_reads_and_refuses() {
        let list = read(None);
        assert!(
            list.llm_text().contains("- README.md"),
            "{}",
            list.llm_text()
        );
        assert!(read(Some("README.md")).llm_text().contains("gemini-rs"));
        let bad = read(Some("../../etc/passwd"));
        assert!(bad.error.is_some());
    }
}
