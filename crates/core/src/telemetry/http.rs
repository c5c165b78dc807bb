//! The OTLP exporters' HTTP client: our reqwest client (one HTTP/TLS stack),
//! its requests run on the session's tokio runtime while the SDK's export
//! thread waits for them.

use opentelemetry_http::{Bytes, HttpClient, HttpError, Request, Response};
use std::time::Duration;

/// How long one export may take before it is given up.
const EXPORT_TIMEOUT: Duration = Duration::from_secs(10);

/// reqwest on the runtime that started telemetry.
#[derive(Debug, Clone)]
pub(super) struct Client {
    http: reqwest::Client,
    runtime: Option<tokio::runtime::Handle>,
}

impl Client {
    pub(super) fn new() -> Result<Client, crate::model::http::ClientBuildError> {
        let builder = reqwest::Client::builder()
            .user_agent(concat!("gemini-rs/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(Duration::from_secs(5))
            .timeout(EXPORT_TIMEOUT);
        Ok(Client {
            http: crate::model::http::build_client(builder)?,
            runtime: tokio::runtime::Handle::try_current().ok(),
        })
    }
}

#[async_trait::async_trait]
impl HttpClient for Client {
    async fn send_bytes(&self, request: Request<Bytes>) -> Result<Response<Bytes>, HttpError> {
        let request = reqwest::Request::try_from(request)?;
        let http = self.http.clone();
        let send = async move {
            let response = http.execute(request).await?;
            let status = response.status();
            let body = response.bytes().await?;
            Ok::<_, reqwest::Error>((status, body))
        };
        // The SDK's export thread has no reactor: the request runs on ours.
        let (status, body) = match &self.runtime {
            Some(runtime) => runtime.spawn(send).await??,
            None => send.await?,
        };
        Ok(Response::builder().status(status).body(body)?)
    }
}
