//! A PR body as markdown: HTML comments removed, then split into blocks of prose and code,
//! each with the heading it sits under. Tables become `key: value` lines, `<details>` and
//! block quotes are read like the rest.

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

/// Where a block sits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockKind {
    Prose,
    Code,
}

#[derive(Clone, Debug)]
pub struct Block {
    pub kind: BlockKind,
    pub text: String,
    /// The nearest heading above the block.
    pub heading: Option<String>,
    /// 1-based position among the body's blocks, for "where in the body".
    pub index: usize,
    /// 1-based line of the body where the block starts.
    pub line: usize,
}

impl Block {
    /// True when this block sits under a heading about the reproduction.
    pub fn in_reproduction_section(&self) -> bool {
        self.heading.as_deref().is_some_and(is_reproduction_heading)
    }
}

pub fn is_reproduction_heading(h: &str) -> bool {
    let h = h.to_ascii_lowercase();
    h.contains("reproduc") || h.contains("repro") || h.contains("evidence")
}

/// Removes `<!-- … -->` outside fenced code (an unclosed comment runs to the end, as in HTML).
pub fn strip_html_comments(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    let mut fence: Option<(char, usize)> = None;
    let mut in_comment = false;
    for line in body.split_inclusive('\n') {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        if !in_comment && indent <= 3 {
            let ch = trimmed.chars().next();
            if let Some(c @ ('`' | '~')) = ch {
                let run = trimmed.chars().take_while(|x| *x == c).count();
                if run >= 3 {
                    match fence {
                        None => fence = Some((c, run)),
                        Some((fc, fr))
                            if fc == c && run >= fr && trimmed[run..].trim().is_empty() =>
                        {
                            fence = None
                        }
                        _ => {}
                    }
                    out.push_str(line);
                    continue;
                }
            }
        }
        if fence.is_some() {
            out.push_str(line);
            continue;
        }
        let mut rest = line;
        loop {
            if in_comment {
                match rest.find("-->") {
                    Some(end) => {
                        rest = &rest[end + 3..];
                        in_comment = false;
                    }
                    None => {
                        if line.ends_with('\n') {
                            out.push('\n');
                        }
                        break;
                    }
                }
            } else {
                match rest.find("<!--") {
                    Some(start) => {
                        out.push_str(&rest[..start]);
                        rest = &rest[start + 4..];
                        in_comment = true;
                    }
                    None => {
                        out.push_str(rest);
                        break;
                    }
                }
            }
        }
    }
    out
}

