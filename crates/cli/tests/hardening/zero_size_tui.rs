//! The terminal UI on a pty of size 0x0 (opened without a window size, as
//! `script` and some harnesses do) uses 80x24, draws, and ends with its
//! running command on SIGTERM, SIGHUP or a closed pty within 3 s, as at
//! any size (issue 41, item 1).

use crate::e2e::{call, lines, text};
use crate::support::Sandbox;
use gemini_rs_test_support::FakeServer;
use serde_json::json;
use std::io::{Read, Write};
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::{Child, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// gemini-rs on the slave side of a new pty with no window size; the
/// master side, and everything read from it.
struct ZeroPty {
    child: Child,
    /// The only handle on the master side (closing it closes the pty).
    master: Arc<Mutex<Option<std::fs::File>>>,
    seen: Arc<Mutex<Vec<u8>>>,
}

impl ZeroPty {
    fn start(sb: &Sandbox, base_url: &str, args: &[&str]) -> ZeroPty {
        let (mut master, mut slave) = (0, 0);
        // SAFETY: out-pointers to two ints; no name, termios or size (0x0).
        let r = unsafe {
            libc::openpty(
                &mut master,
                &mut slave,
                std::ptr::null_mut(),
                std::ptr::null(),
                std::ptr::null(),
            )
        };
        assert_eq!(r, 0, "openpty");
        // SAFETY: a flag on the fd just opened: gemini-rs must not inherit
        // the master side, or closing ours would not close the pty.
        unsafe { libc::fcntl(master, libc::F_SETFD, libc::FD_CLOEXEC) };
        // SAFETY: both fds were just opened and are owned here.
        let (master, slave) =
            unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
        let mut cmd = sb.command(
            args,
            &[
                ("GOOGLE_GEMINI_BASE_URL", base_url),
                ("TERM", "xterm-256color"),
            ],
        );
        cmd.stdin(Stdio::from(slave.try_clone().unwrap()))
            .stdout(Stdio::from(slave.try_clone().unwrap()))
            .stderr(Stdio::from(slave));
        // SAFETY: async-signal-safe calls only: a new session whose
        // controlling terminal is the pty on stdin.
        unsafe {
            cmd.pre_exec(|| {
                if libc::setsid() == -1 || libc::ioctl(0, libc::TIOCSCTTY, 0) == -1 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = cmd.spawn().unwrap();
        let raw = std::os::fd::AsRawFd::as_raw_fd(&master);
        let master = Arc::new(Mutex::new(Some(std::fs::File::from(master))));
        let seen = Arc::new(Mutex::new(Vec::new()));
        let (shared, log) = (master.clone(), seen.clone());
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            loop {
                let mut guard = shared.lock().unwrap();
                let Some(file) = guard.as_mut() else {
                    return;
                };
                let mut poll = libc::pollfd {
                    fd: raw,
                    events: libc::POLLIN,
                    revents: 0,
                };
                // SAFETY: one pollfd of a file held open by `guard`.
                let ready = unsafe { libc::poll(&mut poll, 1, 0) };
                if ready <= 0 {
                    drop(guard);
                    std::thread::sleep(Duration::from_millis(10));
                    continue;
                }
                let n = match file.read(&mut buf) {
                    Ok(0) | Err(_) => return,
                    Ok(n) => n,
                };
                // Answer cursor-position queries as a terminal would.
                if buf[..n].windows(4).any(|w| w == b"\x1b[6n") {
                    let _ = file.write_all(b"\x1b[1;1R");
                }
                log.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        });
        ZeroPty {
            child,
            master,
            seen,
        }
    }

    fn screen(&self) -> String {
        String::from_utf8_lossy(&self.seen.lock().unwrap()).into_owned()
    }

    fn wait_for(&self, needle: &str, secs: u64) {
        let deadline = Instant::now() + Duration::from_secs(secs);
        while !self.screen().contains(needle) {
            assert!(
                Instant::now() < deadline,
                "no {needle:?} in {:?}",
                self.screen()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn type_text(&mut self, text: &str) {
        let mut master = self.master.lock().unwrap();
        master.as_mut().unwrap().write_all(text.as_bytes()).unwrap();
    }

    /// Closes the pty (the terminal window goes away).
    fn close(&mut self) {
        *self.master.lock().unwrap() = None;
    }

    /// Waits up to 5 s for the exit; how long it took and the exit code.
    fn ended(&mut self, from: Instant) -> (Duration, Option<i32>) {
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return (from.elapsed(), status.code());
            }
            if from.elapsed() > Duration::from_secs(5) {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!("gemini-rs still runs 5 s later: {:?}", self.screen());
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        let state = stat[stat.rfind(')').map_or(0, |i| i + 2)..].chars().next();
        state.is_some_and(|s| s != 'Z' && s != 'X')
    })
}

/// The UI on a 0x0 pty, running a command (which ignores SIGTERM); the
/// command's pid.
fn running_a_command(sb: &Sandbox, marker: &str) -> (FakeServer, ZeroPty, u32) {
    sb.settings(&json!({"model": {"name": "gemini-2.5-flash"},
        "security": {"auth": {"selectedType": "gemini-api-key"}}}));
    let command = format!("echo $$ > cmd.pid; trap '' TERM; sleep {marker}; true");
    let fake = FakeServer::replaying(&lines(&[
        call("run_shell_command", json!({"command": command})),
        text("unused"),
    ]));
    let mut ui = ZeroPty::start(sb, &fake.base_url, &["--approval-mode=yolo"]);
    ui.wait_for("YOLO", 30);
    ui.type_text("run it");
    std::thread::sleep(Duration::from_millis(300));
    ui.type_text("\r");
    let pid_file = sb.work.join("cmd.pid");
    let deadline = Instant::now() + Duration::from_secs(20);
    let pid = loop {
        if let Some(pid) = std::fs::read_to_string(&pid_file)
            .ok()
            .and_then(|s| s.trim().parse::<u32>().ok())
        {
            break pid;
        }
        assert!(
            Instant::now() < deadline,
            "the command did not start: {:?}",
            ui.screen()
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    (fake, ui, pid)
}

#[test]
fn a_zero_size_pty_draws_and_ends_on_term_hup_and_close() {
    for (how, code, marker) in [
        ("TERM", 143, "65.25"),
        ("HUP", 129, "65.5"),
        ("close", 129, "65.75"),
    ] {
        let sb = Sandbox::new();
        let (_fake, mut ui, command) = running_a_command(&sb, marker);
        let sent = Instant::now();
        let pid = ui.child.id() as i32;
        match how {
            // SAFETY: a plain syscall on our own child.
            "TERM" => assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0),
            // SAFETY: as above.
            "HUP" => assert_eq!(unsafe { libc::kill(pid, libc::SIGHUP) }, 0),
            _ => ui.close(),
        }
        let (took, exit) = ui.ended(sent);
        assert!(took < Duration::from_secs(3), "{how}: {took:?}");
        assert_eq!(exit, Some(code), "{how}");
        let deadline = Instant::now() + Duration::from_secs(1);
        while alive(command) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(!alive(command), "{how} left the command {command}");
    }
}
