//! Token logprobs and ids (`model.logprobs`): asked for in Gemini's terms
//! (`generationConfig.responseLogprobs`), carried in Gemini's terms (a
//! candidate's `logprobsResult.chosenCandidates`: `token`, `tokenId`,
//! `logProbability`), and gathered over a streamed answer for the session
//! file and the trajectory.
//!
//! An OpenAI-compatible server is asked with the fields llama.cpp's server,
//! vLLM and SGLang understand (`logprobs`, `top_logprobs`,
//! `return_token_ids`); its answer's ids come from whichever form it uses:
//! a logprob entry's `id` (llama.cpp), a choice's `token_ids` (vLLM's
//! `return_token_ids`), or a token written `token_id:N` (vLLM's
//! `return_tokens_as_token_ids`). Prompt ids (`prompt_token_ids`, vLLM) ride
//! along as the candidate's `promptTokenIds`.

use gemini_rs_protocol::Candidate;
use serde::Deserialize;
use serde_json::{Map, Value, json};

/// The generation-config key that asks for logprobs (Gemini's name).
pub(crate) const REQUEST_KEY: &str = "responseLogprobs";

/// The OpenAI chat-completions fields for a request that asks for
/// logprobs: one top alternative per token (llama-cpp-python returns none
/// without it), and the token ids.
pub(crate) fn openai_request_fields(body: &mut Map<String, Value>) {
    body.insert("logprobs".into(), json!(true));
    body.insert("top_logprobs".into(), json!(1));
    body.insert("return_token_ids".into(), json!(true));
}

/// A choice's `logprobs`.
#[derive(Deserialize, Default)]
#[serde(default)]
struct EntryList {
    content: Option<Vec<Entry>>,
}

/// One token's entry (its alternatives are not read).
#[derive(Deserialize, Default)]
#[serde(default)]
struct Entry {
    token: Option<String>,
    /// llama.cpp's token id.
    id: Option<i64>,
    logprob: Option<f64>,
}

/// `value` read as `T`; a server's answer of another shape gives no
/// logprobs (it does not stop the answer).
fn read<'a, T: Deserialize<'a> + Default>(value: &'a Value) -> T {
    T::deserialize(value).unwrap_or_else(|e| {
        tracing::debug!("logprobs of an unexpected shape: {e}");
        T::default()
    })
}

/// A chunk choice's logprobs as Gemini's `logprobsResult`, with the
/// prompt's ids when the choice or else the chunk carried them; `None`
/// when it has neither. Each field is read on its own: one of an
/// unexpected shape is passed over.
pub(crate) fn from_openai_choice(
    logprobs: &Value,
    token_ids: &Value,
    prompt_token_ids: [&Value; 2],
) -> Option<(Value, Option<Value>)> {
    let logprobs: Option<EntryList> = read(logprobs);
    let ids: Option<Vec<Value>> = read(token_ids);
    let [choice_prompt, chunk_prompt] = prompt_token_ids;
    let prompt_token_ids: Option<Vec<Value>> = read(choice_prompt);
    let entries = logprobs.and_then(|l| l.content).unwrap_or_default();
    let prompt_ids = prompt_token_ids
        .or_else(|| read::<Option<Vec<Value>>>(chunk_prompt))
        .filter(|p| !p.is_empty())
        .map(Value::Array);
    if entries.is_empty() && ids.as_ref().is_none_or(Vec::is_empty) && prompt_ids.is_none() {
        return None;
    }
    // Ids given beside the entries line up with them only when the counts match.
    let side_ids = ids.filter(|ids| entries.is_empty() || ids.len() == entries.len());
    let chosen: Vec<Value> = if entries.is_empty() {
        side_ids
            .into_iter()
            .flatten()
            .map(|id| json!({"tokenId": id}))
            .collect()
    } else {
        entries
            .into_iter()
            .enumerate()
            .map(|(i, e)| {
                let token = e.token.unwrap_or_default();
                let id =
                    e.id.or_else(|| side_ids.as_ref().and_then(|ids| ids.get(i)?.as_i64()))
                        .or_else(|| token.strip_prefix("token_id:")?.parse().ok());
                let mut c = Map::new();
                c.insert("token".into(), json!(token));
                if let Some(id) = id {
                    c.insert("tokenId".into(), json!(id));
                }
                if let Some(lp) = e.logprob {
                    c.insert("logProbability".into(), json!(lp));
                }
                Value::Object(c)
            })
            .collect()
    };
    Some((json!({"chosenCandidates": chosen}), prompt_ids))
}

