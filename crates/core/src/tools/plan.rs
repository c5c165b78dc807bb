//! Plan mode's shared state: the session's approval mode as the plan tools
//! see it, the plans folder (`~/.gemini/tmp/<project>/<session>/plans`, or
//! `general.plan.directory` inside the project), where a plan path may
//! point, and the plan a headless run ends with.

use crate::policy::ApprovalMode;
use crate::workspace::realpath_lenient;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};

/// A plan path that is not inside the plans folder.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlanPathError {
    /// Empty or blank.
    #[error("Plan file path must be non-empty.")]
    Empty,
    /// It resolves outside the plans folder.
    #[error(
        "Access denied: plan path ({path}) must be within the designated plans directory ({dir})."
    )]
    Outside {
        /// The path as given.
        path: String,
        /// The plans folder.
        dir: String,
    },
}

/// `general.plan.directory` that resolves outside the project.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "Custom plans directory '{setting}' resolves to '{resolved}', which is outside the project root '{root}'."
)]
pub struct PlansDirError {
    setting: String,
    resolved: String,
    root: String,
}

/// The session's plan-mode state, shared by the plan tools, `write_file`
/// and `replace` (which write only plans while planning) and the agent.
#[derive(Debug)]
pub struct PlanMode {
    plans_dir: PathBuf,
    project_root: PathBuf,
    mode: Arc<RwLock<ApprovalMode>>,
    interactive: bool,
    final_plan: Mutex<Option<String>>,
}

impl PlanMode {
    /// The state for a session: `plans_dir` from [`plans_dir`], the
    /// session's mode, and whether someone can approve a plan.
    pub fn new(
        plans_dir: PathBuf,
        project_root: PathBuf,
        mode: Arc<RwLock<ApprovalMode>>,
        interactive: bool,
    ) -> Self {
        PlanMode {
            plans_dir,
            project_root,
            mode,
            interactive,
            final_plan: Mutex::new(None),
        }
    }

    /// The plans folder.
    pub fn plans_dir(&self) -> &Path {
        &self.plans_dir
    }

    /// Whether a person can approve a plan.
    pub fn interactive(&self) -> bool {
        self.interactive
    }

    /// The approval mode now.
    pub fn mode(&self) -> ApprovalMode {
        self.mode
            .read()
            .map(|m| *m)
            .unwrap_or(ApprovalMode::Default)
    }

    /// True while planning.
    pub fn active(&self) -> bool {
        self.mode() == ApprovalMode::Plan
    }

    /// Switches the approval mode.
    pub fn set_mode(&self, mode: ApprovalMode) {
        if let Ok(mut m) = self.mode.write() {
            *m = mode;
        }
    }

    /// Creates the plans folder, private to the user (0700) where it is
    /// made (a failure is left to the write that needs it, which names it).
    pub fn ensure_dir(&self) {
        use std::os::unix::fs::DirBuilderExt;
        let made = std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&self.plans_dir);
        if let Err(e) = made {
            tracing::warn!(
                "could not create the plans folder {}: {e}",
                self.plans_dir.display()
            );
        }
    }

    /// Where `given` points, when that is inside the plans folder: an
    /// absolute path as is, a relative one against the project root when
    /// that lands inside, else against the plans folder.
    pub fn resolve(&self, given: &str) -> Result<PathBuf, PlanPathError> {
        let trimmed = given.trim().replace('\0', "");
        if trimmed.is_empty() {
            return Err(PlanPathError::Empty);
        }
        let real_dir = realpath_lenient(&self.plans_dir);
        let inside = |p: &Path| {
            let real = realpath_lenient(&normalize(p));
            real.starts_with(&real_dir) && real != real_dir
        };
        let path = Path::new(&trimmed);
        if path.is_absolute() {
            if inside(path) {
                return Ok(normalize(path));
            }
        } else {
            let from_root = self.project_root.join(path);
            if inside(&from_root) {
                return Ok(normalize(&from_root));
            }
            let from_dir = self.plans_dir.join(path);
            if inside(&from_dir) {
                return Ok(normalize(&from_dir));
            }
        }
        Err(PlanPathError::Outside {
            path: trimmed.clone(),
            dir: self.plans_dir.display().to_string(),
        })
    }

    /// What the system prompt adds while planning: the rules of the mode
    /// and where plans go; `None` outside plan mode.
    pub fn prompt_section(&self) -> Option<String> {
        if !self.active() {
            return None;
        }
        let dir = self.plans_dir.display();
        let approval = if self.interactive {
            "Call exit_plan_mode with the plan's file name to ask the user to approve it; once approved you may implement it."
        } else {
            "Call exit_plan_mode with the plan's file name when the plan is complete: nobody can approve it in this session, so the session ends there with the plan."
        };
        Some(format!(
            "# Plan Mode
The session is in Plan Mode: research and design, do not change anything.
             - Use only read-only tools to explore. Source files cannot be edited and commands cannot be run until a plan is approved.
             - write_file and replace may only create or update Markdown (.md) plans in the plans folder `{dir}/` (a bare file name such as `feature-x.md` lands there).
             - Answer questions directly; for a change, explore, agree on the approach with the user, then write the plan: the goal, the files involved, the steps and how to verify them.
             - {approval}"
        ))
    }

    /// While planning, where a file edit of `given` lands (only plans may
    /// be written; the plans folder is created); `None` outside plan mode.
    pub fn edit_path(&self, given: &str) -> Option<Result<PathBuf, PlanPathError>> {
        if !self.active() {
            return None;
        }
        self.ensure_dir();
        Some(self.resolve(given))
    }

    /// Ends the run with `plan` (headless plan mode).
    pub fn finish_with(&self, plan: String) {
        if let Ok(mut f) = self.final_plan.lock() {
            *f = Some(plan);
        }
    }

    /// The plan the run ends with, taken once.
    pub fn take_final_plan(&self) -> Option<String> {
        self.final_plan.lock().ok().and_then(|mut f| f.take())
    }
}

