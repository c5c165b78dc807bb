//! `--session-id`, `--session-file` and `--trajectory`, checked and
//! applied before any model call: a taken id, a file that cannot be
//! imported or a trajectory path that cannot be written ends the run with
//! exit 42 and a message naming the flag.

use crate::args::Args;
use crate::exit::ExitCode;
use gemini_rs_core::GeminiPaths;
use std::path::Path;

/// Refuses a `--session-id` this project already used; imports a
/// `--session-file` as the new session `session_id` and makes the run
/// resume it. On refusal, the message is printed and the exit code
/// returned.
pub fn apply(
    args: &mut Args,
    paths: &GeminiPaths,
    root: &Path,
    session_id: &str,
) -> Result<(), i32> {
    if args.session_id.is_some() && gemini_rs_core::session_exists(paths, root, session_id) {
        eprintln!(
            "--session-id: a session \"{session_id}\" already exists in this project. Resume it with --resume {session_id}, or give another id."
        );
        return Err(ExitCode::Input.code());
    }
    if let Some(file) = &args.trajectory {
        match gemini_rs_core::check_trajectory_path(file) {
            Ok(path) => args.trajectory = Some(path),
            Err(e) => {
                eprintln!("--trajectory: {e}");
                return Err(ExitCode::Input.code());
            }
        }
    }
    if let Some(file) = &args.session_file {
        match gemini_rs_core::import_session(paths, root, file, session_id) {
            Ok(info) => args.resume = Some(info.session_id),
            Err(e) => {
                eprintln!("--session-file: {e}");
                return Err(ExitCode::Input.code());
            }
        }
    }
    Ok(())
}
