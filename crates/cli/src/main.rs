//! `gemini-rs`: the binary. Parses arguments, loads settings and runs the
//! agent headless (the terminal UI comes later).

mod acp;
mod args;
mod completion;
mod exit;
mod extensions_cmd;
mod from_template;
mod headless;
mod hooks_cmd;
mod man;
mod mcp_cmd;
mod serve;
mod session_flags;
mod settings_file;
mod signals;
mod skills_cmd;
mod subcommand;
mod trust;
mod ui;
mod worktree;

use anyhow::Result;
use args::Args;
use clap::Parser;
use exit::ExitCode;
use gemini_rs_core::{Env, FolderTrust, GeminiPaths, Startup};
use std::io::{IsTerminal, Read};
use std::path::{Path, PathBuf};

const NO_INPUT: &str = "No input provided via stdin. Input can be provided by piping data into gemini or using the --prompt option.";

fn main() {
    exit::quiet_on_closed_output();
    // Arguments are read as they are: a prompt or a path that is not UTF-8
    // must give an error (or be used as a path), never a panic.
    let argv: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    let sub = argv.first().and_then(|a| a.to_str());
    let sub = match sub {
        Some("hook") => Some("hooks"),
        Some("skill") => Some("skills"),
        Some("extension") => Some("extensions"),
        other => other,
    };
    if matches!(
        sub,
        Some("hooks" | "mcp" | "extensions" | "skills" | "completion")
    ) {
        let Some(rest) = utf8_args(&argv[1..]) else {
            eprintln!("Invalid argument: the arguments of this command must be valid UTF-8.");
            std::process::exit(ExitCode::Input.code());
        };
        if sub == Some("hooks") {
            // `gemini-rs hooks list`.
            std::process::exit(hooks_cmd::run(rest));
        }
        if sub == Some("extensions") {
            std::process::exit(extensions_cmd::run(rest));
        }
        if sub == Some("skills") {
            std::process::exit(skills_cmd::run(rest));
        }
        if sub == Some("completion") {
            std::process::exit(completion::run(rest));
        }
        // `gemini-rs mcp ...`: server management and `mcp serve` (stdout is
        // the protocol there, so nothing else may print on it).
        let code = match tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
        {
            Ok(rt) => rt.block_on(mcp_cmd::run(rest)),
            Err(e) => {
                eprintln!("{e}");
                1
            }
        };
        std::process::exit(code);
    }
    std::process::exit(match real_main() {
        Ok(code) => code,
        Err(e) => {
            eprintln!("{e:#}");
            1
        }
    });
}

/// The arguments as strings, or `None` when one is not valid UTF-8.
fn utf8_args(args: &[std::ffi::OsString]) -> Option<Vec<String>> {
    args.iter()
        .map(|a| a.to_str().map(str::to_string))
        .collect()
}

/// The arguments, checked; on an error (or help) the exit code, printed.
fn parse_args() -> Result<(Args, Option<String>), i32> {
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let (args, listen) = if argv.get(1).is_some_and(|a| a == "serve") {
        // `gemini-rs serve --listen ADDR [flags of each session]`.
        let rest = std::iter::once("gemini-rs serve".into()).chain(argv.into_iter().skip(2));
        let cli = serve::ServeCli::try_parse_from(rest).map_err(print_parse_error)?;
        if !cli.agent.prompt.is_empty()
            || cli.agent.prompt_flag.is_some()
            || cli.agent.prompt_interactive.is_some()
            || cli.agent.acp
        {
            eprintln!(
                "gemini-rs serve takes no prompt (nor --acp): clients send prompts over ACP or A2A."
            );
            return Err(ExitCode::Input.code());
        }
        (cli.agent, Some(cli.listen))
    } else {
        (Args::try_parse().map_err(print_parse_error)?, None)
    };
    if let Err(msg) = args.check() {
        eprintln!("{msg}");
        return Err(ExitCode::Input.code());
    }
    if let Err(msg) = args.check_session_flags() {
        eprintln!("{msg}");
        return Err(ExitCode::Error.code());
    }
    Ok((args, listen))
}

