//! What a run printed, bounded: its first and its last bytes (where a runner prints the test's
//! start and its result), with a mark where the middle was cut.

/// Kept from the start, and as many from the end.
pub const KEEP: usize = 8 << 20;

/// The start and the end of what a run printed.
#[derive(Default)]
pub struct Capture {
    head: Vec<u8>,
    tail: std::collections::VecDeque<u8>,
    cut: bool,
}

impl Capture {
    pub fn push(&mut self, bytes: &[u8]) {
        let room = KEEP.saturating_sub(self.head.len());
        let (h, t) = bytes.split_at(bytes.len().min(room));
        self.head.extend_from_slice(h);
        self.tail.extend(t);
        if self.tail.len() > KEEP {
            let extra = self.tail.len() - KEEP;
            self.tail.drain(..extra);
            self.cut = true;
        }
    }

    pub fn text(&self) -> String {
        let mut text = String::from_utf8_lossy(&self.head).into_owned();
        if self.cut {
            text.push_str("\n[… output cut …]\n");
        }
        let tail: Vec<u8> = self.tail.iter().copied().collect();
        text.push_str(&String::from_utf8_lossy(&tail));
        text
    }
}
