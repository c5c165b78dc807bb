#!/usr/bin/env python3
"""Two house rules that the compiler does not check, outside tests:

- core's errors are typed: no `Result<_, String>` in `crates/core/src`
  (a `thiserror` enum, or an existing error type, keeps the message);
- no dead interface kept alive: no `allow(dead_code)` in `crates/*/src`,
  except a platform `cfg_attr` (`target_os`, `unix`, `windows`,
  `target_family`) or a type that exists only to generate a schema, each
  with a `//` comment on the line above saying why (for a schema type, the
  comment names the schema).

Test code does not count: `tests.rs`, `*_tests.rs`, `tests_*.rs`, files
under `tests/` folders, the test-support crate, files declared as
`#[cfg(test)] mod x;` and inline `#[cfg(test)]` items.

Usage: house-rules.py [CRATES_DIR]   (exit 1 when a rule is broken)
       house-rules.py --self-test    (proves each rule can fail)
"""
import os
import re
import sys
import tempfile

ATTR_OR_DOC = re.compile(r"\s*(#\[|///|//!)")
TEST_MOD_DECL = re.compile(r"\s*(pub(\([^)]*\))?\s+)?mod\s+(\w+)\s*;")
PATH_ATTR = re.compile(r'\s*#\[path\s*=\s*"([^"]+)"\]')
PLATFORM = re.compile(r"cfg_attr\(\s*(not\()?\s*(target_os|target_family|unix|windows)")


def is_test_file(path):
    parts = path.split(os.sep)
    name = parts[-1]
    return (
        "tests" in parts[:-1]
        or name == "tests.rs"
        or name.endswith("_tests.rs")
        or name.startswith("tests_")
        or "test-support" in parts
    )


def module_dir(path):
    """The folder a file's child modules live in."""
    folder, name = os.path.split(path)
    if name in ("mod.rs", "lib.rs", "main.rs"):
        return folder
    return os.path.join(folder, name[:-3])


def strip_tests(path, lines, test_files):
    """Blanks `#[cfg(test)]` items; records `#[cfg(test)] mod x;` files."""
    out = list(lines)
    i = 0
    while i < len(out):
        if out[i].strip() != "#[cfg(test)]":
            i += 1
            continue
        j, given = i + 1, None
        while j < len(out) and ATTR_OR_DOC.match(out[j]):
            m = PATH_ATTR.match(out[j])
            given = m.group(1) if m else given
            j += 1
        if j >= len(out):
            break
        decl = TEST_MOD_DECL.match(out[j])
        if decl:
            if given:
                test_files.add(os.path.normpath(os.path.join(os.path.dirname(path), given)))
            else:
                base = os.path.join(module_dir(path), decl.group(3))
                test_files.update({base + ".rs", os.path.join(base, "mod.rs")})
            end = j
        elif out[j].rstrip().endswith(";"):
            end = j
        else:
            depth, end = 0, j
            while end < len(out):
                depth += out[end].count("{") - out[end].count("}")
                if depth <= 0 and "{" in "".join(out[j : end + 1]):
                    break
                end += 1
        for k in range(i, min(end, len(out) - 1) + 1):
            out[k] = ""
        i = end + 1
    return out


def sources(root):
    """(path, lines without test items) of every non-test `.rs` file."""
    files, test_files = [], set()
    for dirpath, _, names in sorted(os.walk(root)):
        for name in sorted(names):
            path = os.path.join(dirpath, name)
            if name.endswith(".rs") and not is_test_file(path):
                with open(path, encoding="utf-8") as fh:
                    lines = fh.read().split("\n")
                files.append((path, strip_tests(path, lines, test_files)))
    return [(p, l) for p, l in files if os.path.normpath(p) not in test_files]


def code(line):
    """A line without its `//` comment."""
    return line.split("//", 1)[0]


def string_errors(lines):
    """Line numbers of `Result<..., String>` (the error type `String`)."""
    text = "\n".join(code(l) for l in lines)
    found = []
    for m in re.finditer(r"\bResult\s*<", text):
        depth, args, start, k = 1, [], m.end(), m.end()
        while k < len(text) and depth:
            c = text[k]
            if c == "<":
                depth += 1
            elif c == ">" and text[k - 1] != "-":
                depth -= 1
            elif c in "([{":
                depth += 1
            elif c in ")]}":
                depth -= 1
            if depth == 1 and c == ",":
                args.append(text[start:k])
                start = k + 1
            k += 1
        args.append(text[start : k - 1])
        args = [a for a in args if a.strip()]
        if len(args) == 2 and args[1].strip() in ("String", "std::string::String"):
            found.append(text.count("\n", 0, m.start()) + 1)
    return found


