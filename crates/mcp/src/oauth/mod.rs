//! OAuth 2.1 for remote MCP servers, on rmcp's authorization support:
//! discovery from the server's 401 challenge (protected-resource and
//! authorization-server metadata, with the 2025-03-26 fallbacks), dynamic
//! registration or the settings' `oauth.clientId`/`clientSecret` (or a
//! client ID metadata document), PKCE, scopes from the challenge or the
//! metadata, the browser and a loopback callback for the user's consent,
//! and tokens kept in Gemini CLI's `~/.gemini/mcp-oauth-tokens.json`, sent
//! (and refreshed before they expire) on every request.

pub mod callback;
pub mod google;
pub mod recorder;
pub mod store;

pub use recorder::{Challenge, ChallengeSlot};
pub use store::{StoredToken, TokenEntry, TokenStore};

use super::config::OAuthConfig;
use crate::host::Host;
use rmcp::transport::auth::{
    AuthClient, AuthError, AuthorizationManager, AuthorizationMetadata, AuthorizationRequest,
    AuthorizationSession, OAuthClientConfig,
};
use std::time::Duration;

/// The client name sent when registering.
const CLIENT_NAME: &str = "gemini-rs";

/// The endpoints the settings give, when both are.
fn settings_metadata(oauth: &OAuthConfig) -> Option<AuthorizationMetadata> {
    let mut m = AuthorizationMetadata::default();
    m.authorization_endpoint = oauth.authorization_url.clone()?;
    m.token_endpoint = oauth.token_url.clone()?;
    m.registration_endpoint = oauth.registration_url.clone();
    Some(m)
}

/// Why a login did not happen.
#[derive(Debug, thiserror::Error)]
pub enum LoginError {
    /// No browser could be opened: the user must run `mcp auth`.
    #[error(
        "needs authentication, and no browser could be opened ($BROWSER is not set and there is no desktop); run `gemini-rs mcp auth <server>`"
    )]
    NeedsBrowser,
    /// rmcp's authorization flow failed (discovery, registration, token).
    #[error("authentication failed: {}", auth_text(.0))]
    Auth(AuthError),
    /// The browser's redirect did not arrive or said no.
    #[error("authentication failed: {0}")]
    Callback(#[from] callback::CallbackError),
    /// The redirect carried a `state` this login did not send.
    #[error(
        "authentication failed: the browser came back with a state this login did not send (a stale or forged callback); nothing was stored, try again"
    )]
    StateMismatch,
}

/// Why the stored tokens of a server could not be used or forgotten.
#[derive(Debug, thiserror::Error)]
pub enum TokenError {
    /// rmcp could not set up the authorization manager.
    #[error(transparent)]
    Auth(#[from] AuthError),
}

/// How a login reaches the user.
pub struct Prompt<'a> {
    /// Called with the authorization URL when it must be opened by hand
    /// (no browser); `None` gives up instead ([`LoginError::NeedsBrowser`]).
    pub show_url: Option<&'a (dyn Fn(&str) + Sync)>,
    /// How long the user has.
    pub wait: Duration,
}

fn auth_text(e: &AuthError) -> String {
    match e {
        AuthError::AuthorizationFailed(m) if m.contains("state") || m.contains("CSRF") => {
            format!("the callback's state does not match this login ({m})")
        }
        other => other.to_string(),
    }
}

fn token_store(host: &Host, server: &str, url: &str) -> TokenStore {
    TokenStore::new(&host.gemini_dir, server, url)
}

