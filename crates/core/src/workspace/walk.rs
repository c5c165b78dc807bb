//! The files below a directory of the workspace that the ignore rules let
//! through (version-control and dependency folders skipped), in path order.

use super::Workspace;
use std::path::{Path, PathBuf};

impl Workspace {
    /// The files below `dir`, sorted, at most `limit`.
    pub fn files_below(&self, dir: &Path, limit: usize) -> Vec<PathBuf> {
        let opts = self.filter_options().clone();
        let mut out: Vec<PathBuf> = ignore::WalkBuilder::new(dir)
            .standard_filters(false)
            .hidden(false)
            .filter_entry(|e| {
                !matches!(
                    e.file_name().to_str(),
                    Some(".git" | "node_modules" | "bower_components" | ".svn" | ".hg")
                )
            })
            .build()
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
            .map(ignore::DirEntry::into_path)
            .filter(|p| !self.is_ignored(p, &opts))
            .collect();
        out.sort();
        out.truncate(limit);
        out
    }
}
