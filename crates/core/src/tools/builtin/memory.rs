//! `save_memory`: appends a fact under `## Gemini Added Memories` in the
//! global context file (`~/.gemini/GEMINI.md`), as Gemini CLI v0.27.4 does.

use super::common::{lenient, parse_params};
use super::{Builtin, Make};
use crate::catalogue::builtins::MEMORY as SPEC;
use crate::tools::diff::unified_diff;
use crate::tools::spec::identity_from_spec;
use crate::tools::{
    ConfirmationDetails, Tool, ToolContext, ToolError, ToolErrorKind, ToolInvocation, ToolResult,
};
use crate::workspace::write_atomic;
use futures::future::BoxFuture;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::LazyLock;
use tokio_util::sync::CancellationToken;

/// The section header the facts go under.
pub const MEMORY_SECTION_HEADER: &str = "## Gemini Added Memories";

/// The context file name when `context.fileName` is not set.
pub const DEFAULT_CONTEXT_FILENAME: &str = "GEMINI.md";

const DESCRIPTION: &str = "
Saves a specific piece of information or fact to your long-term memory.

Use this tool:

- When the user explicitly asks you to remember something (e.g., \"Remember that I like pineapple on pizza\", \"Please save this: my cat's name is Whiskers\").
- When the user states a clear, concise fact about themselves, their preferences, or their environment that seems important for you to retain for future interactions to provide a more personalized and effective assistance.

Do NOT use this tool:

- To remember conversational context that is only relevant for the current session.
- To save long, complex, or rambling pieces of text. The fact should be relatively short and to the point.
- If you are unsure whether the information is a fact worth remembering long-term. If in doubt, you can ask the user, \"Should I remember that for you?\"

## Parameters

- `fact` (string, required): The specific fact or piece of information to remember. This should be a clear, self-contained statement. For example, if the user says \"My favorite color is blue\", the fact would be \"My favorite color is blue\".
";

static SCHEMA: LazyLock<Value> = LazyLock::new(|| {
    json!({
        "type": "object",
        "properties": {
            "fact": {
                "type": "string",
                "description": "The specific fact or piece of information to remember. Should be a clear, self-contained statement."
            }
        },
        "required": ["fact"]
    })
});

/// The `save_memory` tool (display name `SaveMemory`, kind think).
pub struct MemoryTool;

/// Its registration (every session registers it).
pub(super) const BUILTIN: Builtin = Builtin {
    make: Make::Always(|| Arc::new(MemoryTool)),
};

impl Tool for MemoryTool {
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
        ctx: &ToolContext,
    ) -> Result<Box<dyn ToolInvocation>, ToolError> {
        let params: Params = parse_params(args, &[])?;
        if params.fact.trim().is_empty() {
            return Err(ToolError::invalid_params(
                "Parameter \"fact\" must be a non-empty string.",
            ));
        }
        let modified_content = params
            .modified_content
            .filter(|_| params.modified_by_user == Some(true));
        Ok(Box::new(MemoryInvocation {
            fact: params.fact,
            modified_content,
            path: memory_file_path(ctx),
            home: ctx.gemini_dir.parent().map(Path::to_path_buf),
        }))
    }
}

/// The arguments of one call, after schema validation.
#[derive(Debug, Default, PartialEq, Deserialize)]
#[serde(default)]
struct Params {
    /// The fact to remember.
    fact: String,
    /// Internal: set after the user edited the proposal.
    #[serde(deserialize_with = "lenient")]
    modified_by_user: Option<bool>,
    /// Internal: the edited memory file, used when `modified_by_user`.
    #[serde(deserialize_with = "lenient")]
    modified_content: Option<String>,
}

/// The first configured context file name (`context.fileName`: a string or
/// a list), trimmed; `GEMINI.md` when unset or empty.
pub(crate) fn context_file_name(ctx: &ToolContext) -> String {
    ctx.settings
        .context_file_names
        .first()
        .cloned()
        .unwrap_or_else(|| DEFAULT_CONTEXT_FILENAME.to_string())
}

/// `~/.gemini/<first context file name>`.
pub(crate) fn memory_file_path(ctx: &ToolContext) -> PathBuf {
    ctx.gemini_dir.join(context_file_name(ctx))
}

/// The fact as a list item: trimmed, leading `-` runs (and the whitespace
/// after them) removed, trimmed again.
fn memory_item(fact: &str) -> String {
    let mut text = fact.trim();
    if text.starts_with('-') {
        text = text.trim_start_matches(|c: char| c == '-' || c.is_whitespace());
    }
    format!("- {}", text.trim())
}

