//! File type detection (Gemini CLI's `detectFileType`) and BOM-aware text
//! decoding.

use std::path::Path;

/// What kind of content a file holds, as `read_file` treats it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// Text, read as lines.
    Text,
    /// `image/*`, sent as inline data.
    Image,
    /// `application/pdf`, sent as inline data.
    Pdf,
    /// `audio/*`, sent as inline data.
    Audio,
    /// `video/*`, sent as inline data.
    Video,
    /// Anything else that is not text; not read.
    Binary,
    /// `.svg`, read as text (up to 1 MB).
    Svg,
}

impl FileKind {
    /// The lower-case name Gemini CLI uses (`text`, `image`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            FileKind::Text => "text",
            FileKind::Image => "image",
            FileKind::Pdf => "pdf",
            FileKind::Audio => "audio",
            FileKind::Video => "video",
            FileKind::Binary => "binary",
            FileKind::Svg => "svg",
        }
    }
}

/// Extensions always treated as binary (without the dot, lower case).
const BINARY_EXTENSIONS: [&str; 39] = [
    "bin", "exe", "dll", "so", "dylib", "class", "jar", "war", "zip", "tar", "gz", "bz2", "rar",
    "7z", "doc", "docx", "xls", "xlsx", "ppt", "pptx", "odt", "ods", "odp", "pdf", "png", "jpg",
    "jpeg", "gif", "webp", "bmp", "svg", "pyc", "pyo", "dat", "obj", "o", "a", "lib", "wasm",
];

fn extension(path: &Path) -> Option<String> {
    path.extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
}

/// The mime type Gemini CLI would look up for `path` by extension.
pub fn mime_type(path: &Path) -> Option<String> {
    mime_guess::from_path(path).first_raw().map(str::to_string)
}

/// True when `head` (the first bytes of a file) looks binary: no BOM, and
/// either a NUL byte or more than 30 % control bytes (`< 9` or `14..=31`).
pub fn looks_binary(head: &[u8]) -> bool {
    if head.is_empty() || bom(head).is_some() {
        return false;
    }
    let mut control = 0usize;
    for &b in head {
        if b == 0 {
            return true;
        }
        if b < 9 || (14..32).contains(&b) {
            control += 1;
        }
    }
    control * 10 > head.len() * 3
}

/// Detects the kind of `path` from its name, and when needed from its first
/// 4 KB (`head`).
pub fn detect_kind(path: &Path, head: &[u8]) -> FileKind {
    let ext = extension(path);
    match ext.as_deref() {
        Some("ts" | "mts" | "cts") => return FileKind::Text,
        Some("svg") => return FileKind::Svg,
        _ => {}
    }
    if let Some(mime) = mime_type(path) {
        if mime.starts_with("image/") {
            return FileKind::Image;
        }
        if mime.starts_with("audio/") {
            return FileKind::Audio;
        }
        if mime.starts_with("video/") {
            return FileKind::Video;
        }
        if mime == "application/pdf" {
            return FileKind::Pdf;
        }
    }
    if ext
        .as_deref()
        .is_some_and(|e| BINARY_EXTENSIONS.contains(&e))
    {
        return FileKind::Binary;
    }
    if looks_binary(head) {
        return FileKind::Binary;
    }
    FileKind::Text
}

