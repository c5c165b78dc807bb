//! `general.sessionRetention`: old session files are deleted at start-up,
//! as today's Gemini CLI's session cleanup does.
//!
//! ```json
//! {"general": {"sessionRetention": {"enabled": true, "maxAge": "30d",
//!   "maxCount": 50, "minRetention": "1d"}}}
//! ```
//!
//! As in Gemini CLI 0.30 and later, it is on by default: `enabled` defaults
//! to true and `maxAge` to `30d` (0.27.4 kept everything unless enabled).
//! Periods are `<n>h`, `<n>d`, `<n>w` or `<n>m` (30-day months). A session
//! is deleted when its `lastUpdated` is older than `maxAge`, or when it is
//! beyond the `maxCount` newest (the current session counts towards
//! `maxCount` and is never deleted). Files that are not sessions, or hold
//! nothing to resume, are deleted too once a day old (Gemini CLI deletes
//! them at once, which can race with a session just starting).
//! A large file is not read whole: its metadata and its last update are
//! read from its head and tail (see [`head`]), so start-up costs the same
//! whatever the size of old sessions.
//! `minRetention` (default `1d`) is a safety floor: a `maxAge` below it is
//! a configuration error and nothing is deleted, as upstream.

use crate::config::Settings;
use head::Header;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// `minRetention` when unset.
const DEFAULT_MIN_RETENTION: &str = "1d";
/// `maxAge` when unset.
const DEFAULT_MAX_AGE: &str = "30d";

/// Why the retention settings were rejected.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RetentionError {
    /// A period is not `<n>h|d|w|m`.
    #[error(
        "Invalid retention period format: {0}. Expected format: <number><unit> where unit is h, d, w, or m"
    )]
    BadPeriod(String),
    /// `maxAge` is shorter than `minRetention`.
    #[error("maxAge cannot be less than minRetention ({0})")]
    BelowMinimum(String),
    /// `maxCount` is below 1.
    #[error("maxCount must be at least 1")]
    BadCount,
}

/// The parsed `general.sessionRetention`.
#[derive(Debug, Clone, PartialEq)]
pub struct RetentionPolicy {
    /// Maximum age.
    pub max_age: Option<chrono::Duration>,
    /// Maximum number of sessions kept.
    pub max_count: Option<usize>,
}

/// Parses `<n>h|d|w|m` into a duration (`m` = 30 days).
pub fn parse_period(period: &str) -> Result<chrono::Duration, RetentionError> {
    let bad = || RetentionError::BadPeriod(period.to_string());
    let trimmed = period.trim();
    let unit = trimmed.chars().last().ok_or_else(bad)?;
    let number: i64 = trimmed[..trimmed.len() - unit.len_utf8()]
        .parse()
        .map_err(|_| bad())?;
    if number <= 0 {
        return Err(bad());
    }
    let hours = match unit {
        'h' => 1,
        'd' => 24,
        'w' => 24 * 7,
        'm' => 24 * 30,
        _ => return Err(bad()),
    };
    number
        .checked_mul(hours)
        .and_then(chrono::Duration::try_hours)
        .ok_or_else(bad)
}

/// The policy from settings (defaults as today's Gemini CLI): `Ok(None)`
/// when retention is disabled.
pub fn policy(settings: &Settings) -> Result<Option<RetentionPolicy>, RetentionError> {
    let cfg = settings
        .typed()
        .general
        .session_retention
        .clone()
        .unwrap_or_default();
    if !cfg.enabled.unwrap_or(true) {
        return Ok(None);
    }
    let max_age = Some(parse_period(
        cfg.max_age.as_deref().unwrap_or(DEFAULT_MAX_AGE),
    )?);
    let max_count = match cfg.max_count {
        None => None,
        Some(n) if n >= 1 => Some(usize::try_from(n).map_err(|_| RetentionError::BadCount)?),
        Some(_) => return Err(RetentionError::BadCount),
    };
    let min_text = cfg
        .min_retention
        .as_deref()
        .unwrap_or(DEFAULT_MIN_RETENTION);
    let min = parse_period(min_text)?;
    if max_age.is_some_and(|age| age < min) {
        return Err(RetentionError::BelowMinimum(min_text.to_string()));
    }
    Ok(Some(RetentionPolicy { max_age, max_count }))
}