/// What goes between existing content and a new section.
fn separator(current: &str) -> &'static str {
    if current.is_empty() || current.ends_with("\n\n") || current.ends_with("\r\n\r\n") {
        ""
    } else if current.ends_with('\n') {
        "\n"
    } else {
        "\n\n"
    }
}

/// The file content after adding `fact` (Gemini CLI's `computeNewContent`).
pub(crate) fn compute_new_content(current: &str, fact: &str) -> String {
    let item = memory_item(fact);
    let Some(header_at) = current.find(MEMORY_SECTION_HEADER) else {
        return format!(
            "{current}{}{MEMORY_SECTION_HEADER}\n{item}\n",
            separator(current)
        );
    };
    let start = header_at + MEMORY_SECTION_HEADER.len();
    let end = current[start..]
        .find("\n## ")
        .map_or(current.len(), |i| start + i);
    let before = current[..start].trim_end();
    let section = format!("{}\n{item}", current[start..end].trim_end());
    let after = &current[end..];
    let rebuilt = format!("{before}\n{}\n{after}", section.trim_start());
    format!("{}\n", rebuilt.trim_end())
}

/// `path` with the home directory shown as `~`.
fn tildeify(path: &Path, home: Option<&Path>) -> String {
    match home.and_then(|h| path.strip_prefix(h).ok()) {
        Some(rest) if rest.as_os_str().is_empty() => "~".to_string(),
        Some(rest) => format!("~/{}", rest.display()),
        None => path.display().to_string(),
    }
}

/// Why the memory file could not be read or written.
#[derive(Debug, thiserror::Error)]
enum MemoryFileError {
    /// The file is not UTF-8.
    #[error("{} is not valid UTF-8 text", .0.display())]
    NotUtf8(PathBuf),
    /// Reading failed.
    #[error("could not read {}: {source}", path.display())]
    Read { path: PathBuf, source: io::Error },
    /// Its folder could not be created.
    #[error("could not create {}: {source}", path.display())]
    CreateDir { path: PathBuf, source: io::Error },
    /// Writing failed.
    #[error("could not write {}: {source}", path.display())]
    Write { path: PathBuf, source: io::Error },
}

/// The current content; a missing file is empty. `Ok(None)` when missing.
fn read_current(path: &Path) -> Result<Option<String>, MemoryFileError> {
    match std::fs::read(path) {
        Ok(bytes) => String::from_utf8(bytes)
            .map(Some)
            .map_err(|_| MemoryFileError::NotUtf8(path.to_path_buf())),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(MemoryFileError::Read {
            path: path.to_path_buf(),
            source,
        }),
    }
}

fn write(path: &Path, content: &str) -> Result<(), MemoryFileError> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|source| MemoryFileError::CreateDir {
            path: dir.to_path_buf(),
            source,
        })?;
    }
    write_atomic(path, content.as_bytes()).map_err(|source| MemoryFileError::Write {
        path: path.to_path_buf(),
        source,
    })
}

struct MemoryInvocation {
    fact: String,
    modified_content: Option<String>,
    path: PathBuf,
    home: Option<PathBuf>,
}

impl MemoryInvocation {
    fn success(message: &str) -> ToolResult {
        let llm = json!({"success": true, "message": message}).to_string();
        ToolResult::text(llm, message)
    }

    fn failure(detail: String) -> ToolResult {
        let llm =
            json!({"success": false, "error": format!("Failed to save memory. Detail: {detail}")});
        ToolResult {
            llm_content: vec![gemini_rs_protocol::Part::text(llm.to_string())],
            display: crate::tools::ToolDisplay::Text(format!("Error saving memory: {detail}")),
            error: Some(ToolError::new(
                ToolErrorKind::MemoryToolExecutionError,
                detail,
            )),
        }
    }

    fn run(&self) -> ToolResult {
        if let Some(content) = &self.modified_content {
            return match write(&self.path, content) {
                Ok(()) => {
                    Self::success("Okay, I've updated the memory file with your modifications.")
                }
                Err(e) => Self::failure(e.to_string()),
            };
        }
        let added = read_current(&self.path).and_then(|current| {
            let new = compute_new_content(current.as_deref().unwrap_or_default(), &self.fact);
            write(&self.path, &new)
        });
        match added {
            Ok(()) => Self::success(&format!("Okay, I've remembered that: \"{}\"", self.fact)),
            Err(e) => Self::failure(format!("[MemoryTool] Failed to add memory entry: {e}")),
        }
    }
}

