//! "Modify with external editor" for edit confirmations: the proposed
//! content goes to a temp file, the terminal UI steps aside while
//! `$VISUAL` / `$EDITOR` (default `vi`) runs, and the edited text goes back
//! to the scheduler as the call's modified arguments.

use crate::ui::commands::editor;
use crate::ui::control::App;
use crate::ui::term::Tui;
use crate::ui::view::confirm::ConfirmDialog;
use gemini_rs_protocol::events::ConfirmationDetails;
use gemini_rs_protocol::events::{ConfirmationResponse, Op};
use std::path::{Path, PathBuf};

/// The editor command: the preferred editor when it is installed, else
/// `$VISUAL`, else `$EDITOR`, else `vi`, split on whitespace (`code
/// --wait` works).
pub fn editor_command(preferred: Option<&str>) -> Vec<String> {
    let path_var = editor::process_path();
    if let Some(cmd) = preferred
        .and_then(editor::by_id)
        .and_then(|e| e.command(&path_var))
    {
        return cmd;
    }
    ["VISUAL", "EDITOR"]
        .iter()
        .filter_map(|k| std::env::var(k).ok())
        .find(|v| !v.trim().is_empty())
        .unwrap_or_else(|| "vi".to_string())
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

/// A temp file path keeping `file_path`'s extension (for highlighting).
fn temp_path(file_path: &Path) -> PathBuf {
    let name = file_path
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_else(|| "proposal.txt".to_string());
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    std::env::temp_dir().join(format!(
        "gemini-rs-edit-{}-{nanos}-{name}",
        std::process::id()
    ))
}

/// Runs the editor (the preferred one, else `$VISUAL`/`$EDITOR`) on
/// `path` itself (a plan file) and waits for it.
pub fn edit_in_place(path: &Path, preferred: Option<&str>) -> Result<(), String> {
    let cmd = editor_command(preferred);
    let Some((prog, args)) = cmd.split_first() else {
        return Err("No editor configured.".to_string());
    };
    let status = std::process::Command::new(prog)
        .args(args)
        .arg(path)
        .status()
        .map_err(|e| format!("Cannot start the editor {prog}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("The editor {prog} exited with {status}."))
    }
}

/// Writes `content`, runs the editor on it, returns the edited text.
fn edit_text(file_path: &Path, content: &str, preferred: Option<&str>) -> Result<String, String> {
    let path = temp_path(file_path);
    std::fs::write(&path, content).map_err(|e| format!("{}: {e}", path.display()))?;
    let result = edit_in_place(&path, preferred)
        .and_then(|()| std::fs::read_to_string(&path).map_err(|e| e.to_string()));
    let _ = std::fs::remove_file(&path);
    result
}

/// Runs the editor on `dialog`'s proposal with the terminal handed over,
/// then sends the modified arguments (or reopens the dialog).
pub fn run_editor(app: &mut App, tui: &mut Tui, dialog: ConfirmDialog) -> std::io::Result<()> {
    if let ConfirmationDetails::ExitPlanMode { plan_path, .. } = &dialog.details {
        let path = plan_path.clone();
        return edit_plan(app, tui, dialog, &path);
    }
    let ConfirmationDetails::Edit {
        file_path,
        new_content,
        ..
    } = &dialog.details
    else {
        app.state.confirm = Some(dialog);
        return Ok(());
    };
    let gate = app.ctx.keys.clone();
    gate.pause();
    tui.finish();
    let edited = edit_text(file_path, new_content, app.preferred_editor.as_deref());
    let restarted = Tui::start(false);
    gate.resume();
    *tui = restarted?;
    app.clear_requested = false;
    match edited.map(|text| dialog.details.modified_args(text)) {
        Ok(Some(args)) => {
            app.ctx
                .ops
                .submit(Op::Confirm(ConfirmationResponse::modified(
                    dialog.call_id.clone(),
                    args,
                )));
            app.state.info(&format!(
                "Modified the proposed change to {}.",
                file_path.display()
            ));
        }
        Ok(None) => {
            app.state
                .warn(&format!("{} cannot be modified in an editor.", dialog.name));
            app.state.confirm = Some(dialog);
        }
        Err(e) => {
            app.state.error(&e);
            app.state.confirm = Some(dialog);
        }
    }
    Ok(())
}

/// What the model hears after the user edited the plan (Ctrl+G).
const EDITED: &str = "I edited the plan file (or annotated it with feedback). Review it, revise it where needed, and present it again for approval.";

/// Ctrl+G in the plan dialog: the plan file opens in the external editor
/// (the terminal handed over meanwhile); afterwards the model is asked to
/// review the edited plan. A failing editor reopens the dialog.
fn edit_plan(
    app: &mut App,
    tui: &mut Tui,
    dialog: ConfirmDialog,
    path: &Path,
) -> std::io::Result<()> {
    let gate = app.ctx.keys.clone();
    gate.pause();
    tui.finish();
    let edited = edit_in_place(path, app.preferred_editor.as_deref());
    let restarted = Tui::start(false);
    gate.resume();
    *tui = restarted?;
    app.clear_requested = false;
    match edited {
        Ok(()) => {
            app.ctx
                .ops
                .submit(Op::Confirm(ConfirmationResponse::plan_feedback(
                    dialog.call_id,
                    EDITED,
                )));
            app.state
                .info(&format!("Edited the plan {}.", path.display()));
            app.state.confirm = app.state.confirm_queue.pop_front();
        }
        Err(e) => {
            app.state.error(&e);
            app.state.confirm = Some(dialog);
        }
    }
    Ok(())
}
