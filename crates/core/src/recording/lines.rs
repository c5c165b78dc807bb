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

/// When something happened, taken on the agent's thread (formatting
/// waits for the writer).
pub(super) type Stamp = chrono::DateTime<chrono::Utc>;

/// What appending a line gives.
type Result<T = ()> = std::io::Result<T>;

/// The ISO form Gemini CLI records (`2026-01-02T03:04:05.678Z`). Its
/// date, hour and minute are formatted once a minute per thread; the
/// seconds and milliseconds are written digit by digit.
pub(super) fn format_stamp(at: &Stamp) -> String {
    thread_local! {
        /// The last minute formatted, and its `YYYY-MM-DDTHH:MM:`.
        static MINUTE: std::cell::RefCell<(i64, String)> = const {
            std::cell::RefCell::new((i64::MIN, String::new()))
        };
    }
    let chrono_form = || at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    let nanos = at.timestamp_subsec_nanos();
    if nanos >= 1_000_000_000 {
        return chrono_form(); // a leap second, written `:60`
    }
    let secs = at.timestamp();
    let (minute, second) = (secs.div_euclid(60), secs.rem_euclid(60) as u32);
    MINUTE.with_borrow_mut(|(cached, prefix)| {
        if *cached != minute {
            let whole = chrono_form();
            let keep = whole.len().saturating_sub("05.678Z".len());
            *prefix = whole[..keep].to_string();
            *cached = minute;
        }
        let millis = nanos / 1_000_000;
        let digit = |n: u32| char::from(b'0' + (n % 10) as u8);
        let mut out = String::with_capacity(prefix.len() + 7);
        out.push_str(prefix);
        out.extend([digit(second / 10), digit(second), '.']);
        out.extend([digit(millis / 100), digit(millis / 10), digit(millis), 'Z']);
        out
    })
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

/// The fields of a recorded tool call before its `result`
/// (`ToolCallRecord`'s order).
#[derive(Serialize)]
struct CallHead<'a> {
    id: &'a str,
    name: &'a str,
    args: &'a Value,
}

/// The fields of a recorded tool call after its `result`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CallTail<'a> {
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