impl ToolInvocation for MemoryInvocation {
    fn description(&self) -> String {
        format!("in {}", tildeify(&self.path, self.home.as_deref()))
    }

    fn confirmation<'a>(
        &'a self,
        _ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Option<ConfirmationDetails>> {
        Box::pin(async move {
            // An unreadable file shows as empty here; execute reports the error.
            let current = read_current(&self.path).ok().flatten();
            let old = current.as_deref().unwrap_or_default();
            let new_content = match &self.modified_content {
                Some(c) => c.clone(),
                None => compute_new_content(old, &self.fact),
            };
            let file_name = self
                .path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            Some(ConfirmationDetails::Edit {
                title: format!(
                    "Confirm Memory Save: {}",
                    tildeify(&self.path, self.home.as_deref())
                ),
                file_name: self.path.display().to_string(),
                file_path: self.path.clone(),
                file_diff: unified_diff(old, &new_content, "Current", "Proposed", &file_name),
                original_content: current,
                new_content,
                modifiable: Some(crate::tools::Modifiable::new("modified_content")),
            })
        })
    }

    fn execute<'a>(
        &'a self,
        _ctx: &'a ToolContext,
        _cancel: CancellationToken,
    ) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move { self.run() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Settings;
    use crate::workspace::Workspace;
    use std::sync::Arc;

    struct Env {
        ctx: ToolContext,
        _dir: tempfile::TempDir,
    }

    fn env(settings: Value) -> Env {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("project");
        std::fs::create_dir_all(&root).unwrap();
        let ws = Workspace::new(root.clone(), vec![], root.join(".tmp"));
        let mut ctx = ToolContext::new(
            Arc::new(ws),
            Arc::new(Settings::from_value(settings)),
            "gemini-2.5-flash",
        );
        ctx.gemini_dir = dir.path().join("home").join(".gemini");
        Env { ctx, _dir: dir }
    }

    fn args(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    async fn save(env: &Env, fact: &str) -> ToolResult {
        let inv = MemoryTool
            .build(&args(json!({"fact": fact})), &env.ctx)
            .unwrap();
        inv.execute(&env.ctx, CancellationToken::new()).await
    }

    fn memory(env: &Env) -> String {
        std::fs::read_to_string(env.ctx.gemini_dir.join("GEMINI.md")).unwrap()
    }

    #[tokio::test]
    async fn a9_memory_new() {
        let e = env(json!({}));
        let r = save(&e, "My favorite color is blue").await;
        assert_eq!(r.error, None);
        assert_eq!(
            r.llm_text(),
            r#"{"success":true,"message":"Okay, I've remembered that: \"My favorite color is blue\""}"#
        );
        assert_eq!(
            r.display.as_text(),
            Some("Okay, I've remembered that: \"My favorite color is blue\"")
        );
        assert_eq!(
            memory(&e),
            "## Gemini Added Memories\n- My favorite color is blue\n"
        );
    }

    #[tokio::test]
    async fn a9_memory_existing() {
        let e = env(json!({}));
        std::fs::create_dir_all(&e.ctx.gemini_dir).unwrap();
        std::fs::write(
            e.ctx.gemini_dir.join("GEMINI.md"),
            "# Mine\n\n## Gemini Added Memories\n- old fact\n\n## Other\nz\n",
        )
        .unwrap();
        let r = save(&e, "  - - new fact  ").await;
        assert_eq!(
            r.llm_text(),
            r#"{"success":true,"message":"Okay, I've remembered that: \"  - - new fact  \""}"#
        );
        assert_eq!(
            memory(&e),
            "# Mine\n\n## Gemini Added Memories\n- old fact\n- new fact\n\n## Other\nz\n"
        );
    }

    #[tokio::test]
    async fn a9_memory_append_noheader_then_twice() {
        let e = env(json!({}));
        std::fs::create_dir_all(&e.ctx.gemini_dir).unwrap();
        std::fs::write(e.ctx.gemini_dir.join("GEMINI.md"), "existing text").unwrap();
        let r = save(&e, "f2").await;
        assert_eq!(
            r.llm_text(),
            r#"{"success":true,"message":"Okay, I've remembered that: \"f2\""}"#
        );
        assert_eq!(
            memory(&e),
            "existing text\n\n## Gemini Added Memories\n- f2\n"
        );
        save(&e, "f3").await;
        assert_eq!(
            memory(&e),
            "existing text\n\n## Gemini Added Memories\n- f2\n- f3\n"
        );
    }

    #[test]
    fn a9_memory_empty_fact() {
        let e = env(json!({}));
        let err = MemoryTool
            .build(&args(json!({"fact": "  "})), &e.ctx)
            .err()
            .unwrap();
        assert_eq!(
            err.message,
            "Parameter \"fact\" must be a non-empty string."
        );
        assert_eq!(err.kind, ToolErrorKind::InvalidToolParams);
    }

    #[test]
    fn separators() {
        assert_eq!(
            compute_new_content("", "a"),
            "## Gemini Added Memories\n- a\n"
        );
        assert_eq!(
            compute_new_content("x\n", "a"),
            "x\n\n## Gemini Added Memories\n- a\n"
        );
        assert_eq!(
            compute_new_content("x\n\n", "a"),
            "x\n\n## Gemini Added Memories\n- a\n"
        );
        assert_eq!(
            compute_new_content("x\r\n\r\n", "a"),
            "x\r\n\r\n## Gemini Added Memories\n- a\n"
        );
        assert_eq!(
            compute_new_content("## Gemini Added Memories", "--b"),
            "## Gemini Added Memories\n- b\n"
        );
        assert_eq!(memory_item("-\t- -x - y "), "- x - y");
    }

    #[tokio::test]
    async fn context_file_name_setting() {
        let e = env(json!({"context": {"fileName": ["  AGENTS.md ", "GEMINI.md"]}}));
        assert_eq!(memory_file_path(&e.ctx), e.ctx.gemini_dir.join("AGENTS.md"));
        let e = env(json!({"context": {"fileName": "CLAUDE.md"}}));
        assert_eq!(memory_file_path(&e.ctx), e.ctx.gemini_dir.join("CLAUDE.md"));
        let e = env(json!({"context": {"fileName": ""}}));
        assert_eq!(memory_file_path(&e.ctx), e.ctx.gemini_dir.join("GEMINI.md"));
        save(&e, "x").await;
        assert_eq!(memory(&e), "## Gemini Added Memories\n- x\n");
    }

    #[tokio::test]
    async fn confirmation_shows_diff_with_tildeified_title() {
        let e = env(json!({}));
        let inv = MemoryTool
            .build(&args(json!({"fact": "f"})), &e.ctx)
            .unwrap();
        assert_eq!(inv.description(), "in ~/.gemini/GEMINI.md");
        let Some(ConfirmationDetails::Edit {
            title,
            file_diff,
            original_content,
            new_content,
            ..
        }) = inv.confirmation(&e.ctx).await
        else {
            panic!("expected an edit confirmation");
        };
        assert_eq!(title, "Confirm Memory Save: ~/.gemini/GEMINI.md");
        assert_eq!(original_content, None);
        assert_eq!(new_content, "## Gemini Added Memories\n- f\n");
        assert!(file_diff.contains("--- GEMINI.md\tCurrent"));
        assert!(file_diff.contains("+++ GEMINI.md\tProposed"));
        assert!(file_diff.contains("+- f"));
    }

    #[tokio::test]
    async fn user_modified_content_is_written_verbatim() {
        let e = env(json!({}));
        let a = args(json!({"fact": "f", "modified_by_user": true, "modified_content": "mine\n"}));
        let inv = MemoryTool.build(&a, &e.ctx).unwrap();
        let r = inv.execute(&e.ctx, CancellationToken::new()).await;
        assert_eq!(
            r.llm_text(),
            r#"{"success":true,"message":"Okay, I've updated the memory file with your modifications."}"#
        );
        assert_eq!(memory(&e), "mine\n");
    }

    #[tokio::test]
    async fn unwritable_memory_file_fails_cleanly() {
        let e = env(json!({}));
        // A directory where the file should be: reading it fails.
        std::fs::create_dir_all(e.ctx.gemini_dir.join("GEMINI.md")).unwrap();
        let r = save(&e, "f").await;
        let err = r.error.clone().unwrap();
        assert_eq!(err.kind, ToolErrorKind::MemoryToolExecutionError);
        assert!(
            err.message
                .starts_with("[MemoryTool] Failed to add memory entry: "),
            "{}",
            err.message
        );
        assert!(r.llm_text().starts_with(
            r#"{"success":false,"error":"Failed to save memory. Detail: [MemoryTool]"#
        ));
        assert!(
            r.display
                .as_text()
                .unwrap()
                .starts_with("Error saving memory: [MemoryTool]")
        );
    }
}
