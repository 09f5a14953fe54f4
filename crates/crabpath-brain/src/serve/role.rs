//! The role a caller holds and the role each MCP tool and daemon method needs (issue 30
//! item 1): `read` < `write` < `admin`. A token of a role may do everything a lower
//! role may. The role lives in each tool's and method's one definition
//! (`crabpath_mcp::tools::TOOLS`, [`crate::serve::daemon::METHODS`]), so that listing,
//! dispatch and the role check read the same table.

/// What a caller may do, in increasing order of power (the derived order is the check).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Role {
    /// Query, health, reading node resources.
    Read,
    /// Read, and change what the memory learned: feedback, correct, teach, remember, sync.
    Write,
    /// Write, and remove content (`forget`, issue 30 item 3).
    Admin,
}

impl Role {
    /// Every role, weakest first.
    pub const ALL: [Role; 3] = [Role::Read, Role::Write, Role::Admin];

    /// The role's name as flags and files spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Read => "read",
            Role::Write => "write",
            Role::Admin => "admin",
        }
    }

    /// The role named `s` (`read`, `write` or `admin`), or a one-line message saying so.
    pub fn parse(s: &str) -> Result<Role, String> {
        Role::ALL
            .into_iter()
            .find(|r| r.as_str() == s)
            .ok_or_else(|| format!("unknown role `{s}` (expected read, write or admin)"))
    }

    /// Whether a holder of `self` may do what needs `needed`.
    pub fn allows(self, needed: Role) -> bool {
        self >= needed
    }
}

#[cfg(test)]
mod tests {
    use super::Role;

    #[test]
    fn roles_order_and_names() {
        assert!(Role::Admin.allows(Role::Write) && Role::Write.allows(Role::Read));
        assert!(!Role::Read.allows(Role::Write) && !Role::Write.allows(Role::Admin));
        for r in Role::ALL {
            assert_eq!(Role::parse(r.as_str()), Ok(r));
        }
        assert!(Role::parse("root")
            .unwrap_err()
            .contains("read, write or admin"));
    }
}
