//! Checkpoints (`general.checkpointing.enabled`): before a file-modifying
//! tool call runs, the project's files are committed to a shadow git
//! repository (`<project temp dir>/checkpoints/.git`, work tree = project
//! root) and the conversation plus the pending call are written next to it
//! as `<project temp dir>/checkpoints/<timestamp>-<file>-<tool>.json`, in
//! Gemini CLI's `ToolCallData` shape (`clientHistory`, `toolCall`,
//! `commitHash`, `filePath`). `/restore` lists them and puts both back.
//!
//! Restoring follows Gemini CLI exactly: `git restore --source <hash> .`
//! then `git clean -f -d`, so files created after the snapshot are deleted
//! too, except files ignored by `.gitignore` (they were never snapshotted
//! and are left alone).

mod git;

use crate::config::lenient::wrong_type_as_none as lenient;
use crate::workspace::write_atomic;
use gemini_rs_protocol::Content;
use git::ShadowRepo;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// Why a checkpoint could not be made or restored.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// `git` is not installed.
    #[error(
        "Checkpointing is enabled, but Git is not installed. Please install Git or disable checkpointing to continue."
    )]
    GitUnavailable,
    /// A git command failed.
    #[error("git {command} failed: {message}")]
    Git {
        /// The git subcommand.
        command: String,
        /// Its stderr.
        message: String,
    },
    /// Reading or writing a checkpoint file failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// No checkpoint has this id.
    #[error("File not found: {0}.json")]
    NotFound(String),
    /// The checkpoint file is not valid.
    #[error("Could not read checkpoint {id}: {reason}")]
    Invalid {
        /// The checkpoint id.
        id: String,
        /// Why.
        reason: InvalidCheckpoint,
    },
}

/// What is wrong with a checkpoint file.
#[derive(Debug, thiserror::Error)]
pub enum InvalidCheckpoint {
    /// It cannot be read.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// It is not JSON, or `clientHistory` is not a conversation.
    #[error("{0}")]
    Json(#[from] serde_json::Error),
    /// It has no `toolCall` object.
    #[error("missing toolCall")]
    MissingToolCall,
}

/// One checkpoint, as `/restore` lists it (its id is the file name without
/// `.json`: `<timestamp>-<file basename>-<tool name>`).
pub use gemini_rs_protocol::events::CheckpointInfo;

/// The call a checkpoint was made for (its file's `toolCall`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CheckpointCall {
    /// The tool's name as called.
    #[serde(default)]
    pub name: String,
    /// The call's arguments as sent.
    #[serde(default = "empty_args")]
    pub args: Value,
}

impl CheckpointCall {
    /// The call of `name` with `args`.
    pub fn new(name: &str, args: Value) -> Self {
        CheckpointCall {
            name: name.to_string(),
            args,
        }
    }
}

fn empty_args() -> Value {
    json!({})
}

/// A checkpoint file, `<id>.json`, as Gemini CLI writes it.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct CheckpointFile {
    /// The conversation before the call.
    #[serde(default)]
    client_history: Option<Vec<Content>>,
    /// The call; a file without one cannot be restored.
    #[serde(default)]
    tool_call: Option<CheckpointCall>,
    /// The shadow repository's commit of the project's files.
    #[serde(default)]
    commit_hash: Option<String>,
    /// The file the call edits.
    #[serde(default)]
    file_path: Option<String>,
}

/// What `/restore` lists of a checkpoint file; a field of the wrong type
/// reads as absent.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct ListedFile {
    #[serde(deserialize_with = "lenient")]
    tool_call: Option<ListedCall>,
    #[serde(deserialize_with = "lenient")]
    file_path: Option<String>,
}

/// The name of a listed checkpoint's call.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct ListedCall {
    #[serde(deserialize_with = "lenient")]
    name: Option<String>,
}

/// What [`Checkpointer::restore`] put back.
#[derive(Debug, Clone, PartialEq)]
pub struct RestoredCheckpoint {
    /// The conversation as it was before the call: set it as the agent's
    /// history.
    pub history: Vec<Content>,
    /// The pending call: Gemini CLI offers it again for the user to run,
    /// change or ignore.
    pub tool_call: CheckpointCall,
    /// True when the project files were restored (a commit was recorded).
    pub files_restored: bool,
}

/// Makes, lists and restores the checkpoints of one project.
#[derive(Debug, Clone)]
pub struct Checkpointer {
    dir: PathBuf,
    repo: ShadowRepo,
}

