//! The engine's side of the MCP client ([`gemini_rs_mcp::Host`]): the
//! token file under `~/.gemini`, core's one HTTP client builder, Google
//! Application Default Credentials (as Vertex AI finds them) and core's
//! process groups (ended with the rest at exit).

use crate::config::{Env, GeminiPaths};
use crate::model::google_auth::GoogleCredentials;
use crate::model::http::build_client;
use crate::process::{Group, new_group};
use futures::future::BoxFuture;
use gemini_rs_mcp::Host;
use gemini_rs_mcp::host::{BoxError, ChildGroup, ProcessGroups};
use std::path::PathBuf;
use std::sync::Arc;

/// The host for connections and logins of a session or a subcommand:
/// its home paths and the environment it was started with.
pub fn host(paths: &GeminiPaths, env: &Env) -> Host {
    Host {
        gemini_dir: paths.gemini_dir.clone(),
        build_http: Arc::new(|builder| build_client(builder).map_err(BoxError::from)),
        google: Arc::new(AdcCredentials {
            home: paths.home.clone(),
            env: env.clone(),
        }),
        processes: Arc::new(CoreGroups),
        withheld_env: Arc::new(crate::config::is_provider_key),
        env: {
            let env = env.clone();
            Arc::new(move |name: &str| env.raw(name))
        },
    }
}

/// `host` with its stdio servers started inside `sandbox` (for the
/// servers a workspace's settings or project extensions declare, which a
/// sandboxed command could have written).
pub fn sandboxed(host: &Host, sandbox: Arc<crate::sandbox::PreparedSandbox>) -> Host {
    Host {
        processes: Arc::new(SandboxedGroups(sandbox)),
        ..host.clone()
    }
}

/// Application Default Credentials, looked up on each use.
struct AdcCredentials {
    home: PathBuf,
    env: Env,
}

#[async_trait::async_trait]
impl gemini_rs_mcp::host::GoogleCredentials for AdcCredentials {
    async fn access_token(
        &self,
        scopes: &[String],
        http: &reqwest::Client,
    ) -> Result<String, BoxError> {
        let creds = GoogleCredentials::find(|k| self.env.raw(k), &self.home)?.with_scopes(scopes);
        Ok(creds.token(http).await?)
    }
}

/// Core's process groups.
struct CoreGroups;

impl ProcessGroups for CoreGroups {
    fn prepare(&self, cmd: &mut std::process::Command) {
        new_group(cmd);
    }

    fn adopt(&self, pid: u32) -> Box<dyn ChildGroup> {
        Box::new(CoreGroup(Group::new(pid)))
    }
}

/// Core's process groups, each started inside the sandbox.
struct SandboxedGroups(Arc<crate::sandbox::PreparedSandbox>);

impl ProcessGroups for SandboxedGroups {
    fn prepare(&self, cmd: &mut std::process::Command) {
        new_group(cmd);
        crate::sandbox::install(cmd, self.0.clone());
    }

    fn adopt(&self, pid: u32) -> Box<dyn ChildGroup> {
        Box::new(CoreGroup(Group::new(pid)))
    }
}

/// One of core's process groups.
struct CoreGroup(Group);

impl ChildGroup for CoreGroup {
    fn alive(&self) -> bool {
        self.0.alive()
    }

    fn terminate(&mut self, grace: std::time::Duration) -> BoxFuture<'_, ()> {
        Box::pin(self.0.terminate_within(grace))
    }

    fn disarm(&mut self) {
        self.0.disarm();
    }
}
