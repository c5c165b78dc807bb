//! Workspaces from a template, copy on write (`--workspace-from DIR`,
//! ACP's `_meta.workspaceFrom`): the session works in a copy of a
//! prepared folder kept under the project's temp folder, and the template
//! is never changed.
//!
//! - **overlay**: where gemini-rs may mount (root with `CAP_SYS_ADMIN`, or
//!   a headless run that entered a user namespace of its own, see
//!   [`enter_user_namespace`], for a template whose every entry is the
//!   user's own), the copy is an overlay mount: the
//!   template is its read-only lower layer, the session's changes land in
//!   `upper/`. Starting costs one mount, whatever the template's size;
//!   every writer (file tools, shell commands, hooks, MCP servers) sees
//!   the copy and none can reach the template through it.
//! - **reflink**: else, on a file system that shares extents (btrfs, XFS,
//!   bcachefs), each file is cloned (`FICLONE`): its own inode, blocks
//!   shared until written.
//! - **copy**: else every file is copied. Hard links are never used: a
//!   shell command writing in place would change the template through
//!   them.
//!
//! The changes are read back as a unified diff ([`WorkingCopy::patch`]).

mod clone;
mod overlay;
mod patch;

pub use overlay::enter_user_namespace;

use std::path::{Path, PathBuf};

/// How the copy was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CopyKind {
    /// An overlay mount over the template.
    Overlay,
    /// Every file cloned (`FICLONE`).
    Reflink,
    /// Every file copied.
    Copy,
}

impl CopyKind {
    /// Its name, for notes and docs.
    pub fn as_str(self) -> &'static str {
        match self {
            CopyKind::Overlay => "overlay",
            CopyKind::Reflink => "reflink",
            CopyKind::Copy => "copy",
        }
    }
}

/// Why a working copy could not be made or read.
#[derive(Debug, thiserror::Error)]
pub enum TemplateError {
    /// The template is not a folder that can be used.
    #[error("{flag} {}: {why}", path.display())]
    BadTemplate {
        /// The flag or field that named it.
        flag: &'static str,
        /// The path as given.
        path: PathBuf,
        /// What is wrong.
        why: String,
    },
    /// The working copy's folder exists already.
    #[error("the working copy {} exists already", .0.display())]
    Exists(PathBuf),
    /// The overlay copy was unmounted: its changes are in `upper/`.
    #[error("the working copy {} was released; its changes are in its upper/ folder", .0.display())]
    Released(PathBuf),
    /// A file-system operation failed.
    #[error("{what} {}: {source}", path.display())]
    Io {
        /// What was being done.
        what: &'static str,
        /// On which path.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

impl TemplateError {
    fn io(what: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> TemplateError {
        let path = path.to_path_buf();
        move |source| TemplateError::Io { what, path, source }
    }
}

/// A session's copy of a template.
#[derive(Debug)]
pub struct WorkingCopy {
    /// The template (resolved).
    pub template: PathBuf,
    /// The copy's folder under the project's temp folder.
    pub dir: PathBuf,
    /// Where the session works.
    pub root: PathBuf,
    /// How the copy was made.
    pub kind: CopyKind,
    /// Still mounted (overlay).
    mounted: std::sync::atomic::AtomicBool,
}

/// Resolves `path` as a template folder: it must exist and be a folder
/// (symlinks followed); `flag` names it in the error.
pub fn check_template(path: &Path, flag: &'static str) -> Result<PathBuf, TemplateError> {
    let bad = |why: String| TemplateError::BadTemplate {
        flag,
        path: path.to_path_buf(),
        why,
    };
    let resolved = std::fs::canonicalize(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => bad("no such folder".into()),
        _ => bad(e.to_string()),
    })?;
    let meta = std::fs::metadata(&resolved).map_err(|e| bad(e.to_string()))?;
    if !meta.is_dir() {
        let kind = match meta.is_file() {
            true => "a regular file",
            false => super::file_kind(&meta),
        };
        return Err(bad(format!("not a folder ({kind})")));
    }
    Ok(resolved)
}

impl WorkingCopy {
    /// Makes a copy of `template` (checked with [`check_template`]) in
    /// `dir`, which must not exist yet: an overlay where the kernel lets
    /// gemini-rs mount, else reflinks, else a copy.
    pub fn create(template: &Path, dir: &Path) -> Result<WorkingCopy, TemplateError> {
        if dir.starts_with(template) {
            return Err(TemplateError::BadTemplate {
                flag: "--workspace-from",
                path: template.to_path_buf(),
                why: format!("it holds the working copy's folder {}", dir.display()),
            });
        }
        if dir.symlink_metadata().is_ok() {
            return Err(TemplateError::Exists(dir.to_path_buf()));
        }
        std::fs::create_dir_all(dir).map_err(TemplateError::io("cannot create", dir))?;
        let merged = dir.join("merged");
        if overlay::mount(template, dir, &merged).is_ok() {
            return Ok(WorkingCopy {
                template: template.to_path_buf(),
                dir: dir.to_path_buf(),
                root: merged,
                kind: CopyKind::Overlay,
                mounted: true.into(),
            });
        }
        // What a failed mount left (empty folders) goes.
        let _ = std::fs::remove_dir_all(dir);
        std::fs::create_dir_all(dir).map_err(TemplateError::io("cannot create", dir))?;
        let tree = dir.join("tree");
        let kind = clone::copy_tree(template, &tree)?;
        Ok(WorkingCopy {
            template: template.to_path_buf(),
            dir: dir.to_path_buf(),
            root: tree,
            kind,
            mounted: false.into(),
        })
    }

    /// The session's changes as a unified diff (`a/` the template, `b/`
    /// the copy), in path order; empty when nothing changed. An overlay
    /// copy must still be mounted ([`Self::release`] comes after).
    pub fn patch(&self) -> Result<String, TemplateError> {
        let changes = match self.kind {
            CopyKind::Overlay if self.mounted.load(std::sync::atomic::Ordering::SeqCst) => {
                patch::overlay_changes(&self.template, &self.dir.join("upper"), &self.root)?
            }
            CopyKind::Overlay => return Err(TemplateError::Released(self.dir.clone())),
            _ => patch::tree_changes(&self.template, &self.root)?,
        };
        Ok(patch::render(&changes))
    }

    /// Unmounts an overlay copy (lazily: a process still inside keeps its
    /// view); the changes stay in `upper/`. Nothing to do for the others.
    pub fn release(&self) {
        if self
            .mounted
            .swap(false, std::sync::atomic::Ordering::SeqCst)
        {
            overlay::unmount(&self.root);
        }
    }
}

impl Drop for WorkingCopy {
    fn drop(&mut self) {
        self.release();
    }
}

#[cfg(test)]
mod tests;
