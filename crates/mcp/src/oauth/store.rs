//! MCP OAuth tokens in Gemini CLI's file, `~/.gemini/mcp-oauth-tokens.json`
//! (mode 0600): a list of `{serverName, token: {accessToken, tokenType,
//! refreshToken, scope, expiresAt}, clientId, tokenUrl, mcpServerUrl,
//! updatedAt}`, so a login in either CLI serves both. We add `clientSecret`
//! for clients registered with a secret (Gemini CLI ignores it).

use rmcp::transport::auth::{AuthError, CredentialStore, OAuthTokenResponse, StoredCredentials};
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

/// The token file's name under `~/.gemini`.
pub const TOKEN_FILE: &str = "mcp-oauth-tokens.json";

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

    /// Every entry of the file (none when it is missing).
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

    /// This server's entry.
    pub fn entry(&self) -> Option<Value> {
        self.entries()
            .ok()?
            .into_iter()
            .find(|e| e["serverName"] == self.server.as_str())
    }

    /// The client secret kept in the entry.
    pub fn stored_client_secret(&self) -> Option<String> {
        self.entry()?
            .get("clientSecret")?
            .as_str()
            .map(str::to_string)
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

    fn replace(&self, entry: Option<Value>) -> Result<(), AuthError> {
        let mut entries: Vec<Value> = self
            .entries()
            .unwrap_or_default()
            .into_iter()
            .filter(|e| e["serverName"] != self.server.as_str())
            .collect();
        entries.extend(entry);
        self.write(&entries)
    }
}

/// A token response from an entry's `token` object.
fn token_response(token: &Value, received_secs: u64) -> Option<OAuthTokenResponse> {
    let mut raw = Map::new();
    raw.insert("access_token".into(), token.get("accessToken")?.clone());
    let kind = token
        .get("tokenType")
        .and_then(Value::as_str)
        .unwrap_or("Bearer")
        .to_ascii_lowercase();
    raw.insert("token_type".into(), Value::String(kind));
    if let Some(r) = token.get("refreshToken").filter(|v| v.is_string()) {
        raw.insert("refresh_token".into(), r.clone());
    }
    if let Some(s) = token.get("scope").filter(|v| v.is_string()) {
        raw.insert("scope".into(), s.clone());
    }
    if let Some(at) = token.get("expiresAt").and_then(Value::as_u64) {
        let left = (at / 1000).saturating_sub(received_secs);
        raw.insert("expires_in".into(), json!(left));
    }
    serde_json::from_value(Value::Object(raw)).ok()
}

#[async_trait::async_trait]
impl CredentialStore for TokenStore {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        let Some(entry) = self
            .entries()?
            .into_iter()
            .find(|e| e["serverName"] == self.server.as_str())
        else {
            return Ok(None);
        };
        let Some(client_id) = entry.get("clientId").and_then(Value::as_str) else {
            return Ok(None);
        };
        let now = now_ms() / 1000;
        let token = token_response(&entry["token"], now);
        let scopes = entry["token"]["scope"]
            .as_str()
            .map(|s| s.split_whitespace().map(str::to_string).collect())
            .unwrap_or_default();
        Ok(Some(StoredCredentials::new(
            client_id.to_string(),
            token,
            scopes,
            Some(now),
        )))
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        let previous = self.entry();
        let mut token = Map::new();
        let raw = credentials
            .token_response
            .as_ref()
            .and_then(|t| serde_json::to_value(t).ok())
            .unwrap_or(Value::Null);
        if let Some(access) = raw.get("access_token") {
            token.insert("accessToken".into(), access.clone());
            token.insert("tokenType".into(), json!("Bearer"));
            if let Some(r) = raw.get("refresh_token").filter(|v| v.is_string()) {
                token.insert("refreshToken".into(), r.clone());
            }
            let scope = match raw.get("scope").and_then(Value::as_str) {
                Some(s) => s.to_string(),
                None => credentials.granted_scopes.join(" "),
            };
            if !scope.is_empty() {
                token.insert("scope".into(), json!(scope));
            }
            if let Some(left) = raw.get("expires_in").and_then(Value::as_u64) {
                let received = credentials.token_received_at.unwrap_or(now_ms() / 1000);
                token.insert("expiresAt".into(), json!((received + left) * 1000));
            }
        }
        let token_url = self
            .token_url
            .lock()
            .ok()
            .and_then(|t| t.clone())
            .or_else(|| {
                previous
                    .as_ref()
                    .and_then(|p| p["tokenUrl"].as_str().map(String::from))
            });
        let secret = self
            .client_secret
            .lock()
            .ok()
            .and_then(|s| s.clone())
            .or_else(|| self.stored_client_secret());
        let mut entry = json!({"serverName": self.server, "token": token,
            "clientId": credentials.client_id, "mcpServerUrl": self.server_url,
            "updatedAt": now_ms()});
        if let Some(url) = token_url {
            entry["tokenUrl"] = json!(url);
        }
        if let Some(secret) = secret {
            entry["clientSecret"] = json!(secret);
        }
        self.replace(Some(entry))
    }

    async fn clear(&self) -> Result<(), AuthError> {
        self.replace(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