/// Splits a body into blocks.
pub fn blocks(body: &str) -> Vec<Block> {
    let clean = strip_html_comments(body);
    let mut opts = Options::empty();
    opts.insert(Options::ENABLE_TABLES);
    opts.insert(Options::ENABLE_STRIKETHROUGH);
    opts.insert(Options::ENABLE_TASKLISTS);
    let mut out: Vec<Block> = Vec::new();
    let mut heading: Option<String> = None;
    let mut in_heading = false;
    let mut heading_text = String::new();
    let mut current = String::new();
    let mut in_code = false;
    let mut in_strike = 0usize;
    // The last text pushed was a code span.
    let mut after_code = false;
    let mut row: Vec<String> = Vec::new();
    let mut cell: Option<String> = None;
    // Line starts, to turn event offsets into line numbers (comment stripping keeps lines).
    let starts: Vec<usize> = std::iter::once(0)
        .chain(clean.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    let line_of = |offset: usize| starts.partition_point(|&s| s <= offset).max(1);
    // The line where the text gathered so far began.
    let mut began: Option<usize> = None;

    let flush = |out: &mut Vec<Block>,
                 text: &mut String,
                 kind: BlockKind,
                 heading: &Option<String>,
                 began: &mut Option<usize>| {
        if !text.trim().is_empty() {
            let index = out.len() + 1;
            out.push(Block {
                kind,
                text: std::mem::take(text),
                heading: heading.clone(),
                index,
                line: began.unwrap_or(1),
            });
        } else {
            text.clear();
        }
        *began = None;
    };

    for (event, range) in Parser::new_ext(&clean, opts).into_offset_iter() {
        if began.is_none()
            && matches!(
                event,
                Event::Text(_) | Event::Code(_) | Event::Html(_) | Event::InlineHtml(_)
            )
            && !in_heading
        {
            began = Some(line_of(range.start));
        }
        match event {
            Event::Start(Tag::Heading { .. }) => {
                flush(
                    &mut out,
                    &mut current,
                    BlockKind::Prose,
                    &heading,
                    &mut began,
                );
                in_heading = true;
                heading_text.clear();
            }
            Event::End(TagEnd::Heading(_)) => {
                in_heading = false;
                heading = Some(heading_text.trim().to_string());
            }
            Event::Start(Tag::CodeBlock(_)) => {
                flush(
                    &mut out,
                    &mut current,
                    BlockKind::Prose,
                    &heading,
                    &mut began,
                );
                in_code = true;
            }
            Event::End(TagEnd::CodeBlock) => {
                flush(
                    &mut out,
                    &mut current,
                    BlockKind::Code,
                    &heading,
                    &mut began,
                );
                in_code = false;
            }
            Event::Start(Tag::Strikethrough) => in_strike += 1,
            Event::End(TagEnd::Strikethrough) => in_strike = in_strike.saturating_sub(1),
            Event::Start(Tag::TableRow | Tag::TableHead) => row.clear(),
            Event::Start(Tag::TableCell) => cell = Some(String::new()),
            Event::End(TagEnd::TableCell) => {
                if let Some(c) = cell.take() {
                    row.push(c.trim().to_string());
                }
            }
            Event::End(TagEnd::TableRow | TagEnd::TableHead) => {
                // A two-column row reads as `key: value`; wider rows as their cells.
                let line = if row.len() == 2 {
                    format!("{}: {}", row[0], row[1])
                } else {
                    row.join(" | ")
                };
                current.push_str(&line);
                current.push('\n');
                row.clear();
            }
            Event::End(
                TagEnd::Paragraph | TagEnd::Item | TagEnd::BlockQuote(_) | TagEnd::Table,
            ) => {
                if !in_code {
                    current.push('\n');
                }
                if matches!(event, Event::End(TagEnd::Paragraph | TagEnd::Table)) {
                    flush(
                        &mut out,
                        &mut current,
                        BlockKind::Prose,
                        &heading,
                        &mut began,
                    );
                }
            }
            Event::Text(ref t) | Event::Code(ref t) => {
                if in_strike > 0 {
                    continue;
                }
                let is_code = matches!(event, Event::Code(_));
                let target = if in_heading {
                    &mut heading_text
                } else if let Some(c) = cell.as_mut() {
                    c
                } else {
                    &mut current
                };
                // A code span glued to a word (`in`Foo`test`) is still a word of its own.
                let glued = |a: Option<char>, b: Option<char>| {
                    a.is_some_and(char::is_alphanumeric) && b.is_some_and(char::is_alphanumeric)
                };
                if (is_code || after_code) && glued(target.chars().last(), t.chars().next()) {
                    target.push(' ');
                }
                target.push_str(t);
                after_code = is_code;
            }
            Event::Html(t) | Event::InlineHtml(t) => {
                // Tags go, their text stays (`<details>`, `<summary>`); placeholders such as
                // `<paste here>` vanish because they look like tags.
                let text = strip_tags(&t);
                if let Some(c) = cell.as_mut() {
                    c.push_str(&text);
                } else if in_heading {
                    heading_text.push_str(&text);
                } else {
                    current.push_str(&text);
                }
            }
            Event::SoftBreak | Event::HardBreak => {
                if let Some(c) = cell.as_mut() {
                    c.push(' ');
                } else if in_heading {
                    heading_text.push(' ');
                } else {
                    current.push('\n');
                }
            }
            _ => {}
        }
    }
    let kind = if in_code {
        BlockKind::Code
    } else {
        BlockKind::Prose
    };
    flush(&mut out, &mut current, kind, &heading, &mut began);
    out
}

fn strip_tags(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            _ if !in_tag => out.push(c),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_comments_vanish_but_not_inside_code() {
        let body = "a <!-- seed: 1 --> b\n<!--\nseed: 2\n-->\n```\n<!-- kept -->\n```\n";
        let s = strip_html_comments(body);
        assert!(!s.contains("seed: 1") && !s.contains("seed: 2"), "{s}");
        assert!(s.contains("<!-- kept -->"));
        assert!(!strip_html_comments("x <!-- never closed\nseed: 3").contains("seed: 3"));
    }

    #[test]
    fn blocks_keep_code_apart_and_know_their_heading() {
        let body = "Intro\n\n## Reproduction\nkind: seed\n\n```\nWARNING: DATA RACE\n```\n\n| key | value |\n|---|---|\n| seed | 7 |\n";
        let b = blocks(body);
        assert_eq!(b[0].kind, BlockKind::Prose);
        assert_eq!(b[0].heading, None);
        assert!(b[1].in_reproduction_section());
        assert!(b[1].text.contains("kind: seed"));
        assert_eq!(b[2].kind, BlockKind::Code);
        assert!(b[2].text.contains("DATA RACE"));
        assert!(b[3].text.contains("seed: 7"), "{:?}", b[3]);
        assert_eq!((b[0].line, b[1].line, b[2].line), (1, 4, 7));
    }

    #[test]
    fn details_and_quotes_are_read_placeholders_are_not() {
        let b = blocks(
            "<details><summary>log</summary>\n\n> seed: 9\n\n</details>\n\nseed: <paste here>\n",
        );
        let all: String = b.iter().map(|b| b.text.clone()).collect();
        assert!(all.contains("seed: 9"), "{all}");
        assert!(!all.contains("paste here"), "{all}");
    }
}
