//! SIGINT, SIGTERM and SIGHUP: each cancels the session the same way, and
//! the process exits with 128 + the signal's number (130, 143, 129).

use crate::exit::ExitCode;
use tokio::signal::unix::{SignalKind, signal};

/// How long a session gets to end after a signal before the process
/// ends its children itself and exits.
pub const GRACE: std::time::Duration = std::time::Duration::from_secs(2);

/// After a signal, how long the session gets to end by itself; what is
/// left is ended within [`CHILDREN_GRACE`], so the process is gone within
/// [`GRACE`] of the signal.
pub const SESSION_GRACE: std::time::Duration = std::time::Duration::from_millis(1000);

/// After a signal, how long the session's task gets once the session has
/// reported its end (or has not, in time).
pub const TASK_GRACE: std::time::Duration = std::time::Duration::from_millis(200);

/// After a signal, how long children get between TERM and KILL (the
/// KILL's delivery is waited for up to a quarter of a second more).
pub const CHILDREN_GRACE: std::time::Duration = std::time::Duration::from_millis(500);

/// Waits for the first of SIGINT, SIGTERM and SIGHUP; its exit code.
/// Without a way to listen (no signal support), never returns.
pub async fn first() -> ExitCode {
    let (Ok(mut int), Ok(mut term), Ok(mut hup)) = (
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
        signal(SignalKind::hangup()),
    ) else {
        return std::future::pending().await;
    };
    tokio::select! {
        _ = int.recv() => ExitCode::Cancelled,
        _ = term.recv() => ExitCode::Terminated,
        _ = hup.recv() => ExitCode::HungUp,
    }
}
