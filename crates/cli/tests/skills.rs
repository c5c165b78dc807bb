//! Agent skills through the binary: listed in the system instruction,
//! activated with the reference's result shape, unknown names refused by
//! the schema, broken files named.

use crate::e2e::{call, lines, text};
use crate::support::Sandbox;
use gemini_rs_test_support::FakeServer;
use serde_json::json;

fn sandbox() -> Sandbox {
    let sb = Sandbox::new();
    sb.settings(&json!({"model": {"name": "gemini-2.5-flash"},
        "security": {"auth": {"selectedType": "gemini-api-key"}}}));
    sb.write_home(
        ".gemini/skills/release-notes/SKILL.md",
        "---\nname: release-notes\ndescription: Drafts release notes from the git log.\n---\nRun git log and group the changes.\n",
    );
    sb.write_home(".gemini/skills/release-notes/template.md", "# Notes\n");
    sb.write(".gemini/skills/broken/SKILL.md", "no front matter here\n");
    sb
}

#[test]
fn skills_are_listed_and_activated() {
    let sb = sandbox();
    let fake = FakeServer::replaying(&lines(&[
        call("activate_skill", json!({"name": "release-notes"})),
        call("activate_skill", json!({"name": "nope"})),
        text("ok"),
    ]));
    let out = sb.run(
        &["--approval-mode", "yolo", "-p", "write the notes"],
        None,
        &[("GOOGLE_GEMINI_BASE_URL", &fake.base_url)],
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stderr.contains("broken"), "{}", out.stderr);
    let req = &fake.requests()[0].body;
    let system = req["systemInstruction"]["parts"][0]["text"]
        .as_str()
        .unwrap();
    assert!(system.contains("<name>release-notes</name>"), "{system}");
    assert!(system.contains("<name>skill-creator</name>"));
    let decls = req["tools"][0]["functionDeclarations"].as_array().unwrap();
    let skill_tool = decls
        .iter()
        .find(|d| d["name"] == "activate_skill")
        .unwrap();
    assert_eq!(
        skill_tool["parametersJsonSchema"]["properties"]["name"]["enum"],
        json!(["skill-creator", "release-notes"])
    );
    let frs = fake.function_responses();
    let output = frs[0]["functionResponse"]["response"]["output"]
        .as_str()
        .unwrap();
    assert!(
        output.starts_with(
            "<activated_skill name=\"release-notes\">\n  <instructions>\n    Run git log"
        ),
        "{output}"
    );
    assert!(
        output.contains("<available_resources>\n    Showing up to 200 items"),
        "{output}"
    );
    assert!(output.contains("├───SKILL.md\n└───template.md"), "{output}");
    assert_eq!(
        frs[1]["functionResponse"]["response"]["error"],
        "params/name must be equal to one of the allowed values"
    );
}

#[test]
fn disabled_skills_are_gone() {
    let sb = sandbox();
    sb.settings(&json!({"model": {"name": "gemini-2.5-flash"},
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "skills": {"disabled": ["release-notes"]}}));
    let fake = FakeServer::replaying(&lines(&[text("ok")]));
    let out = sb.run(
        &["-p", "hi"],
        None,
        &[("GOOGLE_GEMINI_BASE_URL", &fake.base_url)],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let system = fake.requests()[0].body["systemInstruction"]["parts"][0]["text"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(!system.contains("release-notes"), "{system}");
    assert!(system.contains("skill-creator"));
}
