//! Google OAuth2 access tokens from Application Default Credentials, for
//! Vertex AI: a service-account key (an RS256-signed JWT exchanged at its
//! `token_uri`) or an `authorized_user` file (a refresh-token exchange).
//! The file is `GOOGLE_APPLICATION_CREDENTIALS`, else gcloud's
//! `~/.config/gcloud/application_default_credentials.json`. The cloud
//! metadata server is never asked. Tokens are cached until a minute before
//! they expire.

use super::error::{ModelError, error_chain, snippet};
use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use serde::Deserialize;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use tokio::sync::Mutex;

/// The scope Vertex AI needs.
pub const CLOUD_PLATFORM_SCOPE: &str = "https://www.googleapis.com/auth/cloud-platform";
/// Google's token endpoint, for files that name none.
const DEFAULT_TOKEN_URI: &str = "https://oauth2.googleapis.com/token";
/// Tokens are renewed this long before they expire.
const EARLY_REFRESH: Duration = Duration::from_secs(60);

/// The kinds of credential files.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum CredentialFile {
    /// A service-account key.
    ServiceAccount {
        client_email: String,
        private_key: String,
        #[serde(default)]
        private_key_id: Option<String>,
        #[serde(default)]
        token_uri: Option<String>,
    },
    /// A user's login (`gcloud auth application-default login`).
    AuthorizedUser {
        client_id: String,
        client_secret: String,
        refresh_token: String,
        #[serde(default)]
        token_uri: Option<String>,
    },
}

/// Application Default Credentials and the cached token.
pub struct GoogleCredentials {
    file: CredentialFile,
    path: PathBuf,
    cached: Mutex<Option<(String, Instant)>>,
    /// The scopes a service account asks for (space-separated).
    scopes: String,
}

impl std::fmt::Debug for GoogleCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GoogleCredentials")
            .field("path", &self.path)
            .finish()
    }
}

impl GoogleCredentials {
    /// Finds and reads the credentials file: `GOOGLE_APPLICATION_CREDENTIALS`
    /// (read through `env`), else gcloud's file under `home`.
    pub fn find(
        env: impl Fn(&str) -> Option<String>,
        home: &Path,
    ) -> Result<GoogleCredentials, ModelError> {
        let path = match env("GOOGLE_APPLICATION_CREDENTIALS") {
            Some(p) => PathBuf::from(p),
            None => {
                let gcloud = home.join(".config/gcloud/application_default_credentials.json");
                if !gcloud.exists() {
                    return Err(ModelError::Setup { message: "Vertex AI needs Google credentials: set GOOGLE_APPLICATION_CREDENTIALS to a \
                         service-account key file, run `gcloud auth application-default login`, or \
                         use express mode with GOOGLE_API_KEY."
                            .to_string() });
                }
                gcloud
            }
        };
        GoogleCredentials::from_file(&path)
    }

    /// Reads one credentials file.
    pub fn from_file(path: &Path) -> Result<GoogleCredentials, ModelError> {
        let text = std::fs::read_to_string(path).map_err(|e| ModelError::Setup {
            message: format!(
                "Could not read the Google credentials file {}: {e}",
                path.display()
            ),
        })?;
        let file: CredentialFile = serde_json::from_str(&text).map_err(|e| ModelError::Setup {
            message: format!(
                "{} is not a service-account key or an authorized-user credentials file: {e}",
                path.display()
            ),
        })?;
        Ok(GoogleCredentials {
            file,
            path: path.to_path_buf(),
            cached: Mutex::new(None),
            scopes: CLOUD_PLATFORM_SCOPE.to_string(),
        })
    }

    /// Asks for `scopes` instead of cloud-platform (service accounts; a
    /// user's login keeps the scopes it was granted).
    pub fn with_scopes(mut self, scopes: &[String]) -> Self {
        if !scopes.is_empty() {
            self.scopes = scopes.join(" ");
        }
        self
    }

