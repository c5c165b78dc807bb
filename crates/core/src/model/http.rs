//! What every model wire shares: one HTTP client set-up, sending a request
//! and turning an error status into a [`Failure`], the retry loop, and
//! cancellation of an open stream. [`build_client`] is also the one place
//! where any part of core (web fetch, MCP) turns a reqwest builder into a
//! client.

use super::ChunkStream;
use super::error::{Failure, ModelError, error_chain};
use super::limits::{RetryNotice, Transport, error_body};
use super::retry::{RetryConfig, parse_delay};
use futures::StreamExt;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// Builds the HTTP client once, with `connect_timeout`. Fails on a bad
/// proxy URL or a missing TLS crypto provider (the binary installs one at
/// start).
pub(crate) fn http_client(
    proxy: Option<&str>,
    connect_timeout: Duration,
) -> Result<reqwest::Client, ModelError> {
    let mut builder = reqwest::Client::builder()
        .user_agent(concat!("gemini-rs/", env!("CARGO_PKG_VERSION")))
        .connect_timeout(connect_timeout);
    if let Some(proxy) = proxy.filter(|p| !p.trim().is_empty()) {
        let proxy = reqwest::Proxy::all(proxy).map_err(|e| ModelError::Setup {
            message: format!("invalid proxy URL `{proxy}`: {}", error_chain(&e)),
        })?;
        builder = builder.proxy(proxy);
    }
    build_client(builder).map_err(|e| ModelError::Setup {
        message: match e {
            ClientBuildError::NoTlsProvider => "no TLS crypto provider is installed (install \
                 rustls' ring provider before creating the client)"
                .to_string(),
            ClientBuildError::Build(e) => error_chain(&e),
        },
    })
}

/// Why an HTTP client could not be built.
#[derive(Debug, thiserror::Error)]
pub enum ClientBuildError {
    /// reqwest panicked because no rustls crypto provider is installed.
    #[error("no TLS crypto provider is installed for the HTTP client")]
    NoTlsProvider,
    /// reqwest refused the configuration (TLS back end, resolver, ...).
    #[error("could not set up the HTTP client: {}", error_chain(.0))]
    Build(reqwest::Error),
}

/// Builds `builder` into a client. reqwest panics when no rustls crypto
/// provider is installed (the binary installs one at start); that panic
/// becomes [`ClientBuildError::NoTlsProvider`] instead.
pub(crate) fn build_client(
    builder: reqwest::ClientBuilder,
) -> Result<reqwest::Client, ClientBuildError> {
    let builder = match shared_tls() {
        Some(tls) => builder.tls_backend_preconfigured(tls),
        None => builder,
    };
    std::panic::catch_unwind(AssertUnwindSafe(|| builder.build()))
        .map_err(|_| ClientBuildError::NoTlsProvider)?
        .map_err(ClientBuildError::Build)
}

/// The TLS set-up every client of the process shares, as reqwest makes it
/// by default (the installed crypto provider, TLS 1.2 and 1.3, the
/// platform's root certificates, SNI, ALPN `h2` then `http/1.1`), built
/// once: reqwest would read and parse the system's root certificates (about
/// 300 files here) for each client, that is for every session of a process
/// hosting many. `None` (reqwest then builds its own, failing as it does)
/// while no crypto provider is installed or no root certificate loads;
/// only a success is kept.
fn shared_tls() -> Option<rustls::ClientConfig> {
    // Held while building, so sessions starting together load the
    // certificates once between them.
    static TLS: std::sync::Mutex<Option<rustls::ClientConfig>> = std::sync::Mutex::new(None);
    let mut kept = TLS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(tls) = kept.as_ref() {
        return Some(tls.clone());
    }
    let provider = rustls::crypto::CryptoProvider::get_default()?.clone();
    let verifier = rustls_platform_verifier::Verifier::new(provider.clone()).ok()?;
    let mut tls = rustls::ClientConfig::builder_with_provider(provider)
        .with_protocol_versions(rustls::ALL_VERSIONS)
        .ok()?
        .dangerous()
        .with_custom_certificate_verifier(std::sync::Arc::new(verifier))
        .with_no_client_auth();
    tls.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    *kept = Some(tls.clone());
    Some(tls)
}

