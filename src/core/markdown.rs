//! Text the bot posts on GitHub, made safe: escaped markdown, code spans and blocks that
//! cannot close early, links only when they are plain web addresses. Coding agents read and
//! paste what the bot writes, so every name from a log or a repository goes through here.

/// Whether `s` may become a link on a page or in a comment: an http(s) URL of at most 2 KiB
/// with nothing in it that ends an attribute or a line.
pub fn is_web_link(s: &str) -> bool {
    (s.starts_with("https://") || s.starts_with("http://"))
        && s.len() <= 2048
        && !s.chars().any(|c| {
            c.is_whitespace() || c.is_control() || matches!(c, '"' | '\'' | '<' | '>' | '`')
        })
}

/// Escapes text for markdown, table cells included: nothing in it becomes markup, a code span,
/// an HTML tag or comment, a link or a mention.
pub fn md(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' | '\r' => out.push(' '),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '@' => out.push_str("&#64;"),
            '\\' | '|' | '`' | '*' | '_' | '[' | ']' | '#' | '~' | '!' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// An inline code span holding `s` exactly: the fence is longer than any run of backticks in
/// it, so it cannot close early.
pub fn code(s: &str) -> String {
    let s = s.replace(['\n', '\r'], " ");
    let fence = "`".repeat(longest_run(&s, '`') + 1);
    let pad = if s.starts_with('`') || s.ends_with('`') || s.starts_with(' ') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{s}{pad}{fence}")
}

/// A code span inside a table cell (GitHub splits cells on `|` even in code).
pub fn cell_code(s: &str) -> String {
    code(&s.replace('|', "\\|"))
}

/// A fenced code block holding `body` exactly (the fence is longer than any backtick run).
pub fn fenced(lang: &str, body: &str) -> String {
    let fence = "`".repeat(longest_run(body, '`').max(2) + 1);
    format!("{fence}{lang}\n{body}\n{fence}")
}

fn longest_run(s: &str, c: char) -> usize {
    let (mut best, mut run) = (0, 0);
    for x in s.chars() {
        if x == c {
            run += 1;
            best = best.max(run);
        } else {
            run = 0;
        }
    }
    best
}

/// True when `s` is safe to show in a code span that a person or agent might paste: nothing a
/// shell would treat as a separator, substitution or redirection.
pub fn code_safe(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 300
        && s.chars()
            .all(|c| c.is_alphanumeric() || " _-./:#[]=,+@%".contains(c))
}

/// A name from a log: a code span when it is plain, escaped text otherwise.
pub fn name(s: &str) -> String {
    if code_safe(s) { cell_code(s) } else { md(s) }
}

/// A line from a run, safe to show: control characters and backticks out, at most 200
/// characters.
pub fn excerpt(line: &str) -> String {
    let mut out: String = line
        .chars()
        .map(|c| if c.is_control() || c == '`' { ' ' } else { c })
        .take(200)
        .collect();
    if line.chars().count() > 200 {
        out.push('…');
    }
    out.trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_cannot_break_out_of_code_spans_or_become_markup() {
        assert_eq!(code("a`b"), "``a`b``");
        assert_eq!(code("`x`"), "`` `x` ``");
        assert_eq!(fenced("sh", "echo ```"), "````sh\necho ```\n````");
        assert_eq!(
            md("<!-- x --> @bob *a*"),
            "&lt;\\!-- x --&gt; &#64;bob \\*a\\*"
        );
        assert_eq!(name("TestPool/case_1"), "`TestPool/case_1`");
        assert_eq!(name("a';rm -rf /;'"), "a';rm -rf /;'");
        assert!(!name("x$(touch y)").starts_with('`'));
    }

    #[test]
    fn an_excerpt_has_no_control_characters_or_backticks_and_is_cut_at_200() {
        assert_eq!(excerpt("a`b\u{1b}[31mc"), "a b [31mc");
        assert_eq!(excerpt(&"x".repeat(500)).chars().count(), 201);
    }
}