struct Found {
    path: PathBuf,
    header: Option<Header>,
}

/// Deletes the sessions in `chats_dir` that `general.sessionRetention`
/// no longer keeps, never the one with `current_session_id`. Returns how
/// many files were removed; invalid settings are logged and delete nothing.
pub fn cleanup_sessions(chats_dir: &Path, settings: &Settings, current_session_id: &str) -> usize {
    match policy(settings) {
        Ok(Some(p)) => apply(chats_dir, &p, current_session_id, chrono::Utc::now()),
        Ok(None) => 0,
        Err(e) => {
            tracing::warn!("Session cleanup skipped: {e}");
            0
        }
    }
}

/// [`cleanup_sessions`] with an explicit policy and clock.
pub fn apply(
    chats_dir: &Path,
    policy: &RetentionPolicy,
    current_session_id: &str,
    now: chrono::DateTime<chrono::Utc>,
) -> usize {
    let found: Vec<Found> = super::session_files(chats_dir)
        .map(|path| {
            let header = head::read(&path);
            Found { path, header }
        })
        .collect();
    let mut doomed: Vec<&Path> = Vec::new();
    // One entry per session: its files (a 0.27.4 file and the `.jsonl` it
    // was carried over to) go together, dated by the newest.
    let mut sessions: HashMap<&str, (chrono::DateTime<chrono::Utc>, Vec<&Path>)> = HashMap::new();
    let a_day_old = |p: &Path| modified(p).is_some_and(|t| t < now - chrono::Duration::days(1));
    for f in &found {
        match &f.header {
            Some(h) if h.session_id == current_session_id => {}
            Some(h) if h.resumable => {
                let time = updated_at(h, &f.path);
                let entry = sessions.entry(&h.session_id).or_insert((time, Vec::new()));
                entry.0 = entry.0.max(time);
                entry.1.push(&f.path);
            }
            _ if a_day_old(&f.path) => doomed.push(&f.path),
            _ => {}
        }
    }
    let has_current = found.iter().any(|f| {
        f.header
            .as_ref()
            .is_some_and(|h| h.session_id == current_session_id)
    });
    // Newest first; the current session takes one of the maxCount places.
    let mut valid: Vec<_> = sessions.into_values().collect();
    valid.sort_by_key(|v| std::cmp::Reverse(v.0));
    let keep = policy
        .max_count
        .map(|n| if has_current { n.saturating_sub(1) } else { n });
    for (i, (time, files)) in valid.into_iter().enumerate() {
        let too_old = policy.max_age.is_some_and(|age| time < now - age);
        let too_many = keep.is_some_and(|k| i >= k);
        if too_old || too_many {
            doomed.extend(files);
        }
    }
    doomed
        .into_iter()
        .filter(|p| match std::fs::remove_file(p) {
            Ok(()) => true,
            Err(e) => {
                tracing::warn!("could not delete session file {}: {e}", p.display());
                false
            }
        })
        .count()
}

/// `lastUpdated`, else `startTime`, else the file's modification time.
fn updated_at(h: &Header, path: &Path) -> chrono::DateTime<chrono::Utc> {
    [&h.last_updated, &h.start_time]
        .iter()
        .find_map(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
        .map(|t| t.with_timezone(&chrono::Utc))
        .or_else(|| modified(path))
        .unwrap_or_else(chrono::Utc::now)
}

/// The file's modification time.
fn modified(path: &Path) -> Option<chrono::DateTime<chrono::Utc>> {
    std::fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .map(chrono::DateTime::<chrono::Utc>::from)
}

mod head;
#[cfg(test)]
mod tests;
