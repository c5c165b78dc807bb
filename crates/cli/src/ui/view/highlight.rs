//! Syntax highlighting of code blocks with syntect, loaded the first time a
//! code block is highlighted so start-up stays fast.

use ratatui::style::{Color, Style};
use ratatui::text::Span;
use std::sync::OnceLock;
use syntect::easy::HighlightLines;
use syntect::highlighting::{Theme, ThemeSet};
use syntect::parsing::SyntaxSet;
use syntect::util::LinesWithEndings;

struct Assets {
    syntaxes: SyntaxSet,
    theme: Option<Theme>,
}

static ASSETS: OnceLock<Assets> = OnceLock::new();

fn assets() -> &'static Assets {
    ASSETS.get_or_init(|| {
        let mut themes = ThemeSet::load_defaults();
        Assets {
            syntaxes: SyntaxSet::load_defaults_newlines(),
            theme: themes.themes.remove("base16-ocean.dark"),
        }
    })
}

/// True once the highlighting assets are loaded.
#[cfg(test)]
pub fn loaded() -> bool {
    ASSETS.get().is_some()
}

/// Highlights `code` as `lang`; one span list per line. Unknown languages
/// and failures fall back to a plain code style.
pub fn highlight(code: &str, lang: &str) -> Vec<Vec<Span<'static>>> {
    let plain = || {
        code.lines()
            .map(|l| vec![Span::styled(l.to_string(), plain_style())])
            .collect::<Vec<_>>()
    };
    let lang = lang.split([',', ' ']).next().unwrap_or("").trim();
    if lang.is_empty() {
        return plain();
    }
    let a = assets();
    let Some(theme) = &a.theme else {
        return plain();
    };
    let syntax = a
        .syntaxes
        .find_syntax_by_token(lang)
        .or_else(|| a.syntaxes.find_syntax_by_extension(lang));
    let Some(syntax) = syntax else {
        return plain();
    };
    let mut h = HighlightLines::new(syntax, theme);
    let mut out = Vec::new();
    for line in LinesWithEndings::from(code) {
        let Ok(ranges) = h.highlight_line(line, &a.syntaxes) else {
            return plain();
        };
        let spans = ranges
            .into_iter()
            .filter_map(|(st, text)| {
                let text = text.trim_end_matches(['\n', '\r']);
                (!text.is_empty()).then(|| {
                    let c = st.foreground;
                    Span::styled(text.to_string(), Style::new().fg(Color::Rgb(c.r, c.g, c.b)))
                })
            })
            .collect();
        out.push(spans);
    }
    out
}

/// The style of unhighlighted code.
pub fn plain_style() -> Style {
    Style::new().fg(Color::Yellow)
}