/// Prints a clap error (or help); the exit code it means.
fn print_parse_error(e: clap::Error) -> i32 {
    use clap::error::ErrorKind;
    {
        let code = match e.kind() {
            ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => 0,
            // An unknown flag exits 1, as in both Gemini CLI versions.
            ErrorKind::UnknownArgument => 1,
            _ => 42,
        };
        let _ = e.print();
        code
    }
}

fn real_main() -> Result<i32> {
    let (args, listen) = match parse_args() {
        Ok(a) => a,
        Err(code) => return Ok(code),
    };
    if args.skip_trust {
        // As in Gemini CLI, --skip-trust is the variable for this run (hooks
        // and other children see it too).
        // SAFETY: called from main before the runtime or any other thread exists.
        unsafe { std::env::set_var("GEMINI_CLI_TRUST_WORKSPACE", "true") };
    }
    if let Some(name) = &args.worktree
        && let Err(e) = worktree::enter(name)
    {
        eprintln!("{e}");
        return Ok(ExitCode::Error.code());
    }
    let Some(template) = args.workspace_from.clone() else {
        return run_here(args, listen);
    };
    // `--workspace-from`: the run happens in the copy, named by the session.
    let mut args = args;
    let session_id = match args.resume.is_some() || args.session_file.is_some() {
        // A resumed session keeps its id; its copy gets a name of its own.
        true => uuid::Uuid::new_v4().to_string(),
        false => args
            .session_id
            .get_or_insert_with(|| uuid::Uuid::new_v4().to_string())
            .trim()
            .to_string(),
    };
    let launched = project_root()?;
    from_template::anchor_files(&mut args);
    let entered = match from_template::enter(
        &template,
        args.patch_out.clone(),
        &launched,
        &GeminiPaths::from_env(),
        &session_id,
    ) {
        Ok(e) => e,
        Err(code) => return Ok(code),
    };
    let code = run_here(args, listen)?;
    Ok(entered.finish(code))
}

