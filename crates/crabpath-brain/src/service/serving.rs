//! What a brain keeps between the requests of the agents it serves: the vectors its
//! routers read ([`crate::service::route::VectorCache`]), the link words of its
//! conversation's turns (`remember`) and, for a state file, the conversation
//! log and feedback ledger ([`crate::service::turns::MemoryLog`]; a database keeps those in its
//! tables).

/// See the module docs.
#[derive(Default)]
pub(crate) struct Serving {
    /// Route vectors read from a database.
    pub(crate) vectors: crate::service::route::VectorCache,
    /// A state file's conversation log and ledger.
    pub(crate) turns: crate::service::turns::MemoryLog,
    /// The chats whose newest query was answered but not journaled (issue 30 item 4).
    pub(crate) unjournaled: crate::service::unjournaled::UnjournaledChats,
    /// The link words of the conversation turns `remember` has read, split once
    /// ([`crate::source::conversation::entities::WordIndex`]).
    pub(crate) words: crate::source::conversation::entities::WordIndex,
}
