//! `gemini-rs skills list|enable|disable|install|link|uninstall`: the agent
//! skills this folder sees, switching them on and off in the settings
//! (`skills.disabled`), and adding or removing skill folders in the user's
//! (`~/.gemini/skills/`) or the project's (`.gemini/skills/`) skills.

use crate::settings_file::{FileScope, SettingsFile, comments_note, read, write};
use crate::subcommand::{Scratch, copy_dir, git_clone, is_git_source, valid_name};
use clap::{Args as ClapArgs, Parser, Subcommand, ValueEnum};
use gemini_rs_core::{GeminiPaths, ListingStream, Startup, list_skills, skills_in_folder};
use gemini_rs_protocol::events::SkillInfo;
use gemini_rs_protocol::lenient::{strings_of_list, wrong_type_as_none};
use serde_json::Value;
use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};

/// `gemini-rs skills`.
#[derive(Debug, Parser)]
#[command(name = "gemini-rs skills", about = "Manage agent skills")]
pub struct SkillsCli {
    #[command(subcommand)]
    command: SkillsCommand,
}

#[derive(Debug, Subcommand)]
enum SkillsCommand {
    /// List the skills this folder sees.
    List {
        /// Include the built-in skills.
        #[arg(long)]
        all: bool,
    },
    /// Switch a skill on (remove it from `skills.disabled` wherever listed).
    Enable {
        /// The skill's name.
        name: String,
    },
    /// Switch a skill off (add it to `skills.disabled`).
    Disable {
        /// The skill's name.
        name: String,
        /// The settings file to write.
        #[arg(long, short, value_enum, default_value = "workspace")]
        scope: Scope,
    },
    /// Install skills from a local folder or a git repository.
    Install(Install),
    /// Use the skills of a local folder in place (changes apply at once).
    Link {
        /// A folder with SKILL.md, or with skill folders inside.
        path: PathBuf,
        #[command(flatten)]
        target: Target,
    },
    /// Remove an installed or linked skill.
    Uninstall {
        /// The skill's name.
        name: String,
        /// Where it is installed.
        #[arg(long, value_enum, default_value = "user")]
        scope: Scope,
    },
}

#[derive(Debug, ClapArgs)]
struct Install {
    /// A git repository URL or a local folder.
    source: String,
    /// The folder inside a git repository to install from.
    #[arg(long)]
    path: Option<String>,
    #[command(flatten)]
    target: Target,
}

