//! The direct fetch behind `web_fetch`'s fallback: one HTTP GET with a
//! timeout, a redirect limit, a size cap and retries of transient failures,
//! then HTML turned into text.

use crate::model::ModelError;
use crate::model::http::{ClientBuildError, build_client};
use futures::StreamExt;
use reqwest::StatusCode;
use reqwest::Url;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// Why the fallback fetch of a URL failed. The Display text is what the
/// model reads after "Error during fallback fetch for {url}: ".
#[derive(Debug, thiserror::Error)]
pub(crate) enum FetchError {
    /// The HTTP client could not be built.
    #[error(transparent)]
    Client(#[from] ClientBuildError),
    /// The prompt's cancellation fired.
    #[error("The request was cancelled.")]
    Cancelled,
    /// The server redirected more often than allowed.
    #[error("Too many redirects (more than {max}).")]
    TooManyRedirects {
        /// The redirect limit.
        max: usize,
    },
    /// Sending the request or reading the body failed.
    #[error("{}", error_chain(.0))]
    Request(reqwest::Error),
    /// The server answered with an error status.
    #[error("{}", status_text(*.0))]
    Status(StatusCode),
    /// The body is larger than allowed.
    #[error("Response body exceeds the size limit of {max_bytes} bytes.")]
    TooLarge {
        /// The size cap in bytes.
        max_bytes: usize,
    },
    /// One attempt took longer than the timeout.
    #[error("Request timed out after {}ms", .0.as_millis())]
    TimedOut(Duration),
    /// The body is binary and not text.
    #[error("The response is binary content ({content_type}) and cannot be read as text.")]
    Binary {
        /// The response's `Content-Type`.
        content_type: String,
    },
    /// No model client is there to summarize the page.
    #[error("no model client is available to process web content.")]
    NoModel,
    /// The model call summarizing the page failed.
    #[error(transparent)]
    Model(#[from] ModelError),
}

/// `Request failed with status code 404 Not Found` (no trailing space when
/// the code has no canonical reason).
fn status_text(status: StatusCode) -> String {
    format!(
        "Request failed with status code {} {}",
        status.as_u16(),
        status.canonical_reason().unwrap_or_default()
    )
    .trim_end()
    .to_string()
}

/// Limits of one direct fetch.
#[derive(Debug, Clone)]
pub(crate) struct FetchLimits {
    /// Deadline of one attempt, headers and body included.
    pub timeout: Duration,
    /// Redirects followed before giving up.
    pub max_redirects: usize,
    /// Largest body accepted, in bytes.
    pub max_bytes: usize,
    /// Extra attempts after a transient failure (429, 5xx, connect error).
    pub retries: u32,
    /// Delay before the first retry; doubled for each further one.
    pub retry_delay: Duration,
    /// Host names resolved to fixed addresses instead of through DNS (tests
    /// reach a local server under a public-looking name with this).
    pub resolve: Vec<(String, SocketAddr)>,
}

impl Default for FetchLimits {
    fn default() -> Self {
        FetchLimits {
            timeout: Duration::from_secs(10),
            max_redirects: 5,
            max_bytes: 10 * 1024 * 1024,
            retries: 2,
            retry_delay: Duration::from_secs(1),
            resolve: Vec::new(),
        }
    }
}

/// A fetched page: the body and its `Content-Type` (empty when absent).
#[derive(Debug)]
pub(crate) struct Fetched {
    /// The raw body.
    pub body: Vec<u8>,
    /// The `Content-Type` header, or `""`.
    pub content_type: String,
}

/// Why an attempt failed, and whether another attempt may succeed.
#[derive(Debug)]
struct Failure {
    error: FetchError,
    transient: bool,
}

impl Failure {
    fn fatal(error: FetchError) -> Self {
        Failure {
            error,
            transient: false,
        }
    }
}

/// `github.com/<o>/<r>/blob/<ref>/<path>` as its raw.githubusercontent.com
/// form (Gemini CLI's plain string replacement); other URLs unchanged.
pub(crate) fn github_raw(url: &str) -> String {
    if url.contains("github.com") && url.contains("/blob/") {
        url.replacen("github.com", "raw.githubusercontent.com", 1)
            .replacen("/blob/", "/", 1)
    } else {
        url.to_string()
    }
}

pub(crate) fn private_v4(ip: Ipv4Addr) -> bool {
    ip.is_loopback() || ip.is_private() || ip.is_link_local() || ip.is_unspecified()
}

pub(crate) fn private_v6(ip: Ipv6Addr) -> bool {
    if let Some(v4) = ip.to_ipv4_mapped() {
        return private_v4(v4);
    }
    let first = ip.segments()[0];
    ip.is_loopback()
        || ip.is_unspecified()
        || (first & 0xfe00) == 0xfc00 // unique local fc00::/7
        || (first & 0xffc0) == 0xfe80 // link-local fe80::/10
}

/// True when the URL's host is `localhost` (or `*.localhost`), or a
/// loopback, private, link-local or unspecified IP address.
pub(crate) fn is_private_url(url: &str) -> bool {
    let Ok(parsed) = Url::parse(url) else {
        return false;
    };
    let Some(host) = parsed.host_str() else {
        return false;
    };
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    match bare.parse::<IpAddr>() {
        Ok(IpAddr::V4(ip)) => private_v4(ip),
        Ok(IpAddr::V6(ip)) => private_v6(ip),
        Err(_) => {
            let d = bare.trim_end_matches('.').to_ascii_lowercase();
            d == "localhost" || d.ends_with(".localhost")
        }
    }
}

/// The text of a fetched page: HTML (or a body without content type)
/// rendered as plain text, anything else decoded as UTF-8; at most
/// `max_chars` characters.
pub(crate) fn page_text(fetched: &Fetched, max_chars: usize) -> Result<String, FetchError> {
    let ct = fetched.content_type.to_ascii_lowercase();
    let textual = ct.is_empty()
        || ct.starts_with("text/")
        || ct.contains("json")
        || ct.contains("xml")
        || ct.contains("javascript");
    let head = &fetched.body[..fetched.body.len().min(8192)];
    if !textual && head.contains(&0) {
        return Err(FetchError::Binary {
            content_type: fetched.content_type.clone(),
        });
    }
    let text = if ct.contains("text/html") || ct.is_empty() {
        html_to_text(&fetched.body)
    } else {
        String::from_utf8_lossy(&fetched.body).into_owned()
    };
    Ok(match text.char_indices().nth(max_chars) {
        Some((cut, _)) => text[..cut].to_string(),
        None => text,
    })
}

/// HTML as readable text: headings and list items marked as in Markdown,
/// link text without its target, no wrapping.
fn html_to_text(html: &[u8]) -> String {
    html2text::config::rich()
        .allow_width_overflow()
        .string_from_read(html, 100_000)
        .unwrap_or_else(|_| String::from_utf8_lossy(html).into_owned())
}

/// A client for one fetch. Building fails (rather than panics) when no TLS
/// crypto provider is installed.
fn client(limits: &FetchLimits, private: bool) -> Result<reqwest::Client, ClientBuildError> {
    let mut builder = reqwest::Client::builder()
        .user_agent(concat!("gemini-rs/", env!("CARGO_PKG_VERSION")))
        .redirect(reqwest::redirect::Policy::limited(limits.max_redirects))
        .connect_timeout(limits.timeout);
    if private || !limits.resolve.is_empty() {
        // Local and private addresses are never reached through a proxy.
        builder = builder.no_proxy();
    }
    for (host, addr) in &limits.resolve {
        builder = builder.resolve(host, *addr);
    }
    build_client(builder)
}

/// An error and its sources, `: `-joined.
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let text = s.to_string();
        if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        source = s.source();
    }
    out
}

