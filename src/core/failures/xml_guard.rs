//! A reader in front of the XML parser that bounds what one event can cost. quick-xml holds a
//! whole event (a tag with its attributes, a text run, a CDATA section, a comment) in memory
//! before handing it over, so one 100 MiB attribute would be 100 MiB held. Here, in one linear
//! pass over the bytes:
//! - a tag, processing instruction or declaration longer than [`MAX_MARKUP`] is an error (no
//!   report has an element that long; a test name in it could not be an id anyway);
//! - text, CDATA and comments are kept up to [`MAX_TEXT`] bytes per run and the rest dropped
//!   (a failure message keeps 2 KiB of it in any case), their terminators kept so the document
//!   stays well formed.

use std::io::{BufRead, Read};

/// Longest tag, processing instruction or declaration accepted.
pub const MAX_MARKUP: usize = 1 << 20;
/// Most bytes of one text run, CDATA section or comment passed on.
pub const MAX_TEXT: usize = 1 << 20;
/// Longest entity reference let through whole when a text run is cut (`&#x10FFFF;` is 10).
const MAX_ENTITY: usize = 32;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Character data; `entity` is the length of an open `&…` reference.
    Text {
        run: usize,
        entity: Option<usize>,
    },
    /// Just after `<`.
    Lt,
    /// After `<!`, `matched` bytes of `[CDATA[` so far.
    Bang {
        matched: usize,
    },
    /// After `<!-`.
    BangDash,
    Tag {
        len: usize,
        quote: Option<u8>,
    },
    /// `<?…?>`; `q` when the previous byte was `?`.
    Pi {
        len: usize,
        q: bool,
    },
    /// `<!DOCTYPE …>` and friends: brackets nest, quotes hide `>`.
    Decl {
        len: usize,
        depth: usize,
        quote: Option<u8>,
    },
    /// Inside `<!--`; `dashes` trailing `-` seen.
    Comment {
        run: usize,
        dashes: usize,
    },
    /// Inside `<![CDATA[`; `brackets` trailing `]` seen.
    CData {
        run: usize,
        brackets: usize,
    },
}

pub struct XmlGuard<R> {
    inner: R,
    state: State,
    out: Vec<u8>,
    at: usize,
}

impl<R: BufRead> XmlGuard<R> {
    pub fn new(inner: R) -> Self {
        XmlGuard {
            inner,
            state: State::Text {
                run: 0,
                entity: None,
            },
            out: Vec::new(),
            at: 0,
        }
    }

    /// Runs `chunk` through the state machine into `self.out`.
    fn feed(&mut self, chunk: &[u8]) -> std::io::Result<()> {
        let mut i = 0;
        while i < chunk.len() {
            // The common case: plain text up to the next `<` or `&`, copied (or dropped) whole.
            if let State::Text { run, entity: None } = self.state {
                let rest = &chunk[i..];
                let n = memchr::memchr2(b'<', b'&', rest).unwrap_or(rest.len());
                let keep = n.min(MAX_TEXT.saturating_sub(run));
                self.out.extend_from_slice(&rest[..keep]);
                self.state = State::Text {
                    run: run + n,
                    entity: None,
                };
                i += n;
                if i == chunk.len() {
                    break;
                }
            }
            let b = chunk[i];
            i += 1;
            self.byte(b)?;
        }
        Ok(())
    }

