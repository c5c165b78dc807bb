//! Citation markers and source lists built from a response's grounding
//! metadata, shared by `web_fetch` and `google_web_search`.
//!
//! Gemini CLI v0.27.4 inserts `[n]` markers at each grounding support's
//! `segment.endIndex` and appends a `Sources:` list. The two tools read the
//! index differently: `web_fetch` as a UTF-16 code-unit index (it splices a
//! JavaScript string split into code units), `google_web_search` as a UTF-8
//! byte offset. Both are reproduced here.

use gemini_rs_protocol::GroundingMetadata;

/// How `segment.endIndex` is counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Offsets {
    /// UTF-8 bytes (`google_web_search`).
    Utf8Bytes,
    /// UTF-16 code units (`web_fetch`).
    Utf16Units,
}

/// The `[n] <title> (<uri>)` lines of the grounding chunks, numbered from 1.
/// An empty title becomes `Untitled`, an empty URI `missing_uri`.
pub(crate) fn source_lines(meta: &GroundingMetadata, missing_uri: &str) -> Vec<String> {
    meta.grounding_chunks
        .as_deref()
        .unwrap_or_default()
        .iter()
        .enumerate()
        .map(|(i, chunk)| {
            let web = chunk.web.as_ref();
            let title = web
                .and_then(|w| w.title.as_deref())
                .filter(|t| !t.is_empty())
                .unwrap_or("Untitled");
            let uri = web
                .and_then(|w| w.uri.as_deref())
                .filter(|u| !u.is_empty())
                .unwrap_or(missing_uri);
            format!("[{}] {title} ({uri})", i + 1)
        })
        .collect()
}

/// The markers to insert: `(endIndex, "[a][b]")` for every support with a
/// segment and chunk indices, sorted by index descending (stable, as
/// JavaScript's sort).
fn insertions(meta: &GroundingMetadata) -> Vec<(usize, String)> {
    let mut out: Vec<(usize, String)> = meta
        .grounding_supports
        .as_deref()
        .unwrap_or_default()
        .iter()
        .filter_map(|support| {
            let segment = support.segment.as_ref()?;
            let indices = support.grounding_chunk_indices.as_ref()?;
            let marker: String = indices.iter().map(|i| format!("[{}]", i + 1)).collect();
            Some((segment.end_index.unwrap_or(0), marker))
        })
        .collect();
    out.sort_by_key(|m| std::cmp::Reverse(m.0));
    out
}

/// Inserts markers at UTF-8 byte offsets, as Gemini CLI's web search does
/// with `TextEncoder`: each offset is clamped to the previous (higher) one,
/// and bytes split inside a character decode as U+FFFD.
fn insert_utf8(text: &str, insertions: &[(usize, String)]) -> String {
    let bytes = text.as_bytes();
    let mut parts: Vec<&[u8]> = Vec::with_capacity(insertions.len() * 2 + 1);
    let mut last = bytes.len();
    for (index, marker) in insertions {
        let pos = (*index).min(last);
        parts.push(&bytes[pos..last]);
        parts.push(marker.as_bytes());
        last = pos;
    }
    parts.push(&bytes[..last]);
    let joined: Vec<u8> = parts.into_iter().rev().flatten().copied().collect();
    String::from_utf8_lossy(&joined).into_owned()
}

/// Inserts markers at UTF-16 code-unit indices, as Gemini CLI's web fetch
/// does with `split('')` and `splice`: each marker becomes one array element,
/// and an index past the end appends.
fn insert_utf16(text: &str, insertions: &[(usize, String)]) -> String {
    let mut elements: Vec<Vec<u16>> = text.encode_utf16().map(|u| vec![u]).collect();
    for (index, marker) in insertions {
        let pos = (*index).min(elements.len());
        elements.insert(pos, marker.encode_utf16().collect());
    }
    let units: Vec<u16> = elements.into_iter().flatten().collect();
    String::from_utf16_lossy(&units)
}

/// `text` with citation markers and the `\n\nSources:\n…` list, when the
/// metadata has grounding chunks; `text` unchanged otherwise.
pub(crate) fn cite(
    text: &str,
    meta: Option<&GroundingMetadata>,
    offsets: Offsets,
    missing_uri: &str,
) -> String {
    let Some(meta) = meta else {
        return text.to_string();
    };
    let sources = source_lines(meta, missing_uri);
    if sources.is_empty() {
        return text.to_string();
    }
    let marks = insertions(meta);
    let mut out = if marks.is_empty() {
        text.to_string()
    } else {
        match offsets {
            Offsets::Utf8Bytes => insert_utf8(text, &marks),
            Offsets::Utf16Units => insert_utf16(text, &marks),
        }
    };
    out.push_str("\n\nSources:\n");
    out.push_str(&sources.join("\n"));
    out
}

