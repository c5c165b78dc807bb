//! Issue 27 item 2: `ask_user`. In the terminal UI the model's questions
//! render as a form (single choice, multi-select with "Other" text, a
//! multi-line text answer, the review page) and the answers reach the
//! model; Esc dismisses the form. Headless, the tool is not declared and a
//! call to it gets the unknown-tool answer.

use crate::e2e::{call, lines, text};
use crate::support::Sandbox;
use crate::tui::{Tmux, ui_sandbox};
use gemini_rs_test_support::FakeServer;
use serde_json::{Value, json};

/// The `functionResponse` of the request after the call.
fn function_response(fake: &FakeServer) -> Value {
    fake.requests()
        .iter()
        .flat_map(|r| r.body["contents"].as_array().cloned().unwrap_or_default())
        .flat_map(|c| c["parts"].as_array().cloned().unwrap_or_default())
        .find_map(|p| p.get("functionResponse").cloned())
        .expect("a functionResponse was sent")
}

fn declared(fake: &FakeServer) -> Vec<String> {
    fake.requests()[0].body["tools"][0]["functionDeclarations"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|d| d["name"].as_str().map(str::to_string))
        .collect()
}

fn three_questions() -> Value {
    json!({"questions": [
        {"question": "Which database?", "header": "DB", "type": "choice",
         "options": [{"label": "Postgres", "description": "server"},
                     {"label": "SQLite", "description": "embedded file"}]},
        {"question": "Which features?", "header": "Features", "type": "choice", "multiSelect": true,
         "options": [{"label": "Auth", "description": ""},
                     {"label": "Cache", "description": ""},
                     {"label": "Logs", "description": ""}]},
        {"question": "Anything else?", "header": "Notes", "type": "text"}
    ]})
}

#[test]
fn an_ask_user_form_is_answered_and_the_answers_reach_the_model() {
    let Some(sb) = ui_sandbox() else {
        return;
    };
    let fake = FakeServer::replaying(&lines(&[
        call("ask_user", three_questions()),
        text("Noted your answers."),
    ]));
    let t = Tmux::start(&sb, &fake.base_url, &[], 100, 40);
    t.wait_for("mode: default", 20);
    t.type_text("set up the project");
    t.keys(&["Enter"]);
    t.wait_for("Which database?", 20);
    // Question 1: pick the second option by its number.
    t.type_text("2");
    t.wait_for("(Select all that apply)", 10);
    // Question 2: Auth (Space), Logs (3), then "Other" with text, Done.
    t.keys(&["Space"]);
    t.type_text("3");
    t.keys(&["Down", "Down"]);
    t.type_text("metrics");
    t.keys(&["Down", "Enter"]);
    t.wait_for("Anything else?", 10);
    // Question 3: two lines of text.
    t.type_text("line one");
    t.keys(&["C-j"]);
    t.type_text("line two");
    t.keys(&["Enter"]);
    let review = t.wait_for("Review your answers:", 10);
    assert!(
        review.contains("Features → Auth, Logs, metrics"),
        "{review}"
    );
    t.keys(&["Enter"]);
    t.wait_for("Noted your answers.", 20);
    let screen = t.wait_for("User answered:", 10);
    assert!(screen.contains("DB → SQLite"), "{screen}");
    // Markdown's bold is shown bold, not as asterisks.
    assert!(!screen.contains("**User answered:**"), "{screen}");
    t.keys(&["C-d"]);
    t.wait_for("EXIT=0", 10);
    assert!(declared(&fake).contains(&"ask_user".to_string()));
    let response = function_response(&fake);
    assert_eq!(response["name"], "ask_user");
    let output: Value = serde_json::from_str(response["response"]["output"].as_str().unwrap())
        .expect("the answers are JSON");
    assert_eq!(
        output,
        json!({"answers": {"0": "SQLite", "1": "Auth, Logs, metrics", "2": "line one\nline two"}})
    );
}

#[test]
fn esc_dismisses_the_form() {
    let Some(sb) = ui_sandbox() else {
        return;
    };
    let fake = FakeServer::replaying(&lines(&[
        call(
            "ask_user",
            json!({"questions": [{"question": "Proceed now?", "header": "Go", "type": "yesno"}]}),
        ),
        text("Understood."),
    ]));
    let t = Tmux::start(&sb, &fake.base_url, &[], 100, 30);
    t.wait_for("mode: default", 20);
    t.type_text("ask me");
    t.keys(&["Enter"]);
    let form = t.wait_for("Proceed now?", 20);
    assert!(form.contains("Yes") && form.contains("No"), "{form}");
    t.keys(&["Escape"]);
    t.wait_for("Understood.", 20);
    t.keys(&["C-d"]);
    t.wait_for("EXIT=0", 10);
    assert_eq!(
        function_response(&fake)["response"]["output"],
        "User dismissed ask_user dialog without answering."
    );
}

#[test]
fn headless_leaves_ask_user_out() {
    let sb = Sandbox::new();
    sb.settings(&json!({
        "model": {"name": "gemini-2.5-flash", "retry": {"initialDelayMs": 1}},
        "security": {"auth": {"selectedType": "gemini-api-key"}}
    }));
    let fake = FakeServer::replaying(&lines(&[call("ask_user", three_questions()), text("ok")]));
    let out = sb.run(
        &["-p", "go", "--approval-mode", "yolo"],
        None,
        &[("GOOGLE_GEMINI_BASE_URL", &fake.base_url)],
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert!(!declared(&fake).contains(&"ask_user".to_string()));
    let error = function_response(&fake)["response"]["error"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(error.starts_with("Tool \"ask_user\" not found."), "{error}");
}
