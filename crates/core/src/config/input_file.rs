//! Start-up input files (settings, policy files, `--fake-responses`,
//! `SKILL.md`, agent and command files, extension manifests) are read
//! through [`read_input`]: a regular file only (never a FIFO, a device or a
//! socket, and never a symlink that leaves its root), opened without
//! blocking, read up to a size cap. [`check_nesting`] bounds how deep the
//! brackets of YAML or TOML text go before a parser sees it.

use std::io::Read;
use std::path::{Path, PathBuf};

/// The size cap of a settings, policy, skill, agent, command or manifest
/// file.
pub const MAX_INPUT_BYTES: u64 = 4 * 1024 * 1024;

/// The size cap of a `--fake-responses` file (a recorded session).
pub const MAX_RESPONSES_BYTES: u64 = 512 * 1024 * 1024;

/// A session file given with `--session-file` may be at most this large.
pub const MAX_SESSION_BYTES: u64 = 512 * 1024 * 1024;

/// How deep `[`/`{` may nest in YAML front matter or TOML text.
pub const MAX_NESTING: usize = 64;

/// Why an input file was not read.
#[derive(Debug, thiserror::Error)]
pub enum InputFileError {
    /// The file does not exist.
    #[error("{} does not exist", path.display())]
    Missing {
        /// The file.
        path: PathBuf,
    },
    /// A FIFO, device, socket or directory.
    #[error("{} is not a regular file ({kind})", path.display())]
    NotRegular {
        /// The file.
        path: PathBuf,
        /// What it is, in words.
        kind: &'static str,
    },
    /// A symlink to a file outside the folder it must stay in.
    #[error("{} leads to {}, outside {}", path.display(), target.display(), root.display())]
    Outside {
        /// The file.
        path: PathBuf,
        /// Where it leads.
        target: PathBuf,
        /// The folder it must stay in.
        root: PathBuf,
    },
    /// Over the size cap.
    #[error("{} is larger than {max} bytes", path.display())]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// The cap.
        max: u64,
    },
    /// Not UTF-8 text.
    #[error("{} is not UTF-8 text", path.display())]
    NotText {
        /// The file.
        path: PathBuf,
    },
    /// Any other I/O failure.
    #[error("cannot read {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

impl InputFileError {
    /// True when the file is simply not there (most loaders skip it
    /// silently).
    pub fn is_missing(&self) -> bool {
        matches!(self, InputFileError::Missing { .. })
    }

    /// True when the path is a directory.
    pub fn is_directory(&self) -> bool {
        matches!(
            self,
            InputFileError::NotRegular {
                kind: "a directory",
                ..
            }
        )
    }
}

/// Reads `path` as UTF-8 text: a regular file of at most `max_bytes`,
/// which, when `root` is given, resolves (symlinks followed) to a place
/// inside `root`. Opened with `O_NONBLOCK`, so a FIFO cannot hold the
/// caller even between the check and the open.
pub fn read_input(
    path: &Path,
    root: Option<&Path>,
    max_bytes: u64,
) -> Result<String, InputFileError> {
    let io = |source: std::io::Error| {
        if source.kind() == std::io::ErrorKind::NotFound {
            InputFileError::Missing {
                path: path.to_path_buf(),
            }
        } else {
            InputFileError::Io {
                path: path.to_path_buf(),
                source,
            }
        }
    };
    let target = std::fs::canonicalize(path).map_err(io)?;
    if let Some(root) = root {
        let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
        if !target.starts_with(&root) {
            return Err(InputFileError::Outside {
                path: path.to_path_buf(),
                target,
                root,
            });
        }
    }
    let file = open_nonblocking(&target).map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    if !meta.is_file() {
        return Err(InputFileError::NotRegular {
            path: path.to_path_buf(),
            kind: crate::workspace::file_kind(&meta),
        });
    }
    if meta.len() > max_bytes {
        return Err(InputFileError::TooLarge {
            path: path.to_path_buf(),
            max: max_bytes,
        });
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.take(max_bytes.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > max_bytes {
        return Err(InputFileError::TooLarge {
            path: path.to_path_buf(),
            max: max_bytes,
        });
    }
    String::from_utf8(bytes).map_err(|_| InputFileError::NotText {
        path: path.to_path_buf(),
    })
}

/// Opens for reading without blocking on a FIFO and without taking a
/// terminal as the controlling one.
fn open_nonblocking(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
}

/// Text whose brackets nest deeper than the limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("its brackets nest more than {max} deep")]
pub struct TooDeep {
    /// The limit.
    pub max: usize,
}

/// Refuses text whose `[`/`{` nest more than `max` deep, counted without
/// regard to quoting (so it errs on the side of refusing): a YAML or TOML
/// parser is never handed a 100,000-deep `[[[...`.
pub fn check_nesting(text: &str, max: usize) -> Result<(), TooDeep> {
    let mut depth = 0usize;
    for b in text.bytes() {
        match b {
            b'[' | b'{' => {
                depth += 1;
                if depth > max {
                    return Err(TooDeep { max });
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regular_files_only_within_their_root_and_cap() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(root.join("a.json"), "{}").unwrap();
        std::fs::write(dir.path().join("outside.md"), "x").unwrap();
        std::os::unix::fs::symlink(dir.path().join("outside.md"), root.join("out.md")).unwrap();
        std::os::unix::fs::symlink("/dev/zero", root.join("zero")).unwrap();
        let fifo = root.join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a plain syscall on a path we own.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);

        assert_eq!(
            read_input(&root.join("a.json"), Some(&root), 10).unwrap(),
            "{}"
        );
        assert!(
            read_input(&root.join("a.json"), None, 1)
                .is_err_and(|e| matches!(e, InputFileError::TooLarge { max: 1, .. }))
        );
        assert!(
            read_input(&root.join("out.md"), Some(&root), 10)
                .is_err_and(|e| matches!(e, InputFileError::Outside { .. }))
        );
        assert_eq!(read_input(&root.join("out.md"), None, 10).unwrap(), "x");
        let zero = read_input(&root.join("zero"), None, 10).unwrap_err();
        assert_eq!(
            zero.to_string(),
            format!(
                "{} is not a regular file (a character device)",
                root.join("zero").display()
            )
        );
        assert!(
            read_input(&fifo, None, 10)
                .is_err_and(|e| matches!(e, InputFileError::NotRegular { kind: "a FIFO", .. }))
        );
        assert!(read_input(&root.join("nope"), None, 10).is_err_and(|e| e.is_missing()));
        assert!(read_input(&root, None, 10).is_err_and(|e| e.is_directory()));
    }

    #[test]
    fn nesting_is_bounded() {
        assert!(check_nesting("a: [[1], {b: [2]}]", 3).is_ok());
        assert_eq!(check_nesting("a: [[[1]]]", 2), Err(TooDeep { max: 2 }));
        let deep = "[".repeat(100_000);
        assert!(check_nesting(&deep, MAX_NESTING).is_err());
    }
}
