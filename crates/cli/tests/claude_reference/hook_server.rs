//! The http hooks' server of the reference sessions, as record.py runs it:
//! on 127.0.0.1, `POST /hook/<mode>` runs the project's `.claude/hook.py
//! <mode>` with the request's body on stdin and answers with its stdout.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};

/// A running hook server; it stops with the test process.
pub struct HookServer {
    /// `http://127.0.0.1:<port>`.
    pub url: String,
    requests: Arc<Seen>,
}

/// Each request's path and `content-type`.
type Seen = Mutex<Vec<(String, Option<String>)>>;

impl HookServer {
    /// Serves the hooks of the project at `project`.
    pub fn start(project: &Path) -> HookServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind the hook server");
        let url = format!("http://{}", listener.local_addr().expect("its address"));
        let requests = Arc::new(Mutex::new(Vec::new()));
        let (seen, project) = (requests.clone(), project.to_path_buf());
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (seen, project) = (seen.clone(), project.clone());
                std::thread::spawn(move || serve(stream, &project, &seen));
            }
        });
        HookServer { url, requests }
    }

    /// Each request's path and `content-type`, in order (record.py's
    /// `http_requests`).
    pub fn requests(&self) -> Vec<(String, Option<String>)> {
        self.requests.lock().map(|r| r.clone()).unwrap_or_default()
    }
}

fn serve(stream: TcpStream, project: &PathBuf, seen: &Seen) {
    let mut reader = BufReader::new(&stream);
    let mut line = String::new();
    if reader.read_line(&mut line).is_err() {
        return;
    }
    let path = line.split_whitespace().nth(1).unwrap_or("").to_string();
    let (mut length, mut content_type) = (0usize, None);
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).is_err() || header.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            match name.trim().to_ascii_lowercase().as_str() {
                "content-length" => length = value.trim().parse().unwrap_or(0),
                "content-type" => content_type = Some(value.trim().to_string()),
                _ => {}
            }
        }
    }
    let mut body = vec![0; length];
    if reader.read_exact(&mut body).is_err() {
        return;
    }
    if let Ok(mut s) = seen.lock() {
        s.push((path.clone(), content_type));
    }
    let mode = path.strip_prefix("/hook/").unwrap_or("log");
    let answer = Command::new("python3")
        .arg(project.join(".claude/hook.py"))
        .arg(mode)
        .current_dir(project)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .and_then(|mut child| {
            if let Some(mut stdin) = child.stdin.take() {
                stdin.write_all(&body)?;
            }
            child.wait_with_output()
        });
    let (status, out) = match answer {
        Ok(o) if o.status.success() => ("200 OK", o.stdout),
        Ok(o) => ("500 Internal Server Error", o.stdout),
        Err(e) => ("500 Internal Server Error", e.to_string().into_bytes()),
    };
    let head = format!(
        "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        out.len()
    );
    let mut stream = &stream;
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(&out);
}