#[cfg(test)]
/// [`detect_kind`] reading the first 4 KB of the file.
pub fn detect_file_kind(path: &Path) -> std::io::Result<FileKind> {
    use std::io::Read;
    let mut head = Vec::with_capacity(4096);
    std::fs::File::open(path)?
        .take(4096)
        .read_to_end(&mut head)?;
    Ok(detect_kind(path, &head))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Bom {
    Utf8,
    Utf16Le,
    Utf16Be,
    Utf32Le,
    Utf32Be,
}

fn bom(bytes: &[u8]) -> Option<(Bom, usize)> {
    if bytes.starts_with(&[0xEF, 0xBB, 0xBF]) {
        Some((Bom::Utf8, 3))
    } else if bytes.starts_with(&[0xFF, 0xFE, 0, 0]) {
        Some((Bom::Utf32Le, 4))
    } else if bytes.starts_with(&[0, 0, 0xFE, 0xFF]) {
        Some((Bom::Utf32Be, 4))
    } else if bytes.starts_with(&[0xFF, 0xFE]) {
        Some((Bom::Utf16Le, 2))
    } else if bytes.starts_with(&[0xFE, 0xFF]) {
        Some((Bom::Utf16Be, 2))
    } else {
        None
    }
}

/// Decodes file bytes as text: a BOM selects UTF-8/16LE/16BE/32LE/32BE and
/// is stripped; without one the bytes are UTF-8. Invalid sequences become
/// U+FFFD.
pub fn decode_text(bytes: &[u8]) -> String {
    let Some((kind, skip)) = bom(bytes) else {
        return String::from_utf8_lossy(bytes).into_owned();
    };
    let body = &bytes[skip..];
    match kind {
        Bom::Utf8 => String::from_utf8_lossy(body).into_owned(),
        Bom::Utf16Le | Bom::Utf16Be => {
            let units = body.chunks_exact(2).map(|c| {
                if kind == Bom::Utf16Le {
                    u16::from_le_bytes([c[0], c[1]])
                } else {
                    u16::from_be_bytes([c[0], c[1]])
                }
            });
            let mut s: String = char::decode_utf16(units)
                .map(|r| r.unwrap_or(char::REPLACEMENT_CHARACTER))
                .collect();
            if !body.chunks_exact(2).remainder().is_empty() {
                s.push(char::REPLACEMENT_CHARACTER);
            }
            s
        }
        Bom::Utf32Le | Bom::Utf32Be => {
            let mut s: String = body
                .chunks_exact(4)
                .map(|c| {
                    let v = if kind == Bom::Utf32Le {
                        u32::from_le_bytes([c[0], c[1], c[2], c[3]])
                    } else {
                        u32::from_be_bytes([c[0], c[1], c[2], c[3]])
                    };
                    char::from_u32(v).unwrap_or(char::REPLACEMENT_CHARACTER)
                })
                .collect();
            if !body.chunks_exact(4).remainder().is_empty() {
                s.push(char::REPLACEMENT_CHARACTER);
            }
            s
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_by_name() {
        let k = |name: &str, head: &[u8]| detect_kind(Path::new(name), head);
        assert_eq!(k("a.ts", b"x"), FileKind::Text);
        assert_eq!(k("a.mts", b"x"), FileKind::Text);
        assert_eq!(k("a.svg", b"<svg/>"), FileKind::Svg);
        assert_eq!(k("p.PNG", b""), FileKind::Image);
        assert_eq!(k("d.pdf", b"%PDF"), FileKind::Pdf);
        assert_eq!(k("s.mp3", b"ID3"), FileKind::Audio);
        assert_eq!(k("v.mp4", b""), FileKind::Video);
        assert_eq!(k("b.dat", b"hello!"), FileKind::Binary);
        assert_eq!(k("x.zip", b"PK"), FileKind::Binary);
        assert_eq!(k("a.txt", b"hello"), FileKind::Text);
        assert_eq!(k("noext", b""), FileKind::Text);
        assert_eq!(FileKind::Pdf.as_str(), "pdf");
    }

    #[test]
    fn sniffing() {
        assert!(looks_binary(b"ab\0cd"));
        assert!(!looks_binary(b""));
        assert!(!looks_binary(b"plain text\n\twith tabs\r\n"));
        assert!(looks_binary(&[1, 2, 3, b'a']));
        assert!(!looks_binary(&[1, b'a', b'b', b'c']));
        assert!(!looks_binary(&[0xFF, 0xFE, b'a', 0]));
        assert_eq!(
            detect_kind(Path::new("x.txt"), &[0xFF, 0xFE, b'a', 0]),
            FileKind::Text
        );
        assert_eq!(detect_kind(Path::new("x.txt"), b"a\0b"), FileKind::Binary);
    }

    #[test]
    fn decoding() {
        assert_eq!(decode_text(b"plain"), "plain");
        assert_eq!(decode_text(b"\xEF\xBB\xBFbom"), "bom");
        assert_eq!(decode_text(&[0xFF, 0xFE, b'h', 0, b'i', 0]), "hi");
        assert_eq!(decode_text(&[0xFE, 0xFF, 0, b'h', 0, b'i']), "hi");
        assert_eq!(decode_text(&[0xFF, 0xFE, 0, 0, b'h', 0, 0, 0]), "h");
        assert_eq!(decode_text(&[0, 0, 0xFE, 0xFF, 0, 0, 0, b'h']), "h");
        assert_eq!(decode_text(b"bad \xFF"), "bad \u{FFFD}");
    }

    #[test]
    fn reads_head_from_disk() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f.bin2");
        std::fs::write(&p, [0u8, 1, 2]).unwrap();
        assert_eq!(detect_file_kind(&p).unwrap(), FileKind::Binary);
        assert!(detect_file_kind(&dir.path().join("missing")).is_err());
    }
}
