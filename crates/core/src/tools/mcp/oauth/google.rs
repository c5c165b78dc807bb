//! `authProviderType` `google_credentials` and
//! `service_account_impersonation`: the server gets a Google token from
//! Application Default Credentials (the same ones Vertex AI uses) instead
//! of an OAuth login, as Gemini CLI does.

use crate::config::GeminiPaths;
use crate::model::google_auth::GoogleCredentials;
use crate::tools::mcp::McpServerConfig;
use serde_json::{Value, json};

/// Where service accounts are impersonated.
const IAM_CREDENTIALS: &str = "https://iamcredentials.googleapis.com/v1/projects/-/serviceAccounts";

/// Hosts a Google access token may be sent to.
fn allowed_host(host: &str) -> bool {
    host.ends_with(".googleapis.com") || host == "luci.app" || host.ends_with(".luci.app")
}

/// The `Authorization` value for a server whose `authProviderType` asks
/// for Google credentials; `None` for other servers.
pub async fn authorization(
    config: &McpServerConfig,
    url: &str,
    http: &reqwest::Client,
) -> Option<Result<String, String>> {
    let kind = config.auth_provider.as_deref()?;
    let home = GeminiPaths::from_env().home;
    let creds = |scopes: &[String]| {
        GoogleCredentials::find(|k| std::env::var(k).ok(), &home)
            .map(|c| c.with_scopes(scopes))
            .map_err(|e| e.to_string())
    };
    let result = match kind {
        "google_credentials" => {
            let host = url::Url::parse(url)
                .ok()
                .and_then(|u| u.host_str().map(str::to_string))
                .unwrap_or_default();
            if !allowed_host(&host) {
                Err(format!(
                    "Host \"{host}\" is not an allowed host for the Google credentials provider (*.googleapis.com, *.luci.app)."
                ))
            } else if config.oauth.scopes.is_empty() {
                Err("the Google credentials provider needs oauth.scopes".to_string())
            } else {
                match creds(&config.oauth.scopes) {
                    Ok(c) => c.token(http).await.map_err(|e| e.to_string()),
                    Err(e) => Err(e),
                }
            }
        }
        "service_account_impersonation" => impersonate(config, http, creds(&[])).await,
        _ => return None,
    };
    Some(result.map(|token| format!("Bearer {token}")))
}

/// An ID token for `targetServiceAccount` with `targetAudience`, through
/// the IAM credentials API.
async fn impersonate(
    config: &McpServerConfig,
    http: &reqwest::Client,
    creds: Result<GoogleCredentials, String>,
) -> Result<String, String> {
    let audience = config
        .target_audience
        .as_deref()
        .ok_or("service account impersonation needs targetAudience")?;
    let account = config
        .target_service_account
        .as_deref()
        .ok_or("service account impersonation needs targetServiceAccount")?;
    let token = creds?.token(http).await.map_err(|e| e.to_string())?;
    let url = format!("{IAM_CREDENTIALS}/{account}:generateIdToken");
    let response = http
        .post(&url)
        .bearer_auth(token)
        .json(&json!({"audience": audience, "includeEmail": true}))
        .send()
        .await
        .map_err(|e| format!("impersonating {account}: {e}"))?;
    let status = response.status();
    let body: Value = response.json().await.unwrap_or(Value::Null);
    if !status.is_success() {
        return Err(format!("impersonating {account}: HTTP {status}: {body}"));
    }
    body.get("token")
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| format!("impersonating {account}: no token in the answer"))
}

#[cfg(test)]
mod tests {
    use super::{allowed_host, authorization};
    use crate::tools::mcp::McpServerConfig;
    use serde_json::json;

    #[tokio::test]
    async fn misconfigured_providers_say_why() {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = reqwest::Client::new();
        let local = McpServerConfig::from_value(
            "g",
            &json!({"httpUrl": "http://127.0.0.1:1/mcp", "authProviderType": "google_credentials",
                "oauth": {"scopes": ["s"]}}),
        );
        let err = authorization(&local, "http://127.0.0.1:1/mcp", &http)
            .await
            .unwrap()
            .unwrap_err();
        assert!(err.contains("not an allowed host"), "{err}");
        let no_scopes = McpServerConfig::from_value(
            "g",
            &json!({"httpUrl": "https://x.googleapis.com/mcp", "authProviderType": "google_credentials"}),
        );
        let err = authorization(&no_scopes, "https://x.googleapis.com/mcp", &http)
            .await
            .unwrap()
            .unwrap_err();
        assert!(err.contains("oauth.scopes"), "{err}");
        let sa = McpServerConfig::from_value(
            "g",
            &json!({"httpUrl": "https://x.run.app/mcp", "authProviderType": "service_account_impersonation"}),
        );
        let err = authorization(&sa, "https://x.run.app/mcp", &http)
            .await
            .unwrap()
            .unwrap_err();
        assert!(err.contains("targetAudience"), "{err}");
        let plain = McpServerConfig::from_value("p", &json!({"httpUrl": "https://x/mcp"}));
        assert!(
            authorization(&plain, "https://x/mcp", &http)
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
