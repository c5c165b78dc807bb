//! Keeping a key typed into the provider picker: on the user's word it
//! goes into `~/.gemini/.env` (mode 0600), the file the next start reads
//! when the folder has no `.env` of its own; otherwise the note says which
//! variable to set.

use crate::ui::view::provider_picker::select;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Asks whether to keep `var`'s typed `value`; the note for the user.
/// `gemini_dir` is `~/.gemini`.
pub fn offer(gemini_dir: &Path, var: &str, value: &str) -> anyhow::Result<String> {
    let file = gemini_dir.join(".env");
    let text = vec![format!("Keep {var} for the next start?"), String::new()];
    let options = vec![
        "No, use it for this run only".to_string(),
        format!("Yes, save it in {} (readable by you only)", file.display()),
    ];
    if select(&text, &options, 0)? != Some(1) {
        return Ok(format!(
            "{var} is used for this run only: set it in your shell (export {var}=...) or in {} to keep it.",
            file.display()
        ));
    }
    save(&file, var, value)?;
    Ok(format!(
        "{var} saved in {} (mode 0600); the next start reads it unless the folder has a .env of its own.",
        file.display()
    ))
}

/// Sets `var=value` in the `.env` file at `file` (other lines kept), the
/// file written whole with mode 0600.
pub fn save(file: &Path, var: &str, value: &str) -> anyhow::Result<PathBuf> {
    let quote = match (value.contains('\''), value.contains('"')) {
        _ if value.contains('\n') => None,
        (false, _) => Some('\''),
        (true, false) => Some('"'),
        (true, true) => None,
    };
    let Some(q) = quote else {
        anyhow::bail!("the key has both kinds of quotes or a line break: set {var} yourself");
    };
    let old = match std::fs::read_to_string(file) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => anyhow::bail!("could not read {}: {e}", file.display()),
    };
    let mut text: String = old
        .lines()
        .filter(|line| !defines(line, var))
        .map(|line| format!("{line}\n"))
        .collect();
    text.push_str(&format!("{var}={q}{value}{q}\n"));
    write_private(file, &text)
        .map_err(|e| anyhow::anyhow!("could not write {}: {e}", file.display()))?;
    Ok(file.to_path_buf())
}

/// True when the `.env` line sets `var`.
fn defines(line: &str, var: &str) -> bool {
    let line = line.trim_start();
    let line = line.strip_prefix("export ").unwrap_or(line).trim_start();
    line.split_once('=').is_some_and(|(k, _)| k.trim() == var)
}

/// Writes `text` to a 0600 file beside `file`, then renames it over
/// `file`: no half-written file, never readable by others.
fn write_private(file: &Path, text: &str) -> std::io::Result<()> {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = file.with_extension(format!("tmp{}", std::process::id()));
    let written = (|| {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&tmp)?;
        f.set_permissions(std::fs::Permissions::from_mode(0o600))?;
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
        std::fs::rename(&tmp, file)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_key_replaces_its_line_keeps_the_others_and_is_private() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(".env");
        std::fs::write(&file, "A=1\nexport GEMINI_API_KEY=old\n").unwrap();
        save(&file, "GEMINI_API_KEY", "new-key").unwrap();
        let text = std::fs::read_to_string(&file).unwrap();
        assert_eq!(text, "A=1\nGEMINI_API_KEY='new-key'\n");
        let mode = std::fs::metadata(&file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        assert!(save(&file, "K", "a'b\"c").is_err());
    }
}
