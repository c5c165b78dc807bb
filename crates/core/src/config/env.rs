//! [`Env`]: the process environment as the start-up saw it. The engine
//! reads variables (credentials, `GEMINI_MODEL`, `GEMINI_SANDBOX`, ...)
//! from this snapshot, never from the process itself, so a front end (or a
//! test) decides what a session sees.

use std::collections::HashMap;
use std::sync::Arc;

/// A snapshot of environment variables.
#[derive(Debug, Clone, Default)]
pub struct Env(Arc<HashMap<String, String>>);

impl Env {
    /// The variables of this process (those with UTF-8 names and values).
    pub fn from_process() -> Env {
        Env(Arc::new(
            std::env::vars_os()
                .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
                .collect(),
        ))
    }

    /// A snapshot of exactly `vars`.
    pub fn from_pairs<'a>(vars: impl IntoIterator<Item = (&'a str, &'a str)>) -> Env {
        Env(Arc::new(
            vars.into_iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        ))
    }

    /// This snapshot with `name` set to `value` (a key typed into the
    /// provider picker, for this run only).
    pub fn with(&self, name: &str, value: &str) -> Env {
        let mut vars = (*self.0).clone();
        vars.insert(name.to_string(), value.to_string());
        Env(Arc::new(vars))
    }

    /// The value of `name`, when it is set and not empty.
    pub fn var(&self, name: &str) -> Option<String> {
        self.0.get(name).filter(|v| !v.is_empty()).cloned()
    }

    /// The value of `name` as set, empty or not.
    pub fn raw(&self, name: &str) -> Option<String> {
        self.0.get(name).cloned()
    }
}
