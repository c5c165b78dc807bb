//! Files that hold prompts and answers are the user's alone (issue 41,
//! item 7): the telemetry outfile and the session file are created 0600,
//! whatever the umask.

use crate::e2e::{lines, text};
use crate::support::Sandbox;
use serde_json::json;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// The files under `dir` whose name ends with `suffix`.
fn files_ending(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return found;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(files_ending(&path, suffix));
        } else if path.to_string_lossy().ends_with(suffix) {
            found.push(path);
        }
    }
    found
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn the_telemetry_outfile_and_the_session_file_are_created_0600() {
    // Today's JSONL and the `0.27` dialect's one document alike.
    for (dialect, ending) in [("today", ".jsonl"), ("0.27", ".json")] {
        let sb = Sandbox::new();
        let outfile = sb.home.join("telemetry.log");
        sb.settings(
            &json!({"telemetry": {"enabled": true, "outfile": outfile, "logPrompts": true}}),
        );
        let responses = sb.write("r.responses", &lines(&[text("secret answer")]));
        let out = sb.run(
            &[
                "--fake-responses",
                responses.to_str().unwrap(),
                "-p",
                "a secret prompt",
            ],
            None,
            &[("GEMINI_RS_DIALECT", dialect)],
        );
        assert_eq!(out.code, 0, "{out:?}");
        assert!(outfile.exists(), "no outfile: {out:?}");
        assert_eq!(mode(&outfile), 0o600, "{}", outfile.display());
        let sessions = files_ending(&sb.home.join(".gemini/tmp"), ending);
        assert!(!sessions.is_empty(), "no session file in {dialect}");
        for session in sessions {
            assert_eq!(mode(&session), 0o600, "{}", session.display());
        }
    }
}
