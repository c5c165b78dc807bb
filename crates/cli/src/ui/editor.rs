//! "Modify with external editor" for edit confirmations: the proposed
//! content goes to a temp file, the terminal UI steps aside while
//! `$VISUAL` / `$EDITOR` (default `vi`) runs, and the edited text goes back
//! to the scheduler as the call's modified arguments.

use super::app::App;
use super::confirm::ConfirmDialog;
use super::term::Tui;
use gemini_rs_core::events::{ConfirmationResponse, Op};
use gemini_rs_core::tools::ConfirmationDetails;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Lets the key reader thread stand aside while another program owns the
/// terminal.
#[derive(Default)]
pub struct KeyGate {
    paused: AtomicBool,
    idle: AtomicBool,
}

impl KeyGate {
    /// Called by the key reader before each poll: true when it must not
    /// read (it then reports itself idle).
    pub fn hold(&self) -> bool {
        let paused = self.paused.load(Ordering::SeqCst);
        self.idle.store(paused, Ordering::SeqCst);
        paused
    }

    /// Stops the reader and waits (briefly) until it is idle.
    pub fn pause(&self) {
        self.idle.store(false, Ordering::SeqCst);
        self.paused.store(true, Ordering::SeqCst);
        let deadline = Instant::now() + Duration::from_millis(500);
        while !self.idle.load(Ordering::SeqCst) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Lets the reader go on.
    pub fn resume(&self) {
        self.paused.store(false, Ordering::SeqCst);
    }
}

/// The editor command: `$VISUAL`, else `$EDITOR`, else `vi`, split on
/// whitespace (`code --wait` works).
pub fn editor_command() -> Vec<String> {
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

/// Writes `content`, runs the editor on it, returns the edited text.
fn edit_text(file_path: &Path, content: &str) -> Result<String, String> {
    let path = temp_path(file_path);
    std::fs::write(&path, content).map_err(|e| format!("{}: {e}", path.display()))?;
    let cmd = editor_command();
    let result = match cmd.split_first() {
        Some((prog, args)) => std::process::Command::new(prog)
            .args(args)
            .arg(&path)
            .status()
            .map_err(|e| format!("Cannot start the editor {prog}: {e}"))
            .and_then(|st| {
                if st.success() {
                    std::fs::read_to_string(&path).map_err(|e| e.to_string())
                } else {
                    Err(format!("The editor {prog} exited with {st}."))
                }
            }),
        None => Err("No editor configured.".to_string()),
    };
    let _ = std::fs::remove_file(&path);
    result
}

impl App {
    /// Runs the editor on `dialog`'s proposal with the terminal handed
    /// over, then sends the modified arguments (or reopens the dialog).
    pub(super) fn run_editor(
        &mut self,
        tui: &mut Tui,
        dialog: ConfirmDialog,
    ) -> std::io::Result<()> {
        let ConfirmationDetails::Edit {
            file_path,
            new_content,
            ..
        } = &dialog.details
        else {
            self.state.confirm = Some(dialog);
            return Ok(());
        };
        let gate: Arc<KeyGate> = self.ctx.keys.clone();
        gate.pause();
        tui.finish();
        let edited = edit_text(file_path, new_content);
        let restarted = Tui::start();
        gate.resume();
        *tui = restarted?;
        self.clear_requested = false;
        match edited.map(|text| dialog.details.modified_args(text)) {
            Ok(Some(args)) => {
                self.ctx
                    .ops
                    .submit(Op::Confirm(ConfirmationResponse::modified(
                        dialog.call_id.clone(),
                        args,
                    )));
                self.state.info(&format!(
                    "Modified the proposed change to {}.",
                    file_path.display()
                ));
            }
            Ok(None) => {
                self.state
                    .warn(&format!("{} cannot be modified in an editor.", dialog.name));
                self.state.confirm = Some(dialog);
            }
            Err(e) => {
                self.state.error(&e);
                self.state.confirm = Some(dialog);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_gate_waits_for_the_reader() {
        let gate = Arc::new(KeyGate::default());
        let g = gate.clone();
        let reader = std::thread::spawn(move || {
            for _ in 0..100 {
                if g.hold() {
                    return true;
                }
                std::thread::sleep(Duration::from_millis(2));
            }
            false
        });
        gate.pause();
        assert!(reader.join().unwrap());
        gate.resume();
        assert!(!gate.hold());
    }
}
