//! Integration tests of crate `crabpath-pg` against a real PostgreSQL server
//! (`CRABPATH_POSTGRES`, which `.ci/run` sets after starting a throwaway cluster).

mod server;
mod values;
