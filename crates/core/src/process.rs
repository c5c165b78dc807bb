//! Child process groups: the one place that starts, signals and ends them.
//! The shell tool, `!cmd`, hooks, discovered tools and MCP stdio servers
//! each run in a group of their own, registered here while alive, so a
//! signal to gemini-rs ends them all ([`terminate_all`]) and a dropped
//! run never leaves one behind ([`Group`]'s destructor); a guardian
//! process ends them when gemini-rs itself is killed (`guardian.rs`).

mod guardian;

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long a group gets between SIGTERM and SIGKILL.
pub const KILL_GRACE: Duration = Duration::from_secs(1);

/// The groups alive now: their ids and the session that started each
/// (its [`OWNER`] tag; 0 outside any session).
static LIVE: Mutex<BTreeMap<i32, u64>> = Mutex::new(BTreeMap::new());

tokio::task_local! {
    /// The session whose task runs now: the groups it starts are counted
    /// against its limits ([`groups_of`]).
    pub static OWNER: u64;
}

/// The live groups started by session `owner` (see [`OWNER`]).
pub fn groups_of(owner: u64) -> Vec<i32> {
    LIVE.lock()
        .map(|live| {
            live.iter()
                .filter(|(_, o)| **o == owner)
                .map(|(g, _)| *g)
                .collect()
        })
        .unwrap_or_default()
}

/// Every live group, of every session.
pub fn all_groups() -> Vec<i32> {
    LIVE.lock()
        .map(|live| live.keys().copied().collect())
        .unwrap_or_default()
}

