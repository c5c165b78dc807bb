//! Ignore rules as Gemini CLI's `FileDiscoveryService` applies them.
//!
//! - `.gitignore` only inside a git repo (a `.git` at the root or an
//!   ancestor): `.git/info/exclude`, the root `.gitignore` and every nested
//!   `.gitignore` on the way down to a path, each anchored to its directory;
//!   `.git` itself is always ignored then.
//! - `.geminiignore` at the root, then the custom ignore files (relative
//!   to the root), appended after the git rules, so a `!pattern` there can
//!   re-include a git-ignored file.
//! - Hidden files are not ignored; the global git excludes, `.ignore` and
//!   `.rgignore` are not read.
//!
//! All rules behave as one ordered list (the last matching pattern wins), and
//! nothing below an ignored directory can be re-included, as in git.
//! Matchers are loaded lazily, once per file, and cached.

use super::FilterOptions;
use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// The cached matchers of one workspace root.
#[derive(Default)]
pub(crate) struct IgnoreCache {
    git_repo: OnceLock<bool>,
    dot_git: OnceLock<Option<Arc<Gitignore>>>,
    files: Mutex<HashMap<PathBuf, Option<Arc<Gitignore>>>>,
}

impl std::fmt::Debug for IgnoreCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IgnoreCache")
            .field("git_repo", &self.git_repo.get())
            .finish_non_exhaustive()
    }
}

/// One layer of rules: the matcher and the directory it is anchored to.
struct Layer {
    dir: PathBuf,
    matcher: Arc<Gitignore>,
}

impl IgnoreCache {
    /// True when `root` or an ancestor has a `.git`.
    fn is_git_repo(&self, root: &Path) -> bool {
        *self
            .git_repo
            .get_or_init(|| root.ancestors().any(|d| d.join(".git").exists()))
    }

    /// The matcher of one ignore file anchored at `dir` (cached; `None` when
    /// the file does not exist or cannot be read).
    fn file(&self, dir: &Path, file: &Path) -> Option<Arc<Gitignore>> {
        let mut files = match self.files.lock() {
            Ok(g) => g,
            Err(poisoned) => poisoned.into_inner(),
        };
        files
            .entry(file.to_path_buf())
            .or_insert_with(|| {
                if !file.is_file() {
                    return None;
                }
                let mut builder = GitignoreBuilder::new(dir);
                if let Some(err) = builder.add(file) {
                    tracing::debug!("ignore file {}: {err}", file.display());
                }
                builder.build().ok().map(Arc::new)
            })
            .clone()
    }

    fn dot_git(&self, root: &Path) -> Option<Arc<Gitignore>> {
        self.dot_git
            .get_or_init(|| {
                let mut builder = GitignoreBuilder::new(root);
                builder.add_line(None, ".git").ok()?;
                builder.build().ok().map(Arc::new)
            })
            .clone()
    }

    /// The layers that apply to `rel` (relative to `root`), lowest
    /// precedence first.
    fn layers(&self, root: &Path, rel: &Path, opts: &FilterOptions) -> Vec<Layer> {
        let mut layers = Vec::new();
        let mut push = |dir: &Path, matcher: Option<Arc<Gitignore>>| {
            if let Some(matcher) = matcher {
                layers.push(Layer {
                    dir: dir.to_path_buf(),
                    matcher,
                });
            }
        };
        if opts.respect_git_ignore && self.is_git_repo(root) {
            push(root, self.dot_git(root));
            push(root, self.file(root, &root.join(".git/info/exclude")));
            push(root, self.file(root, &root.join(".gitignore")));
            let mut dir = root.to_path_buf();
            if let Some(parent) = rel.parent() {
                for comp in parent.components() {
                    dir.push(comp);
                    push(&dir, self.file(&dir, &dir.join(".gitignore")));
                }
            }
        }
        if opts.respect_gemini_ignore {
            push(root, self.file(root, &root.join(".geminiignore")));
            for custom in &opts.custom_ignore_files {
                let file = if custom.is_absolute() {
                    custom.clone()
                } else {
                    root.join(custom)
                };
                push(root, self.file(root, &file));
            }
        }
        layers
    }

