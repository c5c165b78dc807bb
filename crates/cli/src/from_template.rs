//! `--workspace-from DIR` and `--patch-out FILE`: the run works in a
//! copy-on-write copy of DIR kept under the project's temp folder
//! (`~/.gemini/tmp/<project>/workspaces/<session id>/`), and its changes
//! can be written out as a unified diff. DIR is never changed.

use crate::args::Args;
use crate::exit::ExitCode;
use gemini_rs_core::{FolderTrust, GeminiPaths, WorkingCopy};
use std::path::{Path, PathBuf};

/// The working copy of this run and where its patch goes.
pub struct Entered {
    copy: WorkingCopy,
    patch_out: Option<PathBuf>,
}

/// Makes the files named on the command line absolute against the
/// launching folder, so that they still name the same files once the run
/// works in the copy. Folders (`--include-directories`) keep their meaning
/// inside the workspace.
pub fn anchor_files(args: &mut Args) {
    fn anchor(path: &mut PathBuf) {
        if let Ok(abs) = std::path::absolute(&*path) {
            *path = abs;
        }
    }
    let singles = [
        &mut args.fake_responses,
        &mut args.fake_responses_non_strict,
        &mut args.record_responses,
        &mut args.trajectory,
        &mut args.session_file,
        &mut args.output_schema,
    ];
    singles.into_iter().flatten().for_each(anchor);
    args.policy.iter_mut().for_each(anchor);
    args.admin_policy.iter_mut().for_each(anchor);
}

/// Makes the copy of `template` and makes it the working directory; the
/// launching folder `root` names the project whose temp folder keeps it.
/// Call it while the process runs one thread (a user namespace may be
/// entered to mount the overlay without root). On failure the exit code,
/// with the error printed.
pub fn enter(
    template: &Path,
    patch_out: Option<PathBuf>,
    root: &Path,
    paths: &GeminiPaths,
    session_id: &str,
) -> Result<Entered, i32> {
    let template = match gemini_rs_core::check_template(template, "--workspace-from") {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{e}");
            return Err(ExitCode::Input.code());
        }
    };
    // The patch goes where the user named it from the launching folder,
    // checked now (a FIFO, a device or a folder is refused before the run).
    let patch_out = match patch_out
        .as_deref()
        .map(gemini_rs_core::check_trajectory_path)
    {
        None => None,
        Some(Ok(path)) => Some(path),
        Some(Err(e)) => {
            eprintln!("--patch-out: {e}");
            return Err(ExitCode::Input.code());
        }
    };
    // Root mounts the overlay as it is; another user may in a user
    // namespace of its own, for a template all their own (else the copy
    // is made by reflinks or copies).
    if let Err(e) = gemini_rs_core::enter_user_namespace(&template) {
        tracing::debug!("no user namespace for the overlay: {e}");
    }
    let dir = paths
        .project_temp_dir(root)
        .join("workspaces")
        .join(session_id);
    let copy = match WorkingCopy::create(&template, &dir) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("--workspace-from: {e}");
            return Err(ExitCode::Error.code());
        }
    };
    // The copy is as trusted as its template.
    let env = gemini_rs_core::Env::from_process();
    if let Ok(FolderTrust::Trusted) = gemini_rs_core::folder_trust(&template, paths, &env) {
        // SAFETY: called from main before the runtime or any other thread exists.
        unsafe { std::env::set_var("GEMINI_CLI_TRUST_WORKSPACE", "true") };
    }
    if let Err(e) = std::env::set_current_dir(&copy.root) {
        eprintln!(
            "--workspace-from: cannot enter {}: {e}",
            copy.root.display()
        );
        return Err(ExitCode::Error.code());
    }
    Ok(Entered { copy, patch_out })
}

impl Entered {
    /// After the run: the patch is written (atomically) when asked for and
    /// an overlay is unmounted; `code` is the run's exit code, kept unless
    /// the patch could not be written (then 1).
    pub fn finish(self, code: i32) -> i32 {
        let mut code = code;
        if let Some(out) = &self.patch_out {
            let written = self
                .copy
                .patch()
                .map_err(|e| e.to_string())
                .and_then(|patch| {
                    gemini_rs_core::write_atomic(out, patch.as_bytes()).map_err(|e| e.to_string())
                });
            if let Err(e) = written {
                eprintln!("--patch-out {}: {e}", out.display());
                if code == 0 {
                    code = ExitCode::Error.code();
                }
            }
        }
        // Leave the copy before it is unmounted.
        let _ = std::env::set_current_dir(&self.copy.dir);
        self.copy.release();
        code
    }
}
