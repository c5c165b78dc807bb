//! Agent skills: folders with a `SKILL.md` whose YAML front matter names
//! and describes the skill and whose body is its instructions (the open
//! format Gemini CLI, Codex and Claude Code read). Found in the built-in
//! set, `~/.gemini/skills/` (and `~/.agents/skills/`), then the project's
//! `.gemini/skills/` (and `.agents/skills/`); a later one of the same name
//! wins; extensions' `skills/` folders come before the user's.
//! `skills.disabled` switches skills off by name. Every key of the Agent
//! Skills specification is read and checked (`front_matter.rs`); a skill
//! whose `allowed-tools` lists tools restricts the session to them while it
//! is active (`policy/skill_limits.rs`, enforced by the policy engine).

mod folder;
mod front_matter;

pub use folder::folder_structure;
pub use front_matter::KeyError;

use crate::config::input_file::{MAX_INPUT_BYTES, MAX_NESTING, TooDeep, check_nesting, read_input};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skill {
    /// Its name (what `activate_skill` takes).
    pub name: String,
    /// When to use it.
    pub description: String,
    /// The instructions (the file after its front matter).
    pub body: String,
    /// Its folder; `None` for a built-in skill.
    pub dir: Option<PathBuf>,
    /// `license`.
    pub license: Option<String>,
    /// `compatibility`: what environment it needs.
    pub compatibility: Option<String>,
    /// `metadata`.
    pub metadata: BTreeMap<String, String>,
    /// `allowed-tools`: the only tools the model may call while the skill
    /// is active (`None`: no restriction).
    pub allowed_tools: Option<Vec<String>>,
}

/// The built-in skill that helps write skills (our own text).
const SKILL_CREATOR: &str = include_str!("skill-creator.md");

/// The enabled skills for a home (`gemini_dir` is `~/.gemini`) and a
/// project (`None` when the folder is untrusted), and a warning for each
/// `SKILL.md` that could not be used.
pub fn discover(
    extension_dirs: &[PathBuf],
    gemini_dir: &Path,
    project: Option<&Path>,
    disabled: &[String],
) -> (Vec<Skill>, Vec<String>) {
    let mut skills: Vec<Skill> = Vec::new();
    let mut warnings = Vec::new();
    if let Ok(builtin) = parse(SKILL_CREATOR, None) {
        skills.push(builtin);
    }
    let home = gemini_dir.parent().unwrap_or(gemini_dir);
    // Extensions' skills (lowest precedence after the built-ins), then the
    // user's and the project's; each with the folder its files must stay
    // in (symlinks followed): the extension's and the project's. The
    // user's own skills may link anywhere (`skills link` makes such links).
    let mut roots: Vec<(PathBuf, Option<PathBuf>)> = extension_dirs
        .iter()
        .map(|d| (d.clone(), Some(d.parent().unwrap_or(d).to_path_buf())))
        .collect();
    roots.push((home.join(".agents/skills"), None));
    roots.push((gemini_dir.join("skills"), None));
    if let Some(project) = project {
        roots.push((project.join(".agents/skills"), Some(project.to_path_buf())));
        roots.push((project.join(".gemini/skills"), Some(project.to_path_buf())));
    }
    for (root, within) in roots {
        for file in skill_files(&root) {
            let text = match read_input(&file, within.as_deref(), MAX_INPUT_BYTES) {
                Ok(t) => t,
                Err(e) => {
                    warnings.push(format!("Skipping skill: {e}."));
                    continue;
                }
            };
            match parse(&text, file.parent().map(Path::to_path_buf)) {
                Ok(skill) => {
                    skills.retain(|s| s.name != skill.name);
                    skills.push(skill);
                }
                Err(why) => warnings.push(format!("Skipping skill {}: {why}", file.display())),
            }
        }
    }
    skills.retain(|s| !disabled.iter().any(|d| d.eq_ignore_ascii_case(&s.name)));
    (skills, warnings)
}

/// The skills in one folder (`dir/SKILL.md` and `dir/*/SKILL.md`), what
/// `skills install` and `skills link` take; a warning for each unusable
/// `SKILL.md`.
pub fn in_folder(dir: &Path) -> (Vec<Skill>, Vec<String>) {
    let mut skills = Vec::new();
    let mut warnings = Vec::new();
    for file in skill_files(dir) {
        let parsed = read_input(&file, None, MAX_INPUT_BYTES)
            .map_err(|e| e.to_string())
            .and_then(|text| {
                parse(&text, file.parent().map(Path::to_path_buf)).map_err(|e| e.to_string())
            });
        match parsed {
            Ok(skill) => skills.push(skill),
            Err(why) => warnings.push(format!("Skipping skill {}: {why}", file.display())),
        }
    }
    (skills, warnings)
}

