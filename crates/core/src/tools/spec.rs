//! A built-in tool's declaration lives in the catalogue
//! ([`crate::catalogue::spec`]); this module re-exports it for the tools
//! and keeps the macro that answers a tool's identity from its spec.

pub use crate::catalogue::spec::*;

/// The [`Tool`](crate::tools::Tool) methods a built-in answers from its
/// spec: `name`, `display_name`, `kind` and `spec` itself.
macro_rules! identity_from_spec {
    ($spec:expr) => {
        fn name(&self) -> &str {
            $spec.name
        }
        fn display_name(&self) -> &str {
            $spec.display_name
        }
        fn kind(&self) -> crate::tools::ToolKind {
            $spec.kind
        }
        fn spec(&self) -> Option<&'static crate::tools::spec::ToolSpec> {
            Some(&$spec)
        }
    };
}
pub(crate) use identity_from_spec;
