//! MCP OAuth tokens in Gemini CLI's file, `~/.gemini/mcp-oauth-tokens.json`
//! (mode 0600): a list of `{serverName, token: {accessToken, tokenType,
//! refreshToken, scope, expiresAt}, clientId, tokenUrl, mcpServerUrl,
//! updatedAt}`, so a login in either CLI serves both. We add `clientSecret`
//! for clients registered with a secret (Gemini CLI ignores it).

use rmcp::transport::auth::{AuthError, CredentialStore, OAuthTokenResponse, StoredCredentials};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

/// The token file's name under `~/.gemini`.
pub const TOKEN_FILE: &str = "mcp-oauth-tokens.json";

/// One server's entry in the token file (Gemini CLI's shape).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TokenEntry {
    /// The server's name in the settings.
    pub server_name: String,
    /// The token itself.
    #[serde(default)]
    pub token: StoredToken,
    /// The OAuth client the token was issued to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_id: Option<String>,
    /// The token endpoint (for Gemini CLI's refresh).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_url: Option<String>,
    /// The server's URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcp_server_url: Option<String>,
    /// When the entry was written, in ms since the epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<u64>,
    /// The secret of a client registered with one (gemini-rs only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
}

/// An entry's `token` object.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoredToken {
    /// The access token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access_token: Option<String>,
    /// `Bearer`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_type: Option<String>,
    /// The refresh token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
    /// The granted scopes, space-separated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// When the access token expires, in ms since the epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<u64>,
}

/// An OAuth token response as RFC 6749 sends it (the fields we keep).
#[derive(Debug, Serialize, Deserialize)]
struct TokenWire {
    access_token: String,
    token_type: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    refresh_token: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    scope: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    expires_in: Option<u64>,
}

/// One server's entry in the token file, as a store for rmcp.
#[derive(Clone)]
pub struct TokenStore {
    file: PathBuf,
    server: String,
    server_url: String,
    /// The token endpoint, once discovered (kept for Gemini CLI's refresh).
    token_url: Arc<Mutex<Option<String>>>,
    /// The secret of a client registered with one.
    client_secret: Arc<Mutex<Option<String>>>,
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or_default()
}

fn store_error(e: impl std::fmt::Display) -> AuthError {
    AuthError::InternalError(format!("MCP OAuth token file: {e}"))
}

impl TokenStore {
    /// The entry of `server` (at `server_url`) in `<gemini_dir>/mcp-oauth-tokens.json`.
    pub fn new(gemini_dir: &Path, server: &str, server_url: &str) -> Self {
        TokenStore {
            file: gemini_dir.join(TOKEN_FILE),
            server: server.to_string(),
            server_url: server_url.to_string(),
            token_url: Arc::default(),
            client_secret: Arc::default(),
        }
    }

    /// Remembers the token endpoint for the next save.
    pub fn set_token_url(&self, url: &str) {
        if let Ok(mut t) = self.token_url.lock() {
            *t = Some(url.to_string());
        }
    }

    /// Remembers the client's secret for the next save.
    pub fn set_client_secret(&self, secret: Option<String>) {
        if let Ok(mut s) = self.client_secret.lock() {
            *s = secret;
        }
    }

    /// Every entry of the file, as written (none when it is missing):
    /// other servers' entries are kept as they are.
    fn entries(&self) -> Result<Vec<Value>, AuthError> {
        match std::fs::read_to_string(&self.file) {
            Ok(text) => match serde_json::from_str::<Value>(&text) {
                Ok(Value::Array(list)) => Ok(list),
                Ok(_) => Err(store_error(format!(
                    "{} is not a list",
                    self.file.display()
                ))),
                Err(e) => Err(store_error(format!("{}: {e}", self.file.display()))),
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
            Err(e) => Err(store_error(format!("{}: {e}", self.file.display()))),
        }
    }

    fn is_mine(&self, entry: &Value) -> bool {
        entry["serverName"] == self.server.as_str()
    }

    /// This server's entry; an error names the file, the server and the
    /// field when it is malformed.
    fn load_entry(&self) -> Result<Option<TokenEntry>, AuthError> {
        let Some(raw) = self.entries()?.into_iter().find(|e| self.is_mine(e)) else {
            return Ok(None);
        };
        serde_json::from_value(raw).map(Some).map_err(|e| {
            store_error(format!(
                "{}: the entry of {}: {e}",
                self.file.display(),
                self.server
            ))
        })
    }

    /// This server's entry (`None` when there is none or it is unreadable).
    pub fn entry(&self) -> Option<TokenEntry> {
        self.load_entry().ok().flatten()
    }

    /// True when the file has an entry for this server (readable or not).
    pub fn has_entry(&self) -> bool {
        self.entries()
            .is_ok_and(|list| list.iter().any(|e| self.is_mine(e)))
    }

    /// The client secret kept in the entry.
    pub fn stored_client_secret(&self) -> Option<String> {
        self.entry()?.client_secret
    }

    fn write(&self, entries: &[Value]) -> Result<(), AuthError> {
        let dir = self.file.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir).map_err(store_error)?;
        if entries.is_empty() {
            return match std::fs::remove_file(&self.file) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(store_error(e)),
                _ => Ok(()),
            };
        }
        let text = serde_json::to_string_pretty(entries).map_err(store_error)?;
        let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(store_error)?;
        std::io::Write::write_all(&mut tmp, text.as_bytes()).map_err(store_error)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let _ = std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o600));
        }
        tmp.persist(&self.file).map_err(|e| store_error(e.error))?;
        Ok(())
    }

    fn replace(&self, entry: Option<TokenEntry>) -> Result<(), AuthError> {
        let mut entries: Vec<Value> = self
            .entries()
            .unwrap_or_default()
            .into_iter()
            .filter(|e| !self.is_mine(e))
            .collect();
        if let Some(entry) = entry {
            entries.push(serde_json::to_value(entry).map_err(store_error)?);
        }
        self.write(&entries)
    }
}

