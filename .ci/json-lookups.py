#!/usr/bin/env python3
"""Counts JSON walked by hand: `.get("...")` lookups outside tests.

Every wire and file format gemini-rs reads or writes is a serde type; a
`serde_json::Value` is walked by hand only where its shape is genuinely
open (a tool's arguments, a JSON Schema, a hook's free-form output), and
a comment says so: a lookup in a file whose module doc (`//!`) says
`open shape`, on a line that says it, or in the function below a comment
that says it, is not counted.

Test code does not count: `tests.rs`, `*_tests.rs`, `tests_*.rs`, files
under `tests/` folders, the test-support crate and inline
`#[cfg(test)] mod ... { }` blocks.

Usage: json-lookups.py [--max N] [--list] CRATES_DIR   (exit 1 above N)
"""
import os
import re
import sys

LOOKUP = re.compile(r'\.get\("')
MARK = "open shape"


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


def strip_test_blocks(lines):
    """Blanks `#[cfg(test)]` items (a `mod x { ... }` block)."""
    out = list(lines)
    i = 0
    while i < len(out):
        if out[i].strip() == "#[cfg(test)]":
            j = i + 1
            if j < len(out) and re.match(r"\s*(pub(\([^)]*\))?\s+)?mod\s+\w+\s*\{", out[j]):
                depth = 0
                k = j
                while k < len(out):
                    depth += out[k].count("{") - out[k].count("}")
                    out[k] = ""
                    if depth <= 0 and k > j:
                        break
                    k += 1
                i = k
        i += 1
    return out


def count(root):
    found = []
    for dirpath, _, files in os.walk(root):
        for f in sorted(files):
            if not f.endswith(".rs"):
                continue
            path = os.path.join(dirpath, f)
            if is_test_file(path):
                continue
            with open(path, encoding="utf-8") as fh:
                lines = strip_test_blocks(fh.read().split("\n"))
            if any(l.startswith("//!") and MARK in l for l in lines):
                continue
            marked = False
            for n, line in enumerate(lines, 1):
                stripped = line.strip()
                if stripped.startswith("//"):
                    marked = marked or MARK in stripped
                    continue
                hits = len(LOOKUP.findall(line))
                if hits and not (marked or MARK in line):
                    found.append((path, n, hits))
                # A mark covers the function it stands above.
                if re.match(r"^(    )?\}\s*$", line):
                    marked = False
    return found


def main(argv):
    limit = None
    listing = False
    args = []
    it = iter(argv)
    for a in it:
        if a == "--max":
            limit = int(next(it))
        elif a == "--list":
            listing = True
        else:
            args.append(a)
    root = args[0] if args else "crates"
    found = count(root)
    total = sum(h for _, _, h in found)
    if listing:
        for path, n, hits in found:
            print(f"{path}:{n}: {hits}")
    print(f"JSON lookups by hand outside tests: {total}")
    if limit is not None and total > limit:
        print(f"more than {limit}: use a serde type, or say `open shape` where the shape is open", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
