//! Parsing the retention settings and deleting old sessions.

use super::*;
use serde_json::json;

fn write_session(dir: &Path, name: &str, id: &str, updated: &str) -> PathBuf {
    let path = dir.join(format!("session-{name}.json"));
    std::fs::write(
        &path,
        json!({"sessionId": id, "projectHash": "h", "startTime": updated,
            "lastUpdated": updated,
            "messages": [{"id": "1", "timestamp": updated, "type": "user", "content": "hi"}]})
        .to_string(),
    )
    .unwrap();
    path
}

fn settings(retention: serde_json::Value) -> Settings {
    Settings::from_value(json!({"general": {"sessionRetention": retention}}))
}

#[test]
fn periods_parse_like_upstream() {
    assert_eq!(parse_period("24h").unwrap(), chrono::Duration::hours(24));
    assert_eq!(parse_period("7d").unwrap(), chrono::Duration::days(7));
    assert_eq!(parse_period("1w").unwrap(), chrono::Duration::days(7));
    assert_eq!(parse_period("2m").unwrap(), chrono::Duration::days(60));
    for bad in ["", "d", "0d", "-1d", "3x", "1.5d", "30"] {
        assert!(parse_period(bad).is_err(), "{bad}");
    }
}

#[test]
fn policy_validation() {
    // On by default, 30 days, as today's Gemini CLI.
    let month = RetentionPolicy {
        max_age: Some(chrono::Duration::days(30)),
        max_count: None,
    };
    assert_eq!(policy(&Settings::default()).unwrap(), Some(month.clone()));
    assert_eq!(
        policy(&settings(json!({"enabled": true}))).unwrap(),
        Some(month)
    );
    assert_eq!(
        policy(&settings(json!({"enabled": false, "maxAge": "1d"}))).unwrap(),
        None
    );
    assert_eq!(
        policy(&settings(json!({"enabled": true, "maxAge": "12h"}))),
        Err(RetentionError::BelowMinimum("1d".into()))
    );
    assert!(
        policy(&settings(
            json!({"enabled": true, "maxAge": "12h", "minRetention": "6h"})
        ))
        .is_ok()
    );
    assert_eq!(
        policy(&settings(json!({"enabled": true, "maxCount": 0}))),
        Err(RetentionError::BadCount)
    );
    assert_eq!(
        policy(&settings(
            json!({"enabled": true, "maxAge": "30d", "maxCount": 3})
        ))
        .unwrap()
        .unwrap(),
        RetentionPolicy {
            max_age: Some(chrono::Duration::days(30)),
            max_count: Some(3)
        }
    );
}

#[test]
fn deletes_old_and_surplus_sessions_but_never_the_current_one() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let now = chrono::Utc::now();
    let ago = |days: i64| (now - chrono::Duration::days(days)).to_rfc3339();
    let current = write_session(d, "cur", "current", &ago(100));
    let old = write_session(d, "old", "old", &ago(40));
    let recent1 = write_session(d, "r1", "r1", &ago(1));
    let recent2 = write_session(d, "r2", "r2", &ago(2));
    let recent3 = write_session(d, "r3", "r3", &ago(3));
    let corrupt = d.join("session-bad.json");
    std::fs::write(&corrupt, "{").unwrap();
    let empty = d.join("session-empty.jsonl");
    std::fs::write(&empty, r#"{"sessionId":"e","projectHash":"h"}"#).unwrap();
    let fresh_corrupt = d.join("session-fresh.jsonl");
    std::fs::write(&fresh_corrupt, "{").unwrap();
    // Not sessions, or nothing to resume: deleted once a day old.
    let day_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(2 * 86_400);
    for p in [&corrupt, &empty] {
        std::fs::File::options()
            .write(true)
            .open(p)
            .unwrap()
            .set_modified(day_ago)
            .unwrap();
    }
    let other = d.join("notes.json");
    std::fs::write(&other, "{}").unwrap();

    // Disabled: nothing happens.
    let s = settings(json!({"enabled": false, "maxAge": "30d"}));
    assert_eq!(cleanup_sessions(d, &s, "current"), 0);

    let s = settings(json!({"enabled": true, "maxAge": "30d"}));
    assert_eq!(cleanup_sessions(d, &s, "current"), 3);
    assert!(current.exists() && !old.exists() && !corrupt.exists() && !empty.exists());
    assert!(fresh_corrupt.exists());
    assert!(recent1.exists() && recent2.exists() && recent3.exists() && other.exists());

    // maxCount 2 with the current session present keeps one more: the newest.
    let s = settings(json!({"enabled": true, "maxCount": 2}));
    assert_eq!(cleanup_sessions(d, &s, "current"), 2);
    assert!(current.exists() && recent1.exists());
    assert!(!recent2.exists() && !recent3.exists());

    // A current session not yet on disk does not take a place.
    let s = settings(json!({"enabled": true, "maxCount": 1}));
    assert_eq!(cleanup_sessions(d, &s, "brand-new"), 1);
    assert!(!current.exists() && recent1.exists());

    // Invalid settings delete nothing.
    let s = settings(json!({"enabled": true, "maxAge": "1h"}));
    assert_eq!(cleanup_sessions(d, &s, "x"), 0);
    assert_eq!(cleanup_sessions(&d.join("missing"), &s, "x"), 0);
}

