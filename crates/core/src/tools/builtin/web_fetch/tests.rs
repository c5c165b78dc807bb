use super::fetch::{FetchLimits, Fetched, fetch, github_raw, is_private_url, page_text};
use super::test_support::{FakeGenerator, context, http_ready, response, text_response};
use super::*;
use gemini_rs_test_support::{FakeServer, Reply};
use std::time::Duration;

fn args(prompt: &str) -> Map<String, Value> {
    json!({"prompt": prompt}).as_object().unwrap().clone()
}

fn build_err(prompt: &str) -> String {
    let (ctx, _dir) = context(None);
    WebFetchTool
        .build(&args(prompt), &ctx)
        .err()
        .unwrap()
        .message
}

async fn run(fake: &Arc<FakeGenerator>, prompt: &str, limits: FetchLimits) -> ToolResult {
    let (ctx, _dir) = context(Some(fake.clone()));
    let urls = validate(prompt).unwrap();
    let inv = WebFetchInvocation::new(prompt, urls, limits);
    inv.execute(&ctx, CancellationToken::new()).await
}

const HTML: &str = "<html><head><title>T</title><style>p{}</style></head><body><h1>Big News</h1>\
<p>First <a href=\"https://x.example/y\">linked</a> paragraph.</p><img src=\"a.png\"><ul><li>one</li></ul></body></html>";

fn server() -> FakeServer {
    FakeServer::with_routes([
        (
            "/page.txt",
            Reply::ok("text/plain; charset=utf-8", "hello from local page\n"),
        ),
        ("/page.html", Reply::ok("text/html; charset=utf-8", HTML)),
        ("/untyped", Reply::untyped(200, HTML)),
        (
            "/bin",
            Reply::ok("image/png", vec![0x89, b'P', b'N', b'G', 0, 0, 1, 2]),
        ),
    ])
}

#[test]
fn validation_texts() {
    assert_eq!(
        build_err("  "),
        "The 'prompt' parameter cannot be empty and must contain URL(s) and instructions."
    );
    // A.11 web_fetch_bad / web_fetch_nourl.
    assert_eq!(
        build_err("summarize ftp://x.y/z"),
        "Error(s) in prompt URLs:\n- Unsupported protocol in URL: \"ftp://x.y/z\". Only http and https are supported."
    );
    assert_eq!(
        build_err("summarize nothing"),
        "The 'prompt' must contain at least one valid URL (starting with http:// or https://)."
    );
    assert_eq!(
        build_err("see http:// and ftp://a/b"),
        "Error(s) in prompt URLs:\n- Malformed URL detected: \"http://\".\n- Unsupported protocol in URL: \"ftp://a/b\". Only http and https are supported."
    );
    let parsed = parse_prompt("a HTTPS://Example.COM b http://h:80/x?q=1\tc");
    assert_eq!(parsed.urls, vec!["https://example.com/", "http://h/x?q=1"]);
}

#[test]
fn private_hosts() {
    for url in [
        "http://127.0.0.1:8080/x",
        "http://10.1.2.3/",
        "http://192.168.0.5/",
        "http://172.16.0.1/",
        "http://169.254.1.1/",
        "http://[::1]:9000/",
        "http://[fd00::1]/",
        "http://[::ffff:192.168.1.1]/",
        "http://localhost:3000/",
        "http://LOCALHOST./",
        "http://app.localhost/",
    ] {
        assert!(is_private_url(url), "{url}");
    }
    for url in [
        "https://example.com/",
        "http://8.8.8.8/",
        "http://172.32.0.1/",
        "http://[2001:db8::1]/",
        "http://localhost.example.com/",
    ] {
        assert!(!is_private_url(url), "{url}");
    }
}

#[test]
fn github_blob_urls_become_raw() {
    assert_eq!(
        github_raw("https://github.com/o/r/blob/main/src/a.rs"),
        "https://raw.githubusercontent.com/o/r/main/src/a.rs"
    );
    assert_eq!(
        github_raw("https://github.com/o/r/tree/main"),
        "https://github.com/o/r/tree/main"
    );
}