/// A candidate's logprob fields, in Gemini's terms.
#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct CandidateLogprobs {
    logprobs_result: Option<LogprobsResult>,
    prompt_token_ids: Option<Vec<Value>>,
}

/// `logprobsResult`.
#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct LogprobsResult {
    chosen_candidates: Vec<Chosen>,
}

/// One chosen token.
#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct Chosen {
    token: Option<String>,
    token_id: Option<i64>,
    log_probability: Option<f64>,
}

/// The logprobs of one streamed answer, gathered chunk by chunk.
#[derive(Debug, Default)]
pub struct Logprobs {
    tokens: Vec<String>,
    ids: Vec<Option<i64>>,
    logprobs: Vec<Option<f64>>,
    prompt_ids: Vec<i64>,
}

impl Logprobs {
    /// Adds a candidate's `logprobsResult.chosenCandidates` and
    /// `promptTokenIds`.
    pub fn add(&mut self, candidate: &Candidate) {
        let CandidateLogprobs {
            logprobs_result,
            prompt_token_ids,
        } = CandidateLogprobs::deserialize(&candidate.extra).unwrap_or_else(|e| {
            tracing::debug!("logprobs of an unexpected shape: {e}");
            CandidateLogprobs::default()
        });
        for c in logprobs_result
            .into_iter()
            .flat_map(|r| r.chosen_candidates)
        {
            self.tokens.push(c.token.unwrap_or_default());
            self.ids.push(c.token_id);
            self.logprobs.push(c.log_probability);
        }
        if let Some(ids) = prompt_token_ids {
            self.prompt_ids = ids.iter().filter_map(Value::as_i64).collect();
        }
    }

    /// As recorded in the session file: `{tokens, tokenIds, logprobs,
    /// promptTokenIds}`, a list left out when the server did not give
    /// all of it; `None` when nothing came.
    pub fn to_value(&self) -> Option<Value> {
        if self.tokens.is_empty() && self.prompt_ids.is_empty() {
            return None;
        }
        let all = |v: &[Option<i64>]| v.iter().copied().collect::<Option<Vec<i64>>>();
        let mut out = Map::new();
        out.insert("tokens".into(), json!(self.tokens));
        if let Some(ids) = all(&self.ids).filter(|v| !v.is_empty()) {
            out.insert("tokenIds".into(), json!(ids));
        }
        let lps = self.logprobs.iter().copied().collect::<Option<Vec<f64>>>();
        if let Some(lps) = lps.filter(|v| !v.is_empty()) {
            out.insert("logprobs".into(), json!(lps));
        }
        if !self.prompt_ids.is_empty() {
            out.insert("promptTokenIds".into(), json!(self.prompt_ids));
        }
        Some(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A chunk's choice `c` read as the stream reads it.
    fn from_choice(c: &Value) -> Option<(Value, Option<Value>)> {
        from_openai_choice(
            &c["logprobs"],
            &c["token_ids"],
            [&c["prompt_token_ids"], &Value::Null],
        )
    }

    #[test]
    fn ids_come_from_each_servers_form() {
        let llama = json!({"logprobs": {"content": [
            {"id": 7, "token": "Hi", "logprob": -0.5, "top_logprobs": []}]}});
        let (r, _) = from_choice(&llama).unwrap();
        assert_eq!(
            r["chosenCandidates"][0],
            json!({"token": "Hi", "tokenId": 7, "logProbability": -0.5})
        );
        let vllm = json!({"token_ids": [9], "prompt_token_ids": [1, 2],
            "logprobs": {"content": [{"token": "Hi", "logprob": -0.1}]}});
        let (r, p) = from_choice(&vllm).unwrap();
        assert_eq!(r["chosenCandidates"][0]["tokenId"], 9);
        assert_eq!(p, Some(json!([1, 2])));
        let as_ids = json!({"logprobs": {"content": [{"token": "token_id:42", "logprob": -1.0}]}});
        let (r, _) = from_choice(&as_ids).unwrap();
        assert_eq!(r["chosenCandidates"][0]["tokenId"], 42);
        assert!(from_choice(&json!({"delta": {}})).is_none());
    }
}