/// Runs the authorization-code flow for `server` at `url`, seeded by the
/// server's `challenge` when there is one; the tokens land in the token
/// file.
pub async fn login(
    host: &Host,
    server: &str,
    url: &str,
    oauth: &OAuthConfig,
    challenge: Option<&str>,
    prompt: &Prompt<'_>,
) -> Result<(), LoginError> {
    let failed = LoginError::Auth;
    let mut manager = AuthorizationManager::new_allowing_private_addresses(url)
        .await
        .map_err(failed)?;
    let store = token_store(host, server, url);
    store.set_client_secret(oauth.client_secret.clone());
    manager.set_credential_store(store.clone());
    let metadata = match settings_metadata(oauth) {
        Some(m) => m,
        None => match manager.resolve_metadata_from_challenge(challenge).await {
            Ok(r) => r.metadata,
            Err(e @ AuthError::AuthorizationServerMismatch { .. }) => {
                legacy_root_metadata(host, url)
                    .await
                    .ok_or_else(|| failed(e))?
            }
            Err(e) => return Err(failed(e)),
        },
    };
    store.set_token_url(&metadata.token_endpoint);
    manager.set_metadata(metadata);
    let callback = callback::Callback::bind(oauth.redirect_uri.as_deref()).await?;
    let mut request = AuthorizationRequest::new(callback.redirect_uri())
        .with_client_name(CLIENT_NAME)
        .with_initial_scope_selection();
    if !oauth.scopes.is_empty() {
        request = request.with_scopes(oauth.scopes.clone());
    } else if let Some(scopes) = step_up_scopes(store.entry().as_ref(), challenge) {
        request = request.with_scopes(scopes);
    }
    if let Some(id) = &oauth.client_id {
        request = request.with_preregistered_client(id);
        if let Some(secret) = &oauth.client_secret {
            request = request.with_client_secret(secret);
        }
    }
    if let Some(doc) = &oauth.client_metadata_url {
        request = request.with_client_metadata_url(doc);
    }
    let session = AuthorizationSession::new(manager, request)
        .await
        .map_err(|(_, e)| failed(e))?;
    let auth_url = session.get_authorization_url().to_string();
    if !callback::open_browser(&auth_url, host.env.as_ref()) {
        match prompt.show_url {
            Some(show) => show(&auth_url),
            None => return Err(LoginError::NeedsBrowser),
        }
    }
    let answer = callback.wait(prompt.wait).await?;
    let sent_state = url::Url::parse(&auth_url).ok().and_then(|u| {
        u.query_pairs()
            .find(|(k, _)| k == "state")
            .map(|(_, v)| v.into_owned())
    });
    if sent_state.is_some_and(|s| s != answer.state) {
        return Err(LoginError::StateMismatch);
    }
    session
        .handle_callback_with_issuer(&answer.code, &answer.state, answer.issuer.as_deref())
        .await
        .map_err(failed)?;
    Ok(())
}

/// The scopes of a step-up login (SEP-2350): those of the token we hold
/// and those the server's challenge asks for, together, so that the new
/// token keeps what the old one could do. `None` when there is no token
/// yet or the challenge names no scope.
fn step_up_scopes(entry: Option<&TokenEntry>, challenge: Option<&str>) -> Option<Vec<String>> {
    let held = entry?.token.scope.as_deref()?;
    let asked = challenge_scope(challenge?)?;
    let mut scopes: Vec<String> = Vec::new();
    for scope in held.split_whitespace().chain(asked.split_whitespace()) {
        if !scopes.iter().any(|s| s == scope) {
            scopes.push(scope.to_string());
        }
    }
    Some(scopes)
}

/// The `scope` parameter of a `WWW-Authenticate: Bearer ...` challenge.
fn challenge_scope(challenge: &str) -> Option<&str> {
    let at = challenge.find("scope=")?;
    let before = challenge[..at].chars().last();
    if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
        // `x_scope=` or the like: look further on.
        return challenge_scope(&challenge[at + 6..]);
    }
    let rest = &challenge[at + 6..];
    match rest.strip_prefix('"') {
        Some(quoted) => quoted.split('"').next(),
        None => rest.split([',', ' ']).next(),
    }
}

/// A 2025-03-26 server (no protected-resource metadata) whose
/// authorization-server metadata sits at the origin's root but names an
/// issuer with a path: strict RFC 8414 discovery refuses it, Gemini CLI
/// (and that revision of MCP) use it.
async fn legacy_root_metadata(host: &Host, url: &str) -> Option<AuthorizationMetadata> {
    let mut root = url::Url::parse(url).ok()?;
    root.set_path("/.well-known/oauth-authorization-server");
    root.set_query(None);
    let http = host.http_client().ok()?;
    let response = http.get(root.clone()).send().await.ok()?;
    if !response.status().is_success() {
        return None;
    }
    let metadata: AuthorizationMetadata = response.json().await.ok()?;
    tracing::warn!(
        "using the authorization server metadata at {root} although its issuer ({}) differs from its location",
        metadata.issuer.as_deref().unwrap_or("none")
    );
    Some(metadata)
}