#[tokio::test]
async fn description_and_confirmation() {
    let (ctx, _dir) = context(None);
    let prompt = "compare https://github.com/o/r/blob/main/a.md and https://example.com";
    let inv = WebFetchTool.build(&args(prompt), &ctx).unwrap();
    assert_eq!(
        inv.description(),
        format!("Processing URLs and instructions from prompt: \"{prompt}\"")
    );
    assert_eq!(
        inv.confirmation(&ctx).await,
        Some(ConfirmationDetails::Info {
            title: "Confirm Web Fetch".into(),
            prompt: prompt.into(),
            urls: vec![
                "https://raw.githubusercontent.com/o/r/main/a.md".into(),
                "https://example.com/".into()
            ],
        })
    );
    let long = format!("read https://example.com {}", "x".repeat(120));
    let inv = WebFetchTool.build(&args(&long), &ctx).unwrap();
    assert!(inv.description().ends_with("xxx...\""));
    assert_eq!(
        inv.description().chars().count(),
        "Processing URLs and instructions from prompt: \"".len() + 101
    );
}

#[tokio::test]
async fn primary_path_with_utf16_citations() {
    // "Ünïcödé 🦀 text": 🦀 is two UTF-16 units; "Ünïcödé 🦀" is 10 units.
    let fake = FakeGenerator::new(vec![Ok(response(json!({
        "candidates": [{
            "content": {"role": "model", "parts": [{"text": "Ünïcödé 🦀 text."}]},
            "groundingMetadata": {
                "groundingChunks": [{"web": {"uri": "https://example.com/a", "title": "Example"}}, {"web": {}}],
                "groundingSupports": [
                    {"segment": {"endIndex": 10}, "groundingChunkIndices": [0]},
                    {"segment": {"endIndex": 16}, "groundingChunkIndices": [1]}
                ]
            },
            "urlContextMetadata": {"urlMetadata": [{"retrievedUrl": "https://example.com/a", "urlRetrievalStatus": "URL_RETRIEVAL_STATUS_SUCCESS"}]}
        }]
    })))]);
    let prompt = "summarize https://example.com/a";
    let r = run(&fake, prompt, FetchLimits::default()).await;
    assert_eq!(r.error, None);
    assert_eq!(
        r.llm_text(),
        "Ünïcödé 🦀[1] text.[2]\n\nSources:\n[1] Example (https://example.com/a)\n[2] Untitled (Unknown URI)"
    );
    assert_eq!(r.display.as_text(), Some("Content processed from prompt."));
    let requests = fake.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].0, "gemini-2.5-flash");
    assert_eq!(
        serde_json::to_value(&requests[0].1).unwrap(),
        json!({
            "contents": [{"role": "user", "parts": [{"text": prompt}]}],
            "tools": [{"urlContext": {}}],
            "generationConfig": {"temperature": 0, "topP": 1}
        })
    );
}

#[tokio::test]
async fn primary_text_without_sources_is_kept() {
    let fake = FakeGenerator::new(vec![Ok(text_response("just text"))]);
    let r = run(&fake, "read https://example.com", FetchLimits::default()).await;
    assert_eq!(r.llm_text(), "just text");
}

#[tokio::test]
async fn a11_web_fetch_local() {
    if !http_ready() {
        return;
    }
    let srv = server();
    let fake = FakeGenerator::new(vec![Ok(text_response("local summary"))]);
    let prompt = format!("summarize {} please", srv.url("/page.txt"));
    let r = run(&fake, &prompt, FetchLimits::default()).await;
    assert_eq!(r.error, None);
    assert_eq!(r.llm_text(), "local summary");
    assert_eq!(
        r.display.as_text().unwrap(),
        format!(
            "Content for {} processed using fallback fetch.",
            srv.url("/page.txt")
        )
    );
    assert_eq!(srv.paths(), vec!["/page.txt"]);
    let requests = fake.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].0, "gemini-2.5-flash");
    let expected_text = fallback_prompt(&prompt, "hello from local page\n");
    assert!(expected_text.ends_with("\n\n---\nhello from local page\n\n---\n"));
    assert_eq!(
        serde_json::to_value(&requests[0].1).unwrap(),
        json!({
            "contents": [{"role": "user", "parts": [{"text": expected_text}]}],
            "generationConfig": {"temperature": 0, "topP": 1}
        })
    );
}