#[derive(Debug, ClapArgs)]
struct Target {
    /// Install for every folder (user) or for this project (workspace).
    #[arg(long, value_enum, default_value = "user")]
    scope: Scope,
    /// Accept installing without being asked (needed without a terminal).
    #[arg(long)]
    consent: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Scope {
    User,
    Workspace,
}

/// Runs `gemini-rs skills <argv…>` and returns the exit code.
pub fn run(argv: Vec<String>) -> i32 {
    let cli: SkillsCli = match crate::subcommand::parse("skills", argv) {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    let cwd = match crate::subcommand::cwd() {
        Ok(cwd) => cwd,
        Err(code) => return code,
    };
    let paths = GeminiPaths::from_env();
    let result = match cli.command {
        SkillsCommand::List { all } => list(cwd, paths, all),
        SkillsCommand::Enable { name } => switch(&cwd, &paths, &name, None),
        SkillsCommand::Disable { name, scope } => switch(&cwd, &paths, &name, Some(scope)),
        SkillsCommand::Install(args) => install(&cwd, &paths, &args),
        SkillsCommand::Link { path, target } => link(&cwd, &paths, &path, &target),
        SkillsCommand::Uninstall { name, scope } => uninstall(&cwd, &paths, &name, scope),
    };
    match result {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("Error: {e}");
            1
        }
    }
}

fn list(cwd: PathBuf, paths: GeminiPaths, all: bool) -> Result<(), String> {
    let startup = Startup::load(cwd, paths, gemini_rs_core::Env::from_process())
        .map_err(|e| e.to_string())?;
    let (mut skills, warnings) = list_skills(&startup);
    for w in warnings {
        eprintln!("Warning: {w}");
    }
    skills.retain(|s| all || s.skill.dir.is_some());
    skills.sort_by(|a, b| {
        (a.skill.dir.is_none(), &a.skill.name).cmp(&(b.skill.dir.is_none(), &b.skill.name))
    });
    // Gemini CLI's words, on the stream the dialect prints the list on.
    let stream = startup.dialect().texts().skills_list;
    let say = |line: String| match stream {
        ListingStream::Stdout => println!("{line}"),
        ListingStream::Stderr => eprintln!("{line}"),
    };
    if skills.is_empty() {
        say("No skills discovered.".into());
        return Ok(());
    }
    say("Discovered Agent Skills:\n".into());
    for s in skills {
        let state = if s.disabled { "Disabled" } else { "Enabled" };
        let origin = if s.skill.dir.is_none() {
            " [Built-in]"
        } else {
            ""
        };
        say(format!("{} [{state}]{origin}", s.skill.name));
        say(format!("  Description: {}", s.skill.description));
        if let Some(dir) = &s.skill.dir {
            say(format!("  Location:    {}", dir.join("SKILL.md").display()));
        }
        say(String::new());
    }
    Ok(())
}

/// The settings file of a scope.
fn settings_path(cwd: &Path, paths: &GeminiPaths, scope: Scope) -> (PathBuf, FileScope) {
    match scope {
        Scope::User => (paths.gemini_dir.join("settings.json"), FileScope::User),
        Scope::Workspace => (cwd.join(".gemini/settings.json"), FileScope::Project),
    }
}

/// The part of a settings file the skills commands read.
#[derive(Default, serde::Deserialize)]
struct SkillSettings {
    #[serde(default, deserialize_with = "wrong_type_as_none")]
    skills: Option<SkillsSection>,
}

/// `skills` of a settings file.
#[derive(Default, serde::Deserialize)]
struct SkillsSection {
    #[serde(default, deserialize_with = "strings_of_list")]
    disabled: Option<Vec<String>>,
}

/// `skills.disabled` of a settings file.
fn disabled_list(file: &SettingsFile) -> Vec<String> {
    serde_json::from_value::<SkillSettings>(Value::Object(file.value.clone()))
        .unwrap_or_default()
        .skills
        .and_then(|s| s.disabled)
        .unwrap_or_default()
}

fn set_disabled(file: &mut SettingsFile, list: Vec<String>) -> Result<(), String> {
    let skills = file
        .value
        .entry("skills")
        .or_insert_with(|| Value::Object(Default::default()));
    let Value::Object(skills) = skills else {
        return Err(format!(
            "`skills` in {} is not an object.",
            file.path.display()
        ));
    };
    skills.insert("disabled".into(), Value::from(list));
    write(file)?;
    if let Some(note) = comments_note(file) {
        eprintln!("{note}");
    }
    Ok(())
}

/// Enable (`scope` `None`: every file that lists it) or disable in `scope`.
fn switch(cwd: &Path, paths: &GeminiPaths, name: &str, scope: Option<Scope>) -> Result<(), String> {
    let Some(scope) = scope else {
        let mut changed = Vec::new();
        for scope in [Scope::User, Scope::Workspace] {
            let (path, kind) = settings_path(cwd, paths, scope);
            let mut file = read(&path, kind)?;
            let list = disabled_list(&file);
            if list.iter().any(|d| d.eq_ignore_ascii_case(name)) {
                let kept = list
                    .into_iter()
                    .filter(|d| !d.eq_ignore_ascii_case(name))
                    .collect();
                set_disabled(&mut file, kept)?;
                changed.push(path.display().to_string());
            }
        }
        if changed.is_empty() {
            println!("Skill \"{name}\" is not disabled in the user or workspace settings.");
        } else {
            println!(
                "Skill \"{name}\" enabled: removed from skills.disabled in {}.",
                changed.join(" and ")
            );
        }
        return Ok(());
    };
    let startup = Startup::load(
        cwd.to_path_buf(),
        paths.clone(),
        gemini_rs_core::Env::from_process(),
    )
    .map_err(|e| e.to_string())?;
    if !list_skills(&startup)
        .0
        .iter()
        .any(|s| s.skill.name.eq_ignore_ascii_case(name))
    {
        return Err(format!(
            "no skill named \"{name}\" here; `gemini-rs skills list --all` shows them."
        ));
    }
    let (path, kind) = settings_path(cwd, paths, scope);
    let mut file = read(&path, kind)?;
    let mut list = disabled_list(&file);
    if list.iter().any(|d| d.eq_ignore_ascii_case(name)) {
        println!(
            "Skill \"{name}\" is already disabled in {}.",
            path.display()
        );
        return Ok(());
    }
    list.push(name.to_string());
    set_disabled(&mut file, list)?;
    println!(
        "Skill \"{name}\" disabled: added to skills.disabled in {}.",
        path.display()
    );
    Ok(())
}

/// The skills folder of a scope.
fn skills_dir(cwd: &Path, paths: &GeminiPaths, scope: Scope) -> PathBuf {
    match scope {
        Scope::User => paths.gemini_dir.join("skills"),
        Scope::Workspace => cwd.join(".gemini/skills"),
    }
}

/// The skills in `dir`, each with a name that can be a folder name.
fn found_skills(dir: &Path, what: &str) -> Result<Vec<SkillInfo>, String> {
    let (skills, warnings) = skills_in_folder(dir);
    for w in warnings {
        eprintln!("Warning: {w}");
    }
    if skills.is_empty() {
        return Err(format!(
            "no skills in {what}: it needs a SKILL.md (with `name` and `description` front matter) in it or in its folders."
        ));
    }
    for s in &skills {
        if !valid_name(&s.name) {
            return Err(format!(
                "the skill name \"{}\" cannot be a folder name (letters, digits, '-', '_' and '.' only).",
                s.name
            ));
        }
        if skills.iter().filter(|o| o.name == s.name).count() > 1 {
            return Err(format!(
                "two skills in {what} are both named \"{}\".",
                s.name
            ));
        }
    }
    Ok(skills)
}

/// Asks for consent on a terminal; `--consent` answers for the user.
fn consent(skills: &[SkillInfo], target: &Path, given: bool, verb: &str) -> Result<(), String> {
    let mut text = format!("{verb} into {}:\n", target.display());
    for s in skills {
        text.push_str(&format!("  - {}: {}\n", s.name, s.description));
    }
    text.push_str(
        "A skill's instructions are given to the model, which may then run the commands they describe.\n",
    );
    eprint!("{text}");
    if given {
        return Ok(());
    }
    if !std::io::stdin().is_terminal() {
        return Err("pass --consent to accept this without a terminal.".into());
    }
    eprint!("Continue? [y/N] ");
    let _ = std::io::stderr().flush();
    let mut answer = String::new();
    let _ = std::io::stdin().lock().read_line(&mut answer);
    if matches!(answer.trim(), "y" | "Y" | "yes") {
        Ok(())
    } else {
        Err("cancelled.".into())
    }
}

fn install(cwd: &Path, paths: &GeminiPaths, args: &Install) -> Result<(), String> {
    let target = skills_dir(cwd, paths, args.target.scope);
    std::fs::create_dir_all(&target)
        .map_err(|e| format!("cannot create {}: {e}", target.display()))?;
    let scratch = Scratch(target.join(format!(".install-{}", uuid::Uuid::new_v4().simple())));
    let base = if is_git_source(&args.source) {
        git_clone(&args.source, &scratch.0)?;
        scratch.0.clone()
    } else {
        if args.path.is_some() {
            return Err("--path applies to git repositories only.".into());
        }
        std::fs::canonicalize(&args.source)
            .map_err(|e| format!("cannot use {} as a skill folder: {e}", args.source))?
    };
    let from = match &args.path {
        Some(sub) => {
            let joined =
                std::fs::canonicalize(base.join(sub)).map_err(|e| format!("--path {sub}: {e}"))?;
            if !joined.starts_with(&base) {
                return Err(format!("--path {sub} leaves the repository."));
            }
            joined
        }
        None => base,
    };
    let skills = found_skills(&from, &args.source)?;
    consent(
        &skills,
        &target,
        args.target.consent,
        "Installing these skills",
    )?;
    for s in &skills {
        let Some(dir) = &s.dir else { continue };
        let dest = target.join(&s.name);
        replace_existing(&dest, &s.name)?;
        copy_dir(dir, &dest).map_err(|e| {
            let _ = std::fs::remove_dir_all(&dest);
            format!("cannot copy {} into {}: {e}", dir.display(), dest.display())
        })?;
        println!("Installed skill \"{}\" into {}.", s.name, dest.display());
    }
    Ok(())
}

fn link(cwd: &Path, paths: &GeminiPaths, path: &Path, target: &Target) -> Result<(), String> {
    let from = std::fs::canonicalize(path)
        .map_err(|e| format!("cannot use {} as a skill folder: {e}", path.display()))?;
    let skills = found_skills(&from, &from.display().to_string())?;
    let dir = skills_dir(cwd, paths, target.scope);
    consent(&skills, &dir, target.consent, "Linking these skills")?;
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    for s in &skills {
        let Some(src) = &s.dir else { continue };
        let dest = dir.join(&s.name);
        replace_existing(&dest, &s.name)?;
        std::os::unix::fs::symlink(src, &dest)
            .map_err(|e| format!("cannot link {}: {e}", dest.display()))?;
        println!(
            "Linked skill \"{}\": {} -> {}.",
            s.name,
            dest.display(),
            src.display()
        );
    }
    Ok(())
}

/// Removes what is at `dest` (a link or a folder) before it is replaced.
fn replace_existing(dest: &Path, name: &str) -> Result<(), String> {
    if dest.symlink_metadata().is_err() {
        return Ok(());
    }
    eprintln!(
        "Replacing the existing skill \"{name}\" at {}.",
        dest.display()
    );
    remove(dest)
}

fn uninstall(cwd: &Path, paths: &GeminiPaths, name: &str, scope: Scope) -> Result<(), String> {
    let dir = skills_dir(cwd, paths, scope);
    let by_name = skills_in_folder(&dir)
        .0
        .into_iter()
        .find(|s| s.name == name)
        .and_then(|s| s.dir);
    let path = match by_name {
        Some(path) => path,
        None if valid_name(name) && dir.join(name).symlink_metadata().is_ok() => dir.join(name),
        None => {
            let scope = if scope == Scope::User {
                "user"
            } else {
                "workspace"
            };
            return Err(format!(
                "skill \"{name}\" is not installed in the {scope} scope ({}).",
                dir.display()
            ));
        }
    };
    // The skill's own folder (a link is removed, never what it points at).
    if path.parent() != Some(dir.as_path()) {
        return Err(format!(
            "skill \"{name}\" is not in a folder of its own under {}.",
            dir.display()
        ));
    }
    remove(&path)?;
    println!("Removed skill \"{name}\" ({}).", path.display());
    Ok(())
}

/// Removes a link or a folder.
fn remove(path: &Path) -> Result<(), String> {
    let meta = path
        .symlink_metadata()
        .map_err(|e| format!("cannot remove {}: {e}", path.display()))?;
    let removed = if meta.is_dir() {
        std::fs::remove_dir_all(path)
    } else {
        std::fs::remove_file(path)
    };
    removed.map_err(|e| format!("cannot remove {}: {e}", path.display()))
}

/// Its argument definitions (for completions and the man page).
pub fn command() -> clap::Command {
    <SkillsCli as clap::CommandFactory>::command()
}