/// Sends `request`, waiting at most the idle timeout for the answer's
/// head; a non-2xx status becomes a [`Failure`] through
/// `on_status(status, body, retry-after hint)`, with at most 1 MiB of the
/// body read.
pub(crate) async fn send(
    request: reqwest::RequestBuilder,
    url: &str,
    transport: &Transport,
    on_status: impl FnOnce(u16, &str, Option<Duration>) -> Failure,
) -> Result<reqwest::Response, Failure> {
    let response = match tokio::time::timeout(transport.idle_timeout, request.send()).await {
        Err(_) => return Err(transport.stalled("before answering").into()),
        Ok(result) => result.map_err(|e| send_error(url, &e))?,
    };
    let status = response.status();
    if status.is_success() {
        return Ok(response);
    }
    let hint = response
        .headers()
        .get(reqwest::header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(parse_delay);
    let body = error_body(response, transport.idle_timeout).await;
    Err(on_status(status.as_u16(), &body, hint))
}

/// A request that got no answer: a bad request, nothing listening (not
/// retried), a connect timeout (not retried for this machine's servers,
/// whose timeout is short) or another network failure.
fn send_error(url: &str, e: &reqwest::Error) -> ModelError {
    if e.is_builder() {
        return ModelError::Setup {
            message: error_chain(e),
        };
    }
    // reqwest's own top line repeats the URL the error names already.
    let message = match std::error::Error::source(e) {
        Some(inner) if e.is_connect() => error_chain(inner),
        _ => error_chain(e),
    };
    let mut source: Option<&dyn std::error::Error> = Some(e);
    let mut refused = false;
    while let Some(s) = source {
        if let Some(io) = s.downcast_ref::<std::io::Error>() {
            refused |= io.kind() == std::io::ErrorKind::ConnectionRefused;
        }
        source = s.source();
    }
    let local_timeout = e.is_connect() && e.is_timeout() && super::limits::is_loopback(url);
    if refused || local_timeout {
        let message = if local_timeout {
            format!("no answer within the connect timeout ({message})")
        } else {
            message
        };
        ModelError::Unreachable {
            url: url.to_string(),
            message,
        }
    } else {
        ModelError::Connection {
            url: url.to_string(),
            message,
        }
    }
}

/// Runs `attempt` until it succeeds, fails for good, or `cancel` fires;
/// each wait is told to the transport's notifier first.
pub(crate) async fn with_retry<T, F, Fut>(
    retry: &RetryConfig,
    transport: &Transport,
    (model, cancel): (&str, &CancellationToken),
    mut attempt: F,
) -> Result<T, ModelError>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, Failure>>,
{
    let mut number = 0u32;
    loop {
        number += 1;
        if cancel.is_cancelled() {
            return Err(ModelError::Cancelled);
        }
        let tried = std::time::Instant::now();
        let failure = tokio::select! {
            biased;
            _ = cancel.cancelled() => return Err(ModelError::Cancelled),
            result = attempt() => match result {
                Ok(value) => return Ok(value),
                Err(failure) => failure,
            },
        };
        let Some(delay) = retry.next_delay(number, &failure) else {
            return Err(if number > 1 {
                ModelError::RetriesExhausted {
                    attempts: number,
                    last: Box::new(failure.error),
                }
            } else {
                failure.error
            });
        };
        tracing::warn!(
            attempt = number,
            delay_ms = u64::try_from(delay.as_millis()).unwrap_or(u64::MAX),
            "model request failed, retrying: {}",
            failure.error
        );
        if let Some(notify) = &transport.on_retry {
            notify(RetryNotice {
                attempt: number,
                max_attempts: retry.max_attempts,
                delay,
                reason: failure.error.to_string(),
                model: model.to_string(),
                error_type: failure.error.error_type(),
                latency: tried.elapsed(),
            });
        }
        tokio::select! {
            biased;
            _ = cancel.cancelled() => return Err(ModelError::Cancelled),
            _ = tokio::time::sleep(delay) => {}
        }
    }
}

/// Ends `stream` with [`ModelError::Cancelled`] as soon as `cancel` fires.
pub(crate) fn cancellable(stream: ChunkStream, cancel: CancellationToken) -> ChunkStream {
    futures::stream::unfold(Some((stream, cancel)), |state| async move {
        let (mut stream, cancel) = state?;
        tokio::select! {
            biased;
            _ = cancel.cancelled() => Some((Err(ModelError::Cancelled), None)),
            item = stream.next() => item.map(|item| (item, Some((stream, cancel)))),
        }
    })
    .boxed()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shared set-up is reqwest's default one, and clients built on it
    /// work where reqwest's own would (and fail where it would: no root
    /// certificate on the machine).
    #[test]
    fn clients_share_one_tls_set_up_with_reqwests_defaults() {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let Some(tls) = shared_tls() else {
            assert!(reqwest::Client::builder().build().is_err());
            return;
        };
        assert_eq!(tls.alpn_protocols, [b"h2".to_vec(), b"http/1.1".to_vec()]);
        assert!(tls.enable_sni);
        let again = shared_tls().expect("kept once built");
        assert_eq!(again.alpn_protocols, tls.alpn_protocols);
        assert!(build_client(reqwest::Client::builder()).is_ok());
        assert!(http_client(None, Duration::from_secs(2)).is_ok());
    }
}