#[tokio::test]
async fn html_is_converted_to_text() {
    if !http_ready() {
        return;
    }
    let srv = server();
    for path in ["/page.html", "/untyped"] {
        let fake = FakeGenerator::new(vec![Ok(text_response("ok"))]);
        let r = run(
            &fake,
            &format!("read {}", srv.url(path)),
            FetchLimits::default(),
        )
        .await;
        assert_eq!(r.llm_text(), "ok");
        let sent = fake.user_text(0);
        assert!(sent.contains("Big News"), "{sent}");
        assert!(sent.contains("First linked paragraph."), "{sent}");
        assert!(sent.contains("one"), "{sent}");
        assert!(
            !sent.contains("<h1>")
                && !sent.contains("https://x.example/y")
                && !sent.contains("p{}"),
            "{sent}"
        );
    }
}

#[tokio::test]
async fn primary_failures_fall_back_to_direct_fetch() {
    if !http_ready() {
        return;
    }
    let srv = server();
    let limits = || FetchLimits {
        resolve: vec![("docs.example.test".to_string(), srv.addr())],
        ..FetchLimits::default()
    };
    let url = format!("http://docs.example.test:{}/page.txt", srv.addr().port());
    let prompt = format!("summarize {url}");
    let all_failed = response(json!({"candidates": [{
        "content": {"parts": [{"text": "could not read it"}]},
        "urlContextMetadata": {"urlMetadata": [{"urlRetrievalStatus": "URL_RETRIEVAL_STATUS_ERROR"}]}
    }]}));
    let api_error = ModelError::Api {
        status: 500,
        message: "boom".into(),
    };
    for first in [Ok(text_response("  ")), Ok(all_failed), Err(api_error)] {
        let fake = FakeGenerator::new(vec![first, Ok(text_response("fallback answer"))]);
        let r = run(&fake, &prompt, limits()).await;
        assert_eq!(r.error, None);
        assert_eq!(r.llm_text(), "fallback answer");
        assert_eq!(
            r.display.as_text().unwrap(),
            format!("Content for {url} processed using fallback fetch.")
        );
        assert_eq!(fake.requests().len(), 2);
        assert!(
            fake.user_text(1)
                .contains("\n---\nhello from local page\n\n---\n")
        );
        assert!(fake.requests()[1].1.tools.is_none());
    }
}

#[tokio::test]
async fn fallback_errors() {
    if !http_ready() {
        return;
    }
    let srv = server();
    let fake = FakeGenerator::new(vec![]);
    let url = srv.url("/missing");
    let r = run(&fake, &format!("read {url}"), FetchLimits::default()).await;
    let err = r.error.clone().unwrap();
    assert_eq!(err.kind, ToolErrorKind::WebFetchFallbackFailed);
    assert_eq!(
        err.message,
        format!(
            "Error during fallback fetch for {url}: Request failed with status code 404 Not Found"
        )
    );
    assert!(fake.requests().is_empty());

    let r = run(
        &fake,
        &format!("read {}", srv.url("/bin")),
        FetchLimits::default(),
    )
    .await;
    assert!(
        r.error
            .unwrap()
            .message
            .contains("binary content (image/png)")
    );

    // No model client: the fetch is not even attempted.
    let (ctx, _dir) = context(None);
    let inv = WebFetchTool
        .build(&args(&format!("read {}", srv.url("/page.txt"))), &ctx)
        .unwrap();
    let r = inv.execute(&ctx, CancellationToken::new()).await;
    assert!(
        r.error
            .unwrap()
            .message
            .contains("no model client is available")
    );
}

