//! `/settings`: an editor for every key the settings schema marks
//! `x-editable` (`docs/schema/settings.schema.json`), by its type (a
//! switch, a choice among values, a number, a text), written to
//! the user's or the workspace's `settings.json` (Tab switches the scope).
//! Every change is written at once, atomically, through core's writer
//! (`settings_file::write`); the rest of the file is kept.
//!
//! Keys: Up/Down move, Enter (or Space) flips a switch or steps a choice,
//! Enter on a number or text edits it (Enter saves, Esc stops editing),
//! Backspace on a row set in this scope removes it there, Esc closes.

use crate::settings_file::{FileScope, SettingsFile, comments_note, read, write};
use crate::ui::view::wrap::truncate;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use serde_json::{Map, Value};
use std::path::PathBuf;

/// One editable setting (its dotted key, label and kind).
pub use gemini_rs_core::EditableSetting as Setting;
/// A setting's type and default, as the settings schema states it.
pub use gemini_rs_core::SettingKind as Kind;

/// The value at dotted `key` in `map`.
pub fn get<'a>(map: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    let mut parts = key.split('.');
    let mut cur = map.get(parts.next()?)?;
    for p in parts {
        cur = cur.as_object()?.get(p)?;
    }
    Some(cur)
}

/// Sets (or with `None` removes) dotted `key` in `map`, creating the
/// objects on the way; an error names a part that is not an object.
pub fn set(map: &mut Map<String, Value>, key: &str, value: Option<Value>) -> Result<(), String> {
    let parts: Vec<&str> = key.split('.').collect();
    let (last, parents) = parts.split_last().ok_or("empty key")?;
    let mut cur = map;
    for (i, p) in parents.iter().enumerate() {
        if value.is_none() && !cur.contains_key(*p) {
            return Ok(());
        }
        let entry = cur
            .entry(p.to_string())
            .or_insert_with(|| Value::Object(Map::new()));
        cur = entry
            .as_object_mut()
            .ok_or_else(|| format!("{} is not an object", parts[..=i].join(".")))?;
    }
    match value {
        Some(v) => {
            cur.insert(last.to_string(), v);
        }
        None => {
            cur.remove(*last);
        }
    }
    Ok(())
}

/// Parses what the user typed for a number or text setting.
pub fn parse(kind: &Kind, typed: &str) -> Result<Value, String> {
    let t = typed.trim();
    match kind {
        Kind::Integer(_) => t
            .parse::<i64>()
            .map(Value::from)
            .map_err(|_| format!("\"{t}\" is not a whole number.")),
        Kind::Number(_) => t
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map(Value::Number)
            .ok_or_else(|| format!("\"{t}\" is not a number.")),
        Kind::Text(_) if t.is_empty() => {
            Err("Type a value (Backspace on the row removes it).".into())
        }
        Kind::Text(_) => Ok(Value::String(t.to_string())),
        Kind::Bool(_) | Kind::Choice { .. } => Err("This setting is not typed in.".into()),
    }
}

/// The open editor.
pub struct SettingsPanel {
    settings: Vec<Setting>,
    user: PathBuf,
    workspace: PathBuf,
    scope: FileScope,
    file: SettingsFile,
    cursor: usize,
    /// Text being typed for the row under the cursor.
    editing: Option<String>,
    /// The last thing that happened (saved, or an error).
    note: Option<(String, bool)>,
}

impl SettingsPanel {
    /// The editor on the user settings at `user`; `workspace` is the
    /// project's file.
    pub fn open(user: PathBuf, workspace: PathBuf) -> Result<Self, String> {
        let file = read(&user, FileScope::User)?;
        Ok(SettingsPanel {
            settings: gemini_rs_core::editable_settings(),
            user,
            workspace,
            scope: FileScope::User,
            file,
            cursor: 0,
            editing: None,
            note: None,
        })
    }

    fn switch_scope(&mut self) {
        let (scope, path) = match self.scope {
            FileScope::User => (FileScope::Project, self.workspace.clone()),
            FileScope::Project => (FileScope::User, self.user.clone()),
        };
        match read(&path, scope) {
            Ok(file) => {
                self.scope = scope;
                self.file = file;
                self.note = None;
            }
            Err(e) => self.note = Some((e, true)),
        }
    }

