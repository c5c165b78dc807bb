//! The session file's message lines, serialised on the agent's thread
//! straight from what it holds (parts, arguments, results: borrowed, never
//! cloned or encoded twice) onto the end of the lines waiting for the
//! writer (see [`super::jsonl::push_line`]). The bytes are those of
//! [`MessageRecord`]'s serialisation (field order included), so the
//! readers parse them back.

use super::jsonl::push_line;
use super::record::MessageRecord;
use gemini_rs_protocol::events::ToolDisplay;
use gemini_rs_protocol::{Part, UsageMetadata};
use serde::Serialize;
use serde_json::Value;
use serde_json::value::RawValue;

/// When something happened, taken on the agent's thread (formatting
/// waits for the writer).
pub(super) type Stamp = chrono::DateTime<chrono::Utc>;

/// What appending a line gives.
type Result<T = ()> = std::io::Result<T>;

/// The ISO form Gemini CLI records (`2026-01-02T03:04:05.678Z`), written
/// directly (a `format` string is parsed again on every call).
pub(super) fn format_stamp(at: &Stamp) -> String {
    at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// A new message id: a version-4 uuid, as Gemini CLI's `randomUUID`. Its
/// bits come from a generator seeded once per thread from the OS (one
/// `getrandom` syscall per id before, three a turn). Ids only
/// need to be unique: the steps never repeat within a thread, and the
/// random seed keeps threads and processes apart.
pub(super) fn new_id() -> String {
    thread_local! {
        static STATE: std::cell::Cell<Option<(u64, u64)>> = const { std::cell::Cell::new(None) };
    }
    /// splitmix64's finaliser: a bijection of `u64`.
    fn mix(mut z: u64) -> u64 {
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    let (count, key) = STATE.with(|state| {
        let (count, key) = state.get().unwrap_or_else(|| {
            let seed = uuid::Uuid::new_v4().as_u64_pair();
            (seed.0, seed.1)
        });
        let count = count.wrapping_add(0x9E37_79B9_7F4A_7C15);
        state.set(Some((count, key)));
        (count, key)
    });
    let (hi, lo) = (mix(count), mix(count ^ key));
    let mut bytes = [0u8; 16];
    bytes[..8].copy_from_slice(&hi.to_be_bytes());
    bytes[8..].copy_from_slice(&lo.to_be_bytes());
    let id = uuid::Builder::from_random_bytes(bytes).into_uuid();
    id.hyphenated()
        .encode_lower(&mut uuid::Uuid::encode_buffer())
        .to_owned()
}

/// A finished tool call of the last model turn, as the agent has it
/// (borrowed: its line is serialised from it).
#[derive(Debug, Clone, Copy)]
pub struct FinishedCall<'a> {
    /// The call id.
    pub id: &'a str,
    /// The name as called.
    pub name: &'a str,
    /// The arguments as sent.
    pub args: &'a Value,
    /// The functionResponse parts sent back.
    pub parts: &'a [Part],
    /// `success`, `error` or `cancelled`.
    pub status: &'static str,
    /// What the user was shown.
    pub display: &'a ToolDisplay,
    /// The tool's display name (when the tool is known).
    pub display_name: Option<&'a str>,
    /// The call's one-line description, else the tool's.
    pub description: Option<&'a str>,
    /// Whether the tool's output is shown as Markdown (Gemini CLI's
    /// `isOutputMarkdown`: every tool's but the shell's and discovered
    /// tools'; false for a tool that is not known).
    pub markdown: bool,
}

/// A recorded tool call (`ToolCallRecord`'s fields, in its order),
/// borrowed from the agent's call.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct CallLine<'a> {
    id: &'a str,
    name: &'a str,
    args: &'a Value,
    result: &'a [Part],
    status: &'static str,
    timestamp: &'a str,
    result_display: DisplayLine<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    display_name: Option<&'a str>,
    render_output_as_markdown: bool,
}

/// What a call showed, as Gemini CLI 0.61 records it: text, or the diff
/// and file name (a todo list as its JSON).
#[derive(Serialize)]
#[serde(untagged)]
enum DisplayLine<'a> {
    Text(&'a str),
    #[serde(rename_all = "camelCase")]
    Diff {
        file_diff: &'a str,
        file_name: &'a str,
    },
    Other(Value),
}

