//! Elixir: the concurrency rules (see `super` for how a rule is read). As in Erlang, processes
//! and their messages are the concurrency. `#` starts a comment, `"""` heredocs span lines, and
//! `?c` is a character (`super::super::lang`).

use super::Rule;
use crate::core::classify::lang::Lang::*;

pub const RULES: &[Rule] = &[
    Rule {
        name: "elixir.process",
        langs: &[Elixir],
        anchors: &[
            "spawn",
            "Process.",
            "send(",
            "send ",
            "receive",
            ":DOWN",
            ":EXIT",
            "trap_exit",
        ],
        unless: None,
        pattern: r"\bspawn(?:_link|_monitor)?\s*[(\s]|\bProcess\.(?:send|send_after|monitor|demonitor|link|unlink|flag|exit|alive\?|register|whereis|cancel_timer)\b|(?:^|[\s(|>])send\s*\(|^\s*send\s+\w|(?:^|\s)receive\s+do\b|:DOWN\b|:EXIT\b|:trap_exit\b",
    },
    Rule {
        // OTP behaviours and their callers: calls, casts, replies, tasks, agents, registries.
        name: "elixir.otp",
        langs: &[Elixir],
        anchors: &[
            "GenServer",
            "GenStage",
            "Task",
            "Agent",
            "Registry",
            "handle_",
            ":ets",
            ":atomics",
            ":counters",
        ],
        unless: None,
        pattern: r"\bGen(?:Server|Stage|Statem)\.(?:call|cast|reply|multi_call|abcast|start_link|start)\b|\bTask\.(?:async|await|await_many|yield|yield_many|async_stream|start|start_link|Supervisor)\b|\bAgent\.(?:get|update|get_and_update|cast|start_link)\b|\bRegistry\.(?:register|lookup|dispatch|unregister)\b|\bdef\s+handle_(?:call|cast|info|continue|demand|events)\b|:(?:ets|atomics|counters)\.\w+",
    },
];
