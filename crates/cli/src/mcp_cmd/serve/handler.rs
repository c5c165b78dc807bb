//! rmcp's [`ServerHandler`], written by hand: the tool list comes from the
//! session at run time, so rmcp's `#[tool]` macros do not fit. One handler
//! value is shared by every connection (stdio, or each HTTP session); rmcp
//! runs each request in its own task and cancels its token on
//! `notifications/cancelled` (or when the HTTP session ends).

use super::resources;
use super::session::{CallError, ToolSession};
use gemini_rs_protocol::lenient::{from_object, present};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CompleteRequestParams, CompleteResult, CustomRequest,
    CustomResult, GetPromptRequestParams, GetPromptResponse, Implementation, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ProtocolVersion, ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities,
    ServerConfig, SubscribeRequestParams, Tool, UnsubscribeRequestParams,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Value, json};
use std::borrow::Cow;
use std::sync::Arc;

/// Protocol versions we speak, newest first: 2026-07-28's stateless
/// lifecycle (`server/discover`, requests with `_meta`; rmcp routes them)
/// and every one with the `initialize` handshake.
const PROTOCOL_VERSIONS: &[ProtocolVersion] = &[
    ProtocolVersion::V_2026_07_28,
    ProtocolVersion::V_2025_11_25,
    ProtocolVersion::V_2025_06_18,
    ProtocolVersion::V_2025_03_26,
    ProtocolVersion::V_2024_11_05,
];

/// Methods of the protocol versions we offer: one of these arriving as a
/// custom request had params rmcp could not read.
const KNOWN_METHODS: &[&str] = &[
    "initialize",
    "server/discover",
    "ping",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "prompts/list",
    "prompts/get",
    "completion/complete",
    "logging/setLevel",
];

/// Methods 2026-07-28 removed (the handshake, `ping`, logging levels and
/// `resources/subscribe`, which `subscriptions/listen` replaced): a
/// request of that revision for one is a method not found.
const REMOVED_IN_2026: &[&str] = &[
    "initialize",
    "ping",
    "logging/setLevel",
    "resources/subscribe",
    "resources/unsubscribe",
];

/// True when the request came in under 2026-07-28 or later (its `_meta`
/// names the revision).
fn stateless(context: &RequestContext<RoleServer>) -> bool {
    context
        .meta
        .protocol_version()
        .is_some_and(|v| v.as_str() >= ProtocolVersion::V_2026_07_28.as_str())
}

/// The built-in tools (and with `--resources` the workspace's files) as an
/// MCP server.
#[derive(Clone)]
pub(super) struct Handler {
    session: Arc<ToolSession>,
    resources: bool,
}

impl Handler {
    /// A handler over `session`; `resources` offers the workspace's files.
    pub(super) fn new(session: Arc<ToolSession>, resources: bool) -> Self {
        Handler { session, resources }
    }

    fn method_not_found(method: &str) -> ErrorData {
        ErrorData::new(
            rmcp::model::ErrorCode::METHOD_NOT_FOUND,
            format!("Method not found: {method}"),
            None,
        )
    }

    fn require_resources(&self, method: &str) -> Result<(), ErrorData> {
        match self.resources {
            true => Ok(()),
            false => Err(Self::method_not_found(method)),
        }
    }
}

impl ServerHandler for Handler {
    fn get_info(&self) -> ServerConfig {
        // rmcp's builder cannot say `listChanged: false` (nor `subscribe`);
        // serde can, and keeps the capabilities we always sent.
        let mut wire = json!({"tools": {"listChanged": false}});
        if self.resources {
            wire["resources"] = json!({"subscribe": false, "listChanged": false});
        }
        let capabilities = serde_json::from_value(wire).unwrap_or_else(|_| {
            let builder = ServerCapabilities::builder().enable_tools();
            match self.resources {
                true => builder.enable_resources().build(),
                false => builder.build(),
            }
        });
        let mut server = Implementation::new("gemini-rs", env!("CARGO_PKG_VERSION"));
        server.title = Some("gemini-rs built-in tools".to_string());
        ServerConfig::new(capabilities)
            .with_protocol_version(ProtocolVersion::V_2025_11_25)
            .with_server_info(server)
            .with_instructions(
                "The built-in tools of gemini-rs (files, search, shell, web fetch, memory), working in the directory the server was started in.",
            )
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(PROTOCOL_VERSIONS)
    }

    // `logging/setLevel` is part of every version we offer (SEP-2577
    // deprecates it only from 2026-07-28 on).
    #[allow(deprecated)]
    async fn set_level(
        &self,
        _request: rmcp::model::SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        if stateless(&context) {
            return Err(Self::method_not_found("logging/setLevel"));
        }
        // Accepted; we send no log notifications.
        Ok(())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.session.tools()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.session.tool(name)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name;
        let args = request.arguments.unwrap_or_default();
        match self.session.call(&name, args, context.ct).await {
            Ok(result) => Ok(result.into()),
            Err(CallError::UnknownTool) => Err(ErrorData::invalid_params(
                format!("Unknown tool: {name}"),
                None,
            )),
            Err(CallError::Ended) => Err(ErrorData::internal_error(
                "The tool session has ended.",
                None,
            )),
        }
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        self.require_resources("resources/list")?;
        let list = resources::list(self.session.view());
        Ok(ListResourcesResult::with_all_items(list))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        self.require_resources("resources/templates/list")?;
        Ok(ListResourceTemplatesResult::with_all_items(
            resources::templates(),
        ))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        self.require_resources("resources/read")?;
        resources::read(self.session.view(), &request.uri).map(Into::into)
    }

    /// Unknown methods, and known ones whose params rmcp could not read
    /// (it falls back to a custom request for those).
    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        Err(Self::method_not_found("prompts/list"))
    }

    async fn get_prompt(
        &self,
        _request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        Err(Self::method_not_found("prompts/get"))
    }

    async fn complete(
        &self,
        _request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        Err(Self::method_not_found("completion/complete"))
    }

    async fn subscribe(
        &self,
        _request: SubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        Err(Self::method_not_found("resources/subscribe"))
    }

    async fn unsubscribe(
        &self,
        _request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        Err(Self::method_not_found("resources/unsubscribe"))
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        let method = request.method.as_str();
        if stateless(&context) && REMOVED_IN_2026.contains(&method) {
            return Err(Self::method_not_found(method));
        }
        let named = |p: &Value| from_object::<ToolCallParams>(p).name.is_some();
        if method == "tools/call" && !request.params.as_ref().is_some_and(named) {
            let message = "Invalid params: missing tool name";
            return Err(ErrorData::invalid_params(message, None));
        }
        if KNOWN_METHODS.contains(&method) {
            let message = format!("Invalid params for {method}");
            return Err(ErrorData::invalid_params(message, None));
        }
        Err(Self::method_not_found(method))
    }
}

/// The part of `tools/call`'s params checked before rmcp reads them.
#[derive(Default, serde::Deserialize)]
struct ToolCallParams {
    /// The tool's name (of any type: rmcp names a wrong one).
    #[serde(default, deserialize_with = "present")]
    name: Option<Value>,
}
