//! Argument validation against a tool's JSON Schema, with Gemini CLI's
//! (Ajv 8) error texts.
//!
//! Gemini CLI v0.27.4 validates with one Ajv instance: draft-07, `allErrors:
//! false` (so only the first failing keyword is reported, plus the branch
//! errors of a failing `anyOf`/`oneOf`), and renders errors with
//! `errorsText(errors, {dataVar: "params"})`, e.g.
//! `params must have required property 'file_path'` or
//! `params/offset must be number`.
//!
//! The checks themselves are done by the `jsonschema` crate; this module
//! picks the error Ajv would have found first (Ajv's keyword order, not the
//! schema's) and words it as Ajv does.
//!
//! `$schema` handling follows v0.27.4, where the schema was compiled on every
//! call and compile errors became the validation error:
//! - absent or draft-07: validated as draft-07;
//! - `https://json-schema.org/draft/2020-12/schema`: **every call fails**
//!   with `no schema with key or ref "https://json-schema.org/draft/2020-12/schema"`
//!   (the verified v0.27.4 behaviour; later Gemini CLI versions support
//!   2020-12, but the v0.27.4 spec wins here);
//! - the other drafts `jsonschema` knows (04, 06, 2019-09): validated with
//!   that draft (Ajv would have failed; v0.27.4's behaviour is only pinned
//!   for 2020-12);
//! - any other URL: every call fails with `no schema with key or ref "<url>"`.
//!
//! A schema that does not compile fails every call with
//! `schema is invalid: <reason>` (meta-schema errors worded as Ajv does, with
//! dataVar `data`).

mod messages;
#[cfg(test)]
mod tests;

use jsonschema::{Draft, ValidationError, Validator};
use messages::{first_error, render};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex};

const DRAFT7_URLS: [&str; 2] = [
    "http://json-schema.org/draft-07/schema",
    "http://json-schema.org/draft-07/schema#",
];
const OTHER_KNOWN_URLS: [&str; 6] = [
    "http://json-schema.org/draft-04/schema",
    "http://json-schema.org/draft-04/schema#",
    "http://json-schema.org/draft-06/schema",
    "http://json-schema.org/draft-06/schema#",
    "https://json-schema.org/draft/2019-09/schema",
    "https://json-schema.org/draft/2019-09/schema#",
];

/// Why a tool's arguments were refused; the Display text is Ajv's, which
/// the model reads.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArgsError {
    /// The arguments are not a JSON object.
    #[error("Value of params must be an object")]
    NotAnObject,
    /// The tool's schema does not compile, so every call fails.
    #[error(transparent)]
    Schema(#[from] SchemaError),
    /// The arguments do not fit the schema: Ajv's `errorsText`.
    #[error("{0}")]
    Mismatch(String),
}

/// Why a tool's parameter schema does not compile (as v0.27.4's Ajv).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SchemaError {
    /// `$schema` is not a string.
    #[error("$schema must be a string")]
    MetaNotString,
    /// `$schema` names a dialect Ajv does not know.
    #[error("no schema with key or ref \"{0}\"")]
    UnknownMeta(String),
    /// The schema breaks its meta-schema (Ajv's text, dataVar `data`).
    #[error("schema is invalid: {0}")]
    Invalid(String),
    /// A `$ref` points nowhere.
    #[error("can't resolve reference #{0} from id #")]
    Unresolvable(String),
}

/// `Value of params must be an object` unless `args` is a JSON object.
pub fn validate_params_object(args: &Value) -> Result<(), ArgsError> {
    if args.is_object() {
        Ok(())
    } else {
        Err(ArgsError::NotAnObject)
    }
}

/// A tool's parameter schema, compiled once per process: sessions that
/// register the same tools share the compiled schemas.
pub struct ArgsValidator {
    state: Arc<State>,
}

/// At most this many compiled schemas are kept (MCP servers bring their
/// own); past it the cache starts again.
const CACHE_MAX: usize = 1024;