    /// True when `abs` is ignored under `opts`. Paths outside `root` never
    /// are.
    pub(crate) fn is_ignored(&self, root: &Path, abs: &Path, opts: &FilterOptions) -> bool {
        if !opts.respect_git_ignore && !opts.respect_gemini_ignore {
            return false;
        }
        let Ok(rel) = abs.strip_prefix(root) else {
            return false;
        };
        if rel.as_os_str().is_empty() {
            return false;
        }
        let layers = self.layers(root, rel, opts);
        if layers.is_empty() {
            return false;
        }
        let comps: Vec<_> = rel.components().collect();
        let mut prefix = root.to_path_buf();
        for (i, comp) in comps.iter().enumerate() {
            prefix.push(comp);
            let last = i + 1 == comps.len();
            let is_dir = !last || abs.is_dir();
            let mut ignored = false;
            for layer in &layers {
                if !prefix.starts_with(&layer.dir) || prefix == layer.dir {
                    continue;
                }
                match layer.matcher.matched(&prefix, is_dir) {
                    Match::Ignore(_) => ignored = true,
                    Match::Whitelist(_) => ignored = false,
                    Match::None => {}
                }
            }
            if ignored {
                // An ignored directory cannot have anything re-included.
                return true;
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn opts(git: bool, gemini: bool) -> FilterOptions {
        FilterOptions {
            respect_git_ignore: git,
            respect_gemini_ignore: gemini,
            custom_ignore_files: Vec::new(),
        }
    }

    fn setup(git: bool) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(dir.path()).unwrap();
        if git {
            fs::create_dir_all(root.join(".git/info")).unwrap();
        }
        (dir, root)
    }

    #[test]
    fn gitignore_only_in_repo() {
        for git in [false, true] {
            let (_d, root) = setup(git);
            fs::write(root.join(".gitignore"), "dist/\n*.log\n").unwrap();
            fs::create_dir(root.join("dist")).unwrap();
            fs::write(root.join("dist/a.js"), "x").unwrap();
            let c = IgnoreCache::default();
            let o = opts(true, true);
            assert_eq!(c.is_ignored(&root, &root.join("dist/a.js"), &o), git);
            assert_eq!(c.is_ignored(&root, &root.join("x.log"), &o), git);
            assert_eq!(c.is_ignored(&root, &root.join(".git"), &o), git);
            assert!(!c.is_ignored(&root, &root.join("keep.txt"), &o));
            assert!(!c.is_ignored(&root, &root.join("dist/a.js"), &opts(false, true)));
        }
    }

    #[test]
    fn repo_in_ancestor_and_hidden_files() {
        let (_d, top) = setup(true);
        let root = top.join("sub");
        fs::create_dir(&root).unwrap();
        fs::write(root.join(".gitignore"), "gen\n").unwrap();
        let c = IgnoreCache::default();
        assert!(c.is_ignored(&root, &root.join("gen"), &opts(true, true)));
        assert!(!c.is_ignored(&root, &root.join(".hidden"), &opts(true, true)));
        assert!(!c.is_ignored(&root, Path::new("/elsewhere/gen"), &opts(true, true)));
    }

    #[test]
    fn nested_gitignore_and_exclude() {
        let (_d, root) = setup(true);
        fs::write(root.join(".git/info/exclude"), "secret.txt\n").unwrap();
        fs::create_dir_all(root.join("a/b")).unwrap();
        fs::write(root.join("a/.gitignore"), "/only_here.txt\n*.tmp\n").unwrap();
        let c = IgnoreCache::default();
        let o = opts(true, false);
        assert!(c.is_ignored(&root, &root.join("secret.txt"), &o));
        assert!(c.is_ignored(&root, &root.join("a/only_here.txt"), &o));
        assert!(!c.is_ignored(&root, &root.join("a/b/only_here.txt"), &o));
        assert!(c.is_ignored(&root, &root.join("a/b/x.tmp"), &o));
        assert!(!c.is_ignored(&root, &root.join("x.tmp"), &o));
        assert!(!c.is_ignored(&root, &root.join("only_here.txt"), &o));
    }

    #[test]
    fn geminiignore_custom_and_reinclude() {
        let (_d, root) = setup(true);
        fs::write(root.join(".gitignore"), "*.txt\n").unwrap();
        fs::write(root.join(".geminiignore"), "s.md\n!keep.txt\n").unwrap();
        fs::write(root.join("extra.ignore"), "c.md\n").unwrap();
        let c = IgnoreCache::default();
        let mut o = opts(true, true);
        o.custom_ignore_files.push(PathBuf::from("extra.ignore"));
        assert!(c.is_ignored(&root, &root.join("s.md"), &o));
        assert!(c.is_ignored(&root, &root.join("c.md"), &o));
        assert!(c.is_ignored(&root, &root.join("a.txt"), &o));
        assert!(!c.is_ignored(&root, &root.join("keep.txt"), &o));
        assert!(!c.is_ignored(&root, &root.join("s.md"), &opts(true, false)));
        assert!(c.is_ignored(&root, &root.join("keep.txt"), &opts(true, false)));
    }

    #[test]
    fn ignored_directory_cannot_reinclude() {
        let (_d, root) = setup(true);
        fs::write(root.join(".gitignore"), "build/\n!build/keep.txt\n").unwrap();
        fs::create_dir(root.join("build")).unwrap();
        let c = IgnoreCache::default();
        assert!(c.is_ignored(&root, &root.join("build/keep.txt"), &opts(true, true)));
    }
}