/// True when the metadata lists at least one grounding chunk.
pub(crate) fn has_sources(meta: Option<&GroundingMetadata>) -> bool {
    meta.and_then(|m| m.grounding_chunks.as_ref())
        .is_some_and(|c| !c.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn meta(v: serde_json::Value) -> GroundingMetadata {
        serde_json::from_value(v).unwrap()
    }

    fn one_support(end: usize) -> GroundingMetadata {
        meta(json!({
            "groundingChunks": [{"web": {"title": "Rust", "uri": "https://rust-lang.org"}}],
            "groundingSupports": [{"segment": {"startIndex": 0, "endIndex": end}, "groundingChunkIndices": [0]}]
        }))
    }

    #[test]
    fn spec_example_utf8() {
        let m = one_support(7);
        assert_eq!(
            cite(
                "Rust is a language.",
                Some(&m),
                Offsets::Utf8Bytes,
                "No URI"
            ),
            "Rust is[1] a language.\n\nSources:\n[1] Rust (https://rust-lang.org)"
        );
    }

    #[test]
    fn non_ascii_offsets_differ_between_utf8_and_utf16() {
        // "héllo wörld": é and ö are 2 bytes in UTF-8, 1 unit in UTF-16.
        let text = "héllo wörld";
        // UTF-8: "héllo" is 6 bytes.
        let m = one_support(6);
        assert!(cite(text, Some(&m), Offsets::Utf8Bytes, "x").starts_with("héllo[1] wörld"));
        // UTF-16: "héllo" is 5 units.
        let m = one_support(5);
        assert!(cite(text, Some(&m), Offsets::Utf16Units, "x").starts_with("héllo[1] wörld"));
        // Astral characters count 4 bytes / 2 units.
        let text = "🦀 ok";
        let m = one_support(2);
        assert!(cite(text, Some(&m), Offsets::Utf16Units, "x").starts_with("🦀[1] ok"));
        let m = one_support(4);
        assert!(cite(text, Some(&m), Offsets::Utf8Bytes, "x").starts_with("🦀[1] ok"));
    }

    #[test]
    fn several_markers_and_out_of_range_indices() {
        let m = meta(json!({
            "groundingChunks": [{"web": {"title": "A", "uri": "https://a"}}, {"web": {}}],
            "groundingSupports": [
                {"segment": {"endIndex": 1}, "groundingChunkIndices": [0, 1]},
                {"segment": {"endIndex": 99}, "groundingChunkIndices": [1]},
                {"groundingChunkIndices": [0]},
                {"segment": {"endIndex": 2}}
            ]
        }));
        assert_eq!(
            cite("abc", Some(&m), Offsets::Utf8Bytes, "No URI"),
            "a[1][2]bc[2]\n\nSources:\n[1] A (https://a)\n[2] Untitled (No URI)"
        );
        assert_eq!(
            cite("abc", Some(&m), Offsets::Utf16Units, "Unknown URI"),
            "a[1][2]bc[2]\n\nSources:\n[1] A (https://a)\n[2] Untitled (Unknown URI)"
        );
    }

    #[test]
    fn same_index_markers_come_out_in_reverse_order() {
        let m = meta(json!({
            "groundingChunks": [{"web": {"title": "A"}}, {"web": {"title": "B"}}],
            "groundingSupports": [
                {"segment": {"endIndex": 1}, "groundingChunkIndices": [0]},
                {"segment": {"endIndex": 1}, "groundingChunkIndices": [1]}
            ]
        }));
        assert!(cite("ab", Some(&m), Offsets::Utf8Bytes, "x").starts_with("a[2][1]b"));
        assert!(cite("ab", Some(&m), Offsets::Utf16Units, "x").starts_with("a[2][1]b"));
    }

    #[test]
    fn no_chunks_means_no_markers() {
        let m = meta(json!({
            "groundingSupports": [{"segment": {"endIndex": 1}, "groundingChunkIndices": [0]}]
        }));
        assert_eq!(cite("ab", Some(&m), Offsets::Utf8Bytes, "x"), "ab");
        assert_eq!(cite("ab", None, Offsets::Utf16Units, "x"), "ab");
        assert!(!has_sources(Some(&m)));
        assert!(has_sources(Some(&one_support(1))));
    }
}
