//! Per-session resource limits that hold: memory (`--max-memory-mb`,
//! `limits.memoryMb`) and wall clock (`--max-wall-seconds`,
//! `limits.wallSeconds`), beside the turn, token, cost and tool-output
//! limits the agent keeps itself.
//!
//! Memory is measured, not reserved: every [`SAMPLE_EVERY`] the resident
//! memory of the session's own process (headless: the process is the
//! session) and of every member of the process groups the session started
//! (shell commands, hooks, MCP servers, discovered tools; see
//! `process::OWNER`) is summed from `/proc`. Over the limit, or past the
//! wall clock, the groups are ended (SIGTERM, SIGKILL shortly after) and
//! the session is told ([`Meter::start`]'s callback), which ends the
//! running prompt with `AgentError::ResourceLimit` and then itself.

mod sample;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub use sample::{own_cpu_ms, own_peak_rss, own_rss};

/// How often memory and the clock are looked at.
pub const SAMPLE_EVERY: Duration = Duration::from_millis(100);

/// How long the session's groups get between SIGTERM and SIGKILL once a
/// limit is crossed.
const KILL_GRACE: Duration = Duration::from_millis(300);

const MIB: u64 = 1024 * 1024;

/// One look in this many reads every process (about once a second).
const FULL_SCAN_EVERY: u64 = 10;

/// The limits of one session (none set: nothing is watched).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ResourceLimits {
    /// Memory in MiB: the session's own share and its children's.
    pub memory_mb: Option<u64>,
    /// Wall-clock seconds from the session's start.
    pub wall_seconds: Option<u64>,
}

impl ResourceLimits {
    /// True when no limit is set.
    pub fn is_empty(&self) -> bool {
        self.memory_mb.is_none() && self.wall_seconds.is_none()
    }
}

/// Whose memory counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// The whole process and every group it started (headless: one
    /// process, one session).
    Process,
    /// Only the groups the session started (ACP hosts many sessions in
    /// one process; their shares of it cannot be told apart).
    Session,
}

/// A limit that was crossed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LimitHit {
    /// `memory` or `wall_clock`.
    pub limit: &'static str,
    /// What was measured, for the user.
    pub message: String,
}

/// What a session used, for its stats.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    /// Peak memory in MiB.
    pub peak_memory_mb: Option<u64>,
    /// CPU time in milliseconds.
    pub cpu_ms: Option<u64>,
}

/// Watches one session's limits and measures what it uses. Cheap to
/// clone.
#[derive(Debug, Clone)]
pub struct Meter {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    owner: u64,
    scope: Scope,
    limits: ResourceLimits,
    started: Instant,
    peak_bytes: AtomicU64,
    /// Looks taken so far.
    ticks: AtomicU64,
    /// CPU milliseconds per child pid, as last seen.
    cpu: Mutex<BTreeMap<u32, u64>>,
    hit: Mutex<Option<LimitHit>>,
    stop: tokio_util::sync::CancellationToken,
}

/// The next session tag (0 is "no session").
static NEXT_OWNER: AtomicU64 = AtomicU64::new(1);

impl Meter {
    /// A meter for a new session, with a tag of its own for its groups.
    pub fn new(limits: ResourceLimits, scope: Scope) -> Meter {
        Meter {
            inner: Arc::new(Inner {
                owner: NEXT_OWNER.fetch_add(1, Ordering::Relaxed),
                scope,
                limits,
                started: Instant::now(),
                peak_bytes: AtomicU64::new(0),
                ticks: AtomicU64::new(1),
                cpu: Mutex::new(BTreeMap::new()),
                hit: Mutex::new(None),
                stop: tokio_util::sync::CancellationToken::new(),
            }),
        }
    }

    /// The session's tag (run its work in `process::OWNER.scope(tag, ..)`).
    pub fn owner(&self) -> u64 {
        self.inner.owner
    }

