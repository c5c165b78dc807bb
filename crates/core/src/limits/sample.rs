//! Reading what processes use from `/proc`: resident memory and CPU time.
//! One pass over `/proc` finds every member of a set of process groups.

use std::collections::BTreeMap;

/// What one pass measured.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Sample {
    /// Resident memory in bytes.
    pub rss_bytes: u64,
}

/// The kernel's page size in bytes.
fn page_size() -> u64 {
    // SAFETY: a plain query without side effects.
    let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    u64::try_from(size).unwrap_or(4096)
}

/// Clock ticks per second, for `utime`/`stime`.
fn ticks_per_second() -> u64 {
    // SAFETY: a plain query without side effects.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    u64::try_from(ticks).ok().filter(|t| *t > 0).unwrap_or(100)
}

/// The fields of `/proc/<pid>/stat` after the command name, split.
fn stat_fields(pid: &str) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = stat.rfind(')').and_then(|i| stat.get(i + 1..))?;
    Some(rest.split_whitespace().map(str::to_string).collect())
}

/// This process's resident memory in bytes.
pub fn own_rss() -> u64 {
    let Ok(statm) = std::fs::read_to_string("/proc/self/statm") else {
        return 0;
    };
    let pages = statm
        .split_whitespace()
        .nth(1)
        .and_then(|v| v.parse::<u64>().ok())
        .unwrap_or(0);
    pages * page_size()
}

/// The members of `groups` (process group ids) alive now, with their
/// resident memory; `cpu` gets each member's CPU time in milliseconds
/// (keyed by pid, so a member that ended keeps what it used). Without
/// `full`, only the descendants of each group's leader are read (a few
/// files per process); a group whose leader is gone, or `full`, reads
/// every process of `/proc` (members that left the leader's tree).
pub fn groups(groups: &[i32], cpu: &mut BTreeMap<u32, u64>, full: bool) -> Sample {
    let mut sample = Sample::default();
    if groups.is_empty() {
        return sample;
    }
    let page = page_size();
    let ticks = ticks_per_second();
    let mut count = |pid: &str, sample: &mut Sample| -> bool {
        let Some(fields) = stat_fields(pid) else {
            return false;
        };
        // After the name: state(0) ppid(1) pgrp(2) ... utime(11) stime(12)
        // ... rss(21), in pages.
        let field = |i: usize| fields.get(i).and_then(|v| v.parse::<i64>().ok());
        let Some(pgrp) = field(2) else { return false };
        if !groups.iter().any(|g| i64::from(*g) == pgrp)
            || matches!(fields.first().map(String::as_str), Some("Z" | "X"))
        {
            return false;
        }
        let rss = u64::try_from(field(21).unwrap_or(0)).unwrap_or(0);
        sample.rss_bytes += rss * page;
        let used = u64::try_from(field(11).unwrap_or(0) + field(12).unwrap_or(0)).unwrap_or(0);
        if let Ok(pid) = pid.parse::<u32>() {
            cpu.insert(pid, used * 1000 / ticks);
        }
        true
    };
    let leaders_alive = groups
        .iter()
        .all(|g| std::path::Path::new(&format!("/proc/{g}/task")).exists());
    if full || !leaders_alive {
        let Ok(entries) = std::fs::read_dir("/proc") else {
            return sample;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            if let Some(pid) = name
                .to_str()
                .filter(|n| n.bytes().all(|b| b.is_ascii_digit()))
            {
                count(pid, &mut sample);
            }
        }
        return sample;
    }
    let mut queue: Vec<String> = groups.iter().map(ToString::to_string).collect();
    let mut seen = std::collections::BTreeSet::new();
    while let Some(pid) = queue.pop() {
        if !seen.insert(pid.clone()) {
            continue;
        }
        count(&pid, &mut sample);
        queue.extend(children(&pid));
    }
    sample
}

/// The children of process `pid`, from each of its threads.
fn children(pid: &str) -> Vec<String> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for task in tasks.flatten() {
        let path = task.path().join("children");
        if let Ok(text) = std::fs::read_to_string(path) {
            out.extend(text.split_whitespace().map(str::to_string));
        }
    }
    out
}

/// CPU time of this process and of its children that were waited for, in
/// milliseconds (`getrusage`).
pub fn own_cpu_ms() -> u64 {
    let of = |who| {
        // SAFETY: getrusage fills the struct it is given.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        if unsafe { libc::getrusage(who, &mut usage) } != 0 {
            return 0;
        }
        let ms = |t: libc::timeval| {
            u64::try_from(t.tv_sec).unwrap_or(0) * 1000
                + u64::try_from(t.tv_usec).unwrap_or(0) / 1000
        };
        ms(usage.ru_utime) + ms(usage.ru_stime)
    };
    of(libc::RUSAGE_SELF) + of(libc::RUSAGE_CHILDREN)
}

/// The peak resident memory of this process in bytes (`ru_maxrss`).
pub fn own_peak_rss() -> u64 {
    // SAFETY: getrusage fills the struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
        return 0;
    }
    u64::try_from(usage.ru_maxrss).unwrap_or(0) * 1024
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_child_group_is_measured() {
        let mut cmd = std::process::Command::new("sh");
        cmd.args([
            "-c",
            "x=$(head -c 30000000 /dev/zero | tr '\\0' x); sleep 5",
        ]);
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let mut child = cmd.spawn().unwrap();
        let pgid = i32::try_from(child.id()).unwrap();
        let mut cpu = BTreeMap::new();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        let mut seen: u64 = 0;
        while std::time::Instant::now() < deadline && seen < 30_000_000 {
            seen = groups(&[pgid], &mut cpu, seen.is_multiple_of(2)).rss_bytes;
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        // SAFETY: a signal to the group this test started.
        unsafe { libc::kill(-pgid, libc::SIGKILL) };
        let _ = child.wait();
        assert!(seen >= 30_000_000, "{seen}");
        assert!(own_rss() > 0);
    }
}