    /// A valid access token, fetched when none is cached or it is about
    /// to expire.
    pub async fn token(&self, http: &reqwest::Client) -> Result<String, ModelError> {
        let mut cached = self.cached.lock().await;
        if let Some((token, expires)) = cached.as_ref()
            && Instant::now() + EARLY_REFRESH < *expires
        {
            return Ok(token.clone());
        }
        let (uri, form) = match &self.file {
            CredentialFile::ServiceAccount {
                client_email,
                private_key,
                private_key_id,
                token_uri,
            } => {
                let uri = token_uri.as_deref().unwrap_or(DEFAULT_TOKEN_URI);
                let jwt =
                    self.assertion(client_email, private_key, private_key_id.as_deref(), uri)?;
                let form = form_encode(&[
                    ("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer"),
                    ("assertion", &jwt),
                ]);
                (uri.to_string(), form)
            }
            CredentialFile::AuthorizedUser {
                client_id,
                client_secret,
                refresh_token,
                token_uri,
            } => {
                let form = form_encode(&[
                    ("grant_type", "refresh_token"),
                    ("client_id", client_id),
                    ("client_secret", client_secret),
                    ("refresh_token", refresh_token),
                ]);
                let uri = token_uri.as_deref().unwrap_or(DEFAULT_TOKEN_URI);
                (uri.to_string(), form)
            }
        };
        let fail = |message: String| ModelError::Setup {
            message: format!(
                "Could not get a Google access token with {} from {uri}: {message}",
                self.path.display()
            ),
        };
        let response = http
            .post(&uri)
            .header("content-type", "application/x-www-form-urlencoded")
            .body(form)
            .send()
            .await
            .map_err(|e| fail(error_chain(&e)))?;
        let status = response.status();
        let body = response.text().await.map_err(|e| fail(error_chain(&e)))?;
        if !status.is_success() {
            return Err(fail(format!(
                "HTTP {}: {}",
                status.as_u16(),
                snippet(&body, 300)
            )));
        }
        let answer: TokenAnswer = serde_json::from_str(&body).map_err(|e| fail(e.to_string()))?;
        let token = answer
            .access_token
            .ok_or_else(|| fail(format!("no access_token in {}", snippet(&body, 200))))?;
        let lifetime = answer.expires_in.unwrap_or(3600);
        *cached = Some((
            token.clone(),
            Instant::now() + Duration::from_secs(lifetime),
        ));
        Ok(token)
    }

    /// The signed JWT a service account trades for a token.
    fn assertion(
        &self,
        email: &str,
        pem: &str,
        key_id: Option<&str>,
        audience: &str,
    ) -> Result<String, ModelError> {
        let bad_key = |why: &str| ModelError::Setup {
            message: format!(
                "The private key in {} cannot sign: {why}",
                self.path.display()
            ),
        };
        let der = pem_body(pem).ok_or_else(|| bad_key("it is not a PEM PRIVATE KEY block"))?;
        let key =
            ring::signature::RsaKeyPair::from_pkcs8(&der).map_err(|e| bad_key(&e.to_string()))?;
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let mut header = json!({"alg": "RS256", "typ": "JWT"});
        if let Some(kid) = key_id {
            header["kid"] = json!(kid);
        }
        let claims = json!({"iss": email, "scope": self.scopes, "aud": audience,
            "iat": now, "exp": now + 3600});
        let signing_input = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(header.to_string()),
            URL_SAFE_NO_PAD.encode(claims.to_string())
        );
        let mut signature = vec![0; key.public().modulus_len()];
        key.sign(
            &ring::signature::RSA_PKCS1_SHA256,
            &ring::rand::SystemRandom::new(),
            signing_input.as_bytes(),
            &mut signature,
        )
        .map_err(|e| bad_key(&e.to_string()))?;
        Ok(format!(
            "{signing_input}.{}",
            URL_SAFE_NO_PAD.encode(signature)
        ))
    }
}

/// The DER bytes of a PEM `PRIVATE KEY` block.
fn pem_body(pem: &str) -> Option<Vec<u8>> {
    let start = pem.find("-----BEGIN PRIVATE KEY-----")? + "-----BEGIN PRIVATE KEY-----".len();
    let end = pem[start..].find("-----END PRIVATE KEY-----")? + start;
    let b64: String = pem[start..end]
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    STANDARD.decode(b64).ok()
}

/// `application/x-www-form-urlencoded` of `pairs`.
fn form_encode(pairs: &[(&str, &str)]) -> String {
    let enc = |s: &str| {
        s.bytes()
            .map(|b| match b {
                b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                    (b as char).to_string()
                }
                _ => format!("%{b:02X}"),
            })
            .collect::<String>()
    };
    pairs
        .iter()
        .map(|(k, v)| format!("{}={}", enc(k), enc(v)))
        .collect::<Vec<_>>()
        .join("&")
}

/// The token endpoint's answer (RFC 6749 section 5.1).
#[derive(Debug, Deserialize)]
struct TokenAnswer {
    access_token: Option<String>,
    expires_in: Option<u64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn form_encoding_escapes_reserved_bytes() {
        assert_eq!(
            form_encode(&[("a b", "1/2+3"), ("k", "x~y")]),
            "a%20b=1%2F2%2B3&k=x~y"
        );
    }

    #[test]
    fn unreadable_and_unknown_files_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("c.json");
        let err = GoogleCredentials::from_file(&p).unwrap_err().to_string();
        assert!(err.contains("c.json"), "{err}");
        std::fs::write(&p, r#"{"type": "external_account"}"#).unwrap();
        let err = GoogleCredentials::from_file(&p).unwrap_err().to_string();
        assert!(err.contains("not a service-account key"), "{err}");
        let err = GoogleCredentials::find(|_| None, dir.path())
            .unwrap_err()
            .to_string();
        assert!(err.contains("GOOGLE_APPLICATION_CREDENTIALS"), "{err}");
    }
}
