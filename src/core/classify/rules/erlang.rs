//! Erlang: the concurrency rules (see `super` for how a rule is read). Processes share nothing:
//! what is concurrent is how they start, send, receive, monitor and link. `%` starts a comment;
//! `$c` is a character and `'atom'` is blanked like a string (`super::super::lang`).

use super::Rule;
use crate::core::classify::lang::Lang::*;

pub const RULES: &[Rule] = &[
    Rule {
        name: "erlang.spawn",
        langs: &[Erlang],
        anchors: &["spawn"],
        unless: None,
        pattern: r"\b(?:erlang:|proc_lib:)?spawn(?:_link|_monitor|_opt|_request)?\s*\(",
    },
    Rule {
        // `Pid ! Msg`, `erlang:send/2`, and the gen behaviours' requests and replies.
        name: "erlang.send",
        langs: &[Erlang],
        anchors: &["!", "send", "call(", "cast(", "reply(", "send_request"],
        unless: None,
        pattern: r"[\w)}\]]\s*!\s*[{\w\[<'(]|\berlang:send(?:_after|_nosuspend)?\s*\(|\bgen_(?:server|statem|event):(?:call|cast|reply|send_request|multi_call|abcast)\s*\(|\bgen:(?:call|reply)\s*\(",
    },
    Rule {
        name: "erlang.receive",
        langs: &[Erlang],
        anchors: &["receive"],
        unless: None,
        pattern: r"(?:^|[\s,;(>])receive\b",
    },
    Rule {
        // Monitors, links and exit trapping: how a process learns another died.
        name: "erlang.monitor",
        langs: &[Erlang],
        anchors: &["monitor", "link(", "trap_exit", "process", "exit("],
        unless: None,
        pattern: r#"\b(?:erlang:)?(?:de)?monitor\s*\(|\b(?:erlang:)?(?:un)?link\s*\(|\btrap_exit\b|\{\s*(?:''|"")\s*,\s*\w+\s*,\s*process\b|\bexit\s*\(\s*\w+\s*,"#,
    },
    Rule {
        // A gen behaviour's message handlers: changing one changes how messages interleave.
        name: "erlang.handler",
        langs: &[Erlang],
        anchors: &["handle_call", "handle_cast", "handle_info", "handle_event"],
        unless: None,
        pattern: r"^\s*handle_(?:call|cast|info|event|continue)\s*\(",
    },
    Rule {
        name: "erlang.ets-atomics",
        langs: &[Erlang],
        anchors: &[
            "atomics:",
            "counters:",
            "persistent_term",
            "read_concurrency",
            "write_concurrency",
            "global:",
        ],
        unless: None,
        pattern: r"\b(?:atomics|counters):\w+\s*\(|\bpersistent_term:(?:put|erase)\b|\b(?:read|write)_concurrency\b|\bglobal:(?:set_lock|del_lock|trans)\b",
    },
];
