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

#[test]
fn every_front_matter_key_is_checked_and_a_bad_skill_is_named() {
    let sb = sandbox();
    sb.write_home(
        ".gemini/skills/full/SKILL.md",
        "---\nname: full\ndescription: Uses every key.\nlicense: Apache-2.0\ncompatibility: Needs git.\nmetadata:\n  author: me\nallowed-tools: Read Grep\nargument-hint: a Claude Code key, left alone\n---\nBody.\n",
    );
    let bad = [
        ("Upper", "name: Upper\ndescription: d\n", "`name`"),
        ("mismatch", "name: other\ndescription: d\n", "`name`"),
        (
            "double--hyphen",
            "name: double--hyphen\ndescription: d\n",
            "`name`",
        ),
        ("nodesc", "name: nodesc\n", "`description`"),
        (
            "compat",
            &format!(
                "name: compat\ndescription: d\ncompatibility: {}\n",
                "c".repeat(501)
            ),
            "`compatibility`",
        ),
        (
            "meta",
            "name: meta\ndescription: d\nmetadata: [a, b]\n",
            "`metadata`",
        ),
        (
            "tools",
            "name: tools\ndescription: d\nallowed-tools: Bash(git:*\n",
            "`allowed-tools`",
        ),
    ];
    for (folder, yaml, _) in &bad {
        sb.write_home(
            &format!(".gemini/skills/{folder}/SKILL.md"),
            &format!("---\n{yaml}---\nBody.\n"),
        );
    }
    let fake = FakeServer::replaying(&lines(&[text("ok")]));
    let out = sb.run(
        &["-p", "hi"],
        None,
        &[("GOOGLE_GEMINI_BASE_URL", &fake.base_url)],
    );
    assert_eq!(out.code, 0, "{out:?}");
    for (folder, _, key) in &bad {
        let file = format!("skills/{folder}/SKILL.md");
        let line = out
            .stderr
            .lines()
            .find(|l| l.contains(&file))
            .unwrap_or_else(|| panic!("no warning for {file}: {}", out.stderr));
        assert!(line.contains(key), "{line}");
    }
    let system = fake.requests()[0].body["systemInstruction"]["parts"][0]["text"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(system.contains("<name>full</name>"), "{system}");
    for (folder, _, _) in &bad {
        assert!(
            !system.contains(&format!("<name>{folder}</name>")),
            "{system}"
        );
    }
}

#[test]
fn allowed_tools_limit_the_calls_while_the_skill_is_active() {
    let sb = sandbox();
    sb.write_home(
        ".gemini/skills/echo-only/SKILL.md",
        "---\nname: echo-only\ndescription: Echoes.\nallowed-tools: Bash(echo:*) Read\n---\nOnly echo.\n",
    );
    sb.write("a.txt", "alpha\n");
    let fake = FakeServer::replaying(&lines(&[
        call(
            "write_file",
            json!({"file_path": "before.txt", "content": "x"}),
        ),
        call("activate_skill", json!({"name": "echo-only"})),
        call(
            "write_file",
            json!({"file_path": "during.txt", "content": "x"}),
        ),
        call("read_file", json!({"file_path": "a.txt"})),
        call("run_shell_command", json!({"command": "echo hi"})),
        call(
            "run_shell_command",
            json!({"command": "echo hi && touch sneaky.txt"}),
        ),
        text("done"),
    ]));
    let out = sb.run(
        &["--approval-mode", "yolo", "-p", "echo something"],
        None,
        &[("GOOGLE_GEMINI_BASE_URL", &fake.base_url)],
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert!(sb.read("before.txt").is_some(), "before the skill: allowed");
    assert!(
        sb.read("during.txt").is_none(),
        "while it is active: refused"
    );
    assert!(
        sb.read("sneaky.txt").is_none(),
        "a compound command's other part"
    );
    let frs = fake.function_responses();
    let response = |i: usize| frs[i]["functionResponse"]["response"].clone();
    let refused = response(2)["error"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(refused.contains("denied by policy"), "{refused}");
    assert!(refused.contains("echo-only"), "{refused}");
    assert!(response(3)["output"].as_str().unwrap().contains("alpha"));
    assert!(
        response(4)["output"].as_str().unwrap().contains("hi"),
        "{:?}",
        response(4)
    );
    assert!(response(5)["error"].is_string(), "{:?}", response(5));
}

#[test]
fn agents_md_is_read_beside_gemini_md_unless_switched_off() {
    let sb = sandbox();
    sb.write("GEMINI.md", "Gemini rule: be brief.\n");
    sb.write("AGENTS.md", "Agents rule: use tabs.\n");
    let system = |sb: &Sandbox| {
        let fake = FakeServer::replaying(&lines(&[text("ok")]));
        let out = sb.run(
            &["-p", "hi"],
            None,
            &[("GOOGLE_GEMINI_BASE_URL", &fake.base_url)],
        );
        assert_eq!(out.code, 0, "{out:?}");
        fake.requests()[0].body["systemInstruction"]["parts"][0]["text"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let on = system(&sb);
    assert!(on.contains("Gemini rule: be brief."), "{on}");
    assert!(
        on.contains("--- Context from: AGENTS.md ---\nAgents rule: use tabs."),
        "{on}"
    );
    assert!(on.find("Gemini rule").unwrap() < on.find("Agents rule").unwrap());
    sb.settings(&json!({"model": {"name": "gemini-2.5-flash"},
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "context": {"agentsMd": false}}));
    let off = system(&sb);
    assert!(off.contains("Gemini rule: be brief."), "{off}");
    assert!(!off.contains("Agents rule"), "{off}");
}
