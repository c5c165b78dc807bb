//! `replace` through the client's file system (an editor over ACP): the
//! edit is computed on the editor's buffer and written back through it.

use super::{Failure, Plan, ReplaceInvocation};
use crate::tools::{ClientFs, ToolContext, ToolErrorKind, ToolResult};

impl ReplaceInvocation {
    /// The edit of the file as the client has it.
    pub(super) async fn plan_through(&self, client: &dyn ClientFs) -> Result<Plan, Failure> {
        let current = client
            .read_text_file(&self.abs)
            .await
            .map_err(|e| Failure {
                kind: ToolErrorKind::EditPreparationFailure,
                llm: Some(format!("Error preparing edit: {e}")),
                display: format!("Error preparing edit: {e}"),
                raw: e.to_string(),
            })?;
        self.plan_bytes(current.map(String::into_bytes))
    }

    /// Computes the edit, writes it through the client and reports it.
    pub(super) async fn run_through(&self, ctx: &ToolContext, client: &dyn ClientFs) -> ToolResult {
        if let Err(msg) = ctx.workspace.check_access(&self.abs) {
            return ToolResult::error(
                ToolErrorKind::PathNotInWorkspace,
                msg,
                "Error: Path not in workspace.",
            );
        }
        let plan = match self.plan_through(client).await {
            Ok(plan) => plan,
            Err(f) => return f.into_result(),
        };
        let text = if plan.crlf {
            plan.new_content.replace('\n', "\r\n")
        } else {
            plan.new_content.clone()
        };
        if let Err(e) = client.write_text_file(&self.abs, &text).await {
            return Failure {
                kind: ToolErrorKind::FileWriteFailure,
                llm: Some(format!("Error executing edit: {e}")),
                display: format!("Error executing edit: {e}"),
                raw: e.to_string(),
            }
            .into_result();
        }
        self.report(&plan)
    }
}
