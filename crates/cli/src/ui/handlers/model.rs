//! `/model` and `/auth` in a running session. `/model NAME` is an op (the
//! session checks the name and refuses an unknown one with the known
//! list); `/model` alone and `/auth` open their pickers with the terminal
//! UI stepped aside, then send the chosen model to the session.

use crate::ui::commands::auth;
use crate::ui::control::{App, Picker};
use crate::ui::term::Tui;
use crate::ui::view::provider_picker::select;
use gemini_rs_core::ProviderModels;
use gemini_rs_protocol::events::Op;

/// `/model NAME`: asks the session to switch.
pub fn switch(app: &mut App, name: &str) {
    app.start_op(
        Op::SetModel {
            model: name.to_string(),
        },
        "Switching the model",
    );
}

/// The picker's options: every model of `choices`, the current one marked,
/// and the lines above them (providers whose list is missing).
fn model_options(choices: &[ProviderModels], current: &str) -> (Vec<String>, Vec<String>, usize) {
    let mut text = vec![format!("Choose a model (now {current}):")];
    let mut names = Vec::new();
    for c in choices {
        if let Some(note) = &c.note {
            text.push(format!("  {}: {note}", c.provider));
        }
        names.extend(c.models.iter().cloned());
    }
    if !names.iter().any(|n| n == current) {
        names.insert(0, current.to_string());
    }
    text.push(String::new());
    let at = names.iter().position(|n| n == current).unwrap_or(0);
    (text, names, at)
}

/// Opens `picker` with the UI stepped aside, then applies the choice.
pub async fn run(app: &mut App, tui: &mut Tui, picker: Picker) -> std::io::Result<()> {
    let gate = app.ctx.keys.clone();
    gate.pause();
    tui.finish();
    let outcome = match picker {
        Picker::Model => pick_model(app).await,
        Picker::Auth => pick_provider(app).await,
    };
    let restarted = Tui::start(false);
    gate.resume();
    *tui = restarted?;
    app.clear_requested = false;
    match outcome {
        Ok(Some(name)) => switch(app, &name),
        Ok(None) => {}
        Err(e) => app.state.error(&e.to_string()),
    }
    Ok(())
}

async fn pick_model(app: &mut App) -> anyhow::Result<Option<String>> {
    println!("Listing the models of the configured providers...");
    let choices = app.ctx.info.model_choices().await;
    let current = app.state.model.clone();
    let (text, names, at) = model_options(&choices, &current);
    Ok(select(&text, &names, at)?
        .and_then(|i| names.get(i).cloned())
        .filter(|n| *n != current))
}

async fn pick_provider(app: &mut App) -> anyhow::Result<Option<String>> {
    let env = gemini_rs_core::Env::from_process();
    let Some(chosen) = auth::choose(app.ctx.info.paths(), &env, None).await? else {
        return Ok(None);
    };
    app.state.info(&chosen.note);
    if let Some((var, _)) = &chosen.key {
        app.state.warn(&format!(
            "This session cannot switch to a key typed in now: start gemini-rs again to use {var}."
        ));
    }
    if chosen.model.is_none() {
        app.state
            .info("The Gemini sign-in changes from the next start.");
    }
    Ok(chosen.model)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_current_model_is_listed_and_marked() {
        let choices = vec![
            ProviderModels {
                provider: "gemini".into(),
                models: vec!["auto".into(), "gemini-2.5-pro".into()],
                note: None,
            },
            ProviderModels {
                provider: "openai".into(),
                models: vec![],
                note: Some("could not list".into()),
            },
        ];
        let (text, names, at) = model_options(&choices, "gemini-2.5-pro");
        assert_eq!(names, ["auto", "gemini-2.5-pro"]);
        assert_eq!(at, 1);
        assert!(text.iter().any(|t| t == "  openai: could not list"));
        let (_, names, at) = model_options(&choices, "ollama/qwen");
        assert_eq!((names[0].as_str(), at), ("ollama/qwen", 0));
    }
}
