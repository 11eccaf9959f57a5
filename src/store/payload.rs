//! Stored payloads are LZ4-compressed: webhook JSON shrinks about 4x, which is most of the
//! database's work at intake. Compression runs in the request handlers, in parallel, so the
//! single SQLite writer only copies the small result.

use bytes::Bytes;

/// A payload ready to store, with how it is encoded.
#[derive(Clone, Debug)]
pub struct StoredPayload {
    pub bytes: Bytes,
    pub encoding: &'static str,
}

const LZ4: &str = "lz4";
const RAW: &str = "raw";

impl StoredPayload {
    pub fn compress(raw: &[u8]) -> Self {
        StoredPayload {
            bytes: Bytes::from(lz4_flex::compress_prepend_size(raw)),
            encoding: LZ4,
        }
    }

    /// Stored as is (for callers that already hold a small payload).
    pub fn raw(raw: Bytes) -> Self {
        StoredPayload {
            bytes: raw,
            encoding: RAW,
        }
    }
}

/// The original payload bytes.
pub fn decode(bytes: Vec<u8>, encoding: &str) -> anyhow::Result<Vec<u8>> {
    match encoding {
        RAW => Ok(bytes),
        LZ4 => {
            let (size, body) = bytes
                .split_first_chunk::<4>()
                .ok_or_else(|| anyhow::anyhow!("stored payload is damaged: too short"))?;
            let size = u32::from_le_bytes(*size) as usize;
            // Nothing larger than a webhook was ever stored; a bigger size is damage.
            if size > crate::core::delivery::MAX_WEBHOOK_BYTES {
                anyhow::bail!("stored payload is damaged: claims {size} bytes");
            }
            lz4_flex::block::decompress(body, size)
                .map_err(|e| anyhow::anyhow!("stored payload is damaged: {e}"))
        }
        other => anyhow::bail!("stored payload has an unknown encoding {other:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compressed_payloads_round_trip() {
        let raw = br#"{"action":"opened","pull_request":{"body":"aaaaaaaaaaaaaaaaaaaaaaaaaaaa"}}"#;
        let stored = StoredPayload::compress(raw);
        assert_eq!(decode(stored.bytes.to_vec(), stored.encoding).unwrap(), raw);
        let plain = StoredPayload::raw(Bytes::from_static(b"{}"));
        assert_eq!(decode(plain.bytes.to_vec(), plain.encoding).unwrap(), b"{}");
    }

    #[test]
    fn damaged_or_unknown_payloads_are_errors_not_panics() {
        assert!(decode(vec![255, 255, 255, 127, 1], LZ4).is_err());
        assert!(decode(vec![1], LZ4).is_err());
        let mut truncated = StoredPayload::compress(&[7u8; 1000]).bytes.to_vec();
        truncated.truncate(truncated.len() - 3);
        assert!(decode(truncated, LZ4).is_err());
        assert!(decode(vec![1, 2], "zip").is_err());
    }
}