/// `root/SKILL.md` and `root/*/SKILL.md` that exist (whatever they are:
/// [`read_input`] refuses what is not a regular file), sorted.
fn skill_files(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let direct = root.join("SKILL.md");
    if direct.symlink_metadata().is_ok() {
        out.push(direct);
    }
    if let Ok(entries) = std::fs::read_dir(root) {
        let mut nested: Vec<PathBuf> = entries
            .flatten()
            .filter(|e| e.path().is_dir())
            .map(|e| e.path().join("SKILL.md"))
            .filter(|p| p.symlink_metadata().is_ok())
            .collect();
        nested.sort();
        out.extend(nested);
    }
    out
}

/// Why a Markdown file has no usable front matter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum FrontMatterError {
    /// The first line is not `---`.
    #[error("it does not start with YAML front matter (---)")]
    NoOpening,
    /// No line `---` ends it.
    #[error("its front matter has no closing ---")]
    NoClosing,
}

/// Why a `SKILL.md` was skipped.
#[derive(Debug, thiserror::Error)]
pub enum SkillFileError {
    /// No front matter.
    #[error(transparent)]
    FrontMatter(#[from] FrontMatterError),
    /// The front matter is not YAML.
    #[error("its front matter is not YAML ({0})")]
    Yaml(#[from] serde_yaml_ng::Error),
    /// A key breaks the Agent Skills specification.
    #[error("its front matter's {0}")]
    Key(#[from] KeyError),
    /// The front matter nests too deep for the YAML parser.
    #[error("its front matter {0}")]
    TooDeep(#[from] TooDeep),
}

/// Splits a Markdown file into its YAML front matter and its body.
pub(crate) fn split_front_matter(text: &str) -> Result<(&str, String), FrontMatterError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
        .ok_or(FrontMatterError::NoOpening)?;
    let end = rest.find("\n---").ok_or(FrontMatterError::NoClosing)?;
    let body = rest[end + 4..]
        .trim_start_matches(['\r', '\n'])
        .trim_start_matches('-')
        .trim_start_matches(['\r', '\n'])
        .to_string();
    Ok((&rest[..end], body))
}

/// A skill from its file's text.
fn parse(text: &str, dir: Option<PathBuf>) -> Result<Skill, SkillFileError> {
    let (yaml, body) = split_front_matter(text)?;
    check_nesting(yaml, MAX_NESTING)?;
    let value: serde_yaml_ng::Value = serde_yaml_ng::from_str(yaml)?;
    let folder = dir
        .as_deref()
        .and_then(Path::file_name)
        .map(|n| n.to_string_lossy().into_owned());
    let meta = front_matter::validate(&value, folder.as_deref())?;
    Ok(Skill {
        name: meta.name,
        description: meta.description,
        body,
        dir,
        license: meta.license,
        compatibility: meta.compatibility,
        metadata: meta.metadata,
        allowed_tools: meta.allowed_tools,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, rel: &str, text: &str) {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    #[test]
    fn discovery_precedence_and_bad_front_matter() {
        let home = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        let gemini = home.path().join(".gemini");
        write(
            &gemini,
            "skills/pdf/SKILL.md",
            "---\nname: pdf\ndescription: User PDF help\n---\nUse pdftotext.\n",
        );
        write(
            project.path(),
            ".gemini/skills/pdf/SKILL.md",
            "---\nname: pdf\ndescription: >\n  Project PDF help\n---\n# PDF\nProject way.\n",
        );
        write(
            project.path(),
            ".agents/skills/db/SKILL.md",
            "---\nname: db\ndescription: Databases\n---\nSQL.\n",
        );
        write(
            project.path(),
            ".gemini/skills/bad/SKILL.md",
            "no front matter\n",
        );
        write(
            project.path(),
            ".gemini/skills/half/SKILL.md",
            "---\nname: half\n---\nbody\n",
        );
        let (skills, warnings) = discover(&[], &gemini, Some(project.path()), &[]);
        let names: Vec<&str> = skills.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["skill-creator", "db", "pdf"]);
        let pdf = &skills[2];
        assert_eq!(pdf.description, "Project PDF help");
        assert_eq!(pdf.body, "# PDF\nProject way.\n");
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(
            warnings
                .iter()
                .any(|w| w.contains("bad") && w.contains("front matter"))
        );
        let (skills, _) = discover(&[], &gemini, None, &["PDF".to_string()]);
        assert_eq!(skills.len(), 1);
    }
}