    /// Writes `value` (or removes the key) in the scope's file.
    fn save(&mut self, setting: &Setting, value: Option<Value>) {
        let before = self.file.value.clone();
        let result =
            set(&mut self.file.value, &setting.key, value.clone()).and_then(|()| write(&self.file));
        self.note = Some(match result {
            Ok(()) => {
                let what = match &value {
                    Some(v) => format!("{} = {v}", setting.key),
                    None => format!("{} removed", setting.key),
                };
                let mut text = format!("Saved {what} in {}.", self.file.path.display());
                if let Some(extra) = comments_note(&self.file) {
                    text = format!("{text} {extra}");
                    self.file.had_comments = false;
                }
                (text, false)
            }
            Err(e) => {
                self.file.value = before;
                (e, true)
            }
        });
    }

    /// Handles a key; false when the editor closes.
    pub fn on_key(&mut self, key: KeyEvent) -> bool {
        let Some(setting) = self.settings.get(self.cursor).cloned() else {
            return false;
        };
        let setting = &setting;
        let count = self.settings.len();
        if let Some(text) = self.editing.as_mut() {
            match key.code {
                KeyCode::Esc => self.editing = None,
                KeyCode::Enter => match parse(&setting.kind, text) {
                    Ok(v) => {
                        self.editing = None;
                        self.save(setting, Some(v));
                    }
                    Err(e) => self.note = Some((e, true)),
                },
                KeyCode::Backspace => {
                    text.pop();
                }
                KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => text.push(c),
                _ => {}
            }
            return true;
        }
        let current = get(&self.file.value, &setting.key).cloned();
        match key.code {
            KeyCode::Esc => return false,
            KeyCode::Char('c') if key.modifiers.contains(KeyModifiers::CONTROL) => return false,
            KeyCode::Tab | KeyCode::BackTab => self.switch_scope(),
            KeyCode::Up => self.cursor = (self.cursor + count - 1) % count,
            KeyCode::Down => self.cursor = (self.cursor + 1) % count,
            KeyCode::Backspace | KeyCode::Delete if current.is_some() => self.save(setting, None),
            KeyCode::Enter | KeyCode::Char(' ') => match &setting.kind {
                Kind::Bool(default) => {
                    let now = current.and_then(|v| v.as_bool()).unwrap_or(*default);
                    self.save(setting, Some(Value::Bool(!now)));
                }
                Kind::Choice { values, default } => {
                    let now = current.as_ref().and_then(Value::as_str).unwrap_or(default);
                    let i = values.iter().position(|v| v == now).map_or(0, |i| i + 1);
                    if let Some(next) = values.get(i % values.len().max(1)) {
                        self.save(setting, Some(Value::String(next.clone())));
                    }
                }
                Kind::Integer(_) | Kind::Number(_) | Kind::Text(_) => {
                    let text = match current {
                        Some(Value::String(s)) => s,
                        Some(v) => v.to_string(),
                        None => String::new(),
                    };
                    self.editing = Some(text);
                }
            },
            _ => {}
        }
        true
    }

    /// The editor's lines at `width`.
    pub fn lines(&self, width: usize) -> Vec<Line<'static>> {
        let dim = Style::new().fg(Color::DarkGray);
        let bold = Style::new().add_modifier(Modifier::BOLD);
        let accent = Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD);
        let (user, workspace) = match self.scope {
            FileScope::User => (accent, dim),
            FileScope::Project => (dim, accent),
        };
        let mut out = vec![
            Line::from(Span::styled("Settings", bold)),
            Line::from(vec![
                Span::raw("Apply to: "),
                Span::styled(
                    format!("{} User Settings", dot(self.scope == FileScope::User)),
                    user,
                ),
                Span::raw("  "),
                Span::styled(
                    format!(
                        "{} Workspace Settings",
                        dot(self.scope == FileScope::Project)
                    ),
                    workspace,
                ),
            ]),
            Line::from(Span::styled(
                truncate(&format!("File: {}", self.file.path.display()), width),
                dim,
            )),
            Line::default(),
        ];
        let label_w = self
            .settings
            .iter()
            .map(|s| s.label.len())
            .max()
            .unwrap_or(0)
            .min(width / 2);
        for (i, s) in self.settings.iter().enumerate() {
            let here = i == self.cursor;
            let set_here = get(&self.file.value, &s.key);
            let value = match (here, &self.editing) {
                (true, Some(text)) => {
                    Span::styled(format!("{text}▌"), Style::new().fg(Color::Yellow))
                }
                _ => match set_here {
                    Some(Value::String(v)) => Span::raw(v.clone()),
                    Some(v) => Span::raw(v.to_string()),
                    None => Span::styled(default_text(&s.kind), dim),
                },
            };
            let mark = if here { "› " } else { "  " };
            let label = truncate(&s.label, label_w);
            let star = if set_here.is_some() { "*" } else { " " };
            out.push(Line::from(vec![
                Span::styled(mark, accent),
                Span::styled(
                    format!("{label:<label_w$}{star} "),
                    if here { accent } else { Style::new() },
                ),
                value,
            ]));
        }
        out.push(Line::default());
        if let Some((text, error)) = &self.note {
            let color = if *error { Color::Red } else { Color::Green };
            out.push(Line::from(Span::styled(
                truncate(text, width),
                Style::new().fg(color),
            )));
        }
        out.push(Line::from(Span::styled(
            truncate(
                "Enter to change · Tab to switch scope · Backspace to unset · Esc to close · * set in this file; new sessions read the changes",
                width,
            ),
            dim,
        )));
        out
    }
}