#[tokio::test]
async fn redirects_are_capped_at_five() {
    if !http_ready() {
        return;
    }
    let srv = (1..=6)
        .fold(
            FakeServer::builder().route("/r0", Reply::ok("text/plain", "landed")),
            |b, i| b.route(&format!("/r{i}"), Reply::redirect(&format!("/r{}", i - 1))),
        )
        .start();
    let cancel = CancellationToken::new();
    let ok = fetch(&srv.url("/r5"), &FetchLimits::default(), &cancel)
        .await
        .unwrap();
    assert_eq!(ok.body, b"landed");
    let err = fetch(&srv.url("/r6"), &FetchLimits::default(), &cancel)
        .await
        .unwrap_err()
        .to_string();
    assert_eq!(err, "Too many redirects (more than 5).");
}

#[tokio::test]
async fn size_cap_applies_with_and_without_content_length() {
    if !http_ready() {
        return;
    }
    let cap = FetchLimits::default().max_bytes;
    assert_eq!(cap, 10 * 1024 * 1024);
    let srv = FakeServer::with_routes([
        (
            "/exact",
            Reply::ok("text/plain", vec![b'a'; cap]).without_length(),
        ),
        (
            "/big-unsized",
            Reply::ok("text/plain", vec![b'a'; cap + 1]).without_length(),
        ),
        ("/big-sized", Reply::ok("text/plain", vec![b'a'; cap + 1])),
    ]);
    let cancel = CancellationToken::new();
    let limits = FetchLimits::default();
    assert_eq!(
        fetch(&srv.url("/exact"), &limits, &cancel)
            .await
            .unwrap()
            .body
            .len(),
        cap
    );
    for path in ["/big-unsized", "/big-sized"] {
        let err = fetch(&srv.url(path), &limits, &cancel)
            .await
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "Response body exceeds the size limit of 10485760 bytes."
        );
    }
}

#[tokio::test]
async fn retries_timeouts_and_cancellation() {
    if !http_ready() {
        return;
    }
    // 503 for the first n hits, then 200.
    let flaky = |n| {
        let mut replies = vec![Reply::text(503, "busy"); n];
        replies.push(Reply::text(200, "recovered"));
        replies
    };
    let srv = FakeServer::builder()
        .route_replies("/flaky2", flaky(2))
        .route_replies("/flaky3", flaky(3))
        .route(
            "/slow",
            Reply::text(200, "slow").delayed(Duration::from_millis(1500)),
        )
        .start();
    let limits = FetchLimits {
        retry_delay: Duration::from_millis(10),
        timeout: Duration::from_millis(300),
        ..FetchLimits::default()
    };
    let cancel = CancellationToken::new();
    let ok = fetch(&srv.url("/flaky2"), &limits, &cancel).await.unwrap();
    assert_eq!(ok.body, b"recovered");
    let err = fetch(&srv.url("/flaky3"), &limits, &cancel)
        .await
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "Request failed with status code 503 Service Unavailable"
    );
    let hits = srv.paths();
    assert_eq!(hits.iter().filter(|p| *p == "/flaky2").count(), 3);
    assert_eq!(hits.iter().filter(|p| *p == "/flaky3").count(), 3);
    let err = fetch(&srv.url("/slow"), &limits, &cancel)
        .await
        .unwrap_err()
        .to_string();
    assert_eq!(err, "Request timed out after 300ms");
    let cancelled = CancellationToken::new();
    cancelled.cancel();
    let err = fetch(&srv.url("/slow"), &FetchLimits::default(), &cancelled)
        .await
        .unwrap_err()
        .to_string();
    assert_eq!(err, "The request was cancelled.");
}

#[test]
fn page_text_caps_and_converts() {
    let long = Fetched {
        body: "é".repeat(100_010).into_bytes(),
        content_type: "text/plain".into(),
    };
    assert_eq!(
        page_text(&long, MAX_CONTENT_LENGTH)
            .unwrap()
            .chars()
            .count(),
        100_000
    );
    let json_body = Fetched {
        body: b"{\"a\": \"<b>\"}".to_vec(),
        content_type: "application/json".into(),
    };
    assert_eq!(page_text(&json_body, 10).unwrap(), "{\"a\": \"<b>");
    let html = Fetched {
        body: HTML.as_bytes().to_vec(),
        content_type: "TEXT/HTML".into(),
    };
    let text = page_text(&html, MAX_CONTENT_LENGTH).unwrap();
    assert!(text.contains("Big News") && !text.contains("<p>"), "{text}");
}
