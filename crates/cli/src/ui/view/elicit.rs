//! The form for an MCP server's request for input (`elicitation/create`):
//! one line per field of the requested schema, filled with its default;
//! Tab/Up/Down move between fields, Enter accepts, Esc declines, Ctrl-C
//! cancels.

use crate::ui::view::wrap::{sanitize, truncate};
use gemini_rs_protocol::events::{
    ElicitationReply, ElicitationRequest, PropertySchema, parse_field,
};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use serde_json::{Map, Value};

/// One field of the form.
struct Field {
    name: String,
    schema: PropertySchema,
    required: bool,
    text: String,
}

/// An open form.
pub struct ElicitForm {
    /// The request's id.
    pub id: u64,
    server: String,
    message: String,
    fields: Vec<Field>,
    focus: usize,
    error: Option<String>,
}

impl ElicitForm {
    /// The form for `request`.
    pub fn new(id: u64, request: ElicitationRequest) -> Self {
        let requested = request.requested();
        let fields = requested
            .properties()
            .into_iter()
            .map(|(name, schema)| Field {
                required: requested.required().contains(&name),
                text: match &schema.default {
                    Some(Value::String(s)) => s.clone(),
                    Some(Value::Array(items)) => items
                        .iter()
                        .map(|i| i.as_str().map_or_else(|| i.to_string(), str::to_string))
                        .collect::<Vec<_>>()
                        .join(", "),
                    Some(Value::Bool(true)) => "yes".into(),
                    Some(Value::Bool(false)) => "no".into(),
                    Some(v) => v.to_string(),
                    None => String::new(),
                },
                name,
                schema,
            })
            .collect();
        ElicitForm {
            id,
            server: request.server,
            message: request.message,
            fields,
            focus: 0,
            error: None,
        }
    }

    /// The values typed, checked against the schema.
    fn values(&self) -> Result<Map<String, Value>, String> {
        let mut out = Map::new();
        for f in &self.fields {
            if f.text.is_empty() {
                if f.required {
                    return Err(format!("{} is required", f.name));
                }
                continue;
            }
            let v = parse_field(&f.schema, &f.text).map_err(|e| format!("{}: {e}", f.name))?;
            out.insert(f.name.clone(), v);
        }
        Ok(out)
    }

    /// Handles a key; the answer once the user gave one.
    pub fn on_key(&mut self, key: KeyEvent) -> Option<ElicitationReply> {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let n = self.fields.len().max(1);
        match key.code {
            KeyCode::Char('c') if ctrl => return Some(ElicitationReply::Cancel),
            KeyCode::Esc => return Some(ElicitationReply::Decline),
            KeyCode::Enter => match self.values() {
                Ok(v) => return Some(ElicitationReply::Accept(v)),
                Err(e) => self.error = Some(e),
            },
            KeyCode::Tab | KeyCode::Down => self.focus = (self.focus + 1) % n,
            KeyCode::BackTab | KeyCode::Up => self.focus = (self.focus + n - 1) % n,
            KeyCode::Backspace => {
                if let Some(f) = self.fields.get_mut(self.focus) {
                    f.text.pop();
                }
            }
            KeyCode::Char('u') if ctrl => {
                if let Some(f) = self.fields.get_mut(self.focus) {
                    f.text.clear();
                }
            }
            KeyCode::Char(c) if !ctrl => {
                if let Some(f) = self.fields.get_mut(self.focus) {
                    f.text.push(c);
                }
                self.error = None;
            }
            _ => {}
        }
        None
    }

    /// The form's lines at `width`.
    pub fn lines(&self, width: usize) -> Vec<Line<'static>> {
        let dim = Style::new().fg(Color::DarkGray);
        let bold = Style::new().add_modifier(Modifier::BOLD);
        let mut out = vec![
            Line::from(Span::styled(
                format!("MCP server '{}' asks for input", self.server),
                bold.fg(Color::Yellow),
            )),
            Line::from(truncate(&sanitize(&self.message), width)),
        ];
        for (i, f) in self.fields.iter().enumerate() {
            let kind = match &f.schema.options {
                Some(options) => options.join("|"),
                None => f.schema.kind.as_deref().unwrap_or("string").to_string(),
            };
            let mark = if i == self.focus { "› " } else { "  " };
            let star = if f.required { "*" } else { "" };
            out.push(Line::from(vec![
                Span::styled(mark.to_string(), Style::new().fg(Color::Cyan)),
                Span::styled(format!("{}{star} ({kind}): ", f.name), bold),
                Span::raw(f.text.clone()),
            ]));
            if let Some(d) = &f.schema.description {
                out.push(Line::from(Span::styled(
                    format!("    {}", truncate(d, width.saturating_sub(4))),
                    dim,
                )));
            }
        }
        if let Some(e) = &self.error {
            out.push(Line::from(Span::styled(
                e.clone(),
                Style::new().fg(Color::Red),
            )));
        }
        out.push(Line::from(Span::styled(
            "enter accept · esc decline · ctrl+c cancel · tab next field",
            dim,
        )));
        out
    }
}
