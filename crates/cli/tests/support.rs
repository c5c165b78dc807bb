//! Shared helpers: scratch work and home dirs, and running the binary.

use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What a run produced.
#[derive(Debug)]
pub struct Output {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// A scratch project dir and a scratch home dir (not nested).
pub struct Sandbox {
    _root: tempfile::TempDir,
    pub work: PathBuf,
    pub home: PathBuf,
}

impl Sandbox {
    pub fn new() -> Self {
        let root = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(root.path()).unwrap();
        let work = base.join("work");
        let home = base.join("home");
        std::fs::create_dir_all(&work).unwrap();
        std::fs::create_dir_all(home.join(".gemini")).unwrap();
        Sandbox {
            _root: root,
            work,
            home,
        }
    }

    pub fn write(&self, rel: &str, content: &str) -> PathBuf {
        write_file(&self.work, rel, content)
    }

    pub fn write_home(&self, rel: &str, content: &str) -> PathBuf {
        write_file(&self.home, rel, content)
    }

    pub fn read(&self, rel: &str) -> Option<String> {
        std::fs::read_to_string(self.work.join(rel)).ok()
    }

    /// Writes `settings` as both user and workspace settings.
    pub fn settings(&self, settings: &Value) {
        let text = serde_json::to_string_pretty(settings).unwrap();
        self.write_home(".gemini/settings.json", &text);
        self.write(".gemini/settings.json", &text);
    }

    /// The project temp dir: `<home>/.gemini/tmp/<slug>`, the slug as
    /// `~/.gemini/projects.json` registers it (`work` before the first run).
    pub fn project_temp_dir(&self) -> PathBuf {
        let registry = std::fs::read_to_string(self.home.join(".gemini/projects.json"))
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(&t).ok());
        let slug = registry
            .as_ref()
            .and_then(|r| r["projects"][self.work.to_str().unwrap()].as_str())
            .unwrap_or("work")
            .to_string();
        self.home.join(".gemini/tmp").join(slug)
    }

    /// Starts the binary in `work` with a clean environment, its output
    /// discarded (for tests that signal it).
    pub fn spawn(&self, args: &[&str], env: &[(&str, &str)]) -> std::process::Child {
        let mut cmd = self.command(args, env);
        cmd.stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        cmd.spawn().expect("spawn gemini-rs")
    }

    /// Runs the binary in `work` with a clean environment.
    pub fn run(&self, args: &[&str], stdin: Option<&str>, env: &[(&str, &str)]) -> Output {
        let mut cmd = self.command(args, env);
        cmd.stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
        let out = run_with_timeout(cmd, stdin, Duration::from_secs(120));
        crate::output_schema::check(args, &out);
        out
    }

    /// The binary in `work` with a clean environment, not started yet.
    pub fn command<A: AsRef<std::ffi::OsStr>>(&self, args: &[A], env: &[(&str, &str)]) -> Command {
        // `GEMINI_RS_TEST_BIN` names another build of the binary (a target
        // folder shared by several checkouts uplifts theirs to one path).
        let bin = std::env::var_os("GEMINI_RS_TEST_BIN")
            .unwrap_or_else(|| env!("CARGO_BIN_EXE_gemini-rs").into());
        let mut cmd = Command::new(bin);
        cmd.current_dir(&self.work)
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", &self.home)
            .env("GEMINI_CLI_HOME", &self.home)
            .env("GEMINI_API_KEY", "dummy")
            // The suite was written against Gemini CLI 0.27.4's outputs;
            // tests of today's dialect say so (tests/dialects.rs).
            .env("GEMINI_RS_DIALECT", "0.27")
            // Every run says how it trusts its folder, as CI harnesses do;
            // the trust tests remove it (an empty value unsets).
            .env("GEMINI_CLI_TRUST_WORKSPACE", "true")
            .env(
                "GEMINI_CLI_SYSTEM_SETTINGS_PATH",
                self.home.join("no-system-settings.json"),
            )
            .args(args);
        for (k, v) in env {
            if v.is_empty() {
                cmd.env_remove(k);
            } else {
                cmd.env(k, v);
            }
        }
        cmd
    }
}

fn write_file(base: &Path, rel: &str, content: &str) -> PathBuf {
    let path = base.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, content).unwrap();
    path
}

/// Runs `cmd`, whose stdout and stderr the caller piped (and stdin, when
/// `stdin` is given); killed after `timeout`.
pub fn run_with_timeout(mut cmd: Command, stdin: Option<&str>, timeout: Duration) -> Output {
    let mut child = cmd.spawn().expect("spawn gemini-rs");
    if let Some(text) = stdin {
        let mut pipe = child.stdin.take().unwrap();
        pipe.write_all(text.as_bytes()).unwrap();
    }
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out_thread = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut stdout, &mut s).ok();
        s
    });
    let err_thread = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut stderr, &mut s).ok();
        s
    });
    let deadline = Instant::now() + timeout;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            child.kill().ok();
            break child.wait().unwrap();
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    Output {
        code: status.code().unwrap_or(-1),
        stdout: out_thread.join().unwrap(),
        stderr: err_thread.join().unwrap(),
    }
}

/// Reports that test peer `peer` (an MCP server from npm, the conformance
/// suite, tmux) is missing; `install` says how to get it. On CI
/// (`CI=true`) this fails the test, so a CI run cannot pass with its peer
/// tests silently skipped; elsewhere it prints a note and the caller skips.
pub fn peer_missing(peer: &str, install: &str) {
    let ci = std::env::var("CI").is_ok_and(|v| v.eq_ignore_ascii_case("true") || v == "1");
    if ci {
        panic!("{peer} is not installed, and CI=true forbids skipping its tests ({install})");
    }
    eprintln!("skipped: {peer} is not installed ({install})");
}

/// A `session-*.jsonl` file as Gemini CLI 0.61 reads it: the metadata
/// (first line, then `$set` updates) and the messages by id, in order; a
/// `session-*.json` document (0.27.4's) as it is.
pub fn parse_session_jsonl(text: &str) -> (Value, Vec<Value>) {
    // 0.27.4's one document (the `0.27` dialect, this suite's default):
    // its metadata and its messages.
    if let Ok(Value::Object(mut doc)) = serde_json::from_str::<Value>(text) {
        let messages = doc.remove("messages").and_then(|m| m.as_array().cloned());
        return (Value::Object(doc), messages.unwrap_or_default());
    }
    let mut meta = serde_json::Map::new();
    let mut messages: Vec<Value> = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let record: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
        if let Some(id) = record["id"].as_str() {
            match messages.iter().position(|m| m["id"] == id) {
                Some(i) => messages[i] = record,
                None => messages.push(record),
            }
        } else if let Some(set) = record["$set"].as_object() {
            for (k, v) in set {
                if k == "messages" {
                    messages = v.as_array().unwrap().clone();
                } else {
                    meta.insert(k.clone(), v.clone());
                }
            }
        } else if let Some(to) = record["$rewindTo"].as_str() {
            let cut = messages.iter().position(|m| m["id"] == to).unwrap_or(0);
            messages.truncate(cut);
        } else {
            meta.extend(record.as_object().unwrap().clone());
        }
    }
    (Value::Object(meta), messages)
}