fn size_error(limits: &FetchLimits) -> Failure {
    Failure::fatal(FetchError::TooLarge {
        max_bytes: limits.max_bytes,
    })
}

/// One GET: status check, then the body streamed up to the size cap.
async fn attempt(
    client: &reqwest::Client,
    url: &str,
    limits: &FetchLimits,
) -> Result<Fetched, Failure> {
    let response = client.get(url).send().await.map_err(|e| {
        if e.is_redirect() {
            Failure::fatal(FetchError::TooManyRedirects {
                max: limits.max_redirects,
            })
        } else {
            Failure {
                transient: e.is_connect(),
                error: FetchError::Request(e),
            }
        }
    })?;
    let status = response.status();
    if !status.is_success() {
        return Err(Failure {
            error: FetchError::Status(status),
            transient: status == StatusCode::TOO_MANY_REQUESTS || status.is_server_error(),
        });
    }
    if response
        .content_length()
        .is_some_and(|n| n > limits.max_bytes as u64)
    {
        return Err(size_error(limits));
    }
    let content_type = response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    let mut body = Vec::new();
    let mut stream = response.bytes_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| Failure::fatal(FetchError::Request(e)))?;
        if body.len() + chunk.len() > limits.max_bytes {
            return Err(size_error(limits));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(Fetched { body, content_type })
}

/// Fetches `url` with the limits, retrying transient failures. The error
/// is the message of the last failure.
pub(crate) async fn fetch(
    url: &str,
    limits: &FetchLimits,
    cancel: &CancellationToken,
) -> Result<Fetched, FetchError> {
    let client = client(limits, is_private_url(url))?;
    let mut delay = limits.retry_delay;
    let mut tries_left = limits.retries;
    loop {
        let outcome = tokio::select! {
            _ = cancel.cancelled() => return Err(FetchError::Cancelled),
            r = tokio::time::timeout(limits.timeout, attempt(&client, url, limits)) => r,
        };
        let failure = match outcome {
            Ok(Ok(fetched)) => return Ok(fetched),
            Ok(Err(failure)) => failure,
            Err(_) => Failure::fatal(FetchError::TimedOut(limits.timeout)),
        };
        if !failure.transient || tries_left == 0 {
            return Err(failure.error);
        }
        tries_left -= 1;
        tokio::select! {
            _ = cancel.cancelled() => return Err(FetchError::Cancelled),
            _ = tokio::time::sleep(delay) => {}
        }
        delay *= 2;
    }
}