    fn byte(&mut self, b: u8) -> std::io::Result<()> {
        use State::*;
        let too_long = |what: &str| {
            Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("the report has {what} longer than {} MiB", MAX_MARKUP >> 20),
            ))
        };
        self.state = match self.state {
            Text { run, entity } => match (b, entity) {
                (b'<', _) => {
                    self.out.push(b);
                    Lt
                }
                (b'&', _) => {
                    if run < MAX_TEXT {
                        self.out.push(b);
                        Text {
                            run: run + 1,
                            entity: Some(1),
                        }
                    } else {
                        Text {
                            run: run + 1,
                            entity: None,
                        }
                    }
                }
                (b';', Some(_)) => {
                    self.out.push(b);
                    Text {
                        run: run + 1,
                        entity: None,
                    }
                }
                (_, Some(n)) => {
                    // An open reference is let through whole, even past the cut, so the text
                    // never ends inside one.
                    if run < MAX_TEXT || n < MAX_ENTITY {
                        self.out.push(b);
                    }
                    Text {
                        run: run + 1,
                        entity: (n < MAX_ENTITY).then_some(n + 1),
                    }
                }
                (_, None) => {
                    if run < MAX_TEXT {
                        self.out.push(b);
                    }
                    Text {
                        run: run + 1,
                        entity: None,
                    }
                }
            },
            Lt => {
                self.out.push(b);
                match b {
                    b'?' => Pi { len: 2, q: false },
                    b'!' => Bang { matched: 0 },
                    b'>' => Text {
                        run: 0,
                        entity: None,
                    },
                    b'"' | b'\'' => Tag {
                        len: 2,
                        quote: Some(b),
                    },
                    _ => Tag {
                        len: 2,
                        quote: None,
                    },
                }
            }
            BangDash => {
                self.out.push(b);
                if b == b'-' {
                    Comment { run: 0, dashes: 0 }
                } else {
                    Self::decl_byte(b, 4, 0, None)
                }
            }
            Bang { matched } => {
                self.out.push(b);
                const CDATA: &[u8] = b"[CDATA[";
                if matched == 0 && b == b'-' {
                    BangDash
                } else if CDATA.get(matched) == Some(&b) {
                    if matched + 1 == CDATA.len() {
                        CData {
                            run: 0,
                            brackets: 0,
                        }
                    } else {
                        Bang {
                            matched: matched + 1,
                        }
                    }
                } else {
                    // `<!DOCTYPE`, `<!ELEMENT`: a declaration.
                    Self::decl_byte(b, matched + 3, 0, None)
                }
            }
            Tag { len, quote } => {
                if len >= MAX_MARKUP {
                    return too_long("a tag");
                }
                self.out.push(b);
                match (quote, b) {
                    (None, b'>') => Text {
                        run: 0,
                        entity: None,
                    },
                    (None, b'"' | b'\'') => Tag {
                        len: len + 1,
                        quote: Some(b),
                    },
                    (Some(q), c) if q == c => Tag {
                        len: len + 1,
                        quote: None,
                    },
                    _ => Tag {
                        len: len + 1,
                        quote,
                    },
                }
            }
            Pi { len, q } => {
                if len >= MAX_MARKUP {
                    return too_long("a processing instruction");
                }
                self.out.push(b);
                if q && b == b'>' {
                    Text {
                        run: 0,
                        entity: None,
                    }
                } else {
                    Pi {
                        len: len + 1,
                        q: b == b'?',
                    }
                }
            }
            Decl { len, depth, quote } => {
                if len >= MAX_MARKUP {
                    return too_long("a declaration");
                }
                self.out.push(b);
                Self::decl_byte(b, len + 1, depth, quote)
            }
            Comment { run, dashes } => self.closing(b, run, dashes, b'-', b"-->", true),
            CData { run, brackets } => self.closing(b, run, brackets, b']', b"]]>", false),
        };
        Ok(())
    }

    fn decl_byte(b: u8, len: usize, depth: usize, quote: Option<u8>) -> State {
        match (quote, b) {
            (Some(q), c) if q == c => State::Decl {
                len,
                depth,
                quote: None,
            },
            (Some(_), _) => State::Decl { len, depth, quote },
            (None, b'"' | b'\'') => State::Decl {
                len,
                depth,
                quote: Some(b),
            },
            (None, b'[') => State::Decl {
                len,
                depth: depth + 1,
                quote,
            },
            (None, b']') => State::Decl {
                len,
                depth: depth.saturating_sub(1),
                quote,
            },
            (None, b'>') if depth == 0 => State::Text {
                run: 0,
                entity: None,
            },
            _ => State::Decl { len, depth, quote },
        }
    }

    /// A byte of a comment or CDATA section, which ends at `end` (`-->`, `]]>`): kept while the
    /// section is under [`MAX_TEXT`], the terminator always.
    fn closing(
        &mut self,
        b: u8,
        run: usize,
        trail: usize,
        mark: u8,
        end: &[u8; 3],
        comment: bool,
    ) -> State {
        let kept = run < MAX_TEXT;
        if b == b'>' && trail >= 2 {
            if kept {
                self.out.push(b);
            } else {
                self.out.extend_from_slice(end);
            }
            return State::Text {
                run: 0,
                entity: None,
            };
        }
        if kept {
            self.out.push(b);
        }
        let trail = if b == mark { trail + 1 } else { 0 };
        if comment {
            State::Comment {
                run: run + 1,
                dashes: trail,
            }
        } else {
            State::CData {
                run: run + 1,
                brackets: trail,
            }
        }
    }
}

