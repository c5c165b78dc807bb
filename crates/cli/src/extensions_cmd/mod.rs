//! `gemini-rs extensions`: the installed extensions and whether they are on
//! here, switching them on or off for the user (every folder) or the
//! workspace in Gemini CLI's enablement file, installing, checking and
//! configuring them.

use clap::{Args as ClapArgs, Parser, Subcommand, ValueEnum};
use gemini_rs_core::GeminiPaths;
use gemini_rs_core::{list_extensions, set_extension_enabled};
use std::path::PathBuf;

mod config;
mod install;
mod listing;

/// `gemini-rs extensions`.
#[derive(Debug, Parser)]
#[command(name = "gemini-rs extensions", about = "Manage extensions")]
struct ExtensionsCli {
    #[command(subcommand)]
    command: ExtensionsCommand,
}

#[derive(Debug, Subcommand)]
enum ExtensionsCommand {
    /// List the installed extensions.
    List,
    /// Switch an extension on.
    Enable(Switch),
    /// Switch an extension off.
    Disable(Switch),
    /// Install an extension from a local folder or a git repository.
    Install {
        /// A folder holding gemini-extension.json, or a git URL.
        source: String,
        /// Gemini CLI's acknowledgement of a third-party extension's risks
        /// (it asks without it); accepted so its install scripts run.
        #[arg(long)]
        consent: bool,
    },
    /// Use an extension from a folder in place (changes apply at once).
    Link {
        /// A folder holding gemini-extension.json.
        path: String,
    },
    /// Install an extension again from where it came from.
    Update {
        /// The extension's name.
        name: String,
    },
    /// Create a new extension folder from a template.
    New {
        /// The folder to create (its name is the extension's name).
        path: PathBuf,
        /// What to start from.
        #[arg(value_enum, default_value = "context")]
        template: install::Template,
    },
    /// Remove an installed extension.
    Uninstall {
        /// The extension's name.
        name: String,
    },
    /// Check an extension folder's gemini-extension.json.
    Validate {
        /// The extension's folder.
        path: PathBuf,
    },
    /// Set the values an extension asks for (all, one extension's, or one).
    Config {
        /// The extension (all installed ones when left out).
        name: Option<String>,
        /// One setting, by name or variable.
        setting: Option<String>,
        /// Keep the values for every folder (user) or this project (workspace).
        #[arg(long, value_enum, default_value = "user")]
        scope: Scope,
    },
}

#[derive(Debug, ClapArgs)]
struct Switch {
    /// The extension's name.
    name: String,
    /// For every folder (user) or this one and below (workspace).
    #[arg(long, value_enum, default_value = "user")]
    scope: Scope,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Scope {
    User,
    Workspace,
}

/// Runs `gemini-rs extensions <argv…>` and returns the exit code.
pub fn run(argv: Vec<String>) -> i32 {
    let cli: ExtensionsCli = match crate::subcommand::parse("extensions", argv) {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    let cwd = match crate::subcommand::cwd() {
        Ok(cwd) => cwd,
        Err(code) => return code,
    };
    let paths = GeminiPaths::from_env();
    let installed = list_extensions(&paths, &cwd);
    match cli.command {
        ExtensionsCommand::List => {
            // Gemini CLI prints the list on stderr, in both releases.
            if installed.is_empty() {
                eprintln!("No extensions installed.");
            }
            let view = settings_view(&paths, &cwd);
            let listed: Vec<String> = installed
                .iter()
                .map(|e| listing::describe(e, view))
                .collect();
            if !listed.is_empty() {
                eprintln!("{}", listed.join("\n\n"));
            }
            0
        }
        ExtensionsCommand::Enable(s) | ExtensionsCommand::Disable(s)
            if !installed.iter().any(|e| e.name == s.name) =>
        {
            eprintln!("Extension with name {} does not exist.", s.name);
            1
        }
        ExtensionsCommand::Enable(s) => switch(&paths, &cwd, &s, true),
        ExtensionsCommand::Disable(s) => switch(&paths, &cwd, &s, false),
        ExtensionsCommand::Install { source, .. } => match install::install(&paths, &source) {
            Ok(name) => {
                println!("Extension \"{name}\" installed successfully and enabled.");
                0
            }
            Err(e) => {
                eprintln!("{e}");
                1
            }
        },
        ExtensionsCommand::Link { path } => match install::link(&paths, &path) {
            Ok(name) => {
                println!("Extension \"{name}\" linked successfully and enabled.");
                0
            }
            Err(e) => {
                eprintln!("{e}");
                1
            }
        },
        ExtensionsCommand::Update { name } => match install::update(&paths, &name) {
            Ok(()) => {
                println!("Extension \"{name}\" updated.");
                0
            }
            Err(e) => {
                eprintln!("{e}");
                1
            }
        },
        ExtensionsCommand::New { path, template } => match install::create(&path, template) {
            Ok(()) => {
                println!("Extension created at {}.", path.display());
                0
            }
            Err(e) => {
                eprintln!("{e}");
                1
            }
        },
        ExtensionsCommand::Validate { path } => config::validate(&path),
        ExtensionsCommand::Config {
            name,
            setting,
            scope,
        } => {
            let install_dir = |name: &str| paths.gemini_dir.join("extensions").join(name);
            let scope = match scope {
                Scope::User => config::EnvScope::User,
                Scope::Workspace => config::EnvScope::Workspace,
            };
            config::configure(
                &installed,
                &install_dir,
                &cwd,
                name.as_deref(),
                setting.as_deref(),
                scope,
            )
        }
        ExtensionsCommand::Uninstall { name } => match install::uninstall(&paths, &name) {
            Ok(()) => {
                println!("Extension \"{name}\" successfully uninstalled.");
                0
            }
            Err(e) => {
                eprintln!("{e}");
                1
            }
        },
    }
}

fn switch(paths: &GeminiPaths, cwd: &std::path::Path, s: &Switch, on: bool) -> i32 {
    let (scope_path, scope): (PathBuf, &str) = match s.scope {
        Scope::User => (paths.home.clone(), "user"),
        Scope::Workspace => (cwd.to_path_buf(), "workspace"),
    };
    match set_extension_enabled(paths, &s.name, &scope_path, on) {
        Ok(()) => {
            let what = if on { "enabled" } else { "disabled" };
            println!(
                "Extension \"{}\" successfully {what} for scope \"{scope}\".",
                s.name
            );
            0
        }
        Err(e) => {
            eprintln!("Could not update the extension enablement file: {e}");
            1
        }
    }
}

/// Its argument definitions (for completions and the man page).
pub fn command() -> clap::Command {
    <ExtensionsCli as clap::CommandFactory>::command()
}

/// Whether and how `extensions list` shows settings here: the folder's
/// `experimental.extensionConfig`, else the dialect's default.
fn settings_view(paths: &GeminiPaths, cwd: &std::path::Path) -> listing::SettingsView {
    let startup = gemini_rs_core::Startup::load(
        cwd.to_path_buf(),
        paths.clone(),
        gemini_rs_core::Env::from_process(),
    );
    let (dialect, configured) = match &startup {
        Ok(s) => (
            s.dialect(),
            s.settings.typed().experimental.extension_config,
        ),
        Err(_) => {
            let env = std::env::var(gemini_rs_core::DIALECT_ENV).ok();
            let chosen = env.as_deref().and_then(gemini_rs_core::Dialect::parse);
            (chosen.unwrap_or_default(), None)
        }
    };
    let texts = dialect.texts();
    listing::SettingsView {
        shown: configured.unwrap_or(texts.extension_settings_default),
        empty_is_unset: texts.extension_empty_is_unset,
    }
}
