//! What the management subcommands (`hooks`, `extensions`) share: parsing
//! their arguments and finding the working directory.

use std::path::PathBuf;

/// Parses `gemini-rs <name> <argv…>`; on help or an error, the exit code
/// (after clap printed it).
pub fn parse<T: clap::Parser>(name: &str, argv: Vec<String>) -> Result<T, i32> {
    T::try_parse_from(std::iter::once(format!("gemini-rs {name}")).chain(argv)).map_err(|e| {
        let code = if e.use_stderr() { 1 } else { 0 };
        let _ = e.print();
        code
    })
}

/// The working directory, canonical; on failure the error is printed and
/// the exit code returned.
pub fn cwd() -> Result<PathBuf, i32> {
    match std::env::current_dir() {
        Ok(cwd) => Ok(std::fs::canonicalize(&cwd).unwrap_or(cwd)),
        Err(e) => {
            eprintln!("Error: {e}");
            Err(1)
        }
    }
}