impl<'a> CallTail<'a> {
    /// The rest of `call`'s record, finished at `timestamp`.
    fn of(call: &FinishedCall<'a>, timestamp: &'a str) -> Self {
        let result_display = match call.display {
            ToolDisplay::Text(t) => DisplayLine::Text(t),
            ToolDisplay::FileDiff(d) => DisplayLine::Diff {
                file_diff: &d.file_diff,
                file_name: &d.file_name,
            },
            ToolDisplay::Todos(_) => DisplayLine::Other(call.display.to_json()),
        };
        CallTail {
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

/// What a model message carries after its content (and its calls): its
/// thoughts, stamped with the message's time, tokens, model, logprobs.
#[derive(Serialize)]
struct MetaLine<'a> {
    thoughts: Vec<Thought<'a>>,
    tokens: Option<Tokens>,
    model: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    logprobs: Option<&'a Value>,
}

/// The last model message, kept serialised to be written again with its
/// calls (which go between its content and the rest).
pub(super) struct ModelMessage {
    /// `{"id":..,"timestamp":..,"type":"gemini","content":".."`, unclosed.
    head: Vec<u8>,
    /// `,"thoughts":..,"tokens":..,"model":..}`, or `}` for a bare one.
    tail: Vec<u8>,
}

/// A message's content.
#[derive(Serialize)]
#[serde(untagged)]
enum Content<'a> {
    Text(&'a str),
    Parts(&'a [Part]),
}

/// One message line of neither calls nor model details
/// (`MessageRecord`'s fields, in its order).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Line<'a> {
    id: &'a str,
    timestamp: &'a str,
    #[serde(rename = "type")]
    kind: &'a str,
    content: Content<'a>,
}

/// The fields of a message before its content.
#[derive(Serialize)]
struct MessageHead<'a> {
    id: &'a str,
    timestamp: &'a str,
    #[serde(rename = "type")]
    kind: &'a str,
}

/// Appends `value`, a JSON object, without its closing brace (fields are
/// spliced in after it).
fn push_open(out: &mut Vec<u8>, value: &impl Serialize) -> Result {
    serde_json::to_writer(&mut *out, value).map_err(std::io::Error::other)?;
    match out.pop() {
        Some(b'}') => Ok(()),
        _ => Err(std::io::Error::other("a record is not a JSON object")),
    }
}

/// Appends `value`'s fields, a JSON object's, as the rest of an object
/// left open by [`push_open`], and closes it.
fn push_rest(out: &mut Vec<u8>, value: &impl Serialize) -> Result {
    let start = out.len();
    serde_json::to_writer(&mut *out, value).map_err(std::io::Error::other)?;
    match &out[start..] {
        b"{}" => {
            out.truncate(start);
            out.push(b'}');
        }
        [b'{', ..] => out[start] = b',',
        _ => return Err(std::io::Error::other("a record is not a JSON object")),
    }
    Ok(())
}

/// Appends a new message (its id made here) of `kind` holding `content`.
fn push_message(out: &mut Vec<u8>, kind: &str, content: Content<'_>, timestamp: &str) -> Result {
    let id = new_id();
    push_line(
        out,
        &Line {
            id: &id,
            timestamp,
            kind,
            content,
        },
    )
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
    let message = Line {
        id: &id,
        timestamp,
        kind: "user",
        content: Content::Parts(&parts),
    };
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
fn split_thought(text: &str) -> (&str, &str) {
    (text.trim_start().strip_prefix("**"))
        .and_then(|rest| rest.split_once("**"))
        .map(|(s, d)| (s.trim(), d.trim()))
        .unwrap_or(("", text.trim()))
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
    ) -> Result<Self> {
        let text: String = (parts.iter())
            .filter(|p| !p.is_thought())
            .filter_map(|p| p.text.as_deref())
            .collect();
        let thoughts = (parts.iter())
            .filter(|p| p.is_thought())
            .filter_map(|p| p.text.as_deref())
            .map(|t| {
                let (subject, description) = split_thought(t);
                Thought {
                    subject,
                    description,
                    timestamp,
                }
            })
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
        let meta = MetaLine {
            thoughts,
            tokens,
            model,
            logprobs,
        };
        let mut tail = Vec::new();
        push_rest(&mut tail, &meta)?;
        let head = Self::head(&text, timestamp)?;
        Ok(ModelMessage { head, tail })
    }

    /// A model message with no text to carry calls that came without one.
    pub(super) fn bare(timestamp: &str) -> Result<Self> {
        let head = Self::head("", timestamp)?;
        let tail = b"}".to_vec();
        Ok(ModelMessage { head, tail })
    }

    /// A new model message's line up to its `text`, left open.
    fn head(text: &str, timestamp: &str) -> Result<Vec<u8>> {
        let id = new_id();
        let line = Line {
            id: &id,
            timestamp,
            kind: "gemini",
            content: Content::Text(text),
        };
        let mut head = Vec::with_capacity(128 + text.len());
        push_open(&mut head, &line)?;
        Ok(head)
    }

    /// Appends the message's line (as it starts, without calls).
    pub(super) fn line(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.head);
        out.extend_from_slice(&self.tail);
        out.push(b'\n');
    }
}

/// Appends the last model message `msg` again with the finished `calls`
/// (each stamped `timestamp`), then the user message of their
/// functionResponse parts as Gemini CLI records it after them (false
/// when they sent none). Each call's parts are serialised once: the
/// second message copies the bytes of the first.
pub(super) fn calls_lines(
    out: &mut Vec<u8>,
    msg: &ModelMessage,
    calls: &[FinishedCall<'_>],
    timestamp: &str,
) -> Result<bool> {
    out.extend_from_slice(&msg.head);
    out.extend_from_slice(br#","toolCalls":["#);
    // Where each call's parts are, without their brackets.
    let mut results = Vec::with_capacity(calls.len());
    for (i, call) in calls.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        let head = CallHead {
            id: call.id,
            name: call.name,
            args: call.args,
        };
        push_open(out, &head)?;
        out.extend_from_slice(br#","result":"#);
        let start = out.len();
        serde_json::to_writer(&mut *out, call.parts).map_err(std::io::Error::other)?;
        if !call.parts.is_empty() {
            results.push(start + 1..out.len() - 1);
        }
        push_rest(out, &CallTail::of(call, timestamp))?;
    }
    out.push(b']');
    out.extend_from_slice(&msg.tail);
    out.push(b'\n');
    if results.is_empty() {
        return Ok(false);
    }
    let id = new_id();
    let head = MessageHead {
        id: &id,
        timestamp,
        kind: "user",
    };
    push_open(out, &head)?;
    out.extend_from_slice(br#","content":["#);
    for (i, range) in results.into_iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_within(range);
    }
    out.extend_from_slice(b"]}\n");
    Ok(true)
}

/// A line parsed back into the record the trajectory keeps.
pub(super) fn record_of(line: &[u8]) -> std::io::Result<MessageRecord> {
    serde_json::from_slice(line).map_err(std::io::Error::other)
}