/// Makes `cmd` start a new session: its own process group (pgid = pid) and
/// no controlling terminal, so nothing it runs (git, ssh, sudo) can prompt
/// on the user's terminal or be stopped by it.
pub fn new_session(cmd: &mut std::process::Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: `setsid` is async-signal-safe and touches no memory.
    unsafe {
        cmd.pre_exec(|| {
            if libc::setsid() == -1 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// Makes `cmd` start in a process group of its own (pgid = pid).
pub fn new_group(cmd: &mut std::process::Command) {
    use std::os::unix::process::CommandExt;
    cmd.process_group(0);
}

/// Sends `sig` to every process of group `pgid`; false when none was there.
pub fn signal_group(pgid: i32, sig: i32) -> bool {
    if pgid <= 0 {
        return false;
    }
    // SAFETY: a plain syscall on a process group we created.
    unsafe { libc::kill(-pgid, sig) == 0 }
}

/// A live process group we started. Dropping it while armed ends the
/// group: SIGTERM now, SIGKILL after [`KILL_GRACE`] from a helper thread
/// (a destructor cannot wait).
#[derive(Debug)]
pub struct Group {
    pgid: i32,
    armed: bool,
}

impl Group {
    /// Registers the group led by `pid` (the child started with
    /// [`new_session`] or [`new_group`]).
    pub fn new(pid: u32) -> Group {
        let pgid = i32::try_from(pid).unwrap_or(0);
        if pgid > 0
            && let Ok(mut live) = LIVE.lock()
        {
            live.insert(pgid, OWNER.try_with(|o| *o).unwrap_or(0));
            guardian::added(pgid);
        }
        Group { pgid, armed: true }
    }

    /// The group id.
    pub fn pgid(&self) -> i32 {
        self.pgid
    }

    /// Sends `sig` to the group.
    pub fn signal(&self, sig: i32) -> bool {
        signal_group(self.pgid, sig)
    }

    /// True while a live (non-zombie) process is in the group.
    pub fn alive(&self) -> bool {
        !members(self.pgid).is_empty()
    }

    /// True when the group's leader is stopped (`kill -STOP $$`, or a
    /// terminal read in the background): it would never go on by itself.
    pub fn leader_stopped(&self) -> bool {
        proc_stat(self.pgid).is_some_and(|(state, _)| state == "T" || state == "t")
    }

    /// SIGTERM, then SIGKILL to what is left after [`KILL_GRACE`] (a
    /// stopped process gets SIGCONT so it can act on the TERM).
    pub async fn terminate(&mut self) {
        self.terminate_within(KILL_GRACE).await;
    }

    /// SIGTERM, then SIGKILL to what is left after `grace` (polled every
    /// 10 ms, so a group that obeys TERM costs no more than that).
    pub async fn terminate_within(&mut self, grace: Duration) {
        self.signal(libc::SIGTERM);
        self.signal(libc::SIGCONT);
        let deadline = Instant::now() + grace;
        while self.alive() && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        self.signal(libc::SIGKILL);
    }

    /// The group ended by itself, or was ended: nothing to do on drop.
    pub fn disarm(&mut self) {
        self.armed = false;
        unregister(self.pgid);
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        let pgid = self.pgid;
        if !self.signal(libc::SIGTERM) {
            unregister(pgid);
            return;
        }
        self.signal(libc::SIGCONT);
        // Registered until the helper is done, so [`terminate_all`] on the
        // way out still finishes the job if the process exits first.
        let spawned = std::thread::Builder::new()
            .name("group-kill".into())
            .spawn(move || {
                let deadline = Instant::now() + KILL_GRACE;
                while Instant::now() < deadline && !members(pgid).is_empty() {
                    std::thread::sleep(Duration::from_millis(20));
                }
                signal_group(pgid, libc::SIGKILL);
                unregister(pgid);
            });
        if spawned.is_err() {
            signal_group(pgid, libc::SIGKILL);
            unregister(pgid);
        }
    }
}

fn unregister(pgid: i32) {
    if let Ok(mut live) = LIVE.lock()
        && live.remove(&pgid).is_some()
    {
        guardian::removed(pgid);
    }
}

/// Ends every registered group: SIGTERM (and SIGCONT) to all, then SIGKILL
/// to what is left after `grace`, and waits (briefly) until it is gone.
/// Blocks until then; for the way out of the process.
pub fn terminate_all(grace: Duration) {
    terminate_groups(&all_groups(), grace);
}

/// [`terminate_all`] for the groups `groups` only (one session's).
pub fn terminate_groups(groups: &[i32], grace: Duration) {
    if groups.is_empty() {
        return;
    }
    for &g in groups {
        signal_group(g, libc::SIGTERM);
        signal_group(g, libc::SIGCONT);
    }
    let deadline = Instant::now() + grace;
    while Instant::now() < deadline && groups.iter().any(|&g| !members(g).is_empty()) {
        std::thread::sleep(Duration::from_millis(20));
    }
    for &g in groups {
        signal_group(g, libc::SIGKILL);
    }
    // SIGKILL is delivered, not done, when kill(2) returns: give the
    // processes a moment to be gone before the caller exits.
    let killed = Instant::now() + Duration::from_millis(250);
    while Instant::now() < killed && groups.iter().any(|&g| !members(g).is_empty()) {
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// `(state, pgrp)` of process `pid` from `/proc/<pid>/stat`.
fn proc_stat(pid: i32) -> Option<(String, i32)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // `pid (comm) state ppid pgrp …`; comm may contain anything.
    let rest = stat.rfind(')').and_then(|i| stat.get(i + 1..))?;
    let mut fields = rest.split_whitespace();
    let state = fields.next()?.to_string();
    let pgrp = fields.nth(1)?.parse::<i32>().ok()?;
    Some((state, pgrp))
}

/// Pids of the live (non-zombie) processes whose process group is `pgid`,
/// ascending, from `/proc`.
pub fn members(pgid: i32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut pids: Vec<u32> = entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| {
            let Ok(pid) = i32::try_from(pid) else {
                return false;
            };
            proc_stat(pid).is_some_and(|(state, pgrp)| pgrp == pgid && state != "Z" && state != "X")
        })
        .collect();
    pids.sort_unstable();
    pids
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spawn(script: &str) -> (std::process::Child, Group) {
        let mut cmd = std::process::Command::new("bash");
        cmd.arg("-c").arg(script);
        new_session(&mut cmd);
        let child = cmd.spawn().unwrap();
        let group = Group::new(child.id());
        (child, group)
    }

    #[test]
    fn dropping_an_armed_group_ends_it_even_when_it_ignores_term() {
        let (mut child, group) = spawn("trap '' TERM; sleep 30 & sleep 30; wait");
        std::thread::sleep(Duration::from_millis(100));
        let pgid = group.pgid();
        assert!(members(pgid).len() >= 2);
        drop(group);
        let deadline = Instant::now() + Duration::from_secs(5);
        while !members(pgid).is_empty() && Instant::now() < deadline {
            let _ = child.try_wait();
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = child.wait();
        assert!(members(pgid).is_empty());
    }

    // `terminate_all` ends every group of the process, those of tests
    // running beside this one too: the binary's signal tests cover it.
    #[tokio::test]
    async fn a_stopped_leader_is_seen_and_terminate_ends_it() {
        let (mut child, mut group) = spawn("kill -STOP $$; sleep 30");
        let deadline = Instant::now() + Duration::from_secs(5);
        while !group.leader_stopped() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(group.leader_stopped());
        let reaper = std::thread::spawn(move || child.wait().unwrap());
        group.terminate().await;
        let status = reaper.join().unwrap();
        assert!(!status.success());
        assert!(members(group.pgid()).is_empty());
        group.disarm();
    }
}