def dead_code_allowances(lines):
    """Line numbers of `allow(dead_code)` without a permitted reason."""
    found = []
    for n, line in enumerate(lines, 1):
        if "allow(dead_code)" not in code(line):
            continue
        above = lines[n - 2].strip() if n > 1 else ""
        said = above.startswith("//") and not above.startswith(("///", "//!"))
        permitted = PLATFORM.search(line) or "schema" in above.lower()
        if not (said and permitted):
            found.append(n)
    return found


def check(root):
    broken = []
    for path, lines in sources(root):
        rel = os.path.relpath(path, root).split(os.sep)
        if rel[:2] == ["core", "src"]:
            for n in string_errors(lines):
                broken.append(f"{path}:{n}: `Result<_, String>` in core: use a thiserror enum")
        if len(rel) > 1 and rel[1] == "src":
            for n in dead_code_allowances(lines):
                broken.append(
                    f"{path}:{n}: `allow(dead_code)`: remove the dead code (a platform "
                    "`cfg_attr` or a schema-only type may keep it, with a `//` comment above)"
                )
    for line in broken:
        print(line, file=sys.stderr)
    return 1 if broken else 0


def self_test():
    """Each rule fails on a tree that breaks it and passes once fixed."""
    cases = {
        "string error": ("core/src/a.rs", "pub fn f() -> Result<Vec<u8>, String> { todo!() }\n"),
        "string error, split": ("core/src/a.rs", "fn f() -> Result<\n    (),\n    String,\n> {}\n"),
        "dead code": ("x/src/lib.rs", "#[allow(dead_code)]\nstruct A;\n"),
        "dead code, no reason": (
            "x/src/lib.rs",
            '#[cfg_attr(target_os = "linux", allow(dead_code))]\nstruct A;\n',
        ),
        "test file declared": (
            "core/src/lib.rs",
            "#[cfg(test)]\nmod fixture;\nfn f() -> Result<(), String> { Ok(()) }\n",
        ),
    }
    fine = {
        "core/src/lib.rs": "#[cfg(test)]\nmod fixture;\n#[cfg(test)]\nmod t {\n    fn f() -> Result<(), String> { Ok(()) }\n}\n",
        "core/src/fixture.rs": "pub fn f() -> Result<(), String> { Ok(()) }\n",
        "core/src/b.rs": "fn f() -> Result<BTreeMap<String, String>, E> { todo!() }\n#[cfg(test)]\nfn g() -> Result<(), String> { Ok(()) }\n",
        "core/src/c.rs": "// fn f() -> Result<(), String>\nfn g() -> io::Result<String> { todo!() }\n",
        "x/src/lib.rs": '// Platform: only elsewhere.\n#[cfg_attr(target_os = "linux", allow(dead_code))]\nstruct A;\n// Only to generate the schema.\n#[allow(dead_code)]\nstruct S;\n',
        "x/tests/t.rs": "#[allow(dead_code)]\nfn f() -> Result<(), String> { Ok(()) }\n",
    }

    def tree(files):
        root = tempfile.mkdtemp()
        for rel, text in files.items():
            path = os.path.join(root, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(text)
        return root

    failures = []
    devnull = open(os.devnull, "w")
    stderr, sys.stderr = sys.stderr, devnull
    try:
        if check(tree(fine)) != 0:
            failures.append("a clean tree was refused")
        for name, (rel, text) in cases.items():
            files = dict(fine)
            files[rel] = text
            if check(tree(files)) != 1:
                failures.append(f"not caught: {name}")
    finally:
        sys.stderr = stderr
        devnull.close()
    for f in failures:
        print(f"house-rules self-test: {f}", file=sys.stderr)
    if not failures:
        print(f"house-rules self-test: {len(cases)} broken trees caught, a clean one passed")
    return 1 if failures else 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    sys.exit(check(sys.argv[1] if len(sys.argv) > 1 else "crates"))