/// The run in the working directory as it is now (`listen`: the address
/// `gemini-rs serve` listens on).
fn run_here(args: Args, listen: Option<String>) -> Result<i32> {
    let root = project_root()?;
    let paths = GeminiPaths::from_env();
    let trust = match gemini_rs_core::folder_trust(&root, &paths, &Env::from_process()) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{e}");
            return Ok(ExitCode::Config.code());
        }
    };
    load_dotenv(&root, &paths.home, trust == FolderTrust::Trusted);
    if let Some(missing) = args.admin_policy.iter().find(|f| !f.exists()) {
        eprintln!(
            "--admin-policy: {} does not exist (give a policy file or a folder of them).",
            missing.display()
        );
        return Ok(ExitCode::Input.code());
    }
    if let Some(listen) = listen {
        // Sessions are served over the network; logs go to stderr.
        init_tracing(args.debug, None);
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()?;
        let code = runtime.block_on(serve::run(&listen, args, paths, root));
        runtime.shutdown_timeout(std::time::Duration::from_millis(100));
        gemini_rs_core::terminate_children(signals::GRACE);
        return Ok(code);
    }
    if args.acp {
        // stdout is the protocol: logs go to stderr only. ACP starts without
        // the trust check; an untrusted folder's own parts stay unloaded.
        init_tracing(args.debug, None);
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()?;
        let code = runtime.block_on(acp::run(args, paths));
        runtime.shutdown_timeout(std::time::Duration::from_millis(100));
        gemini_rs_core::terminate_children(signals::GRACE);
        return Ok(code);
    }
    let stdin_is_tty = std::io::stdin().is_terminal();
    // A positional prompt on a terminal opens the UI with that prompt, as
    // in Gemini CLI; -p always runs headless.
    let interactive_prompt = args.prompt_interactive.clone().or_else(|| {
        (stdin_is_tty && args.prompt_flag.is_none() && !args.prompt.is_empty())
            .then(|| args.prompt.join(" "))
    });
    let ui_mode = interactive_prompt.is_some() || (stdin_is_tty && args.prompt_flag.is_none());
    let session_id = args
        .session_id
        .as_deref()
        .map(|id| id.trim().to_string())
        .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
    // The UI owns the terminal: its debug log goes to a file.
    let log_file = ui_mode.then(|| paths.project_temp_dir(&root).join("gemini-rs-debug.log"));
    init_tracing(args.debug, log_file.as_deref());
    // Loading is safe before the trust decision: in a folder that is not
    // trusted it reads nothing of the folder.
    let mut startup = match load_startup(&args, &root, &paths, &session_id) {
        Ok(s) => s,
        Err(code) => return Ok(code),
    };
    // Listing and deleting run nothing of the folder: no trust check, as
    // in Gemini CLI.
    if args.list_extensions {
        println!("Installed extensions:");
        for e in startup.extensions.iter() {
            println!("- {}", e.name);
        }
        return Ok(0);
    }
    if args.list_sessions || args.delete_session.is_some() {
        return Ok(sessions_command(&args, &paths, &root));
    }
    match decide_trust(&args, ui_mode, trust, &root, &paths, &session_id) {
        Ok(false) => {}
        Ok(true) => {
            load_dotenv(&root, &paths.home, true);
            startup = match load_startup(&args, &root, &paths, &session_id) {
                Ok(s) => s,
                Err(code) => return Ok(code),
            };
        }
        Err(code) => return Ok(code),
    }
    let mut args = args;
    if let Err(code) = session_flags::apply(&mut args, &paths, &root, &session_id) {
        return Ok(code);
    }
    if ui_mode {
        // The flag, else `ui.accessibility.screenReader`, as Gemini CLI.
        let from_settings = startup
            .settings
            .typed()
            .ui
            .accessibility
            .screen_reader
            .unwrap_or(gemini_rs_core::setting_defaults::SCREEN_READER);
        ui::set_screen_reader(args.screen_reader || from_settings);
        let code = run_ui(args, startup, &root, &paths, session_id, interactive_prompt);
        return Ok(code);
    }
    headless_main(args, startup, session_id, stdin_is_tty)
}

/// The terminal UI; when it finds no credentials and the user picks a
/// provider (saved in the settings), it starts again with the settings
/// read anew and any key typed in for this run.
fn run_ui(
    mut args: Args,
    mut startup: Startup,
    root: &Path,
    paths: &GeminiPaths,
    session_id: String,
    prompt: Option<String>,
) -> i32 {
    let mut typed: Vec<(String, String)> = Vec::new();
    loop {
        let mut config = args.session_config(startup, true, session_id.clone());
        // The terminal UI shows the model's questions (ask_user); the
        // prompt is taken at once and MCP servers join as they connect.
        config.ask_user = true;
        config.mcp_in_background = true;
        for (var, value) in &typed {
            config.env = config.env.with(var, value);
        }
        match ui::start(config, args.output_format, prompt.clone()) {
            ui::Ended::Exit(exit) => {
                // What the session could not end in time (background
                // commands on a signal) is ended on the way out; after a
                // signal within what is left of its grace.
                let grace = match exit {
                    ExitCode::Terminated | ExitCode::HungUp => signals::CHILDREN_GRACE,
                    _ => signals::GRACE,
                };
                gemini_rs_core::terminate_children(grace);
                return exit.code();
            }
            ui::Ended::Chosen(chosen) => {
                println!("{}", chosen.note);
                // The choice wins over a `-m` naming another provider.
                let other = args.model.as_deref().is_some_and(|m| m.contains('/'));
                if chosen.model.is_some() || other {
                    args.model = None;
                }
                typed.extend(chosen.key);
                startup = match load_startup(&args, root, paths, &session_id) {
                    Ok(s) => s,
                    Err(code) => {
                        gemini_rs_core::terminate_children(signals::GRACE);
                        return code;
                    }
                };
            }
        }
    }
}

