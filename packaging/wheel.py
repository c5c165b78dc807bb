#!/usr/bin/env python3
"""Packs an already-built gemini-rs binary into a Python wheel.

`pip install` of the wheel puts `gemini-rs` on the environment's PATH (the
binary is the wheel's only script, under `<name>.data/scripts/`, as
maturin's `bin` bindings lay it out), with no Rust, Node or network at run
time. CI packs the binary its tests already built; a release builds the
static binary with maturin (see pyproject.toml) or packs it with this.

Usage: wheel.py BINARY OUT_DIR [--version V] [--platform TAG]
The version defaults to the binary's own (`gemini-rs --version`); the
platform tag to `manylinux_2_17_<arch>.musllinux_1_1_<arch>` for a static
binary (it runs on any Linux) and `linux_<arch>` for one that needs the
system's C library (installable on this kind of machine only).
"""
import argparse
import base64
import hashlib
import os
import platform
import re
import struct
import subprocess
import sys
import zipfile

NAME = "gemini-rs"
DIST = "gemini_rs"
SUMMARY = "A fast, drop-in compatible Rust implementation of the Gemini CLI agent"

def binary_version(binary):
    out = subprocess.run([binary, "--version"], capture_output=True, text=True, check=True).stdout
    match = re.search(r"\d+\.\d+\.\d+[^\s]*", out)
    if not match:
        sys.exit(f"wheel.py: {binary} --version printed no version: {out!r}")
    return match.group(0)

def is_static(binary):
    """An ELF file without a PT_INTERP program header needs no loader."""
    with open(binary, "rb") as f:
        head = f.read(64)
        if head[:4] != b"\x7fELF" or head[4] != 2:
            sys.exit(f"wheel.py: {binary} is not a 64-bit ELF executable")
        endian = "<" if head[5] == 1 else ">"

        phoff = struct.unpack(endian + "Q", head[32:40])[0]
        phentsize, phnum = struct.unpack(endian + "HH", head[54:58])
        f.seek(phoff)
        table = f.read(phentsize * phnum)
    kinds = [struct.unpack(endian + "I", table[i : i + 4])[0] for i in range(0, len(table), phentsize)]
    return 3 not in kinds  # PT_INTERP

def platform_tag(binary):
    arch = platform.machine()
    if is_static(binary):
        return f"manylinux_2_17_{arch}.manylinux2014_{arch}.musllinux_1_1_{arch}"
    return f"linux_{arch}"

def digest(data):
    sha = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(sha).rstrip(b"=").decode(), str(len(data))

def build(binary, out_dir, version, tag):
    wheel_name = f"{DIST}-{version}-py3-none-{tag}.whl"
    info = f"{DIST}-{version}.dist-info"
    files = {
        f"{info}/METADATA": (
            "Metadata-Version: 2.1\n"
            f"Name: {NAME}\n"
            f"Version: {version}\n"
            f"Summary: {SUMMARY}\n"
            "License: Apache-2.0\n"
            "Requires-Python: >=3.8\n"
        ).encode(),
        f"{info}/WHEEL": (
            "Wheel-Version: 1.0\n"
            "Generator: gemini-rs packaging/wheel.py\n"
            "Root-Is-Purelib: false\n"
            + "".join(f"Tag: py3-none-{t}\n" for t in tag.split("."))
        ).encode(),
    }
    with open(binary, "rb") as f:
        exe = f.read()
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, wheel_name)
    tmp = path + ".part"
    record = []
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as z:
        script = zipfile.ZipInfo(f"{DIST}-{version}.data/scripts/{NAME}", date_time=(1980, 1, 1, 0, 0, 0))
        script.external_attr = (0o100755 & 0xFFFF) << 16
        script.compress_type = zipfile.ZIP_DEFLATED
        z.writestr(script, exe)
        record.append((script.filename, *digest(exe)))
        for name, data in files.items():
            z.writestr(zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0)), data)
            record.append((name, *digest(data)))
        lines = "".join(f"{n},{h},{s}\n" for n, h, s in record) + f"{info}/RECORD,,\n"
        z.writestr(zipfile.ZipInfo(f"{info}/RECORD", date_time=(1980, 1, 1, 0, 0, 0)), lines)
    os.replace(tmp, path)
    return path

def main():
    parser = argparse.ArgumentParser(description="Pack a gemini-rs binary into a wheel.")
    parser.add_argument("binary")
    parser.add_argument("out_dir")
    parser.add_argument("--version")
    parser.add_argument("--platform")
    args = parser.parse_args()
    if not os.path.isfile(args.binary) or not os.access(args.binary, os.X_OK):
        sys.exit(f"wheel.py: {args.binary} is not an executable file")
    version = args.version or binary_version(args.binary)
    tag = args.platform or platform_tag(args.binary)
    print(build(args.binary, args.out_dir, version, tag))

if __name__ == "__main__":
    main()
