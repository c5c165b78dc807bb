//! `gemini-rs hooks list`: every hook configured in the settings files,
//! the file it came from and whether it runs here.

mod list;

use clap::{Args as ClapArgs, Parser, Subcommand};
use gemini_rs_core::config::{GeminiPaths, Settings, trust};
use std::path::Path;

/// `gemini-rs hooks`.
#[derive(Debug, Parser)]
#[command(name = "gemini-rs hooks", about = "Manage hooks")]
struct HooksCli {
    #[command(subcommand)]
    command: HooksCommand,
}

#[derive(Debug, Subcommand)]
enum HooksCommand {
    /// List every configured hook, its source and whether it is enabled.
    List(ListArgs),
}

#[derive(Debug, ClapArgs)]
struct ListArgs {
    /// Print the list as JSON.
    #[arg(long)]
    json: bool,
}

/// Runs `gemini-rs hooks <argv…>` and returns the exit code.
pub fn run(argv: Vec<String>) -> i32 {
    let cli: HooksCli = match crate::subcommand::parse("hooks", argv) {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    let cwd = match crate::subcommand::cwd() {
        Ok(cwd) => cwd,
        Err(code) => return code,
    };
    let paths = GeminiPaths::from_env();
    match cli.command {
        HooksCommand::List(args) => match load(&cwd, &paths) {
            Ok(loaded) => list::run(&loaded, args.json),
            Err(e) => {
                eprintln!("Error: {e}");
                1
            }
        },
    }
}

/// The settings as a session would see them, plus every layer file.
struct Loaded {
    /// The merged settings of a run here (no project layer when untrusted).
    runtime: Settings,
    /// Every layer that exists, the project one included even when the
    /// folder is not trusted (so its hooks can be listed as not running).
    all_layers: Settings,
    /// Whether the folder is trusted.
    trusted: bool,
}

fn load(cwd: &Path, paths: &GeminiPaths) -> Result<Loaded, String> {
    let var = |k: &str| std::env::var(k).ok();
    let untrusted = Settings::load(cwd, paths, false, &var)
        .map_err(|e| e.to_string())?
        .settings;
    let trusted = matches!(
        trust::is_trusted(untrusted.folder_trust_enabled(), cwd, paths),
        Ok(trust::Trust::Trusted)
    );
    let all_layers = Settings::load(cwd, paths, true, &var)
        .map_err(|e| e.to_string())?
        .settings;
    let runtime = if trusted {
        all_layers.clone()
    } else {
        untrusted
    };
    Ok(Loaded {
        runtime,
        all_layers,
        trusted,
    })
}