/// An authorization manager for `server` whose tokens come from the token
/// file (refreshed when due).
async fn stored_manager(
    host: &Host,
    server: &str,
    url: &str,
    oauth: &OAuthConfig,
) -> Result<AuthorizationManager, TokenError> {
    let mut manager = AuthorizationManager::new_allowing_private_addresses(url).await?;
    let store = token_store(host, server, url);
    manager.set_credential_store(store.clone());
    if !store.has_entry() {
        return Ok(manager);
    }
    if let Some(m) = settings_metadata(oauth) {
        manager.set_metadata(m);
    }
    if let Err(e) = manager.initialize_from_store().await {
        tracing::warn!(server, "stored OAuth tokens unusable: {e}");
        return Ok(manager);
    }
    let Some(entry) = store.entry() else {
        return Ok(manager);
    };
    let secret = oauth
        .client_secret
        .clone()
        .or_else(|| store.stored_client_secret());
    if let (Some(secret), Some(id)) = (secret, entry.client_id.as_deref()) {
        let redirect = oauth
            .redirect_uri
            .clone()
            .unwrap_or_else(|| "http://127.0.0.1/oauth/callback".to_string());
        let config = OAuthClientConfig::new(id, redirect).with_client_secret(secret);
        if let Err(e) = manager.configure_client(config) {
            tracing::debug!(server, "OAuth client with secret: {e}");
        }
    }
    Ok(manager)
}

/// The HTTP client of a server connection: it sends the stored token
/// (refreshing it when due) and records the server's challenges in `slot`.
pub async fn client(
    host: &Host,
    server: &str,
    url: &str,
    oauth: &OAuthConfig,
    http: reqwest::Client,
    slot: ChallengeSlot,
) -> Result<recorder::ChallengeRecorder<AuthClient<reqwest::Client>>, TokenError> {
    let manager = stored_manager(host, server, url, oauth).await?;
    Ok(recorder::ChallengeRecorder::new(
        AuthClient::new(http, manager),
        slot,
    ))
}

/// The stored access token of `server` (refreshed when due), for the
/// legacy SSE transport; `None` when there is none.
pub async fn stored_token(
    host: &Host,
    server: &str,
    url: &str,
    oauth: &OAuthConfig,
) -> Option<String> {
    if !has_tokens(host, server, url) {
        return None;
    }
    let manager = stored_manager(host, server, url, oauth).await.ok()?;
    manager.get_access_token().await.ok()
}

/// True when tokens for `server` are stored.
pub fn has_tokens(host: &Host, server: &str, url: &str) -> bool {
    token_store(host, server, url).has_entry()
}

/// Forgets the tokens of `server`.
pub async fn logout(host: &Host, server: &str, url: &str) -> Result<(), TokenError> {
    let store = token_store(host, server, url);
    Ok(rmcp::transport::auth::CredentialStore::clear(&store).await?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_up_asks_for_the_held_scopes_and_the_challenged_ones() {
        let entry: TokenEntry = serde_json::from_value(serde_json::json!({"serverName": "s",
                "token": {"scope": "mcp:basic offline_access"}}))
        .unwrap();
        let challenge = r#"Bearer error="insufficient_scope", scope="mcp:basic mcp:write", resource_metadata="https://x/m""#;
        assert_eq!(
            step_up_scopes(Some(&entry), Some(challenge)).unwrap(),
            ["mcp:basic", "offline_access", "mcp:write"]
        );
        assert!(step_up_scopes(None, Some(challenge)).is_none());
        assert!(step_up_scopes(Some(&entry), Some(r#"Bearer realm="x""#)).is_none());
        assert_eq!(challenge_scope(r#"Bearer x_scope="a", scope=b"#), Some("b"));
    }
}
