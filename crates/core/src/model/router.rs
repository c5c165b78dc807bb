//! One generator for every provider: each call goes to the client of the
//! provider its model name names (built on first use, then kept), with
//! the bare model name. `/model` and `-m` can so switch providers freely.

use super::provider::{Provider, Providers};
use super::{ChunkStream, ContentGenerator, ModelError};
use futures::FutureExt;
use futures::future::BoxFuture;
use gemini_rs_protocol::{GenerateContentRequest, GenerateContentResponse};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio_util::sync::CancellationToken;

/// Builds the client of one provider.
pub type ClientFactory =
    Box<dyn Fn(&Provider) -> Result<Arc<dyn ContentGenerator>, ModelError> + Send + Sync>;

/// The generator that routes by provider.
pub struct ProviderRouter {
    providers: Arc<Providers>,
    factory: ClientFactory,
    clients: Mutex<HashMap<String, Arc<dyn ContentGenerator>>>,
}

impl ProviderRouter {
    /// A router over `providers`, building clients with `factory`.
    pub fn new(providers: Arc<Providers>, factory: ClientFactory) -> ProviderRouter {
        ProviderRouter {
            providers,
            factory,
            clients: Mutex::new(HashMap::new()),
        }
    }

    /// The client for `model` and the model name its API knows.
    fn route<'m>(
        &self,
        model: &'m str,
    ) -> Result<(Arc<dyn ContentGenerator>, &'m str), ModelError> {
        let resolved = self
            .providers
            .resolve(model)
            .map_err(|e| ModelError::Setup {
                message: e.to_string(),
            })?;
        let id = &resolved.provider.id;
        let mut clients = self
            .clients
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let client = match clients.get(id) {
            Some(client) => client.clone(),
            None => {
                let client = (self.factory)(resolved.provider)?;
                clients.insert(id.clone(), client.clone());
                client
            }
        };
        Ok((client, resolved.model))
    }
}

impl ContentGenerator for ProviderRouter {
    fn generate_stream<'a>(
        &'a self,
        model: &'a str,
        request: &'a GenerateContentRequest,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, Result<ChunkStream, ModelError>> {
        async move {
            let (client, bare) = self.route(model)?;
            client.generate_stream(bare, request, cancel).await
        }
        .boxed()
    }

    fn generate<'a>(
        &'a self,
        model: &'a str,
        request: &'a GenerateContentRequest,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, Result<GenerateContentResponse, ModelError>> {
        async move {
            let (client, bare) = self.route(model)?;
            client.generate(bare, request, cancel).await
        }
        .boxed()
    }
}
