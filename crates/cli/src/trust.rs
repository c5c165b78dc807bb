//! Folder trust at start-up, as today's Gemini CLI decides it: headless
//! in a folder that is not trusted exits 55 (unless `--skip-trust`,
//! `GEMINI_CLI_TRUST_WORKSPACE=true` or a trusted-folders rule says
//! otherwise); the terminal UI first asks, listing what the folder would
//! bring. Nothing of the folder is loaded before this.

use gemini_rs_core::{FolderContents, FolderTrust, GeminiPaths, TrustLevel};
use ratatui::crossterm::event::{self, Event, KeyCode, KeyEventKind, KeyModifiers};
use ratatui::crossterm::{cursor, execute, terminal};
use std::io::Write;
use std::path::Path;

/// What a headless run in an untrusted folder prints before exiting 55.
pub const UNTRUSTED_HEADLESS: &str = "gemini-rs is not running in a trusted folder, so it stops here (exit 55). \
To go on, pass `--skip-trust`, set `GEMINI_CLI_TRUST_WORKSPACE=true`, or trust this folder in interactive mode. \
See https://geminicli.com/docs/cli/trusted-folders/#headless-and-automated-environments";

/// The user's answer to the dialog.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// A rule was saved; the folder is trusted now or not.
    Decided(FolderTrust),
    /// Esc or Ctrl-C: no decision, the run ends.
    Cancelled,
}

/// Asks whether to trust `root`, saves the answer in `trustedFolders.json`
/// and returns it. Errors are the terminal's or the rules file's.
pub fn ask(root: &Path, paths: &GeminiPaths) -> anyhow::Result<Answer> {
    let contents = FolderContents::scan(root);
    let folder = name_of(root);
    let parent = root.parent().map(name_of).unwrap_or_else(|| folder.clone());
    let options = [
        format!("Trust folder ({folder})"),
        format!("Trust parent folder ({parent})"),
        "Don't trust".to_string(),
    ];
    let Some(choice) = select(&lines(root, &contents), &options)? else {
        return Ok(Answer::Cancelled);
    };
    let (level, trust) = match choice {
        0 => (TrustLevel::Folder, FolderTrust::Trusted),
        1 => (TrustLevel::Parent, FolderTrust::Trusted),
        _ => (TrustLevel::DoNotTrust, FolderTrust::Untrusted),
    };
    gemini_rs_core::save_folder_trust(paths, root, level)?;
    Ok(Answer::Decided(trust))
}

/// A path's last component as shown to the user (the whole path when it
/// has none, as `/`).
pub(crate) fn name_of(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| p.display().to_string())
}

/// Items shown per kind (the dialog must fit a terminal).
const SHOWN: usize = 5;

/// The dialog's text above the options.
fn lines(root: &Path, c: &FolderContents) -> Vec<String> {
    let mut out = vec![
        "Do you trust the files in this folder?".to_string(),
        format!("  {}", root.display()),
        String::new(),
        "Trusting a folder lets gemini-rs load what it carries: its settings, hooks, MCP servers,"
            .to_string(),
        "commands, skills and agents, some of which run programs. Trust only folders you know."
            .to_string(),
    ];
    let groups = [
        ("Commands", &c.commands),
        ("MCP Servers", &c.mcp_servers),
        ("Hooks", &c.hooks),
        ("Skills", &c.skills),
        ("Agents", &c.agents),
        ("Setting overrides", &c.settings),
    ];
    if !c.is_empty() {
        out.push(String::new());
        out.push("This folder contains:".to_string());
        for (label, items) in groups.iter().filter(|(_, items)| !items.is_empty()) {
            out.push(format!("  {label} ({}):", items.len()));
            out.extend(items.iter().take(SHOWN).map(|i| format!("    - {i}")));
            if items.len() > SHOWN {
                out.push(format!("    ... and {} more", items.len() - SHOWN));
            }
        }
    }
    out.push(String::new());
    out
}

/// Raw mode for the dialog's lifetime, restored on every way out.
struct RawGuard;

impl Drop for RawGuard {
    fn drop(&mut self) {
        let _ = terminal::disable_raw_mode();
        let _ = execute!(std::io::stdout(), cursor::Show);
    }
}

/// Shows `text` and `options`; the index chosen (Enter, or the option's
/// number), `None` on Esc or Ctrl-C.
fn select(text: &[String], options: &[String]) -> std::io::Result<Option<usize>> {
    terminal::enable_raw_mode()?;
    let _guard = RawGuard;
    let mut out = std::io::stdout();
    execute!(out, cursor::Hide)?;
    let mut current = 0;
    let mut drawn = 0u16;
    let chosen = loop {
        if drawn > 0 {
            execute!(
                out,
                cursor::MoveToPreviousLine(drawn),
                terminal::Clear(terminal::ClearType::FromCursorDown)
            )?;
        }
        let mut rows: Vec<String> = text.to_vec();
        for (i, o) in options.iter().enumerate() {
            let mark = if i == current { "●" } else { " " };
            rows.push(format!("  {mark} {}. {o}", i + 1));
        }
        rows.push(String::new());
        rows.push("(Enter or 1-3 to choose, Esc to quit)".to_string());
        for row in &rows {
            write!(out, "{row}\r\n")?;
        }
        out.flush()?;
        drawn = u16::try_from(rows.len()).unwrap_or(u16::MAX);
        let Event::Key(key) = event::read()? else {
            continue;
        };
        if key.kind == KeyEventKind::Release {
            continue;
        }
        match key.code {
            KeyCode::Up | KeyCode::Char('k') => current = current.saturating_sub(1),
            KeyCode::Down | KeyCode::Char('j') => {
                current = (current + 1).min(options.len().saturating_sub(1));
            }
            KeyCode::Enter => break Some(current),
            KeyCode::Char(c @ '1'..='9') => {
                let i = (c as usize) - ('1' as usize);
                if i < options.len() {
                    break Some(i);
                }
            }
            KeyCode::Esc => break None,
            KeyCode::Char('c') if key.modifiers.contains(KeyModifiers::CONTROL) => break None,
            _ => {}
        }
    };
    // The dialog gives its rows back to what comes next.
    execute!(
        out,
        cursor::MoveToPreviousLine(drawn),
        terminal::Clear(terminal::ClearType::FromCursorDown)
    )?;
    Ok(chosen)
}