/// The schemas compiled so far, by their JSON text.
static COMPILED: LazyLock<Mutex<HashMap<String, Arc<State>>>> = LazyLock::new(Default::default);

enum State {
    /// No schema (`null`): everything passes.
    None,
    /// The schema did not compile: every call fails with this error.
    Broken(SchemaError),
    /// A compiled schema and its source (for Ajv's keyword order).
    Ready {
        validator: Box<Validator>,
        schema: Value,
    },
}

impl ArgsValidator {
    /// Compiles `schema`. `null` means "no validation". A compile failure is
    /// kept and returned by every [`ArgsValidator::validate`] call.
    pub fn new(schema: &Value) -> ArgsValidator {
        if schema.is_null() {
            return ArgsValidator {
                state: Arc::new(State::None),
            };
        }
        let key = schema.to_string();
        let cached = COMPILED
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&key)
            .cloned();
        if let Some(state) = cached {
            return ArgsValidator { state };
        }
        // Compiled outside the lock: two sessions may both compile a new
        // schema once, neither waits for the other.
        let state = Arc::new(match compile(schema) {
            Ok(validator) => State::Ready {
                validator: Box::new(validator),
                schema: schema.clone(),
            },
            Err(e) => State::Broken(e),
        });
        let mut compiled = COMPILED
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if compiled.len() >= CACHE_MAX {
            compiled.clear();
        }
        compiled.insert(key, state.clone());
        ArgsValidator { state }
    }

    #[cfg(test)]
    /// The compile error, when the schema did not compile.
    pub fn compile_error(&self) -> Option<&SchemaError> {
        match &*self.state {
            State::Broken(e) => Some(e),
            State::None | State::Ready { .. } => None,
        }
    }

    /// Validates `args`; the error is Ajv's text for the first failure.
    pub fn validate(&self, args: &Value) -> Result<(), ArgsError> {
        match &*self.state {
            State::None => Ok(()),
            State::Broken(e) => Err(e.clone().into()),
            State::Ready { validator, schema } => {
                let errors: Vec<ValidationError<'_>> = validator.iter_errors(args).collect();
                match first_error(&errors, Some(schema), args) {
                    None => Ok(()),
                    Some(err) => Err(ArgsError::Mismatch(
                        render(err, "params", Some(schema), args).join(", "),
                    )),
                }
            }
        }
    }
}

/// Compiles a schema the way v0.27.4's Ajv would accept or refuse it.
fn compile(schema: &Value) -> Result<Validator, SchemaError> {
    let mut draft = Some(Draft::Draft7);
    // open shape: a tool's parameter schema is any JSON Schema.
    if let Some(meta) = schema.get("$schema") {
        let Some(url) = meta.as_str() else {
            return Err(SchemaError::MetaNotString);
        };
        if OTHER_KNOWN_URLS.contains(&url) {
            draft = None;
        } else if !DRAFT7_URLS.contains(&url) {
            return Err(SchemaError::UnknownMeta(url.to_string()));
        }
    }
    if draft.is_some() && schema.is_object() {
        let meta = jsonschema::draft7::meta::validator();
        let errors: Vec<ValidationError<'_>> = meta.iter_errors(schema).collect();
        if let Some(err) = first_error(&errors, None, schema) {
            return Err(SchemaError::Invalid(
                render(err, "data", None, schema).join(", "),
            ));
        }
    }
    let mut options = jsonschema::options().should_validate_formats(true);
    if let Some(d) = draft {
        options = options.with_draft(d);
    }
    options.build(schema).map_err(|e| match e.kind() {
        jsonschema::error::ValidationErrorKind::Referencing(
            jsonschema::ReferencingError::PointerToNowhere { pointer },
        ) => SchemaError::Unresolvable(pointer.clone()),
        _ => SchemaError::Invalid(e.to_string()),
    })
}
