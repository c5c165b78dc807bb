//! The bearer token of `gemini-rs serve`: read once from
//! `GEMINI_RS_SERVE_TOKEN`, checked, compared in constant time, and never
//! printed.

use hyper::HeaderMap;

/// The variable holding the token.
pub const TOKEN_VAR: &str = "GEMINI_RS_SERVE_TOKEN";

/// The shortest token accepted.
const MIN_LEN: usize = 16;
/// The longest token accepted.
const MAX_LEN: usize = 4096;

/// A checked bearer token.
pub struct Token(Vec<u8>);

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Token(..)")
    }
}

impl Token {
    /// The token of the environment; `None` when the variable is unset or
    /// empty, an error (without the value) when it is unusable.
    pub fn from_env() -> Result<Option<Token>, String> {
        match std::env::var_os(TOKEN_VAR) {
            None => Ok(None),
            Some(v) if v.is_empty() => Ok(None),
            Some(v) => match v.to_str() {
                Some(text) => Token::parse(text).map(Some),
                None => Err(format!("{TOKEN_VAR} is not valid UTF-8")),
            },
        }
    }

    /// Checks a token's text: visible ASCII only, 16 to 4096 characters.
    fn parse(text: &str) -> Result<Token, String> {
        if let Some(bad) = text.chars().position(|c| !c.is_ascii_graphic()) {
            return Err(format!(
                "{TOKEN_VAR} may hold visible ASCII characters only (character {} is not one)",
                bad + 1
            ));
        }
        if text.len() < MIN_LEN || text.len() > MAX_LEN {
            return Err(format!(
                "{TOKEN_VAR} must be {MIN_LEN} to {MAX_LEN} characters long (it has {})",
                text.len()
            ));
        }
        Ok(Token(text.as_bytes().to_vec()))
    }

    /// Whether `headers` carry `Authorization: Bearer <this token>`.
    pub fn admits(&self, headers: &HeaderMap) -> bool {
        let Some(value) = headers.get(hyper::header::AUTHORIZATION) else {
            return false;
        };
        let value = value.as_bytes();
        let Some((scheme, rest)) = value.split_first_chunk::<7>() else {
            return false;
        };
        scheme.eq_ignore_ascii_case(b"bearer ") && same(rest.trim_ascii(), &self.0)
    }
}

/// Constant-time equality (for equal lengths; the length is not secret).
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn headers(value: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(hyper::header::AUTHORIZATION, value.parse().unwrap());
        h
    }

    #[test]
    fn tokens_are_checked_and_compared() {
        assert!(Token::parse("short").unwrap_err().contains("16 to 4096"));
        assert!(
            Token::parse("with a space in it!!")
                .unwrap_err()
                .contains("character 5")
        );
        let t = Token::parse("0123456789abcdef").unwrap();
        assert!(t.admits(&headers("Bearer 0123456789abcdef")));
        assert!(t.admits(&headers("bearer 0123456789abcdef")));
        assert!(!t.admits(&headers("Bearer 0123456789abcdeX")));
        assert!(!t.admits(&headers("Bearer 0123456789abcdef0")));
        assert!(!t.admits(&headers("Basic 0123456789abcdef")));
        assert!(!t.admits(&HeaderMap::new()));
        assert_eq!(format!("{t:?}"), "Token(..)");
    }
}
