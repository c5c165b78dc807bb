//! The shadow git repository behind checkpoints: its metadata lives in
//! `<project temp dir>/checkpoints/.git`, its work tree is the project root,
//! so the user's own `.git` is never read or written.

use super::CheckpointError;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Configuration passed on every command, so the user's global git config
/// (name, signing, hooks, autocrlf) never leaks into the shadow repository.
const CONFIG: &[&str] = &[
    "user.name=Gemini CLI",
    "user.email=gemini-cli@google.com",
    "commit.gpgsign=false",
    "core.autocrlf=false",
    "core.hooksPath=/dev/null",
    "safe.directory=*",
];

/// Environment variables that would redirect git somewhere else when we
/// run inside a git hook or a user's exotic setup.
const CLEARED_ENV: &[&str] = &[
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_CEILING_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_NAMESPACE",
    "GIT_CONFIG",
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
];

/// A shadow repository for one project.
#[derive(Debug, Clone)]
pub(super) struct ShadowRepo {
    git_dir: PathBuf,
    work_tree: PathBuf,
}

impl ShadowRepo {
    /// The repository at `git_dir` for the work tree `work_tree`; nothing
    /// is created yet.
    pub(super) fn new(git_dir: PathBuf, work_tree: PathBuf) -> Self {
        ShadowRepo { git_dir, work_tree }
    }

    /// Checks git is installed, creates the repository (with an empty
    /// initial commit) when missing and refreshes its exclude file.
    pub(super) fn ensure(&self, extra_excludes: &[String]) -> Result<(), CheckpointError> {
        let available = Command::new("git")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
        if !available {
            return Err(CheckpointError::GitUnavailable);
        }
        let fresh = !self.git_dir.join("HEAD").is_file();
        if fresh {
            std::fs::create_dir_all(&self.git_dir)?;
            self.run(&["init", "--quiet", "--initial-branch", "main"])?;
        }
        self.write_excludes(extra_excludes)?;
        if fresh {
            self.run(&[
                "commit",
                "--quiet",
                "--no-verify",
                "--allow-empty",
                "-m",
                "Initial commit",
            ])?;
        }
        Ok(())
    }

    /// `info/exclude`: `.git`, the project's root `.gitignore` patterns
    /// (nested `.gitignore` files are read by git itself, being in the
    /// work tree) and `extra_excludes`.
    fn write_excludes(&self, extra_excludes: &[String]) -> Result<(), CheckpointError> {
        let mut text = String::from("# Written by gemini-rs checkpointing.\n.git\n");
        for pattern in extra_excludes {
            text.push_str(pattern);
            text.push('\n');
        }
        if let Ok(ignore) = std::fs::read_to_string(self.work_tree.join(".gitignore")) {
            text.push_str(&ignore);
            text.push('\n');
        }
        let info = self.git_dir.join("info");
        std::fs::create_dir_all(&info)?;
        std::fs::write(info.join("exclude"), text)?;
        Ok(())
    }

    /// Commits the whole work tree and returns the commit hash.
    pub(super) fn snapshot(&self, message: &str) -> Result<String, CheckpointError> {
        self.run(&["add", "--all", "--", "."])?;
        self.run(&[
            "commit",
            "--quiet",
            "--no-verify",
            "--allow-empty",
            "-m",
            message,
        ])?;
        self.head()
    }

    /// The current commit.
    pub(super) fn head(&self) -> Result<String, CheckpointError> {
        let out = self.run(&["rev-parse", "HEAD"])?;
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    }

    /// Puts the work tree back as it was at `commit`, as Gemini CLI does:
    /// `git restore --source <commit> .` (which also deletes files the
    /// repository tracked since), then `git clean -f -d` (which deletes
    /// untracked, non-ignored files created after the last snapshot).
    pub(super) fn restore(&self, commit: &str) -> Result<(), CheckpointError> {
        if commit.is_empty() || !commit.chars().all(|c| c.is_ascii_hexdigit()) {
            return Err(CheckpointError::Git {
                command: "restore".into(),
                message: format!("invalid commit hash \"{commit}\""),
            });
        }
        self.run(&["restore", "--source", commit, "--", "."])?;
        self.run(&["clean", "-f", "-d", "--quiet"])?;
        Ok(())
    }

    /// Runs one git command against the shadow repository.
    fn run(&self, args: &[&str]) -> Result<Output, CheckpointError> {
        let mut cmd = Command::new("git");
        for c in CONFIG {
            cmd.arg("-c").arg(c);
        }
        for var in CLEARED_ENV {
            cmd.env_remove(var);
        }
        let out = cmd
            .args(args)
            .current_dir(&self.work_tree)
            .env("GIT_DIR", &self.git_dir)
            .env("GIT_WORK_TREE", &self.work_tree)
            .env("HOME", home_of(&self.git_dir))
            .env("XDG_CONFIG_HOME", home_of(&self.git_dir))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("LC_ALL", "C")
            .stdin(std::process::Stdio::null())
            .output()
            .map_err(|e| CheckpointError::Git {
                command: args.first().copied().unwrap_or("").to_string(),
                message: e.to_string(),
            })?;
        if !out.status.success() {
            return Err(CheckpointError::Git {
                command: args.first().copied().unwrap_or("").to_string(),
                message: String::from_utf8_lossy(&out.stderr).trim().to_string(),
            });
        }
        Ok(out)
    }
}

/// The directory holding the shadow repository (its `HOME`, so no user
/// config is found).
fn home_of(git_dir: &Path) -> &Path {
    git_dir.parent().unwrap_or(git_dir)
}
