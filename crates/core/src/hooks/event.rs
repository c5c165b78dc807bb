//! The hook events and what each one is, as data: its names in Gemini
//! CLI and Claude Code, how several hooks' outputs merge, where a Claude
//! hook's exit code 2 goes, and whether Claude Code sends the permission
//! mode with it. A new event is a variant and a row here; its input type,
//! its dispatch and its method on [`super::Hooks`] are the only other
//! places it is named.

/// A hook event (Gemini CLI 0.27.4's, then those only Claude Code has).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum HookEvent {
    /// Before a tool runs (Claude Code: `PreToolUse`).
    BeforeTool,
    /// After a tool ran (Claude Code: `PostToolUse`).
    AfterTool,
    /// Before the agent handles a prompt (Claude Code: `UserPromptSubmit`).
    BeforeAgent,
    /// A notification (tool permission request).
    Notification,
    /// After the agent answered a prompt (Claude Code: `Stop`).
    AfterAgent,
    /// Session start.
    SessionStart,
    /// Session end.
    SessionEnd,
    /// Before history compression (Claude Code: `PreCompact`).
    PreCompress,
    /// Before each model call.
    BeforeModel,
    /// After each streamed model chunk.
    AfterModel,
    /// Before the model chooses tools.
    BeforeToolSelection,
    /// After a tool call failed (Claude Code only: `PostToolUseFailure`).
    AfterToolFailure,
    /// When a sub-agent finishes (Claude Code only: `SubagentStop`).
    SubagentStop,
    /// When a prompt ends on a model error (Claude Code only).
    StopFailure,
    /// When a sub-agent starts (Claude Code only: `SubagentStart`).
    SubagentStart,
    /// After history was compressed (Claude Code only: `PostCompact`).
    PostCompact,
}

/// How the outputs of several hooks of one event combine (§9.6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Merge {
    /// Any block, deny or stop wins; texts are joined.
    Or,
    /// A later hook's fields replace an earlier one's; `specific`: its
    /// `hookSpecificOutput` merges key by key (the model events).
    Replace {
        /// Whether `hookSpecificOutput` merges key by key.
        specific: bool,
    },
    /// BeforeToolSelection's: the union of the tools the hooks allow.
    ToolSelection,
}

/// Where a Claude hook's exit code 2 sends its stderr.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitTwo {
    /// To the model, as added context (after a tool).
    Context,
    /// Blocks what the event is about, the text as the reason.
    Block,
    /// Only shown to the user, as a warning.
    Warn,
}

/// What one event is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventSpec {
    /// The event.
    pub event: HookEvent,
    /// Gemini CLI's name (`hook_event_name`; Claude Code's for the events
    /// only it has).
    pub name: &'static str,
    /// Claude Code's name; `None` for the events it lacks.
    pub claude_name: Option<&'static str>,
    /// Whether Gemini CLI has the event (a settings key of its name makes
    /// a Gemini-format hook).
    pub gemini: bool,
    /// How several hooks' outputs merge.
    pub merge: Merge,
    /// Where a Claude hook's exit code 2 goes.
    pub exit_two: ExitTwo,
    /// Whether Claude Code sends `permission_mode` with it (not at the
    /// session's edges, after a failed prompt, when a sub-agent starts
    /// nor around compaction).
    pub permission_mode: bool,
}

const fn row(
    event: HookEvent,
    name: &'static str,
    claude_name: Option<&'static str>,
    merge: Merge,
    exit_two: ExitTwo,
    permission_mode: bool,
) -> EventSpec {
    EventSpec {
        event,
        name,
        claude_name,
        gemini: true,
        merge,
        exit_two,
        permission_mode,
    }
}

const fn claude_only(spec: EventSpec) -> EventSpec {
    EventSpec {
        gemini: false,
        ..spec
    }
}

use ExitTwo::{Block, Context, Warn};
use HookEvent as E;
const OR: Merge = Merge::Or;
const REPLACE: Merge = Merge::Replace { specific: false };
const MODEL: Merge = Merge::Replace { specific: true };

/// Every event, in the order of [`HookEvent`]'s variants (Gemini CLI's
/// declaration order, then those only Claude Code has).
pub const EVENTS: [EventSpec; 16] = [
    row(
        E::BeforeTool,
        "BeforeTool",
        Some("PreToolUse"),
        OR,
        Block,
        true,
    ),
    row(
        E::AfterTool,
        "AfterTool",
        Some("PostToolUse"),
        OR,
        Context,
        true,
    ),
    row(
        E::BeforeAgent,
        "BeforeAgent",
        Some("UserPromptSubmit"),
        OR,
        Block,
        true,
    ),
    row(
        E::Notification,
        "Notification",
        Some("Notification"),
        REPLACE,
        Warn,
        true,
    ),
    row(E::AfterAgent, "AfterAgent", Some("Stop"), OR, Block, true),
    row(
        E::SessionStart,
        "SessionStart",
        Some("SessionStart"),
        OR,
        Warn,
        false,
    ),
    row(
        E::SessionEnd,
        "SessionEnd",
        Some("SessionEnd"),
        REPLACE,
        Warn,
        false,
    ),
    row(
        E::PreCompress,
        "PreCompress",
        Some("PreCompact"),
        REPLACE,
        Warn,
        false,
    ),
    row(E::BeforeModel, "BeforeModel", None, MODEL, Warn, true),
    row(E::AfterModel, "AfterModel", None, MODEL, Warn, true),
    row(
        E::BeforeToolSelection,
        "BeforeToolSelection",
        None,
        Merge::ToolSelection,
        Warn,
        true,
    ),
    claude_only(row(
        E::AfterToolFailure,
        "PostToolUseFailure",
        Some("PostToolUseFailure"),
        OR,
        Context,
        true,
    )),
    claude_only(row(
        E::SubagentStop,
        "SubagentStop",
        Some("SubagentStop"),
        OR,
        Block,
        true,
    )),
    claude_only(row(
        E::StopFailure,
        "StopFailure",
        Some("StopFailure"),
        REPLACE,
        Warn,
        false,
    )),
    claude_only(row(
        E::SubagentStart,
        "SubagentStart",
        Some("SubagentStart"),
        REPLACE,
        Warn,
        false,
    )),
    claude_only(row(
        E::PostCompact,
        "PostCompact",
        Some("PostCompact"),
        REPLACE,
        Warn,
        false,
    )),
];

impl HookEvent {
    /// Every event, in [`EVENTS`]' order.
    pub fn all() -> impl Iterator<Item = HookEvent> {
        EVENTS.iter().map(|s| s.event)
    }

    /// What the event is (its row of [`EVENTS`]).
    pub fn spec(self) -> &'static EventSpec {
        &EVENTS[self as usize]
    }

    /// The Gemini CLI name (`hook_event_name`).
    pub fn as_str(self) -> &'static str {
        self.spec().name
    }

    /// Claude Code's name for the event (its `hook_event_name` for Claude
    /// hooks); `None` for the model and tool-selection events it lacks.
    pub fn claude_name(self) -> Option<&'static str> {
        self.spec().claude_name
    }

    /// True for the events only Claude Code has (no Gemini CLI twin).
    pub fn claude_only(self) -> bool {
        !self.spec().gemini
    }
}

impl std::fmt::Display for HookEvent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_row_stands_at_its_variants_place() {
        for (i, spec) in EVENTS.iter().enumerate() {
            assert_eq!(spec.event as usize, i, "{}", spec.name);
        }
    }
}
