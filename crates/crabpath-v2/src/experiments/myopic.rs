//! placeholder
#![allow(missing_docs)]
pub struct Design;
pub struct MyopicOptions;
pub struct MyopicStudy;
pub fn corrected_vs_myopic() {}