/// Sets a file's modification time `days` ago.
fn age(path: &Path, days: u64) {
    let t = std::time::SystemTime::now() - std::time::Duration::from_secs(days * 86_400);
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(t)
        .unwrap();
}

/// A file larger than the whole-file limit whose body is not JSON: read
/// whole, it would hold nothing to resume (and be deleted once a day old).
fn huge(path: &Path, head: &str, tail: &str) {
    let body = "not json {[\n".repeat((head::WHOLE_FILE_LIMIT as usize / 12) * 2);
    std::fs::write(path, format!("{head}\n{body}{tail}")).unwrap();
}

#[test]
fn large_files_are_classified_by_their_head_and_tail_without_reading_them_whole() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let now = chrono::Utc::now();
    let ago = |days: i64| (now - chrono::Duration::days(days)).to_rfc3339();
    let header = |id: &str| {
        format!(
            r#"{{"sessionId":"{id}","projectHash":"h","startTime":"{}","lastUpdated":"{}","kind":"main"}}"#,
            ago(90),
            ago(90)
        )
    };
    let set = |days: i64| format!("{{\"$set\":{{\"lastUpdated\":\"{}\"}}}}\n", ago(days));

    // Dated by the last `$set` of its tail (a day old on disk, so the old
    // code, finding nothing to resume in it, would delete it).
    let recent = d.join("session-recent.jsonl");
    huge(&recent, &header("recent"), &set(2));
    age(&recent, 3);
    // Its last update is 40 days ago: too old.
    let old = d.join("session-old.jsonl");
    huge(&old, &header("old"), &set(40));
    // No `$set` in the tail: the file's time dates it.
    let by_mtime_new = d.join("session-mnew.jsonl");
    huge(&by_mtime_new, &header("mnew"), "");
    age(&by_mtime_new, 5);
    let by_mtime_old = d.join("session-mold.jsonl");
    huge(&by_mtime_old, &header("mold"), "");
    age(&by_mtime_old, 45);
    // A 0.27.4 file: its top-level fields, then a torn messages array.
    let legacy_new = d.join("session-lnew.json");
    let legacy = |id: &str, days: i64| {
        format!(
            "{{\n  \"sessionId\": \"{id}\",\n  \"projectHash\": \"h\",\n  \"startTime\": \"{}\",\n  \"lastUpdated\": \"{}\",\n  \"messages\": [",
            ago(days),
            ago(days)
        )
    };
    huge(&legacy_new, &legacy("lnew", 3), "");
    age(&legacy_new, 3);
    let legacy_old = d.join("session-lold.json");
    huge(&legacy_old, &legacy("lold", 50), "");
    // The current session, however old and large, stays.
    let current = d.join("session-cur.jsonl");
    huge(&current, &header("current"), &set(60));
    // A sub-agent's large file holds nothing to resume: deleted a day old.
    let sub = d.join("session-sub.jsonl");
    huge(
        &sub,
        r#"{"sessionId":"sub","projectHash":"h","kind":"subagent"}"#,
        &set(1),
    );
    age(&sub, 2);
    // Large, but no session header: not a session.
    let junk = d.join("session-junk.jsonl");
    huge(&junk, "garbage", "");
    age(&junk, 2);

    let policy = RetentionPolicy {
        max_age: Some(chrono::Duration::days(30)),
        max_count: None,
    };
    assert_eq!(apply(d, &policy, "current", now), 5);
    for kept in [&recent, &by_mtime_new, &legacy_new, &current] {
        assert!(kept.exists(), "{} was deleted", kept.display());
    }
    for gone in [&old, &by_mtime_old, &legacy_old, &sub, &junk] {
        assert!(!gone.exists(), "{} was kept", gone.display());
    }

    // maxCount ranks them by the same dates: the newest stays.
    let policy = RetentionPolicy {
        max_age: None,
        max_count: Some(2),
    };
    assert_eq!(apply(d, &policy, "current", now), 2);
    assert!(current.exists() && recent.exists());
    assert!(!legacy_new.exists() && !by_mtime_new.exists());
}
