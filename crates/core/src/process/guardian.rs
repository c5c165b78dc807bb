//! The guardian: a small `sh` in a session of its own, started with the
//! first process group, that is told of every group as it comes and goes
//! (`+ <pgid>` / `- <pgid>` on its stdin, a pipe only gemini-rs holds).
//! When gemini-rs is gone - even by SIGKILL, which no handler sees - the
//! pipe closes and the guardian ends the groups still listed: SIGTERM and
//! SIGCONT, then SIGKILL a second later. Background shells, hooks and MCP
//! servers so never outlive gemini-rs.

use std::io::Write;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::Mutex;

/// What the guardian runs.
const SCRIPT: &str = r#"live=""
while read -r op pg; do
  case "$op" in
    +) live="$live $pg" ;;
    -) keep=""; for p in $live; do [ "$p" = "$pg" ] || keep="$keep $p"; done; live="$keep" ;;
  esac
done
[ -n "$live" ] || exit 0
for p in $live; do kill -TERM -"$p" 2>/dev/null; kill -CONT -"$p" 2>/dev/null; done
sleep 1
for p in $live; do kill -KILL -"$p" 2>/dev/null; done
"#;

/// The running guardian (`None` until the first group, or when it could
/// not start: groups are then ended only by gemini-rs itself).
struct Guardian {
    stdin: ChildStdin,
    /// Kept so the child is not reaped early; never waited for (it ends
    /// after gemini-rs does).
    _child: Child,
}

static GUARDIAN: Mutex<Option<Guardian>> = Mutex::new(None);
/// Set once a start was tried, so a failed start is not retried.
static TRIED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

fn start() -> Option<Guardian> {
    let mut cmd = Command::new("/bin/sh");
    cmd.arg("-c")
        .arg(SCRIPT)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    // Its own session: the terminal's Ctrl-C or a hangup, meant for
    // gemini-rs, does not end the guardian first.
    super::new_session(&mut cmd);
    let mut child = cmd.spawn().ok()?;
    let stdin = child.stdin.take()?;
    Some(Guardian {
        stdin,
        _child: child,
    })
}

/// Tells the guardian `line` (`+ 123` or `- 123`), starting it for the
/// first `+`.
fn tell(line: &str) {
    let Ok(mut guard) = GUARDIAN.lock() else {
        return;
    };
    if guard.is_none() {
        if !line.starts_with('+') || TRIED.swap(true, std::sync::atomic::Ordering::SeqCst) {
            return;
        }
        *guard = start();
    }
    if let Some(g) = guard.as_mut()
        && g.stdin.write_all(line.as_bytes()).is_err()
    {
        // The guardian is gone; groups are still ended on the way out.
        *guard = None;
    }
}

/// Group `pgid` started.
pub(super) fn added(pgid: i32) {
    tell(&format!("+ {pgid}\n"));
}

/// Group `pgid` ended (its id may be reused from now on).
pub(super) fn removed(pgid: i32) {
    tell(&format!("- {pgid}\n"));
}
