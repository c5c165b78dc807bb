//! `activate_skill`: gives the model a skill's instructions and the list of
//! its files, in Gemini CLI v0.27.4's result shape. The skill names are the
//! schema's `enum`, so an unknown name is refused before the call runs; a
//! user skill asks for consent first (built-in ones do not). A skill with
//! `allowed-tools` limits the session's calls to them from its activation
//! to the end of the prompt (the policy engine refuses the others).

use super::common::parse_params;
use super::{Builtin, Make};
use crate::catalogue::builtins::ACTIVATE_SKILL as SPEC;
use crate::policy::{ActiveSkills, ToolLimit};
use crate::skills::{Skill, folder_structure};
use crate::tools::spec::identity_from_spec;
use crate::tools::{
    ConfirmationDetails, Tool, ToolContext, ToolDisplay, ToolError, ToolInvocation, ToolResult,
};
use futures::future::BoxFuture;
use gemini_rs_protocol::Part;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// The `activate_skill` tool over a session's skills.
pub struct ActivateSkillTool {
    skills: Arc<Vec<Skill>>,
    schema: Value,
    description: String,
    /// Where an activated skill's `allowed-tools` take effect.
    active: Arc<ActiveSkills>,
}

impl ActivateSkillTool {
    /// The tool for `skills`; activations with `allowed-tools` go to
    /// `active` (the policy engine's).
    pub fn new(skills: Arc<Vec<Skill>>, active: Arc<ActiveSkills>) -> Self {
        let names: Vec<&str> = skills.iter().map(|s| s.name.as_str()).collect();
        let name = if names.is_empty() {
            json!({"type": "string", "description": "No skills are available."})
        } else {
            json!({"type": "string", "enum": names, "description": "The skill to activate."})
        };
        // Closed to other parameters and dated draft-07, as both Gemini
        // CLI releases declare it (the `tool-schemas` scenario).
        let schema = json!({
            "type": "object",
            "properties": {"name": name},
            "required": ["name"],
            "additionalProperties": false,
            "$schema": "http://json-schema.org/draft-07/schema#"
        });
        let listed: Vec<String> = names.iter().map(|n| format!("'{n}'")).collect();
        let description = format!(
            "Loads the instructions of a specialized agent skill (available: {}). The result holds them in <activated_skill> tags with the files of the skill's folder. Activate a skill when the task matches its description in <available_skills>, using its name exactly as listed there.",
            listed.join(", ")
        );
        ActivateSkillTool {
            skills,
            schema,
            description,
            active,
        }
    }
}

/// Its registration (the session makes it when it has what it needs).
pub(super) const BUILTIN: Builtin = Builtin {
    make: Make::WithSessionData,
};

impl Tool for ActivateSkillTool {
    identity_from_spec!(SPEC);
    fn description(&self) -> &str {
        &self.description
    }
    fn parameter_schema(&self) -> &Value {
        &self.schema
    }
    fn build(
        &self,
        args: &Map<String, Value>,
        _ctx: &ToolContext,
    ) -> Result<Box<dyn ToolInvocation>, ToolError> {
        let params: Params = parse_params(args, &[])?;
        let Some(skill) = self.skills.iter().find(|s| s.name == params.name) else {
            let names: Vec<&str> = self.skills.iter().map(|s| s.name.as_str()).collect();
            return Err(ToolError::invalid_params(format!(
                "Skill \"{}\" not found. Available skills are: {}",
                params.name,
                names.join(", ")
            )));
        };
        Ok(Box::new(Activation {
            skill: skill.clone(),
            active: self.active.clone(),
        }))
    }
}

/// The arguments.
#[derive(Deserialize)]
struct Params {
    name: String,
}

/// One activation.
struct Activation {
    skill: Skill,
    active: Arc<ActiveSkills>,
}

impl Activation {
    /// The listing of the skill's folder.
    fn resources(&self) -> String {
        match &self.skill.dir {
            Some(dir) => folder_structure(dir),
            None => "(a built-in skill: no files)".to_string(),
        }
    }
}

impl ToolInvocation for Activation {
    fn description(&self) -> String {
        format!("\"{}\": {}", self.skill.name, self.skill.description)
    }

    fn confirmation<'a>(
        &'a self,
        _ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Option<ConfirmationDetails>> {
        Box::pin(async move {
            self.skill.dir.as_ref()?;
            Some(ConfirmationDetails::Info {
                title: format!("Activate Skill: {}", self.skill.name),
                prompt: format!(
                    "You are about to enable the agent skill **{}**.\n{}\n{}",
                    self.skill.name,
                    self.skill.description,
                    self.resources()
                ),
                urls: Vec::new(),
            })
        })
    }

    fn execute<'a>(
        &'a self,
        _ctx: &'a ToolContext,
        _cancel: CancellationToken,
    ) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            if let Some(allowed) = &self.skill.allowed_tools {
                self.active
                    .activate(ToolLimit::new(&self.skill.name, allowed));
            }
            let resources = self.resources();
            let llm = format!(
                "<activated_skill name=\"{}\">\n  <instructions>\n    {}\n  </instructions>\n  <available_resources>\n    {}\n  </available_resources>\n</activated_skill>",
                self.skill.name, self.skill.body, resources
            );
            let from = self.skill.dir.as_ref().map_or_else(
                || "the built-in set".to_string(),
                |d| format!("`{}`", d.display()),
            );
            let display = format!(
                "Skill **{}** activated. Resources loaded from {from}:\n\n{resources}",
                self.skill.name
            );
            ToolResult::parts(vec![Part::text(llm)], ToolDisplay::Text(display))
        })
    }
}
