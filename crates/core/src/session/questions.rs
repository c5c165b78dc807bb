//! Who answers the model's `ask_user` questions: the front end that
//! declared it can (the terminal UI), through an
//! [`AgentEvent::QuestionsAsked`] answered with [`Op::AnswerQuestions`].
//!
//! [`Op::AnswerQuestions`]: gemini_rs_protocol::events::Op::AnswerQuestions

use crate::events::{AgentEvent, EventSender};
use crate::tools::builtin::Asker;
use gemini_rs_protocol::events::{Question, QuestionsReply};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::oneshot;

/// Question sets waiting for the front end's answer, by id.
pub(super) type Pending = Arc<Mutex<HashMap<u64, oneshot::Sender<QuestionsReply>>>>;

/// The session's asker: reports the questions and waits for the reply (a
/// front end that goes away counts as a dismissal).
pub(super) fn asker(events: EventSender, pending: Pending) -> Asker {
    let next = Arc::new(AtomicU64::new(1));
    Arc::new(move |call_id: String, questions: Vec<Question>| {
        let id = next.fetch_add(1, Ordering::SeqCst);
        let (tx, rx) = oneshot::channel();
        if let Ok(mut p) = pending.lock() {
            p.insert(id, tx);
        }
        let waiting = Waiting {
            pending: pending.clone(),
            id,
        };
        let events = events.clone();
        Box::pin(async move {
            let _waiting = waiting;
            events
                .emit(AgentEvent::QuestionsAsked {
                    id,
                    call_id,
                    questions,
                })
                .await;
            rx.await.unwrap_or(QuestionsReply::Dismiss)
        })
    })
}

/// Forgets a question set once its call stops waiting (answered, or
/// cancelled while the form was open).
struct Waiting {
    pending: Pending,
    id: u64,
}

impl Drop for Waiting {
    fn drop(&mut self) {
        if let Ok(mut p) = self.pending.lock() {
            p.remove(&self.id);
        }
    }
}

/// Passes the front end's reply on.
pub(super) fn answer(pending: &Pending, id: u64, reply: QuestionsReply) {
    let waiting = pending.lock().ok().and_then(|mut p| p.remove(&id));
    if let Some(tx) = waiting {
        let _ = tx.send(reply);
    }
}
