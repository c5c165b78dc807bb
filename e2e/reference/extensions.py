#!/usr/bin/env python3
"""Records what Gemini CLI 0.61 does with extensions and context files for
crates/cli/tests/public_extensions.rs (not part of CI; it needs the
reference, see /work/peers.env):

    python3 e2e/reference/extensions.py "$REF_GEMINI_061" imports    # nested @imports
    python3 e2e/reference/extensions.py "$REF_GEMINI_061" conductor  # conductor in plan mode
    python3 e2e/reference/extensions.py "$REF_GEMINI_061" strict     # an extension's allow/yolo rules

Each plays a scripted session against the fake endpoint of record.py and
prints what the model was shown (tools declared, function responses, the
project context), with the scratch folders written `<tmp>` and `<home>`.
`imports` prints the text the test compares with
crates/cli/tests/fixtures/imports-0.61.txt.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import record  # noqa: E402

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "crates", "cli",
                        "tests", "fixtures", "public-extensions")

IMPORTS = {
    "GEMINI.md": "Top line.\n@a.md\nInline see @docs/b.md here.\nMail me @nobody.\n`@code.md` stays.\n"
                 "@../outside.md\n@cycle1.md\n@/etc/hostname\n",
    "a.md": "A level one.\n@sub/c.md\n",
    "sub/c.md": "C level two.\n@d.md\n",
    "sub/d.md": "D level three.\n@e.md\n",
    "sub/e.md": "E level four.\n@f.md\n",
    "sub/f.md": "F level five.\n@g.md\n",
    "sub/g.md": "G level six.\n",
    "docs/b.md": "B inline.",
    "cycle1.md": "Cycle one.\n@cycle2.md\n",
    "cycle2.md": "Cycle two.\n@cycle1.md\n@GEMINI.md\n",
    "code.md": "CODE",
}

STRICT_POLICY = ('[[rule]]\ntoolName = "glob"\ndecision = "deny"\npriority = 10\n\n'
                 '[[rule]]\ntoolName = "run_shell_command"\ndecision = "allow"\npriority = 10\n\n'
                 '[[rule]]\ntoolName = "read_file"\ndecision = "deny"\npriority = 10\nmodes = ["yolo"]\n')

SCENARIOS = {
    "imports": {"files": IMPORTS, "turns": [{"text": "ok"}], "flags": []},
    "conductor": {
        "extension": "conductor",
        "flags": ["--approval-mode", "plan"],
        "turns": [{"call": "write_file", "args": {"file_path": "conductor/product.md", "content": "# Product\n"}},
                  {"call": "write_file", "args": {"file_path": "notes.md", "content": "x\n"}},
                  {"call": "run_shell_command", "args": {"command": "ls"}},
                  {"call": "run_shell_command", "args": {"command": "rm -rf x"}},
                  {"text": "done"}],
    },
    "strict": {
        "extension_files": {"gemini-extension.json": '{"name": "strict", "version": "1.0.0", '
                                                     '"plan": {"directory": "../escape"}}',
                            "policies/rules.toml": STRICT_POLICY},
        "flags": [],
        "turns": [{"call": "glob", "args": {"pattern": "*"}},
                  {"call": "run_shell_command", "args": {"command": "echo hi"}},
                  {"text": "done"}],
    },
}


def write_tree(base, files):
    for rel, content in files.items():
        path = os.path.join(base, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(content)


def play(binary, scenario):
    root = os.path.realpath(tempfile.mkdtemp())
    home, proj = os.path.join(root, "home"), os.path.join(root, "proj")
    os.makedirs(os.path.join(home, ".gemini"))
    os.makedirs(os.path.join(proj, ".git"))
    write_tree(proj, scenario.get("files", {}))
    with open(os.path.join(home, ".gemini", "settings.json"), "w") as f:
        json.dump({"security": {"auth": {"selectedType": "gemini-api-key"}},
                   "model": {"name": "gemini-2.5-flash"}}, f)
    env = dict(os.environ, GEMINI_CLI_HOME=home, HOME=home, GEMINI_API_KEY="dummy",
               GEMINI_CLI_TRUST_WORKSPACE="true", GEMINI_CLI_NO_RELAUNCH="true")
    src = os.path.join(root, "ext")
    if "extension" in scenario:
        shutil.copytree(os.path.join(FIXTURES, scenario["extension"]), src)
    elif "extension_files" in scenario:
        write_tree(src, scenario["extension_files"])
    if os.path.isdir(src):
        subprocess.run([binary, "extensions", "install", src, "--consent"], cwd=proj, env=env,
                       capture_output=True, timeout=120, stdin=subprocess.DEVNULL, check=True)
    log = []
    server = record.serve([record.model_turn(s) for s in scenario["turns"]], log)
    env["GOOGLE_GEMINI_BASE_URL"] = f"http://127.0.0.1:{server.server_address[1]}"
    done = subprocess.run([binary, *scenario["flags"], "-p", "go"], cwd=proj, env=env,
                          capture_output=True, timeout=180, stdin=subprocess.DEVNULL)
    server.shutdown()
    requests = [b for b in log if b.get("tools")]
    out = {"declared": sorted(d["name"] for g in requests[0]["tools"]
                              for d in g.get("functionDeclarations", [])),
           "responses": [[p["functionResponse"]["name"], p["functionResponse"]["response"]]
                         for b in requests for p in (b.get("contents") or [{}])[-1].get("parts", [])
                         if "functionResponse" in p],
           "files": sorted(os.path.relpath(os.path.join(d, f), proj)
                           for d, _, fs in os.walk(proj) if ".git" not in d for f in fs),
           "stderr": [l for l in done.stderr.decode().splitlines()
                      if not l.startswith(record.NOISE)]}
    texts = [p.get("text", "") for c in requests[0]["contents"] for p in c.get("parts", [])]
    context = next((t for t in texts if "<project_context>" in t), "")
    start, end = context.find("<project_context>\n"), context.find("\n</project_context>")
    out["context"] = context[start + len("<project_context>\n"):end] if start >= 0 else ""
    shutil.rmtree(root, ignore_errors=True)
    return json.dumps(out, indent=1).replace(proj, "<tmp>").replace(home, "<home>")


def main():
    if len(sys.argv) != 3 or sys.argv[2] not in SCENARIOS:
        sys.exit(__doc__)
    golden = json.loads(play(sys.argv[1], SCENARIOS[sys.argv[2]]))
    if sys.argv[2] == "imports":
        print(golden["context"])
    else:
        del golden["context"]
        print(json.dumps(golden, indent=1))


if __name__ == "__main__":
    main()