impl<R: BufRead> Read for XmlGuard<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while self.at == self.out.len() {
            self.out.clear();
            self.at = 0;
            let chunk = match self.inner.fill_buf() {
                Ok(c) => c,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if chunk.is_empty() {
                return Ok(0);
            }
            // At most 64 KiB at a time, so `out` stays small.
            let n = chunk.len().min(64 * 1024);
            let chunk = chunk[..n].to_vec();
            self.inner.consume(n);
            self.feed(&chunk)?;
        }
        let n = buf.len().min(self.out.len() - self.at);
        buf[..n].copy_from_slice(&self.out[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guarded(input: &[u8]) -> std::io::Result<Vec<u8>> {
        let mut out = Vec::new();
        // A tiny buffer, so every state is crossed at a chunk boundary somewhere.
        let r = std::io::BufReader::with_capacity(7, input);
        XmlGuard::new(r).read_to_end(&mut out)?;
        Ok(out)
    }

    #[test]
    fn an_ordinary_report_passes_through_unchanged() {
        let doc = br#"<?xml version="1.0"?>
<!DOCTYPE x [ <!ENTITY a "b>c"> ]>
<!-- a -- comment -->
<testsuite name="s"><testcase name="a&gt;b" classname='c>d'><failure message="m">x &amp; y<![CDATA[ <not a tag> ]] ]]></failure></testcase></testsuite>"#;
        assert_eq!(guarded(doc).unwrap(), doc.to_vec());
    }

    #[test]
    fn a_long_text_run_is_cut_and_the_document_stays_whole() {
        let mut doc = b"<a>".to_vec();
        doc.extend(std::iter::repeat_n(b'x', MAX_TEXT + 10));
        doc.extend_from_slice(b"</a><b>y</b>");
        let out = guarded(&doc).unwrap();
        assert_eq!(out.len(), 3 + MAX_TEXT + b"</a><b>y</b>".len());
        assert!(out.ends_with(b"x</a><b>y</b>"));
    }

    #[test]
    fn a_cut_never_ends_inside_an_entity_reference() {
        let mut doc = b"<a>".to_vec();
        doc.extend(std::iter::repeat_n(b'x', MAX_TEXT - 2));
        doc.extend_from_slice(b"&amp;tail</a>");
        let out = guarded(&doc).unwrap();
        assert!(
            out.ends_with(b"xx&amp;</a>"),
            "{:?}",
            &out[out.len() - 12..]
        );
    }

    #[test]
    fn long_comments_and_cdata_keep_their_terminators() {
        for (open, close) in [(&b"<!--"[..], &b"-->"[..]), (b"<![CDATA[", b"]]>")] {
            let mut doc = b"<a>".to_vec();
            doc.extend_from_slice(open);
            doc.extend(std::iter::repeat_n(b'-', MAX_TEXT + 5));
            doc.extend_from_slice(b"q]");
            doc.extend_from_slice(close);
            doc.extend_from_slice(b"</a>");
            let out = guarded(&doc).unwrap();
            assert!(out.len() < MAX_TEXT + 20);
            let mut end = close.to_vec();
            end.extend_from_slice(b"</a>");
            assert!(out.ends_with(&end));
        }
    }

    #[test]
    fn a_tag_longer_than_the_cap_is_an_error_even_inside_quotes() {
        let mut doc = b"<testcase name=\"".to_vec();
        doc.extend(std::iter::repeat_n(b'>', MAX_MARKUP));
        doc.extend_from_slice(b"\"/>");
        let e = guarded(&doc).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidData);
        assert!(e.to_string().contains("a tag longer than 1 MiB"), "{e}");
        let mut pi = b"<?x ".to_vec();
        pi.extend(std::iter::repeat_n(b'a', MAX_MARKUP));
        assert!(guarded(&pi).is_err());
        let mut decl = b"<!DOCTYPE x [".to_vec();
        decl.extend(std::iter::repeat_n(b'>', MAX_MARKUP));
        assert!(guarded(&decl).is_err());
    }
}
