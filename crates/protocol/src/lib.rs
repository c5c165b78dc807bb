//! Wire types of the Gemini API (`generateContent` and friends) and of the
//! recorded-response files Gemini CLI replays, the Stable Model API of
//! hooks ([`hook_api`]), and the session protocol every front end speaks
//! ([`events`]: ops in, events out).
//!
//! Every wire struct keeps the fields it does not model in an `extra` map, so
//! a value survives a parse / serialize round trip without losing anything.
//! The hook API types carry exactly the fields Gemini CLI's hook translator
//! produces.

#![deny(missing_docs)]
// A library writes nothing to stdout: that is the front end's (and the
// protocol's, on stdio transports); its tests may print.
#![cfg_attr(not(test), deny(clippy::print_stdout))]

pub mod a2a;
mod content;
pub mod events;
pub mod extension;
pub mod hook_api;
pub mod jsonrpc;
pub mod lenient;
mod request;
mod response;
mod responses_file;

pub use content::{Blob, Content, FileData, FunctionCall, FunctionResponse, Part, Role};
pub use hook_api::{
    HookToolConfig, LLMCandidate, LLMConfig, LLMContent, LLMMessage, LLMRequest, LLMResponse,
};
pub use request::{
    CountTokensRequest, FunctionCallingConfig, FunctionDeclaration, GenerateContentRequest,
    GenerationConfig, ThinkingConfig, Tool, ToolConfig,
};
pub use response::{
    Candidate, CountTokensResponse, GenerateContentResponse, GroundingChunk, GroundingChunkWeb,
    GroundingMetadata, GroundingSegment, GroundingSupport, UsageMetadata,
};
pub use responses_file::{RecordedMethod, RecordedResponse};

/// Fields a type does not model, kept verbatim for lossless round trips.
pub type Extra = serde_json::Map<String, serde_json::Value>;
