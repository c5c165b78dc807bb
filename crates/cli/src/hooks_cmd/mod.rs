//! `gemini-rs hooks list`: every hook configured in the settings files,
//! the file it came from and whether it runs here.

mod list;

use clap::{Args as ClapArgs, Parser, Subcommand};
use gemini_rs_core::{GeminiPaths, Startup};

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
    let startup = match Startup::load(
        cwd,
        GeminiPaths::from_env(),
        gemini_rs_core::Env::from_process(),
    ) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("Error: {e}");
            return 1;
        }
    };
    match cli.command {
        HooksCommand::List(args) => match gemini_rs_core::list_hooks(&startup) {
            Ok(listing) => list::run(&listing, args.json),
            Err(e) => {
                eprintln!("Error: {e}");
                1
            }
        },
    }
}
