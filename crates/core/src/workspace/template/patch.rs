//! A working copy's changes, as a unified diff in git's form (`diff
//! --git`, `new file mode`, `deleted file mode`, `/dev/null`), which `git
//! apply` and `patch -p1` take. Binary files are named, not carried.

use super::TemplateError;
use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// One side of a changed path: its mode and bytes (a symlink's bytes are
/// its target).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Side {
    mode: u32,
    bytes: Vec<u8>,
}

/// Changed paths (relative, `/`-separated) with what they were and are.
pub type Changes = BTreeMap<String, (Option<Side>, Option<Side>)>;

fn side(path: &Path) -> Result<Option<Side>, TemplateError> {
    let Ok(meta) = fs::symlink_metadata(path) else {
        return Ok(None);
    };
    let t = meta.file_type();
    let bytes = if t.is_symlink() {
        let target = fs::read_link(path).map_err(TemplateError::io("cannot read", path))?;
        target.as_os_str().as_encoded_bytes().to_vec()
    } else if t.is_file() {
        fs::read(path).map_err(TemplateError::io("cannot read", path))?
    } else {
        return Ok(None);
    };
    let mode = match t.is_symlink() {
        true => 0o120000,
        false if meta.permissions().mode() & 0o111 != 0 => 0o100755,
        false => 0o100644,
    };
    Ok(Some(Side { mode, bytes }))
}

fn rel(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .to_string_lossy()
        .into_owned()
}

/// Every file (and symlink) below `dir`, as paths.
fn files_below(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        match entry.file_type() {
            Ok(t) if t.is_dir() => files_below(&path, out),
            Ok(_) => out.push(path),
            Err(_) => {}
        }
    }
}

/// Records `rel` as changed when its two sides differ.
fn compare(
    changes: &mut Changes,
    rel: String,
    old: &Path,
    new: &Path,
) -> Result<(), TemplateError> {
    let before = side(old)?;
    let after = side(new)?;
    if before != after {
        changes.insert(rel, (before, after));
    }
    Ok(())
}

/// The changes of an overlay copy: the paths in `upper` (whiteouts,
/// opaque folders, copied-up and new files), compared between the
/// template and the merged view.
pub fn overlay_changes(
    template: &Path,
    upper: &Path,
    merged: &Path,
) -> Result<Changes, TemplateError> {
    let mut changes = Changes::new();
    let mut touched = Vec::new();
    collect_upper(template, upper, upper, &mut touched);
    for rel_path in touched {
        // A whiteout or an opaque folder hides what the template had below.
        let mut below = Vec::new();
        let lower = template.join(&rel_path);
        match fs::symlink_metadata(&lower) {
            Ok(m) if m.is_dir() => files_below(&lower, &mut below),
            Ok(_) => below.push(lower),
            Err(_) => {}
        }
        let mut news = Vec::new();
        let now = merged.join(&rel_path);
        match fs::symlink_metadata(&now) {
            Ok(m) if m.is_dir() => files_below(&now, &mut news),
            Ok(_) => news.push(now),
            Err(_) => {}
        }
        for path in below {
            let r = rel(template, &path);
            compare(&mut changes, r.clone(), &path, &merged.join(&r))?;
        }
        for path in news {
            let r = rel(merged, &path);
            if !changes.contains_key(&r) {
                compare(&mut changes, r.clone(), &template.join(&r), &path)?;
            }
        }
    }
    Ok(changes)
}

/// The paths below `dir` that `upper` holds, relative: every file and
/// whiteout, and every folder that is opaque or not in the template
/// (compared whole); folders only copied up are walked.
fn collect_upper(template: &Path, upper: &Path, dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(meta) = fs::symlink_metadata(&path) else {
            continue;
        };
        let r = path.strip_prefix(upper).unwrap_or(&path).to_path_buf();
        let copied_up = meta.is_dir() && !opaque(&path) && template.join(&r).is_dir();
        if copied_up {
            collect_upper(template, upper, &path, out);
        } else {
            out.push(r);
        }
    }
}

/// True for a folder overlay marked opaque (it replaced the template's).
fn opaque(dir: &Path) -> bool {
    let Ok(path) = std::ffi::CString::new(dir.as_os_str().as_encoded_bytes()) else {
        return false;
    };
    [c"trusted.overlay.opaque", c"user.overlay.opaque"]
        .iter()
        .any(|name| {
            let mut value = [0u8; 4];
            // SAFETY: valid strings and a buffer of the given length.
            let n = unsafe {
                libc::lgetxattr(
                    path.as_ptr(),
                    name.as_ptr(),
                    value.as_mut_ptr().cast(),
                    value.len(),
                )
            };
            n > 0 && value[0] == b'y'
        })
}

/// The changes of a copied tree: every path on either side whose size,
/// modification time, mode or type differ, compared by content.
pub fn tree_changes(template: &Path, copy: &Path) -> Result<Changes, TemplateError> {
    let mut olds = Vec::new();
    files_below(template, &mut olds);
    let mut news = Vec::new();
    files_below(copy, &mut news);
    let mut paths: BTreeMap<String, ()> = BTreeMap::new();
    for p in &olds {
        paths.insert(rel(template, p), ());
    }
    for p in &news {
        paths.insert(rel(copy, p), ());
    }
    let mut changes = Changes::new();
    for r in paths.into_keys() {
        let (old, new) = (template.join(&r), copy.join(&r));
        if same_stat(&old, &new) {
            continue;
        }
        compare(&mut changes, r, &old, &new)?;
    }
    Ok(changes)
}

fn same_stat(a: &Path, b: &Path) -> bool {
    match (fs::symlink_metadata(a), fs::symlink_metadata(b)) {
        (Ok(a), Ok(b)) => {
            a.file_type() == b.file_type()
                && a.len() == b.len()
                && a.mode() == b.mode()
                && a.mtime() == b.mtime()
                && a.mtime_nsec() == b.mtime_nsec()
        }
        _ => false,
    }
}

/// The unified diff of `changes`.
pub fn render(changes: &Changes) -> String {
    let mut out = String::new();
    for (path, (old, new)) in changes {
        out.push_str(&format!("diff --git a/{path} b/{path}\n"));
        match (old, new) {
            (None, Some(n)) => out.push_str(&format!("new file mode {:o}\n", n.mode)),
            (Some(o), None) => out.push_str(&format!("deleted file mode {:o}\n", o.mode)),
            (Some(o), Some(n)) if o.mode != n.mode => {
                out.push_str(&format!("old mode {:o}\nnew mode {:o}\n", o.mode, n.mode))
            }
            _ => {}
        }
        let text = |s: &Option<Side>| match s {
            None => Some(String::new()),
            Some(s) if s.bytes.contains(&0) => None,
            Some(s) => String::from_utf8(s.bytes.clone()).ok(),
        };
        let (a, b) = match old {
            Some(_) => (format!("a/{path}"), format!("b/{path}")),
            None => ("/dev/null".to_string(), format!("b/{path}")),
        };
        let b = if new.is_none() {
            "/dev/null".to_string()
        } else {
            b
        };
        match (text(old), text(new)) {
            (Some(before), Some(after)) => {
                let diff = similar::TextDiff::from_lines(&before, &after);
                let shown = diff
                    .unified_diff()
                    .context_radius(3)
                    .missing_newline_hint(true)
                    .header(&a, &b)
                    .to_string();
                out.push_str(&shown);
            }
            _ => out.push_str(&format!("Binary files {a} and {b} differ\n")),
        }
    }
    out
}
