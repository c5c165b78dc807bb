//! End-to-end tests of the interactive UI: the real binary runs in tmux
//! against the fake Gemini endpoint; keys go in with `send-keys`, the screen
//! comes back with `capture-pane`. Skipped (with a note) without tmux, failed
//! on CI.

use crate::e2e::{call, lines, turn};
use crate::support::Sandbox;
use gemini_rs_test_support::FakeServer;
use serde_json::{Value, json};
use std::process::Command;
use std::time::{Duration, Instant};

pub fn tmux_available() -> bool {
    Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// A private tmux server (its socket in the sandbox) running one pane.
pub struct Tmux {
    socket: String,
}

impl Tmux {
    /// Starts `gemini-rs args` in `sb.work` in a `w`x`h` pane.
    pub fn start(sb: &Sandbox, base_url: &str, args: &[&str], w: u16, h: u16) -> Tmux {
        Tmux::start_env(sb, base_url, args, &[], w, h)
    }

    /// [`Tmux::start`] with extra environment variables.
    pub fn start_env(
        sb: &Sandbox,
        base_url: &str,
        args: &[&str],
        extra_env: &[(&str, &str)],
        w: u16,
        h: u16,
    ) -> Tmux {
        Tmux::launch(sb, base_url, args, extra_env, (w, h), "")
    }

    /// [`Tmux::start`] in a pane whose shell outlives the terminal: it
    /// writes gemini-rs's exit code to `exit.code` in the home folder also
    /// after [`Tmux::kill_session`].
    pub fn start_recording_exit(sb: &Sandbox, base_url: &str, args: &[&str]) -> Tmux {
        let record = format!("trap '' HUP; R='{}'; ", sb.home.join("exit.code").display());
        Tmux::launch(sb, base_url, args, &[], (100, 30), &record)
    }

    fn launch(
        sb: &Sandbox,
        base_url: &str,
        args: &[&str],
        extra_env: &[(&str, &str)],
        (w, h): (u16, u16),
        prefix: &str,
    ) -> Tmux {
        // A fresh socket per launch: a second session in one sandbox never
        // meets the previous server while it is still shutting down.
        static LAUNCHES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = LAUNCHES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let socket = sb.home.join(format!("tmux-{n}.sock")).display().to_string();
        let bin = env!("CARGO_BIN_EXE_gemini-rs");
        let env = [
            ("PATH", std::env::var("PATH").unwrap_or_default()),
            ("HOME", sb.home.display().to_string()),
            ("GEMINI_CLI_HOME", sb.home.display().to_string()),
            ("GEMINI_API_KEY", "dummy".to_string()),
            // Written against 0.27.4's names (tests/dialects.rs tests today's).
            ("GEMINI_RS_DIALECT", "0.27".to_string()),
            ("GOOGLE_GEMINI_BASE_URL", base_url.to_string()),
            ("GEMINI_CLI_TRUST_WORKSPACE", "true".to_string()),
            (
                "GEMINI_CLI_SYSTEM_SETTINGS_PATH",
                sb.home
                    .join("no-system-settings.json")
                    .display()
                    .to_string(),
            ),
            ("TERM", "xterm-256color".to_string()),
        ];
        let extra = extra_env.iter().map(|(k, v)| (*k, v.to_string()));
        let env: Vec<(&str, String)> = env.into_iter().chain(extra).collect();
        let env: Vec<String> = env.iter().map(|(k, v)| format!("{k}='{v}'")).collect();
        let script = format!(
            "{prefix}cd '{}' && env -i {} '{bin}' {}; C=$?; [ -n \"$R\" ] && echo $C > \"$R\"; echo EXIT=$C; stty -a | grep -o -- '-icanon' || echo COOKED; sleep 60",
            sb.work.display(),
            env.join(" "),
            args.join(" ")
        );
        let ok = Command::new("tmux")
            .args([
                "-S",
                &socket,
                "-f",
                "/dev/null",
                "new-session",
                "-d",
                "-s",
                "main",
            ])
            .args(["-x", &w.to_string(), "-y", &h.to_string(), &script])
            .status()
            .unwrap()
            .success();
        assert!(ok, "tmux new-session failed");
        Tmux { socket }
    }

    fn tmux(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .args(["-S", &self.socket])
            .args(args)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The pane with its scrollback.
    pub fn screen(&self) -> String {
        self.tmux(&["capture-pane", "-p", "-t", "main", "-S", "-500"])
    }

    /// The pane with its scrollback and its colours (escape sequences).
    pub fn screen_ansi(&self) -> String {
        self.tmux(&["capture-pane", "-p", "-e", "-t", "main", "-S", "-500"])
    }

    pub fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "main"];
        args.extend_from_slice(keys);
        self.tmux(&args);
    }

    /// Ends the session: its terminal closes under the program.
    pub fn kill_session(&self) {
        self.tmux(&["kill-session", "-t", "main"]);
    }

    /// Resizes the pane's window to `w`x`h`.
    pub fn resize(&self, w: u16, h: u16) {
        self.tmux(&[
            "resize-window",
            "-t",
            "main",
            "-x",
            &w.to_string(),
            "-y",
            &h.to_string(),
        ]);
    }

    pub fn type_text(&self, text: &str) {
        self.tmux(&["send-keys", "-t", "main", "-l", text]);
    }

    /// Waits until the screen shows `needle`; panics with the screen after
    /// `secs` seconds.
    pub fn wait_for(&self, needle: &str, secs: u64) -> String {
        let deadline = Instant::now() + Duration::from_secs(secs);
        loop {
            let s = self.screen();
            if s.contains(needle) {
                return s;
            }
            if Instant::now() > deadline {
                panic!("timed out waiting for {needle:?}; screen:\n{s}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-S", &self.socket, "kill-server"])
            .output();
    }
}

/// Pids of the processes whose command line matches `pattern`.
fn pgrep(pattern: &str) -> String {
    Command::new("pgrep")
        .args(["-f", pattern])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default()
}

/// The UI in yolo mode with the model's `run_shell_command` of `command`
/// running (its card says so).
fn running_shell(sb: &Sandbox, command: &str) -> (FakeServer, Tmux) {
    let responses = lines(&[
        call("run_shell_command", json!({"command": command})),
        turn(json!([{"text": "unused"}])),
    ]);
    let fake = FakeServer::replaying(&responses);
    let t = Tmux::start(sb, &fake.base_url, &["--approval-mode=yolo"], 100, 30);
    t.wait_for("mode: YOLO", 20);
    t.type_text("sleep for a while");
    t.keys(&["Enter"]);
    t.wait_for("running", 20);
    (fake, t)
}

/// Waits up to 5 s for `pgrep` to find nothing.
fn wait_gone(pgrep: &dyn Fn() -> String) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while !pgrep().is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn settings(sb: &Sandbox) {
    sb.settings(
        &json!({"model": {"name": "gemini-2.5-flash", "retry": {"initialDelayMs": 1}},
        "security": {"auth": {"selectedType": "gemini-api-key"}}}),
    );
}

/// A sandbox with settings for the UI tests; `None` (with a note, or a
/// failure on CI) when tmux is not installed.
pub fn ui_sandbox() -> Option<Sandbox> {
    if !tmux_available() {
        crate::support::peer_missing("tmux", "apt-get install tmux");
        return None;
    }
    let sb = Sandbox::new();
    settings(&sb);
    Some(sb)
}

#[test]
fn prompt_streams_answer_and_write_file_is_confirmed_with_enter() {
    let Some(sb) = ui_sandbox() else {
        return;
    };
    let responses = lines(&[
        turn(json!([
            {"text": "Sure. The answer **streams** in.\n\nI'll write the file now."},
            {"functionCall": {"name": "write_file", "args": {"file_path": "hello.txt", "content": "hello from the tui\n"}}}
        ])),
        turn(json!([{"text": "All done: hello.txt is written."}])),
    ]);
    let fake = FakeServer::replaying(&responses);
    let t = Tmux::start(&sb, &fake.base_url, &[], 100, 30);
    t.wait_for("mode: default", 20);
    t.type_text("Please write hello.txt");
    t.keys(&["Enter"]);
    t.wait_for("The answer streams in.", 20);
    let s = t.wait_for("Apply this change?", 20);
    assert!(s.contains("● 1. Yes, allow once"), "{s}");
    assert!(s.contains("+hello from the tui"), "{s}");
    assert_eq!(
        sb.read("hello.txt"),
        None,
        "nothing written before approval"
    );
    t.keys(&["Enter"]);
    let s = t.wait_for("All done: hello.txt is written.", 20);
    assert!(s.contains("✓ write_file hello.txt"), "{s}");
    assert_eq!(
        sb.read("hello.txt").as_deref(),
        Some("hello from the tui\n")
    );
    // Ctrl-C twice on an empty prompt exits and restores the terminal.
    t.keys(&["C-c"]);
    t.wait_for("Press Ctrl-C again to exit.", 10);
    t.keys(&["C-c"]);
    let s = t.wait_for("EXIT=0", 10);
    let after = s.split("EXIT=0").nth(1).unwrap_or("");
    t.wait_for("COOKED", 5);
    assert!(!after.contains("-icanon"), "raw mode left on:\n{s}");
    // The prompt went to the input history of the project.
    let history = sb.project_temp_dir().join("input_history.jsonl");
    let text = std::fs::read_to_string(history).unwrap();
    assert!(text.contains("Please write hello.txt"), "{text}");
}

#[test]
fn ctrl_c_cancels_a_long_shell_command_and_leaves_no_process() {
    let Some(sb) = ui_sandbox() else {
        return;
    };
    let marker = "37.25";
    let (_fake, t) = running_shell(&sb, &format!("sleep {marker}"));
    let pgrep = || pgrep(&format!("sleep {marker}"));
    t.keys(&["C-c"]);
    t.wait_for("Request cancelled.", 20);
    wait_gone(&pgrep);
    assert_eq!(pgrep(), "", "the shell command survived the cancel");
    t.keys(&["C-d"]);
    t.wait_for("EXIT=0", 10);
}

#[test]
fn a_long_shell_command_shows_its_output_while_it_runs() {
    let Some(sb) = ui_sandbox() else {
        return;
    };
    let command =
        "for i in 1 2 3; do echo live-line-$i; sleep 0.5; done; sleep 4; echo all-finished";
    let responses = lines(&[
        call("run_shell_command", json!({"command": command})),
        turn(json!([{"text": "The command is over."}])),
    ]);
    let fake = FakeServer::replaying(&responses);
    let t = Tmux::start(&sb, &fake.base_url, &["--approval-mode=yolo"], 100, 30);
    t.wait_for("mode: YOLO", 20);
    t.type_text("run the slow command");
    t.keys(&["Enter"]);
    let s = t.wait_for("live-line-3", 20);
    assert!(
        !s.contains("all-finished") && !s.contains("The command is over."),
        "the output must show before the command ends:\n{s}"
    );
    assert!(s.contains("live-line-1"), "{s}");
    assert!(s.contains("running"), "{s}");
    let s = t.wait_for("The command is over.", 30);
    assert!(s.contains("all-finished"), "{s}");
    t.keys(&["C-d"]);
    t.wait_for("EXIT=0", 10);
}

#[test]
fn modify_with_editor_sends_the_edited_content() {
    let Some(sb) = ui_sandbox() else {
        return;
    };
    let responses = lines(&[
        call(
            "write_file",
            json!({"file_path": "e.txt", "content": "written by the model\n"}),
        ),
        turn(json!([{"text": "Edited file written."}])),
    ]);
    let fake = FakeServer::replaying(&responses);
    // A non-interactive "editor": sed edits the temp file in place.
    let t = Tmux::start_env(
        &sb,
        &fake.base_url,
        &[],
        &[("EDITOR", "sed -i s/model/user/")],
        100,
        30,
    );
    t.wait_for("mode: default", 20);
    t.type_text("write e.txt");
    t.keys(&["Enter"]);
    let s = t.wait_for("Apply this change?", 20);
    assert!(s.contains("3. Modify with external editor"), "{s}");
    t.keys(&["3"]);
    let s = t.wait_for("+written by the user", 20);
    assert!(s.contains("Apply this change?"), "asked again:\n{s}");
    assert_eq!(sb.read("e.txt"), None, "nothing written before approval");
    t.keys(&["Enter"]);
    t.wait_for("Edited file written.", 20);
    assert_eq!(sb.read("e.txt").as_deref(), Some("written by the user\n"));
    let responses = fake.function_responses();
    let text = serde_json::to_string(&responses).unwrap();
    assert!(
        text.contains("User modified the `content` to be: written by the user"),
        "{text}"
    );
    t.keys(&["C-d"]);
    t.wait_for("EXIT=0", 10);
}

#[test]
fn chat_save_and_resume_round_trip_in_the_ui() {
    let Some(sb) = ui_sandbox() else {
        return;
    };
    let responses = lines(&[
        turn(json!([{"text": "First answer."}])),
        turn(json!([{"text": "Second answer."}])),
    ]);
    let fake = FakeServer::replaying(&responses);
    let t = Tmux::start(&sb, &fake.base_url, &[], 100, 30);
    t.wait_for("mode: default", 20);
    t.type_text("remember the word banana");
    t.keys(&["Enter"]);
    t.wait_for("First answer.", 20);
    t.type_text("/chat save fruit");
    t.keys(&["Enter"]);
    t.wait_for("Conversation checkpoint saved with tag: fruit.", 10);
    assert!(
        sb.project_temp_dir()
            .join("checkpoint-fruit.json")
            .is_file()
    );
    t.type_text("/clear");
    t.keys(&["Enter"]);
    // /clear runs the session hooks as a short job.
    std::thread::sleep(Duration::from_millis(500));
    t.type_text("/chat resume fruit");
    t.keys(&["Enter"]);
    t.wait_for("Resumed the conversation saved as fruit", 10);
    t.type_text("/chat list");
    t.keys(&["Enter"]);
    t.wait_for("- fruit (saved on", 10);
    t.type_text("what was the word?");
    t.keys(&["Enter"]);
    t.wait_for("Second answer.", 20);
    let last = fake.requests().last().cloned().unwrap();
    let body = serde_json::to_string(&last.body).unwrap();
    assert!(body.contains("remember the word banana"), "{body}");
    t.keys(&["C-d"]);
    t.wait_for("EXIT=0", 10);
}

#[test]
fn memory_add_refreshes_the_context_and_init_asks_the_model() {
    let Some(sb) = ui_sandbox() else {
        return;
    };
    let responses = lines(&[turn(json!([{"text": "I will look around."}]))]);
    let fake = FakeServer::replaying(&responses);
    let t = Tmux::start(&sb, &fake.base_url, &[], 100, 30);
    t.wait_for("mode: default", 20);
    t.type_text("/memory add I like green tea");
    t.keys(&["Enter"]);
    t.wait_for("Memory refreshed successfully. Loaded", 10);
    let memory = std::fs::read_to_string(sb.home.join(".gemini/GEMINI.md")).unwrap();
    assert!(memory.contains("- I like green tea"), "{memory}");
    t.type_text("/init");
    t.keys(&["Enter"]);
    t.wait_for("Empty GEMINI.md created.", 10);
    t.wait_for("I will look around.", 20);
    assert_eq!(sb.read("GEMINI.md").as_deref(), Some(""));
    let request = fake.requests().last().cloned().unwrap();
    let body = serde_json::to_string(&request.body).unwrap();
    assert!(body.contains("write a GEMINI.md file"), "{body}");
    let system = serde_json::to_string(&request.body["systemInstruction"]).unwrap();
    assert!(system.contains("I like green tea"), "{system}");
    t.type_text("/init");
    t.keys(&["Enter"]);
    t.wait_for("A GEMINI.md file already exists", 10);
    t.keys(&["C-d"]);
    t.wait_for("EXIT=0", 10);
}

/// Esc while a tool runs kills it, and every call of that model turn (the
/// running one and the one still waiting) is answered in the history: the
/// next request carries a functionResponse for each functionCall.
#[test]
fn esc_during_a_tool_answers_every_call_in_the_next_request() {
    let Some(sb) = ui_sandbox() else {
        return;
    };
    let marker = "41.75";
    let responses = lines(&[
        turn(json!([
            {"functionCall": {"name": "run_shell_command", "args": {"command": format!("sleep {marker}")}}},
            {"functionCall": {"name": "write_file", "args": {"file_path": "later.txt", "content": "x"}}}
        ])),
        turn(json!([{"text": "Fine, both stopped."}])),
    ]);
    let fake = FakeServer::replaying(&responses);
    let t = Tmux::start(&sb, &fake.base_url, &["--approval-mode=yolo"], 100, 30);
    t.wait_for("mode: YOLO", 20);
    t.type_text("sleep then write");
    t.keys(&["Enter"]);
    t.wait_for("running", 20);
    t.keys(&["Escape"]);
    t.wait_for("Request cancelled.", 20);
    let pgrep = || pgrep(&format!("sleep {marker}"));
    wait_gone(&pgrep);
    assert_eq!(pgrep(), "", "the shell command survived Esc");
    assert!(!sb.work.join("later.txt").exists(), "the second call ran");
    t.type_text("what happened?");
    t.keys(&["Enter"]);
    t.wait_for("Fine, both stopped.", 20);
    let last = fake.requests().last().cloned().unwrap();
    let contents = last.body["contents"].as_array().cloned().unwrap();
    let parts = |key: &str| -> Vec<Value> {
        contents
            .iter()
            .flat_map(|c| c["parts"].as_array().cloned().unwrap_or_default())
            .filter_map(|p| p.get(key).cloned())
            .collect()
    };
    let calls = parts("functionCall");
    let answers = parts("functionResponse");
    assert_eq!(calls.len(), 2, "{contents:#?}");
    assert_eq!(answers.len(), 2, "every call answered: {contents:#?}");
    for (call, answer) in calls.iter().zip(&answers) {
        assert_eq!(call["name"], answer["name"]);
        let text = answer["response"].to_string();
        assert!(text.contains("[Operation Cancelled]"), "{text}");
    }
    let last_user = contents.last().unwrap();
    assert_eq!(last_user["parts"][0]["text"], "what happened?");
    t.keys(&["C-d"]);
    t.wait_for("EXIT=0", 10);
}

/// SIGTERM to the UI while a shell command runs: the command's group is
/// ended, the terminal is restored, and the exit code is 143.
#[test]
fn sigterm_ends_the_ui_and_its_commands() {
    let Some(sb) = ui_sandbox() else {
        return;
    };
    let marker = "43.25";
    let (_fake, t) = running_shell(&sb, &format!("sleep {marker}; true"));
    let pgrep = || pgrep(&format!("^sleep {marker}"));
    let ppid = |pid: &str| {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
        let rest = &stat[stat.rfind(')').unwrap() + 2..];
        rest.split_whitespace().nth(1).unwrap().to_string()
    };
    let sleep = pgrep();
    assert!(!sleep.is_empty());
    // sleep <- bash -c (the shell tool) <- gemini-rs
    let gemini = ppid(&ppid(sleep.lines().next().unwrap()));
    assert!(
        Command::new("kill")
            .args(["-TERM", &gemini])
            .status()
            .unwrap()
            .success()
    );
    t.wait_for("EXIT=143", 10);
    assert_eq!(pgrep(), "", "the shell command survived SIGTERM");
    t.wait_for("COOKED", 5);
}
