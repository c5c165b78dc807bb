//! The HTTP/1.1 of the fake server: read one request, write one reply.

use crate::reply::{Body, Reply};
use crate::request::Request;
use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// How long a [`Reply::hang`] holds its connection at most.
const HANG: Duration = Duration::from_secs(30);

/// Reads the request line, the headers and a `content-length` body.
pub(crate) fn read_request(stream: &TcpStream) -> std::io::Result<Request> {
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let mut words = line.split_whitespace();
    let method = words.next().unwrap_or_default().to_string();
    let path = words.next().unwrap_or_default().to_string();
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 {
            break;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
        }
    }
    let length = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    let raw = String::from_utf8_lossy(&body).into_owned();
    let body = serde_json::from_str(&raw).unwrap_or(Value::Null);
    Ok(Request {
        method,
        path,
        headers,
        body,
        raw,
    })
}

/// Writes `reply` (after its delay) and flushes; `stopped` ends a hang or a
/// delay early when the server is dropped.
pub(crate) fn write_reply(
    out: &mut TcpStream,
    reply: &Reply,
    stopped: &dyn Fn() -> bool,
) -> std::io::Result<()> {
    if let Some(wait) = reply.delay {
        pause(wait, stopped);
    }
    let mut head = format!("HTTP/1.1 {} {}\r\n", reply.status, reason(reply.status));
    for (name, value) in &reply.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    match &reply.body {
        Body::Hang => {
            pause(HANG, stopped);
            return Ok(());
        }
        Body::Bytes { data, sized } => {
            if *sized {
                head.push_str(&format!("content-length: {}\r\n", data.len()));
            }
            head.push_str("connection: close\r\n\r\n");
            out.write_all(head.as_bytes())?;
            out.write_all(data)?;
        }
        Body::Endless { prefix, unit } => {
            head.push_str("connection: close\r\n\r\n");
            out.write_all(head.as_bytes())?;
            out.write_all(prefix)?;
            if unit.is_empty() {
                pause(HANG, stopped);
                return Ok(());
            }
            // Big writes: the client, not this loop, should be the limit.
            let block = unit.repeat((64 * 1024 / unit.len().max(1)).max(1));
            while !stopped() {
                out.write_all(&block)?;
            }
        }
        Body::Numbered { prefix, unit } => {
            head.push_str("connection: close\r\n\r\n");
            out.write_all(head.as_bytes())?;
            out.write_all(prefix)?;
            if unit.is_empty() {
                pause(HANG, stopped);
                return Ok(());
            }
            let mut n = 0u64;
            let mut block = String::new();
            while !stopped() {
                block.clear();
                while block.len() < 64 * 1024 {
                    block.push_str(&unit.replace("{n}", &n.to_string()));
                    n += 1;
                }
                out.write_all(block.as_bytes())?;
            }
        }
        Body::Events {
            events,
            cut_after,
            stall,
        } => {
            let sent = cut_after.unwrap_or(events.len()).min(events.len());
            if cut_after.is_none() {
                let length: usize = events.iter().map(String::len).sum();
                head.push_str(&format!("content-length: {length}\r\n"));
            }
            head.push_str("connection: close\r\n\r\n");
            out.write_all(head.as_bytes())?;
            out.flush()?;
            for event in &events[..sent] {
                out.write_all(event.as_bytes())?;
                out.flush()?;
            }
            if *stall {
                pause(HANG, stopped);
            }
        }
    }
    out.flush()
}

/// Sleeps `wait` in small steps, returning early once `stopped()`.
fn pause(wait: Duration, stopped: &dyn Fn() -> bool) {
    let until = Instant::now() + wait;
    while !stopped() {
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return;
        }
        std::thread::sleep(left.min(Duration::from_millis(50)));
    }
}

/// The reason phrase of the status codes tests use.
fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        201 => "Created",
        204 => "No Content",
        301 => "Moved Permanently",
        302 => "Found",
        307 => "Temporary Redirect",
        308 => "Permanent Redirect",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        408 => "Request Timeout",
        413 => "Payload Too Large",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        529 => "Overloaded",
        _ => "Status",
    }
}