    /// Starts watching (when a limit is set): `on_hit` is called once, after
    /// the session's groups were ended, when a limit is crossed.
    pub fn start(&self, on_hit: impl FnOnce(&LimitHit) + Send + 'static) {
        if self.inner.limits.is_empty() {
            return;
        }
        let meter = self.clone();
        tokio::spawn(async move {
            let mut ticks = tokio::time::interval(SAMPLE_EVERY);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
            loop {
                tokio::select! {
                    _ = ticks.tick() => {}
                    () = meter.inner.stop.cancelled() => return,
                }
                let Some(hit) = meter.check() else { continue };
                if let Ok(mut slot) = meter.inner.hit.lock() {
                    *slot = Some(hit.clone());
                }
                let groups = meter.groups();
                let _ = tokio::task::spawn_blocking(move || {
                    crate::process::terminate_groups(&groups, KILL_GRACE)
                })
                .await;
                on_hit(&hit);
                return;
            }
        });
    }

    /// Stops watching (the session ended).
    pub fn stop(&self) {
        self.inner.stop.cancel();
    }

    /// The limit that was crossed, if one was.
    pub fn hit(&self) -> Option<LimitHit> {
        self.inner.hit.lock().ok().and_then(|h| h.clone())
    }

    fn groups(&self) -> Vec<i32> {
        match self.inner.scope {
            Scope::Process => crate::process::all_groups(),
            Scope::Session => crate::process::groups_of(self.inner.owner),
        }
    }

    /// Measures once; the limit crossed, if any.
    fn check(&self) -> Option<LimitHit> {
        let bytes = self.measure();
        let limits = self.inner.limits;
        if let Some(max) = limits.memory_mb
            && bytes > max.saturating_mul(MIB)
        {
            return Some(LimitHit {
                limit: "memory",
                message: format!(
                    "The session used {} MB of memory, over its limit of {max} MB \
                     (--max-memory-mb / limits.memoryMb); its commands were ended.",
                    bytes.div_ceil(MIB)
                ),
            });
        }
        if let Some(max) = limits.wall_seconds
            && self.inner.started.elapsed() >= Duration::from_secs(max)
        {
            return Some(LimitHit {
                limit: "wall_clock",
                message: format!(
                    "The session ran for {max} s, its wall-clock limit \
                     (--max-wall-seconds / limits.wallSeconds); its commands were ended."
                ),
            });
        }
        None
    }

    /// The memory in use now (bytes), remembered as the peak when higher.
    fn measure(&self) -> u64 {
        let groups = self.groups();
        // Every FULL_SCAN_EVERY-th look reads all of /proc, for members
        // that left their leader's tree.
        let tick = self.inner.ticks.fetch_add(1, Ordering::Relaxed);
        let full = tick.is_multiple_of(FULL_SCAN_EVERY);
        let mut bytes = match self.inner.cpu.lock() {
            Ok(mut cpu) => sample::groups(&groups, &mut cpu, full).rss_bytes,
            Err(_) => 0,
        };
        if self.inner.scope == Scope::Process {
            bytes += own_rss();
        }
        self.inner.peak_bytes.fetch_max(bytes, Ordering::Relaxed);
        bytes
    }

    /// What the session used so far.
    pub fn usage(&self) -> Usage {
        let sampled = self.inner.peak_bytes.load(Ordering::Relaxed);
        let children_cpu: u64 = self.inner.cpu.lock().map(|c| c.values().sum()).unwrap_or(0);
        match self.inner.scope {
            Scope::Process => Usage {
                peak_memory_mb: Some(sampled.max(own_peak_rss()).div_ceil(MIB)),
                cpu_ms: Some(own_cpu_ms()),
            },
            Scope::Session if self.inner.limits.is_empty() => Usage::default(),
            Scope::Session => Usage {
                peak_memory_mb: Some(sampled.div_ceil(MIB)),
                cpu_ms: Some(children_cpu),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_wall_clock_trips_once() {
        let meter = Meter::new(
            ResourceLimits {
                memory_mb: None,
                wall_seconds: Some(0),
            },
            Scope::Session,
        );
        let (tx, rx) = tokio::sync::oneshot::channel();
        meter.start(move |hit| {
            let _ = tx.send(hit.limit);
        });
        assert_eq!(rx.await.unwrap(), "wall_clock");
        assert_eq!(meter.hit().unwrap().limit, "wall_clock");
    }

    #[test]
    fn the_process_scope_reports_memory_and_cpu() {
        let meter = Meter::new(ResourceLimits::default(), Scope::Process);
        let usage = meter.usage();
        assert!(usage.peak_memory_mb.unwrap() > 0);
        assert!(usage.cpu_ms.is_some());
    }
}
