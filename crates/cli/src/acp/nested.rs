//! The tool calls of sub-agents, listed as the content of the call that
//! delegated to them (ACP has no nested tool calls).

/// Where a sub-agent's call is.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum NestedState {
    /// Asked for.
    Pending,
    /// Executing.
    Running,
    /// Succeeded.
    Done,
    /// Failed or cancelled.
    Failed,
}

/// The tool calls of the sub-agents running under each delegating call.
#[derive(Default)]
pub struct NestedActivity {
    calls: std::collections::HashMap<String, Vec<(String, String, NestedState)>>,
    ended: std::collections::HashSet<String>,
}

impl NestedActivity {
    /// A call of the sub-agent under `parent` was asked for.
    pub fn started(&mut self, parent: &str, call_id: String, name: String) {
        self.calls.entry(parent.to_string()).or_default().push((
            call_id,
            name,
            NestedState::Pending,
        ));
    }

    /// A call under `parent` moved on.
    pub fn set(&mut self, parent: &str, call_id: &str, state: NestedState) {
        if let Some(call) = self
            .calls
            .get_mut(parent)
            .and_then(|c| c.iter_mut().find(|c| c.0 == call_id))
        {
            call.2 = state;
        }
    }

    /// The list shown as the delegating call's content.
    pub fn text(&self, parent: &str) -> String {
        let Some(calls) = self.calls.get(parent) else {
            return String::new();
        };
        calls
            .iter()
            .map(|(_, name, state)| {
                let mark = match state {
                    NestedState::Pending => "…",
                    NestedState::Running => "▶",
                    NestedState::Done => "✓",
                    NestedState::Failed => "✗",
                };
                format!("{mark} {name}")
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The delegating call ended.
    pub fn forget(&mut self, parent: &str) {
        self.calls.remove(parent);
        self.ended.insert(parent.to_string());
    }

    /// True once the delegating call ended.
    pub fn ended(&self, parent: &str) -> bool {
        self.ended.contains(parent)
    }
}
