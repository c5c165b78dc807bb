//! Today's Gemini CLI (0.61) refuses to fetch from private and local
//! hosts: `localhost`, names under `.localhost`, `.local` and `.internal`,
//! private, loopback and link-local addresses, and names resolving to
//! one. Such URLs are skipped as `[Blocked Host] <url>`; the `0.27`
//! dialect fetches them itself, as 0.27.4 did.

use super::fetch::{private_v4, private_v6};
use reqwest::Url;
use std::net::IpAddr;
use std::time::Duration;

/// How long a host name may take to resolve before it is let through
/// (the fetch itself then fails if it cannot reach it).
const LOOKUP_TIMEOUT: Duration = Duration::from_secs(3);

/// The URLs of a prompt as 0.61 compares them: the host in lower case,
/// a trailing `/` of the path and a default port left out, each once.
pub(crate) fn normalized(urls: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for url in urls {
        let text = match Url::parse(url) {
            Ok(mut parsed) => {
                let path = parsed.path().to_string();
                if path.len() > 1 && path.ends_with('/') {
                    parsed.set_path(&path[..path.len() - 1]);
                }
                parsed.to_string()
            }
            Err(_) => url.clone(),
        };
        if !out.contains(&text) {
            out.push(text);
        }
    }
    out
}

/// Whether 0.61 skips `url` as a private or local host. A name that does
/// not resolve in time is let through, where 0.61 skips it: the fetch
/// then fails on it with its own error (docs/dialects.md).
pub(crate) async fn is_blocked_host(url: &str) -> bool {
    let Ok(parsed) = Url::parse(url) else {
        return true;
    };
    let Some(host) = parsed.host_str() else {
        return true;
    };
    let host = host
        .trim_start_matches('[')
        .trim_end_matches(']')
        .trim_end_matches('.')
        .to_ascii_lowercase();
    if host == "localhost"
        || [".localhost", ".local", ".internal"]
            .iter()
            .any(|s| host.ends_with(s))
    {
        return true;
    }
    if let Ok(ip) = host.parse::<IpAddr>() {
        return private(ip);
    }
    let port = parsed.port_or_known_default().unwrap_or(443);
    match tokio::time::timeout(
        LOOKUP_TIMEOUT,
        tokio::net::lookup_host((host.as_str(), port)),
    )
    .await
    {
        Ok(Ok(addrs)) => addrs.into_iter().any(|a| private(a.ip())),
        _ => false,
    }
}

fn private(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(ip) => private_v4(ip),
        IpAddr::V6(ip) => private_v6(ip),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn local_and_private_hosts_are_blocked() {
        for url in [
            "http://127.0.0.1:9/page",
            "http://localhost/a",
            "http://10.1.2.3/b",
            "http://printer.local/c",
            "http://db.internal/x",
            "http://[::1]/",
            "not a url",
        ] {
            assert!(is_blocked_host(url).await, "{url}");
        }
        assert!(!is_blocked_host("https://8.8.8.8/page").await);
    }

    #[test]
    fn urls_are_compared_as_0_61_does() {
        let urls = [
            "HTTP://Example.COM:80/a/".to_string(),
            "http://example.com/a".to_string(),
        ];
        assert_eq!(normalized(&urls), ["http://example.com/a"]);
    }
}