impl<'a> CallLine<'a> {
    /// The line of `call`, finished at `timestamp`.
    pub(super) fn of(call: &FinishedCall<'a>, timestamp: &'a str) -> Self {
        let result_display = match call.display {
            ToolDisplay::Text(t) => DisplayLine::Text(t),
            ToolDisplay::FileDiff(d) => DisplayLine::Diff {
                file_diff: &d.file_diff,
                file_name: &d.file_name,
            },
            ToolDisplay::Todos(_) => DisplayLine::Other(call.display.to_json()),
        };
        CallLine {
            id: call.id,
            name: call.name,
            args: call.args,
            result: call.parts,
            status: call.status,
            timestamp,
            result_display,
            description: call.description,
            display_name: call.display_name,
            render_output_as_markdown: call.markdown,
        }
    }
}

/// A thought's `**subject**` and the rest, as Gemini CLI splits them.
#[derive(Serialize)]
struct Thought<'a> {
    subject: &'a str,
    description: &'a str,
    timestamp: &'a str,
}

/// Token counts of a model message.
#[derive(Serialize)]
struct Tokens {
    input: u64,
    output: u64,
    cached: u64,
    thoughts: u64,
    tool: u64,
    total: u64,
}

/// What a model message carries beyond its text (thoughts as subject
/// and description).
struct ModelMeta {
    thoughts: Vec<(String, String)>,
    tokens: Option<Tokens>,
    model: String,
    logprobs: Option<Box<RawValue>>,
}

/// [`ModelMeta`] as written, each thought stamped with the message's time.
#[derive(Serialize)]
struct MetaLine<'a> {
    thoughts: Vec<Thought<'a>>,
    tokens: Option<&'a Tokens>,
    model: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    logprobs: Option<&'a RawValue>,
}

/// The last model message, kept to be written again with its calls.
pub(super) struct ModelMessage {
    id: String,
    timestamp: String,
    text: String,
    meta: Option<ModelMeta>,
}

/// A message's content.
#[derive(Serialize)]
#[serde(untagged)]
enum Content<'a> {
    Text(&'a str),
    Parts(&'a [Part]),
    /// The parts of several calls' responses, joined.
    PartRefs(&'a [&'a Part]),
}

/// One message line (`MessageRecord`'s fields, in its order).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Line<'a> {
    id: &'a str,
    timestamp: &'a str,
    #[serde(rename = "type")]
    kind: &'a str,
    content: Content<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_calls: Option<&'a [CallLine<'a>]>,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    meta: Option<MetaLine<'a>>,
}

impl<'a> Line<'a> {
    /// A message with neither calls nor model details.
    fn plain(id: &'a str, timestamp: &'a str, kind: &'a str, content: Content<'a>) -> Self {
        Line {
            id,
            timestamp,
            kind,
            content,
            tool_calls: None,
            meta: None,
        }
    }
}

/// Appends a new message (its id made here) of `kind` holding `content`.
fn push_message(out: &mut Vec<u8>, kind: &str, content: Content<'_>, timestamp: &str) -> Result {
    let id = new_id();
    push_line(out, &Line::plain(&id, timestamp, kind, content))
}

/// Appends a user message of `parts`, stamped `timestamp`.
pub(super) fn user_line(out: &mut Vec<u8>, parts: &[Part], timestamp: &str) -> Result {
    push_message(out, "user", Content::Parts(parts), timestamp)
}

/// The `$set` of a new conversation's first message, its environment
/// context, as Gemini CLI 0.61 records its own: a user message in
/// `<session_context>` tags, which resuming and listings leave out.
#[derive(Serialize)]
struct ContextSet<'a> {
    #[serde(rename = "$set")]
    set: ContextFields<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ContextFields<'a> {
    messages: [Line<'a>; 1],
    last_updated: &'a str,
}

/// The `$set` line opening a conversation with its environment context.
pub(super) fn context_line(text: &str, timestamp: &str) -> Result<Vec<u8>> {
    let id = new_id();
    let parts = [Part::text(format!(
        "<session_context>\n{text}\n</session_context>"
    ))];
    let message = Line::plain(&id, timestamp, "user", Content::Parts(&parts));
    let set = ContextSet {
        set: ContextFields {
            messages: [message],
            last_updated: timestamp,
        },
    };
    let mut line = Vec::new();
    push_line(&mut line, &set)?;
    Ok(line)
}