/// The plans folder: `general.plan.directory` resolved against the project
/// root (it must stay inside the project), else
/// `<project temp dir>/<session id>/plans`.
pub fn plans_dir(
    setting: Option<&str>,
    project_root: &Path,
    project_temp_dir: &Path,
    session_id: &str,
) -> Result<PathBuf, PlansDirError> {
    let Some(setting) = setting.filter(|s| !s.trim().is_empty()) else {
        return Ok(project_temp_dir.join(session_id).join("plans"));
    };
    let resolved = normalize(&project_root.join(setting));
    let real_root = realpath_lenient(project_root);
    let real = realpath_lenient(&resolved);
    if real.starts_with(&real_root) {
        Ok(resolved)
    } else {
        Err(PlansDirError {
            setting: setting.to_string(),
            resolved: real.display().to_string(),
            root: real_root.display().to_string(),
        })
    }
}

/// `.` and `..` folded without touching the file system (as Node's
/// `path.resolve` does).
pub(crate) fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(dir: &Path) -> PlanMode {
        PlanMode::new(
            dir.join("home/tmp/proj/sid/plans"),
            dir.join("proj"),
            Arc::new(RwLock::new(ApprovalMode::Plan)),
            false,
        )
    }

    #[test]
    fn plan_paths_stay_in_the_plans_folder() {
        let tmp = tempfile::tempdir().unwrap();
        let plan = state(tmp.path());
        let dir = plan.plans_dir().to_path_buf();
        assert_eq!(plan.resolve("feature.md").unwrap(), dir.join("feature.md"));
        assert_eq!(
            plan.resolve(&dir.join("a.md").display().to_string())
                .unwrap(),
            dir.join("a.md")
        );
        for bad in ["../../outside.md", "/etc/passwd", "sub/../../x.md"] {
            let err = plan.resolve(bad).unwrap_err();
            assert_eq!(
                err.to_string(),
                format!(
                    "Access denied: plan path ({bad}) must be within the designated plans directory ({}).",
                    dir.display()
                )
            );
        }
        assert_eq!(plan.resolve("  ").unwrap_err(), PlanPathError::Empty);
    }

    #[test]
    fn custom_plans_folder_must_be_inside_the_project() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("proj");
        std::fs::create_dir_all(&root).unwrap();
        let temp = tmp.path().join("t");
        assert_eq!(
            plans_dir(None, &root, &temp, "s").unwrap(),
            temp.join("s/plans")
        );
        assert_eq!(
            plans_dir(Some("docs/plans"), &root, &temp, "s").unwrap(),
            root.join("docs/plans")
        );
        let err = plans_dir(Some("../elsewhere"), &root, &temp, "s").unwrap_err();
        assert!(
            err.to_string().contains("is outside the project root"),
            "{err}"
        );
    }
}
