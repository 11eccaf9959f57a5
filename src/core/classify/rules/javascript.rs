//! JavaScript / TypeScript: the concurrency rules (see `super` for how a rule is read). The comment and
//! string syntax these rules see blanked is in `super::super::lang`.

use super::Rule;
use crate::core::classify::lang::Lang::*;

pub const RULES: &[Rule] = &[
    Rule {
        name: "js.worker",
        langs: &[JavaScript],
        anchors: &["Worker", "worker_threads"],
        unless: None,
        pattern: r"\bnew\s+(?:Shared)?Worker\s*\(|\bworker_threads\b",
    },
    Rule {
        name: "js.shared-memory",
        langs: &[JavaScript],
        anchors: &["SharedArrayBuffer", "Atomics"],
        unless: None,
        pattern: r"\bSharedArrayBuffer\b|\bAtomics\.\w+",
    },
    Rule {
        name: "js.web-locks",
        langs: &[JavaScript],
        anchors: &["locks"],
        unless: None,
        pattern: r"\bnavigator\.locks\b",
    },
];
