//! The ask_user form: keys to answers.

use super::*;
use gemini_rs_protocol::events::QuestionOption;

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

fn choice(multi: bool) -> Question {
    Question {
        question: "Which?".into(),
        header: "Pick".into(),
        kind: QuestionType::Choice,
        options: ["A", "B", "C"]
            .iter()
            .map(|l| QuestionOption {
                label: l.to_string(),
                description: format!("about {l}"),
            })
            .collect(),
        multi_select: multi,
        placeholder: None,
    }
}

fn submitted(reply: Option<QuestionsReply>) -> BTreeMap<String, String> {
    match reply {
        Some(QuestionsReply::Submit(a)) => a,
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_single_choice_is_picked_with_enter() {
    let mut f = AskUserForm::new(1, "c".into(), vec![choice(false)]);
    assert!(f.on_key(key(KeyCode::Down)).is_none());
    let a = submitted(f.on_key(key(KeyCode::Enter)));
    assert_eq!(a.get("0").map(String::as_str), Some("B"));
}

#[test]
fn multi_select_joins_the_picks_and_other_text() {
    let mut f = AskUserForm::new(1, "c".into(), vec![choice(true)]);
    f.on_key(key(KeyCode::Char(' ')));
    f.on_key(key(KeyCode::Char('3')));
    // Down to "All", then "Other", type there.
    f.on_key(key(KeyCode::Down));
    f.on_key(key(KeyCode::Down));
    for c in "mine".chars() {
        f.on_key(key(KeyCode::Char(c)));
    }
    f.on_key(key(KeyCode::Down));
    let a = submitted(f.on_key(key(KeyCode::Enter)));
    assert_eq!(a.get("0").map(String::as_str), Some("A, C, mine"));
}

#[test]
fn several_questions_go_through_review_and_esc_dismisses() {
    let text = Question {
        question: "Why?".into(),
        header: "Why".into(),
        kind: QuestionType::Text,
        options: vec![],
        multi_select: false,
        placeholder: None,
    };
    let mut f = AskUserForm::new(1, "c".into(), vec![text, choice(false)]);
    for c in "one".chars() {
        f.on_key(key(KeyCode::Char(c)));
    }
    f.on_key(KeyEvent::new(KeyCode::Char('j'), KeyModifiers::CONTROL));
    for c in "two".chars() {
        f.on_key(key(KeyCode::Char(c)));
    }
    assert!(f.on_key(key(KeyCode::Enter)).is_none());
    assert!(f.on_key(key(KeyCode::Char('1'))).is_none());
    let shown: Vec<String> = f.lines(60).iter().map(ToString::to_string).collect();
    assert!(
        shown.iter().any(|l| l.contains("Review your answers")),
        "{shown:?}"
    );
    let a = submitted(f.on_key(key(KeyCode::Enter)));
    assert_eq!(a.get("0").map(String::as_str), Some("one\ntwo"));
    assert_eq!(a.get("1").map(String::as_str), Some("A"));
    let mut f = AskUserForm::new(1, "c".into(), vec![choice(false)]);
    assert_eq!(f.on_key(key(KeyCode::Esc)), Some(QuestionsReply::Dismiss));
}