/// The mark of a scope: chosen or not.
fn dot(chosen: bool) -> &'static str {
    if chosen { "●" } else { "○" }
}

/// The default, as shown for a key not set in the file.
fn default_text(kind: &Kind) -> String {
    let value = match kind {
        Kind::Bool(b) => Some(b.to_string()),
        Kind::Choice { default, .. } => Some(default.clone()),
        Kind::Integer(n) => n.map(|n| n.to_string()),
        Kind::Number(n) => n.map(|n| n.to_string()),
        Kind::Text(t) => t.clone(),
    };
    match value {
        Some(v) => format!("{v} (default)"),
        None => "(default)".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn dotted_keys_are_set_and_removed() {
        let mut m = json!({"model": {"name": "x"}}).as_object().unwrap().clone();
        set(&mut m, "general.checkpointing.enabled", Some(json!(true))).unwrap();
        assert_eq!(get(&m, "general.checkpointing.enabled"), Some(&json!(true)));
        set(&mut m, "model.name", None).unwrap();
        assert_eq!(Value::Object(m.clone())["model"], json!({}));
        set(&mut m, "ui.theme", None).unwrap();
        assert!(!m.contains_key("ui"));
        let mut bad = json!({"model": 3}).as_object().unwrap().clone();
        assert_eq!(
            set(&mut bad, "model.name", Some(json!("y"))).unwrap_err(),
            "model is not an object"
        );
    }

    #[test]
    fn typed_values_follow_the_kind() {
        assert_eq!(parse(&Kind::Integer(Some(-1)), " 40 ").unwrap(), json!(40));
        assert!(parse(&Kind::Integer(None), "4.5").is_err());
        assert_eq!(parse(&Kind::Number(Some(0.5)), "0.7").unwrap(), json!(0.7));
        assert!(parse(&Kind::Text(None), "  ").is_err());
    }

    #[test]
    fn a_switch_is_written_to_the_chosen_scope() {
        let dir = tempfile::tempdir().unwrap();
        let user = dir.path().join("home/.gemini/settings.json");
        let ws = dir.path().join("proj/.gemini/settings.json");
        std::fs::create_dir_all(user.parent().unwrap()).unwrap();
        std::fs::write(&user, r#"{"model": {"name": "m"}}"#).unwrap();
        let mut p = SettingsPanel::open(user.clone(), ws.clone()).unwrap();
        p.on_key(KeyEvent::new(KeyCode::Down, KeyModifiers::NONE));
        p.on_key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE));
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&user).unwrap()).unwrap();
        assert_eq!(v["general"]["checkpointing"]["enabled"], json!(true));
        assert_eq!(v["model"]["name"], "m");
        p.on_key(KeyEvent::new(KeyCode::Tab, KeyModifiers::NONE));
        p.on_key(KeyEvent::new(KeyCode::Up, KeyModifiers::NONE));
        p.on_key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE));
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&ws).unwrap()).unwrap();
        assert_eq!(v["general"]["defaultApprovalMode"], "auto_edit");
    }
}
