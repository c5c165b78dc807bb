//! The built-in agents: `codebase_investigator` and `cli_help`, with Gemini
//! CLI's names, inputs and report keys, in our own words.

use super::{AgentDefinition, AgentOrigin, AgentOutput, ToolSelection};
use serde_json::json;

/// The tool `cli_help` reads gemini-rs's bundled documentation with.
pub const INTERNAL_DOCS_TOOL: &str = "get_internal_docs";

/// The built-in agents, in declaration order.
pub(super) fn agents() -> Vec<AgentDefinition> {
    vec![codebase_investigator(), cli_help()]
}

fn codebase_investigator() -> AgentDefinition {
    AgentDefinition {
        name: "codebase_investigator".into(),
        display_name: Some("Codebase Investigator Agent".into()),
        description: "Investigates the codebase for you: maps the architecture, traces dependencies and call paths, and finds the root cause of bugs. Use it for vague requests, root-cause analysis, refactorings that reach across the system, larger features, and any question about the code that needs exploring more than a file or two. It answers with a structured report of its findings, the steps it took, and the relevant files with their key symbols.".into(),
        input_schema: json!({
            "type": "object",
            "properties": {
                "objective": {
                    "type": "string",
                    "description": "The user's goal in full: their original request, what you want to learn, and any context or open questions that help the investigation."
                }
            },
            "required": ["objective"]
        }),
        query: "Investigate the codebase for this objective. Find every file, symbol and design decision that matters for it, and explain how they fit together.\n<objective>\n${objective}\n</objective>".into(),
        system_prompt: INVESTIGATOR_PROMPT.into(),
        output: AgentOutput::Report {
            schema: json!({
                "type": "object",
                "properties": {
                    "SummaryOfFindings": {
                        "type": "string",
                        "description": "What the investigation concluded, written for the agent that asked."
                    },
                    "ExplorationTrace": {
                        "type": "array",
                        "items": {"type": "string"},
                        "description": "Each step taken and tool used, in order."
                    },
                    "RelevantLocations": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "FilePath": {"type": "string"},
                                "Reasoning": {"type": "string"},
                                "KeySymbols": {"type": "array", "items": {"type": "string"}}
                            },
                            "required": ["FilePath", "Reasoning", "KeySymbols"],
                            "additionalProperties": false
                        },
                        "description": "The relevant files, why each matters, and their key symbols."
                    }
                },
                "required": ["SummaryOfFindings", "ExplorationTrace", "RelevantLocations"],
                "additionalProperties": false
            }),
            description: "The investigation's report as a JSON object.".into(),
        },
        tools: ToolSelection::Named(vec![
            "list_directory".into(),
            "read_file".into(),
            "glob".into(),
            "search_file_content".into(),
        ]),
        model: Some("gemini-2.5-pro".into()),
        temperature: None,
        max_turns: Some(10),
        timeout_mins: 3.0,
        origin: AgentOrigin::BuiltIn,
        remote: None,
    }
}

fn cli_help() -> AgentDefinition {
    AgentDefinition {
        name: "cli_help".into(),
        display_name: Some("CLI Help Agent".into()),
        description: "Answers questions about this CLI itself (gemini-rs, a Gemini CLI-compatible agent): its features, commands, settings, providers, tools and configuration, from its bundled documentation.".into(),
        input_schema: json!({
            "type": "object",
            "properties": {
                "question": {
                    "type": "string",
                    "description": "The question about the CLI."
                }
            },
            "required": ["question"]
        }),
        query: "Answer this question about the CLI:\n<question>\n${question}\n</question>".into(),
        system_prompt: CLI_HELP_PROMPT.into(),
        output: AgentOutput::Report {
            schema: json!({
                "type": "object",
                "properties": {
                    "answer": {"type": "string", "description": "The answer to the question."},
                    "sources": {
                        "type": "array",
                        "items": {"type": "string"},
                        "description": "The documentation files the answer relies on."
                    }
                },
                "required": ["answer", "sources"],
                "additionalProperties": false
            }),
            description: "The answer and its sources as a JSON object.".into(),
        },
        tools: ToolSelection::Named(vec![INTERNAL_DOCS_TOOL.into()]),
        model: Some("gemini-2.5-flash".into()),
        temperature: None,
        max_turns: Some(10),
        timeout_mins: 3.0,
        origin: AgentOrigin::BuiltIn,
        remote: None,
    }
}

const INVESTIGATOR_PROMPT: &str = "You are the Codebase Investigator, a sub-agent that studies a codebase on behalf of another agent. You never change files: your job is to understand, and to hand back what the other agent needs in order to act correctly.

# What to find
- The modules, types and functions that take part in the objective, and the role each one plays.
- Why the code is shaped the way it is: follow imports, callers and data flow until nothing relevant is unexplained.
- The consequences of a change: who calls a function that would change, where a type that would change is used, which tests cover the area.
- For a bug, its root cause and how to fix it; for a feature, where it belongs and what must change.

# How to work
- Start from the strongest clues in the objective (names, messages, paths), then widen the search.
- Use glob and search_file_content to locate, list_directory to orient yourself, read_file to understand.
- Keep notes as you go: a checklist of what to verify, open questions, findings with file paths, and dead ends to skip. Do not finish while a relevant question is open.

# Finishing
Call `complete_task` with a `report` object holding `SummaryOfFindings` (your conclusions for the other agent), `ExplorationTrace` (the steps you took, in order) and `RelevantLocations` (one entry per relevant file: `FilePath`, `Reasoning`, `KeySymbols`).";

const CLI_HELP_PROMPT: &str = "You are the CLI Help agent: you answer questions about this command-line agent (gemini-rs, compatible with Gemini CLI) from its own documentation.

# Runtime
- Version: ${cliVersion}
- Active model: ${activeModel}
- Today: ${today}

# How to work
- Call `get_internal_docs` without a path to list the documentation, then read the files that can answer the question.
- Answer precisely, from the documentation and the runtime facts above; say so when the documentation does not cover something.
- Finish with `complete_task`, whose `report` holds the `answer` and the `sources` (documentation files) you used.";