/// The trust decision before a session: headless in a folder that is not
/// trusted exits 55, the terminal UI asks when no rule decides. `Ok(true)`
/// when the dialog has just trusted the folder (load it again); on refusal
/// or failure the exit code, printed.
fn decide_trust(
    args: &Args,
    ui_mode: bool,
    trust: FolderTrust,
    root: &Path,
    paths: &GeminiPaths,
    session_id: &str,
) -> Result<bool, i32> {
    if !ui_mode && trust != FolderTrust::Trusted {
        headless::fatal_before_run(
            args.output_format,
            session_id,
            "FatalUntrustedWorkspaceError",
            trust::UNTRUSTED_HEADLESS,
            ExitCode::Untrusted,
        );
        return Err(ExitCode::Untrusted.code());
    }
    if !ui_mode || trust != FolderTrust::Unknown {
        return Ok(false);
    }
    match trust::ask(root, paths) {
        Ok(trust::Answer::Decided(t)) => Ok(t == FolderTrust::Trusted),
        Ok(trust::Answer::Cancelled) => {
            eprintln!("A trust level must be chosen to go on; exiting.");
            Err(ExitCode::Cancelled.code())
        }
        Err(e) => {
            eprintln!("{e}");
            Err(ExitCode::Error.code())
        }
    }
}

/// The start-up load with `-e/--extensions` applied; on failure the error
/// is printed and the exit code returned.
fn load_startup(
    args: &Args,
    root: &Path,
    paths: &GeminiPaths,
    session_id: &str,
) -> Result<Startup, i32> {
    let mut startup = match Startup::load(root.to_path_buf(), paths.clone(), Env::from_process()) {
        Ok(s) => s,
        Err(e) => {
            headless::fatal_before_run(
                args.output_format,
                session_id,
                "FatalConfigError",
                &e.to_string(),
                ExitCode::Config,
            );
            return Err(ExitCode::Config.code());
        }
    };
    for name in startup.select_extensions(&args.extensions) {
        eprintln!("Extension not found: {name}");
    }
    Ok(startup)
}

/// A headless run: the prompt from -p, the positional words and stdin.
fn headless_main(
    args: Args,
    startup: Startup,
    session_id: String,
    stdin_is_tty: bool,
) -> Result<i32> {
    let prompt = args
        .prompt_flag
        .clone()
        .or_else(|| (!args.prompt.is_empty()).then(|| args.prompt.join(" ")));
    let stdin_text = if stdin_is_tty {
        String::new()
    } else {
        read_stdin()
    };
    let input = match (stdin_text.trim().is_empty(), prompt) {
        (false, Some(p)) if !p.is_empty() => {
            format!("{}\n\n{p}", stdin_text.trim_end_matches('\n'))
        }
        (false, _) => stdin_text,
        (true, Some(p)) if !p.trim().is_empty() => p,
        (true, _) => {
            headless::fatal_before_run(
                args.output_format,
                &session_id,
                "FatalInputError",
                NO_INPUT,
                ExitCode::Input,
            );
            return Ok(ExitCode::Input.code());
        }
    };

    let output_schema = match args.output_schema() {
        Ok(schema) => schema,
        Err(msg) => {
            headless::fatal_before_run(
                args.output_format,
                &session_id,
                "FatalInputError",
                &msg,
                ExitCode::Input,
            );
            return Ok(ExitCode::Input.code());
        }
    };
    // One thread: a headless run is one conversation, and the engine's
    // events then reach the printer without waking another thread (a
    // 10,000-turn replay: 23,000 context switches instead of 61,000).
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let mut config = args.session_config(startup, false, session_id);
    config.output_schema = output_schema;
    let code = runtime.block_on(headless::run(
        config,
        input,
        args.output_format,
        args.raw_output,
    ));
    runtime.shutdown_timeout(std::time::Duration::from_millis(100));
    gemini_rs_core::terminate_children(signals::GRACE);
    Ok(code.code())
}