impl Checkpointer {
    /// Sets up the shadow repository under `<temp_dir>/checkpoints` for the
    /// project at `project_root` (idempotent; refreshes the ignore rules
    /// from the project's `.gitignore`). Fails when git is missing.
    pub fn new(project_root: &Path, temp_dir: &Path) -> Result<Self, CheckpointError> {
        let dir = temp_dir.join("checkpoints");
        std::fs::create_dir_all(&dir)?;
        let repo = ShadowRepo::new(dir.join(".git"), project_root.to_path_buf());
        // Never snapshot our own files when the temp dir sits inside the
        // project (a project at the home directory).
        let mut excludes = Vec::new();
        if let Ok(rel) = temp_dir.strip_prefix(project_root)
            && !rel.as_os_str().is_empty()
        {
            excludes.push(format!("/{}/", rel.to_string_lossy()));
        }
        repo.ensure(&excludes)?;
        Ok(Checkpointer { dir, repo })
    }

    /// The folder of the checkpoint files.
    #[cfg(test)]
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Snapshots the project and writes the checkpoint for `tool_call`
    /// (`{"name": "replace", "args": {"file_path": ..}}`) made while the
    /// conversation was `history`. Returns the checkpoint id.
    pub fn snapshot(
        &self,
        tool_call: &CheckpointCall,
        history: &[Content],
    ) -> Result<String, CheckpointError> {
        let name = Some(tool_call.name.as_str())
            .filter(|n| !n.is_empty())
            .unwrap_or("tool");
        let file_path = FileArg::deserialize(&tool_call.args)
            .ok()
            .and_then(|a| a.file_path);
        let commit = self.repo.snapshot(&format!("Snapshot for {name}"))?;
        let base = file_path
            .as_deref()
            .and_then(|p| Path::new(p).file_name())
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_else(|| "file".to_string());
        let stamp = chrono::Utc::now().format("%Y-%m-%dT%H-%M-%S_%3fZ");
        let mut id = sanitize(&format!("{stamp}-{base}-{name}"));
        let mut n = 1;
        while self.dir.join(format!("{id}.json")).exists() {
            n += 1;
            id = sanitize(&format!("{stamp}-{base}-{name}-{n}"));
        }
        let data = CheckpointFile {
            client_history: Some(history.to_vec()),
            tool_call: Some(CheckpointCall {
                name: name.to_string(),
                args: tool_call.args.clone(),
            }),
            commit_hash: Some(commit),
            file_path,
        };
        let bytes = serde_json::to_vec_pretty(&data).map_err(std::io::Error::other)?;
        write_atomic(&self.dir.join(format!("{id}.json")), &bytes)?;
        Ok(id)
    }

    /// The checkpoints, oldest first (ids start with their UTC time).
    pub fn list(&self) -> Vec<CheckpointInfo> {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        let mut out: Vec<CheckpointInfo> = entries
            .filter_map(Result::ok)
            .filter_map(|e| {
                let name = e.file_name().to_string_lossy().to_string();
                let id = name.strip_suffix(".json")?.to_string();
                let data: ListedFile = read_json(&e.path()).unwrap_or_default();
                Some(CheckpointInfo {
                    id,
                    tool_name: data.tool_call.and_then(|c| c.name).unwrap_or_default(),
                    file_path: data.file_path,
                })
            })
            .collect();
        out.sort_by(|a, b| a.id.cmp(&b.id));
        out
    }

    /// Restores checkpoint `id` (with or without `.json`): the project's
    /// files go back to the snapshot and the conversation and pending call
    /// are returned for the caller to reinstate.
    pub fn restore(&self, id: &str) -> Result<RestoredCheckpoint, CheckpointError> {
        let id = id.strip_suffix(".json").unwrap_or(id);
        if id.is_empty() || id.contains(['/', '\\']) || id.starts_with('.') {
            return Err(CheckpointError::NotFound(id.to_string()));
        }
        let path = self.dir.join(format!("{id}.json"));
        if !path.is_file() {
            return Err(CheckpointError::NotFound(id.to_string()));
        }
        let invalid = |reason: InvalidCheckpoint| CheckpointError::Invalid {
            id: id.to_string(),
            reason,
        };
        let data: CheckpointFile = read_json(&path).map_err(invalid)?;
        let history = data.client_history.unwrap_or_default();
        let tool_call = data
            .tool_call
            .ok_or_else(|| invalid(InvalidCheckpoint::MissingToolCall))?;
        let commit = data.commit_hash.filter(|c| !c.is_empty());
        if let Some(commit) = &commit {
            self.repo.restore(commit)?;
        }
        Ok(RestoredCheckpoint {
            history,
            tool_call,
            files_restored: commit.is_some(),
        })
    }
}

/// A call's `file_path` argument (the edit tools' own parameter).
#[derive(Debug, Deserialize)]
struct FileArg {
    #[serde(default, deserialize_with = "lenient")]
    file_path: Option<String>,
}

fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, InvalidCheckpoint> {
    let text = std::fs::read_to_string(path)?;
    Ok(serde_json::from_str(&text)?)
}

/// Keeps an id usable as a file name.
fn sanitize(id: &str) -> String {
    id.chars()
        .map(|c| {
            if c == '/' || c == '\\' || c.is_control() {
                '_'
            } else {
                c
            }
        })
        .collect()
}

#[cfg(test)]
mod tests;
