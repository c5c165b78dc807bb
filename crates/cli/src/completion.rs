//! `gemini-rs completion bash|zsh|fish|powershell|elvish|man`: shell
//! completions and the man page, generated from the argument definitions
//! (the main command and every management subcommand).

use clap::{CommandFactory, ValueEnum};
use clap_complete::Shell;

/// What to print.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Output {
    Bash,
    Zsh,
    Fish,
    Powershell,
    Elvish,
    /// The man page (roff), e.g. `> gemini-rs.1`.
    Man,
}

/// `gemini-rs completion`.
#[derive(Debug, clap::Parser)]
#[command(
    name = "gemini-rs completion",
    about = "Print shell completions or the man page",
    after_help = "Examples:\n  gemini-rs completion bash > ~/.local/share/bash-completion/completions/gemini-rs\n  gemini-rs completion zsh > ~/.zfunc/_gemini-rs\n  gemini-rs completion fish > ~/.config/fish/completions/gemini-rs.fish\n  gemini-rs completion man > ~/.local/share/man/man1/gemini-rs.1\n  gemini-rs completion man --dir ~/.local/share/man/man1   # and the subcommands' pages"
)]
struct CompletionCli {
    /// The shell (or `man` for the man page).
    #[arg(value_enum)]
    output: Output,
    /// With `man`: write gemini-rs.1 and a page for every subcommand
    /// (gemini-rs-mcp.1, gemini-rs-mcp-add.1, ...) into this folder.
    #[arg(long, value_name = "DIR", value_hint = clap::ValueHint::DirPath)]
    dir: Option<std::path::PathBuf>,
}

/// The whole command tree: the main arguments and the subcommands.
pub fn command() -> clap::Command {
    crate::args::Args::command()
        .subcommand(crate::mcp_cmd::command().name("mcp"))
        .subcommand(crate::hooks_cmd::command().name("hooks"))
        .subcommand(crate::extensions_cmd::command().name("extensions"))
        .subcommand(crate::skills_cmd::command().name("skills"))
        .subcommand(CompletionCli::command().name("completion"))
        // A prompt may follow the options; the subcommands come first.
        .args_conflicts_with_subcommands(true)
}

/// Runs `gemini-rs completion <argv…>`; the exit code.
pub fn run(argv: Vec<String>) -> i32 {
    let cli: CompletionCli = match crate::subcommand::parse("completion", argv) {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    let mut cmd = command();
    // Made whole first, then written once: a reader that has gone
    // (`| head -c 10`) is a quiet exit 141, not a panic of the generator.
    let mut out = Vec::new();
    let shell = match cli.output {
        Output::Bash => Shell::Bash,
        Output::Zsh => Shell::Zsh,
        Output::Fish => Shell::Fish,
        Output::Powershell => Shell::PowerShell,
        Output::Elvish => Shell::Elvish,
        Output::Man => return man(cmd, cli.dir.as_deref()),
    };
    if cli.dir.is_some() {
        eprintln!("Error: --dir goes with `completion man` only.");
        return crate::exit::ExitCode::Input.code();
    }
    if shell == Shell::Bash {
        out = bash_script(&mut cmd).into_bytes();
    } else {
        clap_complete::generate(shell, &mut cmd, "gemini-rs", &mut out);
    }
    crate::exit::write_stdout(&out)
}

/// `completion man`: the main page on stdout, or every page into `dir`.
fn man(cmd: clap::Command, dir: Option<&std::path::Path>) -> i32 {
    let Some(dir) = dir else {
        return match crate::man::main_page(cmd) {
            Ok(out) => crate::exit::write_stdout(&out),
            Err(e) => {
                eprintln!("Error: {e}");
                1
            }
        };
    };
    match crate::man::write_pages(cmd, dir) {
        Ok(written) => {
            let list: String = written
                .iter()
                .map(|p| format!("{}\n", p.display()))
                .collect();
            crate::exit::write_stdout(list.as_bytes())
        }
        Err(e) => {
            eprintln!(
                "Error: cannot write the man pages to {}: {e}",
                dir.display()
            );
            1
        }
    }
}

/// The bash script. clap_complete names a subcommand's case `gemini__rs__subcmd__mcp`
/// where it selects it but `gemini__subcmd__rs__subcmd__mcp` where it
/// completes it (it turns the dash of the binary's name into `__` in one
/// place and into `__subcmd__` in the other), so no subcommand completed:
/// the script is made for a dashless name, `gemini__rs`, and only the
/// command it registers for is the real `gemini-rs`.
fn bash_script(cmd: &mut clap::Command) -> String {
    let mut script = Vec::new();
    clap_complete::generate(Shell::Bash, cmd, BASH_NAME, &mut script);
    String::from_utf8_lossy(&script)
        .lines()
        .map(|line| match line.strip_suffix(&format!(" {BASH_NAME}")) {
            Some(head) if line.trim_start().starts_with("complete ") => {
                format!("{head} gemini-rs\n")
            }
            _ => format!("{line}\n"),
        })
        .collect()
}

/// The name the bash script is generated for (see [`bash_script`]).
const BASH_NAME: &str = "gemini__rs";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tree_is_consistent() {
        command().debug_assert();
    }
}