/// `--list-sessions` and `--delete-session`: print and exit.
fn sessions_command(args: &Args, paths: &GeminiPaths, root: &Path) -> i32 {
    if let Some(which) = &args.delete_session {
        return match gemini_rs_core::delete_session(paths, root, which) {
            Ok(info) => {
                println!("Deleted session {}.", info.session_id);
                0
            }
            Err(e) => {
                eprintln!("{e}");
                42
            }
        };
    }
    let sessions = gemini_rs_core::list_sessions(paths, root);
    if sessions.is_empty() {
        println!("No previous sessions found for this project.");
        return 0;
    }
    println!(
        "\nAvailable sessions for this project ({}):",
        sessions.len()
    );
    for (i, s) in sessions.iter().enumerate() {
        // As Gemini CLI: whitespace folded, non-ASCII dropped, 100 columns.
        let folded = s.title().split_whitespace().collect::<Vec<_>>().join(" ");
        let clean: String = folded.chars().filter(|c| (' '..='~').contains(c)).collect();
        let title = if clean.chars().count() > 100 {
            format!("{}...", clean.chars().take(97).collect::<String>())
        } else {
            clean
        };
        println!(
            "  {}. {title} ({}) [{}]",
            i + 1,
            relative_time(&s.last_updated),
            s.session_id
        );
    }
    0
}

/// `Just now`, `5 minutes ago`, `1 hour ago`, `3 days ago`, as Gemini CLI
/// words it (the stamp itself when it is not a time).
fn relative_time(stamp: &str) -> String {
    let Ok(then) = chrono::DateTime::parse_from_rfc3339(stamp) else {
        return stamp.to_string();
    };
    let ago = chrono::Utc::now().signed_duration_since(then);
    let plural = |n: i64, unit: &str| format!("{n} {unit}{} ago", if n == 1 { "" } else { "s" });
    match (ago.num_days(), ago.num_hours(), ago.num_minutes()) {
        (d, _, _) if d > 0 => plural(d, "day"),
        (_, h, _) if h > 0 => plural(h, "hour"),
        (_, _, m) if m > 0 => plural(m, "minute"),
        _ => "Just now".to_string(),
    }
}

fn project_root() -> Result<PathBuf> {
    let cwd = std::env::current_dir()?;
    Ok(std::fs::canonicalize(&cwd).unwrap_or(cwd))
}

fn read_stdin() -> String {
    let mut buf = Vec::new();
    let _ = std::io::stdin().lock().read_to_end(&mut buf);
    String::from_utf8_lossy(&buf).into_owned()
}

/// Applies the project's `.env` before any thread starts (in an untrusted
/// folder only its credential variables).
fn load_dotenv(root: &Path, home: &Path, trusted: bool) {
    let current = |k: &str| std::env::var_os(k).is_some();
    for (key, value) in gemini_rs_core::dotenv_vars(root, home, trusted, &current) {
        // SAFETY: called from main before the runtime or any other thread exists.
        unsafe { std::env::set_var(key, value) };
    }
}

/// Logging: off unless `-d` (or `GEMINI_RS_LOG`); to stderr in headless
/// mode, to `log_file` when the terminal UI runs.
fn init_tracing(debug: bool, log_file: Option<&Path>) {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let filter = if debug {
        tracing_subscriber::EnvFilter::new("debug")
    } else {
        match tracing_subscriber::EnvFilter::try_from_env("GEMINI_RS_LOG") {
            Ok(f) => f,
            Err(_) => return,
        }
    };
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_target(false);
    let file = log_file.and_then(|path| {
        path.parent().map(std::fs::create_dir_all);
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .ok()
    });
    let _ = match file {
        Some(f) => builder
            .with_ansi(false)
            .with_writer(std::sync::Mutex::new(f))
            .try_init(),
        None => builder.with_writer(std::io::stderr).try_init(),
    };
}