/// Appends an info, warning or error line.
pub(super) fn note_line(out: &mut Vec<u8>, kind: &str, text: &str, timestamp: &str) -> Result {
    push_message(out, kind, Content::Text(text), timestamp)
}

/// Splits a thought into its `**subject**` and the rest.
fn split_thought(text: &str) -> (String, String) {
    let (subject, description) = text
        .trim_start()
        .strip_prefix("**")
        .and_then(|rest| rest.split_once("**"))
        .map(|(s, d)| (s.trim(), d.trim()))
        .unwrap_or(("", text.trim()));
    (subject.to_string(), description.to_string())
}

impl ModelMessage {
    /// A model turn of `parts` at `timestamp`: its text (thoughts left
    /// out), its thoughts as subject and description, its token `usage`,
    /// the `model` that answered and (with `model.logprobs`) `logprobs`.
    pub(super) fn new(
        parts: &[Part],
        usage: Option<&UsageMetadata>,
        (model, logprobs): (&str, Option<&Value>),
        timestamp: &str,
    ) -> Self {
        let text: String = (parts.iter())
            .filter(|p| !p.is_thought())
            .filter_map(|p| p.text.as_deref())
            .collect();
        let thoughts = (parts.iter())
            .filter(|p| p.is_thought())
            .filter_map(|p| p.text.as_deref())
            .map(split_thought)
            .collect();
        let tokens = usage.map(|u| {
            let n = |v: Option<u64>| v.unwrap_or(0);
            Tokens {
                input: n(u.prompt_token_count),
                output: n(u.candidates_token_count),
                cached: n(u.cached_content_token_count),
                thoughts: n(u.thoughts_token_count),
                tool: n(u.tool_use_prompt_token_count),
                total: n(u.total_token_count),
            }
        });
        ModelMessage {
            id: new_id(),
            timestamp: timestamp.to_string(),
            text,
            meta: Some(ModelMeta {
                thoughts,
                tokens,
                model: model.to_string(),
                logprobs: logprobs.and_then(|v| serde_json::value::to_raw_value(v).ok()),
            }),
        }
    }

    /// A model message with no text to carry calls that came without one.
    pub(super) fn bare(timestamp: &str) -> Self {
        ModelMessage {
            id: new_id(),
            timestamp: timestamp.to_string(),
            text: String::new(),
            meta: None,
        }
    }

    /// Appends the message's line (with `calls` once it has some).
    pub(super) fn line(&self, out: &mut Vec<u8>, calls: &[CallLine<'_>]) -> Result {
        let meta = self.meta.as_ref().map(|m| MetaLine {
            thoughts: (m.thoughts.iter())
                .map(|(subject, description)| Thought {
                    subject,
                    description,
                    timestamp: &self.timestamp,
                })
                .collect(),
            tokens: m.tokens.as_ref(),
            model: &m.model,
            logprobs: m.logprobs.as_deref(),
        });
        push_line(
            out,
            &Line {
                id: &self.id,
                timestamp: &self.timestamp,
                kind: "gemini",
                content: Content::Text(&self.text),
                tool_calls: (!calls.is_empty()).then_some(calls),
                meta,
            },
        )
    }
}

/// Appends the user message of the `calls`' functionResponse parts, as
/// Gemini CLI records it after the calls; false (nothing appended) when
/// they sent none.
pub(super) fn responses_line(
    out: &mut Vec<u8>,
    calls: &[CallLine<'_>],
    timestamp: &str,
) -> Result<bool> {
    let parts: Vec<&Part> = calls.iter().flat_map(|c| c.result).collect();
    if parts.is_empty() {
        return Ok(false);
    }
    push_message(out, "user", Content::PartRefs(&parts), timestamp)?;
    Ok(true)
}

/// A line parsed back into the record the trajectory keeps.
pub(super) fn record_of(line: &[u8]) -> std::io::Result<MessageRecord> {
    serde_json::from_slice(line).map_err(std::io::Error::other)
}
