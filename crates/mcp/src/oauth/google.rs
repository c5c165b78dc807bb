//! `authProviderType` `google_credentials` and
//! `service_account_impersonation`: the server gets a Google token from
//! Application Default Credentials (the same ones Vertex AI uses) instead
//! of an OAuth login, as Gemini CLI does.

use crate::McpServerConfig;
use crate::host::{BoxError, GoogleCredentials};
use serde_json::{Value, json};

/// Where service accounts are impersonated.
const IAM_CREDENTIALS: &str = "https://iamcredentials.googleapis.com/v1/projects/-/serviceAccounts";

/// Hosts a Google access token may be sent to.
fn allowed_host(host: &str) -> bool {
    host.ends_with(".googleapis.com") || host == "luci.app" || host.ends_with(".luci.app")
}

/// Why no Google token could be had for a server.
#[derive(Debug, thiserror::Error)]
pub enum GoogleAuthError {
    /// The server's host may not receive a Google token.
    #[error(
        "Host \"{host}\" is not an allowed host for the Google credentials provider (*.googleapis.com, *.luci.app)."
    )]
    HostNotAllowed {
        /// The server URL's host.
        host: String,
    },
    /// `google_credentials` without `oauth.scopes`.
    #[error("the Google credentials provider needs oauth.scopes")]
    NoScopes,
    /// Impersonation without `targetAudience`.
    #[error("service account impersonation needs targetAudience")]
    NoAudience,
    /// Impersonation without `targetServiceAccount`.
    #[error("service account impersonation needs targetServiceAccount")]
    NoServiceAccount,
    /// Finding the credentials or getting their token failed.
    #[error(transparent)]
    Credentials(BoxError),
    /// The IAM credentials API could not be reached.
    #[error("impersonating {account}: {source}")]
    Impersonate {
        /// The service account.
        account: String,
        /// The HTTP failure.
        source: reqwest::Error,
    },
    /// The IAM credentials API refused.
    #[error("impersonating {account}: HTTP {status}: {body}")]
    ImpersonateStatus {
        /// The service account.
        account: String,
        /// The answer's status.
        status: reqwest::StatusCode,
        /// The answer's body.
        body: Value,
    },
    /// The IAM credentials API answered without a token.
    #[error("impersonating {account}: no token in the answer")]
    NoToken {
        /// The service account.
        account: String,
    },
}

/// The `Authorization` value for a server whose `authProviderType` asks
/// for Google credentials; `None` for other servers.
pub async fn authorization(
    config: &McpServerConfig,
    url: &str,
    http: &reqwest::Client,
    google: &dyn GoogleCredentials,
) -> Option<Result<String, GoogleAuthError>> {
    let kind = config.auth_provider.as_deref()?;
    let result = match kind {
        "google_credentials" => {
            let host = url::Url::parse(url)
                .ok()
                .and_then(|u| u.host_str().map(str::to_string))
                .unwrap_or_default();
            if !allowed_host(&host) {
                Err(GoogleAuthError::HostNotAllowed { host })
            } else if config.oauth.scopes.is_empty() {
                Err(GoogleAuthError::NoScopes)
            } else {
                google
                    .access_token(&config.oauth.scopes, http)
                    .await
                    .map_err(GoogleAuthError::Credentials)
            }
        }
        "service_account_impersonation" => impersonate(config, http, google).await,
        _ => return None,
    };
    Some(result.map(|token| format!("Bearer {token}")))
}

/// An ID token for `targetServiceAccount` with `targetAudience`, through
/// the IAM credentials API.
async fn impersonate(
    config: &McpServerConfig,
    http: &reqwest::Client,
    google: &dyn GoogleCredentials,
) -> Result<String, GoogleAuthError> {
    let audience = config
        .target_audience
        .as_deref()
        .ok_or(GoogleAuthError::NoAudience)?;
    let account = config
        .target_service_account
        .as_deref()
        .ok_or(GoogleAuthError::NoServiceAccount)?;
    let token = google
        .access_token(&[], http)
        .await
        .map_err(GoogleAuthError::Credentials)?;
    let url = format!("{IAM_CREDENTIALS}/{account}:generateIdToken");
    let response = http
        .post(&url)
        .bearer_auth(token)
        .json(&json!({"audience": audience, "includeEmail": true}))
        .send()
        .await
        .map_err(|source| GoogleAuthError::Impersonate {
            account: account.to_string(),
            source,
        })?;
    let status = response.status();
    let body: Value = response.json().await.unwrap_or(Value::Null);
    if !status.is_success() {
        return Err(GoogleAuthError::ImpersonateStatus {
            account: account.to_string(),
            status,
            body,
        });
    }
    serde_json::from_value::<IdTokenAnswer>(body)
        .map(|answer| answer.token)
        .map_err(|_| GoogleAuthError::NoToken {
            account: account.to_string(),
        })
}

/// The IAM credentials API's `generateIdToken` answer.
#[derive(serde::Deserialize)]
struct IdTokenAnswer {
    token: String,
}

#[cfg(test)]
mod tests {
    use super::{allowed_host, authorization};
    use crate::McpServerConfig;
    use crate::host::{BoxError, GoogleCredentials};
    use serde_json::json;

    /// Credentials that are never asked: every case fails before.
    struct NoCredentials;

    #[async_trait::async_trait]
    impl GoogleCredentials for NoCredentials {
        async fn access_token(
            &self,
            _scopes: &[String],
            _http: &reqwest::Client,
        ) -> Result<String, BoxError> {
            Err("no credentials in this test".into())
        }
    }

    #[tokio::test]
    async fn misconfigured_providers_say_why() {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = reqwest::Client::new();
        let local = McpServerConfig::from_value(
            "g",
            &json!({"httpUrl": "http://127.0.0.1:1/mcp", "authProviderType": "google_credentials",
                "oauth": {"scopes": ["s"]}}),
        );
        let err = authorization(&local, "http://127.0.0.1:1/mcp", &http, &NoCredentials)
            .await
            .unwrap()
            .unwrap_err()
            .to_string();
        assert!(err.contains("not an allowed host"), "{err}");
        let no_scopes = McpServerConfig::from_value(
            "g",
            &json!({"httpUrl": "https://x.googleapis.com/mcp", "authProviderType": "google_credentials"}),
        );
        let err = authorization(
            &no_scopes,
            "https://x.googleapis.com/mcp",
            &http,
            &NoCredentials,
        )
        .await
        .unwrap()
        .unwrap_err()
        .to_string();
        assert!(err.contains("oauth.scopes"), "{err}");
        let sa = McpServerConfig::from_value(
            "g",
            &json!({"httpUrl": "https://x.run.app/mcp", "authProviderType": "service_account_impersonation"}),
        );
        let err = authorization(&sa, "https://x.run.app/mcp", &http, &NoCredentials)
            .await
            .unwrap()
            .unwrap_err()
            .to_string();
        assert!(err.contains("targetAudience"), "{err}");
        let plain = McpServerConfig::from_value("p", &json!({"httpUrl": "https://x/mcp"}));
        assert!(
            authorization(&plain, "https://x/mcp", &http, &NoCredentials)
                .await
                .is_none()
        );
    }

    #[test]
    fn tokens_go_only_to_google_hosts() {
        assert!(allowed_host("mcp.googleapis.com"));
        assert!(allowed_host("x.luci.app"));
        assert!(!allowed_host("googleapis.com.evil.example"));
        assert!(!allowed_host("127.0.0.1"));
    }
}