/// A token response from an entry's `token` object.
fn token_response(token: &StoredToken, received_secs: u64) -> Option<OAuthTokenResponse> {
    let wire = TokenWire {
        access_token: token.access_token.clone()?,
        token_type: token
            .token_type
            .as_deref()
            .unwrap_or("Bearer")
            .to_ascii_lowercase(),
        refresh_token: token.refresh_token.clone(),
        scope: token.scope.clone(),
        expires_in: token
            .expires_at
            .map(|at| (at / 1000).saturating_sub(received_secs)),
    };
    serde_json::to_value(wire)
        .and_then(serde_json::from_value)
        .ok()
}

/// The `token` object of an entry from rmcp's credentials.
fn stored_token(credentials: &StoredCredentials) -> StoredToken {
    let wire: Option<TokenWire> = credentials
        .token_response
        .as_ref()
        .and_then(|t| serde_json::to_value(t).ok())
        .and_then(|v| serde_json::from_value(v).ok());
    let Some(wire) = wire else {
        return StoredToken::default();
    };
    let scope = wire
        .scope
        .unwrap_or_else(|| credentials.granted_scopes.join(" "));
    let received = credentials.token_received_at.unwrap_or(now_ms() / 1000);
    StoredToken {
        access_token: Some(wire.access_token),
        token_type: Some("Bearer".into()),
        refresh_token: wire.refresh_token,
        scope: (!scope.is_empty()).then_some(scope),
        expires_at: wire.expires_in.map(|left| (received + left) * 1000),
    }
}

#[async_trait::async_trait]
impl CredentialStore for TokenStore {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        let Some(entry) = self.load_entry()? else {
            return Ok(None);
        };
        let Some(client_id) = entry.client_id else {
            return Ok(None);
        };
        let now = now_ms() / 1000;
        let token = token_response(&entry.token, now);
        let scopes = entry
            .token
            .scope
            .as_deref()
            .map(|s| s.split_whitespace().map(str::to_string).collect())
            .unwrap_or_default();
        Ok(Some(StoredCredentials::new(
            client_id,
            token,
            scopes,
            Some(now),
        )))
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        let previous = self.entry();
        let token_url = self
            .token_url
            .lock()
            .ok()
            .and_then(|t| t.clone())
            .or_else(|| previous.as_ref().and_then(|p| p.token_url.clone()));
        let client_secret = self
            .client_secret
            .lock()
            .ok()
            .and_then(|s| s.clone())
            .or_else(|| previous.and_then(|p| p.client_secret));
        let entry = TokenEntry {
            server_name: self.server.clone(),
            token: stored_token(&credentials),
            client_id: Some(credentials.client_id),
            token_url,
            mcp_server_url: Some(self.server_url.clone()),
            updated_at: Some(now_ms()),
            client_secret,
        };
        self.replace(Some(entry))
    }

    async fn clear(&self) -> Result<(), AuthError> {
        self.replace(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[tokio::test]
    async fn entries_round_trip_in_gemini_clis_shape() {
        let dir = tempfile::tempdir().unwrap();
        let store = TokenStore::new(dir.path(), "gh", "https://mcp.example/mcp");
        assert!(store.load().await.unwrap().is_none());
        let token: OAuthTokenResponse = serde_json::from_value(json!({"access_token": "a1",
            "token_type": "bearer", "refresh_token": "r1", "expires_in": 3600, "scope": "read write"}))
        .unwrap();
        store.set_token_url("https://auth.example/token");
        let creds = StoredCredentials::new("cid".into(), Some(token), vec![], Some(1_000));
        store.save(creds).await.unwrap();
        let other = TokenStore::new(dir.path(), "other", "https://o.example/mcp");
        other
            .save(StoredCredentials::new("c2".into(), None, vec![], None))
            .await
            .unwrap();
        let text = std::fs::read_to_string(dir.path().join(TOKEN_FILE)).unwrap();
        let list: Vec<Value> = serde_json::from_str(&text).unwrap();
        assert_eq!(list.len(), 2);
        let gh = &list[0];
        assert_eq!(gh["token"]["accessToken"], "a1");
        assert_eq!(gh["token"]["refreshToken"], "r1");
        assert_eq!(gh["token"]["expiresAt"], 4_600_000);
        assert_eq!(gh["token"]["scope"], "read write");
        assert_eq!(gh["tokenUrl"], "https://auth.example/token");
        assert_eq!(gh["clientId"], "cid");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.path().join(TOKEN_FILE))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let loaded = store.load().await.unwrap().unwrap();
        assert_eq!(loaded.client_id, "cid");
        assert_eq!(loaded.granted_scopes, ["read", "write"]);
        store.clear().await.unwrap();
        other.clear().await.unwrap();
        assert!(!dir.path().join(TOKEN_FILE).exists());
    }

    #[tokio::test]
    async fn a_malformed_entry_is_an_error_naming_the_field() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(TOKEN_FILE);
        let list = json!([{"serverName": "gh", "token": {"accessToken": 7}, "clientId": "c"},
            {"serverName": "other", "odd": true}]);
        std::fs::write(&file, list.to_string()).unwrap();
        let store = TokenStore::new(dir.path(), "gh", "https://mcp.example/mcp");
        let e = store.load().await.unwrap_err().to_string();
        assert!(
            e.contains("the entry of gh") && e.contains("invalid type"),
            "{e}"
        );
        assert!(store.entry().is_none());
        store.clear().await.unwrap();
        let left: Vec<Value> =
            serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        assert_eq!(left, [json!({"serverName": "other", "odd": true})]);
    }
}
