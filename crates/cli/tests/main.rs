//! Integration tests of the `gemini-rs` binary: it runs for real, against
//! recorded sessions and the fake model/web server of
//! `gemini-rs-test-support` on 127.0.0.1.
// clippy.toml lets tests unwrap, but it cannot tell an integration test
// crate's helper functions from library code: allow it here, once.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod acp;
mod agents;
mod automation;
mod background;
mod claude_reference;
mod commands;
mod conformance;
mod dialect_sessions;
mod dialects;
mod e2e;
mod engines;
mod first_hour;
mod first_hour_lean;
mod fs_tools;
mod hardening;
mod harnesses;
mod hooks;
mod limits;
mod mcp;
mod output_schema;
mod packaging;
mod plan_mode;
mod policy_070;
mod provider_wires;
mod providers;
mod public_extensions;
mod routing;
mod sandbox;
mod serve;
mod sessions;
mod signals;
mod skills;
mod small_model;
mod subcommands;
mod support;
mod telemetry;
mod today_flags;
mod today_names;
mod today_sessions;
mod today_settings;
mod todos;
mod tokens;
mod trajectory;
mod trust;
mod tui;
mod tui_ask_user;
mod tui_commands;
mod tui_first_hour;
mod tui_habits;
mod tui_plan;
mod tui_providers;
mod tui_resume;
mod tui_rewind_settings;
mod tui_today;
mod tui_trust;
mod web;
mod workspaces;
