//! A temp project with one tool registered, run the way the scheduler runs
//! calls (aliases, schema, the tool's own checks, then execute).

use crate::config::Settings;
use crate::tools::{Tool, ToolContext, ToolRegistry, ToolResult};
use crate::workspace::Workspace;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// The project dir, the context and a registry holding the tool.
pub(crate) struct ToolFixture {
    _dir: tempfile::TempDir,
    /// The project root (canonical path).
    pub root: PathBuf,
    /// What the tool receives.
    pub ctx: ToolContext,
    /// The registry with the one tool.
    pub registry: ToolRegistry,
    name: String,
}

impl ToolFixture {
    /// A project holding `files` (relative path, bytes) and `tool`.
    pub fn new(tool: Arc<dyn Tool>, files: &[(&str, &[u8])]) -> ToolFixture {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        for (name, content) in files {
            let p = root.join(name);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, content).unwrap();
        }
        let ws = Workspace::new(
            root.clone(),
            vec![],
            PathBuf::from("/nonexistent/.gemini/tmp/hash"),
        );
        let ctx = ToolContext::new(
            Arc::new(ws),
            Arc::new(Settings::from_value(json!({}))),
            "gemini-2.5-flash",
        );
        let name = tool.name().to_string();
        let mut registry = ToolRegistry::new();
        registry.register(tool);
        ToolFixture {
            _dir: dir,
            root,
            ctx,
            registry,
            name,
        }
    }

    /// Builds and runs one call; a build error becomes the error result.
    pub async fn run(&self, args: Value) -> ToolResult {
        match self.registry.build(&self.name, &args, &self.ctx) {
            Ok(built) => {
                built
                    .invocation
                    .execute(&self.ctx, CancellationToken::new())
                    .await
            }
            Err(e) => ToolResult::from_error(e),
        }
    }

    /// `Ok(output)` or `Err(error message)`, as the model sees it.
    pub async fn call(&self, args: Value) -> Result<String, String> {
        let r = self.run(args).await;
        match r.error {
            Some(e) => Err(e.message),
            None => Ok(r.llm_text()),
        }
    }

    /// A project file's text.
    pub fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.root.join(name)).unwrap()
    }
}
