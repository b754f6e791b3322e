//! The CNMT (content meta): what a Meta NCA says its title is, and the NCAs it is
//! made of, each with its SHA-256. Layout as nsz's `Fs/Cnmt.py` and switchbrew's CNMT
//! page read it.

use super::{Content, ContentRecord, MetaType};
use crate::error::Reason;
use crate::library::bytes::{array, u16le, u32le, u64le};

const HEADER: usize = 0x20;
const RECORD: usize = 0x38;
/// Real CNMTs list a few NCAs (an update with its delta fragments, a few hundred);
/// more is a crafted file, refused before its records are copied.
const MAX_RECORDS: usize = 4096;

/// Parse a `.cnmt` file. The reason of an `Err` is safe to show.
pub fn parse(b: &[u8]) -> Result<Content, Reason> {
    let truncated = || Reason::CnmtTruncated;
    if b.len() < HEADER {
        return Err(truncated());
    }
    let title_id = u64le(b, 0).ok_or_else(truncated)?;
    let version = u32le(b, 8).ok_or_else(truncated)?;
    let meta_type = match b[0xC] {
        0x80 => MetaType::Application,
        0x81 => MetaType::Patch,
        0x82 => MetaType::AddOn,
        0x83 => MetaType::Delta,
        other => MetaType::Other(other),
    };
    let extended = u16le(b, 0xE).ok_or_else(truncated)? as usize;
    let count = u16le(b, 0x10).ok_or_else(truncated)? as usize;
    if count > MAX_RECORDS {
        return Err(Reason::CnmtTooMany);
    }
    let records_at = HEADER + extended;
    let records_end = records_at + count * RECORD;
    if records_end > b.len() {
        return Err(Reason::CnmtRecords);
    }
    // The extended header of an update or a DLC starts with its application's ID.
    let application_id = match meta_type {
        MetaType::Patch | MetaType::AddOn | MetaType::Delta if extended >= 8 => {
            Some(u64le(b, HEADER).ok_or_else(truncated)?)
        }
        _ => None,
    };
    let records = b[records_at..records_end]
        .chunks_exact(RECORD)
        .map(|r| {
            // Each chunk is RECORD bytes: every field below is inside it.
            let mut size = [0u8; 8];
            size[..6].copy_from_slice(&array::<6>(r, 0x30).unwrap_or_default());
            ContentRecord {
                sha256: array(r, 0).unwrap_or_default(),
                nca_id: array(r, 0x20).unwrap_or_default(),
                size: u64::from_le_bytes(size),
                kind: r[0x36],
            }
        })
        .collect();
    Ok(Content {
        title_id,
        meta_type,
        version,
        application_id,
        records,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_truncation_and_a_lying_count_are_errors_never_panics() {
        let mut cnmt = vec![0u8; HEADER + 0x10 + RECORD];
        cnmt[0..8].copy_from_slice(&0x0100_0000_0000_0800u64.to_le_bytes());
        cnmt[8..12].copy_from_slice(&65536u32.to_le_bytes());
        cnmt[0xC] = 0x81;
        cnmt[0xE] = 0x10;
        cnmt[0x10] = 1;
        cnmt[HEADER..HEADER + 8].copy_from_slice(&0x0100_0000_0000_0000u64.to_le_bytes());
        let content = parse(&cnmt).unwrap();
        assert_eq!(content.meta_type, MetaType::Patch);
        assert_eq!(content.application_id, Some(0x0100_0000_0000_0000));
        assert_eq!(content.records.len(), 1);
        for len in 0..cnmt.len() {
            assert!(parse(&cnmt[..len]).is_err(), "{len}");
        }
        cnmt[0x10] = 0xFF;
        cnmt[0x11] = 0xFF;
        assert!(parse(&cnmt).is_err());
    }
}
